// Kind 2's and JKind's activation condition `condact(c, N(args), d1, ..., dn)`, expanded
// before type checking: where the bool c is true, the instance of N runs on the
// arguments sampled on c; where c is false, the outputs hold their previous values, d
// before the first activation:
//
//   (o1, .., on) = condact(c, N(a1, .., ak), d1, .., dn);
//     is
//   (o1, .., on) = merge c (N(a1 when c, .., ak when c))
//                          ((d1 fby o1) when not c, .., (dn fby on) when not c);
//
// (sema/flatten_tuples then applies the merge componentwise). A condition that is not a
// name is computed once into a fresh variable. A whole right side is expanded when it has
// as many named left-hand variables as defaults; a one-output condact inside an
// expression or an `assert` first moves to an equation of its own (a fresh variable);
// any other `condact` (several outputs inside an expression) is left to the type checker,
// which reports it (`syntax.unsupported`).
#pragma once
#include "syntax/ast.hpp"

namespace rml {

// Expands the condacts of the node declarations of p[first..]; returns whether any.
bool expand_condact(Program &p, size_t first);

}  // namespace rml
