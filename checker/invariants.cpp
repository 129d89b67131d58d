// Invariants and the generic engines every property uses: Houdini ranges of memories
// proved inductive, k-induction with BMC counterexamples replayed in the oracle
// (smt_invariant), IC3/PDR via Spacer (pdr_proves), bounds on runs of a condition
// (bound_runs), and whether the assumptions admit any run.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <iterator>
#include <limits>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
#include "checker/trace.hpp"
#include "checker/portfolio.hpp"
#include "checker/smt_reals.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

// One n-ary conjunction (a chain of binary ones would be as deep as there are invariants:
// smt_model.cpp says why depth matters).
z3::expr Checker::inv_of(Smt &smt, const std::vector<Interval> &invariants, const std::vector<z3::expr> &state) {
  z3::expr_vector conj(smt.ctx);
  for (auto &iv : invariants) {
    z3::expr all = smt.ctx.bool_val(true);
    z3::expr m = state[iv.slot];
    if (!iv.terms.empty()) {  // lo ≤ Σ coeff·m ≤ hi where every m is started and not nil
      const bool lia = state[iv.terms[0].slot].is_int();
      auto num = [&](int64_t c) { return lia ? smt.ctx.int_val(c) : smt.ctx.bv_val(c, 64); };
      z3::expr_vector when(smt.ctx);
      std::optional<z3::expr> sum;  // z3::sum is arithmetic only: a fold, which bit-vectors take too
      for (auto &t : iv.terms) {
        z3::expr x = state[t.slot];
        z3::expr term = t.coeff == 1 ? x : t.coeff == -1 ? -x : num(t.coeff) * x;
        sum = sum ? *sum + term : term;
        when.push_back(state[t.started] && !state[t.nil_slot]);
      }
      if (iv.guarded) when.push_back(state[iv.guard] && !state[iv.guard_nil]);
      z3::expr in = smt.ctx.bool_val(true);
      if (iv.lo == iv.hi) in = *sum == num(iv.lo);
      else {
        if (iv.lo != std::numeric_limits<int64_t>::min()) in = in && (lia ? num(iv.lo) <= *sum : z3::sge(*sum, num(iv.lo)));
        if (iv.hi != std::numeric_limits<int64_t>::max()) in = in && (lia ? *sum <= num(iv.hi) : z3::sle(*sum, num(iv.hi)));
      }
      all = z3::implies(z3::mk_and(when), in);
    } else if (iv.is_real) {
      z3::expr ok = smt.ctx.bool_val(true);
      if (iv.not_nan) ok = !m.mk_is_nan();
      if (iv.rlo > -std::numeric_limits<double>::infinity()) ok = ok && z3::expr(smt.ctx, Z3_mk_fpa_leq(smt.ctx, real_val(smt.ctx, iv.rlo), m));
      if (iv.rhi < std::numeric_limits<double>::infinity()) ok = ok && z3::expr(smt.ctx, Z3_mk_fpa_leq(smt.ctx, m, real_val(smt.ctx, iv.rhi)));
      all = all && z3::implies(state[iv.started], ok);
    } else if (iv.same_started) all = all && (m == state[iv.started]);
    else if (iv.never_nil) all = all && z3::implies(state[iv.started], !m);
    else if (iv.is_bool) all = all && z3::implies(state[iv.started], iv.lo ? m : !m);
    else {  // an int: a bound at the end of the 64-bit range says nothing and is left out
      z3::expr in = smt.ctx.bool_val(true);
      const bool lia = m.is_int();
      if (iv.lo != std::numeric_limits<int64_t>::min())
        in = in && (lia ? smt.ctx.int_val(iv.lo) <= m : z3::sge(m, smt.ctx.bv_val(iv.lo, 64)));
      if (iv.hi != std::numeric_limits<int64_t>::max())
        in = in && (lia ? m <= smt.ctx.int_val(iv.hi) : z3::sle(m, smt.ctx.bv_val(iv.hi, 64)));
      z3::expr when = iv.guarded ? state[iv.started] && state[iv.guard] && !state[iv.guard_nil] : state[iv.started];
      all = all && z3::implies(when, in);
    }
    conj.push_back(all);
  }
  return conj.empty() ? smt.ctx.bool_val(true) : z3::mk_and(conj);
}

// Every invariant proved for the encoding, at a state: Houdini's and Spacer's.
z3::expr Checker::inv_at(Smt &smt, const std::vector<z3::expr> &state) {
  z3::expr all = inv_of(smt, smt.invariants, state);
  if (smt.covers.empty()) return all;
  z3::expr_vector args(smt.ctx);
  for (auto &x : state) args.push_back(x);
  for (auto c : smt.covers) all = all && c.substitute(args);
  return all;
}

// Candidate bounds of real memories: from the simulation's runs (simulation.cpp, inputs
// that keep the assumptions), each observed bound and the nearest constant of the program
// beyond it (so that a bound the runs approach, such as a leaky integrator's input bound,
// is a candidate), and "never NaN". Houdini keeps those Z3 proves inductive in binary64.
void Checker::real_candidates(const std::vector<TransitionSystem::Memory> &mems, std::vector<Interval> &out) {
  constexpr double inf = std::numeric_limits<double>::infinity();
  bool any = false;
  for (auto &m : mems) any |= m.type == Scalar::Real;
  if (!any || opts.exact_reals) return;  // the candidates are binary64 bounds
  std::vector<double> consts;  // the program's real constants and their negations
  for (auto &eq : prog.equations)
    if (eq.prim == core::Prim::Const && eq.lit.type == Scalar::Real && std::isfinite(eq.lit.r))
      consts.push_back(eq.lit.r), consts.push_back(-eq.lit.r);
  const Simulation &sim = simulate();
  for (auto &m : mems) {
    if (m.type != Scalar::Real) continue;
    out.push_back(Interval{m.slot, m.started, 0, 0, false, false, false, true, true, -inf, inf});
    double lo = inf, hi = -inf;
    bool nan = false;
    for (auto &res : sim.results)
      for (size_t n = 0; n < res.cycles; ++n) {
        if (res.tag(m.source, n) != oracle::Tag::Val) continue;
        double x = res.at(m.source, n).value.r.at(0);
        nan |= std::isnan(x);
        lo = std::min(lo, x), hi = std::max(hi, x);
      }
    if (nan || lo > hi) continue;
    double clo = -inf, chi = inf;  // the nearest constants beyond the observed bounds
    for (double c : consts) {
      if (c <= lo) clo = std::max(clo, c);
      if (c >= hi) chi = std::min(chi, c);
    }
    for (double l : {lo, clo})
      if (std::isfinite(l)) out.push_back(Interval{m.slot, m.started, 0, 0, false, false, false, true, false, l, inf});
    for (double h : {hi, chi})
      if (std::isfinite(h)) out.push_back(Interval{m.slot, m.started, 0, 0, false, false, false, true, false, -inf, h});
  }
}

