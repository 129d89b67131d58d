// The bulk-operation transform (array-ad.md §4, seed 004 §5, Figs. 9–11) and the
// simplifier (§10.2 step 3). API contract shared by AD, the executor, the CLI and
// proofs/ (which proves each rule on symbolic arrays through apply_rule).
#pragma once
#include <optional>
#include <string>

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
std::optional<ir::Term> apply_rule(Rule r, const ir::Term &t);

// The normal form of t (Theorem 5.1: no build1; every index is `index x (v:::ix)`,
// `index c (v:::ix)`, `index [..] [v]` or `index (scatter ..) (v:::ix)`).
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
std::optional<ir::Term> apply_simp_rule(SimpRule r, const ir::Term &t);  // at the root
ir::Term simplify(const ir::Term &t);                                   // to a fixpoint

}  // namespace rml::bot
