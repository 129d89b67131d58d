// The IR's builders (typing rules of array-ad.md §1) and its reference evaluator on the
// paper's test vectors (§9 items 1–3) and hand-computed cases.
#include <gtest/gtest.h>

#include "array/common/tensor_lit.hpp"
#include "array/ir/eval.hpp"
#include "array/ir/ir.hpp"

using namespace rml::ir;

namespace {

using rml::ir_test::ints;
using rml::ir_test::reals;
Term ivar(const std::string &x) { return var(x, Type{Elem::Int, {}}); }

}  // namespace

// §9.1: scatter [6] [1..9] (\[i]. [i div 2]) = [3,7,11,15,9,0]
TEST(IrEval, ScatterExampleOfSection3_3) {
  Term src = constant(ints({9}, {1, 2, 3, 4, 5, 6, 7, 8, 9}));
  Term t = scatter({6}, src, {"i"}, {binary(BinOp::IDiv, ivar("i"), int_scalar(2))});
  EXPECT_EQ(evaluate(t, {}), ints({6}, {3, 7, 11, 15, 9, 0}));
}

// §9.2: a:[5,3,6,9] gives tr_{3,0,1,2} a : [9,5,3,6], out[o] = a[x] with x_{perm[p]} = o_p.
TEST(IrEval, GeneralisedTransposeConvention) {
  Tensor a = Tensor::zeros(Elem::Real, {5, 3, 6, 9});
  for (size_t k = 0; k < a.r.size(); ++k) a.r[k] = static_cast<double>(k);
  Term t = transpose({3, 0, 1, 2}, constant(a));
  EXPECT_EQ(t->type.shape, (Shape{9, 5, 3, 6}));
  Tensor out = evaluate(t, {});
  // out[o0,o1,o2,o3] = a[o1,o2,o3,o0]
  for (int64_t o0 = 0; o0 < 9; ++o0)
    for (int64_t o1 = 0; o1 < 5; ++o1)
      for (int64_t o2 = 0; o2 < 3; ++o2)
        for (int64_t o3 = 0; o3 < 6; ++o3) {
          size_t src = static_cast<size_t>(((o1 * 3 + o2) * 6 + o3) * 9 + o0);
          size_t dst = static_cast<size_t>(((o0 * 5 + o1) * 3 + o2) * 6 + o3);
          ASSERT_EQ(out.r[dst], a.r[src]);
        }
}

// §9.3: sumOuter [[1,2,3],[4,5,6],[7,8,9]] = [12,15,18]
TEST(IrEval, SumOuter) {
  Term t = sum_outer(constant(reals({3, 3}, {1, 2, 3, 4, 5, 6, 7, 8, 9})));
  EXPECT_EQ(evaluate(t, {}), reals({3}, {12, 15, 18}));
}

// §9.11: build1 20 (\i. cond (i<10) (index a [i]) (index a [i-10])) = a ++ a; relies on
// out-of-bounds index reading 0 (strict cond evaluates both branches).
TEST(IrEval, ConcatThroughOutOfBoundsIndex) {
  Tensor av = Tensor::zeros(Elem::Real, {10});
  for (int k = 0; k < 10; ++k) av.r[static_cast<size_t>(k)] = k * 1.5 - 3;
  Term a = var("a", Type{Elem::Real, {10}});
  Term i = ivar("i");
  Term body = cond(binary(BinOp::Lt, i, int_scalar(10)), index(a, {i}),
                   index(a, {binary(BinOp::Sub, i, int_scalar(10))}));
  Tensor out = evaluate(build1(20, "i", body), {{"a", av}});
  for (int k = 0; k < 20; ++k) EXPECT_EQ(out.r[static_cast<size_t>(k)], av.r[static_cast<size_t>(k % 10)]);
}

TEST(IrEval, OutOfBoundsGatherReadsZeroAndScatterDrops) {
  Term a = constant(reals({3}, {1, 2, 3}));
  Term g = gather({5}, a, {"i"}, {binary(BinOp::Sub, ivar("i"), int_scalar(1))});
  EXPECT_EQ(evaluate(g, {}), reals({5}, {0, 1, 2, 3, 0}));
  Term s = scatter({2}, a, {"i"}, {binary(BinOp::Sub, ivar("i"), int_scalar(1))});
  EXPECT_EQ(evaluate(s, {}), reals({2}, {2, 3}));
  // index with a negative component: zeros of the sub-array's shape
  Term m = constant(reals({2, 2}, {1, 2, 3, 4}));
  EXPECT_EQ(evaluate(index(m, {int_scalar(-1)}), {}), reals({2}, {0, 0}));
  EXPECT_EQ(evaluate(index(m, {int_scalar(1)}), {}), reals({2}, {3, 4}));
}

