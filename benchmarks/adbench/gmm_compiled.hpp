// Our compiled path for reference/adbench/gmm.rml: front end (once per process) → lower
// the fun at the instance's shapes → vectorise (bot + simplification) for the objective,
// or gradient_program (bot, AD by symbolic dual arrays, shareToLet) for value + gradient
// → exec::compile. Calls go through run_raw on the caller's arrays (no copies).
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "array/exec/exec.hpp"
#include "array/ir/program.hpp"
#include "gmm_data.hpp"

namespace rml {
struct FrontendResult;
}

namespace rml::adbench {

// reference/adbench/gmm.rml checked with the prelude (once; throws on front-end errors).
const FrontendResult &gmm_frontend();

class GmmCompiled {
 public:
  // CPU seconds spent in each one-time stage.
  struct Times {
    double lower = 0, vectorise = 0, compile_objective = 0, gradient_program = 0, compile_gradient = 0;
  };
  struct Options {
    std::string fun = "gmm_objective";
    bool objective = true, gradient = true;  // which executables to build
    // gradient_program differentiates every real input; ADBench's gradient is w.r.t.
    // (alphas, means, icf) only. true: drop the x and wishart_gamma outputs before
    // compiling, so that the executor's liveness removes their computation (the points
    // are data, as in the ADOL-C tape where they are passive).
    bool params_only = true;
    exec::Options exec;
  };
  explicit GmmCompiled(const GmmInput &in) : GmmCompiled(in, Options()) {}
  GmmCompiled(const GmmInput &in, const Options &opt);

  double objective(const std::vector<double> &params);                // alphas ++ means ++ icf
  double gradient(const std::vector<double> &params, double *grad);   // value; grad w.r.t. params

  const Times &times() const { return times_; }
  const ir::Program &objective_program() const { return obj_prog_; }
  const ir::Program &gradient_program() const { return grad_prog_; }
  std::string objective_plan() const { return obj_ ? obj_->plan() : ""; }
  std::string gradient_plan() const { return grad_ ? grad_->plan() : ""; }

 private:
  const GmmInput &in_;
  Times times_;
  ir::Program obj_prog_, grad_prog_;
  std::unique_ptr<exec::Executable> obj_, grad_;
  int64_t m_ = 0;
  double one_ = 1.0;
  bool params_only_ = true;
  std::vector<double> x_grad_;  // gradients the caller does not want (x, gamma)
  double gamma_grad_ = 0;
  std::vector<const void *> args(const std::vector<double> &params, bool with_cotangent) const;
};

}  // namespace rml::adbench
