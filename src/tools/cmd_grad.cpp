// rml grad: the vectorised objective and gradient program of a fun, or their values at a
// point (--at) as JSON. A client of the library (api::grad_file, api::grad_programs): it
// reads the program, prints and sets the exit code.
#include "tools/commands.hpp"

#include <nlohmann/json.hpp>

#include "api/state.hpp"
#include "driver/chronogram.hpp"

namespace rml {

int cmd_grad(const GradCmd &c, std::ostream &out, std::ostream &err) {
  if (!c.at.empty() && !c.sizes.empty()) {
    err << "rml: error: --size is for printing the programs; with --at the sizes come from the arguments\n";
    return kFrontendError;
  }
  api::GradOptions o;
  o.fun = c.fun;
  o.wrt = c.wrt;
  o.evaluator = c.backend == Backend::Reference ? api::GradOptions::Evaluator::Reference : api::GradOptions::Evaluator::Compiled;
  if (c.at.empty()) {
    std::string io;
    auto text = read_file(c.file, io);
    if (!text) {
      err << "rml: error: " << io << "\n";
      return kFrontendError;
    }
    auto programs = api::grad_programs(c.file, *text, c.sizes, o);
    if (!programs) return print_failure(programs.failure(), err);
    for (auto &w : programs->warnings) err << w.rendered;
    out << programs->text;
    return kOk;
  }
  auto g = api::grad_file(c.file, c.at, o);
  if (!g) return print_failure(g.failure(), err);
  for (auto &w : g->warnings) err << w.rendered;
  // One line per tensor: the layout of the object, compact values, numbers spelt as rml
  // run spells them (array::format_real: round-trip exact).
  auto text = [](const api::Value &v) { return cell_json_text(api::to_oracle(api::Cell::of(v)), ","); };
  out << "{\n  \"value\": " << text(g->value) << ",\n  \"gradient\": {";
  for (size_t k = 0; k < g->gradient.size(); ++k)
    out << (k ? "," : "") << "\n    " << nlohmann::ordered_json(g->gradient[k].first).dump() << ": " << text(g->gradient[k].second);
  out << (g->gradient.empty() ? "}\n}\n" : "\n  }\n}\n");
  return kOk;
}

}  // namespace rml
