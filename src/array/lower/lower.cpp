#include "array/lower/lower.hpp"

#include <algorithm>
#include <functional>
#include <optional>

#include "array/eval.hpp"
#include "ops/ops.hpp"

namespace rml::lower {

namespace {

std::string render_for_what(const Diagnostic &d) {
  std::string s = render(d);
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

[[noreturn]] void fail(const std::string &rule, Span span, std::string msg) {
  Diagnostic d;
  d.rule = rule;
  d.span = span;
  d.message = std::move(msg);
  throw LowerError(std::move(d));
}

// The span of an expression's head, as the checker reports it (the whole span of a large
// expression would underline several lines).
Span head_span(const Expr &e) {
  if (e.op_span.valid()) return e.op_span;
  return e.span;
}


std::optional<int64_t> as_const(const Poly &p) {
  if (!p.is_const()) return std::nullopt;
  return p.const_value();
}

std::optional<ir::Shape> as_concrete(const Shape &s) {
  ir::Shape out;
  for (auto &d : s) {
    auto *p = std::get_if<Poly>(&d);
    if (!p || !p->is_const()) return std::nullopt;
    out.push_back(p->const_value());
  }
  return out;
}

// A builtin without lambda (everything but build, gather and scatter) applied to lowered
// arguments; its static arguments come from `st` (source expressions in a fun body,
// concrete values at a node's application).
struct BuiltinStatics {
  size_t count = 0;
  std::function<int64_t(size_t)> int_at;
  std::function<ir::Shape(size_t)> shape_at;
  std::function<Span(size_t)> span_at;
};
ir::Term lower_plain_builtin(const std::string &n, const BuiltinStatics &st, const std::vector<ir::Term> &args, Span span) {
  auto arity = [&](size_t nstatic, size_t nargs) {
    if (st.count != nstatic || args.size() != nargs)
      fail("arity.args", span, "'" + n + "' with " + std::to_string(st.count + args.size()) + " arguments cannot be lowered");
  };
  // The elementwise builtins of the operator table (exp, floor, real, max, ...).
  if (auto u = ops::find_unary(n); u && ops::row(*u).spelling == ops::Spelling::Builtin) {
    arity(0, 1);
    return ir::unary(*u, args[0]);
  }
  if (auto b = ops::find_binary(n); b && ops::row(*b).spelling == ops::Spelling::Builtin) {
    arity(0, 2);
    return ir::broadcast_binary(*b, args[0], args[1]);
  }
  if (n == "iota") {
    arity(1, 0);
    return ir::iota(st.int_at(0));
  }
  if (n == "replicate") {
    arity(1, 1);
    return ir::replicate(st.int_at(0), args[0]);
  }
  if (n == "reshape") {
    arity(1, 1);
    return ir::reshape(st.shape_at(0), args[0]);
  }
  if (n == "sumOuter") {
    arity(0, 1);
    return ir::sum_outer(args[0]);
  }
  if (n == "tr") {
    arity(0, 1);
    return ir::tr(args[0]);
  }
  if (n == "transpose") {
    arity(1, 1);
    return ir::transpose(st.shape_at(0), args[0]);
  }
  if (n == "sum" && st.count == 0) {
    arity(0, 1);
    // The evaluator adds the elements in row-major order from 0: sumOuter of the
    // flattened tensor associates the same way.
    ir::Term t = args[0];
    if (t->type.rank() != 1) t = ir::reshape({ir::numel(t->type.shape)}, t);
    return ir::sum_outer(t);
  }
  if (n == "sum") {
    arity(1, 1);
    // sum(#axis, t): move the axis to the front (the others keep their order), then
    // sumOuter, as the evaluator does.
    int64_t axis = st.int_at(0);
    ir::Term t = args[0];
    if (axis < 0 || static_cast<size_t>(axis) >= t->type.rank())
      fail("shape.rank", st.span_at(0), "axis " + std::to_string(axis) + " is not a dimension of " + t->type.str());
    if (axis > 0) {
      ir::Shape perm{axis};
      for (int64_t d = 0; d < axis; ++d) perm.push_back(d);
      t = ir::transpose(perm, t);
    }
    return ir::sum_outer(t);
  }
  fail("lower.unsupported", span, "the builtin '" + n + "' cannot be lowered to the array IR");
}

class Lowerer {
 public:
  explicit Lowerer(const CheckedProgram &cp) : cp_(cp) {}

  struct Env {
    std::vector<std::pair<std::string, ir::Term>> scopes;  // surface name -> IR term (a variable or a constant)
    StaticSubst statics;                                   // concrete
  };

  // The body of `f` with its value parameters bound to `args` (variables or constants:
  // callers let-bind anything else) and its static names completed from their shapes.
  ir::Term body(const FunDecl &f, StaticSubst s, const std::vector<ir::Term> &args, Span call) {
    if (++depth_ > kMaxDepth) fail("lower.depth", call, "calls nested more than " + std::to_string(kMaxDepth) + " deep");
    const Signature &sig = cp_.sigs.at(f.name);
    Env env;
    size_t k = 0;
    for (auto &p : sig.inputs) {
      if (p.is_const) continue;
      const ir::Term &a = args.at(k++);
      env.scopes.emplace_back(p.name, a);
      if (p.type.kind != Type::Tensor) continue;
      array::bind_implicit(s.apply(p.type.shape), a->type.shape, s);
    }
    env.statics = std::move(s);
    ir::Term out = lower(*f.body, env);
    --depth_;
    return out;
  }

  ir::Term lower(const Expr &e, Env &env) {
    try {
      return lower_inner(e, env);
    } catch (ir::IrError &err) {
      // A checked program always builds; reaching this is a front-end/IR disagreement.
      fail("lower.ir", head_span(e), std::string("the IR rejects this construct: ") + err.what());
    } catch (StaticError &err) {
      fail("static.eval", head_span(e), err.what());
    }
  }

 private:
  static constexpr int kMaxDepth = 10000;
  const CheckedProgram &cp_;
  std::map<std::string, ir::Term> const_cache_;
  std::vector<std::string> consts_in_progress_;
  int depth_ = 0;

  StaticValue static_of(const Expr &e, const Env &env) const {
    auto it = cp_.static_args.find(&e);
    if (it == cp_.static_args.end()) fail("lower.internal", head_span(e), "this static argument has no recorded value");
    StaticValue v = it->second;
    if (v.kind == StaticValue::Int) v.size = env.statics.apply(v.size);
    else v.shape = env.statics.apply(v.shape);
    return v;
  }
  int64_t static_int(const Expr &e, const Env &env) const {
    StaticValue v = static_of(e, env);
    if (v.kind != StaticValue::Int || !v.size.is_const())
      fail("lower.static", head_span(e), "this static int is not known at this use: " + v.str());
    return v.size.const_value();
  }
  ir::Shape static_shape(const Expr &e, const Env &env) const {
    StaticValue v = static_of(e, env);
    if (v.kind == StaticValue::Int) {
      if (!v.size.is_const()) fail("lower.static", head_span(e), "this static size is not known at this use: " + v.str());
      return {v.size.const_value()};
    }
    auto s = as_concrete(v.shape);
    if (!s) fail("lower.static", head_span(e), "this static shape is not known at this use: " + v.str());
    return *s;
  }

  // let-binds a term unless it is a variable or a constant, so that an argument used
  // several times in a body is computed once.
  static ir::Term bind_arg(const ir::Term &t, const std::string &hint, std::vector<std::pair<std::string, ir::Term>> &lets) {
    if (t->kind == ir::Kind::Var || t->kind == ir::Kind::Const) return t;
    std::string x = ir::fresh_name(hint);
    lets.emplace_back(x, t);
    return ir::var(x, t->type);
  }
  static ir::Term wrap_lets(ir::Term body, const std::vector<std::pair<std::string, ir::Term>> &lets) {
    for (size_t k = lets.size(); k-- > 0;) body = ir::let(lets[k].first, lets[k].second, body);
    return body;
  }

  ir::Term lookup(const Expr &e, Env &env) {
    for (auto it = env.scopes.rbegin(); it != env.scopes.rend(); ++it)
      if (it->first == e.name) return it->second;
    if (auto it = env.statics.sizes.find(e.name); it != env.statics.sizes.end()) {
      auto v = as_const(it->second);
      if (!v) fail("lower.static", e.span, "the size '" + e.name + "' is not known at this use: " + it->second.str());
      return ir::int_scalar(*v);
    }
    if (auto it = env.statics.shapes.find(e.name); it != env.statics.shapes.end()) {
      // A shape name as a value: the int vector of its dims (the checker allows it when concrete).
      auto s = as_concrete(it->second);
      if (!s) fail("lower.static", e.span, "the shape '" + e.name + "' is not known at this use");
      array::Tensor t = array::Tensor::zeros(Scalar::Int, {static_cast<int64_t>(s->size())});
      t.i = *s;
      return ir::constant(std::move(t));
    }
    if (auto it = cp_.static_consts.find(e.name); it != cp_.static_consts.end() && it->second.kind == StaticValue::Int) {
      auto v = as_const(it->second.size);
      if (!v) fail("lower.static", e.span, "the constant '" + e.name + "' is not a concrete int");
      return ir::int_scalar(*v);
    }
    if (auto it = const_cache_.find(e.name); it != const_cache_.end()) return it->second;
    if (const Decl *d = cp_.find(e.name))
      if (auto *c = std::get_if<ConstDecl>(d)) return global_const(*c, e);
    fail("name.unknown", e.span, "unbound name '" + e.name + "' in a fun body");
  }

  // A global constant: lowered once (closed), evaluated, and used as a literal.
  ir::Term global_const(const ConstDecl &c, const Expr &use) {
    if (std::count(consts_in_progress_.begin(), consts_in_progress_.end(), c.name))
      fail("lower.internal", use.span, "the constant '" + c.name + "' depends on itself");
    consts_in_progress_.push_back(c.name);
    Env empty;
    ir::Term t = lower(*c.value, empty);
    consts_in_progress_.pop_back();
    ir::Term v = ir::constant(ir::evaluate(t, {}));
    const_cache_[c.name] = v;
    return v;
  }

  // The surface operator symbols are the table's (ops.hpp); `->` and `fby` are not there.
  static ir::BinOp bin_op(Op op, Scalar elem, Span at) {
    if (op == Op::Div && elem == Scalar::Int) return ir::BinOp::IDiv;  // `/` on ints is div
    if (auto b = ops::find_binary(op_spelling(op)); b && ops::row(*b).spelling == ops::Spelling::Operator) return *b;
    fail("fun.stream-op", at, std::string("'") + op_spelling(op) + "' cannot be lowered: it is not an operator of the function layer");
  }

  ir::Term lower_inner(const Expr &e, Env &env) {
    // rank(s), prod(s), s[k], and static ints in value positions: int constants.
    if (auto it = cp_.static_args.find(&e); it != cp_.static_args.end() && it->second.kind == StaticValue::Int)
      return ir::int_scalar(static_int(e, env));
    switch (e.kind) {
      case ExprKind::IntLit: return ir::int_scalar(e.ival);
      case ExprKind::RealLit: return ir::real_scalar(e.rval);
      case ExprKind::BoolLit: return ir::constant(array::Tensor::boolean(e.bval));
      case ExprKind::Var: return lookup(e, env);
      case ExprKind::Unary: {
        std::optional<ops::UnOp> u = ops::find_unary(op_spelling(e.op));
        if (!u || ops::row(*u).spelling != ops::Spelling::Operator)
          fail("fun.stream-op", head_span(e), std::string("'") + op_spelling(e.op) + "' is a stream operator; it cannot be lowered");
        ir::Term a = lower(*e.args[0], env);
        return ir::unary(*u, a);
      }
      case ExprKind::Binary: {
        ir::Term a = lower(*e.args[0], env), b = lower(*e.args[1], env);
        return ir::broadcast_binary(bin_op(e.op, a->type.elem, head_span(e)), a, b);
      }
      case ExprKind::If: {  // strict cond: both branches are computed, then one is selected
        ir::Term c = lower(*e.args[0], env), a = lower(*e.args[1], env), b = lower(*e.args[2], env);
        return ir::cond(c, a, b);
      }
      case ExprKind::Let: {
        ir::Term u = lower(*e.args[0], env);
        std::string x = ir::fresh_name(e.name);
        env.scopes.emplace_back(e.name, ir::var(x, u->type));
        ir::Term v = lower(*e.args[1], env);
        env.scopes.pop_back();
        return ir::let(x, u, v);
      }
      case ExprKind::Index: {
        ir::Term base = lower(*e.args[0], env);
        std::vector<ir::Term> ix;
        for (size_t k = 1; k < e.args.size(); ++k) ix.push_back(lower(*e.args[k], env));
        return ir::index(base, std::move(ix));
      }
      case ExprKind::Array: {
        std::vector<ir::Term> parts;
        for (auto &a : e.args) parts.push_back(lower(*a, env));
        return ir::from_list(std::move(parts));
      }
      case ExprKind::Call: return call(e, env);
      case ExprKind::When:
      case ExprKind::Merge:
      case ExprKind::Reset:
        fail("fun.stream-op", head_span(e), "a stream operator cannot be lowered to the array IR");
      case ExprKind::Tuple: fail("type.tuple", e.span, "a tuple cannot be lowered to the array IR");
      case ExprKind::Field:
      case ExprKind::Record:
      case ExprKind::Update: fail("lower.internal", e.span, "records are flattened before type checking");
      case ExprKind::Lambda:
        fail("fun.lambda-position", e.span, "a lambda can only be the last argument of build, gather or scatter");
    }
    fail("lower.internal", e.span, "unknown expression kind");
  }

  ir::Term call(const Expr &e, Env &env) {
    auto ci = cp_.calls.find(&e);
    if (ci == cp_.calls.end()) fail("lower.unresolved", e.span, "the call to '" + e.name + "' was not resolved by the checker");
    if (ci->second.kind == CallInfo::Node)
      fail("fun.stream-op", e.span, "'" + e.name + "' is a node; only funs can be lowered to the array IR");
    if (ci->second.kind == CallInfo::Builtin) return builtin(e, env);
    const Decl *d = cp_.find(e.name);
    const FunDecl *f = d ? std::get_if<FunDecl>(d) : nullptr;
    if (!f) fail("lower.unknown-fun", e.span, "unknown fun '" + e.name + "'");
    const Signature &sig = cp_.sigs.at(e.name);
    // The callee's static names, as the checker bound them, made concrete here.
    StaticSubst s;
    for (auto &[k, v] : ci->second.subst.statics.sizes) s.sizes[k] = env.statics.apply(v);
    for (auto &[k, v] : ci->second.subst.statics.shapes) s.shapes[k] = env.statics.apply(v);
    std::vector<std::pair<std::string, ir::Term>> lets;
    std::vector<ir::Term> args;
    for (size_t k = 0; k < e.args.size() && k < sig.inputs.size(); ++k)
      if (!sig.inputs[k].is_const) args.push_back(bind_arg(lower(*e.args[k], env), sig.inputs[k].name, lets));
    return wrap_lets(body(*f, std::move(s), args, e.span), lets);
  }

  ir::Term lambda_scope(const Expr &lam, Env &env, std::vector<std::string> &names, const std::function<ir::Term()> &inside) {
    for (auto &b : lam.binders) {
      names.push_back(ir::fresh_name(b));
      env.scopes.emplace_back(b, ir::var(names.back(), ir::Type{Scalar::Int, {}}));
    }
    ir::Term t = inside();
    env.scopes.resize(env.scopes.size() - lam.binders.size());
    return t;
  }

  ir::Term builtin(const Expr &e, Env &env) {
    const std::string &n = e.name;
    auto want_lambda = [&](const Expr &lam, size_t binders) {
      if (lam.kind != ExprKind::Lambda || lam.binders.size() != binders)
        fail("fun.lambda-position", lam.span, "'" + n + "' needs a lambda with " + std::to_string(binders) + " binder(s) here");
    };
    if (n == "build") {
      ir::Shape dom = static_shape(*e.args.at(0), env);
      const Expr &lam = *e.args.at(1);
      want_lambda(lam, dom.size());
      std::vector<std::string> names;
      ir::Term t = lambda_scope(lam, env, names, [&] { return lower(*lam.args[0], env); });
      // build(#[k1..kn], \(i1..in) => t) = build1 k1 (\i1. .. build1 kn (\in. t)): row-major,
      // the order in which the evaluator fills the result.
      for (size_t d = dom.size(); d-- > 0;) t = ir::build1(dom[d], names[d], t);
      return t;
    }
    if (n == "gather" || n == "scatter") {
      ir::Shape sh = static_shape(*e.args.at(0), env);
      ir::Term t = lower(*e.args.at(1), env);
      const Expr &lam = *e.args.at(2);
      if (lam.kind != ExprKind::Lambda || lam.args.empty() || lam.args[0]->kind != ExprKind::Array)
        fail("fun.lambda-position", lam.span, "'" + n + "' needs a lambda returning an index list '[i1, ...]'");
      std::vector<std::string> names;
      std::vector<ir::Term> ix;
      lambda_scope(lam, env, names, [&] {
        for (auto &c : lam.args[0]->args) ix.push_back(lower(*c, env));
        return ir::Term{};
      });
      return n == "gather" ? ir::gather(sh, t, names, ix) : ir::scatter(sh, t, names, ix);
    }
    std::vector<const Expr *> static_exprs;
    std::vector<ir::Term> args;
    for (size_t k = 0; k < e.args.size(); ++k) {
      if (builtin_static_arg(n, k, e.args.size())) static_exprs.push_back(e.args[k].get());
      else args.push_back(lower(*e.args[k], env));
    }
    BuiltinStatics st{static_exprs.size(), [&](size_t k) { return static_int(*static_exprs.at(k), env); },
                      [&](size_t k) { return static_shape(*static_exprs.at(k), env); },
                      [&](size_t k) { return head_span(*static_exprs.at(k)); }};
    return lower_plain_builtin(n, st, args, e.span);
  }
};

}  // namespace

LowerError::LowerError(Diagnostic d) : std::runtime_error(render_for_what(d)), diag(std::move(d)) {}

ir::Program Lowered::program() const {
  ir::Program p;
  p.inputs = inputs;
  p.outputs = {body};
  p.output_names = {fun};
  return p;
}

FunParams fun_params(const CheckedProgram &cp, const std::string &name) {
  const Decl *d = cp.find(name);
  if (!d) fail("lower.unknown-fun", {}, "unknown fun '" + name + "'");
  if (auto *n = std::get_if<NodeDecl>(d)) fail("lower.unknown-fun", n->name_span, "'" + name + "' is a node, not a fun");
  if (auto *c = std::get_if<ConstDecl>(d)) fail("lower.unknown-fun", c->name_span, "'" + name + "' is a constant, not a fun");
  FunParams out;
  for (auto &p : cp.sigs.at(name).inputs) (p.is_const ? out.statics : out.values).push_back(&p);
  return out;
}

std::optional<ir::Type> concrete_type(const Type &t, const StaticSubst &s) {
  if (t.kind != Type::Tensor) return std::nullopt;
  try {
    auto sh = as_concrete(s.apply(t.shape));
    if (!sh) return std::nullopt;
    return ir::Type{t.elem, *sh};
  } catch (StaticError &) {
    return std::nullopt;
  }
}

namespace {
Lowered lower_fun_checked(const CheckedProgram &cp, const std::string &name, const std::vector<StaticValue> &statics,
                          const std::vector<ir::Type> &args);
}

ir::Term lower_builtin(const std::string &name, const std::vector<StaticValue> &statics, const std::vector<ir::Term> &args,
                       Span at) {
  auto value = [&](size_t k) -> const StaticValue & {
    if (k >= statics.size()) fail("arity.args", at, "'" + name + "' needs a static argument");
    return statics[k];
  };
  BuiltinStatics st{statics.size(),
                    [&](size_t k) {
                      auto v = value(k).kind == StaticValue::Int ? as_const(value(k).size) : std::nullopt;
                      if (!v) fail("static.eval", at, "'" + name + "': " + value(k).str() + " is not a concrete int");
                      return *v;
                    },
                    [&](size_t k) {
                      auto v = value(k).kind == StaticValue::ShapeV ? as_concrete(value(k).shape) : std::nullopt;
                      if (!v) fail("static.eval", at, "'" + name + "': " + value(k).str() + " is not a concrete shape");
                      return *v;
                    },
                    [&](size_t) { return at; }};
  try {
    return lower_plain_builtin(name, st, args, at);
  } catch (ir::IrError &e) {
    fail("lower.ir", at, "'" + name + "': " + e.what());
  }
}

Lowered lower_fun(const CheckedProgram &cp, const std::string &name, const std::vector<StaticValue> &statics,
                  const std::vector<ir::Type> &args) {
  try {
    return lower_fun_checked(cp, name, statics, args);
  } catch (ir::IrError &e) {  // e.g. argument types beyond 2^31 elements
    const Decl *d = cp.find(name);
    fail("lower.ir", d && std::holds_alternative<FunDecl>(*d) ? std::get<FunDecl>(*d).name_span : Span{},
         std::string("'") + name + "' at these argument types: " + e.what());
  } catch (StaticError &e) {
    const Decl *d = cp.find(name);
    fail("static.eval", d && std::holds_alternative<FunDecl>(*d) ? std::get<FunDecl>(*d).name_span : Span{}, e.what());
  }
}

namespace {
Lowered lower_fun_checked(const CheckedProgram &cp, const std::string &name, const std::vector<StaticValue> &statics,
                          const std::vector<ir::Type> &args) {
  FunParams fp = fun_params(cp, name);
  const FunDecl &f = std::get<FunDecl>(*cp.find(name));
  const Signature &sig = cp.sigs.at(name);
  if (!sig.ok) fail("lower.unchecked", f.name_span, "'" + name + "' did not pass the checker");
  if (statics.size() != fp.statics.size() || args.size() != fp.values.size())
    fail("arity.args", f.name_span,
         "'" + name + "' takes " + std::to_string(fp.statics.size()) + " static and " + std::to_string(fp.values.size()) +
             " value arguments; " + std::to_string(statics.size()) + " and " + std::to_string(args.size()) + " given");
  StaticSubst s;
  for (size_t k = 0; k < statics.size(); ++k) {
    const Param &p = *fp.statics[k];
    const StaticValue &v = statics[k];
    if (v.kind != p.static_kind)
      fail("static.kind", p.span, "'" + p.name + "' is a static " + (p.static_kind == StaticValue::Int ? "int" : "shape") +
                                      ", given " + v.str());
    if (v.kind == StaticValue::Int) {
      if (!v.size.is_const() || v.size.const_value() < 0) fail("static.eval", p.span, "'" + p.name + "' = " + v.str() + " is not a size");
      s.sizes[p.name] = v.size;
    } else {
      auto sh = as_concrete(v.shape);
      if (!sh) fail("static.eval", p.span, "'" + p.name + "' = " + v.str() + " is not a concrete shape");
      s.shapes[p.name] = v.shape;
    }
  }
  // Fix the implicit variables from the argument shapes, then check every argument.
  Lowered out;
  out.fun = name;
  std::vector<ir::Term> vars;
  try {
    for (size_t k = 0; k < args.size(); ++k)
      if (fp.values[k]->type.kind == Type::Tensor) array::bind_implicit(s.apply(fp.values[k]->type.shape), args[k].shape, s);
    for (size_t k = 0; k < args.size(); ++k) {
      const Param &p = *fp.values[k];
      if (p.type.kind == Type::Tensor) {
        Shape formal = s.apply(p.type.shape);
        auto want = as_concrete(formal);
        if (p.type.elem != args[k].elem || !want || *want != args[k].shape)
          fail("lower.argument-type", p.span,
               "argument '" + p.name + "' of '" + name + "' has type " + args[k].str() +
                   (want ? ", but the signature needs " + ir::Type{p.type.elem, *want}.str() + " here"
                         : ", which does not fit " + type_str(Type::tensor(p.type.elem, formal))));
      }
      if (p.type.kind == Type::TyVar) {  // equal type variables take equal types
        for (size_t j = 0; j < k; ++j)
          if (fp.values[j]->type.kind == Type::TyVar && fp.values[j]->type.tyvar == p.type.tyvar && args[j] != args[k])
            fail("lower.argument-type", p.span,
                 "arguments '" + fp.values[j]->name + "' and '" + p.name + "' share the type " + p.type.tyvar +
                     " but are given " + args[j].str() + " and " + args[k].str());
      }
      out.inputs.emplace_back(p.name, args[k]);
      vars.push_back(ir::var(p.name, args[k]));
    }
  } catch (StaticError &err) {
    fail("static.eval", f.name_span, err.what());
  }
  Lowerer l(cp);
  out.body = l.body(f, s, vars, f.name_span);
  out.statics = s;
  // The result has the declared type (a disagreement would be a lowering bug).
  if (auto want = concrete_type(sig.outputs.at(0), s); want && *want != out.body->type)
    fail("lower.internal", f.name_span,
         "the lowered body of '" + name + "' has type " + out.body->type.str() + ", declared " + want->str());
  return out;
}
}  // namespace

}  // namespace rml::lower
