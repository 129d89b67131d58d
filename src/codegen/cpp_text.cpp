#include "codegen/cpp_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdint>

namespace rml::codegen {

std::string literal(const core::Literal &l) {
  switch (l.type) {
    case Scalar::Real: return real_literal(l.r);
    case Scalar::Int:
      if (l.i == INT64_MIN) return "(-9223372036854775807LL - 1)";
      return "int64_t{" + std::to_string(l.i) + "}";
    case Scalar::Bool: return l.b ? "true" : "false";
  }
  return "";
}

std::string real_literal(double v) {
  if (std::isnan(v)) return std::signbit(v) ? "-std::numeric_limits<double>::quiet_NaN()" : "std::numeric_limits<double>::quiet_NaN()";
  if (std::isinf(v)) return v > 0 ? "std::numeric_limits<double>::infinity()" : "-std::numeric_limits<double>::infinity()";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v);  // shortest round trip
  std::string s(buf, r.ptr);
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

const char *unop_enumerator(ops::UnOp op) {
  switch (op) {
    case ops::UnOp::Neg: return "Neg";
    case ops::UnOp::Not: return "Not";
    case ops::UnOp::Exp: return "Exp";
    case ops::UnOp::Log: return "Log";
    case ops::UnOp::Sqrt: return "Sqrt";
    case ops::UnOp::Tanh: return "Tanh";
    case ops::UnOp::Abs: return "Abs";
    case ops::UnOp::Sin: return "Sin";
    case ops::UnOp::Cos: return "Cos";
    case ops::UnOp::Floor: return "Floor";
    case ops::UnOp::ToReal: return "ToReal";
    case ops::UnOp::ToInt: return "ToInt";
    case ops::UnOp::Lgamma: return "Lgamma";
    case ops::UnOp::Digamma: return "Digamma";
  }
  return "";
}

const char *binop_enumerator(ops::BinOp op) {
  switch (op) {
    case ops::BinOp::Add: return "Add";
    case ops::BinOp::Sub: return "Sub";
    case ops::BinOp::Mul: return "Mul";
    case ops::BinOp::Div: return "Div";
    case ops::BinOp::IDiv: return "IDiv";
    case ops::BinOp::Mod: return "Mod";
    case ops::BinOp::Max: return "Max";
    case ops::BinOp::Min: return "Min";
    case ops::BinOp::Eq: return "Eq";
    case ops::BinOp::Ne: return "Ne";
    case ops::BinOp::Lt: return "Lt";
    case ops::BinOp::Le: return "Le";
    case ops::BinOp::Gt: return "Gt";
    case ops::BinOp::Ge: return "Ge";
    case ops::BinOp::And: return "And";
    case ops::BinOp::Or: return "Or";
    case ops::BinOp::Xor: return "Xor";
    case ops::BinOp::Implies: return "Implies";
    case ops::BinOp::WrapUnsigned: return "WrapUnsigned";
    case ops::BinOp::WrapSigned: return "WrapSigned";
    case ops::BinOp::BitAnd: return "BitAnd";
    case ops::BinOp::BitOr: return "BitOr";
    case ops::BinOp::ShiftLeft: return "ShiftLeft";
    case ops::BinOp::ShiftRight: return "ShiftRight";
  }
  return "";
}

}  // namespace rml::codegen
