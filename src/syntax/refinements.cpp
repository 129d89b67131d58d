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
    for (auto &decl : p.decls) {
      if (auto *t = std::get_if<TypeDecl>(&decl); t && t->alias) aliases_[t->name] = &*t->alias;
      if (auto *t = std::get_if<TypeDecl>(&decl); t && t->is_record) records_[t->name] = t;
    }
  }
  // The record type t names (through aliases); null if none.
  const TypeDecl *record_of(const TypeSyntax &t) {
    if (t.kind != TypeSyntax::Named) return nullptr;
    if (auto r = records_.find(t.name); r != records_.end()) return r->second;
    auto it = aliases_.find(t.name);
    if (it == aliases_.end() || !visiting_.insert(t.name).second) return nullptr;
    const TypeDecl *r = record_of(*it->second);
    visiting_.erase(t.name);
    return r;
  }
  // Whether a refinement is on a field of the record t names, at any depth.
  bool refined_field(const TypeSyntax &t) {
    const TypeDecl *r = record_of(t);
    if (!r || !visiting_.insert("record " + r->name).second) return false;
    bool in = false;
    for (auto &f : r->fields) in = in || (f.type && (!chain(*f.type).empty() || refined_field(*f.type)));
    visiting_.erase("record " + r->name);
    return in;
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
    if (!chain(t).empty() || refined_inside(t) || refined_field(t)) unsupported(s, where);
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
          if (v.type && refined_inside(*v.type)) unsupported(v.span, "inside an array or a group");
        if (t->alias && refined_inside(*t->alias)) unsupported(t->name_span, "inside an array or a group");
      }
    }
    for (auto &[k, body] : bodies)
      for (auto &it : body.items)
        if (it.type && (!chain(*it.type).empty() || refined_inside(*it.type) || refined_field(*it.type)))
          unsupported(it.name_span, "on a contract's ghost");
    // The declarations keep their base types (an alias of a refinement is its base type).
    for (auto &decl : p_.decls) {
      if (auto *n = std::get_if<NodeDecl>(&decl)) {
        for (auto *vs : {&n->inputs, &n->outputs, &n->locals, &n->statics})
          for (auto &v : *vs)
            if (v.type) strip(*v.type);
      } else if (auto *t = std::get_if<TypeDecl>(&decl)) {
        if (t->alias) strip(*t->alias);
        for (auto &f : t->fields)
          if (f.type) strip(*f.type);
      }
    }
  }

 private:
  Program &p_;
  Diagnostics &d_;
  std::map<std::string, const TypeSyntax *> aliases_;
  std::map<std::string, const TypeDecl *> records_;
  std::set<std::string> visiting_;

  static void strip(TypeSyntax &t) {
    t.refinements.clear();
    for (auto &e : t.elem) strip(e);
  }
  // P with its bound name read as the declared variable (or a field of one: to).
  static ExprPtr bind(const Expr &e, const std::string &from, const Expr &to) {
    ExprPtr out = e.clone();
    if (from.empty() || (to.kind == ExprKind::Var && from == to.name)) return out;
    std::function<void(ExprPtr &, bool)> walk = [&](ExprPtr &x, bool shadowed) {
      if (x->kind == ExprKind::Var && x->name == from && !shadowed) {
        Span s = x->span;
        x = to.clone();
        x->span = s;
        return;
      }
      for (size_t k = 0; k < x->args.size(); ++k) {
        bool sh = shadowed || (x->kind == ExprKind::Let && k == 1 && x->name == from) ||
                  (x->kind == ExprKind::Lambda && std::find(x->binders.begin(), x->binders.end(), from) != x->binders.end());
        walk(x->args[k], sh);
      }
      uint32_t h = 0;
      for (auto &a : x->args) h = std::max(h, a->height);
      if (!x->args.empty()) x->height = h + 1;
    };
    walk(out, false);
    return out;
  }

  void node(NodeDecl &n, size_t k, std::map<size_t, ContractBody> &bodies) {
    for (auto &v : n.statics)
      if (v.type) refuse_in(*v.type, v.span, "on a static parameter");
    // The refinements of the value `at` (named `name`) of type t, and of its record's
    // fields at any depth (`r.f:Nat`, the predicate reading `r.f`).
    std::function<void(const TypeSyntax &, const Expr &, const std::string &, Span, ContractItem::Kind, int)> items =
        [&](const TypeSyntax &t, const Expr &at, const std::string &name, Span span, ContractItem::Kind kind, int depth) {
          if (refined_inside(t)) {
            unsupported(span, "inside an array or a group");
            return;
          }
          for (auto &f : chain(t)) {
            ContractItem it;
            it.kind = kind;
            it.refinement = true;
            it.span = f.r->pred->span;
            it.name = name + ":" + (f.type_name.empty() ? std::string("subtype") : f.type_name);
            it.name_span = span;
            it.expr = bind(*f.r->pred, f.r->var, at);
            auto b = bodies.find(k);
            if (b == bodies.end()) {
              b = bodies.emplace(k, ContractBody{}).first;
              b->second.span = span;
            }
            b->second.items.push_back(std::move(it));
          }
          const TypeDecl *r = record_of(t);
          if (!r || depth > 32) return;  // a record containing itself: sema/expand_aggregates reports it
          for (auto &fd : r->fields) {
            if (!fd.type) continue;
            auto field = std::make_unique<Expr>(ExprKind::Field, at.span);
            field->name = fd.name;
            field->args.push_back(at.clone());
            field->height = at.height + 1;
            items(*fd.type, *field, name + "." + fd.name, span, kind, depth + 1);
          }
        };
    auto add = [&](const std::vector<VarDecl> &vs, ContractItem::Kind kind) {
      for (auto &v : vs)
        if (v.type) items(*v.type, *mk_var(v.name, v.span), v.name, v.span, kind, 0);
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
