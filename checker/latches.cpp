// Latches that excuse a wrap: the integer encoding proves "never bad and never a wrap that
// matters" (smt_ints.hpp), which no program can meet whose property is guarded by a flag
// that, once down, stays down and makes the property true for ever (Kind 2's classic
// `OK = env => ...` with `env = Sofar(...)`): on the runs where the flag falls, an input
// may make a counter wrap, a wrap whose value flows into later state, yet no later cycle
// can be bad. Such a flag is a latch; a wrap at a cycle where a latch is down is not
// counted (semantics/int_encoding.md, "Wraps after a latch falls").
#include <algorithm>

#include "checker/trace.hpp"
#include "checker/engine.hpp"

namespace rml::check {

// The latch's memory holds false in a settled state: every memory and `->` of the system
// has started and no memory holds nil. Read from a state only, so the integer and the
// 64-bit runs agree on it until their first counted wrap (the state at a cycle is made of
// the cycles before it). Why settled: in a free state an `->` may not have started while
// the memory it guards has (`env = X -> X and pre env` then reads X alone), and a memory
// may hold nil where no reachable state does (`env => c >= 0` is then nil, not true). The
// classic nodes settle at their second cycle, and (b) proves that they stay settled.
z3::expr Checker::latch_down(const std::vector<z3::expr> &state, const Latches &l, const TransitionSystem::Memory &m) {
  z3::expr_vector all(state.at(0).ctx());
  all.push_back(state[m.started]);
  all.push_back(!state[m.nil_slot]);
  all.push_back(!state[m.slot]);
  for (size_t s : l.starts) all.push_back(state[s]);
  for (size_t n : l.nils) all.push_back(!state[n]);
  return z3::mk_and(all);
}

// The started flags and nil flags of `ts`'s state.
Checker::Latches Checker::settled_slots(const TransitionSystem &ts) {
  Latches l;
  l.starts = ts.arrow_started();
  for (auto &m : ts.memories()) l.starts.push_back(m.started), l.nils.push_back(m.nil_slot);
  for (auto *v : {&l.starts, &l.nils}) {
    std::sort(v->begin(), v->end());
    v->erase(std::unique(v->begin(), v->end()), v->end());
  }
  return l;
}

// A bool memory m (the state of `pre L` or `x fby L`) is a latch for `bad` when, in the
// 64-bit encoding and from any state: (a) m down ⇒ no bad at this cycle, and (b) m down ⇒
// m down in the next state. By induction, once m is down no later cycle is bad. Both are
// one query on one frame with a free state; at most kMaxLatchCandidates memories are
// tried, on `share` of the budget (the latches proved before it runs out are kept).
std::vector<std::string> Checker::wrap_latches(const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                                               const std::set<std::string> *roots, bool reals, const Budget &share) {
  std::vector<std::string> found;
  trace::Stage stage("latches");
  try {
    Smt bv(prog, clocks, share, roots, reals);
    bv.ts->fun_body = fun_body();
    bv.ts->exact_reals = opts.exact_reals;
    bv.ts->free_values = free_values;
    const Latches l = settled_slots(*bv.ts);
    int tried = 0;
    for (auto &m : bv.ts->memories()) {
      if (m.type != Scalar::Bool) continue;
      if (++tried > kMaxLatchCandidates) break;
      z3::solver s = bv.solver();
      auto fs = bv.unroll(1, false, s);
      const TransitionSystem::Frame &f = fs[0];
      s.add(latch_down(f.state_in, l, m));
      s.add(opts.unsound_latches ? bad(f) : bad(f) || !latch_down(f.state_out, l, m));
      if (bv.check(s) == z3::unsat) found.push_back(m.source);
    }
  } catch (BudgetExhausted &) {
    if (budget.exhausted()) throw;  // the check's own budget, not only the share
  } catch (z3::exception &) {
    if (budget.exhausted()) throw;
  }
  return found;
}

// The memories of `ts` that are latches of `sources` (wrap_latches' names), with its
// started and nil flags.
Checker::Latches Checker::latch_memories(const TransitionSystem &ts, const std::vector<std::string> &sources) {
  Latches out;
  for (auto &m : ts.memories())
    if (m.type == Scalar::Bool && std::find(sources.begin(), sources.end(), m.source) != sources.end()) out.mems.push_back(m);
  if (out.mems.empty()) return out;
  Latches flags = settled_slots(ts);
  out.starts = std::move(flags.starts);
  out.nils = std::move(flags.nils);
  return out;
}

// Some latch is down in the frame's incoming state (false without latches).
z3::expr Checker::latch_down(const TransitionSystem::Frame &f, const Latches &latches) {
  z3::expr_vector any(f.wrap.ctx());
  for (auto &m : latches.mems) any.push_back(latch_down(f.state_in, latches, m));
  return any.empty() ? f.wrap.ctx().bool_val(false) : z3::mk_or(any);
}

}  // namespace rml::check
