// 1000 RapidCheck cases per property unless RC_PARAMS already sets max_success (CI's
// sanitizer job sets 100). RapidCheck reads RC_PARAMS lazily, once, at the first property,
// so setting it from a static initializer works.
#pragma once
#include <cstdlib>
#include <string>

namespace rml::bot_test {
inline const bool kRcParams = [] {
  const char *cur = std::getenv("RC_PARAMS");
  std::string v = cur ? cur : "";
  if (v.find("max_success") == std::string::npos) setenv("RC_PARAMS", (v.empty() ? "" : v + " ").append("max_success=1000").c_str(), 1);
  return true;
}();
}  // namespace rml::bot_test
