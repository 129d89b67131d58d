// Calls of nodes and funs: static arguments, instantiation of the callee's signature
// (its implicit variables renamed apart, then bound from the actual argument types),
// conversions real(x)/int(x), and the helpers that builtins share (arity, tensor
// arguments, lambda bodies, index lists of gather/scatter).
#include "ops/ops.hpp"
#include "sema/typecheck_internal.hpp"

namespace rml::typecheck {

std::optional<StaticValue> TypeChecker::static_arg(const Expr &a, Ctx &ctx, StaticValue::Kind want,
                                                   const std::string &what) {
  try {
    StaticValue v = eval_static(a, ctx.env());
    if (v.kind != want) {
      d_.error("static.kind", start_span(a),
               what + " expects a static " + (want == StaticValue::Int ? "int" : "shape") + ", found " +
                   (v.kind == StaticValue::Int ? "the int " : "the shape ") + v.str());
      return std::nullopt;
    }
    if (v.kind == StaticValue::ShapeV) {
      // Point at the offending element of a literal shape `[a, b]` when possible.
      if (a.kind == ExprKind::Array && a.args.size() == v.shape.size()) {
        for (size_t i = 0; i < v.shape.size(); ++i) check_dims({v.shape[i]}, a.args[i]->span);
      }
      check_dims(v.shape, a.span);
    }
    cp_.static_args[&a] = v;
    record(a, v.kind == StaticValue::Int ? Type::scalar(Scalar::Int) : Type::shape_type());
    return v;
  } catch (NotStatic &ns) {
    d_.error("static.not-static", start_span(a), what + " must be static: " + ns.why);
  } catch (StaticEvalError &se) {
    report_static(se);
  }
  return std::nullopt;
}

TypeChecker::Renaming TypeChecker::rename_implicit(const Signature &sig) {
  Renaming r;
  for (auto &v : sig.size_vars) {
    r.size_vars.push_back(kFreshMark + v);
    r.to_fresh.statics.sizes[v] = Poly::symbol(r.size_vars.back());
  }
  for (auto &v : sig.shape_vars) {
    r.shape_vars.push_back(kFreshMark + v);
    r.to_fresh.statics.shapes[v] = Shape{ShapeSym{r.shape_vars.back()}};
  }
  for (auto &v : sig.tyvars) {
    r.tyvars.push_back(kFreshMark + v);
    r.to_fresh.tyvars[v] = Type::var(r.tyvars.back());
  }
  return r;
}

// Whether a renamed type still mentions a fresh (unbound) name, also inside an atom.
bool TypeChecker::mentions_fresh(const Shape &sh) {
  for (auto &d : sh) {
    if (auto *p = std::get_if<Poly>(&d)) {
      for (auto &sym : p->symbols())
        if (sym.find(kFreshMark) != std::string::npos) return true;
    } else if (std::get<ShapeSym>(d).name.find(kFreshMark) != std::string::npos) {
      return true;
    }
  }
  return false;
}

// Binds implicit variables of `formal` (renamed apart, see Renaming) from `actual` (no
// errors here: mismatches are reported by the unification that follows).
void TypeChecker::bind_implicit(const Type &formal, const Type &actual0, const Renaming &rn, TypeSubst &s) {
  Type actual = resolve(actual0);
  if (formal.kind == Type::TyVar) {
    if (std::count(rn.tyvars.begin(), rn.tyvars.end(), formal.tyvar) && !s.tyvars.count(formal.tyvar))
      s.tyvars[formal.tyvar] = actual;
    return;
  }
  if (formal.kind != Type::Tensor || actual.kind != Type::Tensor) return;
  const Shape &f = formal.shape;
  const Shape &a = actual.shape;
  int splice = -1;
  for (size_t i = 0; i < f.size(); ++i)
    if (auto *ss = std::get_if<ShapeSym>(&f[i]))
      if (std::count(rn.shape_vars.begin(), rn.shape_vars.end(), ss->name)) splice = static_cast<int>(i);
  auto bind_item = [&](const DimItem &fi, const DimItem &ai) {
    if (auto *p = std::get_if<Poly>(&fi))
      if (auto sym = p->as_symbol())
        if (std::count(rn.size_vars.begin(), rn.size_vars.end(), *sym) && !s.statics.sizes.count(*sym))
          if (auto *q = std::get_if<Poly>(&ai)) s.statics.sizes[*sym] = *q;
  };
  if (splice < 0) {
    for (size_t i = 0; i < f.size() && i < a.size(); ++i) bind_item(f[i], a[i]);
    return;
  }
  size_t pre = static_cast<size_t>(splice), post = f.size() - pre - 1;
  if (a.size() < pre + post) return;
  for (size_t i = 0; i < pre; ++i) bind_item(f[i], a[i]);
  for (size_t i = 0; i < post; ++i) bind_item(f[f.size() - 1 - i], a[a.size() - 1 - i]);
  const std::string &nm = std::get<ShapeSym>(f[pre]).name;
  if (!s.statics.shapes.count(nm))
    s.statics.shapes[nm] = Shape(a.begin() + static_cast<long>(pre), a.end() - static_cast<long>(post));
}

Type TypeChecker::infer_call(const Expr &e, Ctx &ctx, bool allow_tuple) {
  if (e.name == "real" || e.name == "int") return infer_conversion(e, ctx);
  if (auto m = MachineInt::of_cast(e.name); m && !visible(e.name)) return infer_machine_cast(e, ctx, *m);
  if (is_builtin(e.name) && !visible(e.name)) return infer_builtin(e, ctx);
  auto it = visible(e.name) ? cp_.sigs.find(e.name) : cp_.sigs.end();
  if (it == cp_.sigs.end() && cp_.enum_ctors.count(e.name)) {  // `C(k)` outside `when C(k)`
    d_.error("name.unknown", callee_span(e),
             "'" + e.name + "' is a value of the enumeration " + cp_.enum_ctors.at(e.name).first +
                 ", not a node or function ('x when " + e.name + "(k)' samples x where k is " + e.name + ")");
    return Type::error();
  }
  if (it == cp_.sigs.end() && e.name == "condact") {
    // What sema/expand_condact could not expand.
    d_.error("syntax.unsupported", callee_span(e),
             "'condact' is read as 'condact(c, N(args), d1, ..., dn)' with N a node and one default per output, as a whole "
             "right side with as many variables, or with one output inside an expression");
    return Type::error();
  }
  if (it == cp_.sigs.end()) {
    for (auto a = ctx.scopes.rbegin(); a != ctx.scopes.rend(); ++a)
      if (a->count(e.name)) {
        d_.error("name.unknown", callee_span(e), "'" + e.name + "' is a variable, not a node or function");
        return Type::error();
      }
    d_.error("name.unknown", callee_span(e), "unknown node or function '" + e.name + "'" + did_you_mean(e.name, {}, false));
    for (auto &a : e.args) infer(*a, ctx);
    return Type::error();
  }
  const Signature &sig = it->second;
  if (sig.is_node && ctx.in_fun) {
    d_.error("fun.stream-op", callee_span(e), "'" + e.name + "' is a node; a 'fun' body can only call functions");
    return Type::error();
  }
  if (sig.is_node && ctx.const_mode) {
    d_.error("static.not-static", callee_span(e), "a constant cannot instantiate a node");
    return Type::error();
  }
  if (sig.is_node && ctx.is_function && sig.stateful) {
    d_.error("node.function-stateful", callee_span(e),
             "'" + e.name + "' keeps state; a Lustre 'function' must be stateless (declare it as a 'node')");
  }
  if (e.args.size() != sig.inputs.size()) {
    d_.error("arity.args", callee_span(e),
             "'" + e.name + "' takes " + std::to_string(sig.inputs.size()) + " argument" +
                 (sig.inputs.size() == 1 ? "" : "s") + ", but " + std::to_string(e.args.size()) +
                 (e.args.size() == 1 ? " is" : " are") + " given");
    for (auto &a : e.args) infer(*a, ctx);
    return error_outputs(sig, allow_tuple);
  }
  CallInfo ci;
  ci.kind = sig.is_node ? CallInfo::Node : CallInfo::Fun;
  ci.callee = e.name;
  TypeSubst &s = ci.subst;
  bool ok = sig.ok;
  bool any_error_arg = false;
  std::vector<Type> actual(e.args.size());
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Param &p = sig.inputs[i];
    if (p.is_const) {
      auto v = static_arg(*e.args[i], ctx, p.static_kind,
                          "argument " + std::to_string(i + 1) + " of '" + e.name + "' ('const " + p.name + "')");
      if (!v) {
        ok = false;
        continue;
      }
      if (v->kind == StaticValue::Int) s.statics.sizes[p.name] = v->size;
      else s.statics.shapes[p.name] = v->shape;
    } else {
      actual[i] = infer(*e.args[i], ctx);
      if (resolve(actual[i]).is_error()) any_error_arg = true;  // already reported
    }
  }
  if (!ok) return error_outputs(sig, allow_tuple);
  // Pass 1: bind implicit variables; pass 2: unify every argument. Pass 1 binds the
  // renamed-apart variables in `fresh` (which also holds the static arguments), then
  // hands the bindings back under the callee's own names.
  {
    std::vector<std::pair<size_t, Type>> args;
    for (size_t i = 0; i < e.args.size(); ++i)
      if (!sig.inputs[i].is_const) args.emplace_back(i, actual[i]);
    bind_implicit_args(sig, args, s);
  }
  // An argument whose type is still unknown (a cycle through this call) may leave the
  // callee's implicit variables unbound: the outputs are then unknown too. The silent
  // probe pass moves on (its hints type the argument for the real pass); the real pass
  // asks for a declaration.
  if (ok && !any_error_arg && leaves_unbound(sig, s)) {
    for (size_t i = 0; i < e.args.size(); ++i)
      if (!sig.inputs[i].is_const && resolve(actual[i]).kind == Type::Meta) {
        if (d_.silent) return tuple_or_one_impl(fresh_outputs(sig.outputs.size()), allow_tuple);
        argument_type_missing(*e.args[i]);
        return error_outputs(sig, allow_tuple);
      }
  }
  for (size_t i = 0; i < e.args.size(); ++i) {
    const Param &p = sig.inputs[i];
    if (p.is_const) continue;
    Type want = s.apply(p.type);
    Type got = resolve(actual[i]);
    if (got.kind == Type::Tuple) {
      d_.error("type.tuple", start_span(*e.args[i]), "a call with several outputs cannot be an argument");
      ok = false;
      continue;
    }
    if (!sig.is_node && got.kind == Type::Meta && unbound_in(sig, s, p.type)) {
      DeferredElementwise d{e.args[i].get(), actual[i], Type::error(), e.name, nullptr, Type{}};
      d.call = &e, d.arg_index = i;
      deferred_.push_back(std::move(d));
      continue;
    }
    if (!unify(got, want)) {
      mismatch(*e.args[i], got, want,
               "argument " + std::to_string(i + 1) + " ('" + p.name + "') of '" + e.name + "'");
      ok = false;
    }
  }
  if (!ok || any_error_arg) {
    // Outputs fixed by the static arguments alone are still known: keep checking with them.
    if (auto early = early_outputs(e, ctx)) {
      if (early->size() == 1) return (*early)[0];
      if (allow_tuple) return Type::tuple(*early);
    }
    return error_outputs(sig, allow_tuple);
  }
  cp_.calls[&e] = ci;
  std::vector<Type> outs;
  for (auto &o : sig.outputs) outs.push_back(s.apply(o));
  if (outs.size() == 1) return outs[0];
  if (!allow_tuple) {
    d_.error(outs.empty() ? "arity.outputs" : "type.tuple", callee_span(e),
             "'" + e.name + "' has " + std::to_string(outs.size()) +
                 " outputs; bind them with an equation 'a, b = " + e.name + "(...)'");
    return Type::error();
  }
  return Type::tuple(std::move(outs));
}

