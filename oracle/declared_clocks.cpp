// Declared clocks against a run (declared_clocks.hpp, semantics.md §9.1).
#include "oracle/declared_clocks.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace rml::oracle {

int DeclaredClockWatch::index(const std::string &var) {
  auto [it, added] = index_.emplace(var, static_cast<int>(vars_.size()));
  if (added) vars_.push_back(var);
  return it->second;
}

DeclaredClockWatch::DeclaredClockWatch(const core::Program &prog, std::function<std::string(const std::string &)> label,
                                       const std::function<bool(const std::string &)> &has) {
  std::set<std::string> main_inputs;
  for (auto &v : prog.inputs) main_inputs.insert(v.name);
  // The representative of each instance's base clock: its first variable declared without
  // `when` (instance 0 has the main node's base instead).
  std::map<int, std::string> base_of;
  for (auto &d : prog.declared)
    if (d.instance != 0 && d.on.empty() && !d.inferred && has(d.var)) base_of.emplace(d.instance, d.var);
  std::vector<Check> checks;
  for (auto &d : prog.declared) {
    if (d.inferred || !has(d.var) || (d.instance == 0 && main_inputs.count(d.var))) continue;
    auto rep = base_of.find(d.instance);
    const bool on_base = d.on.empty();
    if (on_base && d.instance != 0 && (rep == base_of.end() || rep->second == d.var)) continue;  // its own base
    bool conds_known = true;
    for (auto &[positive, c] : d.on) conds_known &= has(c);
    if (!conds_known) continue;
    Check c;
    c.d = &d;
    for (auto &[positive, cond] : d.on) c.clock += std::string(c.clock.empty() ? "" : " ") + (positive ? "when " : "when not ") + label(cond);
    if (on_base) c.clock = d.instance == 0 ? "base" : "base, where base is the clock of '" + label(rep->second) + "' in the same instance";
    c.v.message = label(d.var);  // (the message's name, until found)
    checks.push_back(std::move(c));
  }
  // Indices once every check is known (vars_ grows as they are named).
  for (Check &c : checks) {
    c.x = index(c.d->var);
    if (c.d->on.empty() && c.d->instance != 0) c.rep = index(base_of.at(c.d->instance));
    for (auto &[positive, cond] : c.d->on) c.on.push_back({positive, index(cond)});
  }
  if (std::any_of(checks.begin(), checks.end(), [](const Check &c) { return c.d->on.empty() && c.d->instance == 0; }))
    for (auto &v : prog.inputs) inputs_.push_back(index(v.name));
  no_inputs_ = prog.inputs.empty();
  checks_ = std::move(checks);
}

void DeclaredClockWatch::found(Check &c, size_t n, bool present) {
  c.found = true;
  DeclaredClockViolation &v = c.v;
  const std::string name = v.message;
  v.var = c.d->var;
  v.cycle = n;
  v.present = present;
  v.span = c.d->span;
  v.message = "'" + name + "' is " + (present ? "present" : "absent") + " at cycle " + std::to_string(n) + ", where its declared clock (" +
              c.clock + ") " + (present ? "does not tick" : "ticks");
}

std::vector<DeclaredClockViolation> DeclaredClockWatch::violations() const {
  std::vector<DeclaredClockViolation> out;
  for (auto &c : checks_)
    if (c.found) out.push_back(c.v);
  return out;
}

std::vector<DeclaredClockViolation> declared_clock_violations(const core::Program &prog, const Result &res,
                                                              const std::function<std::string(const std::string &)> &label) {
  DeclaredClockWatch w(prog, label, [&](const std::string &v) { return res.has(v); });
  if (w.empty()) return {};
  const std::vector<std::string> &vars = w.vars();
  for (size_t n = 0; n < res.cycles; ++n)
    w.observe(
        n, [&](int k) { return res.tag(vars[static_cast<size_t>(k)], n); },
        [&](int k) {
          Cell cell = res.at(vars[static_cast<size_t>(k)], n);
          return !cell.value.i.empty() && cell.value.i[0] != 0;
        });
  return w.violations();
}

}  // namespace rml::oracle
