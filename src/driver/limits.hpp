// The limits of the numeric options, which the command line and the library check alike
// (README "Limits and exit codes").
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

namespace rml {

inline constexpr size_t kMaxCycles = 100'000'000;         // --cycles: 1..10^8
inline constexpr double kMaxTimeoutSeconds = 86'400;       // --timeout: (0, 86400] seconds
inline constexpr uint64_t kMaxRlimit = 1'000'000'000'000;  // --rlimit: 1..10^12 Z3 resource units
inline constexpr uint64_t kDefaultMaxMemory = 2ull << 30;  // --max-memory default: 2 GiB
inline constexpr uint64_t kMinMaxMemory = 1ull << 20;      // --max-memory: 1 MiB..1 TiB
inline constexpr uint64_t kMaxMaxMemory = 1ull << 40;

std::string format_bytes(uint64_t bytes);  // "2 GiB", "1.5 MiB", "812 bytes" (the limits' messages)

}  // namespace rml
