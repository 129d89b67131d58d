// digamma (src/ops/special.cpp) against values computed independently with mpmath at 40
// digits, its recurrence and reflection laws, and as the derivative of std::lgamma.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "ops/special.hpp"

using rml::ops::digamma;

namespace {

// python3 -c "import mpmath; mpmath.mp.dps = 40; print(mpmath.digamma(mpmath.mpf(x)))"
// for each x (mpf(x) is the double x exactly).
struct Ref {
  double x, psi;
};
const Ref kRefs[] = {
    {1e-08, -100000000.57721564636},
    {0.001, -1000.5755719318102797},
    {0.1, -10.423754940411076232},
    {0.5, -1.9635100260214234794},
    {1.0, -0.57721566490153286061},
    {1.5, 0.036489973978576520559},
    {2.0, 0.42278433509846713939},
    {2.5, 0.70315664064524318723},
    {3.7, 1.1671535393615114409},
    {5.999, 1.7059363290792256036},
    {6.0, 1.7061176684318004727},
    {9.99, 2.250700372831201122},
    {10.0, 2.2517525890667211076},
    {12.5, 2.4851956512749120482},
    {30.0, 3.3844381326855248766},
    {100.0, 4.6001618527380874002},
    {1234.5, 7.1180162318279978433},
    {1000000.0, 13.815510057964190771},
    {1e15, 34.53877639491068476},
    {1e300, 690.77552789821370526},
    {-0.5, 0.036489973978576520559},
    {-1.5, 0.70315664064524318723},
    {-2.25, 4.1585835646579722748},
    {-10.3, 4.6624034935820870175},
    {-0.001, 999.42113819789133376},
};

}  // namespace

TEST(Digamma, MatchesMpmath) {
  for (auto &r : kRefs) EXPECT_LE(std::fabs(digamma(r.x) - r.psi), 2e-15 * std::max(1.0, std::fabs(r.psi))) << "psi(" << r.x << ")";
  // Near its positive root x0 = 1.46163214496836..., psi is tiny: absolute accuracy.
  EXPECT_LE(std::fabs(digamma(1.4616321449683622) - -9.2412655217294275168e-17), 1e-15);
}

TEST(Digamma, KnownConstants) {
  const double gamma = 0.5772156649015329;  // Euler–Mascheroni
  EXPECT_NEAR(digamma(1.0), -gamma, 1e-15);
  EXPECT_NEAR(digamma(0.5), -gamma - 2 * std::log(2.0), 1e-15);
}

TEST(Digamma, PolesAndSpecialValues) {
  for (double x : {0.0, -0.0, -1.0, -2.0, -7.0, -1e20, -double(INFINITY), double(NAN)}) EXPECT_TRUE(std::isnan(digamma(x))) << x;
  EXPECT_EQ(digamma(INFINITY), INFINITY);
  EXPECT_EQ(digamma(1.0f), static_cast<float>(digamma(1.0)));  // the executor's float kernels
}

// Law (recurrence): psi(x + 1) = psi(x) + 1/x for x > 0, to rounding.
RC_GTEST_PROP(Digamma, Recurrence, ()) {
  double x = *rc::gen::inRange(1, 2000000) / 1000.0;
  double lhs = digamma(x + 1), rhs = digamma(x) + 1 / x;
  RC_ASSERT(std::fabs(lhs - rhs) <= 4e-15 * std::max({1.0, std::fabs(lhs), 1 / x}));
}

// Negative control: the check above rejects a wrong recurrence, psi(x+1) = psi(x) + 1/(x+1).
TEST(Digamma, RecurrenceCheckRejectsAWrongLaw) {
  for (double x : {0.5, 3.0, 40.0}) {
    double lhs = digamma(x + 1), rhs = digamma(x) + 1 / (x + 1);
    EXPECT_GT(std::fabs(lhs - rhs), 4e-15 * std::max({1.0, std::fabs(lhs), 1 / x}));
  }
}

// Law (reflection): psi(1 - x) - psi(x) = pi cot(pi x) for non-integer x in (0, 1).
RC_GTEST_PROP(Digamma, Reflection, ()) {
  double x = *rc::gen::inRange(1, 1000) / 1000.0;
  double lhs = digamma(1 - x) - digamma(x), rhs = M_PI / std::tan(M_PI * x);
  RC_ASSERT(std::fabs(lhs - rhs) <= 1e-12 * std::max(1.0, std::fabs(rhs)));
}

// Law: digamma is the derivative of std::lgamma (central differences, h = 1e-5; the
// truncation error is h^2/6 |psi''|, the rounding error ~1e-16 |lgamma| / h).
RC_GTEST_PROP(Digamma, IsTheDerivativeOfLgamma, ()) {
  double x = *rc::gen::inRange(200, 50000) / 1000.0;
  const double h = 1e-5;
  double fd = (std::lgamma(x + h) - std::lgamma(x - h)) / (2 * h);
  RC_ASSERT(std::fabs(fd - digamma(x)) <= 1e-8 * std::max(1.0, std::fabs(std::lgamma(x))));
}
