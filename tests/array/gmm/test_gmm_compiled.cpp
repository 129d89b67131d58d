// gmm.rml through the compiled path's stages: lowering to the IR (value against ADBench),
// the AD stage's scalar dual-number oracle on the lowered term (gradient against
// ADBench), and, when bot and the executor are built, the compiled objective and
// gradient (lower → vectorise / gradient_program → exec::compile) against ADBench's
// golden values and central differences.
#include "array/ad/ad.hpp"
#include "array/ir/program.hpp"
#include "array/lower/lower.hpp"
#include "gmm_eigen.hpp"
#include "gmm_util.hpp"
#include "gmm_compiled.hpp"

using namespace rml;
using gmmtest::expect_close;

namespace {
std::vector<ir::Type> arg_types(const adbench::GmmInput &in) {
  const int64_t k = in.k, d = in.d, n = in.n, t = in.icf_size();
  return {{ir::Elem::Real, {k}},    {ir::Elem::Real, {k, d}}, {ir::Elem::Real, {k, t}},
          {ir::Elem::Real, {n, d}}, {ir::Elem::Real, {}},     {ir::Elem::Int, {}}};
}

// The gradient entries for alphas, means, icf (the first three real inputs).
std::vector<double> params_gradient(const std::vector<ir::Tensor> &grads) {
  std::vector<double> g;
  for (size_t a = 0; a < 3; ++a) g.insert(g.end(), grads.at(a).r.begin(), grads.at(a).r.end());
  return g;
}
}  // namespace

TEST(GmmLowered, ValueMatchesAdbenchOnTestTxt) {
  RML_LOAD_GMM(in, "test.txt");
  for (const char *fun : {"gmm_objective", "gmm_objective_pointwise"}) {
    lower::Lowered low = lower::lower_fun(gmmtest::gmm_program().checked, fun, {}, arg_types(in));
    const double v = ir::evaluate(low.program(), gmmtest::fun_args(in, in.params())).at(0).r.at(0);
    EXPECT_LE(adbench::rho(v, gmmtest::kTestObjective), 1e-8) << fun << ": " << v;
  }
}

// Scalar dual numbers on the lowered term, build1 and all (ad::scalar_gradient): the AD
// stage's oracle, independent of bot, the Delta tape and the executor.
TEST(GmmLowered, ScalarDualNumbersMatchAdbenchGoldenGradient) {
  RML_LOAD_GMM(in, "test.txt");
  lower::Lowered low = lower::lower_fun(gmmtest::gmm_program().checked, "gmm_objective", {}, arg_types(in));
  ad::Gradient g = ad::scalar_gradient(low.body, low.inputs, gmmtest::fun_args(in, in.params()), ir::Tensor::real(1.0));
  EXPECT_LE(adbench::rho(g.value.r.at(0), gmmtest::kTestObjective), 1e-8);
  ASSERT_EQ(g.grads.size(), 5u);  // alphas, means, icf, x, wishart_gamma
  expect_close(params_gradient(g.grads), gmmtest::kTestGradient, 1e-8, "scalar dual numbers vs ADBench golden");
}


TEST(GmmCompiled, ObjectiveAndGradientMatchAdbenchGoldenOnTestTxt) {
  RML_LOAD_GMM(in, "test.txt");
  for (const char *fun : {"gmm_objective", "gmm_objective_pointwise"}) {
    adbench::GmmCompiled::Options opt;
    opt.fun = fun;
    adbench::GmmCompiled c(in, opt);
    const auto p = in.params();
    EXPECT_LE(adbench::rho(c.objective(p), gmmtest::kTestObjective), 1e-8) << fun;
    std::vector<double> g(p.size());
    EXPECT_LE(adbench::rho(c.gradient(p, g.data()), gmmtest::kTestObjective), 1e-8) << fun;
    expect_close(g, gmmtest::kTestGradient, 1e-8, std::string(fun) + ": compiled gradient vs ADBench golden");
  }
}

// Central differences (ADBench's step) of the hand-written Eigen objective, on all
// parameters, and of the rml fun through the reference evaluator, along three fixed
// directions: both are independent of our gradient path.
TEST(GmmCompiled, GradientMatchesFiniteDifferencesOn1kD2K5) {
  RML_LOAD_GMM(in, "1k/gmm_d2_K5.txt");
  const auto p = in.params();
  adbench::GmmCompiled c(in);
  std::vector<double> g(p.size());
  c.gradient(p, g.data());
  adbench::GmmEigen eig(in);
  expect_close(g, gmmtest::central_fd([&](const std::vector<double> &q) { return eig.objective(q); }, p), 1e-6,
               "compiled gradient vs FD of the Eigen objective");
  const double h = std::cbrt(std::numeric_limits<double>::epsilon());
  for (int dir = 0; dir < 3; ++dir) {
    std::vector<double> v(p.size()), plus(p), minus(p);
    double gv = 0;
    for (size_t j = 0; j < p.size(); ++j) {
      v[j] = std::sin(1.0 + 7.0 * static_cast<double>(j) + 3.0 * dir);  // fixed, varied, |v_j| <= 1
      plus[j] += h * v[j];
      minus[j] -= h * v[j];
      gv += g[j] * v[j];
    }
    const double fd = (gmmtest::eval_fun("gmm_objective", in, plus) - gmmtest::eval_fun("gmm_objective", in, minus)) / (2 * h);
    EXPECT_LE(adbench::rho(gv, fd), 1e-6) << "direction " << dir << ": <grad, v> = " << gv << ", FD of the fun " << fd;
  }
}

// The compiled objective equals the reference evaluator's on every benchmark size class.
TEST(GmmCompiled, ObjectiveMatchesTheReferenceEvaluatorOn1kD10K5) {
  RML_LOAD_GMM(in, "1k/gmm_d10_K5.txt");
  adbench::GmmCompiled::Options opt;
  opt.gradient = false;
  adbench::GmmCompiled c(in, opt);
  EXPECT_LE(adbench::rho(c.objective(in.params()), gmmtest::eval_fun("gmm_objective", in, in.params())), 1e-12);
}

