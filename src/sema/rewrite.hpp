// What the passes that rewrite node bodies before type checking share
// (flatten_tuples, expand_aggregates, expand_condact): building expressions with their
// heights, and binding an expression to fresh variables by an equation of its own.
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "syntax/ast.hpp"

namespace rml {

// An expression of kind k over args, its height computed (the parser's finish() does
// the same for parsed ones).
ExprPtr make_expr(ExprKind k, Span s, std::vector<ExprPtr> args);
void update_height(Expr &e);

// `e when cond` (`when not` unless positive), at s.
ExprPtr mk_when(ExprPtr e, ExprPtr cond, bool positive, Span s);

// Appends the equation `($<prefix>1, .., $<prefix>n) = e;` to out (counter numbers the
// names; `$` makes them unlike any identifier) and returns the n names as variables.
std::vector<ExprPtr> bind_fresh(ExprPtr e, size_t n, const char *prefix, int &counter, std::vector<Equation> &out);

// Applies f to every expression of a node's body: its equations' right sides, its
// assumptions (assert, assume, check) and its reset blocks' conditions.
void rewrite_node_exprs(NodeDecl &n, const std::function<void(ExprPtr &)> &f);

// Whether e or one of its subexpressions satisfies `is`.
bool any_subexpr(const Expr &e, const std::function<bool(const Expr &)> &is);

// Applies f to each variable of e that no `let` or lambda of e binds, nor `hidden` holds
// (the names bound around e); f may replace the variable. Heights are kept up to date.
void rewrite_free_vars(ExprPtr &e, const std::function<void(ExprPtr &)> &f, std::set<std::string> &hidden);

// A static int of the Lustre passes (array sizes and indices, static arguments): int
// literals, global int constants (`consts`, unless `hidden` holds the name: a local of the
// body), + - * div mod and unary minus. Nothing else, and no overflow: otherwise nullopt.
std::optional<int64_t> static_int(const Expr &e, const std::map<std::string, const ConstDecl *> &consts,
                                  const std::set<std::string> *hidden = nullptr);

}  // namespace rml
