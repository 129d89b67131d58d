// Elementwise operators on tensors: the table's scalar meanings (ops/scalar_ops.hpp)
// mapped over the elements, with the surface's scalar broadcast for binary operators (a
// rank-0 operand meets every element of the other). Shared by the reference evaluator
// (by surface name, eval.cpp) and the IR's evaluator (by opcode, ir/eval.cpp).
#pragma once
#include "array/tensor.hpp"
#include "ops/ops.hpp"

namespace rml::array {

// The operands are well typed for op (the checker or the IR builders ensured it).
Tensor elementwise_unary(ops::UnOp op, const Tensor &a);
// Throws std::invalid_argument on two non-scalar operands of different shapes.
Tensor elementwise_binary(ops::BinOp op, const Tensor &a, const Tensor &b);
// The same into `out`, which has the result's element type and shape already (a caller
// reusing its buffers: the stream runner); binary throws as above.
void elementwise_unary_into(ops::UnOp op, const Tensor &a, Tensor &out);
void elementwise_binary_into(ops::BinOp op, const Tensor &a, const Tensor &b, Tensor &out);
// The same loops on words (doubles, or int64_t for ints and bools) where they are: `in` the
// operands' element type, `res` the result's, n the result's elements; a scalar operand of
// a binary operator is broadcast.
void elementwise_unary_words(ops::UnOp op, Scalar in, Scalar res, size_t n, const void *a, void *out);
void elementwise_binary_words(ops::BinOp op, Scalar in, size_t n, const void *a, bool a_scalar, const void *b, bool b_scalar, void *out);

}  // namespace rml::array
