// Hand tests of the executor, one or more per kernel kind: fused maps, views, reductions,
// gathers/scatters/indexes (with out-of-bounds reads and dropped writes, collisions),
// literal arrays, GEMM recognition, buffer reuse, float32, errors. Every value is
// checked against the reference evaluator.
#include <gtest/gtest.h>

#include <limits>

#include "array/exec/exec_util.hpp"
#include "common/ulp.hpp"

using namespace rml::exectest;
using rml::exec::ExecError;

namespace {

Type it(Shape s) { return Type{Elem::Int, std::move(s)}; }
Term ic(int64_t v) { return int_scalar(v); }
Term add(Term a, Term b) { return binary(BinOp::Add, std::move(a), std::move(b)); }
Term sub(Term a, Term b) { return binary(BinOp::Sub, std::move(a), std::move(b)); }
// sumOuter (tr_{r-1,0,..,r-2} t): sum over the last axis.
Term sum_inner(Term t) {
  size_t r = t->type.rank();
  Shape perm{static_cast<int64_t>(r - 1)};
  for (size_t d = 0; d + 1 < r; ++d) perm.push_back(static_cast<int64_t>(d));
  return sum_outer(transpose(perm, std::move(t)));
}

}  // namespace

// ---- fused maps and views ----

TEST(ExecMap, ElementwiseTreeIsOneKernelAndBitExact) {
  Term a = rvar("a", {4, 5}), b = rvar("b", {4, 5}), c = rvar("c", {4, 5});
  Term t = add(unary(UnOp::Sqrt, a), mul(b, unary(UnOp::Abs, sub(c, a))));
  Program p = program({{"a", rt({4, 5})}, {"b", rt({4, 5})}, {"c", rt({4, 5})}}, {t});
  std::vector<Tensor> args{ramp({4, 5}), ramp({4, 5}, 2, 1), ramp({4, 5}, 3, 2)};
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(all_kernels(ex->plan()), 1) << ex->plan();
  EXPECT_NE(ex->plan().find("5 ops fused"), std::string::npos) << ex->plan();
  EXPECT_EQ(ex->run(args)[0], evaluate(p, args)[0]);  // same operations in the same order
}

// With exp and tanh, fused the same way, the executor's SLEEF kernels are within 2 ULP of
// the C library's (src/array/exec/vector_math.hpp), element by element.
TEST(ExecMap, ElementwiseTreeWithTranscendentalsIsOneKernelWithinTwoUlp) {
  Term a = rvar("a", {4, 5}), b = rvar("b", {4, 5}), c = rvar("c", {4, 5});
  Term t = add(unary(UnOp::Exp, a), mul(b, unary(UnOp::Tanh, sub(c, a))));
  Program p = program({{"a", rt({4, 5})}, {"b", rt({4, 5})}, {"c", rt({4, 5})}}, {t});
  std::vector<Tensor> args{ramp({4, 5}), ramp({4, 5}, 2, 1), ramp({4, 5}, 3, 2)};
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(all_kernels(ex->plan()), 1) << ex->plan();
  Tensor got = ex->run(args)[0], want = evaluate(p, args)[0];
  ASSERT_EQ(got.shape, want.shape);
  for (size_t k = 0; k < got.r.size(); ++k) {
    // exp (≤ 2 ULP), then tanh (≤ 2 ULP) scaled by b and added: a few ULP of the sum.
    EXPECT_LE(rml::test::ulp_distance(got.r[k], want.r[k]), 8u) << k;
  }
}

TEST(ExecMap, UnfusedOptionGivesOneKernelPerOperation) {
  Term a = rvar("a", {3, 3});
  Term t = add(unary(UnOp::Sin, a), mul(a, a));
  Program p = program({{"a", rt({3, 3})}}, {t});
  Options o;
  o.fuse = false;
  auto ex = rml::exec::compile(p, o);
  EXPECT_EQ(kernels(ex->plan(), "map"), 3) << ex->plan();
  EXPECT_TRUE(same_as_reference(p, {ramp({3, 3})}, o, 0));
}

TEST(ExecMap, ReplicateBroadcastsAreReadInPlace) {
  Term a = rvar("a", {3, 4}), v = rvar("v", {4}), s = rvar("s", {});
  // a * replicate 3 v + replicate 3 (replicate 4 s): broadcasts are zero-stride leaves.
  Term t = add(mul(a, replicate(3, v)), replicate(3, replicate(4, s)));
  Program p = program({{"a", rt({3, 4})}, {"v", rt({4})}, {"s", rt({})}}, {t});
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(all_kernels(ex->plan()), 1) << ex->plan();
  EXPECT_NE(ex->plan().find("{bcast}"), std::string::npos) << ex->plan();
  EXPECT_TRUE(same_as_reference(p, {ramp({3, 4}), ramp({4}, 1, 5), reals({}, {2.5})}, {}, 0));
}

TEST(ExecMap, TransposeIsAStridedViewAndAnOutputViewNeedsNoKernel) {
  Term a = rvar("a", {3, 4}), b = rvar("b", {4, 3});
  Program p1 = program({{"a", rt({3, 4})}, {"b", rt({4, 3})}}, {add(tr(a), b)});
  auto ex = rml::exec::compile(p1);
  EXPECT_EQ(all_kernels(ex->plan()), 1) << ex->plan();
  EXPECT_NE(ex->plan().find("b0{1,4}"), std::string::npos) << ex->plan();  // strides of tr a
  EXPECT_TRUE(same_as_reference(p1, {ramp({3, 4}), ramp({4, 3}, 1, 1)}, {}, 0));

  Program p2 = program({{"a", rt({2, 3, 4})}}, {transpose({2, 0, 1}, replicate(2, rvar("a", {2, 3, 4})))});
  auto ex2 = rml::exec::compile(p2);
  EXPECT_EQ(all_kernels(ex2->plan()), 0) << ex2->plan();
  EXPECT_TRUE(same_as_reference(p2, {ramp({2, 3, 4})}, {}, 0));
}

