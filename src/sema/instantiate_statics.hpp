// Lustre V6 / Heptagon static parameters, instantiated before type checking:
//
//   node cross<<const l: int>>(x: int) returns (c: bool) ...     (Heptagon: <<l: int>>)
//   ... cross<<4>>(x) ...
//
// Each call with static arguments is a call of the instance `cross<<4>>`: a copy of the
// node whose static parameters are replaced by the argument's value, made once per
// distinct value (the Lustre V6 manual's "static instantiation"; Heptagon's compiler does
// the same). Instances are made from the calls of the other nodes, transitively (an
// instance's body may call another generic node with arguments built from its own
// parameters: `f<<m + 1>>`), so sizes such as `int^n` are concrete before records and
// arrays are flattened (sema/expand_aggregates). The generic declarations themselves are
// checked only through their instances (a generic node no one calls is not checked:
// warning `static.uninstantiated`).
//
// Static arguments are int (literals, int constants and + - * div mod of them), bool or
// real literals (or constants naming one). Errors: `static.not-static` (not such a value),
// `type.mismatch` (a value of another type), `arity.args` (a count that differs),
// `static.kind` (static arguments for a node without static parameters, or none for one
// with them), `static.eval` (more than 1000 instances: a recursion through them).
#pragma once
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

// Instantiates the generic nodes of p[first..] at their static arguments; returns whether
// any was met.
bool instantiate_statics(Program &p, size_t first, Diagnostics &diags);

}  // namespace rml
