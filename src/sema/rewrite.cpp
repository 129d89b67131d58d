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

namespace {
std::optional<int64_t> eval_int(const Expr &e, const std::map<std::string, const ConstDecl *> &consts,
                                const std::set<std::string> *hidden, std::set<std::string> &evaluating) {
  switch (e.kind) {
    case ExprKind::IntLit: return e.ival;
    case ExprKind::Var: {
      auto it = consts.find(e.name);
      if ((hidden && hidden->count(e.name)) || it == consts.end() || !it->second->value) break;
      if (!evaluating.insert(e.name).second) break;  // a cycle of constants is not static
      auto v = eval_int(*it->second->value, consts, nullptr, evaluating);
      evaluating.erase(e.name);
      return v;
    }
    case ExprKind::Unary:
      if (e.op == Op::Neg)
        if (auto a = eval_int(*e.args[0], consts, hidden, evaluating); a && *a != INT64_MIN) return -*a;
      break;
    case ExprKind::Binary: {
      auto a = eval_int(*e.args[0], consts, hidden, evaluating);
      auto b = a ? eval_int(*e.args[1], consts, hidden, evaluating) : std::nullopt;
      if (!b) break;
      int64_t r = 0;
      switch (e.op) {
        case Op::Add: if (__builtin_add_overflow(*a, *b, &r)) return std::nullopt; return r;
        case Op::Sub: if (__builtin_sub_overflow(*a, *b, &r)) return std::nullopt; return r;
        case Op::Mul: if (__builtin_mul_overflow(*a, *b, &r)) return std::nullopt; return r;
        case Op::Div:
        case Op::IntDiv:
        case Op::Mod:
          if (*b == 0 || (*a == INT64_MIN && *b == -1)) return std::nullopt;
          return e.op == Op::Mod ? *a % *b : *a / *b;
        default: break;
      }
      break;
    }
    default: break;
  }
  return std::nullopt;
}
}  // namespace

std::optional<int64_t> static_int(const Expr &e, const std::map<std::string, const ConstDecl *> &consts,
                                  const std::set<std::string> *hidden) {
  std::set<std::string> evaluating;
  return eval_int(e, consts, hidden, evaluating);
}

void rewrite_node_exprs(NodeDecl &n, const std::function<void(ExprPtr &)> &f) {
  for (auto &eq : n.equations) f(eq.rhs);
  for (auto &a : n.assumptions) f(a.cond);
  for (auto &b : n.resets) f(b.cond);
}

bool any_subexpr(const Expr &e, const std::function<bool(const Expr &)> &is) {
  if (is(e)) return true;
  for (auto &a : e.args)
    if (any_subexpr(*a, is)) return true;
  return false;
}

void rewrite_free_vars(ExprPtr &e, const std::function<void(ExprPtr &)> &f, std::set<std::string> &hidden) {
  if (e->kind == ExprKind::Var) {
    if (!hidden.count(e->name)) f(e);
    return;
  }
  if (e->kind == ExprKind::Let && e->args.size() == 2) {  // let name = args[0] in args[1]
    rewrite_free_vars(e->args[0], f, hidden);
    bool added = hidden.insert(e->name).second;
    rewrite_free_vars(e->args[1], f, hidden);
    if (added) hidden.erase(e->name);
  } else if (e->kind == ExprKind::Lambda) {
    std::vector<std::string> added;
    for (auto &b : e->binders)
      if (hidden.insert(b).second) added.push_back(b);
    for (auto &a : e->args) rewrite_free_vars(a, f, hidden);
    for (auto &b : added) hidden.erase(b);
  } else {
    for (auto &a : e->args) rewrite_free_vars(a, f, hidden);
  }
  update_height(*e);
}

ExprPtr mk_when(ExprPtr e, ExprPtr cond, bool positive, Span s) {
  std::vector<ExprPtr> a;
  a.push_back(std::move(e));
  a.push_back(std::move(cond));
  auto w = make_expr(ExprKind::When, s, std::move(a));
  w->positive = positive;
  w->op_span = s;
  return w;
}

}  // namespace rml
