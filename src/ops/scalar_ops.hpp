// The scalar meaning of every operator of the table (ops.hpp): the one definition that
// the reference evaluator (src/array/elementwise.cpp), the executor
// (src/array/exec/runtime.cpp, in float or double) and the oracle's scalar fast path
// call. Everything is total (semantics/semantics.md §3, grammar.md §5 "Corner cases"):
// ints wrap, x div 0 = x mod 0 = 0, floor/int saturate and map NaN to 0, real max/min
// return NaN when an operand is NaN, real arithmetic is IEEE-754 and the real functions
// are the C library's (so results are bit-identical wherever they are computed).
#pragma once
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>

#include "ops/ops.hpp"
#include "ops/special.hpp"

namespace rml::ops {

// ---- ints: two's complement, total ----
constexpr int64_t int_add(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b)); }
constexpr int64_t int_sub(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b)); }
constexpr int64_t int_mul(int64_t a, int64_t b) { return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b)); }
constexpr int64_t int_div(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (a == std::numeric_limits<int64_t>::min() && b == -1) return a;  // wraps
  return a / b;
}
constexpr int64_t int_mod(int64_t a, int64_t b) { return b == 0 || b == -1 ? 0 : a % b; }

// The bit operations of Kind 2's machine integers (core/normalize writes their arithmetic
// with them; semantics/machine_ints.md). A width or shift outside 1..63 (0..63 for a
// shift) leaves nothing to cut: x itself for a wrap; 0 for a left shift; the sign for a
// right shift, as SMT-LIB's bvshl and bvashr give for a shift of 64 bits or more.
constexpr int64_t int_wrap_unsigned(int64_t x, int64_t n) {  // x mod 2^n, in [0, 2^n)
  return n >= 1 && n <= 63 ? static_cast<int64_t>(static_cast<uint64_t>(x) & ((uint64_t{1} << n) - 1)) : x;
}
constexpr int64_t int_wrap_signed(int64_t x, int64_t n) {  // the n-bit two's complement of x
  if (n < 1 || n > 63) return x;
  uint64_t half = uint64_t{1} << (n - 1);
  return static_cast<int64_t>(((static_cast<uint64_t>(x) & ((uint64_t{1} << n) - 1)) ^ half) - half);
}
constexpr int64_t int_shift_left(int64_t x, int64_t n) {
  return n >= 0 && n <= 63 ? static_cast<int64_t>(static_cast<uint64_t>(x) << n) : 0;
}
constexpr int64_t int_shift_right(int64_t x, int64_t n) {  // arithmetic: the sign comes in
  return n >= 0 && n <= 63 ? x >> n : (x < 0 ? -1 : 0);
}

// real → int (floor, int): saturating at the int range, NaN → 0.
inline int64_t saturate(double v) {
  return std::isnan(v) ? 0
         : v >= 9.2233720368547758e18 ? std::numeric_limits<int64_t>::max()
         : v <= -9.2233720368547758e18 ? std::numeric_limits<int64_t>::min()
                                       : static_cast<int64_t>(v);
}

// ---- unary ----

// Typing::RealSame and NumericSame on reals. R is double (reference) or float (the
// executor's float kernels: std::exp(float) is the float overload, as before the table).
template <class R>
inline R real_unary(UnOp op, R x) {
  switch (op) {
    case UnOp::Neg: return -x;
    case UnOp::Abs: return std::fabs(x);
    case UnOp::Exp: return std::exp(x);
    case UnOp::Log: return std::log(x);
    case UnOp::Sqrt: return std::sqrt(x);
    case UnOp::Tanh: return std::tanh(x);
    case UnOp::Sin: return std::sin(x);
    case UnOp::Cos: return std::cos(x);
    case UnOp::Lgamma: return std::lgamma(x);
    case UnOp::Digamma: return digamma(x);
    case UnOp::Not:
    case UnOp::Floor:
    case UnOp::ToReal:
    case UnOp::ToInt: break;  // not real → real (the typing rule excludes them)
  }
  return x;
}

// Typing::RealToInt (computed in double whatever the kernel's precision).
inline int64_t real_to_int(UnOp op, double x) { return saturate(op == UnOp::Floor ? std::floor(x) : std::trunc(x)); }

// NumericSame and BoolSame on ints and bools (bools are 0/1).
inline int64_t int_unary(UnOp op, int64_t x) {
  switch (op) {
    case UnOp::Neg: return int_sub(0, x);
    case UnOp::Abs: return x < 0 ? int_sub(0, x) : x;
    case UnOp::Not: return !x;
    case UnOp::Exp:
    case UnOp::Log:
    case UnOp::Sqrt:
    case UnOp::Tanh:
    case UnOp::Sin:
    case UnOp::Cos:
    case UnOp::Floor:
    case UnOp::ToReal:
    case UnOp::ToInt:
    case UnOp::Lgamma:
    case UnOp::Digamma: break;  // not on ints
  }
  return x;
}

// ---- binary ----

template <class R>
inline R real_max(R x, R y) {
  return std::isnan(x) || std::isnan(y) ? std::numeric_limits<R>::quiet_NaN() : std::max(x, y);
}
template <class R>
inline R real_min(R x, R y) {
  return std::isnan(x) || std::isnan(y) ? std::numeric_limits<R>::quiet_NaN() : std::min(x, y);
}

