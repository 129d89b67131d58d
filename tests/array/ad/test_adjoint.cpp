// Adjointness of every linear Delta operation and its transpose in the reverse pass
// (array-ad.md §10.4): for L a Delta with inputs x and Lᵀ what the reverse pass makes of
// it, ⟨Lx, y⟩ = ⟨x, Lᵀy⟩ for all x, y. Lx is eval0 (the forward pass) and Lᵀy the
// reverse pass, both on tensors and symbolically (terms evaluated by the reference
// evaluator); index functions go out of bounds and collide.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "ad_test_util.hpp"
#include "array/common/ir_gen.hpp"

using namespace rml::ad;
using namespace rml::ad::test;
using rml::irgen::TermGen;
using rml::irgen::uniform;

namespace {

Shape random_shape(int min_rank, int max_rank) {
  Shape s(static_cast<size_t>(uniform(min_rank, max_rank + 1)));
  for (auto &d : s) d = uniform<int64_t>(0, 5);
  return s;
}

Tensor random_reals_within_4(const Shape &s) {
  Tensor t = Tensor::zeros(Elem::Real, s);
  for (auto &v : t.r) v = uniform(-1000, 1001) / 250.0;
  return t;
}

// An index component over the binders: c0 + Σ c_j·i_j, sometimes halved (collisions);
// c0 reaches below 0 and past `bound` (out of bounds).
Term affine_index(const std::vector<std::string> &binders, int64_t bound) {
  Term t = int_scalar(uniform<int64_t>(-2, bound + 2));
  for (auto &b : binders) {
    int64_t c = uniform<int64_t>(-2, 3);
    if (c != 0) t = add(t, binary(BinOp::Mul, int_scalar(c), ivar(b)));
  }
  if (TermGen::chance(30)) t = binary(BinOp::IDiv, t, int_scalar(2));
  return t;
}

std::vector<std::string> binder_names(size_t n) {
  std::vector<std::string> out;
  for (size_t q = 0; q < n; ++q) out.push_back("i" + std::to_string(q));
  return out;
}

// A Delta on the given inputs for one linear operation kind (or a random one).
struct LinearCase {
  Tape tape;
  std::vector<Shape> inputs;
  DeltaId root = -1;
};

std::string describe(const LinearCase &c) {
  std::vector<std::string> names;
  for (size_t k = 0; k < c.inputs.size(); ++k) names.push_back("x" + std::to_string(k));
  return print(c.tape, c.root, names);
}

// Applies a random operation of kind k to node d; nullopt if it does not apply to d's shape.
std::optional<DeltaId> apply(Tape &tape, DKind k, DeltaId d) {
  const Shape s = tape[d].shape;
  const size_t r = s.size();
  switch (k) {
    case DKind::Index: {
      if (r == 0) return std::nullopt;
      size_t m = static_cast<size_t>(uniform<int>(1, static_cast<int>(r) + 1));
      std::vector<Term> ix;
      for (size_t q = 0; q < m; ++q) ix.push_back(int_scalar(uniform<int64_t>(-1, s[q] + 1)));
      return tape.index(d, ix);
    }
    case DKind::SumOuter:
      if (r == 0) return std::nullopt;
      return tape.sum_outer(d);
    case DKind::Replicate:
      if (r >= 3) return std::nullopt;
      return tape.replicate(uniform<int64_t>(0, 4), d);
    case DKind::Gather: {
      // out = binder dims ++ s[m2..]
      size_t m2 = static_cast<size_t>(uniform<int>(0, static_cast<int>(std::min<size_t>(r, 2)) + 1));
      size_t m1 = static_cast<size_t>(uniform(0, 3));
      if (m1 + r - m2 > 3) return std::nullopt;
      auto b = binder_names(m1);
      Shape out;
      for (size_t q = 0; q < m1; ++q) out.push_back(uniform<int64_t>(0, 5));
      out.insert(out.end(), s.begin() + static_cast<long>(m2), s.end());
      std::vector<Term> ix;
      for (size_t q = 0; q < m2; ++q) ix.push_back(affine_index(b, s[q]));
      return tape.gather(out, d, b, ix);
    }
    case DKind::Scatter: {
      // s = lead(m1) ++ rest; out = k'(m2) ++ rest
      size_t m1 = static_cast<size_t>(uniform<int>(0, static_cast<int>(std::min<size_t>(r, 2)) + 1));
      size_t m2 = static_cast<size_t>(uniform(0, 3));
      if (m2 + r - m1 > 3) return std::nullopt;
      auto b = binder_names(m1);
      Shape out;
      for (size_t q = 0; q < m2; ++q) out.push_back(uniform<int64_t>(0, 5));
      out.insert(out.end(), s.begin() + static_cast<long>(m1), s.end());
      std::vector<Term> ix;
      for (size_t q = 0; q < m2; ++q) ix.push_back(affine_index(b, out[q]));
      return tape.scatter(out, d, b, ix);
    }
    case DKind::Transpose: {
      if (r == 0) return std::nullopt;
      size_t m = static_cast<size_t>(uniform<int>(1, static_cast<int>(r) + 1));
      Shape perm(m);
      for (size_t q = 0; q < m; ++q) perm[q] = static_cast<int64_t>(q);
      for (size_t q = m; q-- > 1;) std::swap(perm[q], perm[static_cast<size_t>(uniform<int>(0, static_cast<int>(q) + 1))]);
      return tape.transpose(perm, d);
    }
    case DKind::Reshape: {
      int64_t n = numel(s);
      std::vector<Shape> options{{n}, Shape(s.rbegin(), s.rend())};
      Shape with_one = s;
      with_one.insert(with_one.begin() + uniform<long>(0, static_cast<long>(r) + 1), 1);
      if (r < 3) options.push_back(with_one);
      if (n % 2 == 0 && n > 0) options.push_back({2, n / 2});
      return tape.reshape(options[static_cast<size_t>(uniform<int>(0, static_cast<int>(options.size())))], d);
    }
    case DKind::Scale: return tape.scale(constant(random_reals_within_4(s)), d);
    case DKind::Share: return tape.share(d);
    default: return std::nullopt;
  }
}

// ⟨Lx, y⟩ against ⟨x, Lᵀy⟩, with tensors and with terms.
void check_adjoint(const LinearCase &c) {
  const Tape &tape = c.tape;
  RC_LOG() << describe(c) << "\n";
  std::vector<Tensor> xs;
  for (auto &s : c.inputs) xs.push_back(random_reals_within_4(s));
  Tensor y = random_reals_within_4(tape[c.root].shape);
  Tensor lx = forward_pass_at(tape, c.root, xs);
  auto lty = reverse_pass_at(tape, c.root, y, xs.size());
  double lhs = 0, rhs = 0, scale = 0;
  for (size_t q = 0; q < y.r.size(); ++q) {
    lhs += lx.r[q] * y.r[q];
    scale += std::fabs(lx.r[q] * y.r[q]);
  }
  for (size_t k = 0; k < xs.size(); ++k) {
    if (!lty[k]) continue;
    RC_ASSERT(lty[k]->shape == xs[k].shape);
    for (size_t q = 0; q < xs[k].r.size(); ++q) {
      rhs += xs[k].r[q] * lty[k]->r[q];
      scale += std::fabs(xs[k].r[q] * lty[k]->r[q]);
    }
  }
  RC_LOG() << "<Lx,y> = " << lhs << ", <x,LTy> = " << rhs << "\n";
  RC_ASSERT(std::fabs(lhs - rhs) <= 1e-12 * std::max(1.0, scale));

  // The symbolic passes denote the same tensors.
  Bindings env;
  std::vector<Term> xv;
  for (size_t k = 0; k < xs.size(); ++k) {
    env.emplace_back("x" + std::to_string(k), xs[k]);
    xv.push_back(rvar("x" + std::to_string(k), xs[k].shape));
  }
  env.emplace_back("y", y);
  RC_ASSERT(evaluate(share_to_let(forward_pass(tape, c.root, xv)), env) == lx);
  Unshared u = unshare(reverse_pass(tape, c.root, rvar("y", y.shape), xs.size()));
  Bindings full = env;
  for (auto &[x, t] : u.lets) full.emplace_back(x, evaluate(t, full));
  for (size_t k = 0; k < xs.size(); ++k) {
    RC_ASSERT(static_cast<bool>(u.terms[k]) == static_cast<bool>(lty[k]));
    if (u.terms[k]) RC_ASSERT(evaluate(u.terms[k], full) == *lty[k]);
  }
}

LinearCase single_op(DKind k) {
  for (;;) {
    LinearCase c;
    int min_rank = (k == DKind::Index || k == DKind::SumOuter || k == DKind::Transpose) ? 1 : 0;
    c.inputs.push_back(random_shape(min_rank, 3));
    DeltaId in = c.tape.input(0, c.inputs[0]);
    if (auto r = apply(c.tape, k, in)) {
      c.root = *r;
      if (c.tape[c.root].kind != DKind::Zero) return c;
    }
  }
}

}  // namespace

