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
  ExprPtr count;
  for (auto &a : e->args) {
    std::vector<ExprPtr> branch;
    branch.push_back(std::move(a));
    branch.push_back(mk_int(1, s));
    branch.push_back(mk_int(0, s));
    ExprPtr one = make_expr(ExprKind::If, s, std::move(branch));
    count = count ? mk_binary(Op::Add, std::move(count), std::move(one), s) : std::move(one);
  }
  if (!count) count = mk_int(0, s);  // `#()`: no operand is true
  e = mk_binary(Op::Le, std::move(count), mk_int(1, s), s);
}

}  // namespace

void expand_at_most_one(Program &p, size_t first) {
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (!n) continue;
    for (auto &eq : n->equations) rewrite(eq.rhs);
    for (auto &a : n->assumptions) rewrite(a.cond);
    for (auto &b : n->resets) rewrite(b.cond);
  }
}

}  // namespace rml