namespace {
// The program's int constants (at most 64 of them) and 0: the bounds a counter saturates at.
std::set<int64_t> int_constants(const core::Program &prog) {
  std::set<int64_t> consts{0};
  for (auto &eq : prog.equations)
    if (eq.prim == core::Prim::Const && eq.lit.type == Scalar::Int && consts.size() < 64) consts.insert(eq.lit.i);
  return consts;
}
}  // namespace

// Difference bounds of pairs of int memories (a zone domain's constraints, a − b ≤ c), for
// pairs whose difference the runs saw vary: c the runs' largest difference, and the
// nearest differences of the program's int constants beyond it (up to four). Those are
// the slack of counters that saturate at different constants (one counts to 100 while the
// other stops at 60: x − y ≤ 40), which random runs seldom reach. At most kColumns
// memories and kCandidates bounds (the pairs grow as the square of the memories, and each
// candidate costs every one of Houdini's queries): with many pairs, fewer constants each.
void Checker::difference_candidates(const std::vector<TransitionSystem::Memory> &mems, const std::set<int64_t> &consts,
                                    std::vector<Interval> &out) {
  constexpr size_t kColumns = 16, kCandidates = 480, kMostBeyond = 4;
  if (observed_runs_.ints.size() > kColumns) return;
  const auto &observed = observed_differences();
  if (observed.empty()) return;
  if (observed.size() >= kCandidates) return;
  const size_t beyond = std::min(kMostBeyond, kCandidates / observed.size() - 1);
  std::set<int64_t> diffs;  // c1 − c2 of two constants, where it fits
  for (int64_t c1 : consts)
    for (int64_t c2 : consts)
      if (int64_t d; !__builtin_sub_overflow(c1, c2, &d)) diffs.insert(d);
  auto memory_of = [&](const std::string &source) {
    return std::find_if(mems.begin(), mems.end(), [&](auto &m) { return m.source == source && m.type == Scalar::Int; });
  };
  for (auto &d : observed) {
    auto a = memory_of(d.a), b = memory_of(d.b);
    if (a == mems.end() || b == mems.end()) continue;
    std::vector<int64_t> bounds{d.max};
    for (auto it = diffs.upper_bound(d.max); it != diffs.end() && bounds.size() <= beyond; ++it) bounds.push_back(*it);
    for (int64_t c : bounds) {
      Interval iv{0, 0, std::numeric_limits<int64_t>::min(), c};
      iv.terms = {Interval::Term{a->slot, a->started, a->nil_slot, 1}, Interval::Term{b->slot, b->started, b->nil_slot, -1}};
      out.push_back(std::move(iv));
    }
  }
}

