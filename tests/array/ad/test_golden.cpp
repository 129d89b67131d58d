// The test vectors of array-ad.md §9 that concern AD (items 5–15), through every stage:
// D's extracted form, the symbolic reverse pass, shareToLet, the wrapper's program, and
// the runtime and scalar dual-number paths as cross-checks. Expected values are the
// paper's or derived by hand ([D] in the design note), never computed by the code under
// test.
#include <gtest/gtest.h>

#include <cmath>
#include <set>

#include "ad_test_util.hpp"
#include "array/bot/bot.hpp"

using namespace rml::ad;
using namespace rml::ad::test;

namespace {

// t_sc' = sumOuter (gather [n] a (\[i]. [i]) *_R gather [n] a (\[i]. [n-1-i]))  (§6.1)
Term n_minus_1_minus(int64_t n, Term i) { return sub(sub(lit(n), lit(1)), std::move(i)); }
Term t_sc_bulk(int64_t n) {
  Term a = rvar("a", {n});
  return sum_outer(mul(gather({n}, a, {"i"}, {ivar("i")}), gather({n}, a, {"i"}, {n_minus_1_minus(n, ivar("i"))})));
}
// t_sc = sumOuter (build1 n (\i. index a [i] *_R index a [n-1-i]))
Term t_sc_build(int64_t n) {
  Term a = rvar("a", {n});
  return sum_outer(build1(n, "i", mul(index(a, {ivar("i")}), index(a, {n_minus_1_minus(n, ivar("i"))}))));
}

std::set<int64_t> share_ids(const Term &t) {
  std::set<int64_t> ids;
  std::set<const Node *> seen;
  std::vector<const Node *> stack{t.get()};
  while (!stack.empty()) {
    const Node *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    if (n->kind == Kind::Share) ids.insert(n->k);
    for (auto &k : n->kids) stack.push_back(k.get());
  }
  return ids;
}

}  // namespace

// §9 item 5, §7.1: bot t_sc = t_sc' (the first stage of the pipeline; bot is another
// stage's, checked here because the figures below start from its output).
TEST(AdGolden, TscAfterBotIsTscPrime) { EXPECT_TRUE(alpha_equal(rml::bot::bot(t_sc_build(3)), t_sc_bulk(3))) << print(rml::bot::bot(t_sc_build(3))); }

// §9 item 5, Fig. 18: D[t_sc'] after simplification is
//   let x1 = gather [n] a_p (\[i]. [i]); let x2 = gather [n] a_p (\[i]. [n-1-i])
//   return (sumOuter (x1 .* x2), Share4 (SumOuter (Share3 (Add (Scale x2 (Share1 (Gather a_d ..)))
//                                                             (Scale x1 (Share2 (Gather a_d ..)))))))
TEST(AdGolden, TscExtractedFormIsFig18) {
  Extracted ex = differentiate(t_sc_bulk(3), {{"a", rty({3})}});
  ASSERT_EQ(ex.binds.size(), 2u);
  Term a = rvar("a", {3});
  EXPECT_TRUE(alpha_equal(ex.binds[0].second, gather({3}, a, {"i"}, {ivar("i")}))) << print(ex);
  EXPECT_TRUE(alpha_equal(ex.binds[1].second, gather({3}, a, {"i"}, {n_minus_1_minus(3, ivar("i"))}))) << print(ex);
  Term primal = rename_terms(ex.primal, ex.binds, {"x1", "x2"});
  EXPECT_TRUE(alpha_equal(primal, sum_outer(mul(rvar("x1", {3}), rvar("x2", {3}))))) << print(primal);
  std::string delta = rename_ids(print(ex.tape, ex.delta, {"a"}), {{ex.binds[0].first, "x1"}, {ex.binds[1].first, "x2"}});
  EXPECT_EQ(delta,
            "Share 4 (SumOuter (Share 3 (Add (Scale x2 (Share 1 (Gather [3] (Input a) (\\[i]. [i])))) "
            "(Scale x1 (Share 2 (Gather [3] (Input a) (\\[i]. [(3 - 1) - i])))))))");
  EXPECT_EQ(ex.tape[ex.input_deltas[0]].kind, DKind::Input);
  EXPECT_EQ(shares_of(ex.tape, ex.delta).size(), 4u);
}

