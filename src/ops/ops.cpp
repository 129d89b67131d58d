#include "ops/ops.hpp"

namespace rml::ops {

std::optional<UnOp> find_unary(std::string_view surface) {
  for (auto &r : kUnary)
    if (r.spelling != Spelling::IrOnly && r.surface == surface) return r.op;
  return std::nullopt;
}

std::optional<BinOp> find_binary(std::string_view surface) {
  for (auto &r : kBinary)
    if (r.spelling != Spelling::IrOnly && r.name == surface) return r.op;
  return std::nullopt;
}

std::optional<UnOp> find_unary_ir(std::string_view name) {
  for (auto &r : kUnary)
    if (r.name == name) return r.op;
  return std::nullopt;
}

std::optional<BinOp> find_binary_ir(std::string_view name) {
  for (auto &r : kBinary)
    if (r.name == name) return r.op;
  return std::nullopt;
}

bool is_builtin(std::string_view name) {
  for (auto &r : kUnary)
    if (r.spelling == Spelling::Builtin && r.surface == name) return true;
  for (auto &r : kBinary)
    if (r.spelling == Spelling::Builtin && r.name == name) return true;
  return false;
}

}  // namespace rml::ops