// ⟨index x ix, y⟩ = ⟨x, oneHot (shape x) ix y⟩, also for ix out of bounds.
RC_GTEST_PROP(AdAdjoint, IndexAndOneHot, ()) { check_adjoint(single_op(DKind::Index)); }
// ⟨sumOuter x, y⟩ = ⟨x, replicate k y⟩.
RC_GTEST_PROP(AdAdjoint, SumOuterAndReplicate, ()) { check_adjoint(single_op(DKind::SumOuter)); }
// ⟨replicate k x, y⟩ = ⟨x, sumOuter y⟩.
RC_GTEST_PROP(AdAdjoint, ReplicateAndSumOuter, ()) { check_adjoint(single_op(DKind::Replicate)); }
// ⟨gather sh x f, y⟩ = ⟨x, scatter (shape x) y f⟩, with f colliding and out of bounds.
RC_GTEST_PROP(AdAdjoint, GatherAndScatter, ()) { check_adjoint(single_op(DKind::Gather)); }
// ⟨scatter sh x f, y⟩ = ⟨x, gather (shape x) y f⟩, with f colliding and out of bounds.
RC_GTEST_PROP(AdAdjoint, ScatterAndGather, ()) { check_adjoint(single_op(DKind::Scatter)); }
// ⟨tr_p x, y⟩ = ⟨x, tr_{p⁻¹} y⟩.
RC_GTEST_PROP(AdAdjoint, TransposeAndInverse, ()) { check_adjoint(single_op(DKind::Transpose)); }
// ⟨reshape sh x, y⟩ = ⟨x, reshape (shape x) y⟩.
RC_GTEST_PROP(AdAdjoint, ReshapeAndReshapeBack, ()) { check_adjoint(single_op(DKind::Reshape)); }
// ⟨r .* x, y⟩ = ⟨x, r .* y⟩.
RC_GTEST_PROP(AdAdjoint, ScaleIsSelfAdjoint, ()) { check_adjoint(single_op(DKind::Scale)); }