// §9 item 5, §6.3: reversePass [1.0] s = { inp ↦ scatter [n] (x2 .* share 1 (replicate n [1.0])) (\[i]. [i])
//                                              .+ scatter [n] (x1 .* share 1 (replicate n [1.0])) (\[i]. [n-1-i]) }
TEST(AdGolden, TscReversePassIsFig19) {
  Extracted ex = differentiate(t_sc_bulk(3), {{"a", rty({3})}});
  ReverseStats stats;
  std::vector<Term> g = reverse_pass(ex.tape, ex.delta, real_scalar(1.0), 1, &stats);
  ASSERT_EQ(g.size(), 1u);
  ASSERT_TRUE(g[0]);
  Term c = share(1, replicate(3, real_scalar(1.0)));
  Term x1 = rvar("x1", {3}), x2 = rvar("x2", {3});
  Term expected = add(scatter({3}, mul(x2, c), {"i"}, {ivar("i")}), scatter({3}, mul(x1, c), {"i"}, {n_minus_1_minus(3, ivar("i"))}));
  Term got = rename_terms(g[0], ex.binds, {"x1", "x2"});
  EXPECT_TRUE(alpha_equal(got, expected)) << print(got);
  EXPECT_EQ(stats.cotangent_shares, 1);  // the one genID_AST, at the Add
  EXPECT_EQ(stats.shares_processed, 4u);
}

// §9 item 5, Fig. 20: unshare gives {1 ↦ (shared1, replicate n [1.0])}, and
// shareToLet gives let shared1 = replicate n [1.0] in scatter (x2 .* shared1) .. .+ scatter (x1 .* shared1) ..
TEST(AdGolden, TscShareToLetIsFig20) {
  Extracted ex = differentiate(t_sc_bulk(3), {{"a", rty({3})}});
  Term g = rename_terms(reverse_pass(ex.tape, ex.delta, real_scalar(1.0), 1)[0], ex.binds, {"x1", "x2"});
  Unshared u = unshare({g});
  ASSERT_EQ(u.lets.size(), 1u);
  EXPECT_TRUE(alpha_equal(u.lets[0].second, replicate(3, real_scalar(1.0))));
  Term sh = rvar("shared1", {3}), x1 = rvar("x1", {3}), x2 = rvar("x2", {3});
  Term expected = let("shared1", replicate(3, real_scalar(1.0)),
                      add(scatter({3}, mul(x2, sh), {"i"}, {ivar("i")}), scatter({3}, mul(x1, sh), {"i"}, {n_minus_1_minus(3, ivar("i"))})));
  Term got = share_to_let(g);
  EXPECT_TRUE(alpha_equal(got, expected)) << print(got);
  EXPECT_FALSE(contains_share(got));
}

// §9 item 5 [D]: with a = [1,2,3] the value is 10 and the gradient [6,4,2] (2·a[n-1-j]).
TEST(AdGolden, TscValueAndGradientOnEveryPath) {
  Inputs in{{"a", rty({3})}};
  std::vector<Tensor> args{reals({3}, {1, 2, 3})};
  AllPaths r = all_paths(t_sc_bulk(3), t_sc_build(3), in, args, Tensor::real(1.0));
  for (const Gradient *g : r.all()) {
    EXPECT_EQ(g->value, Tensor::real(10));
    ASSERT_EQ(g->grads.size(), 1u);
    EXPECT_EQ(g->grads[0], reals({3}, {6, 4, 2}));
  }
  // Forward mode from the same Delta: J·v = Σ_j 2·a[n-1-j]·v_j = 6·1 + 4·10 + 2·100.
  rml::ir::Program jvp = jvp_program(t_sc_bulk(3), in, false);
  auto out = evaluate(jvp, {args[0], reals({3}, {1, 10, 100})});
  EXPECT_EQ(out[1], Tensor::real(246));
  EXPECT_EQ(runtime_jvp(t_sc_bulk(3), in, args, {reals({3}, {1, 10, 100})}, false).second, Tensor::real(246));
}

