// Unification of types with metavariables (the unknown types of locals), and the typing
// of expressions: variables and their "did you mean" suggestions, scalar broadcast of
// elementwise operators, stream operators (when/merge/fby/pre/->/post), let and tuples.
// Calls go to typecheck_calls.cpp and builtins to typecheck_builtins.cpp.
#include "sema/typecheck_internal.hpp"

#include "sema/suggest.hpp"

namespace rml::typecheck {

Type TypeChecker::fresh_meta() {
  Type t;
  t.kind = Type::Meta;
  t.meta = static_cast<int>(metas_.size());
  metas_.emplace_back();
  return t;
}

Type TypeChecker::resolve(const Type &t) {
  Type r = t;
  while (r.kind == Type::Meta && metas_[r.meta]) r = *metas_[r.meta];
  return r;
}

Type TypeChecker::zonk(const Type &t) {
  Type r = resolve(t);
  if (r.kind == Type::Tuple)
    for (auto &e : r.elems) e = zonk(e);
  return r;
}

bool TypeChecker::unify(const Type &a0, const Type &b0) {
  Type a = resolve(a0), b = resolve(b0);
  // An error unifies with anything; an unknown local takes it, so no follow-on errors.
  if (a.is_error() && b.kind == Type::Meta) metas_[b.meta] = a;
  if (b.is_error() && a.kind == Type::Meta) metas_[a.meta] = b;
  if (a.is_error() || b.is_error()) return true;
  if (a.kind == Type::Meta) {
    if (!(b.kind == Type::Meta && b.meta == a.meta)) metas_[a.meta] = b;
    return true;
  }
  if (b.kind == Type::Meta) {
    metas_[b.meta] = a;
    return true;
  }
  if (a.kind != b.kind) return false;
  switch (a.kind) {
    case Type::Tensor: return a.same_elem(b) && shape_equal(a.shape, b.shape);
    case Type::TyVar: return a.tyvar == b.tyvar;
    case Type::ShapeT: return true;
    case Type::Tuple:
      if (a.elems.size() != b.elems.size()) return false;
      for (size_t i = 0; i < a.elems.size(); ++i)
        if (!unify(a.elems[i], b.elems[i])) return false;
      return true;
    default: return false;
  }
}

// Reports "this expression has type A but B is expected" with the right rule.
void TypeChecker::mismatch(const Expr &at, const Type &got0, const Type &want0, const std::string &context) {
  Type got = zonk(got0), want = zonk(want0);
  bool shape_only = got.kind == Type::Tensor && want.kind == Type::Tensor && got.same_elem(want);
  auto fixed_rank = [](const Shape &sh) {
    return std::all_of(sh.begin(), sh.end(), [](auto &d) { return std::holds_alternative<Poly>(d); });
  };
  bool rank_differs = shape_only && fixed_rank(got.shape) && fixed_rank(want.shape) && got.shape.size() != want.shape.size();
  d_.error(!shape_only ? "type.mismatch" : rank_differs ? "shape.rank" : "shape.mismatch", start_span(at),
           "this expression has type " + type_str(got) + ", but " + context + " is " + type_str(want));
}

Type TypeChecker::record(const Expr &e, Type t) {
  cp_.expr_types[&e] = t;
  return t;
}

Type TypeChecker::type_from_syntax(const TypeSyntax &ts, Ctx &ctx) {
  if (ts.kind == TypeSyntax::TyVar) return Type::var(ts.tyvar);
  if (ts.kind == TypeSyntax::Shape) return Type::shape_type();
  if (ts.kind == TypeSyntax::Named) return Type::error();  // unresolved: reported by sema/type_decls
  if (ts.kind == TypeSyntax::Array || ts.kind == TypeSyntax::Group) return Type::error();  // reported by sema/expand_aggregates
  if (ts.machine && ctx.in_fun) {  // the function layer's tensors are int, bool and real
    d_.error("syntax.unsupported", ts.span, "machine integers are not available in 'fun' bodies");
    return Type::error();
  }
  Shape shape;
  StaticEnv env = ctx.env();
  for (auto &dim : ts.dims) {
    if (dim.splice_var) {
      // In place (a push_back of a temporary variant draws a GCC 12 -Wmaybe-uninitialized
      // false positive here), from a ShapeSym: clang 14 has no parenthesised aggregate init.
      shape.emplace_back(std::in_place_type<ShapeSym>, ShapeSym{dim.var});
      continue;
    }
    try {
      StaticValue v = eval_static(*dim.expr, env);
      if (v.kind == StaticValue::Int) shape.push_back(v.size);
      else shape.insert(shape.end(), v.shape.begin(), v.shape.end());
    } catch (NotStatic &ns) {
      report_static(ns);
      return Type::error();
    } catch (StaticEvalError &se) {
      report_static(se);
      return Type::error();
    }
  }
  try {
    check_dims(shape, ts.span);
  } catch (StaticEvalError &se) {
    report_static(se);
    return Type::error();
  }
  return with_declared_kind(ts, Type::tensor(ts.scalar, std::move(shape)));
}

// The variables, parameters and statics visible in `ctx` (the user's own names).
std::vector<std::string> TypeChecker::variables_in_scope(const Ctx &ctx) const {
  std::vector<std::string> out;
  for (auto it = ctx.scopes.rbegin(); it != ctx.scopes.rend(); ++it)
    for (auto &[k, v] : *it) out.push_back(k);
  if (ctx.node)
    for (auto &[k, v] : ctx.node->info->vars) out.push_back(k);
  for (auto &[k, v] : ctx.statics) out.push_back(k);
  return out;
}

// " (did you mean 'x'?)": `own` (variables in scope) and the user's declarations first,
// then the prelude's (constants when `values`, else nodes and funs).
std::string TypeChecker::did_you_mean(const std::string &n, std::vector<std::string> own, bool values) const {
  std::vector<std::string> prelude;
  for (auto &[name, idx] : cp_.decls) {
    const Decl &d = cp_.program.decls[idx];
    if (values != std::holds_alternative<ConstDecl>(d)) continue;
    if (!visible(name)) continue;
    (idx < prelude_count() ? prelude : own).push_back(name);
  }
  std::string s = suggest_name(n, own, prelude);
  return s.empty() ? "" : " (did you mean '" + s + "'?)";
}

Type TypeChecker::var_type(const Expr &e, Ctx &ctx) {
  const std::string &n = e.name;
  if (n == "_") {
    d_.error("name.unknown", e.span, "'_' can only appear on the left of an equation");
    return Type::error();
  }
  for (auto it = ctx.scopes.rbegin(); it != ctx.scopes.rend(); ++it) {
    auto f = it->find(n);
    if (f != it->end()) return f->second;
  }
  if (ctx.node) {
    auto &vars = ctx.node->info->vars;
    auto f = vars.find(n);
    if (f != vars.end()) {
      if (f->second.def_eq >= 0 && ctx.node->eq_state[f->second.def_eq] == 0 && ctx.node->depth < 200) {
        ++ctx.node->depth;
        check_equation(*ctx.node, f->second.def_eq);
        --ctx.node->depth;
      }
      return ctx.node->info->vars[n].type;
    }
  }
  auto st = ctx.statics.find(n);
  if (st != ctx.statics.end()) return static_as_value(st->second, e);
  if (visible(n)) {
    if (auto c = cp_.static_consts.find(n); c != cp_.static_consts.end()) return static_as_value(c->second, e);
    if (auto c = cp_.value_consts.find(n); c != cp_.value_consts.end()) return c->second;
  }
  if (auto c = cp_.enum_ctors.find(n); c != cp_.enum_ctors.end() && !in_prelude_) {
    if (ctx.in_fun) {
      d_.error("syntax.unsupported", e.span, "enumerated values ('" + n + "') are not available in 'fun' bodies");
      return Type::error();
    }
    Type t = Type::scalar(Scalar::Int);
    t.enum_name = c->second.first;
    t.ctors = cp_.enums.at(t.enum_name);
    t.range = std::make_pair(int64_t{0}, static_cast<int64_t>(t.ctors->size()) - 1);
    return t;
  }
  if (visible(n)) {
    d_.error("name.unknown", e.span, "'" + n + "' is a node or function, not a variable; call it with arguments");
    return Type::error();
  }
  d_.error("name.unknown", e.span, "unknown variable '" + n + "'" + did_you_mean(n, variables_in_scope(ctx), true));
  return Type::error();
}

Type TypeChecker::static_as_value(const StaticValue &v, const Expr &e) {
  if (v.kind == StaticValue::Int) return Type::scalar(Scalar::Int);
  if (shape_concrete(v.shape))
    return Type::tensor(Scalar::Int, {Poly::constant(static_cast<int64_t>(v.shape.size()))});
  d_.error("static.kind", e.span, "the shape '" + e.name + "' can only be used in static positions");
  return Type::error();
}

bool TypeChecker::require_bool_scalar(const Expr &e, const Type &t0, const char *what) {
  Type t = resolve(t0);
  if (t.is_error()) return true;
  if (t.kind == Type::Meta) return unify(t, Type::scalar(Scalar::Bool));
  if (!t.is_scalar(Scalar::Bool)) {
    d_.error("type.not-bool", start_span(e), std::string(what) + " must be a bool, but it has type " + type_str(zonk(t)));
    return false;
  }
  return true;
}

void TypeChecker::stream_op_in_fun(const Expr &e, Ctx &ctx, const char *what) {
  if (ctx.in_fun)
    d_.error("fun.stream-op", e.op_span.valid() ? e.op_span : e.span,
             std::string("'") + what + "' is a stream operator; it cannot be used in a 'fun' body (the function layer is pure)");
  else if (ctx.is_function)
    d_.error("node.function-stateful", e.op_span.valid() ? e.op_span : e.span,
             std::string("'") + what + "' keeps state; a Lustre 'function' must be stateless (declare it as a 'node')");
  else if (ctx.const_mode)
    d_.error("static.not-static", e.span, std::string("'") + what + "' cannot be used in a constant");
}

// The bitwise operators and shifts are Kind 2's, on machine integers only.
bool TypeChecker::machine_operand(const Expr &operand, const Type &t0, const char *opname) {
  Type t = resolve(t0);
  if (t.is_error()) return false;
  if (t.is_machine()) return true;
  d_.error("type.mismatch", start_span(operand),
           std::string("'") + opname + "' needs machine integers (int8, uint16, sint<N>, ...), found " +
               (t.kind == Type::Meta ? std::string("an operand of unknown type (declare its type)") : type_str(zonk(t))));
  return false;
}

// Arithmetic and ordering are not defined on an enumeration (only = and <>).
Type TypeChecker::not_on_enum(const Expr &e, const Type &t) {
  d_.error("type.not-numeric", start_span(*e.args[0]),
           std::string("'") + op_spelling(e.op) + "' needs int or real operands, not the enumeration " + t.enum_name +
               " (its values compare with '=' and '<>')");
  return Type::error();
}

// An enumeration where a bool clock is expected (`x when k`, `merge k a b`): the clocks on
// its values are written `when C(k)` and `merge k (A -> a) (B -> b)` (sema/expand_enum_clocks).
Type TypeChecker::enum_clock(const Expr &at) {
  d_.error("type.not-bool", start_span(at),
           "a clock on an enumeration's value is written 'x when C(k)' or 'merge k (C1 -> a) (C2 -> b)', "
           "with one clause per constructor");
  return Type::error();
}

// Elementwise binary typing with scalar broadcast.
Type TypeChecker::broadcast(const Expr &e, const Type &l0, const Type &r0, const char *opname) {
  Type l = resolve(l0), r = resolve(r0);
  if (l.is_error() || r.is_error()) return Type::error();
  if (l.kind == Type::Meta || r.kind == Type::Meta) {
    unify(l, r);
    return resolve(l);
  }
  if (l.kind == Type::Tuple || r.kind == Type::Tuple) {
    d_.error("type.tuple", start_span(l.kind == Type::Tuple ? *e.args[0] : *e.args[1]),
             "a call with several outputs cannot be an operand; bind its outputs with 'a, b = f(...)'");
    return Type::error();
  }
  if (l.kind != Type::Tensor || r.kind != Type::Tensor) {
    // A rigid type variable supports no operator: the body must be valid at every type.
    const Expr &bad = l.kind != Type::Tensor ? *e.args[0] : *e.args[1];
    d_.error("type.not-numeric", start_span(bad),
             std::string("'") + opname + "' needs tensors of int, real or bool; this operand has the generic type " +
                 type_str(l.kind != Type::Tensor ? l : r));
    return Type::error();
  }
  if (!l.same_elem(r)) {
    bool machine = l.machine || r.machine;
    d_.error("type.mismatch", start_span(*e.args[1]),
             std::string("the operands of '") + opname + "' have different types: " + type_str(l) + " and " +
                 type_str(r) +
                 (machine ? " (there is no implicit conversion; convert with the type's name, e.g. 'uint8 e', or 'int e')"
                          : " (there is no implicit conversion; use real(...) or int(...))"));
    return Type::error();
  }
  if (shape_equal(l.shape, r.shape)) return l;
  if (l.shape.empty()) return r;
  if (r.shape.empty()) return l;
  d_.error("shape.mismatch", start_span(*e.args[1]),
           std::string("the operands of '") + opname + "' have different shapes: " + type_str(l) + " and " + type_str(r));
  return Type::error();
}

Type TypeChecker::arith(const Expr &e, const Type &l0, const Type &r0, bool may_defer) {
  Type l = resolve(l0), r = resolve(r0);
  Type t;
  const Type &known = l.kind == Type::Meta ? r : l;
  if (may_defer && (l.kind == Type::Meta) != (r.kind == Type::Meta) && known.kind == Type::Tensor && !known.is_enum()) {
    // The untyped operand is a scalar of the other's element or of the other's type (any
    // tensor of that element against a scalar): the result is the other's type against a
    // tensor, not known yet against a scalar.
    t = known.shape.empty() ? fresh_meta() : known;
    DeferredElementwise d{&e, l0, t, op_spelling(e.op), nullptr, Type{}};
    d.binary = &e, d.other = r0;
    deferred_.push_back(std::move(d));
  } else {
    t = broadcast(e, l, r, op_spelling(e.op));
  }
  Type rt = resolve(t);
  if (rt.is_enum()) return not_on_enum(e, rt);
  if (e.op == Op::IntDiv || e.op == Op::Mod) {
    if (rt.kind == Type::Tensor && rt.elem != Scalar::Int) {
      d_.error("type.mismatch", start_span(*e.args[0]),
               std::string("'") + op_spelling(e.op) + "' needs int operands, found " + type_str(rt));
      return Type::error();
    }
  } else if (rt.kind == Type::Tensor && rt.elem == Scalar::Bool) {
    d_.error("type.not-numeric", start_span(*e.args[0]),
             std::string("'") + op_spelling(e.op) + "' needs int or real operands, not bool");
    return Type::error();
  }
  return t;
}

Type TypeChecker::take_deferred_guess(const Type &meta) {
  for (auto &d : deferred_) {
    if (!d.binary) continue;
    Type l = resolve(d.arg_type), r = resolve(d.other);
    for (auto [x, y] : {std::pair{l, r}, std::pair{r, l}})
      if (x.kind == Type::Meta && x.meta == meta.meta && y.kind == Type::Tensor && !y.shape.empty()) {
        unify(x, y);
        return resolve(meta);
      }
  }
  return meta;
}

Type TypeChecker::infer(const Expr &e, Ctx &ctx, bool allow_tuple) {
  Type t = infer_inner(e, ctx, allow_tuple);
  return record(e, t);
}

Type TypeChecker::infer_inner(const Expr &e, Ctx &ctx, bool allow_tuple) {
  switch (e.kind) {
    case ExprKind::IntLit: return Type::scalar(Scalar::Int);
    case ExprKind::RealLit: return Type::scalar(Scalar::Real);
    case ExprKind::BoolLit: return Type::scalar(Scalar::Bool);
    case ExprKind::Var: return var_type(e, ctx);
    case ExprKind::Unary: {
      Type a = infer(*e.args[0], ctx);
      Type r = resolve(a);
      switch (e.op) {
        case Op::Neg:
          if (r.is_enum()) {
            d_.error("type.not-numeric", start_span(*e.args[0]), "unary '-' needs an int or real operand, not the enumeration " + r.enum_name);
            return Type::error();
          }
          if (r.kind == Type::Tensor && r.elem == Scalar::Bool) {
            d_.error("type.not-numeric", start_span(*e.args[0]), "unary '-' needs an int or real operand, not bool");
            return Type::error();
          }
          if (r.kind == Type::TyVar) {
            d_.error("type.not-numeric", start_span(*e.args[0]), "unary '-' needs an int or real operand, not " + r.tyvar);
            return Type::error();
          }
          return a;
        case Op::Not:
          if (r.kind == Type::Meta) {
            unify(r, Type::scalar(Scalar::Bool));
            return a;
          }
          if (!r.is_error() && !(r.kind == Type::Tensor && r.elem == Scalar::Bool)) {
            d_.error("type.not-bool", start_span(*e.args[0]), "'not' needs a bool operand, found " + type_str(zonk(r)));
            return Type::error();
          }
          return a;
        case Op::Pre: stream_op_in_fun(e, ctx, "pre"); return a;
        case Op::Post: stream_op_in_fun(e, ctx, "post"); return a;
        case Op::BitNot: return machine_operand(*e.args[0], a, "!") ? a : Type::error();
        default: return Type::error();
      }
    }
    case ExprKind::Binary: {
      if (e.op == Op::Fby || e.op == Op::Arrow) stream_op_in_fun(e, ctx, e.op == Op::Fby ? "fby" : "->");
      Type l = infer(*e.args[0], ctx);
      if (hint_expr_ == &e) unify(hint_type_, l);  // type a recurrence from its initial value first
      Type r = infer(*e.args[1], ctx);
      switch (e.op) {
        case Op::Fby:
        case Op::Arrow:
          if (!unify(l, r)) {
            mismatch(*e.args[1], r, l, std::string("the other operand of '") + op_spelling(e.op) + "'");
            return Type::error();
          }
          return resolve(l).is_error() ? r : l;
        case Op::Add: case Op::Sub: case Op::Mul: case Op::Div:
        case Op::IntDiv: case Op::Mod: return arith(e, l, r, true);
        case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: {
          Type t = broadcast(e, l, r, op_spelling(e.op));
          Type rt = resolve(t);
          if (rt.kind != Type::Tensor) return rt.is_error() ? rt : Type::scalar(Scalar::Bool);
          if (rt.is_enum() && e.op != Op::Eq && e.op != Op::Ne) return not_on_enum(e, rt);
          if (rt.elem == Scalar::Bool && e.op != Op::Eq && e.op != Op::Ne) {
            d_.error("type.not-numeric", start_span(*e.args[0]),
                     std::string("'") + op_spelling(e.op) + "' compares numbers, not bools");
            return Type::error();
          }
          return Type::tensor(Scalar::Bool, rt.shape);
        }
        case Op::And: case Op::Or: case Op::Xor: case Op::Implies: {
          for (int k = 0; k < 2; ++k) {
            Type x = resolve(k ? r : l);
            if (x.kind == Type::Tensor && x.elem != Scalar::Bool) {
              d_.error("type.not-bool", start_span(*e.args[k]),
                       std::string("'") + op_spelling(e.op) + "' needs bool operands, found " + type_str(x));
              return Type::error();
            }
          }
          return broadcast(e, l, r, op_spelling(e.op));
        }
        case Op::BitAnd:
        case Op::BitOr: {
          if (!machine_operand(*e.args[0], l, op_spelling(e.op)) || !machine_operand(*e.args[1], r, op_spelling(e.op)))
            return Type::error();
          return broadcast(e, l, r, op_spelling(e.op));
        }
        case Op::Lsh:
        case Op::Rsh: {  // Kind 2: the shift is an unsigned machine integer of the operand's width
          if (!machine_operand(*e.args[0], l, op_spelling(e.op)) || !machine_operand(*e.args[1], r, op_spelling(e.op)))
            return Type::error();
          Type x = resolve(l), n = resolve(r);
          if (n.machine->is_signed || n.machine->bits != x.machine->bits || !n.shape.empty()) {
            MachineInt want{x.machine->bits, false};
            d_.error("type.mismatch", start_span(*e.args[1]),
                     std::string("the shift of '") + op_spelling(e.op) + "' is an unsigned machine integer of the operand's width (" +
                         want.name() + "), found " + type_str(n));
            return Type::error();
          }
          return l;
        }
        case Op::Caret:  // nodes' are flattened (sema/expand_aggregates); a fun's arrays are tensors
          d_.error("syntax.unsupported", e.op_span, "Lustre arrays 'e ^ n' are not available in 'fun' bodies (a fun's arrays are tensors)");
          return Type::error();
        default: return Type::error();
      }
    }
    case ExprKind::When: {
      stream_op_in_fun(e, ctx, "when");
      Type a = infer(*e.args[0], ctx);
      Type c = infer(*e.args[1], ctx);
      if (resolve(c).is_enum()) return enum_clock(*e.args[1]);
      require_bool_scalar(*e.args[1], c, "the condition of 'when'");
      return a;
    }
    case ExprKind::Merge: {
      stream_op_in_fun(e, ctx, "merge");
      Type c = infer(*e.args[0], ctx);
      if (resolve(c).is_enum()) return enum_clock(*e.args[0]);
      require_bool_scalar(*e.args[0], c, "the condition of 'merge'");
      Type a = infer(*e.args[1], ctx), b = infer(*e.args[2], ctx);
      if (!unify(a, b)) {
        mismatch(*e.args[2], b, a, "the other branch of the merge");
        return Type::error();
      }
      return resolve(a).is_error() ? b : a;
    }
    case ExprKind::If: {
      Type c = infer(*e.args[0], ctx);
      require_bool_scalar(*e.args[0], c, "the condition of 'if'");
      Type a = infer(*e.args[1], ctx), b = infer(*e.args[2], ctx);
      if (!unify(a, b)) {
        mismatch(*e.args[2], b, a, "the 'then' branch");
        return Type::error();
      }
      return resolve(a).is_error() ? b : a;
    }
    case ExprKind::Let: {
      if (!ctx.in_fun) {
        d_.error("syntax.unsupported", e.op_span, "'let ... in' is only available in 'fun' bodies; in a node, write an equation");
        return Type::error();
      }
      Type v = infer(*e.args[0], ctx);
      ctx.scopes.push_back({{e.name, v}});
      Type b = infer(*e.args[1], ctx);
      ctx.scopes.pop_back();
      return b;
    }
    case ExprKind::Tuple: {
      std::vector<Type> ts;
      for (auto &a : e.args) ts.push_back(infer(*a, ctx));
      if (!allow_tuple) {
        d_.error("type.tuple", e.span, "a tuple can only be the right side of an equation with several variables");
        return Type::error();
      }
      return Type::tuple(std::move(ts));
    }
    case ExprKind::Array: {
      if (e.args.empty()) {
        d_.error("type.missing", e.span, "an empty array literal has no element type (as a shape, '[]' is only valid in static positions)");
        return Type::error();
      }
      Type first = infer(*e.args[0], ctx);
      for (size_t i = 1; i < e.args.size(); ++i) {
        Type t = infer(*e.args[i], ctx);
        if (!unify(first, t)) {
          mismatch(*e.args[i], t, first, "the first element of the array");
          return Type::error();
        }
      }
      Type f = resolve(first);
      if (f.is_error()) return f;
      if (f.kind != Type::Tensor) {
        d_.error("type.not-numeric", e.span, "array literals hold tensors, not " + type_str(f));
        return Type::error();
      }
      Shape s{Poly::constant(static_cast<int64_t>(e.args.size()))};
      s.insert(s.end(), f.shape.begin(), f.shape.end());
      return Type::tensor(f.elem, std::move(s));
    }
    case ExprKind::Index: {
      if (e.args[0]->kind == ExprKind::Var && e.args.size() == 2) {
        auto sv = lookup_static(e.args[0]->name, e.args[0]->span, ctx.env());
        if (sv && sv->kind == StaticValue::ShapeV) {  // `s[k]` of a static shape: a static int
          auto v = static_arg(e, ctx, StaticValue::Int, "indexing the shape '" + e.args[0]->name + "'");
          return v ? Type::scalar(Scalar::Int) : Type::error();
        }
      }
      Type base = resolve(infer(*e.args[0], ctx));
      for (size_t i = 1; i < e.args.size(); ++i) {
        Type it = resolve(infer(*e.args[i], ctx));
        if (it.kind == Type::Meta) unify(it, Type::scalar(Scalar::Int));
        else if (!it.is_error() && !it.is_scalar(Scalar::Int))
          d_.error("type.mismatch", start_span(*e.args[i]), "an index must be an int, found " + type_str(it));
      }
      if (base.is_error()) return base;
      if (base.kind == Type::Meta) base = take_deferred_guess(base);  // an index needs its base typed now
      if (base.kind == Type::Meta) {
        d_.error("type.missing", start_span(*e.args[0]),
                 "the type of this expression is not known here (it depends on itself through a cycle); declare the "
                 "variable's type in a 'var' section");
        return Type::error();
      }
      if (base.kind != Type::Tensor) {
        d_.error("type.mismatch", start_span(*e.args[0]), "only tensors can be indexed, found " + type_str(base));
        return Type::error();
      }
      size_t m = e.args.size() - 1;
      for (size_t i = 0; i < m; ++i) {
        if (i >= base.shape.size()) {
          d_.error("shape.index", start_span(*e.args[i + 1]),
                   "too many indices: " + std::to_string(m) + " for a tensor of type " + type_str(base));
          return Type::error();
        }
        if (!std::holds_alternative<Poly>(base.shape[i])) {
          d_.error("shape.rank", start_span(*e.args[i + 1]),
                   "cannot index a tensor of type " + type_str(base) + ": its rank is not known here");
          return Type::error();
        }
      }
      return Type::tensor(base.elem, Shape(base.shape.begin() + static_cast<long>(m), base.shape.end()));
    }
    case ExprKind::Lambda:
      d_.error("fun.lambda-position", e.span, "a lambda can only be the last argument of build, gather or scatter in a 'fun' body");
      return Type::error();
    case ExprKind::Field:
    case ExprKind::Record:
    case ExprKind::Update:
      // What sema/expand_aggregates could not flatten, it reported; in a `fun` body (never
      // flattened) records are not available.
      if (ctx.in_fun) d_.error("syntax.unsupported", e.span, "records are not available in 'fun' bodies");
      return Type::error();
    case ExprKind::Call: return infer_call(e, ctx, allow_tuple);
    case ExprKind::Reset: {  // f(args) every c: a node instance restarted where c is true
      const Expr &call = *e.args[0];
      Type c = infer(*e.args[1], ctx);
      require_bool_scalar(*e.args[1], c, "the condition of 'every'");
      if (ctx.in_fun || ctx.const_mode) {
        stream_op_in_fun(e, ctx, "every");
        return Type::error();
      }
      auto sig = visible(call.name) ? cp_.sigs.find(call.name) : cp_.sigs.end();
      if (sig != cp_.sigs.end() && !sig->second.is_node) {
        d_.error("reset.not-node", e.op_span,
                 "'every' restarts a node instance; '" + call.name + "' is a function, which has no state to restart");
        return Type::error();
      }
      if (sig == cp_.sigs.end() && (is_builtin(call.name) || call.name == "real" || call.name == "int")) {
        d_.error("reset.not-node", e.op_span,
                 "'every' restarts a node instance; '" + call.name + "' is a builtin, which has no state to restart");
        return Type::error();
      }
      return infer_call(call, ctx, allow_tuple);
    }
  }
  return Type::error();
}

}  // namespace rml::typecheck
