#include "sema/instantiate_statics.hpp"

#include "sema/expand_iterators.hpp"

#include <deque>
#include <functional>
#include <map>
#include <set>

#include "sema/rewrite.hpp"
#include "syntax/printer.hpp"

namespace rml {
namespace {

constexpr size_t kMaxInstances = 1000;

struct Instantiator {
  Program &p;
  Diagnostics &d;
  std::map<std::string, const ConstDecl *> consts;
  std::map<std::string, size_t> generic;        // name -> index in p.decls
  std::map<std::string, std::string> made;      // instance name -> the generic node
  std::vector<NodeDecl> instances;
  std::deque<size_t> work;                      // indices into instances to scan

  // The value of a static argument for a parameter of type t, as a literal; null after
  // an error (reported).
  ExprPtr value(const Expr &a, const TypeSyntax &t) {
    const Expr *e = &a;
    std::set<std::string> seen;
    while (e->kind == ExprKind::Var && consts.count(e->name) && consts.at(e->name)->value && seen.insert(e->name).second)
      e = consts.at(e->name)->value.get();
    Scalar want = t.kind == TypeSyntax::Tensor && t.dims.empty() ? t.scalar : Scalar::Real;
    bool scalar = t.kind == TypeSyntax::Tensor && t.dims.empty() && t.enum_name.empty();
    if (!scalar) {
      d.error("static.kind", t.span, "a static parameter in '<<...>>' has type int, bool or real");
      return nullptr;
    }
    if (want == Scalar::Int) {
      if (auto v = static_int(a, consts)) return mk_int(*v, a.span);
      if (e->kind == ExprKind::BoolLit || e->kind == ExprKind::RealLit) {
        d.error("type.mismatch", a.span, "this static argument is not an int, but the parameter is");
        return nullptr;
      }
    } else if (want == Scalar::Bool && e->kind == ExprKind::BoolLit) {
      return mk_bool(e->bval, a.span);
    } else if (want == Scalar::Real && e->kind == ExprKind::RealLit) {
      return mk_real(e->rval, a.span);
    } else if (want == Scalar::Real && e->kind == ExprKind::Unary && e->op == Op::Neg && e->args[0]->kind == ExprKind::RealLit) {
      return mk_real(-e->args[0]->rval, a.span);
    } else if (e->kind == ExprKind::IntLit || e->kind == ExprKind::BoolLit || e->kind == ExprKind::RealLit) {
      d.error("type.mismatch", a.span, std::string("this static argument is not a ") + scalar_name(want) + ", but the parameter is");
      return nullptr;
    }
    d.error("static.not-static", a.span,
            "a static argument must be an int (literals, int constants and + - * div mod of them) or a bool or real literal or constant");
    return nullptr;
  }

  // Replaces the static parameters by their values in an expression.
  static void subst(ExprPtr &e, const std::map<std::string, const Expr *> &s) {
    if (e->kind == ExprKind::Var) {
      if (auto it = s.find(e->name); it != s.end()) {
        Span at = e->span;
        e = it->second->clone();
        e->span = at;
      }
      return;
    }
    for (auto &a : e->args) subst(a, s);
    update_height(*e);
  }
  static void subst(TypeSyntax &t, const std::map<std::string, const Expr *> &s) {
    for (auto &dim : t.dims)
      if (dim.expr) subst(dim.expr, s);
    if (t.range_lo) subst(t.range_lo, s);
    if (t.range_hi) subst(t.range_hi, s);
    for (auto &el : t.elem) subst(el, s);
  }

