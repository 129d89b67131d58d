#include "driver/exit_policy.hpp"

#include "array/lower/lower.hpp"
#include "oracle/oracle.hpp"

namespace rml {

Exit exit_for_lowering(const std::string &rule) {
  for (const char *r : {"lower.unsupported", "lower.internal", "lower.ir", "lower.unresolved", "lower.unchecked"})
    if (rule == r) return kUnknown;
  return kFrontendError;
}

Exit exit_for(const lower::LowerError &e) { return exit_for_lowering(e.diag.rule); }

Exit exit_for(const oracle::OracleError &) { return kUnknown; }

}  // namespace rml