TEST(ExecMap, CondIsStrictAndSelectsOnAScalar) {
  Term b = var("b", Type{Elem::Bool, {}}), x = rvar("x", {5}), y = rvar("y", {5});
  // Both branches are computed (log of a negative is NaN, harmless when not selected).
  Term t = cond(b, unary(UnOp::Log, x), mul(y, y));
  Program p = program({{"b", Type{Elem::Bool, {}}}, {"x", rt({5})}, {"y", rt({5})}}, {t});
  for (int64_t bv : {0, 1}) EXPECT_TRUE(same_as_reference(p, {bools({}, {bv}), ramp({5}), ramp({5}, 1, 3)}, {}, 0));
  // A condition known at compile time picks its branch.
  Program q = program({{"x", rt({5})}}, {cond(binary(BinOp::Lt, ic(1), ic(2)), x, unary(UnOp::Neg, x))});
  auto ex = rml::exec::compile(q);
  EXPECT_EQ(all_kernels(ex->plan()), 0) << ex->plan();
  EXPECT_TRUE(same_as_reference(q, {ramp({5})}, {}, 0));
}

TEST(ExecMap, IntAndBoolSemanticsMatchTheReference) {
  const int64_t mn = std::numeric_limits<int64_t>::min(), mx = std::numeric_limits<int64_t>::max();
  Term i = ivar("i", {6}), j = ivar("j", {6});
  Term r = rvar("r", {6});
  std::vector<Term> outs{binary(BinOp::IDiv, i, j), binary(BinOp::Mod, i, j), binary(BinOp::Div, i, j),
                         add(i, j),                 mul(i, j),                 unary(UnOp::Neg, i),
                         unary(UnOp::Abs, i),       binary(BinOp::Max, i, j),  binary(BinOp::Le, i, j),
                         unary(UnOp::Floor, r),     unary(UnOp::ToInt, r),     unary(UnOp::ToReal, i),
                         binary(BinOp::Xor, binary(BinOp::Lt, i, j), unary(UnOp::Not, binary(BinOp::Eq, i, j))),
                         binary(BinOp::Max, r, unary(UnOp::Neg, r)), binary(BinOp::Ge, r, r)};
  Program p = program({{"i", it({6})}, {"j", it({6})}, {"r", rt({6})}}, outs);
  double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  std::vector<Tensor> args{ints({6}, {7, -7, mn, mx, 5, 0}), ints({6}, {0, 2, -1, 1, -3, 0}),
                           reals({6}, {-2.5, 1e300, nan, -inf, 3.999, -0.0})};
  EXPECT_TRUE(same_as_reference(p, args, {}, 0));
}

// ---- reductions ----

TEST(ExecReduce, ColumnReductionFusedWithItsArgumentIsExact) {
  Term a = rvar("a", {7, 300});
  Program p = program({{"a", rt({7, 300})}}, {sum_outer(add(mul(a, a), unary(UnOp::Sin, a)))});
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "reduce"), 1) << ex->plan();
  EXPECT_EQ(all_kernels(ex->plan()), 1) << ex->plan();
  std::vector<Tensor> args{ramp({7, 300})};
  EXPECT_EQ(ex->run(args)[0], evaluate(p, args)[0]);  // the reference's summation order
}

TEST(ExecReduce, FullSumsOfLongVectorsAndIntsAndEmptySums) {
  Program p = program({{"v", rt({1000})}, {"n", it({3, 4})}, {"z", rt({0, 3})}},
                      {sum_outer(rvar("v", {1000})), sum_outer(ivar("n", {3, 4})), sum_outer(rvar("z", {0, 3})),
                       sum_outer(sum_outer(ivar("n", {3, 4})))});
  Tensor n = ints({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, std::numeric_limits<int64_t>::max(), 12});
  auto ex = rml::exec::compile(p);
  std::vector<Tensor> args{ramp({1000}), n, Tensor::zeros(Elem::Real, {0, 3})};
  auto got = ex->run(args);
  auto want = evaluate(p, args);
  for (size_t k = 0; k < got.size(); ++k) EXPECT_EQ(got[k], want[k]) << k;
}

TEST(ExecReduce, SumInnerOfATransposeReadsStrided) {
  Term a = rvar("a", {5, 6, 7});
  Program p = program({{"a", rt({5, 6, 7})}}, {sum_inner(a), sum_outer(transpose({1, 0}, a))});
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "reduce"), 2) << ex->plan();
  EXPECT_EQ(kernels(ex->plan(), "map"), 0) << ex->plan();
  // the summed axis is the contiguous one: summed in row order, still in j order
  EXPECT_NE(ex->plan().find("real[5,6] = sumOuter[7] b0  (rows)"), std::string::npos) << ex->plan();
  EXPECT_NE(ex->plan().find("(columns)"), std::string::npos) << ex->plan();
  EXPECT_TRUE(same_as_reference(p, {ramp({5, 6, 7})}, {}, 0));
}

// ---- gathers, scatters, indexes ----

