#include "array/elementwise.hpp"

#include <stdexcept>

#include "ops/scalar_ops.hpp"

namespace rml::array {

using ops::BinOp;
using ops::Typing;
using ops::UnOp;

Tensor elementwise_unary(UnOp op, const Tensor &a) {
  std::optional<Scalar> re = ops::result_type(ops::row(op).typing, a.elem);
  Tensor out = Tensor::zeros(re.value_or(a.elem), a.shape);
  elementwise_unary_into(op, a, out);
  return out;
}

void elementwise_unary_into(UnOp op, const Tensor &a, Tensor &out) {
  size_t n = a.numel();
  if (a.elem == Scalar::Real) {
    if (out.elem == Scalar::Int)  // floor, int
      for (size_t k = 0; k < n; ++k) out.i[k] = ops::real_to_int(op, a.r[k]);
    else
      for (size_t k = 0; k < n; ++k) out.r[k] = ops::real_unary(op, a.r[k]);
  } else if (out.elem == Scalar::Real) {  // real(i)
    for (size_t k = 0; k < n; ++k) out.r[k] = static_cast<double>(a.i[k]);
  } else {
    for (size_t k = 0; k < n; ++k) out.i[k] = ops::int_unary(op, a.i[k]);
  }
}

Tensor elementwise_binary(BinOp op, const Tensor &a, const Tensor &b) {
  Tensor out = Tensor::zeros(ops::is_comparison(op) ? Scalar::Bool : a.elem, a.shape.empty() ? b.shape : a.shape);
  elementwise_binary_into(op, a, b, out);
  return out;
}

void elementwise_binary_into(BinOp op, const Tensor &a, const Tensor &b, Tensor &out) {
  if (!a.shape.empty() && !b.shape.empty() && a.shape != b.shape)
    throw std::invalid_argument(std::string("shape mismatch in '") + ops::op_name(op) + "'");
  bool cmp = ops::is_comparison(op);
  size_t n = out.numel();
  // Element k of a (possibly broadcast scalar) operand.
  size_t sa = a.shape.empty() ? 0 : 1, sb = b.shape.empty() ? 0 : 1;
  if (a.elem == Scalar::Real) {
    if (cmp) {
      for (size_t k = 0; k < n; ++k) out.i[k] = ops::compare(op, a.r[k * sa], b.r[k * sb]);
    } else {
      // The loop per operator (the table's meaning, op a constant in each): the compiler
      // vectorises + - * / then, where the switch inside the loop kept it scalar.
      auto loop = [&](auto OP) {
        for (size_t k = 0; k < n; ++k) out.r[k] = ops::real_binary(OP(), a.r[k * sa], b.r[k * sb]);
      };
      switch (op) {
        case BinOp::Add: loop([] { return BinOp::Add; }); break;
        case BinOp::Sub: loop([] { return BinOp::Sub; }); break;
        case BinOp::Mul: loop([] { return BinOp::Mul; }); break;
        case BinOp::Div: loop([] { return BinOp::Div; }); break;
        default:
          for (size_t k = 0; k < n; ++k) out.r[k] = ops::real_binary(op, a.r[k * sa], b.r[k * sb]);
      }
    }
  } else {
    for (size_t k = 0; k < n; ++k) out.i[k] = ops::int_binary(op, a.i[k * sa], b.i[k * sb]);
  }
}

}  // namespace rml::array