// Whether t (a type of sig's) mentions an implicit variable the substitution lacks.
bool TypeChecker::unbound_in(const Signature &sig, const TypeSubst &s, const Type &o) {
  if (o.kind == Type::TyVar) return std::count(sig.tyvars.begin(), sig.tyvars.end(), o.tyvar) && !s.tyvars.count(o.tyvar);
  if (o.kind != Type::Tensor) return false;
  for (auto &d : o.shape) {
    if (auto *p = std::get_if<Poly>(&d)) {
      for (auto &sym : p->symbols())
        if (std::count(sig.size_vars.begin(), sig.size_vars.end(), sym) && !s.statics.sizes.count(sym)) return true;
    } else {
      const std::string &nm = std::get<ShapeSym>(d).name;
      if (std::count(sig.shape_vars.begin(), sig.shape_vars.end(), nm) && !s.statics.shapes.count(nm)) return true;
    }
  }
  return false;
}

// Whether the signature's outputs mention an implicit variable the substitution lacks.
bool TypeChecker::leaves_unbound(const Signature &sig, const TypeSubst &s) {
  for (auto &o : sig.outputs)
    if (o.kind == Type::TyVar ? !s.tyvars.count(o.tyvar) : unbound_in(sig, s, o)) return true;
  return false;
}

