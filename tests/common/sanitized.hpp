// Whether the tests run in the sanitizers' build (Debug -O1 with ASan/UBSan, about 20x
// slower): long properties check fewer cases there, since memory errors need coverage,
// not the case counts the Release run checks.
#pragma once

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
}  // namespace rml::test
