// Gradient funs for pointwise applications (tanh(x), matvec(k, x), a user fun, an index,
// mixed-shape arithmetic): each application becomes a wrapper fun over its operands, the
// front end checks it next to the user's file, the lowering inlines it to one IR term,
// the symbolic reverse AD gives its vector–Jacobian products (vectorised, simplified),
// and ir_source writes each back as a `fun` of the operands and the cotangent.
#pragma once
#include <functional>
#include <set>
#include <string>
#include <vector>

#include "core/normalize.hpp"

namespace rml::adjoint {

struct ApplyRequest {
  const core::Equation *eq;
  std::set<std::string> wanted;  // operands whose cotangent is needed (real, active)
};

struct ApplyGradient {
  std::vector<std::string> operands;  // the distinct operand variables, in order: the funs' first arguments
  std::vector<std::pair<std::string, std::string>> funs;  // operand -> gradient fun(operands..., cotangent)
};

// One ApplyGradient per request, in order; the funs' text is appended to `funs_text`.
// Equal applications (same operator, static arguments and types) share their funs.
// `type_of` gives a variable's concrete type, `fresh` a name no declaration or variable uses. Throws AdjointError.
std::vector<ApplyGradient> derive_apply_gradients(const std::vector<ApplyRequest> &requests, const std::string &path,
                                                  const std::string &text,
                                                  const std::function<const Type &(const std::string &)> &type_of,
                                                  const std::function<std::string(const std::string &)> &fresh,
                                                  std::string &funs_text);

}  // namespace rml::adjoint
