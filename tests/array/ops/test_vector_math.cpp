// The executor's vectorised transcendentals (src/array/exec/vector_math.hpp, SLEEF)
// against the C library: within 2 ULP on every double and float drawn from the ranges
// where they matter, exactly on IEEE edge cases, and the same value wherever an element
// sits (a full vector, the padded tail, a scalar).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "array/exec/vector_math.hpp"
#include "common/ulp.hpp"

using rml::ops::UnOp;
using rml::test::ulp_distance;
namespace vmath = rml::exec::vmath;

namespace {

constexpr uint64_t kMaxUlp = 2;  // SLEEF's bound (1.0) plus libm's (< 1)

template <class F>
F libm(UnOp op, F x) {
  switch (op) {
    case UnOp::Exp: return std::exp(x);
    case UnOp::Log: return std::log(x);
    case UnOp::Tanh: return std::tanh(x);
    default: return x;
  }
}

// Inputs over each function's whole interesting range, uniform in the exponent.
template <class F>
F draw(UnOp op) {
  const bool dbl = sizeof(F) == 8;
  int kind = *rc::gen::resize(100, rc::gen::inRange(0, 4));
  double m = *rc::gen::resize(100, rc::gen::inRange(0, 1 << 20)) / double(1 << 20);
  switch (op) {
    case UnOp::Exp: {  // to overflow and through the subnormal results
      double lim = dbl ? 745.2 : 104.0;
      return static_cast<F>(kind == 0 ? (m * 2 - 1) * lim : (m * 2 - 1) * std::pow(10.0, *rc::gen::inRange(-30, 3)));
    }
    case UnOp::Log: {  // subnormal to huge, and near 1
      int e = *rc::gen::resize(100, rc::gen::inRange(dbl ? -1074 : -149, dbl ? 1024 : 128));
      if (kind == 0) return static_cast<F>(1.0 + (m - 0.5) * 1e-6);
      return static_cast<F>(std::ldexp(1.0 + m, e - 1));
    }
    case UnOp::Tanh: return static_cast<F>((m * 2 - 1) * std::pow(10.0, *rc::gen::inRange(-20, 3)));
    default: return F(0);
  }
}

template <class F>
void agree_on_random(UnOp op) {
  std::vector<F> x(static_cast<size_t>(*rc::gen::inRange(1, 21)));
  for (auto &v : x) v = draw<F>(op);
  std::vector<F> y(x.size());
  vmath::apply(op, x.data(), y.data(), static_cast<int64_t>(x.size()));
  for (size_t k = 0; k < x.size(); ++k) {
    F want = libm(op, x[k]);
    RC_ASSERT(ulp_distance(y[k], want) <= kMaxUlp);
    RC_ASSERT(y[k] == vmath::apply(op, x[k]) || (std::isnan(y[k]) && std::isnan(want)));  // same value wherever it sits
  }
}

}  // namespace

// Law: |SLEEF(x) - libm(x)| <= 2 ULP, doubles and floats, random arrays of 1..20 elements
// (full vectors and padded tails).
RC_GTEST_PROP(VectorMath, WithinTwoUlpOfLibmInDouble, ()) {
  for (UnOp op : {UnOp::Exp, UnOp::Log, UnOp::Tanh}) agree_on_random<double>(op);
}
RC_GTEST_PROP(VectorMath, WithinTwoUlpOfLibmInFloat, ()) {
  for (UnOp op : {UnOp::Exp, UnOp::Log, UnOp::Tanh}) agree_on_random<float>(op);
}

// IEEE edge cases: exactly libm's value (the same bits; NaN for NaN).
TEST(VectorMath, EdgeCasesAreExactlyLibms) {
  const double inf = std::numeric_limits<double>::infinity(), nan = std::numeric_limits<double>::quiet_NaN();
  const double den = std::numeric_limits<double>::denorm_min(), big = std::numeric_limits<double>::max();
  std::vector<double> x = {0.0, -0.0, inf, -inf, nan, 1.0, -1.0, den, -den, big, -big, 709.8, 709.79, -745.2, -746.0, 1e-300, -1e-300, 40.0, -40.0, 20.0};
  for (UnOp op : {UnOp::Exp, UnOp::Log, UnOp::Tanh}) {
    std::vector<double> y(x.size());
    vmath::apply(op, x.data(), y.data(), static_cast<int64_t>(x.size()));
    for (size_t k = 0; k < x.size(); ++k) {
      double want = libm(op, x[k]);
      bool special = std::isnan(want) || std::isinf(want) || want == 0.0 || std::abs(want) == 1.0;
      if (special) {
        EXPECT_TRUE((std::isnan(y[k]) && std::isnan(want)) || std::signbit(y[k]) == std::signbit(want)) << x[k];
        EXPECT_TRUE((std::isnan(y[k]) && std::isnan(want)) || y[k] == want) << "op " << int(op) << " at " << x[k] << ": " << y[k] << " vs " << want;
      } else {
        EXPECT_LE(ulp_distance(y[k], want), kMaxUlp) << "op " << int(op) << " at " << x[k];
      }
    }
  }
  // The same in float.
  std::vector<float> xf = {0.0f, -0.0f, INFINITY, -INFINITY, NAN, 88.8f, -104.0f, 1e-45f, 3.4e38f};
  for (UnOp op : {UnOp::Exp, UnOp::Log, UnOp::Tanh})
    for (float v : xf) {
      float got = vmath::apply(op, v), want = libm(op, v);
      EXPECT_TRUE((std::isnan(got) && std::isnan(want)) || ulp_distance(got, want) <= kMaxUlp) << "op " << int(op) << " at " << v;
    }
}

// Negative control: the ULP measure does reject a kernel off by 1e-14 relative.
TEST(VectorMath, NegativeControlAWrongKernelIsRejected) {
  double x = 0.7, want = std::exp(x), wrong = want * (1 + 1e-14);
  EXPECT_GT(ulp_distance(wrong, want), kMaxUlp);
  EXPECT_EQ(ulp_distance(want, want), 0u);
  EXPECT_EQ(ulp_distance(std::nextafter(want, 2.0), want), 1u);
  EXPECT_EQ(ulp_distance(0.0, -0.0), 0u);
  EXPECT_EQ(ulp_distance(std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::denorm_min()), 2u);
}
