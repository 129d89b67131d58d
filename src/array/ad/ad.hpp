// Reverse-mode AD by symbolic dual arrays (array-ad.md §5–§6, seed 004 §6–§7).
// API contract used by the CLI (`rml grad`), the executor's tests and the benchmarks;
// the AD stage may add declarations below, but these entry points keep their meaning.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "array/ir/program.hpp"

namespace rml::ad {

using Inputs = std::vector<std::pair<std::string, ir::Type>>;

// The vectorised objective: simplify(bot(t)). t may contain build1.
ir::Term vectorise(const ir::Term &t);

// The closed (primal, gradient) program of a real-scalar objective t whose free
// variables are `inputs` (Fig. 21's wrapper): t is vectorised, differentiated by D into
// the extracted form, reversed symbolically with optimistic shares, and shareToLet
// turns the shares into lets. The result's inputs are `inputs` followed by the
// cotangent of the objective (a real scalar); outputs[0] is the value and outputs[1+k]
// the gradient of the k-th *real* input, in input order (int and bool inputs get none);
// output_names are "value" and the input names. Throws ir::IrError if t is not a real
// scalar or mentions variables outside `inputs`.
ir::Program gradient_program(const ir::Term &t, const Inputs &inputs);

}  // namespace rml::ad
