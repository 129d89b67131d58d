// The linear operations the reverse and forward passes apply to (co)tangents, in two
// algebras (App. D: the passes work for any BaseTensor instance): IR terms, which makes
// the passes symbolic (Fig. 19), and tensors, which makes them the runtime evaluator of
// Fig. 17. Internal to src/array/ad.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "array/ir/eval.hpp"
#include "array/ir/ir.hpp"

namespace rml::ad::detail {

// Cotangents and tangents as terms. `share` draws monotone IDs (genID_AST).
struct TermOps {
  using V = ir::Term;
  int64_t next_id = 1;

  V share(V c) { return ir::share(next_id++, std::move(c)); }
  V zeros(const ir::Shape &s) {
    V r = ir::real_scalar(0.0);
    for (size_t d = s.size(); d-- > 0;) r = ir::replicate(s[d], r);
    return r;
  }
  V add(V a, V b) { return ir::binary(ir::BinOp::Add, std::move(a), std::move(b)); }
  V mul(const ir::Term &factor, V c) { return ir::binary(ir::BinOp::Mul, factor, std::move(c)); }
  V index(V c, const std::vector<ir::Term> &ix) { return ir::index(std::move(c), ix); }
  // oneHot sh ix c, lowered to a scatter over a zero-dimensional domain: c lands at the
  // prefix ix, and out of bounds it is dropped (the adjoint of index reading 0).
  V one_hot(const ir::Shape &sh, const std::vector<ir::Term> &ix, V c) { return ir::scatter(sh, std::move(c), {}, ix); }
  V sum_outer(V c) { return ir::sum_outer(std::move(c)); }
  V replicate(int64_t k, V c) { return ir::replicate(k, std::move(c)); }
  V gather(const ir::Shape &sh, V c, const std::vector<std::string> &b, const std::vector<ir::Term> &ix) {
    return ir::gather(sh, std::move(c), b, ix);
  }
  V scatter(const ir::Shape &sh, V c, const std::vector<std::string> &b, const std::vector<ir::Term> &ix) {
    return ir::scatter(sh, std::move(c), b, ix);
  }
  V from_list(std::vector<V> cs) { return ir::from_list(std::move(cs)); }
  V transpose(const ir::Shape &perm, V c) { return ir::transpose(perm, std::move(c)); }
  V reshape(const ir::Shape &sh, V c) { return ir::reshape(sh, std::move(c)); }
};

// The same operations evaluated at once on tensors, by the reference evaluator. Payload
// terms (Scale factors, index terms) are evaluated in `env`: the primal values of a
// symbolic tape, or nothing for a runtime tape whose payloads are closed.
struct TensorOps {
  using V = ir::Tensor;
  const ir::Bindings *env;

  V run(const ir::Term &t) const { return ir::evaluate(t, *env); }
  static ir::Term c(const V &v) { return ir::constant(v); }

  V share(V v) { return v; }
  V zeros(const ir::Shape &s) { return ir::Tensor::zeros(ir::Elem::Real, s); }
  V add(const V &a, const V &b) { return ir::apply_binary(ir::BinOp::Add, a, b); }
  V mul(const ir::Term &factor, const V &v) { return ir::apply_binary(ir::BinOp::Mul, run(factor), v); }
  V index(const V &v, const std::vector<ir::Term> &ix) { return run(ir::index(c(v), ix)); }
  V one_hot(const ir::Shape &sh, const std::vector<ir::Term> &ix, const V &v) { return run(ir::scatter(sh, c(v), {}, ix)); }
  V sum_outer(const V &v) { return run(ir::sum_outer(c(v))); }
  V replicate(int64_t k, const V &v) { return run(ir::replicate(k, c(v))); }
  V gather(const ir::Shape &sh, const V &v, const std::vector<std::string> &b, const std::vector<ir::Term> &ix) {
    return run(ir::gather(sh, c(v), b, ix));
  }
  V scatter(const ir::Shape &sh, const V &v, const std::vector<std::string> &b, const std::vector<ir::Term> &ix) {
    return run(ir::scatter(sh, c(v), b, ix));
  }
  V from_list(const std::vector<V> &vs) {
    std::vector<ir::Term> ts;
    for (auto &v : vs) ts.push_back(c(v));
    return run(ir::from_list(ts));
  }
  V transpose(const ir::Shape &perm, const V &v) { return run(ir::transpose(perm, c(v))); }
  V reshape(const ir::Shape &sh, V v) {
    v.shape = sh;
    return v;
  }
};

inline ir::Shape inverse_permutation(const ir::Shape &perm) {
  ir::Shape inv(perm.size());
  for (size_t q = 0; q < perm.size(); ++q) inv[static_cast<size_t>(perm[q])] = static_cast<int64_t>(q);
  return inv;
}

}  // namespace rml::ad::detail
