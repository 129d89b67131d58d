#include "driver/fun_pipeline.hpp"

#include <ctime>

#include "array/ad/ad.hpp"

namespace rml::driver {

namespace {
// Thread CPU time: the stages are single-threaded and machines are shared.
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

CompiledFun compile_fun(const CheckedProgram &cp, const std::string &fun, const std::vector<StaticValue> &statics,
                        const std::vector<ir::Type> &types, const FunRequest &request) {
  double t0 = cpu_now();
  lower::Lowered lowered = lower::lower_fun(cp, fun, statics, types);
  double lowering = cpu_now() - t0;
  CompiledFun c = compile_lowered(std::move(lowered), request);
  c.seconds.lower = lowering;
  return c;
}

CompiledFun compile_lowered(lower::Lowered lowered, const FunRequest &request) {
  CompiledFun c;
  c.lowered = std::move(lowered);
  double t0 = 0;
  if (request.objective) {
    t0 = cpu_now();
    c.objective.inputs = c.lowered.inputs;
    c.objective.outputs = {ad::vectorise(c.lowered.body)};
    c.objective.output_names = {"value"};
    c.seconds.vectorise = cpu_now() - t0;
    if (request.compile) {
      t0 = cpu_now();
      c.objective_exe = exec::compile(c.objective, request.exec);
      c.seconds.compile_objective = cpu_now() - t0;
    }
  }
  if (request.gradient) {
    t0 = cpu_now();
    c.gradient = request.wrt.empty() ? ad::gradient_program(c.lowered.body, c.lowered.inputs)
                                     : ad::gradient_program(c.lowered.body, c.lowered.inputs, request.wrt);
    if (request.gradient_outputs && request.gradient_outputs < c.gradient.outputs.size()) {
      c.gradient.outputs.resize(request.gradient_outputs);
      if (c.gradient.output_names.size() > request.gradient_outputs) c.gradient.output_names.resize(request.gradient_outputs);
    }
    c.seconds.gradient_program = cpu_now() - t0;
    if (request.compile) {
      t0 = cpu_now();
      c.gradient_exe = exec::compile(c.gradient, request.exec);
      c.seconds.compile_gradient = cpu_now() - t0;
    }
  }
  return c;
}

}  // namespace rml::driver
