#include "sema/expand_at_most_one.hpp"

#include "sema/rewrite.hpp"

namespace rml {
namespace {

void rewrite(ExprPtr &e) {
  for (auto &a : e->args) rewrite(a);
  if (e->kind != ExprKind::Call || e->name != "#" || e->statics != 0) {
    update_height(*e);
    return;
  }
  const Span s = e->span;
  std::vector<ExprPtr> terms;
  for (auto &a : e->args) {
    std::vector<ExprPtr> branch;
    branch.push_back(std::move(a));
    branch.push_back(mk_int(1, s));
    branch.push_back(mk_int(0, s));
    terms.push_back(make_expr(ExprKind::If, s, std::move(branch)));
  }
  if (terms.empty()) terms.push_back(mk_int(0, s));  // `#()`: no operand is true
  // Summed pairwise, so that many operands nest log2(n) deep, not n.
  while (terms.size() > 1) {
    std::vector<ExprPtr> next;
    for (size_t k = 0; k + 1 < terms.size(); k += 2) next.push_back(mk_binary(Op::Add, std::move(terms[k]), std::move(terms[k + 1]), s));
    if (terms.size() % 2) next.push_back(std::move(terms.back()));
    terms = std::move(next);
  }
  e = mk_binary(Op::Le, std::move(terms[0]), mk_int(1, s), s);
}

}  // namespace

void expand_at_most_one(Program &p, size_t first) {
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (!n) continue;
    rewrite_node_exprs(*n, rewrite);
  }
}

}  // namespace rml
