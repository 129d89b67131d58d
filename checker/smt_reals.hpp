// Reals as the oracle computes them: IEEE-754 binary64 in Z3's floating-point theory,
// every basic operation rounded to nearest, ties to even (semantics/real_encoding.md has
// the soundness argument). The operators of the table (src/ops/ops.hpp) on tracked values:
// exactly where IEEE-754 or two's complement defines the result, and through the row's
// RealFacts for a C library function (an uninterpreted function of its argument, the same
// at every cycle, constrained by its range, NaN rule and exact points).
#pragma once
#include <z3++.h>

#include <optional>

#include "checker/smt_ints.hpp"
#include "ops/ops.hpp"

namespace rml::check {

z3::sort real_sort(z3::context &c);          // Float64
z3::expr real_val(z3::context &c, double v);  // a binary64 literal (±0, ±inf and NaN too)

// un(x), bin(x, z) on values of the operands' sorts (bool, 64-bit vector or Float64),
// `x` of the operand type and the result of the operator's; nothing when the operator
// does not apply to that sort. `facts` collects the constraints a Smt::Facts function's
// application brings (its range, NaN rule and exact points), which the caller asserts.
// With `lia`, ints are Z3 Ints (the LIA encodings, smt_ints.hpp): int operands are Ints,
// conversions from reals give Ints, and `lia` says how a result outside the 64-bit range
// is treated and collects what it must.
std::optional<z3::expr> encode_unary(ops::UnOp op, const z3::expr &x, z3::expr_vector &facts, LiaOps *lia = nullptr);
std::optional<z3::expr> encode_binary(ops::BinOp op, const z3::expr &x, const z3::expr &z, LiaOps *lia = nullptr);

// A Float64 value of a model as the double it denotes (NaN for NaN).
double real_of(z3::model &m, const z3::expr &v);

}  // namespace rml::check