// Binds sig's implicit variables from the arguments' types (`args`: parameter index and
// type), renamed apart first and handed back under the callee's own names; a variable
// `s` binds already keeps its binding.
void TypeChecker::bind_implicit_args(const Signature &sig, const std::vector<std::pair<size_t, Type>> &args, TypeSubst &s) {
  Renaming rn = rename_implicit(sig);
  TypeSubst fresh = s;
  for (auto &[i, t] : args) {
    Type partial = fresh.apply(rn.to_fresh.apply(sig.inputs[i].type));
    bind_implicit(partial, t, rn, fresh);
  }
  for (size_t k = 0; k < sig.size_vars.size(); ++k)
    if (auto b = fresh.statics.sizes.find(rn.size_vars[k]); b != fresh.statics.sizes.end())
      s.statics.sizes.emplace(sig.size_vars[k], b->second);
  for (size_t k = 0; k < sig.shape_vars.size(); ++k)
    if (auto b = fresh.statics.shapes.find(rn.shape_vars[k]); b != fresh.statics.shapes.end())
      s.statics.shapes.emplace(sig.shape_vars[k], b->second);
  for (size_t k = 0; k < sig.tyvars.size(); ++k)
    if (auto b = fresh.tyvars.find(rn.tyvars[k]); b != fresh.tyvars.end()) s.tyvars.emplace(sig.tyvars[k], b->second);
}