// Candidate ranges of integer memories from oracle runs on random inputs, kept only when
// Z3 proves them inductive (Houdini). They let k-induction ignore unreachable states.
void Checker::discover_invariants(Smt &smt) {
  if (smt.invariants_done) return;
  smt.invariants_done = true;
  std::vector<Interval> &invariants = smt.invariants;
  // Interrupted (its slice ran out, or Z3 failed), Houdini leaves candidates it has not
  // proved: none is kept, and the next call on this encoding starts again. The engines
  // resume an encoding after its slice ran out (EngineProgress), and would otherwise take
  // the unproved candidates for invariants.
  struct ClearIfThrown {
    Smt &smt;
    int before = std::uncaught_exceptions();
    ~ClearIfThrown() {
      if (std::uncaught_exceptions() > before) smt.invariants.clear(), smt.invariants_done = false;
    }
  } clear_if_thrown{smt};
  auto mems = smt.ts->memories();
  if (mems.empty()) return;
  // Proved once per kind of system: another property's encoding with the same state and
  // transitions (TransitionSystem::state_key) and the same latches had the same
  // candidates, and Houdini's fixpoint there is the one here.
  std::string key = smt.ts->state_key() + "|";
  for (auto &l : latches_) key += l + ";";
  if (auto done = houdini_done_.find(key); done != houdini_done_.end()) {
    invariants = done->second;
    return;
  }
  for (auto &v : prog.inputs)
    if (clocks.terms[static_cast<size_t>(clocks.of(v.name))].kind != core::ClockTerm::Base) return;
  if (smt.budget.exhausted()) smt.budget.fail();
  trace::Stage stage("Houdini");
  const auto &range = observed_ranges(smt.budget);
  const std::set<int64_t> consts = int_constants(prog);
  real_candidates(mems, invariants);
  // started flags of memories on the same clock agree (a -> pre x, pairs of fby)
  std::vector<size_t> starts;
  for (auto &m : mems) starts.push_back(m.started);
  for (size_t a : smt.ts->arrow_started()) starts.push_back(a);
  if (starts.size() <= 40)
    for (size_t i = 0; i < starts.size(); ++i)
      for (size_t j = i + 1; j < starts.size(); ++j) {
        Interval eqv{starts[i], starts[j], 0, 0, false, false};
        eqv.same_started = true;
        invariants.push_back(eqv);
      }
  for (auto &m : mems) {
    Interval nn{m.nil_slot, m.started, 0, 0, false, true};
    invariants.push_back(nn);
    if (!range.count(m.source) || m.type == Scalar::Real) continue;
    auto [lo, hi] = range.at(m.source);
    bool is_bool = m.type == Scalar::Bool;
    if (is_bool && lo != hi) continue;  // both values seen: nothing to say
    if (is_bool) {
      invariants.push_back(Interval{m.slot, m.started, lo, hi, true});
      continue;
    }
    // Each bound a candidate of its own: a counter that only grows keeps its lower bound
    // when the runs' largest value is not a bound. Also the nearest constant of the
    // program beyond each bound: the ceiling a counter stops at, which runs seldom reach.
    invariants.push_back(Interval{m.slot, m.started, lo, std::numeric_limits<int64_t>::max(), false});
    invariants.push_back(Interval{m.slot, m.started, std::numeric_limits<int64_t>::min(), hi, false});
    if (!opts.zone_bounds) continue;
    if (auto above = consts.upper_bound(hi); above != consts.end())
      invariants.push_back(Interval{m.slot, m.started, std::numeric_limits<int64_t>::min(), *above, false});
    if (auto below = consts.lower_bound(lo); below != consts.begin())
      invariants.push_back(Interval{m.slot, m.started, *std::prev(below), std::numeric_limits<int64_t>::max(), false});
  }
  // Affine relations of int memories the runs kept (affine_relations.hpp): the
  // conservation laws of counters that a property's bound follows from. Where a latch is
  // up (below), also the relations of the cycles where it holds, guarded by it: a model's
  // law often holds only while its environment behaves.
  auto relation_candidates = [&](const std::vector<ObservedRelation> &rels, const TransitionSystem::Memory *latch) {
    for (auto &rel : rels) {
      Interval a{0, 0, rel.constant, rel.constant};
      if (latch) a.guarded = true, a.guard = latch->slot, a.guard_nil = latch->nil_slot;
      for (auto &term : rel.terms) {  // (a lambda may not capture a structured binding before Clang 16)
        auto m = std::find_if(mems.begin(), mems.end(), [&](auto &x) { return x.source == term.first && x.type == Scalar::Int; });
        if (m == mems.end()) break;
        a.terms.push_back(Interval::Term{m->slot, m->started, m->nil_slot, term.second});
      }
      if (a.terms.size() == rel.terms.size()) invariants.push_back(std::move(a));
    }
  };
  if (opts.affine_relations) {
    relation_candidates(observed_relations(""), nullptr);
    for (auto &l : latch_memories(*smt.ts, latches_).mems) relation_candidates(observed_relations(l.source), &l);
  }
  if (opts.zone_bounds) difference_candidates(mems, consts, invariants);
  // Where a latch is up (latches_: the integer attempts on a property guarded by one, in
  // each of their encodings), each int memory is a candidate to be non-negative: the
  // counters of the classic protocol models, which need it to prove that no operation
  // wraps, or that a wrapped one changes nothing.
  for (auto &l : latch_memories(*smt.ts, latches_).mems)
    for (auto &m : mems) {
      if (m.type != Scalar::Int) continue;
      Interval g{m.slot, m.started, 0, std::numeric_limits<int64_t>::max(), false};
      g.guarded = true, g.guard = l.slot, g.guard_nil = l.nil_slot;
      invariants.push_back(g);
    }
  // Houdini: from a state where every candidate holds, one transition; each candidate false
  // after it in the solver's model is dropped (all of them at once: one query a round, not
  // one per candidate), until the rest is inductive. A query the solver cannot decide
  // drops every candidate (no invariant is sound to keep). One solver for every round: the
  // transition is asserted once, and what Z3 learns of it stays; each round's candidates
  // and the negation of their next values go in a scope of their own.
  bool fixpoint = true;  // false when a query was not decided (nothing kept, nothing to share)
  if (!invariants.empty()) {
    z3::solver s = smt.solver();
    auto fs = smt.unroll(1, false, s);
    if (!smt.covers.empty()) {  // Spacer's invariants of this encoding (inv_at's other part)
      z3::expr_vector args(smt.ctx);
      for (auto &x : fs[0].state_in) args.push_back(x);
      for (auto c : smt.covers) s.add(c.substitute(args));
    }
    std::vector<z3::expr> now, next;
    for (auto &iv : invariants) now.push_back(inv_of(smt, {iv}, fs[0].state_in)), next.push_back(inv_of(smt, {iv}, fs[0].state_out));
    std::vector<size_t> alive(invariants.size());
    for (size_t k = 0; k < alive.size(); ++k) alive[k] = k;
    while (!alive.empty()) {
      s.push();
      z3::expr_vector after(smt.ctx);
      for (size_t k : alive) s.add(now[k]), after.push_back(next[k]);
      s.add(!z3::mk_and(after));
      z3::check_result c = smt.check(s);
      if (c == z3::unsat) break;
      if (c == z3::unknown) {
        alive.clear();
        fixpoint = false;
        break;
      }
      z3::model m = s.get_model();
      std::vector<size_t> kept;
      for (size_t k : alive)
        if (m.eval(next[k], true).is_true()) kept.push_back(k);
      s.pop();
      if (kept.size() == alive.size()) {  // cannot happen (the model breaks one); never loop
        alive.clear();
        fixpoint = false;
        break;
      }
      alive = std::move(kept);
    }
    trace::line("Houdini keeps " + std::to_string(alive.size()) + " of " + std::to_string(invariants.size()) + " candidates");
    std::vector<Interval> proved;
    for (size_t k : alive) proved.push_back(invariants[k]);
    invariants = std::move(proved);
  }
  // Not with a cover of Spacer's assumed (a property's engines gave it to this encoding):
  // that fixpoint is relative to it.
  if (fixpoint && smt.covers.empty()) houdini_done_.emplace(std::move(key), invariants);
}

// With a post, the engines check a cycle only with more cycles after it, where the main
// node ticks: a post's prophecy at the last unrolled cycle is confirmed by nothing, so its
// value and nil flag are free there, a freedom the oracle does not have (a post with
// resets left initialisation unknown). A chain of posts (backfill) is
// confirmed within the proved horizon H, so max(1, H) cycles (at most 8). Sound for any
// number: a run that ticks again has such cycles, and in one that never does the post's
// cell is unknown (⊥), neither nil nor ‖ nor a value, so no property of present values
// breaks there. This needs every frame's constraints to leave some successor to any state
// and error (a constraint that only well-clocked cycles satisfy would make the cycles
// after an error impossible, and hide it: tests/check/ko/72, nil flags once pinned).
// The main node ticks at a frame: some input is present. A node without inputs ticks at
// every cycle (the empty disjunction would make every run impossible, so every property
// "valid").
z3::expr Checker::main_ticks(const TransitionSystem::Frame &f) const {
  z3::expr any = f.err.ctx().bool_val(prog.inputs.empty());
  for (auto &v : prog.inputs) any = any || f.p.at(v.name);
  return any;
}

int Checker::lookahead() const {
  for (auto &eq : prog.equations)
    if (eq.prim == core::Prim::Post) return static_cast<int>(std::clamp<int64_t>(proved_horizon, 1, 8));
  return 0;
}

