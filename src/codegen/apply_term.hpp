// A node's application on tensors, or of a `fun` or builtin (a core::Equation with
// prim Apply), as one lowered term over its operands, for rml compile. What each
// ApplyOp means is what the oracle's stream rules call for it (stream/runner.cpp's
// apply): the reference evaluator's elementwise operators with scalar broadcast, eager
// `if`, indexing, array literals, and calls; here the same meanings as IR builders, the
// calls through array/lower (exact against the reference evaluator).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "array/ir/ir.hpp"
#include "codegen/fuse_applications.hpp"
#include "core/normalize.hpp"
#include "sema/typecheck.hpp"

namespace rml::codegen {

struct AppliedTerm {
  std::vector<std::pair<std::string, ir::Type>> inputs;  // one per operand, in order
  ir::Term body;
};

// `types` are the operands' types. Throws CodegenError (codegen.fun) when the application
// cannot be lowered, with the lowering's reason.
AppliedTerm apply_term(const CheckedProgram &cp, const core::Equation &eq, const std::vector<ir::Type> &types);

// A fused application (fuse_applications.hpp) as one term over its leaves (`leaf_types`
// in the fused equation's operand order): each application's lowered term with the terms
// of the applications fused into it put in place of their operands — substituted where the
// operand is a leaf (a variable) or is read once and outside any loop of the term (build,
// gather, scatter), so that emit_term fuses it into its reader's loop; bound by a let
// otherwise, so that it is still computed once.
AppliedTerm apply_fused(const CheckedProgram &cp, const FusedApplication &app, const std::vector<ir::Type> &leaf_types);

}  // namespace rml::codegen