void TypeChecker::argument_type_missing(const Expr &arg) {
  d_.error("type.missing", start_span(arg),
           "the type of this argument is not known here (it depends on itself through a cycle); declare the "
           "variable's type in a 'var' section");
}

std::vector<Type> TypeChecker::fresh_outputs(size_t n) {
  std::vector<Type> v;
  for (size_t k = 0; k < n; ++k) v.push_back(fresh_meta());
  return v;
}

// After an error in a call: error values, but as many as the callee has outputs, so
// that an equation binding the wrong number of them is still reported.
Type TypeChecker::tuple_or_one_impl(std::vector<Type> ts, bool allow_tuple) {
  if (ts.size() == 1) return ts[0];
  if (!allow_tuple) return Type::error();
  return Type::tuple(std::move(ts));
}

Type TypeChecker::error_outputs(const Signature &sig, bool allow_tuple) {
  if (sig.outputs.size() <= 1 || !allow_tuple) return Type::error();
  return Type::tuple(std::vector<Type>(sig.outputs.size(), Type::error()));
}

Type TypeChecker::infer_conversion(const Expr &e, Ctx &ctx) {
  if (e.args.size() != 1) {
    d_.error("arity.args", callee_span(e), "'" + e.name + "' takes 1 argument");
    return Type::error();
  }
  Type a = resolve(infer(*e.args[0], ctx));
  if (a.is_error()) return a;
  Scalar from = e.name == "real" ? Scalar::Int : Scalar::Real;
  Scalar to = e.name == "real" ? Scalar::Real : Scalar::Int;
  if (a.kind == Type::Meta) {
    cp_.calls[&e] = CallInfo{CallInfo::Builtin, e.name, {}};
    return defer_elementwise(*e.args[0], a, fresh_meta(), e.name);
  }
  if (e.name == "int" && a.is_machine()) {  // Kind 2's `int` of a machine integer: its value
    cp_.calls[&e] = CallInfo{CallInfo::Builtin, e.name, {}};
    return Type::tensor(Scalar::Int, a.shape);
  }
  if (a.kind != Type::Tensor || a.elem != from) {
    d_.error("type.mismatch", start_span(*e.args[0]), elementwise_mismatch(e.name, a));
    return Type::error();
  }
  cp_.calls[&e] = CallInfo{CallInfo::Builtin, e.name, {}};
  return Type::tensor(to, a.shape);
}

