// Static evaluation (grammar.md §4): sizes and shapes of static parameters, static locals
// and global constants as polynomials over size variables, with the bound checks on
// concrete sizes; global constants (static, or typed real/bool values).
#include "sema/typecheck_internal.hpp"

namespace rml::typecheck {

std::optional<StaticValue> TypeChecker::lookup_static(const std::string &n, Span s, const StaticEnv &env) {
  if (env.scopes)
    for (auto it = env.scopes->rbegin(); it != env.scopes->rend(); ++it)
      if (it->count(n)) return std::nullopt;
  if (env.params) {
    auto it = env.params->find(n);
    if (it != env.params->end()) return it->second;
  }
  if (env.implicit) {
    auto it = env.implicit->find(n);
    if (it != env.implicit->end()) return it->second;
  }
  if (env.local) {
    if (auto v = env.local(n, s)) return v;
  }
  auto it = cp_.static_consts.find(n);
  if (it != cp_.static_consts.end() && visible(n)) return it->second;
  return std::nullopt;
}

Poly TypeChecker::need_int(const Expr &e, const StaticEnv &env) {
  StaticValue v = eval_static(e, env);
  if (v.kind != StaticValue::Int) throw StaticEvalError{e.span, "expected a static int, found the shape " + v.str()};
  return v.size;
}

StaticValue TypeChecker::eval_static(const Expr &e, const StaticEnv &env) {
  try {
    return eval_static_inner(e, env);
  } catch (StaticError &err) {
    throw StaticEvalError{e.span, err.what()};
  }
}

StaticValue TypeChecker::eval_static_inner(const Expr &e, const StaticEnv &env) {
  switch (e.kind) {
    case ExprKind::IntLit: return StaticValue::of_int(Poly::constant(e.ival));
    case ExprKind::Var: {
      if (auto v = lookup_static(e.name, e.span, env)) return *v;
      if (env.implicit && !is_known_dynamic(e.name, env)) {
        // Signature mode: an unknown bare identifier is an implicit size variable.
        StaticValue v = StaticValue::of_int(Poly::symbol(e.name));
        (*env.implicit)[e.name] = v;
        return v;
      }
      throw NotStatic{e.span, "'" + e.name + "' is not a static value"};
    }
    case ExprKind::Unary:
      if (e.op == Op::Neg) return StaticValue::of_int(need_int(*e.args[0], env).negate());
      break;
    case ExprKind::Binary: {
      if (e.op != Op::Add && e.op != Op::Sub && e.op != Op::Mul && e.op != Op::Div && e.op != Op::IntDiv &&
          e.op != Op::Mod)
        break;
      Poly a = need_int(*e.args[0], env), b = need_int(*e.args[1], env);
      switch (e.op) {
        case Op::Add: return StaticValue::of_int(a + b);
        case Op::Sub: return StaticValue::of_int(a - b);
        case Op::Mul: return StaticValue::of_int(a * b);
        default: {
          bool mod = e.op == Op::Mod;
          if (!mod && b.is_const() && b.const_value() == 1) return StaticValue::of_int(a);
          try {
            return StaticValue::of_int(Poly::atom(mod ? "mod" : "div", {a, b}));
          } catch (StaticError &err) {
            throw StaticEvalError{e.span, err.what()};
          }
        }
      }
    }
    case ExprKind::Array: {
      Shape s;
      for (auto &a : e.args) {
        StaticValue v = eval_static(*a, env);
        if (v.kind == StaticValue::Int) s.push_back(v.size);
        else s.insert(s.end(), v.shape.begin(), v.shape.end());
      }
      return StaticValue::of_shape(std::move(s));
    }
    case ExprKind::Index: {
      if (e.args.size() != 2) break;
      StaticValue base = eval_static(*e.args[0], env);
      if (base.kind != StaticValue::ShapeV) throw NotStatic{e.args[0]->span, "only shapes can be indexed statically"};
      Poly k = need_int(*e.args[1], env);
      try {
        return StaticValue::of_int(Poly::atom("index", {k}, &base.shape));
      } catch (StaticError &err) {
        throw StaticEvalError{e.span, err.what()};
      }
    }
    case ExprKind::Call: {
      if (visible(e.name)) break;  // a user declaration shadowing the builtin
      if ((e.name == "rank" || e.name == "prod") && e.args.size() == 1) {
        StaticValue s = eval_static(*e.args[0], env);
        if (s.kind != StaticValue::ShapeV) throw StaticEvalError{e.args[0]->span, "'" + e.name + "' expects a shape"};
        if (e.name == "prod") return StaticValue::of_int(shape_product(s.shape));
        return StaticValue::of_int(Poly::atom("rank", {}, &s.shape));
      }
      if ((e.name == "min" || e.name == "max") && e.args.size() == 2) {
        Poly a = need_int(*e.args[0], env), b = need_int(*e.args[1], env);
        if (a == b) return StaticValue::of_int(a);
        return StaticValue::of_int(Poly::atom(e.name, {a, b}));
      }
      break;
    }
    default: break;
  }
  throw NotStatic{e.span, "this expression is not static (allowed: integers, shapes, static names, + - * div mod, "
                          "min, max, rank, prod, s[k])"};
}

std::string TypeChecker::print_expr_short(const Expr &e) {
  if (e.kind == ExprKind::IntLit) return std::to_string(e.ival);
  if (e.kind == ExprKind::Var) return "'" + e.name + "'";
  return "expression";
}

// Checks a static size/shape used as dims: non-negative and not huge, when concrete.
void TypeChecker::check_dims(const Shape &s, Span span) {
  int64_t prod = 1;  // each factor <= 2^31 and the product is checked each step: no overflow
  for (auto &d : s) {
    if (auto *p = std::get_if<Poly>(&d)) {
      if (p->is_const()) {
        int64_t v = p->const_value();
        if (v < 0) throw StaticEvalError{span, "negative size " + std::to_string(v)};
        if (v > kMaxStaticSize) throw StaticEvalError{span, "size " + std::to_string(v) + " exceeds the limit 2^31"};
        prod *= v;
        if (prod > kMaxStaticSize)
          throw StaticEvalError{span, "the shape " + shape_str(s) + " has more than 2^31 elements"};
      }
    }
  }
}

// Reports a static failure; returns false.
bool TypeChecker::report_static(const NotStatic &ns) {
  d_.error("static.not-static", ns.span, ns.why);
  return false;
}

bool TypeChecker::report_static(const StaticEvalError &se) {
  d_.error("static.eval", se.span, se.why);
  return false;
}

void TypeChecker::eval_consts() {
  for (auto &[name, idx] : cp_.decls) {
    auto *c = std::get_if<ConstDecl>(&cp_.program.decls[idx]);
    if (!c) continue;
    eval_const(name, *c);
  }
}

void TypeChecker::eval_const(const std::string &name, const ConstDecl &c) {
  if (cp_.static_consts.count(name) || cp_.value_consts.count(name)) return;
  if (const_in_progress_.count(name)) {
    d_.error("name.redefined", c.name_span, "constant '" + name + "' is defined in terms of itself");
    cp_.value_consts[name] = Type::error();
    return;
  }
  const_in_progress_.insert(name);
  DeclScope decl_scope(in_prelude_, cp_.decls[name] < prelude_count());
  // Constants referring to other constants: evaluate those first.
  std::function<void(const Expr &)> deps = [&](const Expr &e) {
    if (e.kind == ExprKind::Var && visible(e.name)) {
      auto it = cp_.decls.find(e.name);
      if (it != cp_.decls.end())
        if (auto *cc = std::get_if<ConstDecl>(&cp_.program.decls[it->second])) eval_const(e.name, *cc);
    }
    for (auto &a : e.args) deps(*a);
  };
  deps(*c.value);
  StaticEnv env;
  bool is_static = true;
  try {
    StaticValue v = eval_static(*c.value, env);
    if (v.kind == StaticValue::ShapeV) check_dims(v.shape, c.value->span);
    if (c.type && c.type->kind == TypeSyntax::Tensor && (c.type->scalar != Scalar::Int || c.type->machine) &&
        v.kind == StaticValue::Int) {  // a real, or a machine integer: a value, of its declared type
      is_static = false;
    } else {
      cp_.static_consts[name] = v;
    }
  } catch (NotStatic &) {
    is_static = false;
  } catch (StaticEvalError &se) {
    report_static(se);
    cp_.value_consts[name] = Type::error();
    const_in_progress_.erase(name);
    return;
  }
  if (!is_static) {
    Ctx ctx;
    ctx.const_mode = true;
    Type t = infer(*c.value, ctx);
    if (c.type) {
      Type want = type_from_syntax(*c.type, ctx);
      if (!unify(t, want)) mismatch(*c.value, t, want, "the constant's declared type");
      t = want;
    }
    cp_.value_consts[name] = t;
  }
  const_in_progress_.erase(name);
}

}  // namespace rml::typecheck
