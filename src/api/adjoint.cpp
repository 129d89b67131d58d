// `rml adjoint` through the library: the main node's training program (include/rml/rml.hpp).
#include "adjoint/adjoint.hpp"
#include "api/state.hpp"
#include "core/normalize.hpp"
#include "driver/exit_codes.hpp"

namespace rml::api {

Result<Adjoint> adjoint(const Program &p, const AdjointOptions &o) try {
  const Program::State &s = p.state();
  adjoint::Options opts;
  opts.name = o.name;
  opts.params = o.params == AdjointOptions::Params::Gradient ? adjoint::ParamMode::Gradient : adjoint::ParamMode::Update;
  // The user's file is the front end's last source (an --assume text comes before it).
  adjoint::Result r = adjoint::derive(*s.frontend, input_name(s.file), s.frontend->files.back()->text, s.main, opts);
  return Adjoint{r.source, r.derived, r.node, r.bp, r.seeds, r.gradients, r.params, r.param_gradients};
} catch (const core::ElabError &e) {
  return Failure(kFrontendError, {from_stage(rml::Diagnostic{Severity::Error, "adjoint.elaborate", e.message, e.span, {}})});
} catch (const adjoint::AdjointError &e) {
  const int code = e.rule == "adjoint.internal" || e.rule == "adjoint.unprintable" ? kUnknown : kFrontendError;
  if (e.span.valid()) return Failure(code, {from_stage(rml::Diagnostic{Severity::Error, e.rule, e.what(), e.span, {}})});
  return failure(code, "rml: error[" + e.rule + "]: " + e.what() + "\n");
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml: error: out of memory while deriving the training program of '" + p.main() + "'\n");
}

}  // namespace rml::api
