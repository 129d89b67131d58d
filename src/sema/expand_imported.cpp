#include "sema/expand_imported.hpp"

#include <set>

#include "sema/rewrite.hpp"

namespace rml {
namespace {

// The first use of a name of `free` in e that no binder of `hidden`, let or lambda hides.
const Expr *first_use(const Expr &e, const std::set<std::string> &free, std::set<std::string> hidden) {
  if (e.kind == ExprKind::Var && free.count(e.name) && !hidden.count(e.name)) return &e;
  if (e.kind == ExprKind::Let && e.args.size() == 2) {
    if (auto *u = first_use(*e.args[0], free, hidden)) return u;
    hidden.insert(e.name);
    return first_use(*e.args[1], free, hidden);
  }
  if (e.kind == ExprKind::Lambda) hidden.insert(e.binders.begin(), e.binders.end());
  for (auto &a : e.args)
    if (auto *u = first_use(*a, free, hidden)) return u;
  return nullptr;
}

// Replaces every free use of a name of `free` in e by the nullary call; `hidden` holds the
// names bound around e (the node's variables, let and lambda binders).
void rewrite_uses(ExprPtr &e, const std::set<std::string> &free, std::set<std::string> &hidden) {
  rewrite_free_vars(
      e,
      [&](ExprPtr &v) {
        if (!free.count(v->name)) return;
        auto call = make_expr(ExprKind::Call, v->span, {});
        call->name = v->name;
        v = std::move(call);
      },
      hidden);
}

}  // namespace

void expand_imported(Program &p, size_t first, Diagnostics &diags) {
  std::set<std::string> free;
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *c = std::get_if<ConstDecl>(&p.decls[i]);
    if (!c || c->value || !c->type) continue;
    NodeDecl n;
    n.name = c->name;
    n.name_span = c->name_span;
    n.keyword_span = c->name_span;
    n.is_function = true;
    n.lustre_style = true;
    n.imported = true;
    VarDecl out;
    out.name = c->name;
    out.span = c->name_span;
    out.type = c->type->clone();
    n.outputs.push_back(std::move(out));
    free.insert(c->name);
    p.decls[i] = std::move(n);
  }
  // A free constant is a value of the run, not of the program text: no constant's value
  // and no fun (a function of its arguments alone) can read it.
  auto refuse_in = [&](const Expr *e, const char *where, std::set<std::string> hidden = {}) {
    if (const Expr *u = e ? first_use(*e, free, std::move(hidden)) : nullptr)
      diags.error("static.not-static", u->span,
                  "'" + u->name + "' is a free constant (declared without a value, fixed for a run): " + where +
                      " cannot read it; read it in a node");
  };
  for (size_t i = first; i < p.decls.size(); ++i) {
    if (free.empty()) break;
    if (auto *c = std::get_if<ConstDecl>(&p.decls[i])) refuse_in(c->value.get(), "a constant's value");
    if (auto *fd = std::get_if<FunDecl>(&p.decls[i])) {
      std::set<std::string> params;
      for (auto &v : fd->params) params.insert(v.name);
      refuse_in(fd->body.get(), "a 'fun'", params);
    }
  }
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (!n) continue;
    if (n->imported) {
      for (auto *vs : {&n->inputs, &n->outputs})
        for (auto &v : *vs)
          if (!v.clock.empty())
            diags.error("syntax.unsupported", v.clock[0].span,
                        "a declared clock on the interface of an imported node ('" + n->name +
                            "' has no body: its outputs are on the clock of its inputs)");
      continue;
    }
    if (free.empty()) continue;
    std::set<std::string> hidden;
    for (auto *vs : {&n->inputs, &n->outputs, &n->locals, &n->statics})
      for (auto &v : *vs) hidden.insert(v.name);
    for (auto &eq : n->equations)  // rml infers the locals its equations define
      for (auto &l : eq.lhs) hidden.insert(l.name);
    for (auto &eq : n->equations) rewrite_uses(eq.rhs, free, hidden);
    for (auto &b : n->resets) rewrite_uses(b.cond, free, hidden);
    for (auto &a : n->assumptions) rewrite_uses(a.cond, free, hidden);
  }
}

}  // namespace rml
