// Kind 2's definitions of an array by index variables, expanded before the aggregates are
// flattened (sema/expand_aggregates):
//
//   y[i] = e;        (y: T^n)      is  y = [e(0), e(1), ..., e(n-1)];
//   A[i][j] = e;     (A: T^n^m)    is  A = [[e(0, 0), ..., e(0, n-1)], ..., [e(m-1, 0), ...]];
//
// e(k) is e with i the int k wherever no `let` or lambda of e rebinds i (the index hides a
// variable or constant of that name, as in Kind 2). A conditional whose condition the
// indices alone decide (`if i = 0 then x else A[i - 1]`, after the substitution a
// comparison of ints) is the branch it takes: Kind 2 reads i as a number and its `if`
// does not look at the branch not taken, so `A[i - 1]` is no index out of range at i = 0.
// An element may read other elements (`A[i - 1]`, Kind 2's inductive definitions): each
// element is a stream of its own once flattened, so the definition is causal unless an
// element reads itself through others at the same cycle (rml-check's causality check).
//
// Errors: a name that is no output or local of the node (`name.unknown`; an input:
// `name.input-defined`), more index variables than the array's levels (`shape.rank`), a
// size that is not a static int (`static.not-static`), over 100 000 elements
// (`static.eval`).
#pragma once
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

void expand_index_definitions(Program &p, size_t first, Diagnostics &diags);

}  // namespace rml
