// The type checker's driver: check_program isolates the prelude declarations that the
// user shadows (renamed "prelude::NAME"), then runs the passes of TypeChecker in order
// (declarations, constants, signatures, recursion and state, bodies, zonking). Also the
// collection of global declarations and the span helpers the other files share.
#include "sema/typecheck_internal.hpp"

namespace rml::typecheck {

// Span of a call's callee name (a call's span starts with its name).
Span callee_span(const Expr &e) {
  Span s = e.span;
  if (s.valid()) s.end = s.begin + static_cast<uint32_t>(e.name.size());
  return s;
}

Span start_span(const Expr &e) {
  // The first token of an expression: for binary expressions, the left operand's start.
  const Expr *p = &e;
  while ((p->kind == ExprKind::Binary || p->kind == ExprKind::When || p->kind == ExprKind::Index ||
          p->kind == ExprKind::Reset) &&
         !p->args.empty())
    p = p->args[0].get();
  if (p->kind == ExprKind::Call) return callee_span(*p);
  return p->span;
}

void TypeChecker::run() {
  collect_decls();
  eval_consts();
  for (auto &[name, idx] : cp_.decls) build_signature(name, cp_.program.decls[idx]);
  check_recursion();
  compute_statefulness();
  for (auto &[name, idx] : cp_.decls) {
    const Decl &d = cp_.program.decls[idx];
    if (auto *n = std::get_if<NodeDecl>(&d)) check_node(*n);
    else if (auto *f = std::get_if<FunDecl>(&d)) check_fun(*f);
  }
  zonk_all();
}

void TypeChecker::collect_decls() {
  for (size_t i = 0; i < cp_.program.decls.size(); ++i) {
    const Decl &d = cp_.program.decls[i];
    if (std::holds_alternative<TypeDecl>(d)) continue;  // types have their own scope (sema/type_decls)
    const std::string &n = decl_name(d);
    auto it = cp_.decls.find(n);
    if (it != cp_.decls.end()) {
      // (A user declaration never meets a prelude one here: isolate_prelude renamed the
      // prelude declarations the user shadows.)
      d_.error("name.duplicate", decl_span(d), "'" + n + "' is already declared");
      d_.note(decl_span(cp_.program.decls[it->second]), "first declared here");
      continue;
    }
    if (is_builtin(n) && i >= prelude_count())
      // Lustre programs name nodes `abs`, `min`, `sum`: the user's declaration wins in the
      // user's file, the prelude keeps the builtin.
      d_.warning("name.shadows-builtin", decl_span(d),
                 "'" + n + "' shadows the builtin of the same name; in this file '" + n + "' is this declaration");
    cp_.decls[n] = i;
  }
}

bool TypeChecker::visible(const std::string &n) const {
  auto it = cp_.decls.find(n);
  return it != cp_.decls.end() && (!in_prelude_ || it->second < prelude_count());
}

}  // namespace rml::typecheck

