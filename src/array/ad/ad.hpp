// Reverse-mode AD by symbolic dual arrays (array-ad.md §5–§6, seed 004 §6–§7).
// API contract used by the CLI (`rml grad`), the executor's tests and the benchmarks;
// the AD stage may add declarations below, but these entry points keep their meaning.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "array/ir/eval.hpp"
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
// The same restricted to the real inputs named in `wrt` (rml grad --wrt): outputs[0] is
// the value, then their gradients in input order; binds only the others needed are gone.
ir::Program gradient_program(const ir::Term &t, const Inputs &inputs, const std::vector<std::string> &wrt);

// ---- additions of the AD stage ----

// Fig. 21 for a real objective of any shape: inputs ++ a cotangent of t's shape,
// outputs value then the vector–Jacobian product per real input. With vectorise_first
// false, t must already be free of build1 (bot is not applied; for tests of the later
// stages on hand-written bulk terms). gradient_program(t, in) = vjp_program(t, in) with
// a scalar t. The cotangent input is named "ctg" (fresh if an input has that name).
// Cotangents are dense: an infinite partial derivative in an element the output never
// reads still meets a zero cotangent, and 0·∞ makes that gradient NaN (the scalar path,
// which only visits reachable elements, gives a number there).
ir::Program vjp_program(const ir::Term &t, const Inputs &inputs, bool vectorise_first = true);

// Forward mode from the same Delta (eval0): inputs ++ one tangent per real input (named
// "d_<input>", or fresh if that clashes), outputs value then the Jacobian–vector product.
ir::Program jvp_program(const ir::Term &t, const Inputs &inputs, bool vectorise_first = true);

// Value and one gradient (VJP) per real input, in input order.
struct Gradient {
  ir::Tensor value;
  std::vector<ir::Tensor> grads;
};

// The runtime dual-array path (App. D's ADVal on tensors + the Fig. 17 evaluator): no
// symbolic stage, every primal and cotangent is a tensor. t is vectorised first.
Gradient runtime_gradient(const ir::Term &t, const Inputs &inputs, const std::vector<ir::Tensor> &args,
                          const ir::Tensor &ctg, bool vectorise_first = true);
// Forward mode on the same runtime tape: value and J·v (tangents per input; entries of
// non-real inputs are ignored).
std::pair<ir::Tensor, ir::Tensor> runtime_jvp(const ir::Term &t, const Inputs &inputs, const std::vector<ir::Tensor> &args,
                                              const std::vector<ir::Tensor> &tangents, bool vectorise_first = true);

// Plain scalar dual numbers (§2: Fig. 3's D per element, Fig. 5's sharing-aware reverse
// pass with Maps) on the original term, build1 and all: every real element is a dual
// number. The oracle the array paths are checked against.
struct ScalarStats {
  size_t shares = 0;                   // Share nodes created (IDs 1..shares)
  std::vector<int> body_visits;        // per ID (index 0 unused): how often backprop processed it
  size_t eval_calls = 0;               // reverse-pass eval calls
  // If set, receives every discrete decision of the evaluation in order: Int/Bool values,
  // the source position of every element an index/gather/transpose/... moves, scatter
  // targets, and which operand max/min picked. Two evaluations with equal traces run the
  // same smooth piece of the program (used to reject finite-difference samples that
  // straddle a cond/floor discontinuity).
  std::vector<int64_t> *trace = nullptr;
};
Gradient scalar_gradient(const ir::Term &t, const Inputs &inputs, const std::vector<ir::Tensor> &args,
                         const ir::Tensor &ctg, ScalarStats *stats = nullptr);

}  // namespace rml::ad