// §9 item 6, Fig. 6: named_{((R,R),R)} ((7,3.1),8) = (((7,Input 0),(3.1,Input 1)),(8,Input 2)) and
// reconstruct grad = ((grad!0, grad!1), grad!2). With the n-input wrapper the tuple is
// flattened to three inputs: named is the Input node per input, reconstruct the order of
// the gradient outputs. Int inputs get neither.
TEST(AdGolden, NamedAndReconstruct) {
  Inputs in{{"x0", rty()}, {"x1", rty()}, {"x2", rty()}};
  Term t = mul(mul(rvar("x0"), rvar("x1")), rvar("x2"));
  Extracted ex = differentiate(t, in);
  ASSERT_EQ(ex.input_deltas.size(), 3u);
  for (int k = 0; k < 3; ++k) {
    const DNode &n = ex.tape[ex.input_deltas[static_cast<size_t>(k)]];
    EXPECT_EQ(n.kind, DKind::Input);
    EXPECT_EQ(n.input, k);
  }
  rml::ir::Program p = gradient_program(t, in);
  EXPECT_EQ(p.output_names, (std::vector<std::string>{"value", "x0", "x1", "x2"}));
  auto out = run(p, {Tensor::real(7), Tensor::real(3.1), Tensor::real(8)}, Tensor::real(1));
  EXPECT_DOUBLE_EQ(out[0].r[0], 7 * 3.1 * 8);
  EXPECT_DOUBLE_EQ(out[1].r[0], 3.1 * 8);
  EXPECT_DOUBLE_EQ(out[2].r[0], 7 * 8);
  EXPECT_DOUBLE_EQ(out[3].r[0], 7 * 3.1);

  // An Int input between two reals: no Input node, no gradient output.
  Inputs mixed{{"a", rty({4})}, {"k", Type{Elem::Int, {}}}, {"b", rty()}};
  Term u = add(sum_outer(mul(rvar("a", {4}), rvar("a", {4}))), mul(rvar("b"), unary(UnOp::ToReal, ivar("k"))));
  Extracted ex2 = differentiate(u, mixed);
  EXPECT_EQ(ex2.input_deltas[1], -1);
  EXPECT_EQ(ex2.tape[ex2.input_deltas[2]].input, 2);
  rml::ir::Program p2 = vjp_program(u, mixed, false);
  EXPECT_EQ(p2.output_names, (std::vector<std::string>{"value", "a", "b"}));
  auto out2 = run(p2, {reals({4}, {1, 2, 3, 4}), Tensor::integer(5), Tensor::real(2)}, Tensor::real(1));
  EXPECT_EQ(out2[0], Tensor::real(30 + 10));
  EXPECT_EQ(out2[1], reals({4}, {2, 4, 6, 8}));
  EXPECT_EQ(out2[2], Tensor::real(5));
}

namespace {
// P1 (§2.5): let x1 = x+x; x2 = x1+x1; ...; xn = x_{n-1}+x_{n-1} in xn
Term p1(int n) {
  Term body = rvar("x" + std::to_string(n));
  for (int k = n; k >= 1; --k) {
    Term prev = rvar(k == 1 ? "x" : "x" + std::to_string(k - 1));
    body = let("x" + std::to_string(k), add(prev, prev), body);
  }
  return body;
}
struct P1Sizes {
  size_t tape, visits, let_size, scalar_evals;
};
P1Sizes p1_sizes(int n) {
  Inputs in{{"x", rty()}};
  Extracted ex = differentiate(p1(n), in);
  ReverseStats st;
  Term g = reverse_pass(ex.tape, ex.delta, rvar("c"), 1, &st)[0];
  ScalarStats ss;
  scalar_gradient(p1(n), in, {Tensor::real(1)}, Tensor::real(1), &ss);
  return {ex.tape.size(), st.visits, term_size(share_to_let(g)), ss.eval_calls};
}
// f is affine in n on 16, 32, 64 iff its second difference vanishes.
bool linear(size_t f16, size_t f32, size_t f64) { return f64 - f32 == 2 * (f32 - f16) && f32 > f16; }
}  // namespace

// §9 item 7: P1 with n = 64 has value 2^64·x and gradient exactly 2^64; the reverse pass
// does O(n) work (exact linearity of the counts in n), where Fig. 2's eval3 needs 2^n.
TEST(AdGolden, P1GradientIsExactAndWorkIsLinear) {
  Inputs in{{"x", rty()}};
  const double two64 = std::ldexp(1.0, 64);
  AllPaths r = all_paths(p1(64), p1(64), in, {Tensor::real(1.5)}, Tensor::real(1));
  for (const Gradient *g : r.all()) {
    EXPECT_EQ(g->value, Tensor::real(1.5 * two64));
    EXPECT_EQ(g->grads[0], Tensor::real(two64));
  }
  P1Sizes a = p1_sizes(16), b = p1_sizes(32), c = p1_sizes(64);
  EXPECT_TRUE(linear(a.tape, b.tape, c.tape)) << a.tape << " " << b.tape << " " << c.tape;
  EXPECT_TRUE(linear(a.visits, b.visits, c.visits)) << a.visits << " " << b.visits << " " << c.visits;
  EXPECT_TRUE(linear(a.let_size, b.let_size, c.let_size)) << a.let_size << " " << b.let_size << " " << c.let_size;
  EXPECT_TRUE(linear(a.scalar_evals, b.scalar_evals, c.scalar_evals));
  // Without the optimistic shares the cotangent term would be a tree of 2^n leaves: the
  // unshared reading of the gradient term (shares counted at every use) is exponential.
  Extracted ex = differentiate(p1(16), in);
  Term g = reverse_pass(ex.tape, ex.delta, rvar("c"), 1)[0];
  EXPECT_GE(term_size(g), size_t{1} << 16);
  EXPECT_LT(dag_size(g), 200u);
}

