// Reference evaluator of the IR: the direct semantics of array-ad.md §1 (strict cond,
// out-of-bounds index/gather read 0, out-of-bounds scatter writes are dropped, scatter
// adds on collisions). Elementwise operators share their definitions with the surface
// evaluator (src/array/eval.cpp), so the two cannot drift apart. `share` is memoised by
// id. This is the specification every other path (bot, simplifier, AD, executor) is
// tested against; it is written for obviousness, not speed.
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "array/ir/ir.hpp"

namespace rml::ir {

using Bindings = std::vector<std::pair<std::string, Tensor>>;

Tensor evaluate(const Term &t, const Bindings &inputs);

// The elementwise operators on equal-shape tensors (also used by other back ends).
Tensor apply_unary(UnOp op, const Tensor &a);
Tensor apply_binary(BinOp op, const Tensor &a, const Tensor &b);

// Row-major helpers shared with the passes' tests.
bool next_index(std::vector<int64_t> &ix, const Shape &shape);

}  // namespace rml::ir
