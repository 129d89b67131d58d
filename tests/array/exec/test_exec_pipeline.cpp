// The executor on what the other stages produce: bot's normal forms of build-based
// matrix products and the closed gradient programs of AD (array-ad.md §6.5), by hand
// and on random objectives. Each is compared with the reference evaluator on the same
// program, so a failure here is the executor's.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "array/ad/ad.hpp"
#include "array/common/ir_gen.hpp"
#include "array/exec/exec_util.hpp"

using namespace rml::exectest;
namespace irgen = rml::irgen;

namespace {


// build [m,n] (\[i,j]. sumOuter (build1 k (\p. a[i,p] * b[p,j])))
Term build_matmul(Term a, Term b) {
  int64_t m = a->type.shape[0], k = a->type.shape[1], n = b->type.shape[1];
  return build1(m, "i", build1(n, "j", sum_outer(build1(k, "p", mul(index(a, {ivar("i"), ivar("p")}), index(b, {ivar("p"), ivar("j")}))))));
}

}  // namespace

TEST(ExecPipeline, BotNormalFormsOfBuildMatmulAndMatvecUseGemm) {
  const int64_t m = 12, k = 10, n = 9;
  Term a = rvar("a", {m, k}), b = rvar("b", {k, n}), x = rvar("x", {k});
  Term mv = build1(m, "i", sum_outer(build1(k, "p", mul(index(a, {ivar("i"), ivar("p")}), index(x, {ivar("p")})))));
  Program p = program({{"a", rt({m, k})}, {"b", rt({k, n})}, {"x", rt({k})}},
                      {rml::ad::vectorise(build_matmul(a, b)), rml::ad::vectorise(mv)});
  auto ex = rml::exec::compile(p);
  EXPECT_EQ(kernels(ex->plan(), "gemm"), 2) << print(p) << ex->plan();
  EXPECT_EQ(all_kernels(ex->plan()), 2) << ex->plan();
  EXPECT_TRUE(same_as_reference(p, {ramp({m, k}), ramp({k, n}, 1, 1), ramp({k}, 1, 2)}));
}

// The gradient of <matmul(a, b), c>: value, C̄ Bᵀ and Aᵀ C̄ are three GEMMs, and AD's
// transposing scatter is a view.
TEST(ExecPipeline, GradientOfAMatmulObjectiveIsThreeGemms) {
  const int64_t m = 12, k = 10, n = 9;
  Term a = rvar("a", {m, k}), b = rvar("b", {k, n}), c = rvar("c", {m, n});
  Term obj = sum_outer(sum_outer(mul(build_matmul(a, b), c)));
  Program g = rml::ad::gradient_program(obj, {{"a", rt({m, k})}, {"b", rt({k, n})}, {"c", rt({m, n})}});
  auto ex = rml::exec::compile(g);
  EXPECT_EQ(kernels(ex->plan(), "gemm"), 3) << print(g) << ex->plan();
  EXPECT_EQ(kernels(ex->plan(), "scatter"), 0) << ex->plan();
  EXPECT_TRUE(same_as_reference(g, {ramp({m, k}), ramp({k, n}, 1, 1), ramp({m, n}, 1, 2), reals({}, {1.5})}));
}

RC_GTEST_PROP(ExecPipeline, VectorisedRandomTermsEqualTheReference, ()) {
  irgen::Case c = *irgen::gen_case();
  Term v = rml::ad::vectorise(c.term);
  Program p;
  p.inputs = c.inputs;
  p.outputs = {v};
  std::vector<Tensor> args;
  for (auto &[x, t] : c.env) args.push_back(t);
  auto ex = rml::exec::compile(p);
  auto r = close(ex->run(args)[0], evaluate(p, args)[0], 1e-12);
  if (!r) RC_FAIL(std::string(r.message()) + "\n" + print(p) + "plan:\n" + ex->plan());
}

RC_GTEST_PROP(ExecPipeline, GradientProgramsOfRandomObjectivesEqualTheReference, ()) {
  irgen::Case c = *irgen::gen_objective();
  Program g = rml::ad::gradient_program(c.term, c.inputs);
  std::vector<Tensor> args;
  for (auto &[x, t] : c.env) args.push_back(t);
  args.push_back(reals({}, {*rc::gen::inRange(-4, 5) / 2.0}));  // the cotangent
  auto ex = rml::exec::compile(g);
  auto got = ex->run(args);
  auto want = evaluate(g, args);
  RC_ASSERT(got.size() == want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    auto r = close(got[k], want[k], 1e-12);
    if (!r) RC_FAIL("output " + std::to_string(k) + ": " + r.message() + "\n" + print(g) + "plan:\n" + ex->plan());
  }
}