// §9 item 8, Fig. 4: let y = exp x in let z = log y in y + sin z / cos z. Share IDs 1..6 are
// exp, log, sin, cos, /, + and each Share is processed once; [D] the gradient is
// e^x + 1/cos²x (z = x).
TEST(AdGolden, Fig4SharesProcessedOnce) {
  Term x = rvar("x"), y = rvar("y"), z = rvar("z");
  Term t = let("y", unary(UnOp::Exp, x), let("z", unary(UnOp::Log, y), add(y, binary(BinOp::Div, unary(UnOp::Sin, z), unary(UnOp::Cos, z)))));
  Inputs in{{"x", rty()}};
  const double xv = 0.3, expected = std::exp(xv) + 1 / (std::cos(xv) * std::cos(xv));

  // Scalar dual numbers (Fig. 5 itself): six Shares, bodies processed once each.
  ScalarStats ss;
  Gradient sg = scalar_gradient(t, in, {Tensor::real(xv)}, Tensor::real(1), &ss);
  EXPECT_NEAR(sg.grads[0].r[0], expected, 1e-14);
  EXPECT_EQ(ss.shares, 6u);
  for (size_t id = 1; id <= 6; ++id) EXPECT_EQ(ss.body_visits[id], 1) << "share " << id;

  // Dual arrays: the same six Shares, in the same ID order.
  Extracted ex = differentiate(t, in);
  std::vector<DeltaId> s = shares_of(ex.tape, ex.delta);
  ASSERT_EQ(s.size(), 6u);
  auto body = [&](size_t k) -> const DNode & { return ex.tape[ex.tape[s[k]].kids[0]]; };
  EXPECT_EQ(body(0).kind, DKind::Scale);  // exp: Scale e^x (Input x)
  EXPECT_EQ(ex.tape[body(0).kids[0]].kind, DKind::Input);
  EXPECT_EQ(body(1).kids[0], s[0]);  // log: Scale (1/y) S1
  EXPECT_EQ(body(2).kids[0], s[1]);  // sin: Scale (cos z) S2
  EXPECT_EQ(body(3).kids[0], s[1]);  // cos: Scale (-sin z) S2
  ASSERT_EQ(body(4).kind, DKind::Add);  // /: Add (Scale _ S3) (Scale _ S4)
  EXPECT_EQ(ex.tape[body(4).kids[0]].kids[0], s[2]);
  EXPECT_EQ(ex.tape[body(4).kids[1]].kids[0], s[3]);
  ASSERT_EQ(body(5).kind, DKind::Add);  // +: Add S1 S5
  EXPECT_EQ(body(5).kids, (std::vector<DeltaId>{s[0], s[4]}));
  EXPECT_EQ(ex.delta, s[5]);
  ReverseStats st;
  reverse_pass(ex.tape, ex.delta, real_scalar(1.0), 1, &st);
  for (DeltaId d : s) EXPECT_EQ(st.share_visits[static_cast<size_t>(d)], 1);
  EXPECT_EQ(st.shares_processed, 6u);

  auto out = run(gradient_program(t, in), {Tensor::real(xv)}, Tensor::real(1));
  EXPECT_NEAR(out[1].r[0], expected, 1e-14);
  EXPECT_NEAR(runtime_gradient(t, in, {Tensor::real(xv)}, Tensor::real(1)).grads[0].r[0], expected, 1e-14);
}

namespace {
// Fn. 30 generalised: let x1 = inp+inp in let x2 = x1+x1 in ... x_len
Term doubling_chain(int len) {
  Term body = rvar("x" + std::to_string(len), {2});
  for (int k = len; k >= 1; --k) {
    Term prev = k == 1 ? rvar("inp", {2}) : rvar("x" + std::to_string(k - 1), {2});
    body = let("x" + std::to_string(k), add(prev, prev), body);
  }
  return body;
}
}  // namespace