TEST(IrEval, ReplicateReshapeIotaLetShare) {
  Term t = reshape({3, 2}, replicate(2, iota(3)));
  EXPECT_EQ(evaluate(t, {}), ints({3, 2}, {0, 1, 2, 0, 1, 2}));
  Term x = var("x", Type{Elem::Real, {}});
  Term l = let("x", real_scalar(2), binary(BinOp::Mul, x, x));
  EXPECT_EQ(evaluate(l, {}), Tensor::real(4));
  Term s = share(7, real_scalar(3));
  EXPECT_EQ(evaluate(binary(BinOp::Add, s, s), {}), Tensor::real(6));
}

TEST(IrBuild, ShapeRulesAreChecked) {
  Term a = var("a", Type{Elem::Real, {3}});
  Term b = var("b", Type{Elem::Real, {4}});
  EXPECT_THROW(binary(BinOp::Add, a, b), IrError);
  EXPECT_THROW(index(a, {real_scalar(0)}), IrError);
  EXPECT_THROW(index(a, {int_scalar(0), int_scalar(0)}), IrError);
  EXPECT_THROW(sum_outer(real_scalar(1)), IrError);
  EXPECT_THROW(transpose({0, 0}, var("m", Type{Elem::Real, {2, 2}})), IrError);
  EXPECT_THROW(reshape({2, 2}, a), IrError);
  EXPECT_THROW(gather({5, 4}, a, {"i"}, {ivar("i")}), IrError);  // trailing dims must match
  EXPECT_THROW(replicate(int64_t{1} << 20, replicate(int64_t{1} << 20, a)), IrError);  // > 2^31 elements
  EXPECT_THROW(cond(real_scalar(1), a, a), IrError);
  EXPECT_THROW(unary(UnOp::Exp, int_scalar(1)), IrError);
  EXPECT_EQ(gather({5, 2}, var("m", Type{Elem::Real, {3, 2}}), {"i"}, {ivar("i")})->type.shape, (Shape{5, 2}));
  EXPECT_EQ(scatter({7, 2}, var("m", Type{Elem::Real, {3, 2}}), {"i"}, {ivar("i")})->type.shape, (Shape{7, 2}));
}

TEST(IrStructure, SubstitutionAvoidsCapture) {
  // (let y = 1 in x + y)[x := y] must not capture the free y.
  Type r{Elem::Real, {}};
  Term t = let("y", real_scalar(1), binary(BinOp::Add, var("x", r), var("y", r)));
  Term s = substitute(t, "x", var("y", r));
  EXPECT_EQ(evaluate(s, {{"y", Tensor::real(10)}}), Tensor::real(11));
  EXPECT_EQ(free_vars(s), std::vector<std::string>{"y"});
  // shadowing: (build1 3 (\i. i))[i := 5] is unchanged
  Term b = build1(3, "i", ivar("i"));
  EXPECT_EQ(substitute(b, "i", int_scalar(5)), b);
  // gather binders are renamed too
  Term g = gather({2}, var("a", Type{Elem::Real, {4}}), {"i"}, {binary(BinOp::Add, ivar("i"), ivar("j"))});
  Term gs = substitute(g, "j", ivar("i"));
  EXPECT_EQ(evaluate(gs, {{"a", reals({4}, {1, 2, 3, 4})}, {"i", Tensor::integer(2)}}), reals({2}, {3, 4}));
}

TEST(IrStructure, AlphaEquality) {
  Term a = var("a", Type{Elem::Real, {4}});
  Term g1 = gather({4}, a, {"i"}, {ivar("i")});
  Term g2 = gather({4}, a, {"k"}, {ivar("k")});
  Term g3 = gather({4}, a, {"k"}, {ivar("i")});
  EXPECT_TRUE(alpha_equal(g1, g2));
  EXPECT_FALSE(alpha_equal(g1, g3));
  Term l1 = let("x", a, var("x", a->type));
  Term l2 = let("y", a, var("y", a->type));
  Term l3 = let("y", a, a);
  EXPECT_TRUE(alpha_equal(l1, l2));
  EXPECT_FALSE(alpha_equal(l1, l3));
  EXPECT_THROW(typecheck(var("z", a->type), {}), IrError);
  EXPECT_NO_THROW(typecheck(l1, {{"a", a->type}}));
}

TEST(IrPrint, PaperNotation) {
  Term a = var("a", Type{Elem::Real, {5}});
  Term n1i = binary(BinOp::Sub, int_scalar(4), ivar("i"));
  Term t = sum_outer(binary(BinOp::Mul, gather({5}, a, {"i"}, {ivar("i")}), gather({5}, a, {"i"}, {n1i})));
  EXPECT_EQ(print(t), "sumOuter ((gather [5] a (\\[i]. [i])) * (gather [5] a (\\[i]. [4 - i])))");
}
