// lgamma and digamma, the builtins added through the operator table: the
// evaluator and the executor agree on them bit for bit; the gradient of lgamma (symbolic
// AD, compiled) is digamma and matches float64 central differences of the evaluator, also
// inside a larger fun; the scalar duals agree; differentiating digamma is a clear error.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "array/ad/ad.hpp"
#include "array/exec/exec.hpp"
#include "array/lower/lower_util.hpp"
#include "ops/special.hpp"

using namespace rml;

namespace {

const char *kFuns = R"(
fun lg(x: real[n]) : real[n] = lgamma(x);
fun dg(x: real[n]) : real[n] = digamma(x);
fun lg1(x: real) : real = lgamma(x);
fun dg1(x: real) : real = digamma(x);
fun obj(x: real[n], w: real) : real = sum(lgamma(x * x + 0.5)) * w + lgamma(x[0] + 3.0) - lgamma(w);
)";

const CheckedProgram &program() {
  const FrontendResult *fe = test::checked("ops_funs.rml", kFuns);
  if (!fe) throw std::runtime_error("the test funs do not check");
  return fe->checked;
}

ir::Tensor vec(std::vector<double> v) {
  ir::Tensor t = ir::Tensor::zeros(Scalar::Real, {static_cast<int64_t>(v.size())});
  t.r = std::move(v);
  return t;
}

lower::Lowered lowered(const std::string &fun, const std::vector<ir::Tensor> &args) {
  std::vector<ir::Type> types;
  for (auto &a : args) types.push_back(ir::Type{a.elem, a.shape});
  return lower::lower_fun(program(), fun, {}, types);
}

// The fun's value through the compiled path: lowering, bot + simplifier, the executor.
ir::Tensor compiled(const std::string &fun, const std::vector<ir::Tensor> &args) {
  lower::Lowered l = lowered(fun, args);
  ir::Program p;
  p.inputs = l.inputs;
  p.outputs = {ad::vectorise(l.body)};
  return exec::compile(p)->run(args)[0];
}

// Value and gradients through the symbolic AD, compiled: outputs value, d/d(real inputs).
std::vector<ir::Tensor> compiled_gradient(const std::string &fun, std::vector<ir::Tensor> args) {
  lower::Lowered l = lowered(fun, args);
  ir::Program g = ad::gradient_program(l.body, l.inputs);
  args.push_back(ir::Tensor::real(1.0));  // the cotangent
  return exec::compile(g)->run(args);
}

double value(const std::string &fun, const std::vector<ir::Tensor> &args) {
  array::Evaluator ev(program());
  return ev.apply(fun, {}, args).r.at(0);
}

}  // namespace

TEST(Lgamma, EvaluatorAndExecutorAgreeBitwise) {
  std::vector<double> xs = {1e-300, 1e-8, 0.1, 0.5, 1.0, 1.4616321449683622, 2.0, 2.5, 7.9, 10.0, 123.456, 1e7,
                            1e300, -0.5, -2.25, -10.3, 0.0, -0.0, -1.0, -3.0, INFINITY, -INFINITY, NAN};
  array::Evaluator ev(program());
  for (const char *fun : {"lg", "dg"}) {
    ir::Tensor want = ev.apply(fun, {}, {vec(xs)}), got = compiled(fun, {vec(xs)});
    ASSERT_EQ(got.r.size(), xs.size());
    for (size_t k = 0; k < xs.size(); ++k) {
      if (std::isnan(want.r[k]) && std::isnan(got.r[k])) continue;
      EXPECT_EQ(std::memcmp(&want.r[k], &got.r[k], sizeof(double)), 0)
          << fun << "(" << xs[k] << "): evaluator " << want.r[k] << ", executor " << got.r[k];
    }
  }
  // The builtins are the C library's lgamma and our digamma, element by element.
  ir::Tensor l = ev.apply("lg", {}, {vec(xs)}), d = ev.apply("dg", {}, {vec(xs)});
  for (size_t k = 0; k < xs.size(); ++k) {
    if (!std::isnan(xs[k])) {
      EXPECT_EQ(l.r[k], std::lgamma(xs[k])) << xs[k];
    }
    if (!std::isnan(d.r[k])) {
      EXPECT_EQ(d.r[k], ops::digamma(xs[k])) << xs[k];
    }
  }
}

