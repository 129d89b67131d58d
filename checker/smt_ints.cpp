#include "checker/smt_ints.hpp"

#include <limits>

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
}  // namespace

std::optional<z3::expr> lia_unary(ops::UnOp op, const z3::expr &x, z3::expr_vector &wraps) {
  if (!x.is_int()) return std::nullopt;
  switch (op) {
    case ops::UnOp::Neg: wraps.push_back(!in_int64(-x)); return -x;
    case ops::UnOp::Abs: {
      z3::expr r = z3::ite(x < 0, -x, x);
      wraps.push_back(!in_int64(r));  // abs(INT64_MIN) wraps to itself in the oracle
      return r;
    }
    default: return std::nullopt;
  }
}

std::optional<z3::expr> lia_binary(ops::BinOp op, const z3::expr &x, const z3::expr &z, z3::expr_vector &wraps) {
  if (!x.is_int() || !z.is_int()) return std::nullopt;
  z3::context &c = x.ctx();
  z3::expr zero = c.int_val(0);
  auto checked = [&](const z3::expr &r) {
    wraps.push_back(!in_int64(r));
    return r;
  };
  if (auto o = arith_order(op, x, z)) return o;
  switch (op) {
    case ops::BinOp::Add: return checked(x + z);
    case ops::BinOp::Sub: return checked(x - z);
    case ops::BinOp::Mul: return checked(x * z);
    case ops::BinOp::Div:   // `/` on ints is div
    case ops::BinOp::IDiv:  // INT64_MIN div −1 is the only quotient out of range
      return checked(z3::ite(z == zero, zero, trunc_div(x, z)));
    case ops::BinOp::Mod:  // C's %: x − z·trunc(x / z), the sign of x; never out of range
      return z3::ite(z == zero, zero, x - z * trunc_div(x, z));
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

z3::expr int_of_bv64(const z3::expr &bv) { return z3::bv2int(bv, true); }
z3::expr bv64_of_int(const z3::expr &x) { return z3::int2bv(64, x); }

}  // namespace rml::check
