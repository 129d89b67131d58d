#include "checker/smt_ints.hpp"

#include "checker/smt_reals.hpp"

#include <limits>
#include <string>

namespace rml::check {

z3::expr int64_val(z3::context &c, int64_t v) { return c.int_val(v); }

z3::expr in_int64(const z3::expr &x) {
  z3::context &c = x.ctx();
  return int64_val(c, std::numeric_limits<int64_t>::min()) <= x && x <= int64_val(c, std::numeric_limits<int64_t>::max());
}

namespace {
// x / z rounded toward zero, for z ≠ 0. Z3's div is Euclidean (the remainder is never
// negative), which equals truncation for x ≥ 0; for x < 0, −((−x) div z).
z3::expr trunc_div(const z3::expr &x, const z3::expr &z) { return z3::ite(x >= 0, x / z, -((-x) / z)); }


// A result at most one 2^64 away from the range (a sum, a difference, a negation, a
// quotient): one comparison each side, cheaper for the solver than a remainder.
z3::expr wrap_once(const z3::expr &r) {
  z3::context &c = r.ctx();
  z3::expr two64 = c.int_val("18446744073709551616");
  return z3::ite(r > int64_val(c, std::numeric_limits<int64_t>::max()), r - two64,
                 z3::ite(r < int64_val(c, std::numeric_limits<int64_t>::min()), r + two64, r));
}
}  // namespace

z3::expr wrap64(const z3::expr &x) {
  z3::context &c = x.ctx();
  z3::expr two63 = c.int_val("9223372036854775808"), two64 = c.int_val("18446744073709551616");
  return z3::mod(x + two63, two64) - two63;  // Z3's mod by a positive number is in [0, 2^64)
}

std::optional<z3::expr> lia_unary(ops::UnOp op, const z3::expr &x, LiaOps &ops) {
  if (!x.is_int()) return std::nullopt;
  auto result = [&](const z3::expr &r) {
    if (ops.modular) return wrap_once(r);
    ops.wraps.push_back(!in_int64(r));
    return r;
  };
  switch (op) {
    case ops::UnOp::Neg: return result(-x);
    case ops::UnOp::Abs: return result(z3::ite(x < 0, -x, x));  // abs(INT64_MIN) wraps to itself
    default: return std::nullopt;
  }
}

std::optional<z3::expr> lia_binary(ops::BinOp op, const z3::expr &x, const z3::expr &z, LiaOps &ops) {
  if (!x.is_int() || !z.is_int()) return std::nullopt;
  z3::context &c = x.ctx();
  z3::expr zero = c.int_val(0);
  auto result = [&](const z3::expr &r, bool once) {
    if (ops.modular) return once ? wrap_once(r) : wrap64(r);
    ops.wraps.push_back(!in_int64(r));
    return r;
  };
  if (auto o = arith_order(op, x, z)) return o;
  bool constant = x.is_numeral() || z.is_numeral();
  switch (op) {
    case ops::BinOp::Add: return result(x + z, true);
    case ops::BinOp::Sub: return result(x - z, true);
    case ops::BinOp::Mul:
      ops.nonlinear |= !constant;
      return result(x * z, false);
    case ops::BinOp::Div:   // `/` on ints is div
    case ops::BinOp::IDiv:  // INT64_MIN div −1 is the only quotient out of range
      ops.nonlinear |= !z.is_numeral();
      return result(z3::ite(z == zero, zero, trunc_div(x, z)), true);
    case ops::BinOp::Mod:  // C's %: x − z·trunc(x / z), the sign of x; never out of range
      ops.nonlinear |= !z.is_numeral();
      return z3::ite(z == zero, zero, x - z * trunc_div(x, z));
    // Machine integers (ops::int_wrap_unsigned and the others) for a numeral width or shift,
    // as core/normalize writes them; the bitwise operators, and a width or shift that is not
    // a numeral, are not encoded (a fresh value; the 64-bit vectors encode them exactly).
    case ops::BinOp::WrapUnsigned:
    case ops::BinOp::WrapSigned: {
      int64_t n = 0;
      if (!z.is_numeral_i64(n)) return std::nullopt;
      if (n < 1 || n > 63) return x;
      // The low n bits of the exact value are those of its 64-bit wrap (2^n divides 2^64).
      z3::expr size = c.int_val(std::to_string(uint64_t{1} << n).c_str());
      if (op == ops::BinOp::WrapUnsigned) return z3::mod(x, size);  // Z3's mod by a positive number is in [0, 2^n)
      z3::expr half = c.int_val(std::to_string(uint64_t{1} << (n - 1)).c_str());
      return z3::mod(x + half, size) - half;
    }
    case ops::BinOp::ShiftLeft: {
      int64_t n = 0;
      if (!z.is_numeral_i64(n)) return std::nullopt;
      if (n < 0 || n > 63) return zero;
      return result(x * c.int_val(std::to_string(uint64_t{1} << n).c_str()), false);
    }
    case ops::BinOp::ShiftRight: {  // the floor of x / 2^n: Z3's div by a positive number
      int64_t n = 0;
      if (!z.is_numeral_i64(n)) return std::nullopt;
      if (n < 0 || n > 63) return z3::ite(x < zero, c.int_val(-1), zero);
      return x / c.int_val(std::to_string(uint64_t{1} << n).c_str());
    }
    default: return std::nullopt;
  }
}

std::optional<z3::expr> arith_order(ops::BinOp op, const z3::expr &x, const z3::expr &z) {
  switch (op) {
    case ops::BinOp::Eq: return x == z;
    case ops::BinOp::Ne: return x != z;
    case ops::BinOp::Lt: return x < z;
    case ops::BinOp::Le: return x <= z;
    case ops::BinOp::Gt: return x > z;
    case ops::BinOp::Ge: return x >= z;
    case ops::BinOp::Max: return z3::ite(x < z, z, x);
    case ops::BinOp::Min: return z3::ite(z < x, z, x);
    default: return std::nullopt;
  }
}

std::optional<z3::expr> int_overflow(ops::UnOp op, const z3::expr &x) {
  z3::context &c = x.ctx();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  switch (op) {
    case ops::UnOp::Neg:
    case ops::UnOp::Abs:  // only INT64_MIN has no 64-bit opposite
      if (x.is_int()) return !in_int64(op == ops::UnOp::Neg ? -x : z3::ite(x < 0, -x, x));
      if (x.is_bv() && x.get_sort().bv_size() == 64) return x == c.bv_val(kMin, 64);
      return std::nullopt;
    case ops::UnOp::Floor:
    case ops::UnOp::ToInt: {  // rounded outside [-2^63, 2^63) iff x is (binary64 has no value in between)
      if (x.is_fpa()) {
        z3::expr top = real_val(c, 9.2233720368547758e18);
        return x >= top || x < -top;  // false for NaN (it gives 0)
      }
      if (x.is_real()) {
        z3::expr top = c.real_val("9223372036854775808");
        return op == ops::UnOp::Floor ? x >= top || x < -top : x >= top || x <= -top - 1;
      }
      return std::nullopt;
    }
    default: return std::nullopt;
  }
}

std::optional<z3::expr> int_overflow(ops::BinOp op, const z3::expr &x, const z3::expr &z) {
  z3::context &c = x.ctx();
  constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
  const bool ints = x.is_int() && z.is_int();
  const bool bvs = x.is_bv() && z.is_bv() && x.get_sort().bv_size() == 64 && z.get_sort().bv_size() == 64;
  if (!ints && !bvs) return std::nullopt;
  // A 64-bit vector's exact result in `w` bits (two's complement, sign-extended operands):
  // out of range iff it is not the sign extension of its low 64 bits.
  auto outside = [&](const z3::expr &r, unsigned w) { return r != z3::sext(r.extract(63, 0), w - 64); };
  switch (op) {
    case ops::BinOp::Add:
      if (ints) return !in_int64(x + z);
      return outside(z3::sext(x, 1) + z3::sext(z, 1), 65);
    case ops::BinOp::Sub:
      if (ints) return !in_int64(x - z);
      return outside(z3::sext(x, 1) - z3::sext(z, 1), 65);
    case ops::BinOp::Mul:
      if (ints) return !in_int64(x * z);
      return outside(z3::sext(x, 64) * z3::sext(z, 64), 128);
    case ops::BinOp::Div:
    case ops::BinOp::IDiv:  // INT64_MIN div −1 (a zero divisor gives 0)
      if (ints) return x == int64_val(c, kMin) && z == int64_val(c, -1);  // operands in range: the first overflow is found first
      return x == c.bv_val(kMin, 64) && z == c.bv_val(-1, 64);
    default: return std::nullopt;
  }
}

z3::expr int_of_bv64(const z3::expr &bv) { return z3::bv2int(bv, true); }
z3::expr bv64_of_int(const z3::expr &x) { return z3::int2bv(64, x); }

}  // namespace rml::check
