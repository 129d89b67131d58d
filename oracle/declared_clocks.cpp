// Declared clocks against a run (declared_clocks.hpp, semantics.md §9.1).
#include "oracle/declared_clocks.hpp"

#include <map>
#include <set>

namespace rml::oracle {

namespace {

bool present(Tag t) { return t == Tag::Val || t == Tag::Nil; }
bool unsettled(Tag t) { return t == Tag::Bot || t == Tag::Err; }

}  // namespace

std::vector<DeclaredClockViolation> declared_clock_violations(const core::Program &prog, const Result &res,
                                                              const std::function<std::string(const std::string &)> &label) {
  std::vector<DeclaredClockViolation> out;
  std::set<std::string> main_inputs;
  for (auto &v : prog.inputs) main_inputs.insert(v.name);
  // The representative of each instance's base clock: its first variable declared without
  // `when` (instance 0 has the main node's base instead).
  std::map<int, std::string> base_of;
  for (auto &d : prog.declared)
    if (d.instance != 0 && d.on.empty() && !d.inferred && res.has(d.var)) base_of.emplace(d.instance, d.var);
  for (auto &d : prog.declared) {
    if (d.inferred || !res.has(d.var) || (d.instance == 0 && main_inputs.count(d.var))) continue;
    auto rep = base_of.find(d.instance);
    const bool on_base = d.on.empty();
    if (on_base && d.instance != 0 && (rep == base_of.end() || rep->second == d.var)) continue;  // its own base
    bool conds_known = true;
    for (auto &[positive, c] : d.on) conds_known &= res.has(c);
    if (!conds_known) continue;
    std::string clock;
    for (auto &[positive, c] : d.on) clock += std::string(clock.empty() ? "" : " ") + (positive ? "when " : "when not ") + label(c);
    if (on_base) clock = d.instance == 0 ? "base" : "base, where base is the clock of '" + label(rep->second) + "' in the same instance";
    for (size_t n = 0; n < res.cycles; ++n) {
      Tag xt = res.tag(d.var, n);
      if (unsettled(xt)) continue;
      bool ticks = true, known = true;
      if (on_base && d.instance == 0) {
        bool any = prog.inputs.empty();
        for (auto &v : prog.inputs) {
          Tag t = res.tag(v.name, n);
          known &= !unsettled(t);
          any |= present(t);
        }
        ticks = any;
      } else if (on_base) {
        Tag bt = res.tag(rep->second, n);
        known &= !unsettled(bt);
        ticks = present(bt);
      }
      for (auto &[positive, c] : d.on) {
        if (!ticks) break;
        Tag ct = res.tag(c, n);
        if (unsettled(ct) || ct == Tag::Nil) {
          known = false;
          break;
        }
        if (ct == Tag::Abs) {
          ticks = false;
          break;
        }
        Cell cell = res.at(c, n);
        bool value = !cell.value.i.empty() && cell.value.i[0] != 0;
        ticks = value == positive;
      }
      if (!known || ticks == present(xt)) continue;
      DeclaredClockViolation v;
      v.var = d.var;
      v.cycle = n;
      v.present = present(xt);
      v.span = d.span;
      v.message = "'" + label(d.var) + "' is " + (v.present ? "present" : "absent") + " at cycle " + std::to_string(n) +
                  ", where its declared clock (" + clock + ") " + (v.present ? "does not tick" : "ticks");
      out.push_back(std::move(v));
      break;
    }
  }
  return out;
}

}  // namespace rml::oracle
