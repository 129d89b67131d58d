// The simplifier: one instance per rule (it fires, keeps the type and the value, out of
// bounds included), the guards of the fusions, constant folding with the evaluator's int
// semantics, and the interval analysis that proves bounds.
#include <gtest/gtest.h>

#include <climits>

#include "bot_util.hpp"

using namespace rml;
using namespace rml::bot_test;
using bot::SimpRule;

namespace {

Term nv() { return ivar("n"); }

// n over -2..5 (in and out of bounds for dims up to 4).
std::vector<Bindings> envs() {
  std::vector<Bindings> out;
  for (int64_t n = -2; n <= 5; ++n)
    out.push_back({{"a", iota_reals({3}, 1)}, {"m", iota_reals({3, 4}, 6)}, {"n", Tensor::integer(n)}});
  return out;
}

void expect_same_value(const Term &before, const Term &after) {
  EXPECT_EQ(after->type, before->type);
  for (auto &env : envs()) ASSERT_EQ(evaluate(after, env), evaluate(before, env)) << print(before) << "\n~> " << print(after);
}

struct SimpInstance {
  SimpRule rule;
  Term term;
  Term expected;  // the reduct, up to renaming
};

std::vector<SimpInstance> simp_instances() {
  Term a = rvar("a", {3}), m = rvar("m", {3, 4});
  Term i = ivar("i"), j = ivar("j");
  Term rev = sub(ic(2), i);  // 2 - i: in bounds for i in [0,3)
  return {
      {SimpRule::IdentityGather, gather({3, 4}, m, {"i"}, {i}), m},
      // 2 - (2 - i) stays unevaluated: the fusion substitutes, ConstantFold does not reassociate
      {SimpRule::GatherOfGather, gather({3}, gather({3}, a, {"i"}, {rev}), {"i"}, {rev}),
       gather({3}, a, {"i"}, {sub(ic(2), sub(ic(2), i))})},
      {SimpRule::GatherOfReplicate, gather({3, 4}, replicate(2, m), {"i"}, {binary(BinOp::Mod, i, ic(2)), i}),
       gather({3, 4}, m, {"i"}, {i})},
      {SimpRule::GatherOfIota, gather({2, 3}, iota(3), {"i", "j"}, {j}), replicate(2, iota(3))},
      {SimpRule::GatherOfConstant, gather({4, 2}, replicate(3, real_scalar(1.5)), {"i", "j"}, {binary(BinOp::IDiv, i, ic(2))}),
       replicate(4, replicate(2, real_scalar(1.5)))},
      {SimpRule::DeadLet, let("x", m, a), a},
      {SimpRule::TrivialLet, let("x", a, mul(var("x", a->type), var("x", a->type))), mul(a, a)},
      {SimpRule::ConstantFold, add(ic(2), ic(3)), ic(5)},
  };
}

TEST(SimplifyRules, EachRuleFiresAndKeepsTypeAndValue) {
  auto all = simp_instances();
  ASSERT_EQ(all.size(), static_cast<size_t>(bot::kSimpRuleCount));
  for (size_t q = 0; q < all.size(); ++q) {
    SCOPED_TRACE(bot::simp_rule_name(all[q].rule));
    ASSERT_EQ(static_cast<size_t>(all[q].rule), q);
    auto r = bot::apply_simp_rule(all[q].rule, all[q].term);
    ASSERT_TRUE(r.has_value());
    EXPECT_TRUE(alpha_equal(*r, all[q].expected)) << print(*r);
    expect_same_value(all[q].term, *r);
  }
}

// gather of gather keeps the inner gather's out-of-bounds zero: with j-1 in [-1, 3] not
// provably inside [0,3), the fused index function reads out of bounds where the inner
// gather would have given 0 (here a[0 .. 2] are non-zero, so dropping the guard would show).
TEST(SimplifyRules, GatherOfGatherGuardsTheInnerBounds) {
  Term a = rvar("a", {3});
  Term j = ivar("j");
  // inner: b[i] = a[2 - i]  (i in [0,3));  outer: out[j] = b[j - 1] for j in [0,5)
  Term t = gather({5}, gather({3}, a, {"i"}, {sub(ic(2), ivar("i"))}), {"j"}, {sub(j, ic(1))});
  auto r = bot::apply_simp_rule(SimpRule::GatherOfGather, t);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)->kids[0], a);
  Bindings env{{"a", reals({3}, {1, 2, 3})}};
  EXPECT_EQ(evaluate(t, env), reals({5}, {0, 3, 2, 1, 0}));
  EXPECT_EQ(evaluate(*r, env), reals({5}, {0, 3, 2, 1, 0}));
  // the guard is an index component, and simplify keeps it
  EXPECT_EQ((*r)->ix[0]->kind, Kind::Cond);
  EXPECT_EQ(evaluate(bot::simplify(t), env), reals({5}, {0, 3, 2, 1, 0}));
}