// Proves that `bad` never holds (k-induction), or finds a run where it does (BMC) and
// replays it in the oracle; `confirm` decides whether the replay shows the failure.
// Ints are first mathematical integers (linear arithmetic is far cheaper for Z3 than
// 64-bit vectors, and Spacer's strength), with "no operation wraps" proved alongside;
// when that does not decide, 64-bit vectors (semantics/int_encoding.md).
void Checker::smt_invariant(PropertyResult &r, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                            const std::string &what, const std::function<bool(const oracle::Result &, Counterexample &)> &confirm,
                            bool ticking, const std::set<std::string> *roots, bool reals, bool values_free_first) {
  // With two lanes, IC3/PDR at once beside what follows (portfolio.hpp), with what is left now.
  std::optional<SecondLane> lane;
  if (opts.lanes >= 2 && lia_applies()) lane.emplace(*this, budget, bad, what, ticking, roots, reals);
  if (!lane) return one_lane(r, bad, what, confirm, ticking, roots, reals, values_free_first);
  try {
    one_lane(r, bad, what, confirm, ticking, roots, reals, values_free_first);
  } catch (BudgetExhausted &) {  // the first lane's budget ran out: the second's proof stands
    if (!lane->take_proof(r)) throw;
    return;
  } catch (z3::exception &) {
    if (!lane->take_proof(r)) throw;
    return;
  }
  if (r.verdict == Verdict::Unknown) lane->take_proof(r);
}

// smt_invariant's engines, in order, on one thread.
void Checker::one_lane(PropertyResult &r, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                       const std::string &what, const std::function<bool(const oracle::Result &, Counterexample &)> &confirm,
                       bool ticking, const std::set<std::string> *roots, bool reals, bool values_free_first) {
  deep_reached = 0;
  // Nil flags and presence seldom depend on numbers: with `values_free_first`, a quarter of
  // what is left goes first to the system with every int and real free (bools and clocks
  // alone: an over-approximation, so its proof holds; its counterexamples are replayed).
  if (values_free_first) {
    PropertyResult fr = r;
    trace::Stage stage("numbers free");
    try {
      Smt smt(prog, clocks, budget.slice(1, 4), roots, false, false);
      if (run_engines(fr, smt, bad, what, confirm, ticking, false, false) == EngineEnd::Decided) {
        fr.method += " (with every number left free)";
        r = std::move(fr);
        return;
      }
    } catch (BudgetExhausted &) {
      if (budget.exhausted()) throw;
    } catch (z3::exception &) {
      if (budget.exhausted()) throw;
    }
  }
  if (lia_applies()) {
    trace::Stage stage("LIA");
    PropertyResult lr = r;
    Smt smt(prog, clocks, budget, roots, reals);
    smt.ts->lia_ints = true;
    smt.ts->nil_values_read = opts.pre_any;
    smt.ts->overflow_exact = overflow_reading;
    // Whether some int operation can wrap at all: if none can, this encoding is the 64-bit
    // one in other words and decides alone; else it gets half of what is left.
    bool can_wrap = !opts.ignore_wraps && !smt.ts->frame(0, nullptr, false).wrap.is_false();
    if (can_wrap) smt.budget = budget.slice(1, 2);
    // Latches found with a sixteenth of that half (one query a bool memory): wraps while
    // one is down are not counted.
    struct Reset {
      std::vector<std::string> &l;
      ~Reset() { l.clear(); }
    } reset{latches_};
    if (can_wrap && opts.wrap_latches) latches_ = wrap_latches(bad, roots, reals, smt.budget.slice(1, 16));
    bool deep_done = false;  // deep runs without a wrap: the 64-bit encoding has none either
    // The cheap engines of the exact encodings before the costly ones: when ints can wrap
    // and the program is linear, BMC and k-induction over integers modulo 2^64 (half
    // of what is left) go between this encoding's k-induction and its Spacer. A property
    // that holds through a reachable wrap (a guard that wraps and is not taken) is often
    // inductive there, where this encoding must first fail to exclude the wrap.
    const bool modular_too = can_wrap && !smt.ts->nonlinear_ints;
    EngineProgress lia_progress, mod_progress;
    bool lia_over = false;  // this encoding has nothing more to try
    auto lia_engines = [&](bool induction_only) {
      try {
        EngineEnd e = run_engines(lr, smt, bad, what, confirm, ticking, can_wrap, true, &lia_progress, induction_only);
        if (e == EngineEnd::Decided || !can_wrap) return true;
        lia_over = lia_progress.finished;
        deep_done = lia_over && e == EngineEnd::Unknown;
      } catch (BudgetExhausted &) {
        if (budget.exhausted() || !can_wrap) throw;  // the check's budget, not only the slice
        lia_over = true;
      } catch (z3::exception &) {
        if (budget.exhausted() || !can_wrap) throw;
        lia_over = true;
      }
      return false;
    };
    if (lia_engines(modular_too)) {
      r = std::move(lr);
      return;
    }
    // Then the oracle's ints exactly: over Ints wrapped modulo 2^64 (linear arithmetic
    // still, when every product and quotient has a constant operand) with three quarters of
    // what is left, then 64-bit vectors, where facts of bits (parity) are easy.
    std::optional<Smt> mod;
    PropertyResult mr = r;
    // No context is made for a slice with nothing left (Smt's constructor says so).
    auto make_mod = [&](int num, int den) {
      try {
        mod.emplace(prog, clocks, budget.slice(num, den), roots, reals);
        mod->ts->lia_ints = mod->ts->lia_modular = true;
        mod->ts->nil_values_read = opts.pre_any;
      } catch (BudgetExhausted &) {
        if (budget.exhausted()) throw;
      }
    };
    auto mod_engines = [&](bool induction_only) {
      if (!mod) return false;
      try {
        if (run_engines(mr, *mod, bad, what, confirm, ticking, false, !deep_done, &mod_progress, induction_only) ==
            EngineEnd::Decided)
          return true;
        if (!induction_only) deep_done = true;  // the same runs as the 64-bit vectors'
      } catch (BudgetExhausted &) {  // its slice ran out: the next call goes on from there
        if (budget.exhausted()) throw;
      } catch (z3::exception &) {
        if (budget.exhausted()) throw;
      }
      return false;
    };
    if (modular_too && !lia_over) {
      make_mod(1, 2);
      if (mod_engines(true)) {
        r = std::move(mr);
        return;
      }
      if (lia_engines(false)) {
        r = std::move(lr);
        return;
      }
    }
    if (!smt.ts->nonlinear_ints) {
      if (mod) mod->budget = budget.slice(3, 4);
      else make_mod(3, 4);
      if (mod_engines(false)) {
        r = std::move(mr);
        return;
      }
    }
    Smt bv(prog, clocks, budget, roots, reals);
    run_engines(r, bv, bad, what, confirm, ticking, false, !deep_done);
    return;
  }
  Smt smt(prog, clocks, budget, roots, reals);
  run_engines(r, smt, bad, what, confirm, ticking, false, true);
}

