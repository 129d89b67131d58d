// Lustre records and arrays, flattened into their elements before type checking.
// rml's core has streams of scalars and tensors only; a record or an array is
// a list of streams, one per leaf, as in the code Lustre compilers generate (JKind and
// lus2lic -ei do the same):
//
//   type rat = struct { n: real; d: real };
//   node f(r: rat; a: int^2) returns (o: rat) ...
//     is  node f(r.n, r.d: real; a[0], a[1]: int) returns (o.n, o.d: real)
//
// A variable of a record or array type becomes one variable per leaf, named `v.field`,
// `v[k]`, `v.p[2].x` (not identifiers, so they meet no user name; traces and `--show`
// use these names). Expressions of an aggregate type become tuples of their leaves, in
// order (fields as declared, elements by index), which sema/flatten_tuples then
// distributes over `pre`, `fby`, `->`, `when`, `merge`, `if`, calls and `=`/`<>`:
//   - `v` is `(v.n, v.d)`; `v.n` is the variable `v.n`; `a[1]` is `a[1]`;
//   - `rat { n = a; d = b }` is `(a, b)` (every field exactly once: rule `type.record`);
//   - `r[n := a]` (Kind 2's update) is `(a, r.d)`;
//   - `[e0, e1]` is `(e0, e1)` and `e ^ 3` is `(e, e, e)` (e bound to fresh variables
//     first when it is not a name or a literal, so it is computed once);
//   - `e.n`, `e[k]` on another aggregate expression (a call, `pre`, `if` ...) bind `e`
//     to fresh variables first, then select;
//   - a global constant of an aggregate type is its value, elaborated at each use.
// Array sizes and indices are static ints (literals, int constants, + - * div mod);
// otherwise `static.not-static`; an index out of range or a size that is negative or
// too large to flatten is `static.eval`. Dynamic indices are not read yet.
//
// `[e, ...]` is a tensor or shape literal in R(ML)² programs: it is read as a Lustre array
// only in a program that uses Lustre arrays (a type `T^n` or an expression `e ^ n`), and
// there only in nodes without tensor-typed declarations.
//
// The aggregate type of an expression is found from the declarations (variables, node
// outputs, literals), as Lustre requires them declared; a field or index of something
// that is not a record or an array is `type.record` or `type.array`.
#pragma once
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

// Flattens the records and arrays of p[first..]; returns whether any was met.
bool expand_aggregates(Program &p, size_t first, Diagnostics &diags);

}  // namespace rml