// Kind 2's conversions to a machine integer: of an int (any value, wrapped to the width),
// or of a machine integer of the same signedness (kept when it fits, wrapped otherwise).
Type TypeChecker::infer_machine_cast(const Expr &e, Ctx &ctx, MachineInt to) {
  if (e.args.size() != 1) {
    d_.error("arity.args", callee_span(e), "'" + to.name() + "' takes 1 argument");
    return Type::error();
  }
  if (ctx.in_fun) {
    d_.error("syntax.unsupported", callee_span(e), "machine integers are not available in 'fun' bodies");
    return Type::error();
  }
  Type a = resolve(infer(*e.args[0], ctx));
  if (a.is_error()) return a;
  bool from_int = a.kind == Type::Tensor && a.elem == Scalar::Int && !a.is_enum() &&
                  (!a.machine || a.machine->is_signed == to.is_signed);
  if (!from_int) {
    d_.error("type.mismatch", start_span(*e.args[0]),
             "'" + to.name() + "' converts an int or a" + (to.is_signed ? " signed" : "n unsigned") +
                 " machine integer, found " + (a.kind == Type::Meta ? std::string("an operand of unknown type") : type_str(zonk(a))));
    return Type::error();
  }
  cp_.calls[&e] = CallInfo{CallInfo::Builtin, e.name, {}};
  Type t = Type::tensor(Scalar::Int, a.shape);
  t.machine = to;
  t.range = std::make_pair(to.lo(), to.hi());
  return t;
}

std::string TypeChecker::elementwise_mismatch(const std::string &name, const Type &arg) {
  if (name == "real" || name == "int") {
    Scalar from = name == "real" ? Scalar::Int : Scalar::Real, to = name == "real" ? Scalar::Real : Scalar::Int;
    return "'" + name + "' converts " + scalar_name(from) + " to " + scalar_name(to) + ", found " + type_str(arg);
  }
  return "'" + name + "' needs a real argument, found " + type_str(arg);
}

Type TypeChecker::defer_elementwise(const Expr &arg, const Type &arg_type, const Type &result, const std::string &name) {
  deferred_.push_back({&arg, arg_type, result, name, nullptr, Type{}});
  return result;
}

void TypeChecker::settle_elementwise() {
  std::vector<DeferredElementwise> list;
  list.swap(deferred_);
  // Arithmetic operators first: each whose operands are both typed now gets its rule (one
  // settled may type another's operand); those still open take the guess made before
  // deferral, both operands of one type.
  std::vector<uint8_t> done(list.size(), 0);
  for (bool progress = true; progress;) {
    progress = false;
    for (size_t k = 0; k < list.size(); ++k) {
      auto &d = list[k];
      if (!d.binary || done[k]) continue;
      Type l = zonk(d.arg_type), r = zonk(d.other);
      if (!l.is_error() && !r.is_error() && (l.kind == Type::Meta || r.kind == Type::Meta)) continue;
      done[k] = 1, progress = true;
      if (l.is_error() || r.is_error()) continue;
      Type t = arith(*d.binary, l, r, false);
      if (!t.is_error() && !unify(d.result, t)) mismatch(*d.binary, d.result, t, "the result of '" + d.name + "'");
    }
  }
  for (size_t k = 0; k < list.size(); ++k) {
    auto &d = list[k];
    if (!d.binary || done[k]) continue;
    Type t = arith(*d.binary, d.arg_type, d.other, false);
    if (!t.is_error() && !unify(d.result, t)) mismatch(*d.binary, d.result, t, "the result of '" + d.name + "'");
  }
  // Funs' arguments, in order: the first typed binds the implicit size, the others are
  // checked against it.
  for (auto &d : list) {
    if (!d.call) continue;
    Type a = zonk(d.arg_type);
    auto ci = cp_.calls.find(d.call);
    if (a.is_error() || ci == cp_.calls.end()) continue;
    if (a.kind == Type::Meta) {
      argument_type_missing(*d.arg);
      continue;
    }
    const Signature &sig = cp_.sigs.at(d.call->name);
    TypeSubst &s = ci->second.subst;
    bind_implicit_args(sig, {{d.arg_index, a}}, s);
    Type want = s.apply(sig.inputs[d.arg_index].type);
    if (!unify(a, want))
      mismatch(*d.arg, a, want, "argument " + std::to_string(d.arg_index + 1) + " ('" + sig.inputs[d.arg_index].name + "') of '" + d.name + "'");
  }
  for (auto &d : list) {
    if (d.binary || d.call) continue;
    Type a = zonk(d.arg_type);
    if (a.is_error() || a.kind == Type::Meta) continue;  // still unknown: the variable's type.missing says so
    if (a.kind != Type::Tensor) {
      require_tensor(*d.arg, a, "the argument of '" + d.name + "'");
      continue;
    }
    std::optional<ops::UnOp> u = ops::find_unary(d.name);
    std::optional<Scalar> out = u ? ops::result_type(ops::row(*u).typing, a.elem) : std::nullopt;
    if (!out) {
      d_.error("type.mismatch", start_span(*d.arg), elementwise_mismatch(d.name, a));
      continue;
    }
    Type want = Type::tensor(*out, a.shape);
    if (!unify(d.result, want)) mismatch(*d.arg, d.result, want, "the result of '" + d.name + "'");
  }
}

