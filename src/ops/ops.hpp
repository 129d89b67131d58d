// The operator table: one row per elementwise operator or builtin of the
// function layer, read by every stage that needs to know what an operator is. A row
// gives the operator's spellings (surface and IR), arity, typing rule, derivative
// recipe and SMT treatment; its scalar meaning is in scalar_ops.hpp (one definition for
// the reference evaluator, the executor and the oracle) and its derivative recipe is
// instantiated by derivative.hpp (for the symbolic AD and the scalar duals alike).
// Adding an operator: an enumerator, a row here, a case in scalar_ops.hpp; the compiler
// (-Wswitch, the static_asserts below) names every other place that must decide.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <utility>

#include "ops/scalar.hpp"

namespace rml::ops {

inline constexpr double kInf = std::numeric_limits<double>::infinity();

enum class UnOp : uint8_t { Neg, Not, Exp, Log, Sqrt, Tanh, Abs, Sin, Cos, Floor, ToReal, ToInt, Lgamma, Digamma };
enum class BinOp : uint8_t {
  Add, Sub, Mul, Div, IDiv, Mod, Max, Min, Eq, Ne, Lt, Le, Gt, Ge, And, Or, Xor, Implies,
  // On 64-bit ints, produced by core/normalize for Kind 2's machine integers (IR-only):
  // x wrapped to n bits (unsigned, signed), bitwise and/or, shifts by n bits.
  WrapUnsigned, WrapSigned, BitAnd, BitOr, ShiftLeft, ShiftRight,
};

// How the element type of the result follows from the operands' (equal) element type.
enum class Typing : uint8_t {
  NumericSame,    // int → int, real → real (neg, abs, + - * / max min)
  RealSame,       // real → real (exp, log, ...)
  BoolSame,       // bool → bool (not, and, or, xor)
  IntSame,        // int → int (div, mod)
  RealToInt,      // real → int (floor, int)
  IntToReal,      // int → real (real)
  AnyToBool,      // any → bool (= <>)
  NumericToBool,  // int or real → bool (< <= > >=)
};

// The result element type of an operator of this typing on operands of type `in`, or
// nothing when the rule rejects `in`.
constexpr std::optional<Scalar> result_type(Typing t, Scalar in) {
  bool numeric = in != Scalar::Bool;
  switch (t) {
    case Typing::NumericSame: return numeric ? std::optional<Scalar>(in) : std::nullopt;
    case Typing::RealSame: return in == Scalar::Real ? std::optional<Scalar>(in) : std::nullopt;
    case Typing::BoolSame: return in == Scalar::Bool ? std::optional<Scalar>(in) : std::nullopt;
    case Typing::IntSame: return in == Scalar::Int ? std::optional<Scalar>(in) : std::nullopt;
    case Typing::RealToInt: return in == Scalar::Real ? std::optional<Scalar>(Scalar::Int) : std::nullopt;
    case Typing::IntToReal: return in == Scalar::Int ? std::optional<Scalar>(Scalar::Real) : std::nullopt;
    case Typing::AnyToBool: return Scalar::Bool;
    case Typing::NumericToBool: return numeric ? std::optional<Scalar>(Scalar::Bool) : std::nullopt;
  }
  return std::nullopt;
}

// Where the surface language can write the operator.
enum class Spelling : uint8_t {
  Operator,  // a symbol or keyword of the grammar: `-x`, `not b`, `a + b`, `a div b`
  Builtin,   // a builtin function call: `exp(x)`, `max(a, b)`, `real(i)`
  IrOnly,    // produced by the passes only (sin, cos: derivatives in tests and proofs)
};

// The derivative of a unary real operator, d f(x)/dx, as a recipe over x and y = f(x)
// (derivative.hpp instantiates it for the symbolic AD and for the scalar duals).
enum class Deriv : uint8_t {
  NotReal,     // argument or result not real: no real derivative flows (not, floor, real, int)
  MinusOne,    // -1
  Y,           // y                (exp)
  InvX,        // 1 / x            (log)
  HalfInvY,    // 0.5 / y          (sqrt)
  OneMinusY2,  // 1 - y²           (tanh)
  OpOfX,       // g(x), g = dop    (sin: cos; lgamma: digamma)
  NegOpOfX,    // -g(x), g = dop   (cos: -sin)
  SignX,       // sign x, 0 at 0 and NaN (abs)
  Missing,     // not available: differentiating is an error that names the operator
};

// How checker/smt_model.cpp encodes an application (semantics/real_encoding.md): ints
// as 64-bit vectors, bools as booleans, reals as IEEE-754 binary64 floats of Z3's
// floating-point theory (round to nearest, ties to even, as the oracle computes).
enum class Smt : uint8_t {
  Encoded,  // encoded exactly (its case in checker/smt_reals.cpp or smt_model.cpp)
  Facts,    // a C library function (exp, tanh, ...): an uninterpreted function of its argument
            // that the checker knows only through the row's RealFacts
};

// When a real builtin's result is NaN (the argument x not NaN unless said).
enum class NanWhen : uint8_t {
  NanArg,            // exactly when x is NaN
  NanArgOrInfinite,  // exactly when x is NaN or infinite (sin, cos)
  NanArgOrBelow,     // exactly when x is NaN or x < RealFacts::domain_lo (log)
  Propagates,        // when x is NaN; otherwise nothing is known
};

// What rml-check may assume of a C library function, for every double argument: each fact
// holds of glibc's results (tests/ops/test_real_facts.cpp checks them on boundaries, near
// the fixed points and on random doubles). A function marked `increasing` is monotone
// non-decreasing; with the exact `points` (f(a) = b) that gives x >= a => f(x) >= b and
// x <= a => f(x) <= b, the facts the checker uses (a pivot per point).
struct RealFacts {
  double lo = -kInf, hi = kInf;  // a result that is not NaN lies in [lo, hi]
  NanWhen nan = NanWhen::Propagates;
  double domain_lo = -kInf;      // NanWhen::NanArgOrBelow
  bool increasing = false;
  std::array<std::pair<double, double>, 3> points{};  // f(a) = b, the first `npoints`
  int npoints = 0;
};

struct UnaryRow {
  UnOp op;
  std::string_view name;     // the IR's spelling (ir::print, messages): "neg", "exp"
  std::string_view surface;  // the surface spelling: "-", "exp" ("" when IrOnly)
  Spelling spelling;
  Typing typing;
  Deriv deriv;
  UnOp dop;  // OpOfX / NegOpOfX: the operator g of the derivative
  Smt smt;
  std::string_view missing_why;  // Deriv::Missing: what is missing, for the error
  RealFacts facts{};             // Smt::Facts: what the checker knows of the result
};

struct BinaryRow {
  BinOp op;
  std::string_view name;  // the surface and IR spelling: "+", "div", "max", "="
  Spelling spelling;
  Typing typing;
  Smt smt;
};

inline constexpr std::array<UnaryRow, 14> kUnary{{
    {UnOp::Neg, "neg", "-", Spelling::Operator, Typing::NumericSame, Deriv::MinusOne, UnOp::Neg, Smt::Encoded, {}},
    {UnOp::Not, "not", "not", Spelling::Operator, Typing::BoolSame, Deriv::NotReal, UnOp::Not, Smt::Encoded, {}},
    {UnOp::Exp, "exp", "exp", Spelling::Builtin, Typing::RealSame, Deriv::Y, UnOp::Exp, Smt::Facts, {}, {0.0, kInf, NanWhen::NanArg, -kInf, true, {{{0.0, 1.0}, {-kInf, 0.0}, {kInf, kInf}}}, 3}},
    {UnOp::Log, "log", "log", Spelling::Builtin, Typing::RealSame, Deriv::InvX, UnOp::Log, Smt::Facts, {}, {-kInf, kInf, NanWhen::NanArgOrBelow, 0.0, true, {{{1.0, 0.0}, {0.0, -kInf}, {kInf, kInf}}}, 3}},
    {UnOp::Sqrt, "sqrt", "sqrt", Spelling::Builtin, Typing::RealSame, Deriv::HalfInvY, UnOp::Sqrt, Smt::Encoded, {}},
    {UnOp::Tanh, "tanh", "tanh", Spelling::Builtin, Typing::RealSame, Deriv::OneMinusY2, UnOp::Tanh, Smt::Facts, {}, {-1.0, 1.0, NanWhen::NanArg, -kInf, true, {{{0.0, 0.0}, {-kInf, -1.0}, {kInf, 1.0}}}, 3}},
    {UnOp::Abs, "abs", "abs", Spelling::Builtin, Typing::NumericSame, Deriv::SignX, UnOp::Abs, Smt::Encoded, {}},
    {UnOp::Sin, "sin", "", Spelling::IrOnly, Typing::RealSame, Deriv::OpOfX, UnOp::Cos, Smt::Facts, {}, {-1.0, 1.0, NanWhen::NanArgOrInfinite, -kInf, false, {{{0.0, 0.0}}}, 1}},
    {UnOp::Cos, "cos", "", Spelling::IrOnly, Typing::RealSame, Deriv::NegOpOfX, UnOp::Sin, Smt::Facts, {}, {-1.0, 1.0, NanWhen::NanArgOrInfinite, -kInf, false, {{{0.0, 1.0}}}, 1}},
    {UnOp::Floor, "floor", "floor", Spelling::Builtin, Typing::RealToInt, Deriv::NotReal, UnOp::Floor, Smt::Encoded, {}},
    {UnOp::ToReal, "real", "real", Spelling::Builtin, Typing::IntToReal, Deriv::NotReal, UnOp::ToReal, Smt::Encoded, {}},
    {UnOp::ToInt, "int", "int", Spelling::Builtin, Typing::RealToInt, Deriv::NotReal, UnOp::ToInt, Smt::Encoded, {}},
    {UnOp::Lgamma, "lgamma", "lgamma", Spelling::Builtin, Typing::RealSame, Deriv::OpOfX, UnOp::Digamma, Smt::Facts, {}, {-kInf, kInf, NanWhen::NanArg, -kInf, false, {{{1.0, 0.0}, {2.0, 0.0}}}, 2}},
    {UnOp::Digamma, "digamma", "digamma", Spelling::Builtin, Typing::RealSame, Deriv::Missing, UnOp::Digamma, Smt::Facts,
     "its derivative, trigamma, is not implemented", {}},
}};

inline constexpr std::array<BinaryRow, 24> kBinary{{
    {BinOp::Add, "+", Spelling::Operator, Typing::NumericSame, Smt::Encoded},
    {BinOp::Sub, "-", Spelling::Operator, Typing::NumericSame, Smt::Encoded},
    {BinOp::Mul, "*", Spelling::Operator, Typing::NumericSame, Smt::Encoded},
    {BinOp::Div, "/", Spelling::Operator, Typing::NumericSame, Smt::Encoded},  // on ints: div
    {BinOp::IDiv, "div", Spelling::Operator, Typing::IntSame, Smt::Encoded},
    {BinOp::Mod, "mod", Spelling::Operator, Typing::IntSame, Smt::Encoded},
    {BinOp::Max, "max", Spelling::Builtin, Typing::NumericSame, Smt::Encoded},
    {BinOp::Min, "min", Spelling::Builtin, Typing::NumericSame, Smt::Encoded},
    {BinOp::Eq, "=", Spelling::Operator, Typing::AnyToBool, Smt::Encoded},
    {BinOp::Ne, "<>", Spelling::Operator, Typing::AnyToBool, Smt::Encoded},
    {BinOp::Lt, "<", Spelling::Operator, Typing::NumericToBool, Smt::Encoded},
    {BinOp::Le, "<=", Spelling::Operator, Typing::NumericToBool, Smt::Encoded},
    {BinOp::Gt, ">", Spelling::Operator, Typing::NumericToBool, Smt::Encoded},
    {BinOp::Ge, ">=", Spelling::Operator, Typing::NumericToBool, Smt::Encoded},
    {BinOp::And, "and", Spelling::Operator, Typing::BoolSame, Smt::Encoded},
    {BinOp::Or, "or", Spelling::Operator, Typing::BoolSame, Smt::Encoded},
    {BinOp::Xor, "xor", Spelling::Operator, Typing::BoolSame, Smt::Encoded},
    {BinOp::Implies, "=>", Spelling::Operator, Typing::BoolSame, Smt::Encoded},  // Lustre: not a or b
    {BinOp::WrapUnsigned, "wrapu", Spelling::IrOnly, Typing::IntSame, Smt::Encoded},
    {BinOp::WrapSigned, "wraps", Spelling::IrOnly, Typing::IntSame, Smt::Encoded},
    {BinOp::BitAnd, "land", Spelling::IrOnly, Typing::IntSame, Smt::Encoded},
    {BinOp::BitOr, "lor", Spelling::IrOnly, Typing::IntSame, Smt::Encoded},
    {BinOp::ShiftLeft, "shl", Spelling::IrOnly, Typing::IntSame, Smt::Encoded},
    {BinOp::ShiftRight, "ashr", Spelling::IrOnly, Typing::IntSame, Smt::Encoded},
}};

// Row k describes the operator whose enumerator is k: lookups index the table directly.
constexpr bool rows_in_order() {
  for (size_t k = 0; k < kUnary.size(); ++k)
    if (static_cast<size_t>(kUnary[k].op) != k) return false;
  for (size_t k = 0; k < kBinary.size(); ++k)
    if (static_cast<size_t>(kBinary[k].op) != k) return false;
  return true;
}
static_assert(rows_in_order(), "the rows of kUnary and kBinary must follow the enumerators' order");
static_assert(kUnary.back().op == UnOp::Digamma && kBinary.back().op == BinOp::ShiftRight,
              "a new enumerator needs its row (and the array's size)");

constexpr const UnaryRow &row(UnOp op) { return kUnary[static_cast<size_t>(op)]; }
constexpr const BinaryRow &row(BinOp op) { return kBinary[static_cast<size_t>(op)]; }
constexpr const char *op_name(UnOp op) { return row(op).name.data(); }
constexpr const char *op_name(BinOp op) { return row(op).name.data(); }
constexpr bool is_comparison(BinOp op) {
  return row(op).typing == Typing::AnyToBool || row(op).typing == Typing::NumericToBool;
}

// Surface lookups (the evaluator, the lowering, the oracle, the SMT model): the operator
// a surface name denotes with one or two operands; IR-only operators have no surface name.
std::optional<UnOp> find_unary(std::string_view surface);
std::optional<BinOp> find_binary(std::string_view surface);
// Lookups by IR name (op_name), e.g. for tests and printers that read names back.
std::optional<UnOp> find_unary_ir(std::string_view name);
std::optional<BinOp> find_binary_ir(std::string_view name);

// Whether `name` is a builtin function of the table (`exp`, `max`, `real`, ...).
bool is_builtin(std::string_view name);

}  // namespace rml::ops
