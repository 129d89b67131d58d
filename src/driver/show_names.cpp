#include "driver/show_names.hpp"

#include <algorithm>
#include <unordered_map>

#include "sema/suggest.hpp"

namespace rml {

std::optional<std::vector<std::string>> resolve_shown(const core::Program &prog, const std::vector<std::string> &show,
                                                      std::string &error) {
  auto printed = core::printed_names(prog);
  std::unordered_map<std::string, std::string> internal;  // printed spelling -> name
  std::vector<std::string> spellings;
  for (auto &[name, spelt] : printed) internal[spelt] = name, spellings.push_back(spelt);
  std::sort(spellings.begin(), spellings.end());
  std::vector<std::string> out;
  for (auto &v : show) {
    if (printed.count(v)) out.push_back(v);
    else if (auto it = internal.find(v); it != internal.end()) out.push_back(it->second);
    else {
      std::vector<std::string> near = near_names(v, spellings);
      error = "--show " + v + ": no variable '" + v + "' in the elaborated '" + prog.main + "'" +
              (near.empty() ? std::string() : "; near names: " + [&] {
                std::string s;
                for (auto &n : near) s += (s.empty() ? "" : ", ") + n;
                return s;
              }()) +
              " (rml run --all shows every variable; rml parse --normalized prints the program)";
      return std::nullopt;
    }
  }
  return out;
}

std::optional<std::vector<std::string>> streams_shown(const core::Program &prog, const std::vector<std::string> &show, bool all,
                                                      std::string &error) {
  std::vector<std::string> vars;
  if (!show.empty()) {
    auto r = resolve_shown(prog, show, error);
    if (!r) return std::nullopt;
    vars = *r;
  }
  if (all) {
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