// ... and when the inner gather has no index component to guard, gathers are not fused
// unless the bounds are proved.
TEST(SimplifyRules, GatherOfGatherWithoutComponentNeedsAProof) {
  Term a = rvar("a", {2});
  Term inner = gather({3, 2}, a, {"i"}, {});  // three copies of a
  Term oob = gather({4, 2}, inner, {"j"}, {ivar("j")});
  EXPECT_FALSE(bot::apply_simp_rule(SimpRule::GatherOfGather, oob).has_value());
  Term inb = gather({3, 2}, inner, {"j"}, {sub(ic(2), ivar("j"))});
  auto r = bot::apply_simp_rule(SimpRule::GatherOfGather, inb);
  ASSERT_TRUE(r.has_value());
  Bindings env{{"a", reals({2}, {1, 2})}};
  EXPECT_EQ(evaluate(*r, env), evaluate(inb, env));
}

// gather of replicate and of iota out of bounds: guarded or not fused.
TEST(SimplifyRules, ReplicateAndIotaFusionsKeepOutOfBounds) {
  Term m = rvar("m", {3, 4});
  Term i = ivar("i");
  Term t = gather({5, 4}, replicate(2, m), {"i"}, {i, i});  // i >= 2 reads 0
  auto r = bot::apply_simp_rule(SimpRule::GatherOfReplicate, t);
  ASSERT_TRUE(r.has_value());
  expect_same_value(t, *r);
  Term last = gather({5}, replicate(2, real_scalar(4)), {"i"}, {i});  // no component left to guard
  EXPECT_FALSE(bot::apply_simp_rule(SimpRule::GatherOfReplicate, last).has_value());
  Term io = gather({5}, iota(3), {"i"}, {i});  // the last 2 read 0: not the iota of 5
  EXPECT_FALSE(bot::apply_simp_rule(SimpRule::GatherOfIota, io).has_value());
  Term ix = index(iota(3), {nv()});
  EXPECT_FALSE(bot::apply_simp_rule(SimpRule::GatherOfIota, ix).has_value());
  EXPECT_TRUE(alpha_equal(*bot::apply_simp_rule(SimpRule::GatherOfIota, ix, {{"n", bot::Interval{0, 2}}}), nv()));
  // a constant-filled array read out of bounds gives 0, so only zeros fold without a proof
  Term c = gather({4}, replicate(3, real_scalar(2)), {"i"}, {i});
  EXPECT_FALSE(bot::apply_simp_rule(SimpRule::GatherOfConstant, c).has_value());
  Term z = gather({4}, replicate(3, real_scalar(0)), {"i"}, {add(i, nv())});
  auto rz = bot::apply_simp_rule(SimpRule::GatherOfConstant, z);
  ASSERT_TRUE(rz.has_value());
  expect_same_value(z, *rz);
}