TEST(ExecGather, DynamicIndexFunctionWithOutOfBoundsReadsZeroSlices) {
  Term a = rvar("a", {4, 3});
  Term idx = ivar("idx", {5});
  // gather [5, 3] a (\[i]. [index idx [i]]): data-dependent rows, some out of bounds.
  Term g = gather({5, 3}, a, {"i"}, {index(idx, {ivar("i")})});
  Program p = program({{"a", rt({4, 3})}, {"idx", it({5})}}, {g});
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "gather"), 1) << ex->plan();
  EXPECT_NE(ex->plan().find("slices of 3"), std::string::npos) << ex->plan();
  Tensor av = ramp({4, 3});
  auto out = ex->run({av, ints({5}, {2, -1, 0, 4, 3})});
  EXPECT_TRUE(same_as_reference(p, {av, ints({5}, {2, -1, 0, 4, 3})}, {}, 0));
  for (int k = 0; k < 3; ++k) {
    EXPECT_EQ(out[0].r[static_cast<size_t>(3 + k)], 0.0);  // idx -1
    EXPECT_EQ(out[0].r[static_cast<size_t>(9 + k)], 0.0);  // idx 4
    EXPECT_EQ(out[0].r[static_cast<size_t>(k)], av.r[static_cast<size_t>(6 + k)]);
  }
}

TEST(ExecGather, InBoundsAffineGathersAreViews) {
  Term a = rvar("a", {4, 4});
  Term i = ivar("i"), j = ivar("j");
  std::vector<Term> outs{
      gather({4}, a, {"i"}, {i, i}),                                        // diagonal
      gather({4, 4}, a, {"i", "j"}, {sub(ic(3), j), i}),                    // reversed transpose
      gather({2, 4}, a, {"i"}, {add(mul(ic(2), i), ic(1))}),                // odd rows
      gather({3, 4, 4}, a, {"k"}, {}),                                      // replicate
  };
  Program p = program({{"a", rt({4, 4})}}, outs);
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(all_kernels(ex->plan()), 0) << ex->plan();
  EXPECT_TRUE(same_as_reference(p, {ramp({4, 4})}, {}, 0));
}

TEST(ExecGather, AffineButOutOfBoundsGathersRunTheKernel) {
  Term a = rvar("a", {4});
  Term i = ivar("i");
  // §9.11's concat a ++ a after bot: cond (i < 4) (a[i]) (a[i - 4]) as gathers with OOB.
  Term lo = gather({8}, a, {"i"}, {i}), hi = gather({8}, a, {"i"}, {sub(i, ic(4))});
  Term sel = gather({8}, from_list({lo, hi}), {"i"},
                    {cond(binary(BinOp::Lt, i, ic(4)), ic(0), ic(1)), i});
  Program p = program({{"a", rt({4})}}, {sel});
  auto ex = rml::exec::compile(p);
  EXPECT_GE(kernels(ex->plan(), "gather"), 2) << ex->plan();
  Tensor av = reals({4}, {1, 2, 3, 4});
  EXPECT_EQ(ex->run({av})[0], reals({8}, {1, 2, 3, 4, 1, 2, 3, 4}));
  EXPECT_TRUE(same_as_reference(p, {av}, {}, 0));
}

TEST(ExecScatter, CollisionsAddAndOutOfBoundsWritesAreDropped) {
  Term src = rvar("s", {9});
  Term i = ivar("i");
  // §9.1: scatter [6] [1..9] (\[i]. [i div 2]) = [3,7,11,15,9,0]
  Program p = program({{"s", rt({9})}}, {scatter({6}, src, {"i"}, {binary(BinOp::IDiv, i, ic(2))}),
                                         scatter({3}, src, {"i"}, {sub(i, ic(3))})});
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "scatter"), 2) << ex->plan();
  Tensor s = reals({9}, {1, 2, 3, 4, 5, 6, 7, 8, 9});
  auto out = ex->run({s});
  EXPECT_EQ(out[0], reals({6}, {3, 7, 11, 15, 9, 0}));
  EXPECT_EQ(out[1], reals({3}, {4, 5, 6}));
  EXPECT_TRUE(same_as_reference(p, {s}, {}, 0));
}

TEST(ExecScatter, SlicesOfIntsWithCollisionsAndATransposedSource) {
  Term m = ivar("m", {3, 4});
  Term i = ivar("i");
  // rows of tr m (a strided source: copied to contiguous slices first) scattered by i mod 2
  Term s = scatter({2, 3}, transpose({1, 0}, m), {"i"}, {binary(BinOp::Mod, i, ic(2))});
  Program p = program({{"m", it({3, 4})}}, {s});
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "scatter"), 1) << ex->plan();
  EXPECT_TRUE(same_as_reference(p, {ints({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})}, {}, 0));
}

TEST(ExecIndex, ConstantDynamicAndOutOfBoundsIndexes) {
  Term a = rvar("a", {3, 4}), k = ivar("k");
  std::vector<Term> outs{index(a, {ic(1)}),          index(a, {ic(2), ic(3)}), index(a, {ic(3)}),
                         index(a, {k}),              index(a, {ic(1), k}),     index(unary(UnOp::Exp, a), {k}),
                         index(unary(UnOp::Exp, a), {ic(-1)})};
  Program p = program({{"a", rt({3, 4})}, {"k", it({})}}, outs);
  for (int64_t kv : {-1, 0, 2, 3, 4}) EXPECT_TRUE(same_as_reference(p, {ramp({3, 4}), ints({}, {kv})}, {}, 0)) << kv;
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "gather"), 3) << ex->plan();  // the dynamic ones
}