// Ints as mathematical integers need a program without post (a post's prophecy is checked
// by cycles after the bad one, where a wrap may already have changed the run), without the
// bit operations of machine integers (no encoding over the integers: smt_ints.cpp), and
// some int to speak of.
bool Checker::lia_applies() const {
  if (!opts.lia_ints) return false;
  bool ints = false;
  for (auto &eq : prog.equations) {
    if (eq.prim == core::Prim::Post) return false;
    if (eq.prim == core::Prim::Apply && eq.op == core::ApplyOp::Binary &&
        (eq.bin == ops::BinOp::BitAnd || eq.bin == ops::BinOp::BitOr || eq.bin == ops::BinOp::ShiftLeft ||
         eq.bin == ops::BinOp::ShiftRight))
      return false;
    ints |= eq.type.kind == Type::Tensor && eq.type.shape.empty() && eq.type.elem == Scalar::Int;
  }
  for (auto &v : prog.inputs) ints |= v.type.kind == Type::Tensor && v.type.shape.empty() && v.type.elem == Scalar::Int;
  return ints;
}

// BMC, k-induction, then IC3/PDR on one encoding, and with `deep` BMC deeper than
// k-induction went. With `wraps` (the LIA encoding of a program whose ints can overflow),
// a cycle where an int operation wraps counts as bad too, so that a proof also proves
// that none does; a run reaching a wrap before any bad cycle ends the attempt
// (EngineEnd::Wraps: the 64-bit encoding must decide).
Checker::EngineEnd Checker::run_engines(PropertyResult &r, Smt &smt,
                                        const std::function<z3::expr(const TransitionSystem::Frame &)> &bad_only,
                                        const std::string &what,
                                        const std::function<bool(const oracle::Result &, Counterexample &)> &confirm,
                                        bool ticking, bool wraps, bool deep, EngineProgress *progress, bool induction_only) {
  EngineProgress local;
  EngineProgress &pr = progress ? *progress : local;
  bool &spurious = pr.spurious;  // a bounded run the oracle did not reproduce
  const bool lia = smt.ts->lia_ints, modular = smt.ts->lia_modular;
  std::string over = !lia                     ? ""
                     : modular                 ? " over integers modulo 2^64"
                     : smt.ts->overflow_exact ? " over mathematical integers, an overflow an error value (--int-overflow error)"
                                               : " over mathematical integers, no int operation wrapping";
  if (wraps && !latches_.empty()) {
    auto printed = core::printed_names(prog);
    std::string names;
    for (auto &l : latches_) names += (names.empty() ? "'" : ", '") + (printed.count(l) ? printed.at(l) : l) + "'";
    over += " while " + names + (latches_.size() > 1 ? " hold" : " holds") + " (the property holds for good once " +
            (latches_.size() > 1 ? "one is" : "it is") + " false)";
  }
  // A wrap while a latch is down is not counted (latches.cpp).
  const Latches latches = wraps ? latch_memories(*smt.ts, latches_) : Latches{};
  auto bad = [&](const TransitionSystem::Frame &f) {
    if (!wraps) return bad_only(f);
    return latches.mems.empty() ? bad_only(f) || f.wrap : bad_only(f) || (f.wrap && !latch_down(f, latches));
  };
  smt.ts->fun_body = fun_body();
  smt.ts->exact_reals = opts.exact_reals;
  smt.ts->free_values = free_values;  // Checker::free_values
  smt.ts->overflow_errors = encode_overflow;
  smt.simple = encode_overflow;
  // With `ticking`, only runs where the main node ticks at every cycle: a cycle where
  // every input is absent changes no state and has no value, so for a property of the
  // present values these runs lose nothing (stuttering), and k-induction is not defeated
  // by runs of silent cycles.
  auto ticks = [&](z3::solver &s, const std::vector<TransitionSystem::Frame> &fs) {
    if (!ticking) return;
    for (auto &f : fs) s.add(main_ticks(f));
  };
  const int look = lookahead();
  auto ticks_after = [&](z3::solver &s, const std::vector<TransitionSystem::Frame> &fs) {
    for (size_t j = fs.size() - static_cast<size_t>(look); j < fs.size(); ++j) s.add(main_ticks(fs[j]));
  };
  // A model of a run from the initial state with a bad cycle among its first k: replayed
  // in the oracle (Decided when it fails there too); with `wraps`, a run whose only bad
  // cycles are wraps ends the attempt. Nothing: spurious, look further.
  auto on_bad_run = [&](z3::solver &s, const std::vector<TransitionSystem::Frame> &fs, int k) -> std::optional<EngineEnd> {
    z3::model m = s.get_model();
    if (wraps) {  // only a wrap, no bad cycle: the integers part from the oracle's ints here
      bool any_bad = false;
      for (int j = 0; j < k && !any_bad; ++j) any_bad = m.eval(bad_only(fs[static_cast<size_t>(j)]), true).is_true();
      if (!any_bad) {
        r.verdict = Verdict::Unknown;
        r.method = "an int operation can wrap around within " + std::to_string(k) + " cycles";
        pr.finished = true;
        return EngineEnd::Wraps;
      }
    }
    Counterexample cx;
    cx.inputs = model_inputs(cp, prog, clocks, fs, m);
    // Replay with lookahead, so that post's prophecies are confirmed by real ticks.
    oracle::Oracle orc(cp, prog, clocks, replay_options());
    oracle::Result res = orc.run(cx.inputs);
    if (confirm(res, cx)) {
      cx.csv = trace_csv(prog, cx.inputs);
      r.verdict = Verdict::Falsified;
      r.method = "bounded model checking (depth " + std::to_string(k) +
                 (!lia ? "" : modular ? ", over integers modulo 2^64" : ", over mathematical integers") +
                 "), replayed in the oracle";
      r.cex = std::move(cx);
      return EngineEnd::Decided;
    }
    spurious = true;  // the model used a freedom the oracle does not have: look deeper
    return std::nullopt;
  };
  // k-induction's step queries grow costlier with k (a free state k cycles back): once
  // the failed steps have cost kInductionUnits in all, deeper ones are left to Spacer,
  // then to deeper BMC. A bound in units, not a part of the budget, so that what is tried
  // does not depend on the budget (a larger one never decides less). Not with binary64
  // reals, whose every query is costly and which Spacer does not decide.
  int &bmc_done = pr.bmc_done;              // no bad cycle among the first bmc_done from the initial state
  int &induction_done = pr.induction_done;  // the deepest k-induction step that was tried
  const bool cap_steps = !smt.ts->float_values();
  uint64_t &steps_cost = pr.steps_cost;
  // From where an earlier call stopped (its slice ran out): no query that answered is asked again.
  for (int k = induction_done + 1; k <= opts.max_depth && !pr.induction_over; ++k) {
    // Base: no bad cycle among the first k from the initial state.
    if (bmc_done < k) {
      trace::Stage stage("BMC depth " + std::to_string(k));
      z3::solver s = smt.solver();
      auto fs = smt.unroll(k + look, true, s);
      ticks(s, fs);
      ticks_after(s, fs);
      z3::expr_vector any(smt.ctx);
      for (int j = 0; j < k; ++j) any.push_back(bad(fs[static_cast<size_t>(j)]));
      s.add(z3::mk_or(any));
      if (opts.explain && k == 1) r.smt += "; BMC base, depth 1: sat iff a bad cycle is reachable\n" + s.to_smt2() + "\n";
      // With wraps, a run where no operation wraps first: it is the oracle's run (and its
      // numbers stay small), where a run that wraps only ends this encoding's attempt.
      if (wraps) {
        s.push();
        for (auto &f : fs) s.add(!f.wrap);
        z3::check_result exact = smt.check(s);
        if (exact == z3::sat)
          if (auto e = on_bad_run(s, fs, k)) return *e;
        s.pop();
      }
      z3::check_result c = smt.check(s);
      if (c == z3::unknown) {
        r.verdict = Verdict::Unknown;
        r.method = "the solver gave up (timeout or incompleteness) at depth " + std::to_string(k);
        pr.finished = true;
        return EngineEnd::Unknown;
      }
      if (c == z3::sat) {
        if (auto e = on_bad_run(s, fs, k)) return *e;
        continue;
      }
      bmc_done = k;
    }
    // Step: k good cycles from any state imply a good next cycle.
    {
      z3::solver s = smt.solver();
      auto fs = smt.unroll(k + 1 + look, false, s);
      discover_invariants(smt);
      trace::Stage stage(std::to_string(k) + "-induction step");
      ticks(s, fs);
      ticks_after(s, fs);
      s.add(inv_at(smt, fs[0].state_in));
      for (int j = 0; j < k; ++j) s.add(!bad(fs[static_cast<size_t>(j)]));
      s.add(bad(fs[static_cast<size_t>(k)]));
      if (opts.explain && k == 1) r.smt += "; k-induction step, k = 1: unsat proves the property\n" + s.to_smt2() + "\n";
      const uint64_t before = smt.budget.spent();
      z3::check_result c = smt.check(s);
      induction_done = k;
      if (c == z3::unsat) {
        r.verdict = Verdict::Valid;
        r.method = "proved by Z3: " + what + " (" + std::to_string(k) + "-induction" + over + ")";
        return EngineEnd::Decided;
      }
      steps_cost += smt.budget.spent() - before;
      if (cap_steps && steps_cost >= kInductionUnits) break;
    }
  }
  pr.induction_over = true;
  if (induction_only) {  // the caller goes on elsewhere, and comes back for the rest
    r.verdict = Verdict::Unknown;
    r.method = "not proved by k-induction (up to depth " + std::to_string(induction_done) + ")";
    return EngineEnd::Unknown;
  }
  pr.finished = true;
  if (pr.spacer_only) {  // the second lane (portfolio.cpp): no k-induction ran Houdini
    discover_invariants(smt);
    if (spacer_proves(r, smt, bad_only, bad, what, over, ticking, wraps, 1, 1)) return EngineEnd::Decided;
    r.verdict = Verdict::Unknown;
    r.method = "not proved by IC3/PDR";
    return EngineEnd::Unknown;
  }
  if (spacer_proves(r, smt, bad_only, bad, what, over, ticking, wraps, 2, 3)) return EngineEnd::Decided;
  // Then deeper runs, one more cycle at a time on one solver, for as long as the budget
  // lasts (its end is this property's unknown): a falsifiable property whose shortest
  // counterexample is long.
  int depth = bmc_done + 1;
  trace::Stage deep_stage("deeper BMC");
  if (deep) try {
    z3::solver s = smt.solver();
    std::vector<TransitionSystem::Frame> fs;
    fs.reserve(static_cast<size_t>(kMaxBmcDepth + look + 1));
    auto grow = [&] {
      if (smt.budget.exhausted()) smt.budget.fail();
      fs.push_back(smt.ts->frame(static_cast<int>(fs.size()), fs.empty() ? nullptr : &fs.back(), fs.empty()));
      for (auto e : fs.back().constraints) s.add(e);
      if (ticking) s.add(main_ticks(fs.back()));
    };
    while (static_cast<int>(fs.size()) < bmc_done + look) grow();
    for (depth = bmc_done + 1; depth <= kMaxBmcDepth; ++depth) {
      grow();
      s.push();
      ticks_after(s, fs);
      s.add(bad(fs[static_cast<size_t>(depth - 1)]));
      z3::check_result c = smt.check(s);
      if (c == z3::sat)
        if (auto e = on_bad_run(s, fs, depth)) return *e;
      s.pop();
      if (c == z3::unknown) break;
    }
  } catch (BudgetExhausted &e) {
    deep_reached = std::max(deep_reached, depth - 1);
    r.verdict = Verdict::Unknown;
    r.method = std::string("neither proved by k-induction (up to depth ") + std::to_string(induction_done) +
               ") or IC3/PDR nor falsified by runs of up to " + std::to_string(deep_reached) + " cycles, when " + e.what() +
               (spurious ? " (the bounded runs found were not reproduced by the oracle)" : "");
    return EngineEnd::Unknown;
  }
  deep_reached = std::max(deep_reached, depth - 1);
  r.verdict = Verdict::Unknown;
  r.method = std::string("neither proved by k-induction (up to depth ") + std::to_string(induction_done) +
             ") or IC3/PDR nor falsified by runs of up to " + std::to_string(deep_reached) + " cycles" +
             (spurious ? " (the bounded runs found were not reproduced by the oracle)" : "");
  return EngineEnd::Unknown;
}

