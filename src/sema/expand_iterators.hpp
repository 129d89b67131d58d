// The array iterators of Lustre V6 and Heptagon, expanded before the arrays are
// flattened (sema/expand_aggregates) into what that pass reads: array literals, static
// indices and calls. The size is a static int (after sema/instantiate_statics). With f a
// node or function name, or in Heptagon an operator in parentheses (`(+)`):
//
//   map<<n>> f (a1, .., ak)        (Heptagon)     = [f(a1[0], .., ak[0]), .., f(a1[n-1], .., ak[n-1])]
//   map<<f, n>>(a1, .., ak)        (Lustre V6)    = the same
//   mapi<<n>> f (a1, .., ak)       (Heptagon)     = [f(a1[0], .., ak[0], 0), .., f(.., n-1)]
//   fold<<n>> f (a1, .., ak, acc)  (Heptagon)     = acc' where acc(i+1) = f(a1[i], .., ak[i], acc(i))
//   foldi<<n>> f (a1, .., ak, acc) (Heptagon)     = acc' where acc(i+1) = f(a1[i], .., ak[i], i, acc(i))
//   red<<f, n>>(acc, a1, .., ak)   (Lustre V6)    = acc' where acc(i+1) = f(acc(i), a1[i], .., ak[i])
//   fill<<f, n>>(acc)              (Lustre V6)    = (acc', [y(0), .., y(n-1)]) where (acc(i+1), y(i)) = f(acc(i))
//   fillred<<f, n>>(acc, a1, ..)   (Lustre V6)    = (acc', [y(0), ..]) where (acc(i+1), y(i)) = f(acc(i), a1[i], ..)
//   mapfold<<n>> f (a1, .., acc)   (Heptagon)     = ([y(0), ..], acc') where (y(i), acc(i+1)) = f(a1[i], .., acc(i))
//
// (f may return several values y: one array each.) The applications of the last three
// are bound by equations of fresh variables `$fill1..` appended to the node, since f
// returns a tuple.
//
// (Heptagon manual §"iterators"; Lustre V6 manual §"array iterators".) An argument that is
// an expression is repeated at each index: a node is deterministic, so its copies compute
// the same values. Heptagon's multi-size forms are refused
// (syntax.unsupported), as is a Lustre V6 form whose name a declaration of the program takes;
// a fold whose nested applications would pass the parser's expression height (512) is
// refused (static.eval).
#pragma once
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

// Whether a call `name<<f, n>>(..)` is read as Lustre V6's iterator (unless a node of the
// program takes the name).
bool is_lustre_iterator(const std::string &name);

// Expands the iterators of the node declarations of p[first..].
void expand_iterators(Program &p, size_t first, Diagnostics &diags);

}  // namespace rml
