// What every Z3 query of the checker shares: a context with the node's transition system
// (smt_model), solvers that spend the check's one budget (budget.hpp), the invariants proved for
// that encoding, and the way back from a model to an oracle trace.
#pragma once
#include <optional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <z3++.h>

#include "checker/budget.hpp"
#include "checker/checker.hpp"
#include "checker/smt_model.hpp"
#include "core/clocks.hpp"

namespace rml::check {

struct Interval {  // for a bool memory: lo = hi = the constant value (0 or 1)
  size_t slot, started;
  int64_t lo, hi;
  bool is_bool = false;
  bool never_nil = false;     // the candidate "started ⇒ the memory is not nil" (slot = nil flag)
  bool same_started = false;  // the candidate "slot == started" (two started flags)
  // A real memory: started ⇒ rlo ≤ m ≤ rhi (an infinite bound says nothing; NaN fails
  // both comparisons, so a finite bound also says "not NaN"), or with not_nan alone,
  // started ⇒ m is not NaN.
  bool is_real = false, not_nan = false;
  double rlo = 0, rhi = 0;
  // An int candidate that holds only where a latch is up (latches.cpp): it also needs the
  // bool memory at `guard` true and its nil flag at `guard_nil` false.
  bool guarded = false;
  size_t guard = 0, guard_nil = 0;
  // An affine relation of int memories (affine_relations.hpp): lo ≤ Σ coeff·memory ≤ hi
  // where every memory in it is started and not nil (lo = hi: an equation; a bound at the
  // end of the 64-bit range is left out). Over bit-vectors, modulo 2^64 and signed.
  struct Term {
    size_t slot, started, nil_slot;
    int64_t coeff;
  };
  std::vector<Term> terms = {};
};

struct Smt {
 private:
  // Owned through a pointer so that the destructor can hand the context, with the terms
  // that live in it, to the reaper (context_reaper.hpp) instead of freeing it here.
  std::unique_ptr<z3::context> owned_ctx_;
  // A new context, or BudgetExhausted when `b` has nothing left: making a context and its
  // transition system takes a large node tenths of a second, which past the deadline
  // only delay the report.
  static std::unique_ptr<z3::context> fresh_context(const Budget &b);

 public:
  z3::context &ctx = *owned_ctx_;
  std::unique_ptr<TransitionSystem> ts;
  Budget budget;         // the check's (or a slice of it), charged with what ctx spends
  uint64_t counted = 0;  // what ctx had spent when last charged (after each query)
  std::optional<z3::solver> probe;  // reads the count after a query of another engine (Spacer)
  // Proved invariants of this encoding (state slots are specific to it).
  std::vector<Interval> invariants;
  bool invariants_done = false;
  // Other proved invariants of this encoding, over its state as bound variables (Spacer's,
  // checked by Checker::cover_is_invariant).
  std::vector<z3::expr> covers;
  Smt(const core::Program &p, const core::Clocks &c, const Budget &b, const std::set<std::string> *roots = nullptr,
      bool reals = false, bool ints = true)
      : owned_ctx_(fresh_context(b)), budget(b) {
    ts = std::make_unique<TransitionSystem>(ctx, p, c, roots, reals, ints);
  }
  // The context and the transition system are deleted on the reaper's thread.
  ~Smt();
  Smt(const Smt &) = delete;
  Smt &operator=(const Smt &) = delete;
  // A solver of this context; throws BudgetExhausted when nothing is left.
  z3::solver solver();
  // Solvers without Z3's preprocessing tactics (its SMT core alone). Z3 4.8's QF_LIA tactic
  // bit-blasts a problem whose ints are all bounded, which a 64-bit boundary makes costly:
  // `1 <= x and x + 1 > 2^63 - 1` took 1.9 M units there, 300 in the core. The overflow
  // property's queries are all of that kind (Checker::check_overflow).
  bool simple = false;
  // s.check() within what is left of the budget (each call is limited anew, so a solver
  // checked many times spends no more than the budget); a query that gives up because
  // the budget ran out throws BudgetExhausted, other unknowns are returned.
  z3::check_result check(z3::solver &s);
  // Limits the context's other engines (Spacer) to num/den of what is left; no limit
  // again on leaving.
  struct ScopedLimit {
    Smt &smt;
    ScopedLimit(Smt &s, int num, int den);
    ~ScopedLimit();
    std::optional<uint64_t> ms;
    Budget part;  // the slice: its deadline is the engine's (its Budget::Query's)
  };
  // Frames 0..n-1 from the initial state (or a free state).
  // Building frames is rml's own work, which no interrupt of Z3 reaches: the deadline is
  // looked at before each frame (a large node's unrolling takes seconds).
  std::vector<TransitionSystem::Frame> unroll(int n, bool initial, z3::solver &s) {
    std::vector<TransitionSystem::Frame> fs;
    for (int k = 0; k < n; ++k) {
      if (budget.exhausted()) budget.fail();
      fs.push_back(ts->frame(k, k ? &fs.back() : nullptr, initial && k == 0));
      for (auto e : fs.back().constraints) s.add(e);
    }
    return fs;
  }
};

// Reads the inputs of a model as an oracle trace, with the outputs of imported calls the
// model chose (oracle::Inputs).
oracle::Inputs model_inputs(const CheckedProgram &cp, const core::Program &p, const core::Clocks &clocks,
                            const std::vector<TransitionSystem::Frame> &fs, z3::model &m);

// The trace as CSV: the inputs, then the imported outputs it gives (rml run reads both).
std::string trace_csv(const core::Program &p, const oracle::Inputs &in);

// The uninterpreted constants of some expressions (the variables of a Horn clause).
z3::expr_vector free_constants(z3::context &ctx, const std::vector<z3::expr> &roots);

}  // namespace rml::check
