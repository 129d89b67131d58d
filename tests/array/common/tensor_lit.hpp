// Literal tensors for the array tests (one definition for every stage's tests). The
// element count must match the shape: a miscounted literal is a bug in the test.
#pragma once
#include <stdexcept>
#include <vector>

#include "array/ir/ir.hpp"

namespace rml::ir_test {

inline ir::Tensor literal(ir::Elem e, ir::Shape s, std::vector<double> r, std::vector<int64_t> i) {
  ir::Tensor t = ir::Tensor::zeros(e, std::move(s));
  size_t n = e == ir::Elem::Real ? r.size() : i.size();
  if (n != t.numel()) throw std::logic_error("tensor literal: wrong element count");
  if (e == ir::Elem::Real) t.r = std::move(r);
  else t.i = std::move(i);
  return t;
}
inline ir::Tensor reals(ir::Shape s, std::vector<double> v) { return literal(ir::Elem::Real, std::move(s), std::move(v), {}); }
inline ir::Tensor ints(ir::Shape s, std::vector<int64_t> v) { return literal(ir::Elem::Int, std::move(s), {}, std::move(v)); }
inline ir::Tensor bools(ir::Shape s, std::vector<int64_t> v) { return literal(ir::Elem::Bool, std::move(s), {}, std::move(v)); }

}  // namespace rml::ir_test