// ⟨[x1..xn], y⟩ = Σ_j ⟨x_j, index y [j]⟩, and ⟨x1 .+ x2, y⟩ = ⟨x1, y⟩ + ⟨x2, y⟩.
RC_GTEST_PROP(AdAdjoint, LitArrayAndAdd, ()) {
  LinearCase c;
  Shape s = random_shape(0, 2);
  size_t n = static_cast<size_t>(uniform(1, 4));
  std::vector<DeltaId> ds;
  for (size_t k = 0; k < n; ++k) {
    c.inputs.push_back(s);
    ds.push_back(c.tape.input(static_cast<int>(k), s));
  }
  if (TermGen::chance(50)) {
    c.root = c.tape.lit_array(ds);
  } else {
    c.root = ds[0];
    for (size_t k = 1; k < n; ++k) c.root = c.tape.add(c.root, ds[k]);
  }
  check_adjoint(c);
}

// Random Delta DAGs of all the constructors, with Shares and fan-out (Add d d, a node
// used by several parents): the reverse pass with deferred Shares is the adjoint of eval0.
RC_GTEST_PROP(AdAdjoint, RandomDeltaDags, ()) {
  LinearCase c;
  std::vector<DeltaId> nodes;
  size_t n_in = static_cast<size_t>(uniform(1, 3));
  for (size_t k = 0; k < n_in; ++k) {
    c.inputs.push_back(random_shape(0, 3));
    nodes.push_back(c.tape.input(static_cast<int>(k), c.inputs.back()));
  }
  const DKind kinds[] = {DKind::Index, DKind::SumOuter, DKind::Replicate, DKind::Gather, DKind::Scatter,
                         DKind::Transpose, DKind::Reshape, DKind::Scale, DKind::Add, DKind::LitArray};
  int steps = uniform(1, 8);
  for (int q = 0; q < steps; ++q) {
    DeltaId d = nodes[static_cast<size_t>(uniform<int>(0, static_cast<int>(nodes.size())))];
    DKind k = kinds[uniform(0, 10)];
    std::optional<DeltaId> r;
    if (k == DKind::Add || k == DKind::LitArray) {
      std::vector<DeltaId> same;
      for (DeltaId e : nodes)
        if (c.tape[e].shape == c.tape[d].shape) same.push_back(e);
      DeltaId e = same[static_cast<size_t>(uniform<int>(0, static_cast<int>(same.size())))];  // may be d itself
      r = k == DKind::Add ? c.tape.add(d, e) : c.tape.lit_array({d, e});
    } else {
      r = apply(c.tape, k, d);
    }
    if (!r) continue;
    nodes.push_back(TermGen::chance(50) ? c.tape.share(*r) : *r);
  }
  c.root = nodes.back();
  RC_TAG(steps);
  check_adjoint(c);
}