// §9 item 9, fn. 30: D[let x = inp+inp in let y = x+x in let z = y+y in z] has gradient 8;
// the symbolic gradient term has 3 shares and its size is linear in the chain length.
TEST(AdGolden, Fn30ThreeSharesAndLinearSize) {
  Inputs in{{"inp", rty({2})}};
  Extracted ex = differentiate(doubling_chain(3), in);
  ReverseStats st;
  Term c = rvar("c", {2});
  Term g = reverse_pass(ex.tape, ex.delta, c, 1, &st)[0];
  EXPECT_EQ(share_ids(g).size(), 3u);
  EXPECT_EQ(st.cotangent_shares, 3);
  Term lets = share_to_let(g);
  EXPECT_EQ(evaluate(lets, {{"c", reals({2}, {1, -0.5})}}), reals({2}, {8, -4}));
  auto out = run(vjp_program(doubling_chain(3), in, false), {reals({2}, {1, 2})}, reals({2}, {1, 1}));
  EXPECT_EQ(out[0], reals({2}, {8, 16}));
  EXPECT_EQ(out[1], reals({2}, {8, 8}));

  std::vector<size_t> sizes;
  for (int len : {8, 16, 32}) {
    Extracted e = differentiate(doubling_chain(len), in);
    Term gl = reverse_pass(e.tape, e.delta, c, 1)[0];
    EXPECT_EQ(share_ids(gl).size(), static_cast<size_t>(len));
    sizes.push_back(term_size(share_to_let(gl)));
  }
  EXPECT_TRUE(linear(sizes[0], sizes[1], sizes[2])) << sizes[0] << " " << sizes[1] << " " << sizes[2];
}

namespace {
// t_dot after bot (§9 item 10 [D]): sumOuter (gather [n] a (\[i].[i]) * gather [n] b (\[i].[i]))
Term t_dot_bulk(int64_t n) {
  return sum_outer(mul(gather({n}, rvar("a", {n}), {"i"}, {ivar("i")}), gather({n}, rvar("b", {n}), {"i"}, {ivar("i")})));
}
Term t_dot_build(int64_t n) {
  return sum_outer(build1(n, "i", mul(index(rvar("a", {n}), {ivar("i")}), index(rvar("b", {n}), {ivar("i")}))));
}
}  // namespace

// §9 item 10: the gradient of t_dot is (b, a); the dual-array Delta has a size independent
// of n, while the naive scalar Delta grows with n (§4.1: one Share per product, one for the sum).
TEST(AdGolden, TdotGradientAndConstantDeltaSize) {
  Inputs in{{"a", rty({4})}, {"b", rty({4})}};
  Tensor a = reals({4}, {1, -2, 3, 0.5}), b = reals({4}, {4, 5, -6, 8});
  AllPaths r = all_paths(t_dot_bulk(4), t_dot_build(4), in, {a, b}, Tensor::real(1));
  for (const Gradient *g : r.all()) {
    EXPECT_EQ(g->value, Tensor::real(4 - 10 - 18 + 4));
    EXPECT_EQ(g->grads[0], b);
    EXPECT_EQ(g->grads[1], a);
  }
  auto size_at = [&](int64_t n) {
    Extracted ex = differentiate(t_dot_bulk(n), {{"a", rty({n})}, {"b", rty({n})}});
    return delta_size(ex.tape, ex.delta);
  };
  EXPECT_EQ(size_at(3), size_at(1000));
  // 4 Shares, SumOuter, Add, 2 Scales, 2 Gathers, 2 Inputs
  EXPECT_EQ(size_at(3), 12u);
  for (int64_t n : {3, 50}) {
    ScalarStats ss;
    Tensor v = Tensor::zeros(Elem::Real, {n});
    scalar_gradient(t_dot_build(n), {{"a", rty({n})}, {"b", rty({n})}}, {v, v}, Tensor::real(1), &ss);
    EXPECT_EQ(ss.shares, static_cast<size_t>(n + 1));
  }
}

// §9 item 11, §5.2: build1 20 (\i. cond (i<10) (index a [i]) (index a [i-10])) is a ++ a
// through out-of-bounds index; the gradient of its sum is all 2s. The bulk form is what
// B4, G3, B10 and G1 give: gather [20] (tr [gather [20] a (\[i].[i]), gather [20] a (\[i].[i-10])]) (\[i]. [i, cond (i<10) 0 1]).
TEST(AdGolden, ConcatThroughOutOfBoundsIndex) {
  Term a = rvar("a", {10});
  Term i = ivar("i");
  Term build = build1(20, "i", cond(binary(BinOp::Lt, i, lit(10)), index(a, {i}), index(a, {sub(i, lit(10))})));
  Term pair = tr(from_list({gather({20}, a, {"i"}, {i}), gather({20}, a, {"i"}, {sub(i, lit(10))})}));
  Term bulk = gather({20}, pair, {"i"}, {i, cond(binary(BinOp::Lt, i, lit(10)), lit(0), lit(1))});
  Tensor av = Tensor::zeros(Elem::Real, {10});
  for (size_t k = 0; k < 10; ++k) av.r[k] = 0.5 * static_cast<double>(k) - 2;
  EXPECT_EQ(evaluate(bulk, {{"a", av}}), evaluate(build, {{"a", av}}));
  Tensor twos = Tensor::zeros(Elem::Real, {10});
  for (auto &v : twos.r) v = 2;
  Inputs in{{"a", rty({10})}};
  AllPaths r = all_paths(sum_outer(bulk), sum_outer(build), in, {av}, Tensor::real(1));
  for (const Gradient *g : r.all()) EXPECT_EQ(g->grads[0], twos);
}

