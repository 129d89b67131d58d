// Lustre's type declarations, resolved before type checking: `type T = ...;`
// names an alias (of int, real, bool, another declared type, a subrange or a tensor
// type) or an enumeration (`enum { A, B }`, Heptagon's `A | B`).
//
// Every type written as a name (TypeSyntax::Named) in the checked program's declarations
// is replaced by what it denotes: the aliased type, `int` marked with the enumeration's
// name (`enum_name`), which the type checker turns into an enumeration type
// (sema/types.hpp), or the record type's own name (records are flattened next, by
// sema/expand_aggregates). The enumerations and their constructors go to cp.enums and
// cp.enum_ctors. Errors: an unknown type name (`name.unknown`); a type declared twice, or
// a constructor named like another constructor or a constant (`name.duplicate`: types
// have their own scope, constructors share the constants'); an alias that refers to
// itself (`type.recursive`).
#pragma once
#include "sema/typecheck.hpp"
#include "syntax/diag.hpp"

namespace rml {

void resolve_type_decls(CheckedProgram &cp, Diagnostics &diags);

}  // namespace rml