// IC3/PDR (Z3's Spacer) looks for an inductive invariant itself, on num/den of what is
// left (run_engines keeps a third for deeper BMC; the second lane keeps nothing). With
// wraps, Spacer first on the property alone (a third of what is left): the invariant it
// finds often bounds the ints too, which one query then checks. Spacer on `bad ∨ wrap`
// learns the bounds of every operation, slowly (the classic protocol models: seconds
// against minutes). Valid or nothing: a reachable bad state of the system is not a
// counterexample until BMC finds the run and the oracle replays it.
bool Checker::spacer_proves(PropertyResult &r, Smt &smt, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad_only,
                            const std::function<z3::expr(const TransitionSystem::Frame &)> &bad, const std::string &what,
                            const std::string &over, bool ticking, bool wraps, int num, int den) {
  if (wraps) {
    std::optional<z3::expr> cover;
    if (auto proved = pdr_proves(smt, bad_only, ticking, &cover, 1, 3);
        proved && *proved && cover && cover_is_invariant(smt, *cover, nullptr, ticking)) {
      if (cover_is_invariant(smt, *cover, &bad, ticking)) {
        r.verdict = Verdict::Valid;
        r.method = "proved by Z3's Spacer (IC3/PDR): " + what + " (an inductive invariant of the transition system" + over +
                   ", checked to exclude every wrap)";
        return true;
      }
      // It lets a wrap through: being inductive (checked), it is given to the search below,
      // which then has only the wraps to exclude.
      if (smt.covers.empty()) smt.covers.push_back(*cover);
    }
  }
  if (auto proved = pdr_proves(smt, bad, ticking, nullptr, num, den); proved && *proved) {
    r.verdict = Verdict::Valid;
    r.method = "proved by Z3's Spacer (IC3/PDR): " + what + " (an inductive invariant of the transition system" + over + ")";
    return true;
  }
  return false;
}

