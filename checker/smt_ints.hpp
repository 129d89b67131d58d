// Ints as mathematical integers, for the linear-integer-arithmetic (LIA) encoding of a
// transition system: each operator's exact result, and the condition under which the
// oracle's 64-bit two's-complement result differs from it (the operation wraps). A proof
// over this encoding counts for the oracle only together with a proof that no operation
// ever wraps (semantics/int_encoding.md); the checker proves both at once.
#pragma once
#include <z3++.h>

#include <cstdint>
#include <optional>

#include "ops/ops.hpp"

namespace rml::check {

z3::expr int64_val(z3::context &c, int64_t v);  // an Int literal
z3::expr in_int64(const z3::expr &x);             // INT64_MIN <= x <= INT64_MAX

// The exact value of un(x) and bin(x, z) on Int operands (ints and the comparisons, max
// and min of ints); `wraps` collects the condition under which the oracle's result is
// another number (the exact one is outside the 64-bit range). Division and remainder
// truncate toward zero as C does, and are 0 for a zero divisor (ops::int_binary).
// Nothing for an operator that does not apply to ints.
std::optional<z3::expr> lia_unary(ops::UnOp op, const z3::expr &x, z3::expr_vector &wraps);
std::optional<z3::expr> lia_binary(ops::BinOp op, const z3::expr &x, const z3::expr &z, z3::expr_vector &wraps);

// The comparisons, max and min of two Ints or two exact Reals (Z3's arithmetic sorts, whose
// order is the mathematical one); nothing for another operator.
std::optional<z3::expr> arith_order(ops::BinOp op, const z3::expr &x, const z3::expr &z);

// A 64-bit vector (the oracle's int) as the Int it denotes (two's complement), and back.
z3::expr int_of_bv64(const z3::expr &bv);
z3::expr bv64_of_int(const z3::expr &x);

}  // namespace rml::check
