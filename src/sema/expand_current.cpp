#include "sema/expand_current.hpp"

#include <map>

#include "sema/rewrite.hpp"

namespace rml {
namespace {

struct CurrentExpander {
  Diagnostics &diags;
  std::map<std::string, const ClockSyntax *> clock_of;  // the node's variables declared on a clock: the innermost
  std::vector<Equation> bound;
  int fresh = 0;

  void rewrite(ExprPtr &e) {
    for (auto &a : e->args) rewrite(a);
    update_height(*e);
    if (e->kind != ExprKind::Call || e->name != "current" || e->statics != 0) return;
    const Span s = e->span;
    if (e->args.size() != 1) {
      diags.error("arity.args", s, "'current' takes one operand");
      return;
    }
    const Expr &x = *e->args[0];
    std::string c;
    bool positive = true;
    if (x.kind == ExprKind::When && x.args[1]->kind == ExprKind::Var) {
      c = x.args[1]->name;
      positive = x.positive;
    } else if (x.kind == ExprKind::Var && clock_of.count(x.name)) {
      c = clock_of.at(x.name)->condition();
      positive = clock_of.at(x.name)->positive;
    } else {
      diags.error("syntax.unsupported", s,
                  "rml reads 'current' of a variable declared on a clock ('x: t when c') or of 'e when c': the clock of this "
                  "operand is not written");
      return;
    }
    // $current = merge c x ((pre $current) when not c), the branches swapped for `when not c`.
    std::vector<ExprPtr> names = bind_fresh(mk_int(0, s), 1, "current", fresh, bound);
    const std::string self = names[0]->name;
    ExprPtr held = mk_when(mk_unary(Op::Pre, mk_var(self, s), s), mk_var(c, s), !positive, s);
    std::vector<ExprPtr> m;
    m.push_back(mk_var(c, s));
    m.push_back(positive ? std::move(e->args[0]) : std::move(held));
    m.push_back(positive ? std::move(held) : std::move(e->args[0]));
    bound.back().rhs = make_expr(ExprKind::Merge, s, std::move(m));
    e = std::move(names[0]);
  }
};

}  // namespace

void expand_current(Program &p, size_t first, Diagnostics &diags) {
  for (auto &d : p.decls)
    if (decl_name(d) == "current") return;  // the user's node: `current(e)` calls it
  CurrentExpander x{diags, {}, {}, 0};
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (!n) continue;
    x.clock_of.clear();
    for (auto *vs : {&n->inputs, &n->outputs, &n->locals})
      for (auto &v : *vs)
        if (!v.clock.empty()) x.clock_of[v.name] = &v.clock.back();
    rewrite_node_exprs(*n, [&](ExprPtr &e) { x.rewrite(e); });
    for (auto &eq : x.bound) n->equations.push_back(std::move(eq));
    x.bound.clear();
  }
}

}  // namespace rml