namespace rml {

namespace {

// Renames, in one prelude declaration, the references to prelude declarations that the
// user shadows. `bound` holds the names bound locally where `e` is (parameters, node
// variables, let and lambda binders): they are not global references.
void rename_refs(Expr &e, const std::map<std::string, std::string> &renamed, std::set<std::string> &bound) {
  if (e.kind == ExprKind::Call || (e.kind == ExprKind::Var && !bound.count(e.name))) {
    if (auto it = renamed.find(e.name); it != renamed.end()) e.name = it->second;
  }
  if (e.kind == ExprKind::Let && e.args.size() == 2) {
    rename_refs(*e.args[0], renamed, bound);
    bool fresh = bound.insert(e.name).second;
    rename_refs(*e.args[1], renamed, bound);
    if (fresh) bound.erase(e.name);
    return;
  }
  std::vector<std::string> added;
  if (e.kind == ExprKind::Lambda)
    for (auto &b : e.binders)
      if (bound.insert(b).second) added.push_back(b);
  for (auto &a : e.args) rename_refs(*a, renamed, bound);
  for (auto &b : added) bound.erase(b);
}

void rename_type_refs(TypeSyntax &t, const std::map<std::string, std::string> &renamed, std::set<std::string> &bound) {
  for (auto &d : t.dims)
    if (d.expr) rename_refs(*d.expr, renamed, bound);
}

void rename_decl_refs(Decl &d, const std::map<std::string, std::string> &renamed) {
  std::set<std::string> bound;
  auto params = [&](std::vector<VarDecl> &vs) {
    for (auto &v : vs) bound.insert(v.name);
  };
  auto types = [&](std::vector<VarDecl> &vs) {
    for (auto &v : vs)
      if (v.type) rename_type_refs(*v.type, renamed, bound);
  };
  if (auto *n = std::get_if<NodeDecl>(&d)) {
    params(n->inputs);
    params(n->outputs);
    params(n->locals);
    for (auto &eq : n->equations)
      for (auto &l : eq.lhs) bound.insert(l.name);
    types(n->inputs);
    types(n->outputs);
    types(n->locals);
    for (auto &eq : n->equations) rename_refs(*eq.rhs, renamed, bound);
    for (auto &a : n->assumptions) rename_refs(*a.cond, renamed, bound);
  } else if (auto *f = std::get_if<FunDecl>(&d)) {
    params(f->params);
    types(f->params);
    rename_type_refs(f->result, renamed, bound);
    rename_refs(*f->body, renamed, bound);
  } else if (auto *c = std::get_if<ConstDecl>(&d)) {
    if (c->type) rename_type_refs(*c->type, renamed, bound);
    rename_refs(*c->value, renamed, bound);
  }
}

std::string &decl_name_ref(Decl &d) {
  return std::visit([](auto &x) -> std::string & { return x.name; }, d);
}

// A user declaration with a prelude declaration's name shadows it in the user's file
// (warning name.shadows-prelude), while the prelude keeps its own: the shadowed prelude
// declaration gets the name "prelude::NAME", which is not an identifier (so no user name
// can meet it), and every reference to it inside the prelude follows. Everything after
// the checker (elaboration, evaluator, lowering) resolves names through cp.decls and
// cp.sigs, so it sees the same two declarations.
void isolate_prelude(CheckedProgram &cp, Diagnostics &diags) {
  std::map<std::string, size_t> prelude;  // name -> the prelude's declaration
  for (size_t i = 0; i < cp.prelude_decls; ++i) prelude.emplace(decl_name(cp.program.decls[i]), i);
  std::map<std::string, std::string> renamed;
  for (size_t i = cp.prelude_decls; i < cp.program.decls.size(); ++i) {  // in the user's source order
    if (std::holds_alternative<TypeDecl>(cp.program.decls[i])) continue;  // a type shadows no value
    const std::string &n = decl_name(cp.program.decls[i]);
    auto p = prelude.find(n);
    if (p == prelude.end() || renamed.count(n)) continue;  // a second user 'n' is a name.duplicate
    diags.warning("name.shadows-prelude", decl_span(cp.program.decls[i]),
                  "'" + n + "' shadows the prelude's declaration of the same name; in this file '" + n +
                      "' is this declaration, while the prelude keeps using its own");
    diags.note(decl_span(cp.program.decls[p->second]), "the prelude's '" + n + "' is declared here");
    renamed[n] = "prelude::" + n;
  }
  if (renamed.empty()) return;
  for (size_t i = 0; i < cp.prelude_decls; ++i) {
    Decl &d = cp.program.decls[i];
    rename_decl_refs(d, renamed);
    std::string &n = decl_name_ref(d);
    if (auto it = renamed.find(n); it != renamed.end()) {
      n = it->second;
      cp.prelude_names.insert(n);
    }
  }
}

}  // namespace

void check_program(CheckedProgram &cp, Diagnostics &diags) {
  isolate_prelude(cp, diags);
  typecheck::TypeChecker c(cp, diags);
  c.set_prelude_count(cp.prelude_decls);
  c.run();
}

}  // namespace rml
