// The compiled path of one `fun` at concrete argument types, assembled in one place:
// lower (array/lower) -> vectorise (bot, then the simplifier) -> execute (array/exec) for
// the value, and lower -> gradient_program (symbolic dual-array AD) -> execute for the
// value and gradient. `rml run --backend compiled`, `rml grad` and the benchmarks call
// this; each stage's thread CPU time is kept for the benchmarks' reports.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "array/exec/exec.hpp"
#include "array/ir/ir.hpp"
#include "array/lower/lower.hpp"

namespace rml::driver {

struct FunRequest {
  bool objective = true;          // the vectorised value program, compiled
  bool gradient = false;          // the gradient program, compiled
  std::vector<std::string> wrt;   // the gradient's parameters (empty: every real input)
  size_t gradient_outputs = 0;    // keep the first N outputs of the gradient program (0: all):
                                  // dropped outputs are not computed (the executor's liveness)
  bool compile = true;            // false: the programs only (rml grad prints or evaluates them)
  exec::Options exec;
};

struct FunStageSeconds {
  double lower = 0, vectorise = 0, compile_objective = 0, gradient_program = 0, compile_gradient = 0;
};

struct CompiledFun {
  lower::Lowered lowered;
  ir::Program objective;  // inputs -> "value"
  ir::Program gradient;   // inputs, then the objective's cotangent -> value, then a gradient per parameter
  std::unique_ptr<exec::Executable> objective_exe, gradient_exe;
  FunStageSeconds seconds;
};

// Throws lower::LowerError (the fun or its arguments), ir::IrError / exec::ExecError (the
// compiled path itself).
CompiledFun compile_fun(const CheckedProgram &cp, const std::string &fun, const std::vector<StaticValue> &statics,
                        const std::vector<ir::Type> &types, const FunRequest &request = {});

// The stages after lowering, for a caller that inspects the lowered fun first.
CompiledFun compile_lowered(lower::Lowered lowered, const FunRequest &request = {});

}  // namespace rml::driver