// Comparisons (AnyToBool, NumericToBool) on reals, ints or bools.
template <class A>
inline bool compare(BinOp op, A x, A y) {
  switch (op) {
    case BinOp::Eq: return x == y;
    case BinOp::Ne: return x != y;
    case BinOp::Lt: return x < y;
    case BinOp::Le: return x <= y;
    case BinOp::Gt: return x > y;
    case BinOp::Ge: return x >= y;
    case BinOp::Add:
    case BinOp::Sub:
    case BinOp::Mul:
    case BinOp::Div:
    case BinOp::IDiv:
    case BinOp::Mod:
    case BinOp::Max:
    case BinOp::Min:
    case BinOp::And:
    case BinOp::Or:
    case BinOp::Xor:
    case BinOp::Implies:
    case BinOp::WrapUnsigned:
    case BinOp::WrapSigned:
    case BinOp::BitAnd:
    case BinOp::BitOr:
    case BinOp::ShiftLeft:
    case BinOp::ShiftRight: break;  // not a comparison (callers test is_comparison first)
  }
  return false;
}

// NumericSame on reals.
template <class R>
inline R real_binary(BinOp op, R x, R y) {
  switch (op) {
    case BinOp::Add: return x + y;
    case BinOp::Sub: return x - y;
    case BinOp::Mul: return x * y;
    case BinOp::Div: return x / y;  // IEEE-754
    case BinOp::Max: return real_max(x, y);
    case BinOp::Min: return real_min(x, y);
    case BinOp::IDiv:
    case BinOp::Mod:
    case BinOp::Eq:
    case BinOp::Ne:
    case BinOp::Lt:
    case BinOp::Le:
    case BinOp::Gt:
    case BinOp::Ge:
    case BinOp::And:
    case BinOp::Or:
    case BinOp::Xor:
    case BinOp::Implies:
    case BinOp::WrapUnsigned:
    case BinOp::WrapSigned:
    case BinOp::BitAnd:
    case BinOp::BitOr:
    case BinOp::ShiftLeft:
    case BinOp::ShiftRight: break;  // not real → real (the typing rule excludes them)
  }
  return 0;
}

// Every binary operator on ints and bools (0/1), comparisons included.
inline int64_t int_binary(BinOp op, int64_t x, int64_t y) {
  switch (op) {
    case BinOp::Add: return int_add(x, y);
    case BinOp::Sub: return int_sub(x, y);
    case BinOp::Mul: return int_mul(x, y);
    case BinOp::Div:
    case BinOp::IDiv: return int_div(x, y);
    case BinOp::Mod: return int_mod(x, y);
    case BinOp::Max: return std::max(x, y);
    case BinOp::Min: return std::min(x, y);
    case BinOp::And: return x && y;
    case BinOp::Or: return x || y;
    case BinOp::Xor: return (x != 0) != (y != 0);
    case BinOp::Implies: return !x || y;
    case BinOp::WrapUnsigned: return int_wrap_unsigned(x, y);
    case BinOp::WrapSigned: return int_wrap_signed(x, y);
    case BinOp::BitAnd: return static_cast<int64_t>(static_cast<uint64_t>(x) & static_cast<uint64_t>(y));
    case BinOp::BitOr: return static_cast<int64_t>(static_cast<uint64_t>(x) | static_cast<uint64_t>(y));
    case BinOp::ShiftLeft: return int_shift_left(x, y);
    case BinOp::ShiftRight: return int_shift_right(x, y);
    case BinOp::Eq:
    case BinOp::Ne:
    case BinOp::Lt:
    case BinOp::Le:
    case BinOp::Gt:
    case BinOp::Ge: return compare(op, x, y);
  }
  return 0;
}


// ---- overflow (rml-check and rml run --int-overflow error) ----
// Whether an int operation's exact result leaves the 64-bit range, where the functions
// above wrap: `+ - *`, unary `-` and `abs` of INT64_MIN, INT64_MIN div −1. Nothing else
// on ints can leave it (`mod` and comparisons cannot; the machine integers' own
// operators wrap by definition, and core::Equation::wraps marks their arithmetic).
inline bool int_unary_overflows(UnOp op, int64_t x) {
  return (op == UnOp::Neg || op == UnOp::Abs) && x == std::numeric_limits<int64_t>::min();
}
inline bool int_binary_overflows(BinOp op, int64_t x, int64_t y) {
  int64_t r = 0;
  switch (op) {
    case BinOp::Add: return __builtin_add_overflow(x, y, &r);
    case BinOp::Sub: return __builtin_sub_overflow(x, y, &r);
    case BinOp::Mul: return __builtin_mul_overflow(x, y, &r);
    case BinOp::Div:
    case BinOp::IDiv: return x == std::numeric_limits<int64_t>::min() && y == -1;
    default: return false;
  }
}
// Whether `floor`/`int` of a real has no 64-bit value (real_to_int saturates it): outside
// [−2^63, 2^63) after rounding. NaN is not an overflow (it gives 0; reals are binary64).
inline bool real_to_int_overflows(UnOp op, double x) {
  const double r = op == UnOp::Floor ? std::floor(x) : std::trunc(x);
  return r >= 9.2233720368547758e18 || r < -9.2233720368547758e18;
}
// Whether an operator can leave the range at all (those the functions above cover).
inline bool may_overflow(UnOp op) { return op == UnOp::Neg || op == UnOp::Abs || op == UnOp::Floor || op == UnOp::ToInt; }
inline bool may_overflow(BinOp op) {
  return op == BinOp::Add || op == BinOp::Sub || op == BinOp::Mul || op == BinOp::Div || op == BinOp::IDiv;
}

}  // namespace rml::ops
