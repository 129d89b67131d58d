// Lustre V6's `#(e1, .., en)`, "at most one of the ei is true" (Lustre V6 manual, the
// n-ary boolean operators), rewritten before type checking into
//
//   (if e1 then 1 else 0) + .. + (if en then 1 else 0) <= 1   (the sum paired, log2(n) deep)
//
// which the oracle and rml-check read exactly (ints). `rml fmt` prints `#(..)` as written.
// A user declaration cannot be named `#`, so every call of `#` is the operator.
#pragma once
#include "syntax/ast.hpp"

namespace rml {

// Rewrites the `#(..)` of the node declarations of p[first..].
void expand_at_most_one(Program &p, size_t first);

}  // namespace rml
