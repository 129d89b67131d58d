// Signatures: the types of a declaration's inputs and outputs from the syntax, with the
// implicit size, shape and type variables bound at each use, and the check that every
// size variable is determined by an input. Then the call graph: recursion is an error,
// and statefulness (fby/pre/->/post, or an instance of a stateful node) is propagated.
#include <cstdint>

#include "sema/typecheck_internal.hpp"

namespace rml::typecheck {

Type TypeChecker::sig_type(const TypeSyntax &ts, std::map<std::string, StaticValue> &statics,
                           std::map<std::string, StaticValue> *implicit, std::vector<std::string> &shape_vars,
                           std::vector<std::string> &tyvars, bool &ok) {
  switch (ts.kind) {
    case TypeSyntax::TyVar:
      if (std::find(tyvars.begin(), tyvars.end(), ts.tyvar) == tyvars.end()) tyvars.push_back(ts.tyvar);
      return Type::var(ts.tyvar);
    case TypeSyntax::Shape: return Type::shape_type();
    case TypeSyntax::Named: ok = false; return Type::error();  // unresolved: reported by sema/type_decls
    case TypeSyntax::Array:
    case TypeSyntax::Group: ok = false; return Type::error();  // not flattened: reported by sema/expand_aggregates
    case TypeSyntax::Tensor: break;
  }
  Shape shape;
  StaticEnv env;
  env.params = &statics;
  env.implicit = implicit;
  for (auto &dim : ts.dims) {
    if (dim.splice_var) {
      if (std::find(shape_vars.begin(), shape_vars.end(), dim.var) == shape_vars.end()) {
        if (!implicit) {
          d_.error("static.undetermined", dim.span,
                   "shape variable '*" + dim.var + "' must appear in an input type to be determined at each use");
          ok = false;
          continue;
        }
        shape_vars.push_back(dim.var);
      }
      // In place: a push_back of a temporary variant draws GCC 12's -Wmaybe-uninitialized
      // false positive (as in type_from_syntax).
      shape.emplace_back(std::in_place_type<ShapeSym>, ShapeSym{dim.var});
      continue;
    }
    try {
      StaticValue v = eval_static(*dim.expr, env);
      if (v.kind == StaticValue::Int) {
        Shape one{v.size};
        check_dims(one, dim.expr->span);
        shape.push_back(v.size);
      } else {
        check_dims(v.shape, dim.expr->span);
        shape.insert(shape.end(), v.shape.begin(), v.shape.end());
      }
    } catch (NotStatic &ns) {
      if (!implicit && dim.expr->kind == ExprKind::Var && !visible(dim.expr->name)) {
        d_.error("static.undetermined", dim.expr->span,
                 "size variable '" + dim.expr->name + "' must appear in an input type to be determined at each use");
        undetermined_.push_back(dim.expr->name);
      } else {
        report_static(ns);
      }
      ok = false;
      return Type::error();
    } catch (StaticEvalError &se) {
      report_static(se);
      ok = false;
      return Type::error();
    }
  }
  try {
    check_dims(shape, ts.span);
  } catch (StaticEvalError &se) {
    report_static(se);
    ok = false;
    return Type::error();
  }
  return with_declared_kind(ts, Type::tensor(ts.scalar, std::move(shape)));
}

// An enumeration's name and constructors, a subrange's bounds (evaluated: literals and
// int constants), from a resolved type (sema/type_decls).
Type TypeChecker::with_declared_kind(const TypeSyntax &ts, Type t) {
  if (ts.machine) {
    t.machine = ts.machine;
    t.range = std::make_pair(ts.machine->lo(), ts.machine->hi());
  }
  if (!ts.enum_name.empty()) {
    auto it = cp_.enums.find(ts.enum_name);
    if (it != cp_.enums.end()) {
      t.enum_name = ts.enum_name;
      t.ctors = it->second;
      t.range = std::make_pair(int64_t{0}, static_cast<int64_t>(it->second->size()) - 1);
    }
  }
  if (ts.subrange) {
    StaticEnv env;
    try {
      auto bound = [&](const ExprPtr &b, int64_t none) {
        if (!b) return none;  // `*`
        Poly v = need_int(*b, env);
        if (!v.is_const()) throw NotStatic{b->span, "the bounds of a subrange must be constant integers"};
        return v.const_value();
      };
      int64_t lo = bound(ts.range_lo, INT64_MIN), hi = bound(ts.range_hi, INT64_MAX);
      if (lo > hi)
        throw StaticEvalError{ts.span, "the subrange [" + std::to_string(lo) + ", " + std::to_string(hi) + "] is empty"};
      t.range = std::make_pair(lo, hi);
    } catch (NotStatic &ns) {
      report_static(ns);
    } catch (StaticEvalError &se) {
      report_static(se);
    }
  }
  return t;
}

void TypeChecker::build_signature(const std::string &name, const Decl &d) {
  if (std::holds_alternative<ConstDecl>(d)) return;
  undetermined_.clear();
  Signature sig;
  sig.name = name;
  sig.from_prelude = cp_.decls[name] < prelude_count();
  DeclScope decl_scope(in_prelude_, sig.from_prelude);
  const std::vector<VarDecl> *ins;
  if (auto *n = std::get_if<NodeDecl>(&d)) {
    sig.is_node = true;
    sig.is_function = n->is_function;
    sig.imported = n->imported;
    // An imported node may keep state of its own; an imported function may not.
    sig.stateful = n->imported && !n->is_function;
    ins = &n->inputs;
  } else {
    sig.is_node = false;
    ins = &std::get<FunDecl>(d).params;
  }
  std::map<std::string, StaticValue> statics, implicit;
  std::set<std::string> seen;
  auto dup = [&](const VarDecl &v) {
    if (!seen.insert(v.name).second) {
      d_.error("name.duplicate", v.span, "'" + v.name + "' is declared twice in this interface");
      sig.ok = false;
      return true;
    }
    return false;
  };
  // Static params first: value types may mention them.
  for (auto &v : *ins) {
    if (!v.is_const) continue;
    if (!v.type) {
      d_.error("type.missing", v.span, "static parameter '" + v.name + "' needs a type ('int' or 'shape')");
      sig.ok = false;
      continue;
    }
    if (v.type->kind == TypeSyntax::Shape) statics[v.name] = StaticValue::of_shape({ShapeSym{v.name}});
    else if (v.type->kind == TypeSyntax::Tensor && v.type->scalar == Scalar::Int && v.type->dims.empty() && !v.type->machine)
      statics[v.name] = StaticValue::of_int(Poly::symbol(v.name));
    else {
      d_.error("static.kind", v.type->span, "a static parameter has type 'int' or 'shape'");
      sig.ok = false;
    }
  }
  for (auto &v : *ins) {
    dup(v);
    Param p;
    p.name = v.name;
    p.span = v.span;
    p.is_const = v.is_const;
    if (v.is_const) {
      auto it = statics.find(v.name);
      p.static_kind = it != statics.end() ? it->second.kind : StaticValue::Int;
      p.type = Type::error();
    } else if (!v.type) {
      d_.error("type.missing", v.span, "input '" + v.name + "' needs a type");
      sig.ok = false;
      p.type = Type::error();
    } else {
      if (v.type->kind == TypeSyntax::Shape) {
        d_.error("static.kind", v.type->span, "only 'const' parameters may have type 'shape'");
        sig.ok = false;
      }
      p.type = sig_type(*v.type, statics, &implicit, sig.shape_vars, sig.tyvars, sig.ok);
    }
    sig.inputs.push_back(std::move(p));
  }
  // Implicit size variables must occur as a whole dim of some input type.
  std::set<std::string> plain;
  for (auto &p : sig.inputs)
    if (!p.is_const && p.type.kind == Type::Tensor)
      for (auto &dim : p.type.shape)
        if (auto *q = std::get_if<Poly>(&dim))
          if (auto s = q->as_symbol()) plain.insert(*s);
  for (auto &[n, v] : implicit) {
    sig.size_vars.push_back(n);
    if (!plain.count(n)) {
      Span where = find_dim_use(*ins, n);
      d_.error("static.undetermined", where,
               "size variable '" + n + "' is only used inside a size expression; it must also be a whole dimension of an input");
      sig.ok = false;
    }
  }
  std::vector<std::string> in_tyvars = sig.tyvars;
  std::map<std::string, StaticValue> all = statics;
  for (auto &[n, v] : implicit) all[n] = v;
  auto out_type = [&](const TypeSyntax &ts) {
    size_t before = sig.tyvars.size();
    Type t = sig_type(ts, all, nullptr, sig.shape_vars, sig.tyvars, sig.ok);
    for (size_t k = before; k < sig.tyvars.size(); ++k) {
      d_.error("static.undetermined", ts.span, "type variable " + sig.tyvars[k] + " must appear in an input type");
      sig.ok = false;
    }
    return t;
  };
  if (auto *n = std::get_if<NodeDecl>(&d)) {
    for (auto &v : n->outputs) {
      dup(v);
      if (v.is_const) {
        d_.error("static.kind", v.span, "outputs cannot be static ('const')");
        sig.ok = false;
      }
      sig.output_names.push_back(v.name);
      if (!v.type) {
        d_.error("type.missing", v.span, "output '" + v.name + "' needs a type");
        sig.ok = false;
        sig.outputs.push_back(Type::error());
      } else {
        sig.outputs.push_back(out_type(*v.type));
      }
    }
  } else {
    auto &f = std::get<FunDecl>(d);
    sig.output_names.push_back("result");
    sig.outputs.push_back(out_type(f.result));
    // The function layer computes on int, bool and real tensors, without wraps.
    auto machine_in_fun = [&](const TypeSyntax &ts) {
      if (!ts.machine) return;
      d_.error("syntax.unsupported", ts.span, "machine integers are not available in 'fun' signatures");
      sig.ok = false;
    };
    for (auto &v : f.params)
      if (v.type) machine_in_fun(*v.type);
    machine_in_fun(f.result);
  }
  for (auto &u : undetermined_)
    if (std::find(sig.size_vars.begin(), sig.size_vars.end(), u) == sig.size_vars.end()) sig.size_vars.push_back(u);
  cp_.sigs[name] = std::move(sig);
}

Span TypeChecker::find_dim_use(const std::vector<VarDecl> &ins, const std::string &n) {
  for (auto &v : ins)
    if (v.type)
      for (auto &dim : v.type->dims) {
        if (!dim.expr) continue;
        Span found;
        std::function<void(const Expr &)> walk = [&](const Expr &e) {
          if (!found.valid() && e.kind == ExprKind::Var && e.name == n) found = e.span;
          for (auto &a : e.args) walk(*a);
        };
        walk(*dim.expr);
        if (found.valid()) return found;
      }
  return ins.empty() ? Span{} : ins[0].span;
}

void TypeChecker::calls_in(const Expr &e, std::vector<const Expr *> &out) {
  if (e.kind == ExprKind::Call && cp_.decls.count(e.name)) out.push_back(&e);
  for (auto &a : e.args) calls_in(*a, out);
}

std::vector<const Expr *> TypeChecker::decl_calls(const Decl &d) {
  std::vector<const Expr *> out;
  if (auto *n = std::get_if<NodeDecl>(&d))
    for (auto &eq : n->equations) calls_in(*eq.rhs, out);
  if (auto *f = std::get_if<FunDecl>(&d)) calls_in(*f->body, out);
  return out;
}

void TypeChecker::check_recursion() {
  std::map<std::string, int> color;  // 0 white, 1 grey, 2 black
  std::function<void(const std::string &)> dfs = [&](const std::string &n) {
    color[n] = 1;
    const Decl &d = cp_.program.decls[cp_.decls[n]];
    for (const Expr *c : decl_calls(d)) {
      if (std::holds_alternative<ConstDecl>(cp_.program.decls[cp_.decls[c->name]])) continue;
      int col = color[c->name];
      if (col == 1) {
        bool is_fun = std::holds_alternative<FunDecl>(d);
        d_.error(is_fun ? "fun.recursive" : "node.recursive", callee_span(*c),
                 "recursive call to '" + c->name + "': " + (is_fun ? "functions" : "nodes") +
                     " cannot be recursive (the language has no general recursion)");
        recursive_.insert(c->name);
      } else if (col == 0) {
        dfs(c->name);
      }
    }
    color[n] = 2;
  };
  for (auto &[n, idx] : cp_.decls)
    if (!std::holds_alternative<ConstDecl>(cp_.program.decls[idx]) && color[n] == 0) dfs(n);
}

bool TypeChecker::has_state_op(const Expr &e) {
  if (e.kind == ExprKind::Binary && (e.op == Op::Fby || e.op == Op::Arrow)) return true;
  if (e.kind == ExprKind::Unary && (e.op == Op::Pre || e.op == Op::Post)) return true;
  for (auto &a : e.args)
    if (has_state_op(*a)) return true;
  return false;
}

void TypeChecker::compute_statefulness() {
  bool changed = true;
  for (auto &[n, idx] : cp_.decls)
    if (auto *nd = std::get_if<NodeDecl>(&cp_.program.decls[idx]))
      for (auto &eq : nd->equations)
        if (has_state_op(*eq.rhs)) cp_.sigs[n].stateful = true;
  while (changed) {
    changed = false;
    for (auto &[n, idx] : cp_.decls) {
      auto *nd = std::get_if<NodeDecl>(&cp_.program.decls[idx]);
      if (!nd || cp_.sigs[n].stateful) continue;
      for (const Expr *c : decl_calls(cp_.program.decls[idx])) {
        auto it = cp_.sigs.find(c->name);
        if (it != cp_.sigs.end() && it->second.is_node && it->second.stateful) {
          cp_.sigs[n].stateful = true;
          changed = true;
          break;
        }
      }
    }
  }
}

}  // namespace rml::typecheck