// Constant folding is the evaluator's arithmetic: ints wrap, x div 0 = x mod 0 = 0, and
// reals are left alone where an identity would change bits (-0 + 0 = +0).
TEST(SimplifyRules, ConstantFoldingFollowsTheEvaluator) {
  auto fold = [](const Term &t) { return bot::simplify(t); };
  Term big = add(ic(INT64_MAX), ic(1));
  EXPECT_TRUE(alpha_equal(fold(big), ic(INT64_MIN)));
  EXPECT_EQ(evaluate(big, {}), Tensor::integer(INT64_MIN));
  EXPECT_TRUE(alpha_equal(fold(binary(BinOp::IDiv, ic(7), ic(0))), ic(0)));
  EXPECT_TRUE(alpha_equal(fold(binary(BinOp::Mod, ic(7), ic(0))), ic(0)));
  EXPECT_TRUE(alpha_equal(fold(binary(BinOp::Mod, ic(-7), ic(3))), ic(-1)));  // C remainder
  EXPECT_TRUE(alpha_equal(fold(unary(UnOp::Neg, ic(INT64_MIN))), ic(INT64_MIN)));
  EXPECT_TRUE(alpha_equal(fold(unary(UnOp::Floor, real_scalar(1e300))), ic(INT64_MAX)));  // saturates
  Term x = rvar("x", {});
  Term xp0 = add(x, real_scalar(0));
  EXPECT_EQ(fold(xp0), xp0);
  EXPECT_EQ(evaluate(xp0, {{"x", Tensor::real(-0.0)}}), Tensor::real(0.0));
  EXPECT_TRUE(alpha_equal(fold(add(nv(), ic(0))), nv()));  // ints have no -0
  // a condition the ranges decide
  Term in_range = gather({3}, rvar("a", {3}), {"i"},
                         {cond(binary(BinOp::And, binary(BinOp::Le, ic(0), ivar("i")), binary(BinOp::Lt, ivar("i"), ic(3))),
                               ivar("i"), ic(-1))});
  EXPECT_TRUE(alpha_equal(fold(in_range), rvar("a", {3}))) << print(fold(in_range));
  // index of a literal array at a constant; out of range is zeros
  Term lit = from_list({rvar("a", {3}), unary(UnOp::Neg, rvar("a", {3}))});
  EXPECT_TRUE(alpha_equal(fold(index(lit, {ic(1)})), unary(UnOp::Neg, rvar("a", {3}))));
  EXPECT_EQ(evaluate(fold(index(lit, {ic(2)})), {}), Tensor::zeros(Elem::Real, {3}));
}

// The interval analysis: each case's interval contains every value the evaluator gives
// (checked by enumeration), and is the stated one.
TEST(SimplifyRanges, IntervalsContainTheValues) {
  bot::RangeEnv env{{"n", bot::Interval{-5, 5}}, {"i", bot::Interval{0, 3}}};
  struct Case {
    Term t;
    int64_t lo, hi;
  };
  Term n = nv(), i = ivar("i");
  std::vector<Case> cases{
      {binary(BinOp::Mod, n, ic(3)), -2, 2},  // sign of the dividend
      {binary(BinOp::Mod, i, ic(3)), 0, 2},
      {binary(BinOp::IDiv, n, ic(2)), -2, 2},  // truncating
      {sub(ic(3), i), 0, 3},
      {mul(n, i), -15, 15},
      {unary(UnOp::Abs, n), 0, 5},
      {binary(BinOp::Max, n, i), 0, 5},
      {index(iota(4), {n}), 0, 3},
      {sum_outer(replicate(3, i)), 0, 9},
      {cond(binary(BinOp::Lt, i, ic(7)), ic(1), n), 1, 1},
      {let("i", n, add(i, ic(1))), -4, 6},  // the let shadows the outer i
  };
  for (auto &c : cases) {
    auto r = bot::int_range(c.t, env);
    ASSERT_TRUE(r.has_value()) << print(c.t);
    EXPECT_EQ(r->lo, c.lo) << print(c.t);
    EXPECT_EQ(r->hi, c.hi) << print(c.t);
    for (int64_t nv_ = -5; nv_ <= 5; ++nv_)
      for (int64_t iv = 0; iv <= 3; ++iv) {
        int64_t v = evaluate(c.t, {{"n", Tensor::integer(nv_)}, {"i", Tensor::integer(iv)}}).i[0];
        EXPECT_TRUE(v >= r->lo && v <= r->hi) << print(c.t) << " = " << v;
      }
  }
  // unknown: a free variable, overflow, division by a range containing 0
  EXPECT_FALSE(bot::int_range(ivar("z"), env).has_value());
  EXPECT_FALSE(bot::int_range(mul(ic(INT64_MAX), i), env).has_value());
  EXPECT_FALSE(bot::int_range(binary(BinOp::IDiv, i, n), env).has_value());
  EXPECT_EQ(bot::truth(binary(BinOp::Lt, i, ic(4)), env), std::optional<bool>(true));
  EXPECT_EQ(bot::truth(binary(BinOp::Lt, n, ic(4)), env), std::nullopt);
}

}  // namespace