TEST(ExecGather, IndexFunctionsWithLoopsLetsListsAndReshapes) {
  Term a = rvar("a", {6}), n = ivar("n", {4});
  Term i = ivar("i"), j = ivar("j");
  // Index components computed by nested bulk code: a sum, a scatter, a literal array,
  // a reshape and a transpose, evaluated per element by the register machine.
  Term c1 = sum_outer(gather({2}, n, {"j"}, {add(i, j)}));
  Term c2 = index(scatter({3}, n, {"j"}, {binary(BinOp::Mod, j, ic(3))}), {binary(BinOp::Mod, i, ic(3))});
  Term c3 = let("x", from_list({i, mul(i, ic(2)), ic(7)}), index(reshape({3, 1}, ivar("x", {3})), {ic(1), ic(0)}));
  Term c4 = index(transpose({1, 0}, reshape({2, 2}, n)), {ic(1), binary(BinOp::Mod, i, ic(2))});
  Term c5 = unary(UnOp::Floor, mul(index(a, {i}), real_scalar(2)));
  std::vector<Term> outs;
  for (auto &c : {c1, c2, c3, c4, c5}) outs.push_back(gather({5}, a, {"i"}, {c}));
  Program p = program({{"a", rt({6})}, {"n", it({4})}}, outs);
  EXPECT_TRUE(same_as_reference(p, {ramp({6}, 2.0), ints({4}, {1, -1, 3, 2})}, {}, 0));
}

// ---- literal arrays, reshapes, constants ----

TEST(ExecArray, LiteralArraysWriteTheirPartsInPlace) {
  Term a = rvar("a", {2, 3}), s = rvar("s", {});
  Term t = from_list({a, mul(a, a), tr(tr(a))});
  Term u = from_list({s, unary(UnOp::Exp, s), real_scalar(4)});
  Program p = program({{"a", rt({2, 3})}, {"s", rt({})}}, {t, u, reshape({9, 2}, t), iota(5)});
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "map"), 6) << ex->plan();
  EXPECT_TRUE(same_as_reference(p, {ramp({2, 3}), reals({}, {0.5})}, {}, 0));
}

TEST(ExecArray, ReshapesAreViewsOfContiguousDataAndCopiesOtherwise) {
  Term a = rvar("a", {4, 6});
  Program p1 = program({{"a", rt({4, 6})}}, {reshape({2, 12}, a), reshape({3, 8}, unary(UnOp::Sin, a))});
  auto ex1 = rml::exec::compile(p1);
  EXPECT_EQ(all_kernels(ex1->plan()), 1) << ex1->plan();  // only the sine
  EXPECT_TRUE(same_as_reference(p1, {ramp({4, 6})}, {}, 0));
  Program p2 = program({{"a", rt({4, 6})}}, {reshape({24}, tr(a))});
  auto ex2 = rml::exec::compile(p2);
  EXPECT_EQ(kernels(ex2->plan(), "map"), 1) << ex2->plan();  // the transposed copy
  EXPECT_TRUE(same_as_reference(p2, {ramp({4, 6})}, {}, 0));
}

TEST(ExecArray, ZeroSizedShapes) {
  Term z = rvar("z", {0, 3}), a = rvar("a", {3});
  std::vector<Term> outs{sum_outer(z), add(z, z), gather({0, 3}, a, {"i"}, {}),
                         gather({2}, z, {"i"}, {ivar("i"), ic(0)}), scatter({4}, z, {"i", "j"}, {ivar("j")}),
                         replicate(0, a), sum_outer(replicate(0, a))};
  Program p = program({{"z", rt({0, 3})}, {"a", rt({3})}}, outs);
  EXPECT_TRUE(same_as_reference(p, {Tensor::zeros(Elem::Real, {0, 3}), ramp({3})}, {}, 0));
}

// ---- GEMM recognition ----

TEST(ExecGemm, PreludeMatmulMatvecAndDotUseGemm) {
  const int64_t m = 9, k = 11, n = 7;
  Term a = rvar("a", {m, k}), b = rvar("b", {k, n}), x = rvar("x", {k}), y = rvar("y", {k});
  // prelude.rml: matmul = sumOuter(transpose([2,1,0], replicate(n, a)) * tr(replicate(m, b)))
  Term mm = sum_outer(mul(transpose({2, 1, 0}, replicate(n, a)), tr(replicate(m, b))));
  // matvec = sumOuter(tr(a * replicate(m, x)))
  Term mv = sum_outer(tr(mul(a, replicate(m, x))));
  Term dot = sum_outer(mul(replicate(8, x), replicate(8, y)));  // [8, k] summed over 8
  Term dot2 = sum_outer(mul(rvar("u", {100}), rvar("w", {100})));
  Program p = program({{"a", rt({m, k})}, {"b", rt({k, n})}, {"x", rt({k})}, {"y", rt({k})}, {"u", rt({100})}, {"w", rt({100})}},
                      {mm, mv, dot, dot2});
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "gemm"), 3) << ex->plan();  // mm, mv, dot2 (dot is a [8] broadcast)
  EXPECT_EQ(all_kernels(ex->plan()), 4) << ex->plan();
  std::vector<Tensor> args{ramp({m, k}), ramp({k, n}, 1, 1), ramp({k}, 1, 2), ramp({k}, 1, 3), ramp({100}), ramp({100}, 2, 1)};
  EXPECT_TRUE(same_as_reference(p, args));
}

