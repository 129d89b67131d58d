#include "tools/run_common.hpp"

#include <algorithm>
#include <cstdio>

#include "oracle/trace_io.hpp"
#include "tools/chronogram.hpp"

namespace rml {

std::optional<std::vector<std::string>> run_variables(const RunCmd &c, const core::Program &prog, std::ostream &err) {
  std::string why;
  auto vars = streams_shown(prog, c.show, c.show_all, why);
  if (!vars) err << c.file << ": error[run.show]: " << why << "\n";
  return vars;
}

}  // namespace rml
