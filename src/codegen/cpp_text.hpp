// Spellings shared by the C++ that rml compile writes: the operator table's enumerators
// as the generated code names them (rml::ops::UnOp::Tanh), and reals as C++ literals.
#pragma once
#include <string>

#include "ops/ops.hpp"

namespace rml::codegen {

const char *unop_enumerator(ops::UnOp op);   // "Tanh"
const char *binop_enumerator(ops::BinOp op); // "Add"
// The shortest literal that reads back to v ("0.5", "1.0", "1e+300"), and the
// numeric_limits expressions for NaN and the infinities.
std::string real_literal(double v);

}  // namespace rml::codegen