TEST(ExecGemm, MatmatFirstOrderAndBotShapedGathers) {
  const int64_t m = 8, k = 6, n = 10;
  Term a = rvar("a", {m, k}), b = rvar("b", {k, n});
  // §9 item 12: sumInner (transpose (replicate n a) * replicate m (transpose b))
  Term first = sum_inner(mul(tr(replicate(n, a)), replicate(m, tr(b))));
  // bot's form of build [m,n] (\[i,j]. sumOuter (build1 k (\p. a[i,p] * b[p,j]))):
  // sumOuter (gather [k,m,n] a (\[p,i,j]. [i,p]) * gather [k,m,n] b (\[p,i,j]. [p,j]))
  Term p_ = ivar("p"), i = ivar("i"), j = ivar("j");
  Term botf = sum_outer(mul(gather({k, m, n}, a, {"p", "i", "j"}, {i, p_}), gather({k, m, n}, b, {"p", "i", "j"}, {p_, j})));
  // and the transposed result, C^T (output dims n, m)
  Term bott = sum_outer(mul(gather({k, n, m}, a, {"p", "j", "i"}, {i, p_}), gather({k, n, m}, b, {"p", "j", "i"}, {p_, j})));
  Program pr = program({{"a", rt({m, k})}, {"b", rt({k, n})}}, {first, botf, bott});
  auto ex = rml::exec::compile(pr);
  EXPECT_EQ(kernels(ex->plan(), "gemm"), 3) << ex->plan();
  EXPECT_EQ(all_kernels(ex->plan()), 3) << ex->plan();
  EXPECT_TRUE(same_as_reference(pr, {ramp({m, k}), ramp({k, n}, 1, 1)}));
}

// Every placement of the three axes of a matrix product in the product tensor, and
// operands stored either way round: each is recognised.
TEST(ExecGemm, EveryAxisOrderAndOperandLayoutIsRecognised) {
  const int64_t m = 6, k = 5, n = 7;
  Shape perms[6] = {{0, 1, 2}, {0, 2, 1}, {1, 0, 2}, {1, 2, 0}, {2, 0, 1}, {2, 1, 0}};
  for (bool a_t : {false, true})
    for (bool b_t : {false, true})
      for (auto &perm : perms) {
        // x[p, i, j] = a[i, p] (a stored [m,k] or [k,m]); y[p, i, j] = b[p, j].
        Term a = a_t ? tr(rvar("a", {k, m})) : rvar("a", {m, k});
        Term b = b_t ? tr(rvar("b", {n, k})) : rvar("b", {k, n});
        Term x = transpose({1, 0}, tr(replicate(n, a)));  // [m, n, k] -> tr_{1,0} -> [n, m, k]
        x = transpose({2, 1, 0}, x);                      // [k, m, n]
        Term y = tr(replicate(m, b));                     // [k, m, n]
        // Put the axes in order perm, then move k (wherever it went) back to the front.
        Term prod = transpose(perm, mul(x, y));
        int64_t kpos = 0;
        for (int64_t q = 0; q < 3; ++q)
          if (perm[static_cast<size_t>(q)] == 0) kpos = q;
        Shape back{kpos};
        for (int64_t q = 0; q < 3; ++q)
          if (q != kpos) back.push_back(q);
        Term t = sum_outer(transpose(back, prod));
        Program p = program({{"a", rt(a_t ? Shape{k, m} : Shape{m, k})}, {"b", rt(b_t ? Shape{n, k} : Shape{k, n})}}, {t});
        auto ex = rml::exec::compile(p);
        EXPECT_EQ(kernels(ex->plan(), "gemm"), 1) << ex->plan();
        EXPECT_TRUE(same_as_reference(p, {ramp(a_t ? Shape{k, m} : Shape{m, k}), ramp(b_t ? Shape{n, k} : Shape{k, n}, 1, 1)}));
      }
}

TEST(ExecGemm, BatchedMatmulBroadcastResultAndNegativeStrides) {
  const int64_t B = 3, m = 8, k = 9, n = 8;  // m n k ≥ 512: batched GEMM pays off
  Term a = rvar("a", {B, m, k}), b = rvar("b", {B, k, n});
  Term p_ = ivar("p"), q = ivar("q"), i = ivar("i"), j = ivar("j");
  // [k, B, m, n]: a batch dim shared by both operands
  Term bmm = sum_outer(mul(gather({k, B, m, n}, a, {"p", "q", "i", "j"}, {q, i, p_}),
                           gather({k, B, m, n}, b, {"p", "q", "i", "j"}, {q, p_, j})));
  // a result broadcast along a dim neither operand uses: [k, m, 4, n]
  Term a2 = rvar("a2", {m, k}), b2 = rvar("b2", {k, n});
  Term bc = sum_outer(mul(gather({k, m, 4, n}, a2, {"p", "i", "r", "j"}, {i, p_}),
                          gather({k, m, 4, n}, b2, {"p", "i", "r", "j"}, {p_, j})));
  // reversed rows of a (negative stride), columns of b reversed too
  Term rev = sum_outer(mul(gather({k, m, n}, a2, {"p", "i", "j"}, {sub(ic(m - 1), i), p_}),
                           gather({k, m, n}, b2, {"p", "i", "j"}, {sub(ic(k - 1), p_), sub(ic(n - 1), j)})));
  Program pr = program({{"a", rt({B, m, k})}, {"b", rt({B, k, n})}, {"a2", rt({m, k})}, {"b2", rt({k, n})}}, {bmm, bc, rev});
  auto ex = rml::exec::compile(pr);
  EXPECT_EQ(kernels(ex->plan(), "gemm"), 3) << ex->plan();
  EXPECT_NE(ex->plan().find("batch [3]"), std::string::npos) << ex->plan();
  EXPECT_TRUE(same_as_reference(pr, {ramp({B, m, k}), ramp({B, k, n}, 1, 1), ramp({m, k}, 1, 2), ramp({k, n}, 1, 3)}));
}

