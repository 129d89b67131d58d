// Whether the tests run in the sanitizers' build (Debug -O1 with ASan/UBSan, about 20x
// slower): long properties check fewer cases there, since memory errors need coverage,
// not the case counts the Release run checks.
#pragma once
#include <cstdlib>
#include <functional>
#include <string>

namespace rml::test {
#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool kSanitized = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool kSanitized = true;
#else
inline constexpr bool kSanitized = false;
#endif
#else
inline constexpr bool kSanitized = false;
#endif

// Whether every case of the long soundness properties runs (scripts/soundness-long.sh
// sets RML_ALL_CASES); otherwise (CI) a sample does.
inline bool all_cases() { return std::getenv("RML_ALL_CASES") != nullptr; }

// CI's Release run checks a share of the generated programs, kept_of_20 in 20, chosen by
// the program's text (a failing case stays reproducible, and RapidCheck's small sizes
// would skew a generator draw). scripts/soundness-long.sh (RML_ALL_CASES) checks every
// case; the sanitizers' run checks each of its cases.
inline bool sampled_out_in_ci(const std::string &text, size_t kept_of_20) {
  return !kSanitized && !all_cases() && std::hash<std::string>{}(text) % 20 >= kept_of_20;
}
}  // namespace rml::test
