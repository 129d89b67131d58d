#include "gmm_compiled.hpp"

#include <ctime>
#include <stdexcept>

#include "array/ad/ad.hpp"
#include "array/lower/lower.hpp"
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

namespace {
// Thread CPU time: the stages are single-threaded and the machine is shared (the
// benchmarks report CPU time throughout).
double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
double seconds_since(double t0) { return cpu_now() - t0; }
}  // namespace

GmmCompiled::GmmCompiled(const GmmInput &in, const Options &opt) : in_(in), m_(in.m) {
  const int64_t k = in.k, d = in.d, n = in.n, t = in.icf_size();
  const std::vector<ir::Type> types = {{ir::Elem::Real, {k}},    {ir::Elem::Real, {k, d}}, {ir::Elem::Real, {k, t}},
                                       {ir::Elem::Real, {n, d}}, {ir::Elem::Real, {}},     {ir::Elem::Int, {}}};
  const auto &fe = gmm_frontend();
  double t0 = cpu_now();
  lower::Lowered low = lower::lower_fun(fe.checked, opt.fun, {}, types);
  times_.lower = seconds_since(t0);
  if (opt.objective) {
    t0 = cpu_now();
    ir::Term body = ad::vectorise(low.body);
    times_.vectorise = seconds_since(t0);
    obj_prog_.inputs = low.inputs;
    obj_prog_.outputs = {body};
    obj_prog_.output_names = {"value"};
    t0 = cpu_now();
    obj_ = exec::compile(obj_prog_, opt.exec);
    times_.compile_objective = seconds_since(t0);
  }
  if (opt.gradient) {
    t0 = cpu_now();
    grad_prog_ = ad::gradient_program(low.body, low.inputs);
    times_.gradient_program = seconds_since(t0);
    // value, then one gradient per real input: alphas, means, icf, x, wishart_gamma
    if (grad_prog_.outputs.size() != 6) throw std::runtime_error("gradient program: expected 6 outputs");
    params_only_ = opt.params_only;
    if (params_only_) {
      grad_prog_.outputs.resize(4);
      if (grad_prog_.output_names.size() == 6) grad_prog_.output_names.resize(4);
    }
    t0 = cpu_now();
    grad_ = exec::compile(grad_prog_, opt.exec);
    times_.compile_gradient = seconds_since(t0);
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