TEST(ExecGemm, DisabledGemmAndTinyContractionsUseExactReductions) {
  const int64_t m = 9, k = 11, n = 7;
  Term a = rvar("a", {m, k}), b = rvar("b", {k, n});
  Term mm = sum_outer(mul(transpose({2, 1, 0}, replicate(n, a)), tr(replicate(m, b))));
  Program p = program({{"a", rt({m, k})}, {"b", rt({k, n})}}, {mm});
  Options o;
  o.gemm = false;
  auto ex = rml::exec::compile(p, o);
  EXPECT_EQ(kernels(ex->plan(), "gemm"), 0) << ex->plan();
  EXPECT_EQ(kernels(ex->plan(), "reduce"), 1) << ex->plan();
  std::vector<Tensor> args{ramp({m, k}), ramp({k, n}, 1, 1)};
  EXPECT_EQ(ex->run(args)[0], evaluate(p, args)[0]);
  Program tiny = program({{"a", rt({2, 3})}, {"b", rt({3, 2})}},
                         {sum_outer(mul(transpose({2, 1, 0}, replicate(2, rvar("a", {2, 3}))), tr(replicate(2, rvar("b", {3, 2})))))});
  auto ex2 = rml::exec::compile(tiny);
  EXPECT_EQ(kernels(ex2->plan(), "gemm"), 0) << ex2->plan();
  EXPECT_TRUE(same_as_reference(tiny, {ramp({2, 3}), ramp({3, 2})}, {}, 0));
}

// ---- buffers ----

TEST(ExecBuffers, AChainReusesFreedBuffers) {
  // Four dynamic gathers in a chain, each of the same size: the second buffer is free
  // once the third is computed, so the fourth takes its slot.
  Term x = rvar("x", {64});
  Term i = ivar("i");
  Term t = x;
  for (int s = 0; s < 4; ++s) t = gather({64}, t, {"i"}, {binary(BinOp::Mod, add(i, ic(s + 1)), ic(64))});
  Program p = program({{"x", rt({64})}}, {t});
  auto ex = rml::exec::compile(p);
  std::string plan = ex->plan();
  EXPECT_EQ(kernels(plan, "gather"), 4) << plan;
  EXPECT_NE(plan.find("4 temporaries in 2 slots (2 reused)"), std::string::npos) << plan;
  EXPECT_TRUE(same_as_reference(p, {ramp({64})}, {}, 0));
  EXPECT_TRUE(same_as_reference(p, {ramp({64}, 3)}, {}, 0));  // slots are reused across runs too
}

TEST(ExecBuffers, SharedValuesAreComputedOnceAndBindsWork) {
  Program p;
  p.inputs = {{"a", rt({3, 4})}};
  Term a = rvar("a", {3, 4});
  p.binds = {{"e", unary(UnOp::Exp, a)}, {"f", add(rvar("e", {3, 4}), rvar("e", {3, 4}))}};
  p.outputs = {sum_outer(rvar("f", {3, 4})), mul(rvar("e", {3, 4}), a)};
  p.output_names = {"sum", "prod"};
  auto ex = rml::exec::compile(p);
  std::string plan = ex->plan();
  EXPECT_EQ(kernels(plan, "map"), 2) << plan;  // exp once (shared), e*a; e+e fused into the sum
  EXPECT_NE(plan.find("'prod'"), std::string::npos) << plan;
  EXPECT_TRUE(same_as_reference(p, {ramp({3, 4})}, {}, 0));
}

// ---- float32 ----

TEST(ExecF32, MatchesFloat64WithinSinglePrecision) {
  const int64_t m = 16, k = 40, n = 12;
  Term a = rvar("a", {m, k}), b = rvar("b", {k, n});
  Term mm = sum_outer(mul(transpose({2, 1, 0}, replicate(n, a)), tr(replicate(m, b))));
  Term mp = sum_outer(add(unary(UnOp::Tanh, a), mul(a, a)));
  Term ix = add(unary(UnOp::ToReal, unary(UnOp::Floor, mul(a, replicate(m, replicate(k, real_scalar(0.0)))))), a);
  Program p = program({{"a", rt({m, k})}, {"b", rt({k, n})}}, {mm, mp, ix, iota(3)});
  Options f32;
  f32.precision = Precision::F32;
  std::vector<Tensor> args{ramp({m, k}), ramp({k, n}, 1, 1)};
  auto e32 = rml::exec::compile(p, f32), e64 = rml::exec::compile(p);
  auto r32 = e32->run(args), r64 = e64->run(args);
  ASSERT_EQ(r32.size(), r64.size());
  for (size_t q = 0; q < r32.size(); ++q) {
    EXPECT_TRUE(close(r32[q], r64[q], 1e-5)) << q;
    if (r32[q].elem == Elem::Real) {
      EXPECT_FALSE(r32[q] == r64[q]) << q << ": float32 was not computed in float";
    }
  }
  EXPECT_EQ(r32[3], r64[3]);
  EXPECT_EQ(kernels(e32->plan(), "gemm"), 1) << e32->plan();
}

