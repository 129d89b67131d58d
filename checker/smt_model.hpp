// The elaborated program as a symbolic transition system in Z3 (semantics.md §9-§10):
// per cycle, a presence bit for every variable, the value of every scalar variable (ints
// as 64-bit bit-vectors: wrapping and truncating division exactly as the oracle; reals as
// IEEE-754 binary64 floats, smt_reals.hpp), a nil flag for every variable, the clocks, and
// an error condition err(n) that holds iff the oracle would produce ‖ at cycle n. C library
// functions are uninterpreted functions constrained by the facts of their row of the
// operator table, a fun applied to scalars is its lowered body (fun_terms.hpp); tensors
// and other calls get fresh unconstrained values, and `post` guesses
// its value (a prophecy) that the next tick must confirm: every oracle execution is a
// behaviour of the system, so a property proved here holds in the oracle; a counterexample
// found here is replayed in the oracle before it is believed.
#pragma once
#include <z3++.h>

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "checker/fun_terms.hpp"
#include "core/clocks.hpp"
#include "core/normalize.hpp"

namespace rml::check {

class TransitionSystem {
 public:
  // With `roots`, only the cone of influence of those variables is encoded (the equations
  // they depend on, transitively, with their clocks, the inputs and the assumptions):
  // enough for properties that mention only the roots, and much smaller. Without `reals`,
  // real values are left free (an over-approximation): the properties of clocks, nil flags
  // and horizons seldom need them, and binary64 arithmetic is costly for the solver.
  // Without `ints`, int values are left free too.
  TransitionSystem(z3::context &ctx, const core::Program &prog, const core::Clocks &clocks,
                   const std::set<std::string> *roots = nullptr, bool reals = false, bool ints = true);

  // One cycle's variables and constraints. `state_in` are the state variables on entry;
  // `state_out` on exit (the next cycle's state_in).
  struct Frame {
    int n = 0;
    std::map<std::string, z3::expr> p, v, nil;  // presence, value (bool/int), nil flag
    std::vector<z3::expr> ck;                    // clock terms
    std::vector<z3::expr> state_in, state_out;
    z3::expr_vector constraints;                 // T(n) ∧ A(n)
    z3::expr err;                                // the oracle would produce ‖ at this cycle
    std::vector<std::pair<std::string, z3::expr>> err_parts;  // (description, condition)
    // With lia_ints: some int operation of this cycle has an exact result outside the
    // 64-bit range, where the oracle's wraps (false when no operation can).
    z3::expr wrap;
    // With overflow_errors: some int operation of this cycle is present, its operands are
    // values, and its exact result leaves the 64-bit range (what --int-overflow error makes
    // ‖ in the oracle; ops::int_*_overflows).
    z3::expr overflow;
    explicit Frame(z3::context &c) : constraints(c), err(c.bool_val(false)), wrap(c.bool_val(false)), overflow(c.bool_val(false)) {}
  };

  // Builds cycle n; `prev` is the previous frame (its state_out feeds this state_in), or
  // nullptr for a free state (k-induction) — `initial` pins it to the initial state.
  Frame frame(int n, const Frame *prev, bool initial);

  // An imported function's outputs (core::ApplyOp::Imported, not a node) are uninterpreted
  // functions of its tracked arguments, one symbol per output for all frames: equal
  // arguments give equal values at every cycle and call, and a free constant keeps its
  // value. Off, each application is a fresh value per frame (an over-approximation:
  // Spacer's Horn clauses take no uninterpreted function). Imported nodes keep state of
  // their own, so theirs are always fresh values.
  bool uninterpreted_functions = true;

  // Variables whose value the system leaves free: their equation constrains nothing. The
  // checker frees the variables the oracle may leave ⊥ for ever (an instantaneous cycle
  // when causality is not valid; every post when productivity is not), because the
  // system has no ⊥: `v = v + 1` or a post chain that never ends (v = v + 33) would have
  // no value, hence no run at all, and every property would be "proved" of no run. Free,
  // they over-approximate the oracle's ⊥ (Checker::free_values).
  std::set<std::string> free_values;

  // Reals as exact rationals instead of binary64: unsound for what the oracle computes, a
  // negative control for the tests only (check::Options::exact_reals).
  bool exact_reals = false;

