// The element types of the language (int, bool, real): the one enum every stage shares.
// It lives here, in the leaf library of the operator table, so that the table can state
// its typing rules without depending on the front end; syntax/ast.hpp re-exports it as
// rml::Scalar.
#pragma once
#include <cstdint>

namespace rml::ops {

enum class Scalar : uint8_t { Int, Bool, Real };

constexpr const char *scalar_name(Scalar s) {
  switch (s) {
    case Scalar::Int: return "int";
    case Scalar::Bool: return "bool";
    case Scalar::Real: return "real";
  }
  return "?";
}

}  // namespace rml::ops
