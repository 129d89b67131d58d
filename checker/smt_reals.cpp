#include "checker/smt_reals.hpp"

#include "checker/smt_ints.hpp"

#include <cmath>
#include <cstring>
#include <limits>
#include <string>

namespace rml::check {

namespace {
z3::expr rne(z3::context &c) { return z3::expr(c, Z3_mk_fpa_rne(c)); }
z3::expr wrap(z3::context &c, Z3_ast a) {
  c.check_error();
  return z3::expr(c, a);
}
bool is_float(const z3::expr &x) { return x.get_sort().sort_kind() == Z3_FLOATING_POINT_SORT; }
bool is_rational(const z3::expr &x) { return x.get_sort().is_real(); }

// Reals as exact rationals (Options::exact_reals): the arithmetic of the mathematical
// reals, which binary64 does not compute. Unsound on purpose: the negative control of the
// soundness laws (tests/check/test_values.cpp) must catch it.
std::optional<z3::expr> rational_unary(ops::UnOp op, const z3::expr &x, z3::expr_vector &facts) {
  z3::context &c = x.ctx();
  const ops::UnaryRow &row = ops::row(op);
  if (row.smt == ops::Smt::Facts) {
    z3::expr y = c.function(("rml_libm_q!" + std::string(row.name)).c_str(), c.real_sort(), c.real_sort())(x);
    if (row.facts.lo > -ops::kInf) facts.push_back(c.real_val(std::to_string(row.facts.lo).c_str()) <= y);
    if (row.facts.hi < ops::kInf) facts.push_back(y <= c.real_val(std::to_string(row.facts.hi).c_str()));
    return y;
  }
  if (op == ops::UnOp::Neg) return -x;
  if (op == ops::UnOp::Abs) return z3::ite(x < 0, -x, x);
  return std::nullopt;
}
std::optional<z3::expr> rational_binary(ops::BinOp op, const z3::expr &x, const z3::expr &z) {
  switch (op) {
    case ops::BinOp::Add: return x + z;
    case ops::BinOp::Sub: return x - z;
    case ops::BinOp::Mul: return x * z;
    case ops::BinOp::Div: return x / z;
    default: return arith_order(op, x, z);
  }
}
bool is_bv64(const z3::expr &x) { return x.get_sort().is_bv(); }

// The constraints a C library function's application y = f(x) brings (ops::RealFacts).
void add_facts(const ops::RealFacts &rf, const z3::expr &x, const z3::expr &y, z3::expr_vector &facts) {
  z3::context &c = x.ctx();
  z3::expr ynan = y.mk_is_nan(), xnan = x.mk_is_nan();
  auto le = [&](const z3::expr &a, const z3::expr &b) { return wrap(c, Z3_mk_fpa_leq(c, a, b)); };
  auto eq = [&](const z3::expr &a, const z3::expr &b) { return wrap(c, Z3_mk_fpa_eq(c, a, b)); };
  if (rf.lo > -ops::kInf) facts.push_back(z3::implies(!ynan, le(real_val(c, rf.lo), y)));
  if (rf.hi < ops::kInf) facts.push_back(z3::implies(!ynan, le(y, real_val(c, rf.hi))));
  switch (rf.nan) {
    case ops::NanWhen::NanArg: facts.push_back(ynan == xnan); break;
    case ops::NanWhen::NanArgOrInfinite: facts.push_back(ynan == (xnan || x.mk_is_inf())); break;
    case ops::NanWhen::NanArgOrBelow:
      facts.push_back(ynan == (xnan || wrap(c, Z3_mk_fpa_lt(c, x, real_val(c, rf.domain_lo)))));
      break;
    case ops::NanWhen::Propagates: facts.push_back(z3::implies(xnan, ynan)); break;
  }
  for (int k = 0; k < rf.npoints; ++k) {
    auto [a, b] = rf.points[static_cast<size_t>(k)];
    z3::expr av = real_val(c, a), bv = real_val(c, b);
    facts.push_back(z3::implies(eq(x, av), eq(y, bv)));
    if (rf.increasing) {  // monotone: the point is a pivot
      facts.push_back(z3::implies(!ynan && le(av, x), le(bv, y)));
      facts.push_back(z3::implies(!ynan && le(x, av), le(y, bv)));
    }
  }
}

// real → int as ops::real_to_int: round (toward −∞ for floor, toward 0 for int), then
// saturate at the int range; NaN → 0.
z3::expr to_int(const z3::expr &x, bool floor) {
  z3::context &c = x.ctx();
  z3::expr mode(c, floor ? Z3_mk_fpa_rtn(c) : Z3_mk_fpa_rtz(c));
  z3::expr r = wrap(c, Z3_mk_fpa_round_to_integral(c, mode, x));
  z3::expr two63 = real_val(c, 9.2233720368547758e18);
  z3::expr conv = wrap(c, Z3_mk_fpa_to_sbv(c, z3::expr(c, Z3_mk_fpa_rtz(c)), r, 64));
  return z3::ite(x.mk_is_nan(), c.bv_val(0, 64),
                 z3::ite(wrap(c, Z3_mk_fpa_geq(c, r, two63)), c.bv_val(std::numeric_limits<int64_t>::max(), 64),
                         z3::ite(wrap(c, Z3_mk_fpa_leq(c, r, wrap(c, Z3_mk_fpa_neg(c, two63)))),
                                 c.bv_val(std::numeric_limits<int64_t>::min(), 64), conv)));
}
}  // namespace

z3::sort real_sort(z3::context &c) { return c.fpa_sort(11, 53); }

z3::expr real_val(z3::context &c, double v) {
  if (std::isnan(v)) return z3::expr(c, Z3_mk_fpa_nan(c, real_sort(c)));
  if (std::isinf(v)) return z3::expr(c, Z3_mk_fpa_inf(c, real_sort(c), v < 0));
  return wrap(c, Z3_mk_fpa_numeral_double(c, v, real_sort(c)));
}

std::optional<z3::expr> encode_unary(ops::UnOp op, const z3::expr &x, z3::expr_vector &facts, LiaOps *lia) {
  z3::context &c = x.ctx();
  const ops::UnaryRow &row = ops::row(op);
  if (is_rational(x)) return rational_unary(op, x, facts);
  if (x.is_int()) {  // the LIA encoding
    if (!lia) return std::nullopt;
    if (op == ops::UnOp::ToReal)  // exact: an int that reaches here without a wrap is in range
      return wrap(c, Z3_mk_fpa_to_fp_signed(c, rne(c), bv64_of_int(x), real_sort(c)));
    return lia_unary(op, x, *lia);
  }
  if (row.smt == ops::Smt::Facts) {
    if (!is_float(x)) return std::nullopt;
    z3::func_decl f = c.function(("rml_libm!" + std::string(row.name)).c_str(), real_sort(c), real_sort(c));
    z3::expr y = f(x);
    add_facts(row.facts, x, y, facts);
    return y;
  }
  switch (op) {
    case ops::UnOp::Neg:
      if (is_float(x)) return wrap(c, Z3_mk_fpa_neg(c, x));
      if (is_bv64(x)) return -x;
      break;
    case ops::UnOp::Not:
      if (x.is_bool()) return !x;
      break;
    case ops::UnOp::Abs:
      if (is_float(x)) return wrap(c, Z3_mk_fpa_abs(c, x));
      if (is_bv64(x)) return z3::ite(z3::slt(x, c.bv_val(0, 64)), -x, x);  // wraps at INT64_MIN
      break;
    case ops::UnOp::Sqrt:
      if (is_float(x)) return wrap(c, Z3_mk_fpa_sqrt(c, rne(c), x));  // correctly rounded
      break;
    case ops::UnOp::Floor:
    case ops::UnOp::ToInt:
      if (is_float(x)) return lia ? int_of_bv64(to_int(x, op == ops::UnOp::Floor)) : to_int(x, op == ops::UnOp::Floor);
      break;
    case ops::UnOp::ToReal:
      if (is_bv64(x)) return wrap(c, Z3_mk_fpa_to_fp_signed(c, rne(c), x, real_sort(c)));
      break;
    case ops::UnOp::Exp:
    case ops::UnOp::Log:
    case ops::UnOp::Tanh:
    case ops::UnOp::Sin:
    case ops::UnOp::Cos:
    case ops::UnOp::Lgamma:
    case ops::UnOp::Digamma: break;  // Smt::Facts, above
  }
  return std::nullopt;
}

std::optional<z3::expr> encode_binary(ops::BinOp op, const z3::expr &x, const z3::expr &z, LiaOps *lia) {
  z3::context &c = x.ctx();
  if (x.get_sort().sort_kind() != z.get_sort().sort_kind()) return std::nullopt;
  if (is_rational(x)) return rational_binary(op, x, z);
  if (x.is_int()) return lia ? lia_binary(op, x, z, *lia) : std::nullopt;  // the LIA encodings
  if (is_float(x)) {
    auto nan = [&] { return z3::expr(c, Z3_mk_fpa_nan(c, real_sort(c))); };
    auto lt = [&](const z3::expr &a, const z3::expr &b) { return wrap(c, Z3_mk_fpa_lt(c, a, b)); };
    switch (op) {
      case ops::BinOp::Add: return wrap(c, Z3_mk_fpa_add(c, rne(c), x, z));
      case ops::BinOp::Sub: return wrap(c, Z3_mk_fpa_sub(c, rne(c), x, z));
      case ops::BinOp::Mul: return wrap(c, Z3_mk_fpa_mul(c, rne(c), x, z));
      case ops::BinOp::Div: return wrap(c, Z3_mk_fpa_div(c, rne(c), x, z));
      // ops::real_max / real_min: NaN if either is; else std::max(x, z) = x < z ? z : x and
      // std::min(x, z) = z < x ? z : x (which keeps x's zero when both are zeros).
      case ops::BinOp::Max: return z3::ite(x.mk_is_nan() || z.mk_is_nan(), nan(), z3::ite(lt(x, z), z, x));
      case ops::BinOp::Min: return z3::ite(x.mk_is_nan() || z.mk_is_nan(), nan(), z3::ite(lt(z, x), z, x));
      case ops::BinOp::Eq: return wrap(c, Z3_mk_fpa_eq(c, x, z));  // IEEE: NaN ≠ NaN, −0 = +0
      case ops::BinOp::Ne: return !wrap(c, Z3_mk_fpa_eq(c, x, z));
      case ops::BinOp::Lt: return lt(x, z);
      case ops::BinOp::Le: return wrap(c, Z3_mk_fpa_leq(c, x, z));
      case ops::BinOp::Gt: return wrap(c, Z3_mk_fpa_gt(c, x, z));
      case ops::BinOp::Ge: return wrap(c, Z3_mk_fpa_geq(c, x, z));
      case ops::BinOp::IDiv:
      case ops::BinOp::Mod:
      case ops::BinOp::And:
      case ops::BinOp::Or:
      case ops::BinOp::Xor:
      case ops::BinOp::Implies:
      case ops::BinOp::WrapUnsigned:
      case ops::BinOp::WrapSigned:
      case ops::BinOp::BitAnd:
      case ops::BinOp::BitOr:
      case ops::BinOp::ShiftLeft:
      case ops::BinOp::ShiftRight: break;
    }
    return std::nullopt;
  }
  if (x.is_bool()) {  // bools as 0/1 (ops::int_binary)
    switch (op) {
      case ops::BinOp::And: return x && z;
      case ops::BinOp::Or: return x || z;
      case ops::BinOp::Xor: return x != z;
      case ops::BinOp::Implies: return z3::implies(x, z);
      case ops::BinOp::Eq: return x == z;
      case ops::BinOp::Ne: return x != z;
      case ops::BinOp::Lt: return !x && z;
      case ops::BinOp::Le: return !x || z;
      case ops::BinOp::Gt: return x && !z;
      case ops::BinOp::Ge: return x || !z;
      default: return std::nullopt;
    }
  }
  if (!is_bv64(x)) return std::nullopt;
  z3::expr zero = c.bv_val(0, 64);
  switch (op) {  // ints: 64-bit two's complement, total (ops::int_binary)
    case ops::BinOp::Eq: return x == z;
    case ops::BinOp::Ne: return x != z;
    case ops::BinOp::Lt: return z3::slt(x, z);
    case ops::BinOp::Le: return z3::sle(x, z);
    case ops::BinOp::Gt: return z3::sgt(x, z);
    case ops::BinOp::Ge: return z3::sge(x, z);
    case ops::BinOp::Add: return x + z;
    case ops::BinOp::Sub: return x - z;
    case ops::BinOp::Mul: return x * z;
    case ops::BinOp::Mod: return z3::ite(z == zero, zero, z3::srem(x, z));  // srem(MIN, −1) = 0 too
    case ops::BinOp::Div:   // `/` on ints is div
    case ops::BinOp::IDiv:  // bvsdiv: truncates, wraps
      return z3::ite(z == zero, zero, x / z);
    case ops::BinOp::Max: return z3::ite(z3::slt(x, z), z, x);
    case ops::BinOp::Min: return z3::ite(z3::slt(z, x), z, x);
    // The bit operations of machine integers (ops::int_wrap_unsigned and the others): a
    // width given as a numeral (as core/normalize writes it) is an extraction.
    case ops::BinOp::WrapUnsigned:
    case ops::BinOp::WrapSigned: {
      bool is_signed = op == ops::BinOp::WrapSigned;
      int64_t n = 0;
      if (z.is_numeral_i64(n)) {
        if (n < 1 || n > 63) return x;
        z3::expr low = x.extract(static_cast<unsigned>(n - 1), 0);
        return is_signed ? z3::sext(low, static_cast<unsigned>(64 - n)) : z3::zext(low, static_cast<unsigned>(64 - n));
      }
      z3::expr one = c.bv_val(1, 64), mask = z3::shl(one, z) - one, half = z3::shl(one, z - one);
      z3::expr cut = is_signed ? ((x & mask) ^ half) - half : x & mask;
      return z3::ite(z3::sge(z, one) && z3::sle(z, c.bv_val(63, 64)), cut, x);
    }
    case ops::BinOp::BitAnd: return x & z;
    case ops::BinOp::BitOr: return x | z;
    case ops::BinOp::ShiftLeft: return z3::shl(x, z);    // a shift of 64 or more (or negative: unsigned, as large) gives 0
    case ops::BinOp::ShiftRight: return z3::ashr(x, z);  // ... and the sign
    case ops::BinOp::And:
    case ops::BinOp::Or:
    case ops::BinOp::Xor:
    case ops::BinOp::Implies: break;
  }
  return std::nullopt;
}

double real_of(z3::model &m, const z3::expr &v) {
  if (is_rational(v)) return std::stod(m.eval(v, true).get_decimal_string(20));
  if (m.eval(v.mk_is_nan(), true).is_true()) return std::numeric_limits<double>::quiet_NaN();
  z3::expr bits = m.eval(v.mk_to_ieee_bv(), true);
  uint64_t u = 0;
  bits.is_numeral_u64(u);
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}

}  // namespace rml::check
