#include "api/chronogram_text.hpp"

#include <unordered_map>

#include "api/state.hpp"
#include "driver/chronogram.hpp"

namespace rml::api {

void write_chronogram(const Program &p, const Chronogram &ch, oracle::Format f, std::ostream &out) {
  // Enumeration values print as their constructors' names: the streams' types by the
  // variables the chronogram's names spell.
  const core::Program &prog = p.state().elab.prog;
  const auto &var_of = p.state().vars_of_labels();
  std::vector<std::string> vars;
  for (auto &name : ch.names) vars.push_back(var_of.count(name) ? var_of.at(name) : name);
  ChronogramWriter writer(out, f, ch.names);
  writer.name_values(enum_values_of(prog, vars));
  std::vector<oracle::Cell> row(ch.names.size());
  for (size_t n = 0; n < ch.cycles; ++n) {
    for (size_t k = 0; k < ch.names.size(); ++k) row[k] = to_oracle(ch.columns[k][n]);
    writer.row(row);
  }
  writer.finish();
}

}  // namespace rml::api
