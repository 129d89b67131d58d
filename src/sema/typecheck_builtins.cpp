// The builtins of the function layer (grammar.md §5): their names, which arguments are
// static, and the typing rule of each (elementwise functions, max/min, build, gather,
// scatter, sum, replicate, transpose, reshape, iota, rank, prod, ...).
#include "sema/typecheck_internal.hpp"

#include "ops/ops.hpp"

namespace rml {

namespace {

// The elementwise builtins come from the operator table (src/ops): kElementwise1 are
// those of one argument whose result has the argument's type (exp, log, ..., abs).
const std::set<std::string> kElementwise1 = [] {
  std::set<std::string> s;
  for (auto &r : ops::kUnary)
    if (r.spelling == ops::Spelling::Builtin && (r.typing == ops::Typing::RealSame || r.typing == ops::Typing::NumericSame))
      s.emplace(r.surface);
  return s;
}();
const std::set<std::string> kBuiltins = [] {
  std::set<std::string> s = {"build", "gather", "scatter", "sumOuter", "sum", "replicate",
                             "tr", "transpose", "reshape", "iota", "rank", "prod"};
  for (auto &r : ops::kUnary)
    if (r.spelling == ops::Spelling::Builtin) s.emplace(r.surface);
  for (auto &r : ops::kBinary)
    if (r.spelling == ops::Spelling::Builtin) s.emplace(r.name);
  return s;
}();

}  // namespace

bool is_builtin(const std::string &name) { return kBuiltins.count(name) > 0; }

bool builtin_static_arg(const std::string &name, size_t k, size_t nargs) {
  if (k != 0) return false;
  return name == "build" || name == "gather" || name == "scatter" || name == "replicate" || name == "reshape" ||
         name == "iota" || name == "transpose" || (name == "sum" && nargs == 2);
}

}  // namespace rml

