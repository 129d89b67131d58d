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
  elementwise_unary_words(op, a.elem, out.elem, a.numel(), a.elem == Scalar::Real ? static_cast<const void *>(a.r.data()) : a.i.data(),
                          out.elem == Scalar::Real ? static_cast<void *>(out.r.data()) : out.i.data());
}

void elementwise_unary_words(UnOp op, Scalar in, Scalar res, size_t n, const void *a, void *out) {
  const double *ar = static_cast<const double *>(a);
  const int64_t *ai = static_cast<const int64_t *>(a);
  double *rr = static_cast<double *>(out);
  int64_t *ri = static_cast<int64_t *>(out);
  if (in == Scalar::Real) {
    if (res == Scalar::Int)  // floor, int
      for (size_t k = 0; k < n; ++k) ri[k] = ops::real_to_int(op, ar[k]);
    else
      for (size_t k = 0; k < n; ++k) rr[k] = ops::real_unary(op, ar[k]);
  } else if (res == Scalar::Real) {  // real(i)
    for (size_t k = 0; k < n; ++k) rr[k] = static_cast<double>(ai[k]);
  } else {
    for (size_t k = 0; k < n; ++k) ri[k] = ops::int_unary(op, ai[k]);
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
  auto words = [](const Tensor &t) { return t.elem == Scalar::Real ? static_cast<const void *>(t.r.data()) : t.i.data(); };
  elementwise_binary_words(op, a.elem, out.numel(), words(a), a.shape.empty(), words(b), b.shape.empty(),
                           out.elem == Scalar::Real ? static_cast<void *>(out.r.data()) : out.i.data());
}

void elementwise_binary_words(BinOp op, Scalar in, size_t n, const void *a, bool a_scalar, const void *b, bool b_scalar, void *out) {
  const bool cmp = ops::is_comparison(op);
  // Element k of a (possibly broadcast scalar) operand.
  const size_t sa = a_scalar ? 0 : 1, sb = b_scalar ? 0 : 1;
  const double *ar = static_cast<const double *>(a), *br = static_cast<const double *>(b);
  const int64_t *ai = static_cast<const int64_t *>(a), *bi = static_cast<const int64_t *>(b);
  double *rr = static_cast<double *>(out);
  int64_t *ri = static_cast<int64_t *>(out);
  if (in == Scalar::Real) {
    if (cmp) {
      for (size_t k = 0; k < n; ++k) ri[k] = ops::compare(op, ar[k * sa], br[k * sb]);
    } else {
      // The loop per operator (the table's meaning, op a constant in each): the compiler
      // vectorises + - * / then, where the switch inside the loop kept it scalar.
      auto loop = [&](auto OP) {
        for (size_t k = 0; k < n; ++k) rr[k] = ops::real_binary(OP(), ar[k * sa], br[k * sb]);
      };
      switch (op) {
        case BinOp::Add: loop([] { return BinOp::Add; }); break;
        case BinOp::Sub: loop([] { return BinOp::Sub; }); break;
        case BinOp::Mul: loop([] { return BinOp::Mul; }); break;
        case BinOp::Div: loop([] { return BinOp::Div; }); break;
        default:
          for (size_t k = 0; k < n; ++k) rr[k] = ops::real_binary(op, ar[k * sa], br[k * sb]);
      }
    }
  } else {
    for (size_t k = 0; k < n; ++k) ri[k] = ops::int_binary(op, ai[k * sa], bi[k * sb]);
  }
}

}  // namespace rml::array