  // Ints as mathematical integers (linear integer arithmetic, smt_ints.hpp) instead of
  // 64-bit vectors: each frame says in `wrap` when an operation's exact result leaves the
  // 64-bit range. Values no equation computes (inputs, fresh values, a pre's first value,
  // the memories of a free state) are 64-bit numbers. A run of this system where no frame
  // wraps is, value for value, a run of the 64-bit system and back
  // (semantics/int_encoding.md), so "never bad and never wrap" proved here holds in the
  // oracle. Programs with a post are not encoded so (the checker does not ask).
  bool lia_ints = false;
  // With lia_ints, each int operation's result wrapped into the 64-bit range as the oracle
  // wraps it (smt_ints.hpp): the oracle's ints exactly, over Z3's Ints; `wrap` stays
  // false. Linear where every product and quotient has a constant operand.
  bool lia_modular = false;
  // With lia_ints, a wrap in a nil value counts too. In rml's reading a nil value is read
  // by nothing, so its wraps change no value any reader takes; in Kind 2's reading of
  // `pre` (check::Options::pre_any) a property reads the value of a nil cell (the first
  // value of a `pre` is any value of its type), so they do (semantics/int_encoding.md).
  bool nil_values_read = false;
  // Each frame says in `overflow` where an int operation overflows (Checker::check_overflow).
  // An operation whose operands or result the system leaves free (a tensor, a freed
  // value) cannot be said so: frame() then sets overflow_unencoded.
  bool overflow_errors = false;
  bool overflow_unencoded = false;
  // With lia_ints, in the reading of --int-overflow error: an operation that would
  // overflow is ‖ there, never a wrapped value, so its exact result is the only value it
  // gives and no wrap is counted for it (core::may_overflow; a machine integer's
  // arithmetic still wraps). Sound for that reading because ‖ is strict: a cell that is a
  // value there reads no ‖, hence no overflow, so it is the exact value this system
  // computes (semantics/int_encoding.md, "When an overflow is an error").
  bool overflow_exact = false;
  // Set by frame() when it encoded a product, quotient or remainder of two non-constant
  // ints over Ints (nonlinear arithmetic, which the solver seldom decides).
  bool nonlinear_ints = false;

  // The body of a fun applied to scalars (fun_terms.hpp), when the checker gives a way to
  // find it: its application is encoded through the body. Without it, a fresh value.
  std::function<std::optional<FunTerm>(const core::Equation &, const std::vector<Scalar> &)> fun_body;

  // The value of condition variable `var` (present and true) at a frame, for predicates.
  z3::expr holds(const Frame &f, const std::string &var) const;

  // The memories of fby/pre on tracked scalars (state slot, its `started` slot, and the
  // variable whose value it stores), for invariant candidates.
  struct Memory {
    size_t slot, started;
    std::string source;
    Scalar type = Scalar::Int;
    size_t nil_slot = 0;  // the memory's nil flag
  };
  std::vector<Memory> memories() const;
  std::vector<size_t> arrow_started() const;  // state slots of the arrows' started flags
  // What a state of this system is and how it may step, as a key: the encoding's flags,
  // each equation's state slots and the tracked memories. Two systems of one program with
  // the same key (two properties' cones that hold the same stateful equations) have the
  // same state and the same transitions of it (a cone holds everything its memories and
  // the assumptions read; what else it tracks only defines values), so an invariant
  // inductive in one is inductive in the other.
  std::string state_key() const;
  // The range of the declared type (a subrange, an enumeration) of a main node's input or
  // output, or nothing: a `pre`'s first value in Kind 2's reading.
  std::optional<std::pair<int64_t, int64_t>> declared_range(const std::string &v) const;

  const core::Program &program() const { return prog_; }
  // Whether some tracked value is a binary64 real (Z3's floating-point theory).
  bool float_values() const {
    if (exact_reals) return false;
    for (auto &[name, s] : scalar_)
      if (s == Scalar::Real) return true;
    return false;
  }
  z3::context &ctx() { return ctx_; }

 private:
  z3::context &ctx_;
  const core::Program &prog_;
  const core::Clocks &clocks_;
  std::map<std::string, Scalar> scalar_;  // tracked variables (bool/int scalars) and their type
  std::map<std::string, const core::Equation *> def_;
  std::map<std::string, std::pair<int64_t, int64_t>> declared_range_;  // declared_range()
  std::set<std::string> cone_;  // encoded variables (all when no roots were given)
  std::vector<bool> term_needed_;
  bool in_cone(const std::string &v) const { return cone_.count(v) > 0; }
  // Readers of each variable's value that take it only in some cycles: an `if` reads a
  // branch when its condition selects it, `->` its first operand before it has started
  // and its second after, `fby` its initial value before it has started. And the
  // variables something else reads (another operand, a memory, a clock's condition, an
  // output, a property, an assumption). An operation whose value no reader takes may
  // wrap unseen (semantics/int_encoding.md).
  enum class Takes { Then, Else, Before, After };
  std::map<std::string, std::vector<std::pair<size_t, Takes>>> branch_reads_;
  std::set<std::string> read_otherwise_;
  // The variables whose value can reach a presence or an assumption (a clock's, when's or
  // merge's condition, an assumed condition, a declared clock), through any reader of
  // values. Outside this set a nil value (a pre's first one) reaches only nil values, so a
  // wrap there changes nothing the system can tell (semantics/int_encoding.md).
  std::set<std::string> steers_;
  z3::expr wrap_matters(const Frame &f, const std::string &y, std::set<std::string> &visiting,
                        std::map<std::string, z3::expr> &memo) const;
  int state_size_ = 0;
  int eq_state_size_ = 0;
  std::vector<int> state_base_;  // per equation: index of its first state variable, or -1
  std::vector<int> repeats_;     // per equation: the earlier pre/fby it repeats, or -1

  z3::expr fresh(const std::string &name, const z3::sort &s, int n);
  z3::sort sort_of(Scalar s) const;
  bool tracked(const std::string &v) const { return scalar_.count(v) > 0; }
};

}  // namespace rml::check
