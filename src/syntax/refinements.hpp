// Kind 2's refinement types, `type Nat = subtype { x: int | x >= 0 };` and `x: int | x >= 0`
// on a declaration: a refinement on a node's input is an assumption (so a caller's
// obligation at each call), on an output or a local a guarantee (Kind 2's reading: "an
// augmentation of the node's contract"). The parser hands each to the node's contract as
// an `assume` or `guarantee` item named `x:Nat` (`x:subtype` when written in place) and
// leaves the declaration its base type; the contract's expansion does the rest
// (syntax/contracts.hpp). A refinement on a record's field is an item of each variable of
// that record, on the field (`r.f:Nat`, its predicate reading `r.f`). Refinements inside
// arrays, groups, constants, `fun` parameters and contracts' own declarations are
// `syntax.unsupported`.
#pragma once
#include <map>

#include "syntax/ast.hpp"
#include "syntax/contracts.hpp"
#include "syntax/diag.hpp"

namespace rml {

void expand_refinements(Program &p, std::map<size_t, ContractBody> &bodies, const std::map<std::string, ContractDecl> &decls,
                         Diagnostics &diags);

}  // namespace rml
