// SLEEF's AVX2 kernels (Debian libsleef-dev), four doubles or eight floats at a time; the
// tail is padded into a full vector so that every element meets the same kernel.
#include "array/exec/vector_math.hpp"

#include <immintrin.h>
#include <sleef.h>

#include <algorithm>

namespace rml::exec::vmath {

namespace {

__m256d kernel(ops::UnOp op, __m256d v) {
  switch (op) {
    case ops::UnOp::Exp: return Sleef_expd4_u10avx2(v);
    case ops::UnOp::Log: return Sleef_logd4_u10avx2(v);
    case ops::UnOp::Tanh: return Sleef_tanhd4_u10avx2(v);
    default: break;
  }
  return v;  // not reached: callers test vectorised(op)
}

__m256 kernel(ops::UnOp op, __m256 v) {
  switch (op) {
    case ops::UnOp::Exp: return Sleef_expf8_u10avx2(v);
    case ops::UnOp::Log: return Sleef_logf8_u10avx2(v);
    case ops::UnOp::Tanh: return Sleef_tanhf8_u10avx2(v);
    default: break;
  }
  return v;
}

}  // namespace

void apply(ops::UnOp op, const double *x, double *y, int64_t n) {
  int64_t k = 0;
  for (; k + 4 <= n; k += 4) _mm256_storeu_pd(y + k, kernel(op, _mm256_loadu_pd(x + k)));
  if (k == n) return;
  alignas(32) double tail[4] = {0, 0, 0, 0};
  std::copy(x + k, x + n, tail);
  _mm256_store_pd(tail, kernel(op, _mm256_load_pd(tail)));
  std::copy(tail, tail + (n - k), y + k);
}

void apply(ops::UnOp op, const float *x, float *y, int64_t n) {
  int64_t k = 0;
  for (; k + 8 <= n; k += 8) _mm256_storeu_ps(y + k, kernel(op, _mm256_loadu_ps(x + k)));
  if (k == n) return;
  alignas(32) float tail[8] = {0, 0, 0, 0, 0, 0, 0, 0};
  std::copy(x + k, x + n, tail);
  _mm256_store_ps(tail, kernel(op, _mm256_load_ps(tail)));
  std::copy(tail, tail + (n - k), y + k);
}

double apply(ops::UnOp op, double x) {
  double y;
  apply(op, &x, &y, 1);
  return y;
}

float apply(ops::UnOp op, float x) {
  float y;
  apply(op, &x, &y, 1);
  return y;
}

}  // namespace rml::exec::vmath