namespace rml::typecheck {

Type TypeChecker::infer_builtin(const Expr &e, Ctx &ctx) {
  const std::string &n = e.name;
  cp_.calls[&e] = CallInfo{CallInfo::Builtin, n, {}};
  bool lambda_builtin = n == "build" || n == "gather" || n == "scatter";
  if (lambda_builtin && !ctx.in_fun) {
    d_.error("fun.lambda-position", callee_span(e), "'" + n + "' takes a lambda: it can only be used in a 'fun' body");
    return Type::error();
  }
  if (kElementwise1.count(n)) {
    if (!arity(e, 1, 1)) return Type::error();
    Type a = resolve(infer(*e.args[0], ctx));
    if (a.kind == Type::Meta) return defer_elementwise(*e.args[0], a, a, n);  // result type = argument type
    Type t = require_tensor(*e.args[0], a, "the argument of '" + n + "'");
    if (t.is_error()) return t;
    if (!ops::result_type(ops::row(*ops::find_unary(n)).typing, t.elem)) {
      d_.error("type.mismatch", start_span(*e.args[0]), elementwise_mismatch(n, t));
      return Type::error();
    }
    return t;
  }
  if (n == "max" || n == "min") {
    if (!arity(e, 2, 2)) return Type::error();
    Type l = infer(*e.args[0], ctx), r = infer(*e.args[1], ctx);
    Type t = resolve(broadcast(e, l, r, n.c_str()));
    if (t.kind == Type::Tensor && t.elem == Scalar::Bool) {
      d_.error("type.not-numeric", start_span(*e.args[0]), "'" + n + "' needs int or real operands");
      return Type::error();
    }
    return t;
  }
  if (n == "floor") {
    if (!arity(e, 1, 1)) return Type::error();
    Type a = resolve(infer(*e.args[0], ctx));
    if (a.kind == Type::Meta) return defer_elementwise(*e.args[0], a, fresh_meta(), n);
    Type t = require_tensor(*e.args[0], a, "the argument of 'floor'");
    if (t.is_error()) return t;
    if (t.elem != Scalar::Real) {
      d_.error("type.mismatch", start_span(*e.args[0]), elementwise_mismatch(n, t));
      return Type::error();
    }
    return Type::tensor(Scalar::Int, t.shape);
  }
  if (n == "rank" || n == "prod") {  // static values used as int values
    if (!arity(e, 1, 1)) return Type::error();
    auto v = static_arg(e, ctx, StaticValue::Int, "'" + n + "'");
    return v ? Type::scalar(Scalar::Int) : Type::error();
  }
  if (n == "iota") {
    if (!arity(e, 1, 1)) return Type::error();
    auto k = static_arg(*e.args[0], ctx, StaticValue::Int, "the size of 'iota'");
    if (!k) return Type::error();
    return Type::tensor(Scalar::Int, {k->size});
  }
  if (n == "replicate") {
    if (!arity(e, 2, 2)) return Type::error();
    auto k = static_arg(*e.args[0], ctx, StaticValue::Int, "the count of 'replicate'");
    Type t = need_tensor(*e.args[1], ctx, "the argument of 'replicate'");
    if (!k || t.is_error()) return Type::error();
    try {
      check_dims({k->size}, e.args[0]->span);
    } catch (StaticEvalError &se) {
      report_static(se);
      return Type::error();
    }
    Shape s{k->size};
    s.insert(s.end(), t.shape.begin(), t.shape.end());
    return Type::tensor(t.elem, s);
  }
  if (n == "sumOuter") {
    if (!arity(e, 1, 1)) return Type::error();
    Type t = need_tensor(*e.args[0], ctx, "the argument of 'sumOuter'");
    if (t.is_error()) return t;
    if (t.elem == Scalar::Bool) {
      d_.error("type.not-numeric", start_span(*e.args[0]), "'sumOuter' sums numbers, not bools");
      return Type::error();
    }
    if (known_prefix(t.shape) < 1) {
      d_.error("shape.rank", start_span(*e.args[0]), "'sumOuter' needs a tensor with an outer dimension, found " + type_str(t));
      return Type::error();
    }
    return Type::tensor(t.elem, Shape(t.shape.begin() + 1, t.shape.end()));
  }
  if (n == "sum") {
    if (!arity(e, 1, 2)) return Type::error();
    const Expr &arg = *e.args.back();
    Type t = need_tensor(arg, ctx, "the argument of 'sum'");
    std::optional<StaticValue> axis;
    if (e.args.size() == 2) axis = static_arg(*e.args[0], ctx, StaticValue::Int, "the axis of 'sum'");
    if (t.is_error() || (e.args.size() == 2 && !axis)) return Type::error();
    if (t.elem == Scalar::Bool) {
      d_.error("type.not-numeric", start_span(arg), "'sum' sums numbers, not bools");
      return Type::error();
    }
    if (!axis) return Type::scalar(t.elem);
    if (!axis->size.is_const() || axis->size.const_value() < 0 ||
        static_cast<size_t>(axis->size.const_value()) >= known_prefix(t.shape)) {
      d_.error("shape.rank", start_span(*e.args[0]), "axis " + axis->str() + " is not a dimension of " + type_str(t));
      return Type::error();
    }
    Shape s = t.shape;
    s.erase(s.begin() + axis->size.const_value());
    return Type::tensor(t.elem, s);
  }
  if (n == "tr") {
    if (!arity(e, 1, 1)) return Type::error();
    Type t = need_tensor(*e.args[0], ctx, "the argument of 'tr'");
    if (t.is_error()) return t;
    if (known_prefix(t.shape) < 2) {
      d_.error("shape.rank", start_span(*e.args[0]), "'tr' swaps the two outer dimensions: it needs rank >= 2, found " + type_str(t));
      return Type::error();
    }
    Shape s = t.shape;
    std::swap(s[0], s[1]);
    return Type::tensor(t.elem, s);
  }
  if (n == "transpose") {
    if (!arity(e, 2, 2)) return Type::error();
    auto perm = static_arg(*e.args[0], ctx, StaticValue::ShapeV, "the permutation of 'transpose'");
    Type t = need_tensor(*e.args[1], ctx, "the argument of 'transpose'");
    if (!perm || t.is_error()) return Type::error();
    size_t m = perm->shape.size();
    std::vector<int64_t> p;
    for (auto &d : perm->shape) {
      auto *q = std::get_if<Poly>(&d);
      if (!q || !q->is_const()) {
        d_.error("static.eval", start_span(*e.args[0]), "the permutation must be a list of constants");
        return Type::error();
      }
      p.push_back(q->const_value());
    }
    std::vector<int64_t> sorted = p;
    std::sort(sorted.begin(), sorted.end());
    for (size_t i = 0; i < m; ++i)
      if (sorted[i] != static_cast<int64_t>(i)) {
        d_.error("static.eval", start_span(*e.args[0]), "not a permutation of 0.." + std::to_string(m) + "-1: " + perm->str());
        return Type::error();
      }
    if (known_prefix(t.shape) < m) {
      d_.error("shape.rank", start_span(*e.args[1]), "'transpose' by " + perm->str() + " needs rank >= " + std::to_string(m) + ", found " + type_str(t));
      return Type::error();
    }
    Shape s;
    for (size_t i = 0; i < m; ++i) s.push_back(t.shape[static_cast<size_t>(p[i])]);
    s.insert(s.end(), t.shape.begin() + static_cast<long>(m), t.shape.end());
    return Type::tensor(t.elem, s);
  }
  if (n == "reshape") {
    if (!arity(e, 2, 2)) return Type::error();
    auto sh = static_arg(*e.args[0], ctx, StaticValue::ShapeV, "the shape of 'reshape'");
    Type t = need_tensor(*e.args[1], ctx, "the argument of 'reshape'");
    if (!sh || t.is_error()) return Type::error();
    if (shape_product(sh->shape) != shape_product(t.shape)) {
      d_.error("shape.mismatch", callee_span(e),
               "'reshape' to " + sh->str() + " (" + shape_product(sh->shape).str() + " elements) from " + type_str(t) +
                   " (" + shape_product(t.shape).str() + " elements): the element counts differ");
      return Type::error();
    }
    return Type::tensor(t.elem, sh->shape);
  }
  if (n == "build") {
    if (!arity(e, 2, 2)) return Type::error();
    auto k = eval_loose(*e.args[0], ctx, "the size of 'build'");
    if (!k) return Type::error();
    Shape outer = k->kind == StaticValue::Int ? Shape{k->size} : k->shape;
    Type b = resolve(lambda_body(*e.args[1], outer.size(), ctx, "'build'"));
    if (b.is_error()) return b;
    if (b.kind != Type::Tensor) {
      d_.error("type.mismatch", start_span(*e.args[1]), "'build' bodies produce tensors, found " + type_str(b));
      return Type::error();
    }
    outer.insert(outer.end(), b.shape.begin(), b.shape.end());
    return Type::tensor(b.elem, outer);
  }
  if (n == "gather" || n == "scatter") {
    if (!arity(e, 3, 3)) return Type::error();
    auto sh = static_arg(*e.args[0], ctx, StaticValue::ShapeV, "the shape of '" + n + "'");
    Type t = need_tensor(*e.args[1], ctx, "the argument of '" + n + "'");
    if (!sh || t.is_error()) return Type::error();
    const Expr &lam = *e.args[2];
    size_t binders = lam.kind == ExprKind::Lambda ? lam.binders.size() : 0;
    auto m2 = index_list(lam, binders, ctx, "'" + n + "'");
    if (!m2) return Type::error();
    size_t m1 = binders;
    // gather: out = sh = [k'1..k'm1] ++ rest, t = [k1..km2] ++ rest.
    // scatter: t = [k1..km1] ++ rest, out = sh = [k'1..k'm2] ++ rest.
    size_t t_lead = n == "gather" ? *m2 : m1, out_lead = n == "gather" ? m1 : *m2;
    if (known_prefix(t.shape) < t_lead || sh->shape.size() < out_lead) {
      d_.error("shape.rank", callee_span(e), "'" + n + "': the ranks of " + type_str(t) + " and " + sh->str() +
                                                  " do not fit the lambda's " + std::to_string(m1) + " -> " +
                                                  std::to_string(*m2) + " indices");
      return Type::error();
    }
    Shape rest_t(t.shape.begin() + static_cast<long>(t_lead), t.shape.end());
    Shape rest_o(sh->shape.begin() + static_cast<long>(out_lead), sh->shape.end());
    if (!shape_equal(rest_t, rest_o)) {
      d_.error("shape.mismatch", callee_span(e), "'" + n + "': the trailing dimensions " + shape_str(rest_o) +
                                                      " of the result differ from " + shape_str(rest_t) + " of the argument");
      return Type::error();
    }
    if (n == "scatter" && t.elem == Scalar::Bool) {
      d_.error("type.not-numeric", start_span(*e.args[1]), "'scatter' adds values: it needs int or real, not bool");
      return Type::error();
    }
    return Type::tensor(t.elem, sh->shape);
  }
  d_.error("name.unknown", callee_span(e), "unknown builtin '" + n + "'");
  return Type::error();
}

// `build`'s first argument: a static int or a static shape.
std::optional<StaticValue> TypeChecker::eval_loose(const Expr &a, Ctx &ctx, const std::string &what) {
  try {
    StaticValue v = eval_static(a, ctx.env());
    check_dims(v.kind == StaticValue::Int ? Shape{v.size} : v.shape, a.span);
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

}  // namespace rml::typecheck
