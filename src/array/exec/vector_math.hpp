// The executor's transcendentals: exp, log and tanh through SLEEF's AVX2 kernels (1.0 ULP
// bound, IEEE edge cases: ±0, ±inf, NaN, overflow and underflow as libm), in float and
// double. Every element — a block's, its padded tail's, the index VM's scalars — goes
// through the same vector kernel, so a value does not depend on where it is computed in
// the executor. The reference evaluator and the oracle keep the C library's functions:
// results of these three operators agree with them to within 2 ULP, not bit for bit
// (tests/array/ops/test_vector_math.cpp measures the bound; other operators agree exactly).
#pragma once
#include <cstdint>

#include "ops/ops.hpp"

namespace rml::exec::vmath {

// Whether `op` has a vector kernel here (exp, log, tanh).
constexpr bool vectorised(ops::UnOp op) { return op == ops::UnOp::Exp || op == ops::UnOp::Log || op == ops::UnOp::Tanh; }

// y[k] = op(x[k]) for k < n; `op` must be vectorised(op). x and y may be the same array.
void apply(ops::UnOp op, const double *x, double *y, int64_t n);
void apply(ops::UnOp op, const float *x, float *y, int64_t n);
// One value, through the same kernel.
double apply(ops::UnOp op, double x);
float apply(ops::UnOp op, float x);

}  // namespace rml::exec::vmath
