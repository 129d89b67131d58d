// Ints as mathematical integers, for the linear-integer-arithmetic (LIA) encodings of a
// transition system. Checked: each operator's exact result, and the condition under which
// the oracle's 64-bit two's-complement result differs from it (the operation wraps); a
// proof over it counts for the oracle only together with a proof that no operation ever
// wraps (semantics/int_encoding.md), and the checker proves both at once. Modular: the
// result brought back into the 64-bit range as the oracle wraps it, exactly the oracle's
// ints over Z3's Ints (linear where the program's operations are).
#pragma once
#include <z3++.h>

#include <cstdint>
#include <optional>

#include "ops/ops.hpp"

namespace rml::check {

z3::expr int64_val(z3::context &c, int64_t v);  // an Int literal
z3::expr in_int64(const z3::expr &x);             // INT64_MIN <= x <= INT64_MAX

// What the int operations of an encoding collect: with `modular`, nothing about wraps
// (each result is wrapped as the oracle's); else `wraps`, the conditions under which an
// exact result leaves the range. `nonlinear` is set by a product, quotient or remainder of
// two non-constant operands (Z3's nonlinear arithmetic, often undecided).
struct LiaOps {
  z3::expr_vector wraps;
  bool modular = false;
  bool nonlinear = false;
  LiaOps(z3::context &c, bool mod) : wraps(c), modular(mod) {}
};

// un(x) and bin(x, z) on Int operands (ints and the comparisons, max and min of ints):
// the exact value, with the condition under which the oracle's result is another number
// in `ops.wraps`, or with `ops.modular` the oracle's value. Division and remainder
// truncate toward zero as C does, and are 0 for a zero divisor (ops::int_binary).
// Nothing for an operator that does not apply to ints.
std::optional<z3::expr> lia_unary(ops::UnOp op, const z3::expr &x, LiaOps &ops);
std::optional<z3::expr> lia_binary(ops::BinOp op, const z3::expr &x, const z3::expr &z, LiaOps &ops);

// x brought into the 64-bit range as two's complement does (x mod 2^64, centred).
z3::expr wrap64(const z3::expr &x);

// The comparisons, max and min of two Ints or two exact Reals (Z3's arithmetic sorts, whose
// order is the mathematical one); nothing for another operator.
std::optional<z3::expr> arith_order(ops::BinOp op, const z3::expr &x, const z3::expr &z);

// Where an int operation's exact result leaves the 64-bit range (ops::int_unary_overflows,
// int_binary_overflows, real_to_int_overflows: what --int-overflow error makes ‖), on the
// operands as an encoding holds them: Ints (exact), 64-bit vectors (widened, so nothing
// wraps), binary64 floats or exact Reals (`floor`, `int`). Nothing for an operator that
// cannot overflow, or operands of another sort.
std::optional<z3::expr> int_overflow(ops::UnOp op, const z3::expr &x);
std::optional<z3::expr> int_overflow(ops::BinOp op, const z3::expr &x, const z3::expr &z);

// A 64-bit vector (the oracle's int) as the Int it denotes (two's complement), and back.
z3::expr int_of_bv64(const z3::expr &bv);
z3::expr bv64_of_int(const z3::expr &x);

}  // namespace rml::check
