// Lustre records, flattened into their fields before type checking (issue 13). rml's
// core has streams of scalars and tensors only; a record is a list of streams, one per
// (nested) field, as in the code Lustre compilers generate:
//
//   type rat = struct { n: real; d: real };
//   node f(r: rat) returns (o: rat) ...     is     node f(r.n, r.d: real) returns (o.n, o.d: real)
//
// A variable of a record type becomes one variable per field, named `v.field` (`v.p.x`
// for nested records: not identifiers, so they meet no user name; traces and `--show`
// use these names). Expressions of a record type become tuples of their fields, in the
// type's field order, which sema/flatten_tuples then distributes:
//   - `v` is `(v.n, v.d)`; `v.n` is the variable `v.n`;
//   - `rat { n = a; d = b }` is `(a, b)` (every field exactly once: rule `type.record`);
//   - `r[n := a]` (Kind 2's update) is `(a, r.d)`;
//   - `e.n` on another record expression (a call, `pre`, `if` ...) binds `e` to fresh
//     variables first, then selects;
//   - equality of records compares every field (flatten_tuples).
// The record type of an expression is found from the declarations (variables, node
// outputs, literals), as Lustre requires them declared; a field of something that is not
// a record, or an unknown field, is `type.record`.
#pragma once
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

// Flattens the records of p[first..]; returns whether any record was met.
bool expand_records(Program &p, size_t first, Diagnostics &diags);

}  // namespace rml
