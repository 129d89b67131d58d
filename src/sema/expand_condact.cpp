#include "sema/expand_condact.hpp"

#include <algorithm>

#include "sema/rewrite.hpp"

namespace rml {
namespace {

ExprPtr sampled(ExprPtr e, const Expr &cond, bool positive) {
  Span s = e->span;
  return mk_when(std::move(e), cond.clone(), positive, s);
}

bool expandable(const Equation &eq) {
  const Expr &r = *eq.rhs;
  if (r.kind != ExprKind::Call || r.name != "condact" || r.args.size() < 3) return false;
  if (r.args[1]->kind != ExprKind::Call) return false;
  if (eq.lhs.size() != r.args.size() - 2) return false;
  return std::none_of(eq.lhs.begin(), eq.lhs.end(), [](const LhsItem &l) { return l.name == "_"; });
}

// Moves e into an equation `$condactN = e;` appended to out, leaving the variable in its
// place; returns the equation's index.
size_t bind_in_place(ExprPtr &e, std::vector<Equation> &out, int &fresh) {
  e = std::move(bind_fresh(std::move(e), 1, "condact", fresh, out)[0]);
  return out.size() - 1;
}

// A one-output condact inside an expression (`condact(c, N(x), 0) + 1`, `assert
// condact(true, P(x), true)`) moves to an equation of its own, which is then expanded.
void hoist(ExprPtr &e, bool top, std::vector<Equation> &out, int &fresh) {
  bool one = e->kind == ExprKind::Call && e->name == "condact" && e->args.size() == 3 &&
             e->args[1]->kind == ExprKind::Call;
  if (one && !top) {
    size_t k = bind_in_place(e, out, fresh);
    ExprPtr r = std::move(out[k].rhs);  // out grows while its arguments are hoisted
    hoist(r, true, out, fresh);
    out[k].rhs = std::move(r);
    return;
  }
  for (auto &a : e->args) hoist(a, false, out, fresh);
}

}  // namespace

bool expand_condact(Program &p, size_t first) {
  bool any = false;
  int fresh = 0;
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (!n) continue;
    std::vector<Equation> hoisted;
    for (auto &eq : n->equations) hoist(eq.rhs, true, hoisted, fresh);
    for (auto &a : n->assumptions) hoist(a.cond, false, hoisted, fresh);
    for (auto &h : hoisted) n->equations.push_back(std::move(h));
    std::vector<Equation> extra;
    for (auto &eq : n->equations) {
      if (!expandable(eq)) continue;
      any = true;
      Expr &r = *eq.rhs;
      Span at = r.span;
      ExprPtr cond = std::move(r.args[0]);
      if (cond->kind != ExprKind::Var) bind_in_place(cond, extra, fresh);  // computed once
      ExprPtr call = std::move(r.args[1]);
      for (auto &a : call->args) a = sampled(std::move(a), *cond, true);
      update_height(*call);
      std::vector<ExprPtr> held;
      for (size_t k = 0; k < eq.lhs.size(); ++k) {
        std::vector<ExprPtr> fby;
        fby.push_back(std::move(r.args[2 + k]));
        fby.push_back(mk_var(eq.lhs[k].name, eq.lhs[k].span));
        Span s = fby[0]->span;
        auto f = make_expr(ExprKind::Binary, s, std::move(fby));
        f->op = Op::Fby;
        held.push_back(sampled(std::move(f), *cond, false));
      }
      ExprPtr other = held.size() == 1 ? std::move(held[0]) : make_expr(ExprKind::Tuple, at, std::move(held));
      std::vector<ExprPtr> m;
      m.push_back(std::move(cond));
      m.push_back(std::move(call));
      m.push_back(std::move(other));
      eq.rhs = make_expr(ExprKind::Merge, at, std::move(m));
      eq.rhs->op_span = at;
    }
    for (auto &e : extra) n->equations.push_back(std::move(e));
  }
  return any;
}

}  // namespace rml
