// What the passes that rewrite node bodies before type checking share
// (flatten_tuples, expand_records, expand_condact): building expressions with their
// heights, and binding an expression to fresh variables by an equation of its own.
#pragma once
#include <string>
#include <vector>

#include "syntax/ast.hpp"

namespace rml {

// An expression of kind k over args, its height computed (the parser's finish() does
// the same for parsed ones).
ExprPtr make_expr(ExprKind k, Span s, std::vector<ExprPtr> args);
void update_height(Expr &e);

// Appends the equation `($<prefix>1, .., $<prefix>n) = e;` to out (counter numbers the
// names; `$` makes them unlike any identifier) and returns the n names as variables.
std::vector<ExprPtr> bind_fresh(ExprPtr e, size_t n, const char *prefix, int &counter, std::vector<Equation> &out);

}  // namespace rml
