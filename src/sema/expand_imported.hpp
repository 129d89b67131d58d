// Lustre's free constants, read as imported functions, before anything else of
// the front end: `const c: t;` declares a value fixed for the whole run that the program
// does not give (Lustre V6 manual §"constants", Kind 2's free constants). It is the
// nullary imported function `c` — an outside function of no input is one value — so the
// declaration becomes `imported function c() returns (c: t);` (NodeDecl::free_const, printed
// back as written by `rml fmt`, which prints the user's AST) and each use of the name `c`
// in a node, where no variable of the node or binder hides it, becomes the call `c()`.
//
// Imported nodes and functions themselves need no rewriting: they are NodeDecls without a
// body (NodeDecl::imported), checked by their signature and applied by elaboration
// (core::ApplyOp::Imported). This pass also refuses what they cannot have: declared clocks
// on their interface.
#pragma once
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

// Rewrites the free constants of p[first..] and checks its imported nodes.
void expand_imported(Program &p, size_t first, Diagnostics &diags);

}  // namespace rml
