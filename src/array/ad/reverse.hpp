// The reverse pass over a Delta tape (array-ad.md §5 Fig. 17, §6.3 Fig. 19) and the
// forward pass eval0 (Jacobian–vector products from the same Delta, §10.4).
//
// backprop is a sweep over a dense accum array from the highest tape position down,
// skipping empty entries; a Share defers its cotangent to that sweep, so each Share's
// body is processed once whatever its fan-out (Fig. 5's complexity without the Map).
#pragma once
#include <optional>
#include <vector>

#include "array/ad/delta.hpp"
#include "array/ir/eval.hpp"

namespace rml::ad {

struct ReverseStats {
  size_t visits = 0;             // eval calls: Delta nodes visited
  size_t shares_processed = 0;   // Share bodies processed by backprop
  std::vector<int> share_visits;  // per tape position: how often its body was processed
  int64_t cotangent_shares = 0;  // genID_AST calls (symbolic pass)
};

// Fig. 19: cotangents are IR terms; `share` (fresh monotone IDs from 1) protects each
// cotangent that Add or LitArray duplicates. Result: per input number, its accumulated
// cotangent term (null if it received none). Accumulation is `new .+ old`, as Haskell's
// insertWith (+) does, which gives the exact term of §6.3.
std::vector<ir::Term> reverse_pass(const Tape &tape, DeltaId root, const ir::Term &ctg, size_t n_inputs,
                                   ReverseStats *stats = nullptr);

// Fig. 17 on tensors. Payload terms are evaluated in `env` (empty for a runtime tape).
std::vector<std::optional<ir::Tensor>> reverse_pass_at(const Tape &tape, DeltaId root, const ir::Tensor &ctg,
                                                       size_t n_inputs, const ir::Bindings &env = {},
                                                       ReverseStats *stats = nullptr);

// eval0: the tangent of root given a tangent per input (entries of non-real inputs are
// ignored). The symbolic version wraps each Share's tangent in `share` (IDs increasing
// with tape position, so shareToLet orders the lets correctly).
ir::Term forward_pass(const Tape &tape, DeltaId root, const std::vector<ir::Term> &input_tangents);
ir::Tensor forward_pass_at(const Tape &tape, DeltaId root, const std::vector<ir::Tensor> &input_tangents,
                           const ir::Bindings &env = {});

}  // namespace rml::ad
