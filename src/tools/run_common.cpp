#include "tools/run_common.hpp"

#include <algorithm>
#include <cstdio>

#include "oracle/trace_io.hpp"
#include "tools/chronogram.hpp"

namespace rml {

std::optional<std::vector<std::string>> run_variables(const RunCmd &c, const core::Program &prog, std::ostream &err) {
  std::vector<std::string> vars;
  if (!c.show.empty()) {
    std::string why;
    auto shown = resolve_shown(prog, c.show, why);
    if (!shown) {
      err << c.file << ": error[run.show]: " << why << "\n";
      return std::nullopt;
    }
    vars = *shown;
  }
  if (c.show_all) {
    vars.clear();
    auto add = [&](const std::string &v) {
      if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
    };
    for (auto &v : prog.inputs) add(v.name);
    for (auto &v : prog.outputs) add(v.name);
    for (auto &eq : prog.equations) add(eq.lhs);
  }
  if (vars.empty()) {
    for (auto &v : prog.inputs) vars.push_back(v.name);
    for (auto &v : prog.outputs) vars.push_back(v.name);
  }
  return vars;
}

}  // namespace rml
