#include "ops/special.hpp"

#include <cmath>
#include <limits>

namespace rml::ops {

namespace {
constexpr double kPi = 3.14159265358979323846;
}

double digamma(double x) {
  if (std::isnan(x)) return x;
  if (x == std::numeric_limits<double>::infinity()) return x;
  if (x <= 0) {
    double fl = std::floor(x);
    if (x == fl) return std::numeric_limits<double>::quiet_NaN();  // poles 0, -1, -2, ... (and -inf)
    // Reflection: ψ(x) = ψ(1 - x) - π cot(π x); cot has period 1, so reduce to
    // r = x - round(x) in [-1/2, 1/2] first, which is exact (π x itself loses digits
    // for large |x|, and x - floor(x) near a pole would round r's tiny distance to it).
    double r = x - std::round(x);
    return digamma(1.0 - x) - kPi / std::tan(kPi * r);
  }
  // ψ(x) = ψ(x + 1) - 1/x: shift to x ≥ 10, where the series below is accurate.
  double acc = 0.0;
  while (x < 10.0) {
    acc -= 1.0 / x;
    x += 1.0;
  }
  // Asymptotic series: ψ(x) ~ ln x - 1/(2x) - Σ_k B_2k / (2k x^2k), k = 1..7; the first
  // omitted term (k = 8) is 3617/8160 / x^16 < 5e-17 at x ≥ 10.
  double r2 = 1.0 / (x * x);
  double series = r2 * (1.0 / 12 - r2 * (1.0 / 120 - r2 * (1.0 / 252 - r2 * (1.0 / 240 - r2 * (1.0 / 132 - r2 * (691.0 / 32760 - r2 / 12))))));
  return acc + std::log(x) - 0.5 / x - series;
}

}  // namespace rml::ops
