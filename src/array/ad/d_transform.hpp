// The transformation D on bulk terms (array-ad.md §5 Figs. 14–15, §6.2 Eq. 6, App. D),
// producing the extracted form directly: ANF primal lets, the primal result and a
// symbolic Delta on a tape. Real operations get `Share`; variables and constants do
// not; Int/Bool operations get no Delta. Index terms and index functions are translated
// by D′ (free variables replaced by their primals) and never differentiated. A real
// `cond b u v` has the Delta of `index [u,v] [cond b 0 1]` (§6.2 [REC]).
#pragma once
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "array/ad/ad.hpp"
#include "array/ad/delta.hpp"

namespace rml::ad {

// Eq. 6: `do let <binds>; ids; return (primal, delta)`, IDs being tape positions.
struct Extracted {
  Inputs inputs;
  Tape tape;
  std::vector<std::pair<std::string, ir::Term>> binds;  // ANF primal lets, in order
  ir::Term primal;                                      // the primal result (may use binds)
  DeltaId delta = -1;                                   // Delta of the result (real results)
  std::vector<DeltaId> input_deltas;                    // per input: its Input node, -1 if not real
};

// D on a term without build1 whose free variables are among `inputs`. Throws
// ir::IrError on build1, unbound variables or ill-typed terms. With `inline_single_use`,
// primal lets used once (outside index functions and the Delta) are inlined, which
// gives the paper's `return (sumOuter (x1 .* x2), ...)` of Fig. 18.
Extracted differentiate(const ir::Term &t, const Inputs &inputs, bool inline_single_use = true);

// The same interpretation with concrete primals (App. D's ADVal on tensors, §10.2 step
// 9): every primal is evaluated at once, Scale holds constants and index terms are
// closed. The result's binds are empty and primal is a constant.
Extracted differentiate_at(const ir::Term &t, const Inputs &inputs, const std::vector<ir::Tensor> &args);

// `let x1 = ... in ... (primal, Delta)` for golden tests and `rml grad --explain`.
std::string print(const Extracted &e);

}  // namespace rml::ad
