// A lowered `fun` body (an ir::Term, array/lower) as a C++ function over flat row-major
// arrays, for rml compile's step classes. Each node of the term becomes the loop that
// ir::evaluate runs for it (array/ir/eval.cpp): the same element order, the same
// additions from zero, the operator table's scalar meanings (ops/scalar_ops.hpp), the
// same out-of-bounds rules (a read gives 0, a scatter drops the write). So the function
// computes what the oracle computes, bit for bit: lowering is exact against the reference
// evaluator (tests/array/lower), and this is ir::evaluate written out.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "array/ir/ir.hpp"

namespace rml::codegen {

// `void NAME(const T0 *__restrict__ in0, ..., T *__restrict__ rml_out)`: reals are double,
// ints and bools int64_t (bools 0/1), as in ir::Tensor; scalars are arrays of one element.
// rml_out must not overlap an operand (the classes write a variable that is not among its
// equation's operands, or a fresh block): the result is written into it as it is computed. Temporaries up to 4096 (128 KiB in all)
// elements live on the stack, larger ones in a thread_local buffer allocated once, so a
// call allocates nothing after the first. `comment` heads the function.
//
// With `io` an operand's index: the in-place variant, `void NAME(the other operands...,
// T *__restrict__ rml_out)` where rml_out holds operand `io` on entry and the result on
// return; "" unless that is shown to compute the same values (the operand has the
// result's type, rml_out is written only by the result's own fused loop, each element
// once, and that loop reads the operand only at the element it writes).
std::string emit_term_function(const std::string &name, const std::vector<std::pair<std::string, ir::Type>> &inputs,
                               const ir::Term &body, const std::string &comment, int io = -1);

// The C++ element type of an IR element: double or int64_t.
const char *ir_elem_type(ir::Elem e);

}  // namespace rml::codegen
