#include "syntax/any_values.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>

namespace rml {

namespace {

// The variables e reads that no `let` or lambda inside it binds, in first-read order.
void free_vars(const Expr &e, std::set<std::string> &hidden, std::vector<std::string> &out) {
  if (e.kind == ExprKind::Var) {
    if (!hidden.count(e.name) && std::find(out.begin(), out.end(), e.name) == out.end()) out.push_back(e.name);
    return;
  }
  for (size_t k = 0; k < e.args.size(); ++k) {
    std::vector<std::string> added;
    if ((e.kind == ExprKind::Let && k == 1) || e.kind == ExprKind::Lambda)
      for (auto &b : e.kind == ExprKind::Let ? std::vector<std::string>{e.name} : e.binders)
        if (hidden.insert(b).second) added.push_back(b);
    free_vars(*e.args[k], hidden, out);
    for (auto &b : added) hidden.erase(b);
  }
}

}  // namespace

void expand_any_values(Program &p, const std::vector<AnyValue> &anys, Diagnostics &d) {
  std::vector<Decl> made;
  int counter = 0;
  std::set<std::string> taken;
  for (auto &decl : p.decls) taken.insert(decl_name(decl));
  for (auto &decl : p.decls) {
    auto *n = std::get_if<NodeDecl>(&decl);
    if (!n) continue;
    std::map<std::string, const VarDecl *> declared;
    std::set<std::string> defined;  // by an equation, declared or not
    for (auto *list : {&n->inputs, &n->outputs, &n->locals, &n->statics})
      for (auto &v : *list) declared[v.name] = &v;
    for (auto &eq : n->equations)
      for (auto &l : eq.lhs) defined.insert(l.name);
    std::function<void(ExprPtr &)> walk = [&](ExprPtr &e) {
      for (auto &a : e->args) walk(a);
      if (e->kind != ExprKind::Call || e->name != kAnyCall) return;
      const AnyValue &a = anys.at(static_cast<size_t>(e->ival));
      NodeDecl m;
      do m.name = "$any" + std::to_string(++counter);
      while (taken.count(m.name));
      taken.insert(m.name);
      m.name_span = m.keyword_span = a.span;
      m.imported = true;
      m.lustre_style = m.has_let = true;
      VarDecl out;
      out.name = a.var;
      out.span = a.var_span;
      out.type = a.type.clone();
      m.outputs.push_back(std::move(out));
      std::set<std::string> hidden{a.var};
      std::vector<std::string> reads;
      free_vars(*a.pred, hidden, reads);
      std::vector<ExprPtr> args;
      for (auto &r : reads) {
        auto it = declared.find(r);
        if (it == declared.end()) {
          if (defined.count(r))
            d.error("syntax.unsupported", a.span,
                    "'any { " + a.var + ": ... | ... }' reads '" + r + "', a local without a declared type: declare it with 'var'");
          continue;  // a constant, or an enumeration's or a datatype's constructor
        }
        VarDecl in = it->second->clone();
        in.clock.clear();  // the call's inputs are on the clock where it is
        in.is_const = false;
        m.inputs.push_back(std::move(in));
        args.push_back(mk_var(r, e->span));
      }
      Assumption g;
      g.property = true;
      g.keyword = "guarantee";
      g.cond = a.pred->clone();
      g.span = a.pred->span;
      m.assumptions.push_back(std::move(g));
      Span s = e->span;
      uint32_t h = 0;
      for (auto &x : args) h = std::max(h, x->height);
      e = std::make_unique<Expr>(ExprKind::Call, s);
      e->name = m.name;
      e->args = std::move(args);
      e->height = h + 1;
      made.emplace_back(std::move(m));
    };
    for (auto &eq : n->equations) walk(eq.rhs);
    for (auto &as : n->assumptions) walk(as.cond);
    for (auto &r : n->resets) walk(r.cond);
  }
  for (auto &decl : p.decls) {  // outside a node: no cycle to be fresh at
    std::function<void(const Expr &)> refuse = [&](const Expr &e) {
      for (auto &a : e.args) refuse(*a);
      if (e.kind == ExprKind::Call && e.name == kAnyCall)
        d.error("syntax.unsupported", e.span, "'any { x: T | P }' is read in a node's body, not in a constant or a 'fun'");
    };
    if (auto *c = std::get_if<ConstDecl>(&decl); c && c->value) refuse(*c->value);
    if (auto *f = std::get_if<FunDecl>(&decl)) refuse(*f->body);
  }
  for (auto &m : made) p.decls.push_back(std::move(m));
}

}  // namespace rml