namespace {

// bot's guards and copies disappear where the binders' ranges prove the bounds: the
// vectorised forms of row-wise code come out as the bulk operation one would write.
TEST(SimplifyGolden, VectorisedFormsBecomeBulk) {
  Term x = rvar("x", {4, 5});
  Term i = ivar("i");
  auto vec = [](const Term &t) { return bot::simplify(bot::bot(t)); };
  // I6 guards index (exp x) [i]; i < 4 proves it, and tr [exp x] read at [i, 0] is exp x
  EXPECT_TRUE(alpha_equal(vec(build1(4, "i", index(unary(UnOp::Exp, x), {i}))), unary(UnOp::Exp, x)));
  // I10 + I12 + G1: the transpose of x read at [j, i] is a gather with swapped indices
  Term tj = build1(5, "j", build1(4, "i", index(tr(x), {ivar("j"), i})));
  EXPECT_TRUE(alpha_equal(vec(tj), gather({5, 4}, x, {"j", "i"}, {i, ivar("j")}))) << print(vec(tj));
  // I11: reshape read row-major
  Term rs = build1(20, "i", index(reshape({20}, x), {i}));
  EXPECT_TRUE(alpha_equal(vec(rs), gather({20}, x, {"i"}, {binary(BinOp::IDiv, i, ic(5)), binary(BinOp::Mod, i, ic(5))})))
      << print(vec(rs));
  for (const Term &t : {tj, rs}) {
    Bindings env{{"x", iota_reals({4, 5}, 7)}};
    EXPECT_EQ(evaluate(vec(t), env), evaluate(t, env));
  }
}

// A transpose inside a gather fuses like the gather it is; a literal array read at a
// constant is that element.
TEST(SimplifyRules, TransposeAndLiteralFusions) {
  Term m = rvar("m", {3, 4});
  Term t = gather({2, 3}, tr(m), {"i"}, {add(ivar("i"), ic(1))});  // rows 1, 2 of mᵀ: cols 1, 2 of m
  auto r = bot::apply_simp_rule(SimpRule::GatherOfGather, t);
  ASSERT_TRUE(r.has_value());
  EXPECT_EQ((*r)->kids[0], m);
  Bindings env{{"m", iota_reals({3, 4})}};
  EXPECT_EQ(evaluate(*r, env), evaluate(t, env));
  Term lit = from_list({m, unary(UnOp::Neg, m)});
  Term g = gather({5, 4}, lit, {"i"}, {ic(1), sub(ivar("i"), ic(1))});
  auto rl = bot::apply_simp_rule(SimpRule::ConstantFold, g);
  ASSERT_TRUE(rl.has_value());
  EXPECT_TRUE(alpha_equal(*rl, gather({5, 4}, unary(UnOp::Neg, m), {"i"}, {sub(ivar("i"), ic(1))})));
  EXPECT_EQ(evaluate(*rl, env), evaluate(g, env));
  Term g_oob = gather({5, 4}, lit, {"i"}, {ic(2), ivar("i")});
  EXPECT_EQ(evaluate(*bot::apply_simp_rule(SimpRule::ConstantFold, g_oob), env), Tensor::zeros(Elem::Real, {5, 4}));
}

}  // namespace
