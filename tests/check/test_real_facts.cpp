// The facts rml-check assumes of the C library's real functions (ops::RealFacts, the
// operator table) hold of the library the oracle calls: on boundaries, near the exact
// points and pivots, and on random doubles of every magnitude. A wrong fact would make
// rml-check unsound, so each is checked where it is most likely to break.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "ops/ops.hpp"
#include "ops/scalar_ops.hpp"

using namespace rml;

namespace real_facts_test {
std::vector<double> samples() {
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> xs{0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(), 4.9e-324, -4.9e-324,
                         2.2250738585072014e-308, 1e308, -1e308, 709.78, 710.0, -745.2, -746.0, 20.0, -20.0, 1e-8};
  for (double p : {0.0, 1.0, 2.0, -1.0})
    for (int k = 1; k <= 64; ++k) {
      double up = p, down = p;
      for (int j = 0; j < k; ++j) up = std::nextafter(up, inf), down = std::nextafter(down, -inf);
      xs.push_back(up), xs.push_back(down);
    }
  std::mt19937_64 rng(11);
  for (int k = 0; k < 200000; ++k) {  // random bit patterns: every magnitude and sign
    uint64_t u = rng();
    double d;
    std::memcpy(&d, &u, sizeof d);
    xs.push_back(d);
    xs.push_back(std::uniform_real_distribution<double>(-50, 50)(rng));
  }
  return xs;
}
}  // namespace real_facts_test
using real_facts_test::samples;

TEST(RealFacts, HoldOfTheLibrary) {
  auto xs = samples();
  for (auto &row : ops::kUnary) {
    if (row.smt != ops::Smt::Facts) continue;
    const ops::RealFacts &f = row.facts;
    for (double x : xs) {
      double y = ops::real_unary(row.op, x);
      SCOPED_TRACE(std::string(row.name) + "(" + std::to_string(x) + ")");
      if (!std::isnan(y)) {
        ASSERT_GE(y, f.lo) << x;
        ASSERT_LE(y, f.hi) << x;
      }
      bool nan_expected = std::isnan(x);
      switch (f.nan) {
        case ops::NanWhen::NanArg: ASSERT_EQ(std::isnan(y), nan_expected) << x; break;
        case ops::NanWhen::NanArgOrInfinite: ASSERT_EQ(std::isnan(y), nan_expected || std::isinf(x)) << x; break;
        case ops::NanWhen::NanArgOrBelow: ASSERT_EQ(std::isnan(y), nan_expected || x < f.domain_lo) << x; break;
        case ops::NanWhen::Propagates:
          if (nan_expected) {
            ASSERT_TRUE(std::isnan(y)) << x;
          }
          break;
      }
      for (int k = 0; k < f.npoints; ++k) {
        auto [a, b] = f.points[static_cast<size_t>(k)];
        if (x == a) {
          ASSERT_EQ(y, b) << x;
        }
        if (f.increasing && !std::isnan(y)) {
          if (x >= a) {
            ASSERT_GE(y, b) << x;
          }
          if (x <= a) {
            ASSERT_LE(y, b) << x;
          }
        }
      }
    }
    if (f.increasing) {  // monotone on neighbouring doubles and on sorted samples
      std::vector<double> s;
      for (double x : xs)
        if (!std::isnan(x)) s.push_back(x);
      std::sort(s.begin(), s.end());
      for (size_t k = 1; k < s.size(); ++k) {
        double a = ops::real_unary(row.op, s[k - 1]), b = ops::real_unary(row.op, s[k]);
        if (!std::isnan(a) && !std::isnan(b)) {
          ASSERT_LE(a, b) << row.name << " at " << s[k - 1] << ", " << s[k];
        }
      }
    }
  }
}

// Negative control: a wrong fact is caught (tanh said to be at most 0.5).
TEST(RealFacts, AWrongFactIsCaught) {
  bool caught = false;
  for (double x : samples()) caught |= ops::real_unary(ops::UnOp::Tanh, x) > 0.5;
  EXPECT_TRUE(caught);
}
