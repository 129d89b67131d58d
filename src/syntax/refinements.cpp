#include "syntax/refinements.hpp"

#include <algorithm>
#include <functional>
#include <set>

namespace rml {
namespace {

struct Found {
  const Refinement *r;
  std::string type_name;  // the declared type it came through; "" written in place
};

class Refinements {
 public:
  Refinements(Program &p, Diagnostics &d) : p_(p), d_(d) {
    for (auto &decl : p.decls)
      if (auto *t = std::get_if<TypeDecl>(&decl); t && t->alias) aliases_[t->name] = &*t->alias;
  }

  // The refinements a value of type t must meet: t's own, then its alias's, recursively.
  std::vector<Found> chain(const TypeSyntax &t, const std::string &via = "") {
    std::vector<Found> out;
    for (auto &r : t.refinements) out.push_back(Found{r.get(), via});
    if (t.kind == TypeSyntax::Named) {
      auto it = aliases_.find(t.name);
      if (it != aliases_.end() && visiting_.insert(t.name).second) {
        for (auto &f : chain(*it->second, t.name)) out.push_back(f);
        visiting_.erase(t.name);
      }
    }
    return out;
  }
  // Whether a refinement hides inside t (an array's elements, a group's components).
  bool refined_inside(const TypeSyntax &t) {
    for (auto &e : t.elem)
      if (!chain(e).empty() || refined_inside(e)) return true;
    if (t.kind == TypeSyntax::Named) {
      auto it = aliases_.find(t.name);
      if (it != aliases_.end() && visiting_.insert(t.name).second) {
        bool in = refined_inside(*it->second);
        visiting_.erase(t.name);
        return in;
      }
    }
    return false;
  }
  void unsupported(Span s, const std::string &where) {
    d_.error("syntax.unsupported", s, "a refinement type " + where + " is not read by rml (on a node's inputs, outputs and locals it is)");
  }
  void refuse_in(const TypeSyntax &t, Span s, const std::string &where) {
    if (!chain(t).empty() || refined_inside(t)) unsupported(s, where);
  }

  void run(std::map<size_t, ContractBody> &bodies, const std::map<std::string, ContractDecl> &decls) {
    for (auto &[name, c] : decls) {
      for (auto *vs : {&c.inputs, &c.outputs})
        for (auto &v : *vs)
          if (v.type) refuse_in(*v.type, v.span, "on a contract's parameter");
      for (auto &it : c.body.items)
        if (it.type) refuse_in(*it.type, it.name_span, "on a contract's ghost");
    }
    for (size_t k = 0; k < p_.decls.size(); ++k) {
      auto &decl = p_.decls[k];
      if (auto *n = std::get_if<NodeDecl>(&decl)) {
        node(*n, k, bodies);
      } else if (auto *c = std::get_if<ConstDecl>(&decl)) {
        if (c->type) refuse_in(*c->type, c->name_span, "on a constant");
      } else if (auto *f = std::get_if<FunDecl>(&decl)) {
        for (auto &v : f->params)
          if (v.type) refuse_in(*v.type, v.span, "on a 'fun' parameter");
        refuse_in(f->result, f->name_span, "on a 'fun' result");
      } else if (auto *t = std::get_if<TypeDecl>(&decl)) {
        for (auto &v : t->fields)
          if (v.type) refuse_in(*v.type, v.span, "on a record field");
        if (t->alias && refined_inside(*t->alias)) unsupported(t->name_span, "inside an array or a group");
      }
    }
    for (auto &[k, body] : bodies)
      for (auto &it : body.items)
        if (it.type && (!chain(*it.type).empty() || refined_inside(*it.type))) unsupported(it.name_span, "on a contract's ghost");
    // The declarations keep their base types (an alias of a refinement is its base type).
    for (auto &decl : p_.decls) {
      if (auto *n = std::get_if<NodeDecl>(&decl)) {
        for (auto *vs : {&n->inputs, &n->outputs, &n->locals, &n->statics})
          for (auto &v : *vs)
            if (v.type) strip(*v.type);
      } else if (auto *t = std::get_if<TypeDecl>(&decl); t && t->alias) {
        strip(*t->alias);
      }
    }
  }

 private:
  Program &p_;
  Diagnostics &d_;
  std::map<std::string, const TypeSyntax *> aliases_;
  std::set<std::string> visiting_;

  static void strip(TypeSyntax &t) {
    t.refinements.clear();
    for (auto &e : t.elem) strip(e);
  }
  // P with its bound name read as the declared variable.
  static ExprPtr bind(const Expr &e, const std::string &from, const std::string &to) {
    ExprPtr out = e.clone();
    if (from.empty() || from == to) return out;
    std::function<void(Expr &, bool)> walk = [&](Expr &x, bool shadowed) {
      if (x.kind == ExprKind::Var && x.name == from && !shadowed) x.name = to;
      for (size_t k = 0; k < x.args.size(); ++k) {
        bool sh = shadowed || (x.kind == ExprKind::Let && k == 1 && x.name == from) ||
                  (x.kind == ExprKind::Lambda && std::find(x.binders.begin(), x.binders.end(), from) != x.binders.end());
        walk(*x.args[k], sh);
      }
    };
    walk(*out, false);
    return out;
  }

  void node(NodeDecl &n, size_t k, std::map<size_t, ContractBody> &bodies) {
    for (auto &v : n.statics)
      if (v.type) refuse_in(*v.type, v.span, "on a static parameter");
    auto add = [&](const std::vector<VarDecl> &vs, ContractItem::Kind kind) {
      for (auto &v : vs) {
        if (!v.type) continue;
        if (refined_inside(*v.type)) {
          unsupported(v.span, "inside an array or a group");
          continue;
        }
        for (auto &f : chain(*v.type)) {
          ContractItem it;
          it.kind = kind;
          it.refinement = true;
          it.span = f.r->pred->span;
          it.name = v.name + ":" + (f.type_name.empty() ? std::string("subtype") : f.type_name);
          it.name_span = v.span;
          it.expr = bind(*f.r->pred, f.r->var, v.name);
          auto b = bodies.find(k);
          if (b == bodies.end()) {
            b = bodies.emplace(k, ContractBody{}).first;
            b->second.span = v.span;
          }
          b->second.items.push_back(std::move(it));
        }
      }
    };
    add(n.inputs, ContractItem::Assume);
    add(n.outputs, ContractItem::Guarantee);
    add(n.locals, ContractItem::Guarantee);
  }
};

}  // namespace

void expand_refinements(Program &p, std::map<size_t, ContractBody> &bodies, const std::map<std::string, ContractDecl> &decls,
                         Diagnostics &diags) {
  Refinements(p, diags).run(bodies, decls);
}

}  // namespace rml
