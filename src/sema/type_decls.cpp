#include "sema/type_decls.hpp"

#include <functional>
#include <set>

namespace rml {

void resolve_type_decls(CheckedProgram &cp, Diagnostics &diags) {
  std::map<std::string, const TypeDecl *> types;
  std::map<std::string, Span> values;  // constants and constructors: one scope
  for (auto &d : cp.program.decls)
    if (auto *c = std::get_if<ConstDecl>(&d)) values.emplace(c->name, c->name_span);
  for (auto &d : cp.program.decls) {
    auto *t = std::get_if<TypeDecl>(&d);
    if (!t) continue;
    if (auto [it, fresh] = types.emplace(t->name, t); !fresh) {
      diags.error("name.duplicate", t->name_span, "type '" + t->name + "' is already declared");
      diags.note(it->second->name_span, "first declared here");
      continue;
    }
    if (!t->is_enum) continue;
    auto ctors = std::make_shared<std::vector<std::string>>();
    for (size_t k = 0; k < t->ctors.size(); ++k) {
      const std::string &c = t->ctors[k];
      if (auto [it, fresh] = values.emplace(c, t->ctor_spans[k]); !fresh) {
        diags.error("name.duplicate", t->ctor_spans[k], "'" + c + "' is already declared (a constant or a constructor)");
        diags.note(it->second, "first declared here");
        continue;
      }
      cp.enum_ctors[c] = {t->name, static_cast<int64_t>(ctors->size())};
      ctors->push_back(c);
    }
    cp.enums[t->name] = std::move(ctors);
  }

  // What each declared name denotes, resolved through aliases once.
  std::map<std::string, TypeSyntax> resolved;
  std::set<std::string> in_progress, failed;  // failed: reported once, then silent
  std::function<std::optional<TypeSyntax>(const std::string &, Span)> resolve_name;
  std::function<bool(TypeSyntax &)> resolve = [&](TypeSyntax &ts) -> bool {
    if (ts.kind == TypeSyntax::Array || ts.kind == TypeSyntax::Group) {
      bool ok = true;
      for (auto &el : ts.elem) ok = resolve(el) && ok;
      return ok;
    }
    if (ts.kind != TypeSyntax::Named) return true;
    auto r = resolve_name(ts.name, ts.span);
    if (!r) return false;
    Span at = ts.span;
    ts = r->clone();
    ts.span = at;
    return true;
  };
  resolve_name = [&](const std::string &n, Span at) -> std::optional<TypeSyntax> {
    if (auto it = resolved.find(n); it != resolved.end()) return it->second.clone();
    if (failed.count(n)) return std::nullopt;
    if (in_progress.count(n)) {
      diags.error("type.recursive", at, "the type '" + n + "' is defined in terms of itself");
      failed.insert(n);
      return std::nullopt;
    }
    auto it = types.find(n);
    if (it == types.end()) {
      diags.error("name.unknown", at, "unknown type '" + n + "'");
      return std::nullopt;
    }
    const TypeDecl &t = *it->second;
    in_progress.insert(n);
    TypeSyntax ts;
    if (t.is_record) {  // stays a name: sema/expand_aggregates flattens records into their fields
      ts.kind = TypeSyntax::Named;
      ts.name = t.name;
      ts.span = t.name_span;
    } else if (t.is_enum) {
      ts.kind = TypeSyntax::Tensor;
      ts.scalar = Scalar::Int;
      ts.enum_name = t.name;
      ts.span = t.name_span;
    } else {
      ts = t.alias->clone();
      if (!resolve(ts)) {
        in_progress.erase(n);
        failed.insert(n);
        return std::nullopt;
      }
    }
    in_progress.erase(n);
    resolved[n] = ts.clone();
    return ts;
  };

  // A name that does not resolve stays Named: reported here, an error type for the checker
  // (no follow-on diagnostics).
  auto fix = [&](std::optional<TypeSyntax> &ts) {
    if (ts) resolve(*ts);
  };
  auto fix_vars = [&](std::vector<VarDecl> &vs) {
    for (auto &v : vs) fix(v.type);
  };
  for (size_t i = cp.prelude_decls; i < cp.program.decls.size(); ++i) {
    Decl &d = cp.program.decls[i];
    if (auto *n = std::get_if<NodeDecl>(&d)) {
      fix_vars(n->statics);
      fix_vars(n->inputs);
      fix_vars(n->outputs);
      fix_vars(n->locals);
    } else if (auto *f = std::get_if<FunDecl>(&d)) {
      fix_vars(f->params);
      resolve(f->result);
    } else if (auto *c = std::get_if<ConstDecl>(&d)) {
      fix(c->type);
    } else if (auto *t = std::get_if<TypeDecl>(&d)) {
      if (t->alias && types.count(t->name) && types.at(t->name) == t) resolve_name(t->name, t->name_span);
      fix_vars(t->fields);
    }
  }
}

}  // namespace rml
