// The clocks property (semantics.md §9.1): on inputs present exactly on their clocks, no
// error value, and every declared variable present exactly on its declared clock. The
// static clock calculus first (it unifies the declarations first, so when it succeeds
// they hold), then Z3; silent_clock_cex finds a post on a sampled clock that never ticks
// again.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
#include "oracle/declared_clocks.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

PropertyResult Checker::check_clocks() {
  PropertyResult r;
  r.kind = "clocks";
  std::set<std::string> nil = may_be_nil();
  std::vector<std::pair<std::string, Span>> nil_conds;  // condition, where it is used
  std::set<std::string> seen;
  auto note_nil = [&](const std::string &c, Span where) {
    if (nil.count(c) && seen.insert(c).second) nil_conds.emplace_back(c, where);
  };
  for (auto &eq : prog.equations) {
    if (eq.prim == core::Prim::When) note_nil(eq.args[1], eq.span);
    if (eq.prim == core::Prim::Merge) note_nil(eq.args[0], eq.span);
  }
  for (auto &t : clocks.terms)
    if (t.kind == core::ClockTerm::On) note_nil(t.cond, def_of(t.cond) ? def_of(t.cond)->span : Span{});
  if (clocks.clashes.empty() && nil_conds.empty()) {
    r.verdict = Verdict::Valid;
    r.method = "static clock calculus (every clock unifies; no condition can be nil)";
    return r;
  }
  for (auto &c : clocks.clashes) r.findings.push_back(Finding{"clock.clash", c.message, c.span});
  for (auto &[cnd, where] : nil_conds)
    r.findings.push_back(Finding{"clock.nil-condition",
                                 "the condition '" + cnd + "' may be the uninitialised first value of a 'pre'", where});
  // The calculus is incomplete (syntactic clock equality): ask Z3, for the error values
  // and for the declarations (oracle/declared_clocks.hpp says how an instance's base is
  // read: the presence of its first variable declared without `when`).
  std::set<std::string> main_inputs;
  for (auto &v : prog.inputs) main_inputs.insert(v.name);
  std::map<int, std::string> base_of;
  for (auto &d : prog.declared)
    if (d.instance != 0 && d.on.empty() && !d.inferred) base_of.emplace(d.instance, d.var);
  auto breaks_declaration = [&](const TransitionSystem::Frame &f) {
    z3::expr any = f.err.ctx().bool_val(false);
    for (auto &d : prog.declared) {
      if (d.inferred || !f.p.count(d.var) || (d.instance == 0 && main_inputs.count(d.var))) continue;
      auto rep = base_of.find(d.instance);
      const bool on_base = d.on.empty();
      if (on_base && d.instance != 0 && (rep == base_of.end() || !f.p.count(rep->second) || rep->second == d.var)) continue;
      z3::expr ticks = !on_base ? f.err.ctx().bool_val(true) : d.instance == 0 ? main_ticks(f) : f.p.at(rep->second);
      bool encoded = true;
      for (auto &[positive, c] : d.on) {
        if (!f.p.count(c) || !f.v.count(c)) {
          encoded = false;
          break;
        }
        ticks = ticks && f.p.at(c) && !f.nil.at(c) && (positive ? f.v.at(c) : !f.v.at(c));
      }
      if (encoded) any = any || (f.p.at(d.var) != ticks);
    }
    return any;
  };
  smt_invariant(r, [&](const TransitionSystem::Frame &f) { return f.err || breaks_declaration(f); },
                "no error value (‖) at any cycle, every declared variable present exactly on its declared clock",
                [&](const oracle::Result &res, Counterexample &cx) {
                  for (auto &e : res.errors) {
                    cx.what = "error value in '" + e.var + "' at cycle " + std::to_string(e.cycle) + " [" + e.rule + "]: " + e.message;
                    cx.show.push_back(e.var);
                    return true;
                  }
                  if (res.any_error()) {
                    cx.what = "an error value (‖) appears";
                    return true;
                  }
                  for (auto &v : oracle::declared_clock_violations(prog, res)) {
                    std::string at;
                    if (v.span.valid()) {
                      auto [line, col] = v.span.file->line_col(v.span.begin);
                      at = ", declared at line " + std::to_string(line) + ", column " + std::to_string(col);
                    }
                    cx.what = v.message + " [clock.declared" + at + "]";
                    cx.show.push_back(v.var);
                    return true;
                  }
                  return false;
                });
  if (r.verdict == Verdict::Valid)
    r.method = "the static clock calculus rejects it (" + std::to_string(clocks.clashes.size() + nil_conds.size()) +
               " finding(s) above), but " + r.method;
  return r;
}

// A refutation for a post on a sampled clock: the clock ticks once and then stays silent
// forever (a lasso), so the post's cell at that tick waits forever. Replayed.
bool Checker::silent_clock_cex(int t, const std::string &var, PropertyResult &r) {
  std::set<std::string> roots;
  for (int u = t; u >= 0 && clocks.terms[u].kind == core::ClockTerm::On; u = clocks.terms[u].parent)
    roots.insert(clocks.terms[u].cond);
  std::set<std::string> encoded = roots;
  encoded.insert(var);  // so that its clock term is encoded
  auto silent = [t](const TransitionSystem::Frame &f) { return !f.ck[static_cast<size_t>(t)]; };
  auto tick = [t](const TransitionSystem::Frame &f) { return f.ck[static_cast<size_t>(t)]; };
  auto cx = lasso(roots, encoded, silent, tick, var, -1);
  if (!cx) return false;
  cx->what = "'" + var + "' at cycle " + std::to_string(cx->show_at) + " is unknown, and stays so: its clock " + clocks.str(t) +
             " is silent from then on (the inputs of cycles " + std::to_string(cx->loop_from) + ".." +
             std::to_string(cx->loop_to) + " repeat forever)";
  r.cex = std::move(*cx);
  return true;
}

}  // namespace rml::check
