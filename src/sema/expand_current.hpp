// Lustre's `current e` (Lustre V6 manual, "current"): e is on a clock `κ when [not] c`;
// `current e` is on κ and holds e's value at the last tick of c, nil before the first.
// Rewritten before type checking, after sema/expand_enum_clocks (so that an
// enumeration clock `when C(k)` is already the bool `when $c`), into a fresh variable
//
//   $current = merge c e ((pre $current) when not c)      (`when not c`: the branches swapped)
//
// so the oracle, rml-check (the nil before the first tick is `pre`'s: the initialisation
// property says where an output may be it) and the back ends read it through their own
// rules. The condition is read from the operand: `e when c` written so, or a variable
// declared `x: t when [not] c` (input, output or local of the node); any other operand
// is refused (syntax.unsupported), since sema has no clocks yet. `current(e)` is a call
// of the user's node when the program declares one named `current` (Velus's stopwatch);
// `rml fmt` prints the operator as `current(e)`, which reads back the same.
#pragma once
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

// Rewrites the `current` of the node declarations of p[first..].
void expand_current(Program &p, size_t first, Diagnostics &diags);

}  // namespace rml
