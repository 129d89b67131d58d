// Lustre's tuples, flattened before type checking: a tuple is a list of
// streams, so `(a, (b, c))` is `(a, b, c)`, operators apply componentwise
// (`(a, b) fby (c, d)` is `(a fby c, b fby d)`; also `pre`, `->`, `when`, `merge`, `if`),
// and a call with several outputs passes them as several arguments (`g(f(x))`, Lustre V6
// manual §tuples; Heptagon, Vélus and Kind 2 read the same). rml's core has no tuple
// streams, so this pass rewrites node bodies into that form:
//
//   - a multi-output call in any position other than a whole right side is bound to fresh
//     variables by an equation of its own (`($f1, $f2) = f(x);`), which then stand for it;
//   - a tuple-valued `fby`, `->`, `pre`, `when`, `merge` or `if` becomes the tuple of its
//     componentwise applications; a condition that is not a name is bound to a fresh
//     variable first, so it is computed once;
//   - a right side whose value is a tuple becomes one flat tuple;
//   - tuples compare componentwise: `(a, b) = (c, d)` is `a = c and b = d` (`<>`: `or`).
//
// Arity is syntactic: a node's outputs as declared (user declarations first, then the
// prelude's); builtins and funs have one. Expressions whose components do not line up
// (`(a, b) fby c`) are left as written, so the type checker reports them as before.
// Fresh names contain `$`, which no identifier does; they are not declared, so their
// types and clocks are inferred like those of any undeclared local.
#pragma once
#include "syntax/ast.hpp"

namespace rml {

// Rewrites the node declarations of p[first..] in place; returns whether any changed.
bool flatten_tuples(Program &p, size_t first);

}  // namespace rml