TEST(ExecF32, RunRawTakesDataInTheExecutablesPrecision) {
  const int64_t m = 4, n = 3;
  Term a = rvar("a", {m, n});
  Program p = program({{"a", rt({m, n})}, {"k", it({})}}, {sum_outer(tr(mul(a, a))), add(ivar("k"), ic(1))});
  std::vector<float> af(m * n);
  for (size_t q = 0; q < af.size(); ++q) af[q] = 0.5f * static_cast<float>(q);
  int64_t kv = 41;
  std::vector<float> out0(m);
  int64_t out1 = 0;
  Options f32;
  f32.precision = Precision::F32;
  auto ex = rml::exec::compile(p, f32);
  ex->run_raw({af.data(), &kv}, {out0.data(), &out1});
  EXPECT_EQ(out1, 42);
  for (int64_t i = 0; i < m; ++i) {
    float s = 0;
    for (int64_t j = 0; j < n; ++j) s += af[static_cast<size_t>(i * n + j)] * af[static_cast<size_t>(i * n + j)];
    EXPECT_FLOAT_EQ(out0[static_cast<size_t>(i)], s);
  }
}

// ---- errors ----

TEST(ExecErrors, Build1ShareAndBadArgumentsAreRejected) {
  Term a = rvar("a", {3});
  Program b1 = program({{"a", rt({3})}}, {build1(3, "i", index(a, {ivar("i")}))});
  EXPECT_THROW(rml::exec::compile(b1), ExecError);
  Program sh = program({{"a", rt({3})}}, {share(1, a)});
  EXPECT_THROW(rml::exec::compile(sh), ExecError);
  Program hidden = program({{"a", rt({3})}}, {gather({3}, a, {"i"}, {index(build1(2, "j", ivar("j")), {ivar("i")})})});
  EXPECT_THROW(rml::exec::compile(hidden), ExecError);
  Program ok = program({{"a", rt({3})}}, {a});
  auto ex = rml::exec::compile(ok);
  EXPECT_THROW(ex->run({}), ExecError);
  EXPECT_THROW(ex->run({ramp({4})}), ExecError);
  EXPECT_THROW(ex->run({ints({3}, {1, 2, 3})}), ExecError);
  EXPECT_EQ(ex->run({ramp({3})})[0], ramp({3}));
  Program unbound = program({{"a", rt({3})}}, {rvar("b", {3})});
  EXPECT_THROW(rml::exec::compile(unbound), ExecError);
}

TEST(ExecScatter, PermutationScattersAreTransposedViews) {
  Term s = rvar("s", {3, 4, 2});
  Term i = ivar("i"), j = ivar("j"), k = ivar("k");
  std::vector<Term> outs{scatter({4, 3, 2}, s, {"i", "j"}, {j, i}), scatter({3, 4, 2}, s, {"i", "j"}, {i, j}),
                         scatter({2, 3, 4}, s, {"i", "j", "k"}, {k, i, j}),
                         scatter({4, 4, 2}, s, {"i", "j"}, {j, i}),  // larger target: not a permutation
                         scatter({3, 3, 2}, s, {"i", "j"}, {i, i})};
  Program p = program({{"s", rt({3, 4, 2})}}, outs);
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "scatter"), 2) << ex->plan();
  EXPECT_TRUE(same_as_reference(p, {ramp({3, 4, 2})}, {}, 0));
}

// ---- index tables: data-independent index functions evaluated at compile time ----

namespace {
int table_kernels(const std::string &plan) {
  int n = 0;
  for (size_t at = plan.find("table of"); at != std::string::npos; at = plan.find("table of", at + 1)) ++n;
  return n;
}
}  // namespace

TEST(ExecTable, DataIndependentGathersUseOffsetTables) {
  Term a = rvar("a", {4, 2}), b = rvar("b", {5});
  Term i = ivar("i"), j = ivar("j");
  // Rows cond (i < 3) (2 i - 1) (5 - i) for i < 6: -1 (out of bounds), 1, 3, 2, 1, 0 (row 1
  // twice); elements of b through a constant int array (with out-of-bounds entries) and
  // a loop; a two-binder gather of single elements with i + j - 1 out of bounds at the ends.
  Term rows = cond(binary(BinOp::Lt, i, ic(3)), sub(mul(ic(2), i), ic(1)), sub(ic(5), i));
  Term tab = constant(ints({6}, {4, -2, 0, 5, 0, 3}));
  Term via_const = add(index(tab, {i}), sum_outer(gather({2}, iota(3), {"j"}, {j})));
  std::vector<Term> outs{gather({6, 2}, a, {"i"}, {rows}), gather({6}, b, {"i"}, {via_const}),
                         gather({3, 4}, b, {"i", "j"}, {sub(add(i, j), ic(1))}),
                         gather({6, 2}, unary(UnOp::Exp, a), {"i"}, {rows})};
  Program p = program({{"a", rt({4, 2})}, {"b", rt({5})}}, outs);
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "gather"), 4) << ex->plan();
  EXPECT_EQ(table_kernels(ex->plan()), 4) << ex->plan();
  EXPECT_EQ(ex->plan().find("interpreted"), std::string::npos) << ex->plan();
  std::vector<Tensor> args{ramp({4, 2}), ramp({5}, 2, 1)};
  auto out = ex->run(args);
  EXPECT_EQ(out[0].r[0], 0.0);
  EXPECT_EQ(out[0].r[1], 0.0);
  EXPECT_EQ(out[0].r[2], args[0].r[2]);
  EXPECT_TRUE(same_as_reference(p, args, {}, 0));
  ex->run({ramp({4, 2}, 3, 2), ramp({5})});  // the tables hold across runs
  EXPECT_TRUE(same_as_reference(p, {ramp({4, 2}, 3, 2), ramp({5})}, {}, 0));
  Options f32;
  f32.precision = Precision::F32;
  EXPECT_EQ(table_kernels(rml::exec::compile(p, f32)->plan()), 4);
  EXPECT_TRUE(same_as_reference(p, args, f32, 1e-6));
}