namespace {
// C[i,j] = Σ_k A[i,k]·B[k,j] in bulk form: X[i,j,k] = A[i,k], Y[i,j,k] = B[k,j], then
// k moved to the front and summed (matmatFirstOrder of §3.1 up to the layout).
Term matmat_bulk(int64_t m, int64_t n, int64_t p) {
  Term A = rvar("A", {m, n}), B = rvar("B", {n, p});
  Term X = gather({m, p, n}, A, {"i", "j", "k"}, {ivar("i"), ivar("k")});
  Term Y = gather({m, p, n}, B, {"i", "j", "k"}, {ivar("k"), ivar("j")});
  return sum_outer(transpose({2, 0, 1}, mul(X, Y)));
}
// matmat of §3.1: build [m,p] (\[i,j]. sumOuter (build1 n (\k. index A [i,k] * index B [k,j])))
Term matmat_build(int64_t m, int64_t n, int64_t p) {
  Term A = rvar("A", {m, n}), B = rvar("B", {n, p});
  Term i = ivar("i"), j = ivar("j"), k = ivar("k");
  return build1(m, "i", build1(p, "j", sum_outer(build1(n, "k", mul(index(A, {i, k}), index(B, {k, j}))))));
}
}  // namespace

// §9 item 12: the cotangent rule of matmat is (C̄Bᵀ, AᵀC̄); checked against loops.
TEST(AdGolden, MatmatCotangentRule) {
  const int64_t m = 2, n = 3, p = 4;
  Tensor A = Tensor::zeros(Elem::Real, {m, n}), B = Tensor::zeros(Elem::Real, {n, p}), W = Tensor::zeros(Elem::Real, {m, p});
  for (size_t q = 0; q < A.r.size(); ++q) A.r[q] = 0.25 * static_cast<double>(q) - 1;
  for (size_t q = 0; q < B.r.size(); ++q) B.r[q] = static_cast<double>((q * 7) % 5) - 2;
  for (size_t q = 0; q < W.r.size(); ++q) W.r[q] = static_cast<double>(q % 3) + 0.5;
  Inputs in{{"A", rty({m, n})}, {"B", rty({n, p})}};
  EXPECT_EQ(evaluate(matmat_bulk(m, n, p), {{"A", A}, {"B", B}}), evaluate(matmat_build(m, n, p), {{"A", A}, {"B", B}}));
  Tensor Abar = Tensor::zeros(Elem::Real, {m, n}), Bbar = Tensor::zeros(Elem::Real, {n, p});
  for (int64_t i = 0; i < m; ++i)
    for (int64_t k = 0; k < n; ++k)
      for (int64_t j = 0; j < p; ++j) {
        Abar.r[static_cast<size_t>(i * n + k)] += W.r[static_cast<size_t>(i * p + j)] * B.r[static_cast<size_t>(k * p + j)];
        Bbar.r[static_cast<size_t>(k * p + j)] += A.r[static_cast<size_t>(i * n + k)] * W.r[static_cast<size_t>(i * p + j)];
      }
  AllPaths r = all_paths(matmat_bulk(m, n, p), matmat_build(m, n, p), in, {A, B}, W);
  for (const Gradient *g : r.all()) {
    EXPECT_TENSOR_NEAR(g->grads[0], Abar, 1e-12);
    EXPECT_TENSOR_NEAR(g->grads[1], Bbar, 1e-12);
  }
}

