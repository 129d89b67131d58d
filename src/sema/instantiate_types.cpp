#include "sema/instantiate_types.hpp"

#include <deque>
#include <map>
#include <set>

#include "sema/rewrite.hpp"
#include "syntax/printer.hpp"

namespace rml {
namespace {

constexpr size_t kMaxTypeInstances = 1000;

using TypeArgs = std::map<std::string, const TypeSyntax *>;  // 'T -> its argument

// Replaces the type variables of `s` in t by their arguments.
void subst(TypeSyntax &t, const TypeArgs &s) {
  if (t.kind == TypeSyntax::TyVar) {
    if (auto it = s.find(t.tyvar); it != s.end()) t = it->second->clone();
    return;
  }
  for (auto &el : t.elem) subst(el, s);
}

bool mentions(const TypeSyntax &t, const TypeArgs &s) {
  if (t.kind == TypeSyntax::TyVar) return s.count(t.tyvar) > 0;
  for (auto &el : t.elem)
    if (mentions(el, s)) return true;
  return false;
}

// The same in the type arguments of the calls of e (shared, so replaced by copies).
void subst(Expr &e, const TypeArgs &s) {
  for (auto &a : e.args) subst(*a, s);
  for (auto &ta : e.type_args)
    if (mentions(*ta, s)) {
      TypeSyntax t = ta->clone();
      subst(t, s);
      ta = std::make_shared<const TypeSyntax>(std::move(t));
    }
}

bool is_any(const Expr &e) { return e.kind == ExprKind::Call && e.name == "any" && e.args.empty() && e.type_args.size() == 1; }

bool has_type_var(const TypeSyntax &t) {
  if (t.kind == TypeSyntax::TyVar) return true;
  for (auto &el : t.elem)
    if (has_type_var(el)) return true;
  return false;
}

struct TypeInstantiator {
  Program &p;
  Diagnostics &d;
  std::map<std::string, size_t> generic;  // name -> index in p.decls
  std::set<std::string> nodes;            // every node's name
  std::set<std::string> made;             // the instances' names
  std::vector<NodeDecl> instances;        // instances and any's imported nodes
  std::deque<size_t> work;                // indices into instances to scan
  bool in_generic = false;                // scanning a generic node's own body

  // "N@<int, real>": the instance's name, from the arguments as printed.
  static std::string key(const std::string &name, const Expr &e) {
    std::string k = name + "@<";
    for (size_t i = 0; i < e.type_args.size(); ++i) k += (i ? ", " : "") + print_type(*e.type_args[i]);
    return k + ">";
  }

  bool room(const Expr &e) {
    if (made.size() < kMaxTypeInstances) return true;
    d.error("static.eval", e.span, "more than 1000 instances of nodes with type parameters (a recursion through them?)");
    return false;
  }

  // `any@<T>`: a call of the imported node any@<T>.
  void any(Expr &e) {
    const TypeSyntax &t = *e.type_args[0];
    if (has_type_var(t)) {
      d.error("syntax.unsupported", e.span,
              "'any' of a type parameter is not read: give it a type without parameters ('any@<int>')");
      return;
    }
    std::string k = key("any", e);
    if (!made.count(k)) {
      if (!room(e)) return;
      made.insert(k);
      NodeDecl n;
      n.name = k;
      n.name_span = n.keyword_span = e.span;
      n.imported = true;
      n.import_keyword = "imported";
      VarDecl v;
      v.name = "v";
      v.span = e.span;
      v.type = t.clone();
      n.outputs.push_back(std::move(v));
      instances.push_back(std::move(n));
    }
    e.name = k;
    e.type_args.clear();
  }

  void call(Expr &e) {
    if (e.type_args.empty()) return;
    if (is_any(e) && !nodes.count("any")) return any(e);
    auto g = generic.find(e.name);
    if (g == generic.end()) {
      if (nodes.count(e.name))
        d.error("static.kind", e.span, "'" + e.name + "' has no type parameters: call it without '@<...>'");
      return;  // not a node: the type checker says what the name is
    }
    const NodeDecl &gn = std::get<NodeDecl>(p.decls[g->second]);
    if (gn.type_params.size() != e.type_args.size()) {
      d.error("arity.args", e.span,
              "'" + e.name + "' takes " + std::to_string(gn.type_params.size()) + " type argument(s), but " +
                  std::to_string(e.type_args.size()) + " are given");
      return;
    }
    // In a generic node's body, arguments naming its own type parameters are made concrete
    // in its instances; the node itself calls the polymorphic callee meanwhile.
    if (in_generic)
      for (auto &ta : e.type_args)
        if (has_type_var(*ta)) return;
    std::string k = key(e.name, e);
    if (!made.count(k)) {
      if (!room(e)) return;
      made.insert(k);
      TypeArgs s;
      for (size_t i = 0; i < gn.type_params.size(); ++i) s["'" + gn.type_params[i]] = e.type_args[i].get();
      Decl copy = clone_decl(p.decls[g->second]);
      NodeDecl inst = std::move(std::get<NodeDecl>(copy));
      inst.name = k;
      inst.type_params.clear();
      inst.type_param_spans.clear();
      for (auto *vs : {&inst.inputs, &inst.outputs, &inst.locals})
        for (auto &v : *vs)
          if (v.type) subst(*v.type, s);
      rewrite_node_exprs(inst, [&](ExprPtr &x) { subst(*x, s); });  // reset conditions too
      instances.push_back(std::move(inst));
      work.push_back(instances.size() - 1);
    }
    e.name = k;
    e.type_args.clear();
  }
  void scan(Expr &e) {
    for (auto &a : e.args) scan(*a);
    if (e.kind == ExprKind::Call) call(e);
  }
  void scan(NodeDecl &n) {
    rewrite_node_exprs(n, [&](ExprPtr &e) { scan(*e); });
  }
};

bool has_type_args(const Expr &e) {
  return any_subexpr(e, [](const Expr &x) { return !x.type_args.empty(); });
}

}  // namespace

void instantiate_types(Program &p, size_t first, Diagnostics &diags) {
  TypeInstantiator I{p, diags, {}, {}, {}, {}, {}};
  bool any = false;
  for (size_t i = 0; i < p.decls.size(); ++i)
    if (auto *n = std::get_if<NodeDecl>(&p.decls[i])) {
      I.nodes.insert(n->name);
      if (i >= first && !n->type_params.empty()) I.generic[n->name] = i;
      if (i < first) continue;
      rewrite_node_exprs(*n, [&](ExprPtr &e) { any |= has_type_args(*e); });
    }
  if (!any) return;
  for (size_t i = first; i < p.decls.size(); ++i)
    if (auto *n = std::get_if<NodeDecl>(&p.decls[i])) {
      I.in_generic = !n->type_params.empty();
      I.scan(*n);
    }
  I.in_generic = false;
  while (!I.work.empty()) {
    size_t k = I.work.front();
    I.work.pop_front();
    NodeDecl n = std::move(I.instances[k]);  // scanning may add instances (the vector grows)
    I.scan(n);
    I.instances[k] = std::move(n);
  }
  for (auto &n : I.instances) p.decls.emplace_back(std::move(n));
}

}  // namespace rml