TEST(ExecTable, DataIndependentScattersAddCollisionsInTheReferenceOrder) {
  Term s = rvar("s", {3, 5, 2}), m = ivar("m", {3, 4});
  Term i = ivar("i"), j = ivar("j");
  // i + j - 2 over 3 x 5: -2, -1 and 4.. dropped, every in-bounds target hit several times;
  // a transposed (strided) source; single elements; ints; a scatter by a constant array.
  Term ij = sub(add(i, j), ic(2));
  Term tab = constant(ints({4}, {1, 7, 1, -1}));
  std::vector<Term> outs{scatter({4, 2}, s, {"i", "j"}, {ij}),
                         scatter({4, 5, 3}, transpose({2, 1, 0}, s), {"i", "j"}, {binary(BinOp::Mod, add(i, j), ic(4)), j}),
                         scatter({4}, unary(UnOp::Exp, s), {"i", "j", "k"}, {sub(add(i, j), binary(BinOp::Mul, ic(2), ivar("k")))}),
                         scatter({2, 3}, tr(m), {"i"}, {index(tab, {i})}),
                         scatter({2, 1, 2}, s, {"i", "j", "k"}, {ic(1), ic(0), ic(1)})};
  Program p = program({{"s", rt({3, 5, 2})}, {"m", it({3, 4})}}, outs);
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "scatter"), 5) << ex->plan();
  EXPECT_EQ(table_kernels(ex->plan()), 5) << ex->plan();
  std::vector<Tensor> args{ramp({3, 5, 2}, 1e3, 0.5), ints({3, 4}, {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12})};
  EXPECT_TRUE(same_as_reference(p, args, {}, 0));  // bitwise: the sequential order is kept
  auto out = ex->run(args);
  Tensor want = Tensor::zeros(Elem::Real, {4, 2});
  for (int64_t a = 0; a < 3; ++a)
    for (int64_t b = 0; b < 5; ++b)
      for (int64_t c = 0; c < 2; ++c)
        if (a + b - 2 >= 0 && a + b - 2 < 4) want.r[static_cast<size_t>((a + b - 2) * 2 + c)] += args[0].r[static_cast<size_t>((a * 5 + b) * 2 + c)];
  EXPECT_EQ(out[0], want);
  Options f32;
  f32.precision = Precision::F32;
  EXPECT_TRUE(same_as_reference(p, {ramp({3, 5, 2}, 2, 0.5), args[1]}, f32, 1e-5));
}

TEST(ExecTable, DataDependentIndexFunctionsAreInterpreted) {
  Term a = rvar("a", {4, 3}), idx = ivar("idx", {5}), w = rvar("w", {5});
  Term i = ivar("i");
  // Index functions reading an input (idx; a real input w through floor) stay on the
  // register machine; a constant one next to them gets its table.
  std::vector<Term> outs{gather({5, 3}, a, {"i"}, {index(idx, {i})}),
                         gather({5, 3}, a, {"i"}, {unary(UnOp::Floor, index(w, {i}))}),
                         scatter({4, 3}, gather({5, 3}, a, {"i"}, {index(idx, {i})}), {"i"}, {index(idx, {i})}),
                         gather({5, 3}, a, {"i"}, {binary(BinOp::Mod, mul(i, ic(3)), ic(5))})};
  Program p = program({{"a", rt({4, 3})}, {"idx", it({5})}, {"w", rt({5})}}, outs);
  auto ex = rml::exec::compile(p);
  const std::string plan = ex->plan();
  EXPECT_EQ(table_kernels(plan), 1) << plan;
  int interpreted = 0;
  for (size_t at = plan.find("interpreted"); at != std::string::npos; at = plan.find("interpreted", at + 1)) ++interpreted;
  EXPECT_EQ(interpreted, 4) << plan;
  EXPECT_TRUE(same_as_reference(p, {ramp({4, 3}), ints({5}, {2, -1, 0, 4, 2}), reals({5}, {0.5, 3.9, -0.5, 2.2, 7})}, {}, 0));
}

// An index far out of bounds (floor of 1e300 saturates to INT64_MAX) reads or writes
// nothing, as in the reference, and is never multiplied by a stride (UBSan caught the
// signed overflow in a random program: the gather, scatter and load paths are all here).
TEST(ExecTable, HugeIndicesAreOutOfBoundsWithoutOverflow) {
  Term a = rvar("a", {4, 3}), w = rvar("w", {5});
  Term i = ivar("i");
  Term huge = unary(UnOp::Floor, index(w, {i}));
  std::vector<Term> outs{gather({5, 3}, a, {"i"}, {huge}),
                         scatter({4, 3}, gather({5, 3}, a, {"i"}, {huge}), {"i"}, {huge}),
                         gather({5}, w, {"i"}, {unary(UnOp::Floor, index(w, {huge}))})};
  Program p = program({{"a", rt({4, 3})}, {"w", rt({5})}}, outs);
  EXPECT_TRUE(same_as_reference(p, {ramp({4, 3}), reals({5}, {1e300, 2.0, -1e300, 0.0, 3.5})}, {}, 0));
}