// d/dx lgamma(x) = digamma(x), from the symbolic AD, against float64 central differences
// of the evaluator's lgamma (h = 1e-6 x: truncation h² |ψ''| / 6, rounding 1e-16 |lgamma| / h).
TEST(Lgamma, GradientIsDigammaAndMatchesCentralDifferences) {
  for (double x : {0.05, 0.3, 1.0, 1.7, 3.14159, 8.5, 42.0, 1234.5, -0.5, -2.7}) {
    auto out = compiled_gradient("lg1", {ir::Tensor::real(x)});
    ASSERT_EQ(out.size(), 2u);
    EXPECT_EQ(out[0].r.at(0), std::lgamma(x));
    EXPECT_EQ(out[1].r.at(0), ops::digamma(x)) << x;
    double h = 1e-6 * std::max(1.0, std::fabs(x));
    double fd = (value("lg1", {ir::Tensor::real(x + h)}) - value("lg1", {ir::Tensor::real(x - h)})) / (2 * h);
    EXPECT_NEAR(out[1].r[0], fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "x = " << x;
  }
}

// A fun using lgamma in several places: every gradient component (symbolic AD, compiled)
// against central differences of the evaluator, and against the scalar duals.
TEST(Lgamma, GradientOfAFunUsingItMatchesCentralDifferences) {
  std::vector<double> x0 = {0.3, -1.2, 2.5, 0.9};
  double w0 = 1.7;
  auto out = compiled_gradient("obj", {vec(x0), ir::Tensor::real(w0)});
  ASSERT_EQ(out.size(), 3u);
  EXPECT_NEAR(out[0].r.at(0), value("obj", {vec(x0), ir::Tensor::real(w0)}), 1e-12 * std::fabs(out[0].r[0]));
  const double h = 1e-6;
  for (size_t k = 0; k < x0.size(); ++k) {
    std::vector<double> xp = x0, xm = x0;
    xp[k] += h;
    xm[k] -= h;
    double fd = (value("obj", {vec(xp), ir::Tensor::real(w0)}) - value("obj", {vec(xm), ir::Tensor::real(w0)})) / (2 * h);
    EXPECT_NEAR(out[1].r.at(k), fd, 1e-6 * std::max(1.0, std::fabs(fd))) << "d/dx[" << k << "]";
  }
  double fdw = (value("obj", {vec(x0), ir::Tensor::real(w0 + h)}) - value("obj", {vec(x0), ir::Tensor::real(w0 - h)})) / (2 * h);
  EXPECT_NEAR(out[2].r.at(0), fdw, 1e-6 * std::max(1.0, std::fabs(fdw))) << "d/dw";
  // The scalar duals read the same derivative rows: equal to rounding.
  lower::Lowered l = lowered("obj", {vec(x0), ir::Tensor::real(w0)});
  ad::Gradient s = ad::scalar_gradient(l.body, l.inputs, {vec(x0), ir::Tensor::real(w0)}, ir::Tensor::real(1.0));
  for (size_t k = 0; k < x0.size(); ++k) EXPECT_NEAR(s.grads.at(0).r.at(k), out[1].r[k], 1e-12 * std::max(1.0, std::fabs(out[1].r[k])));
  EXPECT_NEAR(s.grads.at(1).r.at(0), out[2].r[0], 1e-12 * std::max(1.0, std::fabs(out[2].r[0])));
}

// digamma has a value but no derivative (trigamma is not implemented): both
// differentiations refuse with an error naming it, rather than a wrong gradient.
TEST(Digamma, DifferentiatingItIsAClearError) {
  lower::Lowered l = lowered("dg1", {ir::Tensor::real(2.0)});
  auto message_of = [](auto &&f) -> std::string {
    try {
      f();
    } catch (const ir::IrError &e) {
      return e.what();
    }
    return "no error";
  };
  std::string sym = message_of([&] { ad::gradient_program(l.body, l.inputs); });
  EXPECT_NE(sym.find("no derivative for digamma"), std::string::npos) << sym;
  EXPECT_NE(sym.find("trigamma"), std::string::npos) << sym;
  std::string scal = message_of([&] { ad::scalar_gradient(l.body, l.inputs, {ir::Tensor::real(2.0)}, ir::Tensor::real(1.0)); });
  EXPECT_NE(scal.find("no derivative for digamma"), std::string::npos) << scal;
  // Its value is fine, and a fun that uses digamma only on a non-differentiated path is too.
  EXPECT_EQ(compiled("dg1", {ir::Tensor::real(2.0)}).r.at(0), ops::digamma(2.0));
}
