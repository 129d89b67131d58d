// Values of the function layer: dense row-major tensors of int, bool or real.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "ops/scalar_ops.hpp"
#include "syntax/ast.hpp"

namespace rml::array {

struct Tensor {
  Scalar elem = Scalar::Real;
  std::vector<int64_t> shape;  // empty: a scalar
  std::vector<double> r;       // elem == Real
  std::vector<int64_t> i;      // elem == Int or Bool (0/1)

  size_t numel() const;
  static Tensor zeros(Scalar e, std::vector<int64_t> shape);
  static Tensor real(double v);
  static Tensor integer(int64_t v);
  static Tensor boolean(bool v);
  double get_real(size_t k) const { return elem == Scalar::Real ? r[k] : static_cast<double>(i[k]); }
  bool operator==(const Tensor &o) const;  // bitwise on reals (NaN == NaN)
  std::string str() const;                 // "2.5", "[1.0, 2.0]", "[1, 2]", "[[T, F], [F, T]]"
};

// The one spelling of a real, wherever rml prints one (tables, CSV, JSON, messages): the
// shortest decimal that reads back (strtod) to the same double, with ".0" when it would
// otherwise read as an int ("1.0", "0.1", "1e+16", "-0.0"); "nan", "inf", "-inf".
std::string format_real(double v);

// Integer arithmetic is total and wraps (two's complement); x div 0 = x mod 0 = 0
// (semantics/semantics.md §3: the function layer never fails). Defined with the
// operator table (ops/scalar_ops.hpp).
using ops::int_add;
using ops::int_div;
using ops::int_mod;
using ops::int_mul;
using ops::int_sub;

}  // namespace rml::array
