#include "array/eval.hpp"

#include "array/elementwise.hpp"
#include "ops/ops.hpp"

#include <algorithm>
#include <cmath>
#include <functional>

namespace rml::array {

std::vector<int64_t> concrete_shape(const Shape &s) {
  std::vector<int64_t> out;
  for (auto &d : s) {
    auto *p = std::get_if<Poly>(&d);
    if (!p || !p->is_const()) throw EvalError("shape " + shape_str(s) + " is not concrete");
    out.push_back(p->const_value());
  }
  return out;
}

void bind_implicit(const Shape &formal, const std::vector<int64_t> &actual, StaticSubst &s) {
  int splice = -1;
  for (size_t d = 0; d < formal.size(); ++d)
    if (std::holds_alternative<ShapeSym>(formal[d])) splice = static_cast<int>(d);
  size_t pre = splice < 0 ? formal.size() : static_cast<size_t>(splice);
  size_t post = splice < 0 ? 0 : formal.size() - pre - 1;
  auto bind = [&](const DimItem &d, int64_t v) {
    if (auto *q = std::get_if<Poly>(&d))
      if (auto sym = q->as_symbol(); sym && !s.sizes.count(*sym)) s.sizes[*sym] = Poly::constant(v);
  };
  for (size_t d = 0; d < pre && d < actual.size(); ++d) bind(formal[d], actual[d]);
  for (size_t d = 0; d < post && d < actual.size(); ++d) bind(formal[formal.size() - 1 - d], actual[actual.size() - 1 - d]);
  if (splice >= 0) {
    const std::string &nm = std::get<ShapeSym>(formal[static_cast<size_t>(splice)]).name;
    if (!s.shapes.count(nm)) {
      Shape mid;
      for (size_t d = pre; d + post < actual.size(); ++d) mid.push_back(Poly::constant(actual[d]));
      s.shapes[nm] = mid;
    }
  }
}

namespace {

size_t product(const std::vector<int64_t> &s) {
  size_t n = 1;
  for (auto d : s) n *= static_cast<size_t>(d);
  return n;
}

// The sub-tensor t[idx...] (a prefix index); out of bounds: zeros of the result shape.
Tensor index_prefix(const Tensor &t, const std::vector<int64_t> &idx) {
  std::vector<int64_t> rest(t.shape.begin() + static_cast<long>(idx.size()), t.shape.end());
  Tensor out = Tensor::zeros(t.elem, rest);
  Evaluator::index_into(t, idx.data(), idx.size(), out);
  return out;
}

Tensor stack(const std::vector<Tensor> &parts, Scalar elem, const std::vector<int64_t> &inner) {
  std::vector<int64_t> s{static_cast<int64_t>(parts.size())};
  s.insert(s.end(), inner.begin(), inner.end());
  Tensor out = Tensor::zeros(elem, s);
  std::vector<const Tensor *> ptrs;
  for (auto &p : parts) ptrs.push_back(&p);
  Evaluator::stack_into(ptrs, out);
  return out;
}

// Multi-index iteration over a shape, row-major.
bool next_index(std::vector<int64_t> &ix, const std::vector<int64_t> &shape) {
  for (size_t d = ix.size(); d-- > 0;) {
    if (++ix[d] < shape[d]) return true;
    ix[d] = 0;
  }
  return false;
}

}  // namespace

// The surface spellings name the table's operators; their meanings are elementwise.cpp's.
Tensor Evaluator::unary(const std::string &op, const Tensor &a) {
  std::optional<ops::UnOp> u = ops::find_unary(op);
  if (!u) throw EvalError("unknown unary operator '" + op + "'");
  return unary(*u, a);
}
Tensor Evaluator::unary(ops::UnOp op, const Tensor &a) { return elementwise_unary(op, a); }

Tensor Evaluator::binary(const std::string &op, const Tensor &a, const Tensor &b) {
  std::optional<ops::BinOp> o = ops::find_binary(op);
  if (!o) throw EvalError("unknown binary operator '" + op + "'");
  return binary(*o, a, b);
}
Tensor Evaluator::binary(ops::BinOp op, const Tensor &a, const Tensor &b) {
  if (!a.shape.empty() && !b.shape.empty() && a.shape != b.shape)
    throw EvalError(std::string("shape mismatch in '") + ops::op_name(op) + "'");
  return elementwise_binary(op, a, b);
}

Tensor Evaluator::index(const std::vector<Tensor> &args) {
  std::vector<int64_t> idx;
  for (size_t k = 1; k < args.size(); ++k) idx.push_back(args[k].i.at(0));
  return index_prefix(args.at(0), idx);
}
Tensor Evaluator::array_literal(const std::vector<Tensor> &args) { return stack(args, args.at(0).elem, args.at(0).shape); }

void Evaluator::index_into(const Tensor &t, const int64_t *idx, size_t n, Tensor &out) {
  size_t inner = 1;
  for (size_t d = n; d < t.shape.size(); ++d) inner *= static_cast<size_t>(t.shape[d]);
  if (n > t.shape.size() || t.elem != out.elem || out.numel() != inner) throw EvalError("index: the result's type or size is not the indexed one's");
  index_words(t.shape.data(), t.elem == Scalar::Real ? static_cast<const void *>(t.r.data()) : t.i.data(), idx, n, out.numel(),
              out.elem == Scalar::Real ? static_cast<void *>(out.r.data()) : out.i.data());
}

void Evaluator::index_words(const int64_t *shape, const void *t, const int64_t *idx, size_t n, size_t inner, void *out) {
  uint64_t *dst = static_cast<uint64_t *>(out);
  size_t off = 0;
  for (size_t d = 0; d < n; ++d) {
    if (idx[d] < 0 || idx[d] >= shape[d]) {  // out of bounds: 0 (+0.0 and 0 are the same word)
      std::fill(dst, dst + inner, uint64_t{0});
      return;
    }
    off = off * static_cast<size_t>(shape[d]) + static_cast<size_t>(idx[d]);
  }
  const uint64_t *src = static_cast<const uint64_t *>(t) + off * inner;
  std::copy(src, src + inner, dst);
}

void Evaluator::stack_into(const std::vector<const Tensor *> &parts, Tensor &out) {
  size_t total = 0;
  std::vector<const void *> words;
  std::vector<size_t> sizes;
  for (const Tensor *p : parts) {
    if (p->elem != out.elem) throw EvalError("array literal: parts of another element type");
    total += p->numel();
    words.push_back(out.elem == Scalar::Real ? static_cast<const void *>(p->r.data()) : p->i.data());
    sizes.push_back(out.elem == Scalar::Real ? p->r.size() : p->i.size());
  }
  if (total != out.numel()) throw EvalError("array literal: parts of different sizes");
  stack_words(words.data(), sizes.data(), parts.size(), out.elem == Scalar::Real ? static_cast<void *>(out.r.data()) : out.i.data());
}

void Evaluator::stack_words(const void *const *parts, const size_t *sizes, size_t n, void *out) {
  uint64_t *dst = static_cast<uint64_t *>(out);
  for (size_t k = 0; k < n; ++k) {
    const uint64_t *src = static_cast<const uint64_t *>(parts[k]);
    dst = std::copy(src, src + sizes[k], dst);
  }
}

// By tiles of 32 × 32 (the general permutation computed every element's index), writing
// along a row of the result innermost: reading along the source's rows instead stores 8
// KiB apart at 1024 × 384 and was 16× slower.
void Evaluator::transpose_into(const Tensor &t, Tensor &out) {
  const size_t rows = static_cast<size_t>(t.shape[0]), cols = static_cast<size_t>(t.shape[1]);
  if (t.elem == Scalar::Real) transpose_words(rows, cols, t.r.data(), out.r.data());
  else transpose_words(rows, cols, t.i.data(), out.i.data());
}

void Evaluator::transpose_words(size_t rows, size_t cols, const void *t, void *out) {
  // Blocks of 32 x 32: both the reads and the writes stay within a few cache lines.
  const uint64_t *src = static_cast<const uint64_t *>(t);  // (a real's or an int's 8 bytes, moved as they are)
  uint64_t *dst = static_cast<uint64_t *>(out);
  const size_t B = 32;
  for (size_t i0 = 0; i0 < rows; i0 += B)
    for (size_t j0 = 0; j0 < cols; j0 += B)
      for (size_t j = j0; j < std::min(cols, j0 + B); ++j)
        for (size_t i = i0; i < std::min(rows, i0 + B); ++i) dst[j * rows + i] = src[i * cols + j];
}

Tensor Evaluator::apply(const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<Tensor> &args) {
  if (auto it = cp_.decls.find(fn); it != cp_.decls.end()) {
    auto *f = std::get_if<FunDecl>(&cp_.program.decls[it->second]);
    if (!f) throw EvalError("'" + fn + "' is not a function");
    const Signature &sig = cp_.sigs.at(fn);
    StaticSubst s;
    size_t k = 0;
    for (auto &p : sig.inputs) {
      if (!p.is_const) continue;
      const StaticValue &v = statics.at(k++);
      if (v.kind == StaticValue::Int) s.sizes[p.name] = v.size;
      else s.shapes[p.name] = v.shape;
    }
    return call_fun(*f, s, args);
  }
  return builtin_call(fn, statics, args);
}

Tensor Evaluator::builtin_call(const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<Tensor> &args) {
  if (statics.empty() && args.size() == 1)
    if (auto u = ops::find_unary(fn)) return elementwise_unary(*u, args[0]);
  if (statics.empty() && args.size() == 2 && fn != "sum") return binary(fn, args[0], args[1]);
  return apply_builtin(fn, statics, args);
}

// Completes the static bindings of a call from the concrete shapes of its arguments
// (implicit size and shape variables), then evaluates the body.
Tensor Evaluator::call_fun(const FunDecl &f, StaticSubst s, const std::vector<Tensor> &args) {
  if (++depth_ > 10000) throw EvalError("function calls nested too deeply");
  const Signature &sig = cp_.sigs.at(f.name);
  Env env;
  size_t k = 0;
  for (auto &p : sig.inputs) {
    if (p.is_const) continue;
    const Tensor &a = args.at(k++);
    env.scopes.emplace_back(p.name, a);
    if (p.type.kind != Type::Tensor) continue;
    bind_implicit(s.apply(p.type.shape), a.shape, s);
  }
  env.statics = std::move(s);
  Tensor out = eval(*f.body, env);
  --depth_;
  return out;
}

StaticValue Evaluator::static_of(const Expr &e, const Env &env) const {
  auto it = cp_.static_args.find(&e);
  if (it == cp_.static_args.end()) throw EvalError("expression has no static value");
  StaticValue v = it->second;
  if (v.kind == StaticValue::Int) v.size = env.statics.apply(v.size);
  else v.shape = env.statics.apply(v.shape);
  return v;
}
int64_t Evaluator::static_int(const Expr &e, const Env &env) const {
  StaticValue v = static_of(e, env);
  if (v.kind != StaticValue::Int || !v.size.is_const()) throw EvalError("static int is not concrete: " + v.str());
  return v.size.const_value();
}
std::vector<int64_t> Evaluator::static_shape(const Expr &e, const Env &env) const {
  StaticValue v = static_of(e, env);
  if (v.kind == StaticValue::Int) {
    if (!v.size.is_const()) throw EvalError("static size is not concrete: " + v.str());
    return {v.size.const_value()};
  }
  return concrete_shape(v.shape);
}

Tensor Evaluator::eval(const Expr &e, Env &env) {
  if (auto it = cp_.static_args.find(&e); it != cp_.static_args.end() && it->second.kind == StaticValue::Int)
    return Tensor::integer(static_int(e, env));  // rank(s), prod(s), s[k] used as values
  switch (e.kind) {
    case ExprKind::IntLit: return Tensor::integer(e.ival);
    case ExprKind::RealLit: return Tensor::real(e.rval);
    case ExprKind::BoolLit: return Tensor::boolean(e.bval);
    case ExprKind::Var: {
      for (auto it = env.scopes.rbegin(); it != env.scopes.rend(); ++it)
        if (it->first == e.name) return it->second;
      if (auto it = env.statics.sizes.find(e.name); it != env.statics.sizes.end()) {
        if (!it->second.is_const()) throw EvalError("'" + e.name + "' is not concrete");
        return Tensor::integer(it->second.const_value());
      }
      if (auto it = cp_.static_consts.find(e.name); it != cp_.static_consts.end() && it->second.kind == StaticValue::Int)
        return Tensor::integer(it->second.size.const_value());
      if (auto it = const_cache_.find(e.name); it != const_cache_.end()) return it->second;
      if (const Decl *d = cp_.find(e.name))
        if (auto *c = std::get_if<ConstDecl>(d)) {
          Env empty;
          Tensor v = eval(*c->value, empty);
          const_cache_[e.name] = v;
          return v;
        }
      throw EvalError("unbound name '" + e.name + "'");
    }
    case ExprKind::Unary: return unary(e.op == Op::Neg ? "-" : "not", eval(*e.args[0], env));
    case ExprKind::Binary: {
      Tensor a = eval(*e.args[0], env), b = eval(*e.args[1], env);
      return binary(op_spelling(e.op), a, b);
    }
    case ExprKind::If: {  // strict cond: evaluate all, then select
      Tensor c = eval(*e.args[0], env), a = eval(*e.args[1], env), b = eval(*e.args[2], env);
      return c.i.at(0) ? a : b;
    }
    case ExprKind::Let: {
      Tensor v = eval(*e.args[0], env);
      env.scopes.emplace_back(e.name, std::move(v));
      Tensor out = eval(*e.args[1], env);
      env.scopes.pop_back();
      return out;
    }
    case ExprKind::Index: {
      Tensor base = eval(*e.args[0], env);
      std::vector<int64_t> idx;
      for (size_t k = 1; k < e.args.size(); ++k) idx.push_back(eval(*e.args[k], env).i.at(0));
      return index_prefix(base, idx);
    }
    case ExprKind::Array: {
      std::vector<Tensor> parts;
      for (auto &a : e.args) parts.push_back(eval(*a, env));
      return stack(parts, parts.at(0).elem, parts.at(0).shape);
    }
    case ExprKind::Call: {
      auto ci = cp_.calls.find(&e);
      if (ci == cp_.calls.end()) throw EvalError("unresolved call to '" + e.name + "'");
      if (ci->second.kind == CallInfo::Fun) {
        const FunDecl &f = std::get<FunDecl>(*cp_.find(e.name));
        const Signature &sig = cp_.sigs.at(e.name);
        // The callee's static names, as the checker bound them, made concrete here.
        StaticSubst s;
        for (auto &[k, v] : ci->second.subst.statics.sizes) s.sizes[k] = env.statics.apply(v);
        for (auto &[k, v] : ci->second.subst.statics.shapes) s.shapes[k] = env.statics.apply(v);
        std::vector<Tensor> args;
        for (size_t k = 0; k < e.args.size(); ++k)
          if (!sig.inputs[k].is_const) args.push_back(eval(*e.args[k], env));
        return call_fun(f, s, args);
      }
      return builtin(e, env);
    }
    default: throw EvalError("expression kind not allowed in the function layer");
  }
}

Tensor Evaluator::builtin(const Expr &e, Env &env) {
  const std::string &n = e.name;
  auto lambda_loop = [&](const Expr &lam, const std::vector<int64_t> &dom, const std::function<void(const std::vector<int64_t> &, Tensor)> &f) {
    if (product(dom) == 0) return;
    std::vector<int64_t> ix(dom.size(), 0);
    do {
      for (size_t d = 0; d < ix.size(); ++d) env.scopes.emplace_back(lam.binders[d], Tensor::integer(ix[d]));
      Tensor v = eval(*lam.args[0], env);
      env.scopes.resize(env.scopes.size() - ix.size());
      f(ix, std::move(v));
    } while (next_index(ix, dom));
  };
  if (n == "build") {
    std::vector<int64_t> dom = static_shape(*e.args[0], env);
    const Expr &lam = *e.args[1];
    Type bt = cp_.expr_types.at(&lam);
    std::vector<int64_t> inner = concrete_shape(env.statics.apply(bt.shape));
    std::vector<int64_t> shape = dom;
    shape.insert(shape.end(), inner.begin(), inner.end());
    Tensor out = Tensor::zeros(bt.elem, shape);
    size_t k = 0, m = product(inner);
    lambda_loop(lam, dom, [&](const std::vector<int64_t> &, Tensor v) {
      if (out.elem == Scalar::Real) std::copy(v.r.begin(), v.r.end(), out.r.begin() + static_cast<long>(k));
      else std::copy(v.i.begin(), v.i.end(), out.i.begin() + static_cast<long>(k));
      k += m;
    });
    return out;
  }
  if (n == "gather" || n == "scatter") {
    std::vector<int64_t> sh = static_shape(*e.args[0], env);
    Tensor t = eval(*e.args[1], env);
    const Expr &lam = *e.args[2];
    size_t m1 = lam.binders.size(), m2 = lam.args[0]->args.size();
    Tensor out = Tensor::zeros(t.elem, sh);
    bool gather = n == "gather";
    std::vector<int64_t> dom(gather ? sh.begin() : t.shape.begin(), (gather ? sh.begin() : t.shape.begin()) + static_cast<long>(m1));
    std::vector<int64_t> rest(t.shape.begin() + static_cast<long>(gather ? m2 : m1), t.shape.end());
    size_t inner = product(rest);
    // lambda body is an index list: evaluate each component
    const Expr &list = *lam.args[0];
    std::vector<int64_t> ix(dom.size(), 0);
    if (product(dom) == 0) return out;
    do {
      for (size_t d = 0; d < ix.size(); ++d) env.scopes.emplace_back(lam.binders[d], Tensor::integer(ix[d]));
      std::vector<int64_t> target;
      for (auto &c : list.args) target.push_back(eval(*c, env).i.at(0));
      env.scopes.resize(env.scopes.size() - ix.size());
      // Linear offsets of the source and destination blocks.
      const std::vector<int64_t> &src_idx = gather ? target : ix;
      const std::vector<int64_t> &dst_idx = gather ? ix : target;
      const std::vector<int64_t> &src_shape = t.shape;
      bool in_bounds = true;
      size_t so = 0, dof = 0;
      for (size_t d = 0; d < src_idx.size(); ++d) {
        if (src_idx[d] < 0 || src_idx[d] >= src_shape[d]) in_bounds = false;
        so = so * static_cast<size_t>(src_shape[d]) + static_cast<size_t>(in_bounds ? src_idx[d] : 0);
      }
      for (size_t d = 0; d < dst_idx.size(); ++d) {
        if (dst_idx[d] < 0 || dst_idx[d] >= sh[d]) in_bounds = false;
        dof = dof * static_cast<size_t>(sh[d]) + static_cast<size_t>(in_bounds ? dst_idx[d] : 0);
      }
      if (in_bounds) {  // gather: out of bounds reads 0 (already zero); scatter: write dropped
        so *= inner;
        dof *= inner;
        for (size_t q = 0; q < inner; ++q) {
          if (t.elem == Scalar::Real) out.r[dof + q] = gather ? t.r[so + q] : out.r[dof + q] + t.r[so + q];
          else out.i[dof + q] = gather ? t.i[so + q] : int_add(out.i[dof + q], t.i[so + q]);
        }
      }
    } while (next_index(ix, dom));
    return out;
  }
  // Builtins without lambdas share apply_builtin with the stream layer.
  std::vector<StaticValue> statics;
  std::vector<Tensor> args;
  for (size_t k = 0; k < e.args.size(); ++k) {
    if (builtin_static_arg(n, k, e.args.size())) statics.push_back(static_of(*e.args[k], env));
    else args.push_back(eval(*e.args[k], env));
  }
  return builtin_call(n, statics, args);  // elementwise builtins (exp, max, real, ...) or the rest
}

Tensor Evaluator::apply_builtin(const std::string &n, const std::vector<StaticValue> &statics, const std::vector<Tensor> &args) {
  auto shape_of = [](const StaticValue &v) {
    return v.kind == StaticValue::Int ? std::vector<int64_t>{v.size.const_value()} : concrete_shape(v.shape);
  };
  auto int_of = [](const StaticValue &v) {
    if (v.kind != StaticValue::Int || !v.size.is_const()) throw EvalError("static int expected");
    return v.size.const_value();
  };
  if (n == "iota") {
    int64_t k = int_of(statics.at(0));
    Tensor out = Tensor::zeros(Scalar::Int, {k});
    for (int64_t j = 0; j < k; ++j) out.i[static_cast<size_t>(j)] = j;
    return out;
  }
  if (n == "replicate") {
    int64_t k = int_of(statics.at(0));
    std::vector<Tensor> parts(static_cast<size_t>(k), args.at(0));
    return stack(parts, args[0].elem, args[0].shape);
  }
  if (n == "reshape") {
    Tensor out = args.at(0);
    out.shape = shape_of(statics.at(0));
    return out;
  }
  if (n == "sumOuter" || (n == "sum" && statics.empty())) {
    const Tensor &t = args.at(0);
    if (n == "sum") {
      Tensor out = Tensor::zeros(t.elem, {});
      for (size_t k = 0; k < t.numel(); ++k) {
        if (t.elem == Scalar::Real) out.r[0] += t.r[k];
        else out.i[0] = int_add(out.i[0], t.i[k]);
      }
      return out;
    }
    std::vector<int64_t> rest(t.shape.begin() + 1, t.shape.end());
    Tensor out = Tensor::zeros(t.elem, rest);
    size_t inner = product(rest);
    for (int64_t j = 0; j < t.shape[0]; ++j)
      for (size_t q = 0; q < inner; ++q) {
        size_t k = static_cast<size_t>(j) * inner + q;
        if (t.elem == Scalar::Real) out.r[q] += t.r[k];
        else out.i[q] = int_add(out.i[q], t.i[k]);
      }
    return out;
  }
  if (n == "tr" && args.at(0).shape.size() == 2) {  // the general permutation below, by tiles
    Tensor out = Tensor::zeros(args[0].elem, {args[0].shape[1], args[0].shape[0]});
    transpose_into(args[0], out);
    return out;
  }
  if (n == "tr" || n == "transpose" || n == "sum") {
    const Tensor &t = args.at(0);
    std::vector<int64_t> perm;
    if (n == "tr") perm = {1, 0};
    else if (n == "transpose") perm = shape_of(statics.at(0));
    else {  // sum over an axis: move it to the front, then sumOuter
      int64_t axis = int_of(statics.at(0));
      perm.push_back(axis);
      for (int64_t d = 0; d <= axis; ++d)
        if (d != axis) perm.push_back(d);
    }
    size_t m = perm.size();
    std::vector<int64_t> out_shape;
    for (size_t p = 0; p < m; ++p) out_shape.push_back(t.shape[static_cast<size_t>(perm[p])]);
    out_shape.insert(out_shape.end(), t.shape.begin() + static_cast<long>(m), t.shape.end());
    Tensor out = Tensor::zeros(t.elem, out_shape);
    std::vector<int64_t> lead(t.shape.begin(), t.shape.begin() + static_cast<long>(m));
    std::vector<int64_t> rest(t.shape.begin() + static_cast<long>(m), t.shape.end());
    size_t inner = product(rest);
    std::vector<int64_t> ix(m, 0);  // input index over the permuted dims
    if (product(lead) > 0) do {
        size_t src = 0, dst = 0;
        for (size_t d = 0; d < m; ++d) src = src * static_cast<size_t>(lead[d]) + static_cast<size_t>(ix[d]);
        for (size_t p = 0; p < m; ++p)
          dst = dst * static_cast<size_t>(out_shape[p]) + static_cast<size_t>(ix[static_cast<size_t>(perm[p])]);
        for (size_t q = 0; q < inner; ++q) {
          if (t.elem == Scalar::Real) out.r[dst * inner + q] = t.r[src * inner + q];
          else out.i[dst * inner + q] = t.i[src * inner + q];
        }
      } while (next_index(ix, lead));
    if (n == "sum") return apply_builtin("sumOuter", {}, {out});
    return out;
  }
  throw EvalError("unknown builtin '" + n + "'");
}

}  // namespace rml::array
