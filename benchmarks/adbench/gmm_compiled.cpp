#include "gmm_compiled.hpp"

#include <stdexcept>

#include "driver/fun_pipeline.hpp"
#include "sema/frontend.hpp"

#ifndef RML_SOURCE_DIR
#error "RML_SOURCE_DIR must be defined by the build"
#endif

namespace rml::adbench {

const FrontendResult &gmm_frontend() {
  static std::unique_ptr<FrontendResult> fe = [] {
    const std::string path = std::string(RML_SOURCE_DIR) + "/reference/adbench/gmm.rml";
    std::string err;
    auto text = read_file(path, err);
    if (!text) throw std::runtime_error(err);
    auto r = run_frontend(path, *text);
    if (r->diags.has_errors()) throw std::runtime_error(render_all(r->diags));
    return r;
  }();
  return *fe;
}

GmmCompiled::GmmCompiled(const GmmInput &in, const Options &opt) : in_(in), m_(in.m) {
  const int64_t k = in.k, d = in.d, n = in.n, t = in.icf_size();
  const std::vector<ir::Type> types = {{ir::Elem::Real, {k}},    {ir::Elem::Real, {k, d}}, {ir::Elem::Real, {k, t}},
                                       {ir::Elem::Real, {n, d}}, {ir::Elem::Real, {}},     {ir::Elem::Int, {}}};
  const auto &fe = gmm_frontend();
  // value, then one gradient per real input: alphas, means, icf, x, wishart_gamma;
  // params_only keeps the parameters' (the executor then skips the others' computation).
  driver::FunRequest request;
  request.objective = opt.objective;
  request.gradient = opt.gradient;
  request.gradient_outputs = opt.params_only ? 4 : 0;
  request.exec = opt.exec;
  driver::CompiledFun c = driver::compile_fun(fe.checked, opt.fun, {}, types, request);
  const driver::FunStageSeconds &s = c.seconds;
  times_.lower = s.lower;
  times_.vectorise = s.vectorise;
  times_.compile_objective = s.compile_objective;
  times_.gradient_program = s.gradient_program;
  times_.compile_gradient = s.compile_gradient;
  obj_prog_ = std::move(c.objective);
  obj_ = std::move(c.objective_exe);
  params_only_ = opt.params_only;
  if (opt.gradient) {
    grad_prog_ = std::move(c.gradient);
    if (grad_prog_.outputs.size() != (opt.params_only ? 4u : 6u)) throw std::runtime_error("gradient program: expected 6 outputs (4 kept with params_only)");
    grad_ = std::move(c.gradient_exe);
    x_grad_.resize(in.x.size());
  }
}

std::vector<const void *> GmmCompiled::args(const std::vector<double> &p, bool with_cotangent) const {
  if (p.size() != in_.num_params()) throw std::runtime_error("GmmCompiled: wrong parameter count");
  const size_t k = static_cast<size_t>(in_.k), d = static_cast<size_t>(in_.d);
  std::vector<const void *> a = {p.data(), p.data() + k, p.data() + k + k * d, in_.x.data(), &in_.gamma, &m_};
  if (with_cotangent) a.push_back(&one_);
  return a;
}

double GmmCompiled::objective(const std::vector<double> &p) {
  if (!obj_) throw std::runtime_error("GmmCompiled: objective not built");
  double v = 0;
  obj_->run_raw(args(p, false), {&v});
  return v;
}

double GmmCompiled::gradient(const std::vector<double> &p, double *grad) {
  if (!grad_) throw std::runtime_error("GmmCompiled: gradient not built");
  const size_t k = static_cast<size_t>(in_.k), d = static_cast<size_t>(in_.d);
  double v = 0;
  if (params_only_) grad_->run_raw(args(p, true), {&v, grad, grad + k, grad + k + k * d});
  else grad_->run_raw(args(p, true), {&v, grad, grad + k, grad + k + k * d, x_grad_.data(), &gamma_grad_});
  return v;
}

}  // namespace rml::adbench
