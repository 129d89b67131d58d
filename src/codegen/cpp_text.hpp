// Spellings shared by the C++ that rml compile writes: the operator table's enumerators
// as the generated code names them (rml::ops::UnOp::Tanh), and literals.
#pragma once
#include <string>

#include "core/normalize.hpp"
#include "ops/ops.hpp"

namespace rml::codegen {

const char *unop_enumerator(ops::UnOp op);   // "Tanh"
const char *binop_enumerator(ops::BinOp op); // "Add"
// The shortest literal that reads back to v ("0.5", "1.0", "1e+300"), and the
// numeric_limits expressions for NaN and the infinities.
std::string real_literal(double v);
// A scalar literal as C++: a real as above, an int as int64_t{n} (INT64_MIN as an
// expression), a bool as true/false.
std::string literal(const core::Literal &l);

}  // namespace rml::codegen