  // The call of a generic node in a body: made a call of its instance.
  void call(Expr &e) {
    auto g = generic.find(e.name);
    // An iterator's `<<..>>` are its function and size, expanded next (sema/expand_iterators).
    if (!e.binders.empty() || (g == generic.end() && is_lustre_iterator(e.name) && e.statics == 2)) return;
    if (e.statics == 0) {
      if (g != generic.end())
        d.error("static.kind", e.span, "'" + e.name + "' has static parameters: call it as '" + e.name + "<<...>>(...)'");
      return;
    }
    if (g == generic.end()) {
      d.error("static.kind", e.span, "'" + e.name + "' is not a node with static parameters ('<<...>>')");
      return;
    }
    const NodeDecl &gn = std::get<NodeDecl>(p.decls[g->second]);
    if (gn.statics.size() != e.statics) {
      d.error("arity.args", e.span, "'" + e.name + "' takes " + std::to_string(gn.statics.size()) + " static argument(s), but " +
                                        std::to_string(e.statics) + " are given");
      return;
    }
    std::vector<ExprPtr> values;
    std::string key = e.name + "<<";
    for (size_t k = 0; k < e.statics; ++k) {
      ExprPtr v = gn.statics[k].type ? value(*e.args[k], *gn.statics[k].type) : nullptr;
      if (!gn.statics[k].type) d.error("type.missing", gn.statics[k].span, "a static parameter needs a type");
      if (!v) return;
      key += (k ? ", " : "") + print_expr(*v);
      values.push_back(std::move(v));
    }
    key += ">>";
    if (!made.count(key)) {
      if (made.size() >= kMaxInstances) {
        d.error("static.eval", e.span, "more than 1000 instances of nodes with static parameters (a recursion through them?)");
        return;
      }
      made[key] = e.name;
      std::map<std::string, const Expr *> s;
      for (size_t k = 0; k < values.size(); ++k) s[gn.statics[k].name] = values[k].get();
      Decl copy = clone_decl(p.decls[g->second]);
      NodeDecl inst = std::move(std::get<NodeDecl>(copy));
      inst.name = key;
      inst.statics.clear();
      for (auto *vs : {&inst.inputs, &inst.outputs, &inst.locals})
        for (auto &v : *vs)
          if (v.type) subst(*v.type, s);
      for (auto &eq : inst.equations) subst(eq.rhs, s);
      for (auto &a : inst.assumptions) subst(a.cond, s);
      instances.push_back(std::move(inst));
      work.push_back(instances.size() - 1);
    }
    e.name = key;
    e.args.erase(e.args.begin(), e.args.begin() + e.statics);
    e.statics = 0;
  }
  void scan(Expr &e) {
    for (auto &a : e.args) scan(*a);
    if (e.kind == ExprKind::Call) call(e);
  }
  void scan(NodeDecl &n) {
    for (auto &eq : n.equations) scan(*eq.rhs);
    for (auto &a : n.assumptions) scan(*a.cond);
  }
};

bool has_static_call(const Expr &e) {
  return any_subexpr(e, [](const Expr &x) { return x.kind == ExprKind::Call && x.statics > 0; });
}

}  // namespace

bool instantiate_statics(Program &p, size_t first, Diagnostics &diags) {
  Instantiator I{p, diags, {}, {}, {}, {}, {}};
  bool any = false;
  for (size_t i = first; i < p.decls.size(); ++i) {
    if (auto *c = std::get_if<ConstDecl>(&p.decls[i])) {
      I.consts[c->name] = c;
      if (c->value && has_static_call(*c->value)) {
        diags.error("static.kind", c->name_span, "a constant cannot call a node");
        any = true;
      }
    } else if (auto *n = std::get_if<NodeDecl>(&p.decls[i]); n && !n->statics.empty()) {
      I.generic[n->name] = i;
      any = true;
      // A variable named like a static parameter would be replaced by its value too.
      for (auto &st : n->statics)
        for (auto *vs : {&n->inputs, &n->outputs, &n->locals})
          for (auto &v : *vs)
            if (v.name == st.name) {
              diags.error("name.duplicate", v.span, "'" + v.name + "' is already a static parameter of '" + n->name + "'");
              diags.note(st.span, "declared here");
            }
      for (auto &st : n->statics)
        for (auto &eq : n->equations)
          for (auto &l : eq.lhs)
            if (l.name == st.name) diags.error("name.redefined", l.span, "'" + l.name + "' is a static parameter of '" + n->name + "': it has no equation");
    } else if (auto *f = std::get_if<FunDecl>(&p.decls[i]); f && has_static_call(*f->body)) {
      diags.error("static.kind", f->name_span, "a 'fun' body cannot call nodes with static parameters");
      any = true;
    }
  }
  for (size_t i = first; i < p.decls.size(); ++i)
    if (auto *n = std::get_if<NodeDecl>(&p.decls[i]); n && n->statics.empty()) {
      bool calls = false;
      for (auto &eq : n->equations) calls |= has_static_call(*eq.rhs);
      for (auto &a : n->assumptions) calls |= has_static_call(*a.cond);
      if (calls || !I.generic.empty()) I.scan(*n);
      any |= calls;
    }
  while (!I.work.empty()) {
    size_t k = I.work.front();
    I.work.pop_front();
    NodeDecl n = std::move(I.instances[k]);  // scanning may add instances (the vector grows)
    I.scan(n);
    I.instances[k] = std::move(n);
  }
  if (!any) return false;
  // A generic node no one instantiates is not checked: said, so a library of generic
  // nodes is not mistaken for a checked one.
  std::set<std::string> used;
  for (auto &[inst, gen] : I.made) used.insert(gen);
  for (auto &[name, i] : I.generic)
    if (!used.count(name))
      diags.warning("static.uninstantiated", std::get<NodeDecl>(p.decls[i]).name_span,
                    "'" + name + "' has static parameters and no instance here: its body is not checked");
  // The generic declarations are replaced by their instances.
  std::vector<Decl> out;
  for (size_t i = 0; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (i >= first && n && !n->statics.empty()) continue;
    out.push_back(std::move(p.decls[i]));
  }
  for (auto &n : I.instances) out.emplace_back(std::move(n));
  p.decls = std::move(out);
  return true;
}

}  // namespace rml
