// Clocks on the values of an enumeration (Lustre V6, Heptagon, Vélus), expanded before
// type checking into rml's clocks, which are bools:
//
//   e when C(k)          is  e when (k = C)          (also `when not C(k)`)
//   x: t when C(k)       is  x: t when $k            with the local $k = (k = C)
//   merge k (C1 -> e1) (C2 -> e2) ... (Cn -> en)
//                        is  merge (k1 = C1) e1 (merge (k2 = C2) e2 (... en))
//                            with k1 = k and k(i+1) = k(i) when not (k(i) = C(i))
//
// The Lustre meaning (V6 manual §"merge", Heptagon, Vélus's `merge` over enumerations):
// `e when C(k)` is present where k is present and equal to C, and the merge takes, at
// each tick of k, the branch of k's value, each branch on the clock `when C(k)`. In the
// nested form the branch of C(i) is on the clock of k(i) when (k(i) = C(i)): the ticks
// of k where k is none of C1..C(i-1) and is C(i), which is `when C(i)(k)`; the last
// branch is on the ticks where k is none of the others, which is its own constructor's
// clock because the clauses name every constructor. k(i) are fresh variables (the
// expression would otherwise grow with each level), and so is k when it is not a name.
//
// The clauses of a merge must name every constructor of one enumeration once
// (`clock.merge`). A two-clause merge whose names are not constructors is the paper form
// `merge c (x -> a) (y -> b)` of two `->` operands, which the parser could not tell
// apart; it is given back that form. Whether k and C have the same enumeration is the
// type checker's `=`.
#pragma once
#include "sema/typecheck.hpp"
#include "syntax/diag.hpp"

namespace rml {

void expand_enum_clocks(CheckedProgram &cp, Diagnostics &diags);

}  // namespace rml
