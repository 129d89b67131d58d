// Kind 2's type arguments, instantiated before the type declarations are resolved:
//
//   node Poly<T>(x: T) returns (y: T) ...       (in its types T is the type variable 'T)
//   ... Poly@<int>(x) ... Poly(r) ... any@<bool> ...
//
// A call with type arguments is a call of the instance `Poly@<int>`: a copy of the node
// whose type variables are the arguments (Kind 2 monomorphises so), made once per distinct
// list of arguments as printed, and transitively (an instance's body may call
// `Q@<T>(...)` with its own parameter, concrete once copied: in the generic node's own
// body such a call stays a call of the polymorphic Q). The call is then checked
// against the instance's signature, so an argument of another type is a `type.mismatch`,
// as Kind 2 says. A call without type arguments stays a call of the generic node itself,
// which is polymorphic as any node with type variables is (its types inferred at each
// call), and is checked on its own.
//
// `any@<T>` is a value of T the program does not fix, a fresh one at each cycle and at each
// occurrence (Kind 2's `any`): a call of the imported node `any@<T>` (no input, one output
// of type T), which rml-check leaves free at every cycle and the oracle reads from the
// trace, as for any imported node (README, "Lustre as rml reads it").
//
// Errors: type arguments for a node without type parameters (`static.kind`), a count of
// them that differs (`arity.args`), `any` of a type parameter (`syntax.unsupported`: its
// node would have no input to fix the type), more than 1000 instances (`static.eval`).
#pragma once
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

// Instantiates the calls with type arguments in p[first..]; the generic nodes stay.
void instantiate_types(Program &p, size_t first, Diagnostics &diags);

}  // namespace rml