// Whether `cover` (Spacer's invariant over the state, its arguments as bound variables)
// is checked here rather than trusted. Without `bad`: it is an inductive invariant (it
// holds in the initial state, and a transition from a state where it holds, with
// Houdini's invariants, keeps it). With `bad`: no cycle from a state where it holds (and
// Houdini's) is bad; together, no reachable cycle is bad. Any query not unsat: no.
bool Checker::cover_is_invariant(Smt &smt, const z3::expr &cover, const std::function<z3::expr(const TransitionSystem::Frame &)> *bad,
                                 bool ticking) {
  auto at = [&](const std::vector<z3::expr> &state) {
    z3::expr_vector args(smt.ctx);
    for (auto &x : state) args.push_back(x);
    z3::expr c = cover;  // substitute is not const
    return c.substitute(args);
  };
  auto unsat = [&](bool initial, const std::function<z3::expr(const TransitionSystem::Frame &)> &fails) {
    z3::solver s = smt.solver();
    auto fs = smt.unroll(1, initial, s);
    if (ticking) s.add(main_ticks(fs[0]));
    if (!initial) s.add(at(fs[0].state_in) && inv_at(smt, fs[0].state_in));
    s.add(fails(fs[0]));
    return smt.check(s) == z3::unsat;
  };
  try {
    if (bad) return unsat(false, *bad);
    return unsat(true, [&](const TransitionSystem::Frame &f) { return !at(f.state_in); }) &&
           unsat(false, [&](const TransitionSystem::Frame &f) { return !at(f.state_out); });
  } catch (z3::exception &) {
    if (smt.budget.exhausted()) smt.budget.fail();
    return false;
  }
}

// IC3/PDR through Z3's fixedpoint engine Spacer, over the same transition system: Horn
// clauses Init(s) ∧ T(s, s') ⇒ Inv(s), Inv(s) ∧ T(s, s') ⇒ Inv(s'), and the query
// Inv(s) ∧ T(s, s') ∧ bad. true: proved (Spacer found an inductive invariant excluding
// bad; the system over-approximates the oracle, so the property holds there); false or
// nullopt: not proved (a reachable bad state of the system is not a counterexample
// until the oracle replays it, which BMC already tried).
std::optional<bool> Checker::pdr_proves(Smt &smt, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                                        bool ticking, std::optional<z3::expr> *invariant, int num, int den) {
  z3::context &ctx = smt.ctx;
  // At most two thirds of what is left, so that deeper BMC (a falsifiable property whose
  // counterexample is long) keeps a part (Spacer may search until its limit).
  Smt::ScopedLimit half(smt, num, den);
  try {
    z3::fixedpoint fp(ctx);
    z3::params prm(ctx);
    prm.set("engine", "spacer");
    fp.set(prm);
    auto frame_of = [&](bool initial) {
      TransitionSystem::Frame f = smt.ts->frame(0, nullptr, initial);
      std::vector<z3::expr> body;
      for (auto e : f.constraints) body.push_back(e);
      if (ticking) body.push_back(main_ticks(f));
      return std::make_pair(std::move(f), std::move(body));
    };
    // Horn clauses quantify each rule's constants: an imported function becomes a fresh
    // value per step (TransitionSystem::uninterpreted_functions), restored on leaving.
    struct Restore {
      TransitionSystem &ts;
      bool was;
      ~Restore() { ts.uninterpreted_functions = was; }
    } restore{*smt.ts, smt.ts->uninterpreted_functions};
    smt.ts->uninterpreted_functions = false;
    auto [f0, b0] = frame_of(true);
    z3::sort_vector sorts(ctx);
    for (auto &x : f0.state_in) sorts.push_back(x.get_sort());
    z3::func_decl inv = ctx.function("rml_inv", sorts, ctx.bool_sort());
    fp.register_relation(inv);
    auto conj = [&](const std::vector<z3::expr> &xs) {
      z3::expr_vector v(ctx);
      for (auto &x : xs) v.push_back(x);
      return z3::mk_and(v);
    };
    auto app = [&](const std::vector<z3::expr> &args) {
      z3::expr_vector v(ctx);
      for (auto &x : args) v.push_back(x);
      return inv(v);
    };
    auto rule = [&](const z3::expr &body, const z3::expr &head, const char *name) {
      z3::expr_vector vars = free_constants(ctx, {body, head});
      z3::expr r = vars.empty() ? z3::implies(body, head) : z3::forall(vars, z3::implies(body, head));
      fp.add_rule(r, ctx.str_symbol(name));
    };
    rule(conj(b0), app(f0.state_in), "init");
    auto [f1, b1] = frame_of(false);
    // The invariants Houdini proved hold in every reachable state: given, so that Spacer
    // need not learn them again.
    b1.push_back(inv_at(smt, f1.state_in));
    std::vector<z3::expr> next;  // fresh names for the next state (a head takes variables)
    for (size_t k = 0; k < f1.state_out.size(); ++k) {
      z3::expr n = ctx.constant(("rml_next!" + std::to_string(k)).c_str(), f1.state_out[k].get_sort());
      b1.push_back(n == f1.state_out[k]);
      next.push_back(n);
    }
    b1.push_back(app(f1.state_in));
    rule(conj(b1), app(next), "step");
    auto [f2, b2] = frame_of(false);
    b2.push_back(app(f2.state_in));
    b2.push_back(inv_at(smt, f2.state_in));
    b2.push_back(bad(f2));
    // The lookahead cycles after the bad one (lookahead() says why), each ticking.
    std::vector<TransitionSystem::Frame> after;
    after.reserve(static_cast<size_t>(lookahead()));
    for (int j = 0; j < lookahead(); ++j) {
      after.push_back(smt.ts->frame(j + 1, j == 0 ? &f2 : &after.back(), false));
      for (auto e : after.back().constraints) b2.push_back(e);
      b2.push_back(main_ticks(after.back()));
    }
    z3::expr q = conj(b2);
    z3::expr_vector qv = free_constants(ctx, {q});
    z3::expr query = qv.empty() ? q : z3::exists(qv, q);
    z3::check_result c;
    try {
      Budget::Query in_flight(half.part, ctx);  // Spacer's part of the time, by interruption (budget.hpp)
      c = fp.query(query);
    } catch (z3::exception &) {
      trace::line(trace::stage() + " Spacer" + (invariant ? " (property alone)" : "") + ": interrupted");
      throw;
    }
    trace::line(trace::stage() + " Spacer" + (invariant ? " (property alone)" : "") + ": " +
                (c == z3::sat ? "sat" : c == z3::unsat ? "unsat" : "unknown"));
    if (c == z3::unknown && smt.budget.exhausted()) smt.budget.fail();
    if (c == z3::unknown) return std::nullopt;
    // The invariant Spacer found, over the relation's arguments as bound variables
    // (whoever uses it checks it: cover_is_invariant).
    if (c == z3::unsat && invariant) *invariant = fp.get_cover_delta(-1, inv);
    return c == z3::unsat;
  } catch (z3::exception &) {  // its share of the budget spent, interrupted, or a failure
    if (smt.budget.exhausted()) smt.budget.fail();
    return std::nullopt;
  }
}

