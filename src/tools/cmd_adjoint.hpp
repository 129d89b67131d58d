// `rml adjoint FILE [--node NODE] [-o OUT.rml] [--name NAME]`: the training program of a
// forward node, as R(ML)² source (adjoint.hpp).
#pragma once
#include <ostream>
#include <string>

namespace rml {

struct AdjointCmd {
  std::string file, node, out, name;
  bool param_gradients = false;  // --params gradient: params keep their values, their gradients are outputs
};
int cmd_adjoint(const AdjointCmd &c, std::ostream &out, std::ostream &err);

}  // namespace rml
