// rml adjoint: the training program of a node, derived through the library
// (api::adjoint, include/rml/rml.hpp), printed or written whole to a file.
#include "tools/cmd_adjoint.hpp"

#include <cstdio>
#include <fstream>

#include "tools/commands.hpp"

namespace rml {

int cmd_adjoint(const AdjointCmd &c, std::ostream &out, std::ostream &err) {
  auto program = api::load_file(c.file, {c.node, {}});
  if (!program) return print_failure(program.failure(), err);
  for (auto &w : program->warnings()) err << w.rendered;
  api::AdjointOptions o;
  o.name = c.name;
  o.params = c.param_gradients ? api::AdjointOptions::Params::Gradient : api::AdjointOptions::Params::Update;
  auto derived = api::adjoint(*program, o);
  if (!derived) return print_failure(derived.failure(), err);
  const api::Adjoint &res = *derived;
  if (c.out.empty()) {
    out << res.source;
    return kOk;
  }
  // Written whole or not at all: a temporary next to OUT, renamed over it.
  std::string tmp = c.out + ".rml-adjoint.tmp";
  {
    std::ofstream f(tmp, std::ios::binary);
    f << res.source;
    f.close();
    if (!f) {
      err << "rml: error: cannot write '" << c.out << "'\n";
      std::remove(tmp.c_str());
      return kFrontendError;
    }
  }
  if (std::rename(tmp.c_str(), c.out.c_str()) != 0) {
    err << "rml: error: cannot write '" << c.out << "'\n";
    std::remove(tmp.c_str());
    return kFrontendError;
  }
  err << "rml adjoint: wrote " << res.node << " (training program of " << program->main() << ") to " << c.out << "\n";
  return kOk;
}

}  // namespace rml