// §9 item 13, App. C: foo1 a = tlet (gather [n] a (\[i].[n-1-i])) (\a'. a'!0 + a'!1 + a'!2),
// foo2 the same with tshare. [D] Value a[n-1]+a[n-2]+a[n-3], gradient 1 at those three
// positions; the gather's reverse is computed once (one Gather on the tape, its Share
// processed once), whereas the inlined version has three.
TEST(AdGolden, Foo1Foo2ReverseComputedOnce) {
  const int64_t n = 5;
  Term a = rvar("a", {n});
  auto rev = [&] { return gather({n}, a, {"i"}, {n_minus_1_minus(n, ivar("i"))}); };
  auto body = [&](Term x) { return add(add(index(x, {lit(0)}), index(x, {lit(1)})), index(x, {lit(2)})); };
  Term foo1 = let("a'", rev(), body(rvar("a'", {n})));
  Term foo2 = body(share(7, rev()));
  Term inlined = body(rev());
  Inputs in{{"a", rty({n})}};
  Tensor av = reals({n}, {1, 10, 100, 1000, 10000});
  auto gathers = [](const Extracted &ex) {
    size_t c = 0;
    for (size_t d = 0; d < ex.tape.size(); ++d) c += ex.tape[static_cast<DeltaId>(d)].kind == DKind::Gather;
    return c;
  };
  for (const Term &t : {foo1, foo2}) {
    AllPaths r;
    if (t == foo1) {
      r = all_paths(t, t, in, {av}, Tensor::real(1));
    } else {
      // A primal share is App. C's tshare, which D handles (one Delta per share id); bot
      // is not specified on share, so foo2 skips the vectorised path.
      r.symbolic = r.vectorised = from_outputs(run(vjp_program(t, in, false), {av}, Tensor::real(1)));
      r.runtime = runtime_gradient(t, in, {av}, Tensor::real(1), false);
      r.scalar = scalar_gradient(t, in, {av}, Tensor::real(1));
    }
    for (const Gradient *g : r.all()) {
      EXPECT_EQ(g->value, Tensor::real(11100));
      EXPECT_EQ(g->grads[0], reals({n}, {0, 0, 1, 1, 1}));
    }
    Extracted ex = differentiate(t, in);
    EXPECT_EQ(gathers(ex), 1u);
    ReverseStats st;
    reverse_pass(ex.tape, ex.delta, real_scalar(1.0), 1, &st);
    for (size_t d = 0; d < ex.tape.size(); ++d)
      if (ex.tape[static_cast<DeltaId>(d)].kind == DKind::Share) {
        EXPECT_LE(st.share_visits[d], 1);
      }
  }
  EXPECT_EQ(gathers(differentiate(inlined, in)), 3u);
}

namespace {
// App. B sillyAlt: n layers alternating rmap (+1) and rmap (2·), starting with (+1).
Term silly_alt_bulk(int layers, int64_t k) {
  Term body = rvar("v" + std::to_string(layers), {k});
  for (int l = layers; l >= 1; --l) {
    Term prev = rvar("v" + std::to_string(l - 1), {k});
    Term layer = l % 2 == 1 ? add(prev, replicate(k, real_scalar(1))) : mul(replicate(k, real_scalar(2)), prev);
    body = let("v" + std::to_string(l), layer, body);
  }
  return sum_outer(body);
}
Term silly_alt_build(int layers, int64_t k) {
  Term body = rvar("v" + std::to_string(layers), {k});
  for (int l = layers; l >= 1; --l) {
    Term x = index(rvar("v" + std::to_string(l - 1), {k}), {ivar("i")});
    Term layer = build1(k, "i", l % 2 == 1 ? add(x, real_scalar(1)) : mul(real_scalar(2), x));
    body = let("v" + std::to_string(l), layer, body);
  }
  return sum_outer(body);
}
}  // namespace

// §9 item 14: for n = 4 each element is 4v+6; in general the derivative is 2^⌊n/2⌋.
TEST(AdGolden, SillyAlt) {
  const int64_t k = 3;
  Inputs in{{"v0", rty({k})}};
  Tensor v = reals({k}, {0.5, -1, 2});
  for (int layers : {1, 4, 5, 10}) {
    AllPaths r = all_paths(silly_alt_bulk(layers, k), silly_alt_build(layers, k), in, {v}, Tensor::real(1));
    double d = std::ldexp(1.0, layers / 2);
    for (const Gradient *g : r.all()) EXPECT_EQ(g->grads[0], reals({k}, {d, d, d})) << layers;
    if (layers == 4) {
      EXPECT_EQ(r.symbolic.value, Tensor::real((4 * 0.5 + 6) + (4 * -1 + 6) + (4 * 2 + 6)));
    }
  }
}

