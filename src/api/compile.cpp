// rml compile through the library: the main node, once rml-check accepts it, as the files
// of a C++ step class (include/rml/rml.hpp).
#include <sstream>

#include "api/state.hpp"
#include "codegen/emit_cpp.hpp"
#include "driver/acceptance.hpp"
#include "stream/plan.hpp"
#include "syntax/diag.hpp"

namespace rml::api {

Result<CompiledClass> compile(const Program &p, const CompileOptions &o) try {
  const Program::State &s = p.state();
  std::ostringstream err;
  if (refuse_imported(s.elab.prog, "codegen.imported", "rml compile does not generate calls of it", err))
    return failure(kUnknown, err.str());
  int rc = kOk;
  std::optional<int64_t> H =
      accepted_horizon(*s.frontend, s.elab, s.file, s.main, CheckBudget{o.check.seconds, o.check.rlimit}, "be compiled", err, rc, o.check.progress);
  if (!H) return failure(rc, err.str());
  stream::Plan plan = stream::build_plan(s.elab.prog, s.elab.clocks);
  codegen::EmitInfo info;
  CompiledClass out;
  for (auto &f : codegen::emit_cpp(s.elab.prog, s.elab.clocks, plan, s.file, o.ns, *H, &s.frontend->checked, &info))
    out.files.push_back({f.path, f.text});
  out.class_name = codegen::class_name(s.main);
  out.window = info.window;
  out.retimed = info.retimed;
  out.max_lag = info.max_lag;
  out.not_retimed = info.not_retimed;
  out.tagless = info.tagless;
  out.not_tagless = info.not_tagless;
  return out;
} catch (codegen::CodegenError &e) {  // what rml cannot generate yet
  return Failure{kUnknown, {from_stage(rml::Diagnostic{Severity::Error, e.rule, e.what(), e.span, {}})}};
} catch (stream::PlanError &e) {
  return Failure{kUnknown, {from_stage(rml::Diagnostic{Severity::Error, "stream.plan", e.what(), {}, {}})}};
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml: error: out of memory while compiling '" + p.main() + "'\n");
}

}  // namespace rml::api
