// Which variables of an elaborated node carry a cotangent (activity analysis, as AD tools
// do it): a real variable that depends on a real input or a parameter (varied) and that a
// real output depends on (useful). Only those get an adjoint equation, so a derived
// program has no equations that are identically zero.
#pragma once
#include <map>
#include <set>
#include <string>

#include "core/normalize.hpp"

namespace rml::adjoint {

bool is_real(const Type &t);

// The parameters of the node: the outputs of its `param(init)` instances (the prelude's,
// or a user node named `param` whose body is the copy `o = init`), each with its `init`.
std::map<std::string, std::string> find_params(const core::Program &p);

struct Activity {
  std::set<std::string> varied, useful;
  bool active(const std::string &v) const { return varied.count(v) && useful.count(v); }
};

// `params_are_leaves`: a parameter's value does not depend on its init (it is trained);
// otherwise the parameter is the copy of init it is in the forward node.
Activity analyse(const core::Program &p, const std::map<std::string, std::string> &params, bool params_are_leaves = true);

}  // namespace rml::adjoint
