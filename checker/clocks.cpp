// The clocks property (semantics.md §10): no error value on inputs present exactly on
// their clocks. The static clock calculus first, then Z3; silent_clock_cex finds a post on
// a sampled clock that never ticks again.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
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
  // The calculus is incomplete (syntactic clock equality): ask Z3.
  smt_invariant(r, [](const TransitionSystem::Frame &f) { return f.err; }, "no error value (‖) at any cycle",
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