// §9 item 15, fn. 35: build1 n (\i. (index a i)^2 + index b i) = a^2 + b; the gradient of
// its sum is (2a, 1).
TEST(AdGolden, Fn35FusedFormGradient) {
  const int64_t n = 4;
  Term a = rvar("a", {n}), b = rvar("b", {n});
  Term build = sum_outer(build1(n, "i", add(mul(index(a, {ivar("i")}), index(a, {ivar("i")})), index(b, {ivar("i")}))));
  Term bulk = sum_outer(add(mul(a, a), b));
  Inputs in{{"a", rty({n})}, {"b", rty({n})}};
  Tensor av = reals({n}, {1, -2, 0.5, 3}), bv = reals({n}, {7, 8, 9, 10});
  EXPECT_EQ(evaluate(build, {{"a", av}, {"b", bv}}), evaluate(bulk, {{"a", av}, {"b", bv}}));
  AllPaths r = all_paths(bulk, build, in, {av, bv}, Tensor::real(1));
  for (const Gradient *g : r.all()) {
    EXPECT_EQ(g->grads[0], reals({n}, {2, -4, 1, 6}));
    EXPECT_EQ(g->grads[1], reals({n}, {1, 1, 1, 1}));
  }
}

// §6.5 [REC]: a real input the objective does not depend on gets zeros; a non-real or
// non-scalar objective, or a free variable outside the inputs, is rejected.
TEST(AdGolden, WrapperEdgeCases) {
  Inputs in{{"a", rty({2})}, {"unused", rty({3})}};
  Term t = sum_outer(rvar("a", {2}));
  auto out = run(vjp_program(t, in, false), {reals({2}, {1, 2}), reals({3}, {1, 2, 3})}, Tensor::real(1));
  EXPECT_EQ(out[1], reals({2}, {1, 1}));
  EXPECT_EQ(out[2], reals({3}, {0, 0, 0}));
  EXPECT_THROW(gradient_program(rvar("a", {2}), in), IrError);
  EXPECT_THROW(gradient_program(sum_outer(rvar("zz", {2})), in), IrError);
  EXPECT_THROW(gradient_program(binary(BinOp::Lt, rvar("a", {2}), rvar("a", {2})), in), IrError);
}

// The scalar path's discrete trace (used to reject finite-difference samples) changes
// exactly when a discrete decision does: here cond (x < 1) and floor (2x).
TEST(AdGolden, DiscreteTraceSeesDiscontinuities) {
  Term x = rvar("x");
  Term t = add(cond(binary(BinOp::Lt, x, real_scalar(1)), x, mul(x, x)),
               unary(UnOp::ToReal, unary(UnOp::Floor, mul(real_scalar(2), x))));
  auto trace = [&](double v) {
    std::vector<int64_t> tr;
    ScalarStats st;
    st.trace = &tr;
    scalar_gradient(t, {{"x", rty()}}, {Tensor::real(v)}, Tensor::real(1), &st);
    return tr;
  };
  EXPECT_EQ(trace(0.3), trace(0.3 + 1e-6));
  EXPECT_NE(trace(1 - 1e-9), trace(1 + 1e-9));       // cond flips
  EXPECT_NE(trace(0.5 - 1e-9), trace(0.5 + 1e-9));  // floor (2x) steps
  EXPECT_EQ(trace(1 - 1e-9).size(), trace(1 + 1e-9).size());
}

// A primal share inside index terms is dropped by D′ (share is the identity): the
// gradient program contains no share, as the executor requires.
TEST(AdGolden, PrimalShareInsideIndexTerms) {
  Term a = rvar("a", {3}), n = ivar("n");
  Term rot = gather({3}, a, {"i"}, {binary(BinOp::Mod, add(ivar("i"), share(4, n)), lit(3))});
  Term t = mul(index(a, {share(3, sub(n, lit(1)))}), sum_outer(mul(rot, a)));
  Inputs in{{"a", rty({3})}, {"n", Type{Elem::Int, {}}}};
  auto p = vjp_program(t, in, false);
  for (auto &[x, b] : p.binds) EXPECT_FALSE(contains_share(b)) << x;
  for (auto &o : p.outputs) EXPECT_FALSE(contains_share(o));
  // n = 1: f = a[0]·Σ_i a[(i+1) mod 3]·a[i] = a0·(a1a0 + a2a1 + a0a2)
  auto out = run(p, {reals({3}, {1, 10, 100}), Tensor::integer(1)}, Tensor::real(1));
  EXPECT_EQ(out[0], Tensor::real(1 * (10 + 1000 + 100)));
  EXPECT_EQ(out[0], evaluate(t, {{"a", reals({3}, {1, 10, 100})}, {"n", Tensor::integer(1)}}));
  // ∂f/∂a0 = (a1a0 + a2a1 + a0a2) + a0·(a1 + a2), ∂f/∂a1 = a0·(a0 + a2), ∂f/∂a2 = a0·(a1 + a0)
  EXPECT_EQ(out[1], reals({3}, {1110 + 110, 101, 11}));
}