bool TypeChecker::arity(const Expr &e, size_t lo, size_t hi) {
  if (e.args.size() < lo || e.args.size() > hi) {
    d_.error("arity.args", callee_span(e),
             "'" + e.name + "' takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi)) +
                 " arguments, but " + std::to_string(e.args.size()) + " are given");
    return false;
  }
  return true;
}

Type TypeChecker::need_tensor(const Expr &a, Ctx &ctx, const std::string &what) {
  return require_tensor(a, resolve(infer(a, ctx)), what);
}

Type TypeChecker::require_tensor(const Expr &a, const Type &t, const std::string &what) {
  if (t.is_error()) return t;
  if (t.kind != Type::Tensor) {
    d_.error("type.mismatch", start_span(a), what + " must be a tensor, found " + type_str(t));
    return Type::error();
  }
  return t;
}

// Known leading dims (before any abstract shape) of a type.
size_t TypeChecker::known_prefix(const Shape &s) {
  size_t k = 0;
  while (k < s.size() && std::holds_alternative<Poly>(s[k])) ++k;
  return k;
}

Type TypeChecker::lambda_body(const Expr &lam, size_t n_binders, Ctx &ctx, const std::string &what) {
  if (lam.kind != ExprKind::Lambda) {
    d_.error("fun.lambda-position", start_span(lam), what + " needs a lambda '\\(i, ...) => e' as its last argument");
    return Type::error();
  }
  if (lam.binders.size() != n_binders) {
    d_.error("arity.args", lam.span,
             what + ": the lambda binds " + std::to_string(lam.binders.size()) + " index variable(s), " +
                 std::to_string(n_binders) + " expected");
    return Type::error();
  }
  std::map<std::string, Type> scope;
  for (auto &b : lam.binders) scope[b] = Type::scalar(Scalar::Int);
  ctx.scopes.push_back(scope);
  Type t = infer(*lam.args[0], ctx, false);
  ctx.scopes.pop_back();
  record(lam, t);
  return t;
}

// Index list of gather/scatter lambdas: `[e1, .., ep]` of int scalars.
std::optional<size_t> TypeChecker::index_list(const Expr &lam, size_t n_binders, Ctx &ctx, const std::string &what) {
  if (lam.kind != ExprKind::Lambda) {
    d_.error("fun.lambda-position", start_span(lam), what + " needs a lambda '\\(i, ...) => [ix, ...]' as its last argument");
    return std::nullopt;
  }
  if (lam.binders.size() != n_binders) {
    d_.error("arity.args", lam.span,
             what + ": the lambda binds " + std::to_string(lam.binders.size()) + " index variable(s), " +
                 std::to_string(n_binders) + " expected");
    return std::nullopt;
  }
  const Expr &body = *lam.args[0];
  if (body.kind != ExprKind::Array) {
    d_.error("type.mismatch", start_span(body), what + ": the lambda must return an index list '[i1, ...]'");
    return std::nullopt;
  }
  std::map<std::string, Type> scope;
  for (auto &b : lam.binders) scope[b] = Type::scalar(Scalar::Int);
  ctx.scopes.push_back(scope);
  bool ok = true;
  for (auto &ix : body.args) {
    Type t = resolve(infer(*ix, ctx));
    if (!t.is_error() && !t.is_scalar(Scalar::Int)) {
      d_.error("type.mismatch", start_span(*ix), what + ": index components must be int scalars, found " + type_str(t));
      ok = false;
    }
  }
  ctx.scopes.pop_back();
  if (!ok) return std::nullopt;
  return body.args.size();
}

}  // namespace rml::typecheck
