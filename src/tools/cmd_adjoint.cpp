#include "tools/cmd_adjoint.hpp"

#include <fstream>

#include "adjoint/adjoint.hpp"
#include "core/normalize.hpp"
#include "syntax/diag.hpp"
#include "tools/commands.hpp"
#include "driver/load.hpp"
#include "driver/main_node.hpp"

namespace rml {

int cmd_adjoint(const AdjointCmd &c, std::ostream &out, std::ostream &err) {
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  if (!c.node.empty() && !check_main_name(*r, c.node, err)) return kFrontendError;
  auto main = choose_main(*r, c.node, err);
  if (!main) return kFrontendError;
  std::string error;
  auto text = read_file(c.file, error);
  if (!text) {
    err << "rml: error: " << error << "\n";
    return kFrontendError;
  }
  adjoint::Result res;
  try {
    adjoint::Options o;
    o.name = c.name;
    o.params = c.param_gradients ? adjoint::ParamMode::Gradient : adjoint::ParamMode::Update;
    res = adjoint::derive(*r, input_name(c.file), *text, *main, o);
  } catch (const core::ElabError &e) {
    Diagnostic d;
    d.rule = "adjoint.elaborate";
    d.span = e.span;
    d.message = e.message;
    err << render(d);
    return kFrontendError;
  } catch (const adjoint::AdjointError &e) {
    Diagnostic d;
    d.rule = e.rule;
    d.span = e.span;
    d.message = e.what();
    if (d.span.valid()) err << render(d);
    else err << "rml: error[" << e.rule << "]: " << e.what() << "\n";
    return e.rule == "adjoint.internal" || e.rule == "adjoint.unprintable" ? kUnknown : kFrontendError;
  }
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
  err << "rml adjoint: wrote " << res.node << " (training program of " << *main << ") to " << c.out << "\n";
  return kOk;
}

}  // namespace rml
