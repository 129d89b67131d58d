// The bulk-operation transform (array-ad.md §4, seed 004 §5, Figs. 9–11) and the
// simplifier (§10.2 step 3). API contract shared by AD, the executor, the CLI and
// proofs/ (which proves each rule on symbolic arrays through apply_rule).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "array/ir/ir.hpp"

namespace rml::bot {

// The 30 rules: Fig. 9 (B1–B13), Fig. 10 (I1–I13), Fig. 11 (G1–G4).
enum class Rule : uint8_t {
  B1, B2, B3, B4, B5, B6, B7, B8, B9, B10, B11, B12, B13,
  I1, I2, I3, I4, I5, I6, I7, I8, I9, I10, I11, I12, I13,
  G1, G2, G3, G4,
};
inline constexpr int kRuleCount = 30;
const char *rule_name(Rule r);  // "B1", ..., "G4"

// One rewrite step of rule r at the root of t, or nullopt if r does not match there.
// Every step preserves the reference semantics exactly (bitwise on reals), out of bounds
// included; where the figures' rule does not, the reduct carries a guard. Precisely:
// - B3–B13 and G1–G4 need the binder to occur in the body (B2 has priority; otherwise
//   `build1 k (\i. x + y)` has two normal forms). G1–G4 need a non-empty index (G3 one
//   component, as in the figure; I8 splits longer ones).
// - I3–I13 need a non-empty index (I1 has priority).
// - I5/I6: when op(0,0) (op(0)) is not bitwise 0 (exp, cos, not, =, <=, real /, real
//   neg, ...) and the index is not a constant in bounds, the reduct is
//   `index [op (index t ix) ..] [cond inb 0 (-1)]`, which reads 0 out of bounds as before.
// - I9 (`index (replicate k t) (u:::ix)`) and I12 (`index (gather (k:::sh) ..) (u:::ix)`)
//   drop the dimension u indexes; unless u is a constant in [0,k), the next index
//   component becomes `cond (0 <= u and u < k) c (-1)` (an out-of-bounds read when u is),
//   or with no component left the reduct is guarded as in I5. So every guard bot adds has
//   the form `cond ok c (-1)`.
// - I12 substitutes u into each component (capture-avoiding); I4, I5, I8 let-bind only
//   index components that are not a variable, a constant, or a variable indexed by those
//   (cheap to repeat); B3 and I3 rename the let binder to a fresh name.
// - I7 uses tr_{1,..,n,0} with n = |ix| (dim 0 moves to position n); I10's gather has
//   fresh binders; I11 linearises row-major.
// Bodies are not normalised here; a rule whose result would exceed ir::kMaxElements
// (G3/G4 materialise k copies) throws ir::IrError.
std::optional<ir::Term> apply_rule(Rule r, const ir::Term &t);

// The normal form of t (Theorem 5.1: no build1; every index is `index x (v:::ix)`,
// `index c (v:::ix)`, `index [..] [v]` or `index (scatter ..) (v:::ix)`; iota counts as a
// constant c). Bottom-up, rules at index and build1 heads to a fixpoint, in the order of
// the Rule enum. Throws ir::IrError ("bot.G3: ...") if an intermediate node would exceed
// ir::kMaxElements, or if a build1 body is a share that uses the binder. The result is
// checked with normal_form_violation (a violation would be a bug, reported as IrError).
// The rewrite system is not confluent syntactically (tests/array/bot explain where), so
// this order is what makes the normal form unique.
ir::Term bot(const ir::Term &t);

// nullopt if t is in the Theorem 5.1 normal form; otherwise a description of the first
// offending subterm.
std::optional<std::string> normal_form_violation(const ir::Term &t);

// Simplifier rules; each preserves the reference semantics, out-of-bounds included.
enum class SimpRule : uint8_t {
  IdentityGather,     // gather (shape a) a (\is. is) ~> a
  GatherOfGather,     // gather sh (gather sh' a f) g ~> gather sh a (f ∘ g), guarded for OOB
  GatherOfReplicate,  // gather of replicate drops the replicated component
  GatherOfIota,       // gather of iota becomes the index function itself (guarded for OOB)
  GatherOfConstant,   // gather of a constant-filled array is that constant (if OOB reads are the same)
  DeadLet,            // let x = u in v ~> v when x ∉ FV(v)
  TrivialLet,         // let x = y in v / let x = c in v ~> v[x := ..]
  ConstantFold,       // operators, index, conditions on constants
};
inline constexpr int kSimpRuleCount = 8;
const char *simp_rule_name(SimpRule r);

// Closed integer intervals known for the variables in scope, innermost last (nullopt: not
// an int, or nothing known; a binder shadows outer entries of its name). For an int array
// variable the interval bounds every element.
struct Interval {
  int64_t lo, hi;
};
using RangeEnv = std::vector<std::pair<std::string, std::optional<Interval>>>;
// Interval of every element of an int-typed term (nullopt if unknown or not int); truth
// of a bool term whose elements are all provably equal.
std::optional<Interval> int_range(const ir::Term &t, const RangeEnv &env = {});
std::optional<bool> truth(const ir::Term &t, const RangeEnv &env = {});

// One step at the root; with env, guards are dropped when the ranges prove them
// (simplify passes the ranges of enclosing gather/scatter/build1 binders and int lets).
// The rules in detail:
// - IdentityGather: gather (shape a) a (\[i1..im]. [i1..im]) ~> a.
// - GatherOfGather: gather sh (gather sh' a (\js. f)) (\is. g) ~> gather sh a (\is ks.
//   f[js := g ++ ks]) (ks: fresh binders when g indexes fewer dims than js); when g's
//   components into sh' are not provably in bounds, f's first component becomes
//   `cond inb f0 (-1)` (no fusion if f has no component). An inner transpose counts as
//   the gather it is (I10's).
// - GatherOfReplicate: gather sh (replicate k a) (\is. u:::g) ~> gather sh a (\is. g),
//   with u's bound check guarding g's first component (none needed if provable).
// - GatherOfIota: index (iota k) [e] ~> e when e is provably in [0,k); gather sh (iota k)
//   (\is. [e]) ~> replicate.. (iota sh_last) when e is the last binder and sh_last <= k,
//   or ~> replicate.. e when e mentions no binder and is provably in [0,k).
// - GatherOfConstant: gather/index of an array filled with v ~> replicate.. v when v is
//   (bitwise) 0 or the reads are provably in bounds.
// - DeadLet, TrivialLet (y a variable, a constant or iota).
// - ConstantFold: operators on constants (by ir::apply_unary/apply_binary, so int
//   wrapping and x div 0 = 0 are the evaluator's), `and`/`or` with a known side, int
//   `+ 0`, `- 0`, `* 1`, `* 0`, comparisons and int scalars the ranges decide, cond on a
//   known condition or with equal branches, index of a constant, of iota or of a literal
//   array at constant components, gather of a literal array whose first component is a
//   (provable) constant.
std::optional<ir::Term> apply_simp_rule(SimpRule r, const ir::Term &t, const RangeEnv &env);
std::optional<ir::Term> apply_simp_rule(SimpRule r, const ir::Term &t);  // at the root, no ranges
ir::Term simplify(const ir::Term &t);                                   // to a fixpoint

}  // namespace rml::bot
