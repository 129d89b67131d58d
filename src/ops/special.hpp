// Special functions the C library lacks. lgamma is std::lgamma; digamma, its
// derivative, is computed here.
#pragma once

namespace rml::ops {

// ψ(x) = Γ'(x)/Γ(x), to a few ulps (tests/ops/test_special.cpp checks it against mpmath
// values at 1e-14 relative, or absolute near the root x ≈ 1.4616). Domain: every real;
// x > 0 by the recurrence ψ(x) = ψ(x+1) - 1/x up to x ≥ 10, then the asymptotic series;
// x < 0 by the reflection ψ(x) = ψ(1-x) - π cot(πx) (less accurate near the poles and for
// large |x|, where cot(πx) is ill-conditioned). At the poles 0, -1, -2, ... it is NaN;
// ψ(+inf) = +inf, ψ(-inf) = ψ(NaN) = NaN.
double digamma(double x);
// The executor's float kernels: computed in double, rounded once.
inline float digamma(float x) { return static_cast<float>(digamma(static_cast<double>(x))); }

}  // namespace rml::ops