auto Checker::bound_runs(const std::function<z3::expr(const TransitionSystem::Frame &)> &cont, const std::set<std::string> &roots,
                         std::optional<int64_t> search) -> RunBound {
  RunBound out;
  const int64_t M = search ? *search : max_h();  // the largest bound searched
  Smt smt(prog, clocks, budget, &roots);
  smt.ts->free_values = free_values;  // Checker::free_values
  // Base case for bound H: from the initial state, no run of H + 1 continuations.
  auto base_holds = [&](int64_t H, bool keep_cex) -> std::optional<bool> {
    int win = static_cast<int>(H) + 1, depth = win + 2;
    z3::solver s = smt.solver();
    auto fs = smt.unroll(depth, true, s);
    z3::expr any = smt.ctx.bool_val(false);
    for (int st = 0; st + win <= depth; ++st) {
      z3::expr all = smt.ctx.bool_val(true);
      for (int j = 0; j < win; ++j) all = all && cont(fs[static_cast<size_t>(st + j)]);
      any = any || all;
    }
    s.add(any);
    z3::check_result c = smt.check(s);
    if (c == z3::unknown) return std::nullopt;
    if (c == z3::sat && keep_cex) {
      out.falsified_at_max = true;
      z3::model m = s.get_model();
      Counterexample cx;
      cx.inputs = model_inputs(cp, prog, clocks, fs, m);
      // Find the long run and cut the trace where it ends: its first cell then needs
      // a cycle beyond the prefix although the prefix is longer than the bound.
      for (int st = 0; st + win <= depth; ++st) {
        bool run = true;
        for (int j = 0; j < win && run; ++j) run = m.eval(cont(fs[static_cast<size_t>(st + j)]), true).is_true();
        if (!run) continue;
        out.run_start = static_cast<size_t>(st);
        cx.inputs.cycles = static_cast<size_t>(st + win);
        for (auto &kv : cx.inputs.streams) kv.second.resize(cx.inputs.cycles);
        break;
      }
      out.cex = std::move(cx);
    }
    return c == z3::unsat;
  };
  // Step: k windows without a bad one, then a bad one, from any state satisfying the
  // invariants (k-induction on windows).
  auto step_holds = [&](int64_t H) {
    int win = static_cast<int>(H) + 1;
    for (int k = 1; k <= opts.max_depth; ++k) {
      z3::solver t = smt.solver();
      int n = k + win;
      auto gs = smt.unroll(n, false, t);
      discover_invariants(smt);
      t.add(inv_at(smt, gs[0].state_in));
      auto window = [&](int end) {
        z3::expr all = smt.ctx.bool_val(true);
        for (int j = end - win + 1; j <= end; ++j) all = all && cont(gs[static_cast<size_t>(j)]);
        return all;
      };
      for (int end = win - 1; end < n - 1; ++end) t.add(!window(end));
      t.add(window(n - 1));
      if (smt.check(t) == z3::unsat) return true;
    }
    return false;
  };
  // The smallest H whose base case holds: doubling, then bisection.
  int64_t lo = -1, hi = -1;  // base fails at lo, holds at hi
  for (int64_t H = 0;; H = H ? std::min<int64_t>(2 * H, M) : 1) {
    auto b = base_holds(H, H == M);
    if (!b) return out;
    if (*b) {
      hi = H;
      break;
    }
    lo = H;
    if (H == M) return out;  // runs longer than the largest bound searched
  }
  while (hi - lo > 1) {
    int64_t mid = (lo + hi) / 2;
    auto b = base_holds(mid, false);
    if (!b) return out;
    (*b ? hi : lo) = mid;
  }
  for (int64_t H = hi; H <= std::min<int64_t>(hi + 2, M); ++H)
    if (step_holds(H)) {
      out.h = H;
      return out;
    }
  return out;
}

// Whether the assumptions admit no run of `depth` cycles from the initial state (e.g.
// `assume always bp and not bp;`): then every proof under them is vacuous.
bool Checker::assumptions_vacuous() {
  if (prog.assumptions.empty()) return false;
  int depth = opts.max_depth + 1;
  for (auto &a : prog.assumptions)
    if (a.eventually && a.within >= 0) depth = std::max<int>(depth, static_cast<int>(std::min<int64_t>(a.within, kMaxSearchedHorizon)) + 2);
  std::set<std::string> roots;
  for (auto &a : prog.assumptions) roots.insert(a.var);
  Smt smt(prog, clocks, budget, &roots);
  smt.ts->free_values = free_values;  // Checker::free_values
  z3::solver s = smt.solver();
  auto fs = smt.unroll(depth, true, s);
  // The main node runs at every cycle (otherwise "nothing ever ticks" satisfies all).
  if (!prog.inputs.empty())
    for (auto &f : fs) {
      z3::expr tick = smt.ctx.bool_val(false);
      for (auto &v : prog.inputs) tick = tick || f.p.at(v.name);
      s.add(tick);
    }
  vacuous_depth = depth;
  return smt.check(s) == z3::unsat;
}

}  // namespace rml::check
