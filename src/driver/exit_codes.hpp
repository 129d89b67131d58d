// The exit codes of rml's commands, which the library's results also carry (README
// "Limits and exit codes").
#pragma once

namespace rml {

// Documented exit codes (README "Limits and exit codes"). Out of memory (std::bad_alloc)
// and resource limits reached while computing are kUnknown: no verdict, never falsified.
enum Exit : int { kOk = 0, kFalsified = 1, kFrontendError = 2, kUnknown = 3 };

}  // namespace rml
