#include "sema/rewrite.hpp"

#include <algorithm>

namespace rml {

void update_height(Expr &e) {
  uint32_t h = 0;
  for (auto &a : e.args) h = std::max(h, a->height);
  e.height = h + 1;
}

ExprPtr make_expr(ExprKind k, Span s, std::vector<ExprPtr> args) {
  auto e = std::make_unique<Expr>(k, s);
  e->args = std::move(args);
  update_height(*e);
  return e;
}

std::vector<ExprPtr> bind_fresh(ExprPtr e, size_t n, const char *prefix, int &counter, std::vector<Equation> &out) {
  Equation eq;
  eq.span = e->span;
  std::vector<ExprPtr> vars;
  for (size_t k = 0; k < n; ++k) {
    std::string v = std::string("$") + prefix + std::to_string(++counter);
    eq.lhs.push_back(LhsItem{v, e->span});
    vars.push_back(mk_var(v, e->span));
  }
  eq.rhs = std::move(e);
  out.push_back(std::move(eq));
  return vars;
}

}  // namespace rml
