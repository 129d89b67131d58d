#pragma once
#include <string>

#include "syntax/ast.hpp"

namespace rml {

std::string print_expr(const Expr &e);
std::string print_type(const TypeSyntax &t);
std::string print_program(const Program &p);  // also `rml fmt`

}  // namespace rml
