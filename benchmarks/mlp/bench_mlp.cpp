// Dense MLP 784-256-10, batch 64, relu hidden layer, softmax cross-entropy (mean over the
// batch), float64, one thread: loss and loss + gradient w.r.t. (w1, b1, w2, b2) through
// our path (benchmarks/mlp/mlp.rml: lower → vectorise / gradient_program → executor)
// against a hand-written Eigen forward + backward pass. PyTorch (torch_mlp.py) runs
// apart: compare.sh prints the ratio. Before timing, our loss must equal Eigen's, our
// gradient Eigen's, and both central differences of the loss along fixed directions.
// Run: bench_mlp --benchmark_repetitions=5 --benchmark_enable_random_interleaving=true
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "driver/fun_pipeline.hpp"
#include "sema/frontend.hpp"

namespace {

using Eigen::MatrixXd;
using Eigen::VectorXd;
using RowMat = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

constexpr int kIn = 784, kHidden = 256, kOut = 10, kBatch = 64;

[[noreturn]] void die(const std::string &msg) {
  std::cerr << "bench_mlp: " << msg << "\n";
  std::exit(1);
}

// Parameters and one batch, row-major as the fun's arguments (w1 [h, i], w2 [o, h]).
struct Model {
  RowMat w1{kHidden, kIn}, w2{kOut, kHidden}, x{kBatch, kIn}, y{kBatch, kOut};
  VectorXd b1{kHidden}, b2{kOut};
  std::vector<int> labels;
  Model() {
    std::mt19937_64 rng(2024);
    std::uniform_real_distribution<double> u(-1.0, 1.0), u01(0.0, 1.0);
    const double l1 = std::sqrt(6.0 / (kIn + kHidden)), l2 = std::sqrt(6.0 / (kHidden + kOut));
    for (auto &v : w1.reshaped()) v = l1 * u(rng);
    for (auto &v : w2.reshaped()) v = l2 * u(rng);
    for (auto &v : b1) v = 0.1 * u(rng);
    for (auto &v : b2) v = 0.1 * u(rng);
    for (auto &v : x.reshaped()) v = u01(rng);
    y.setZero();
    std::uniform_int_distribution<int> cls(0, kOut - 1);
    for (int r = 0; r < kBatch; ++r) labels.push_back(cls(rng)), y(r, labels.back()) = 1.0;
  }
  size_t num_params() const { return static_cast<size_t>(w1.size() + b1.size() + w2.size() + b2.size()); }
};

// Hand-written forward and backward pass (Eigen GEMMs, buffers kept).
class EigenMlp {
 public:
  explicit EigenMlp(const Model &m) : m_(m) {}
  double loss() {
    forward();
    return loss_;
  }
  // grad = (w1, b1, w2, b2) flattened row-major
  double gradient(double *grad) {
    forward();
    dz_ = (p_ - m_.y) / kBatch;  // d loss / d logits
    Eigen::Map<RowMat> gw1(grad, kHidden, kIn), gw2(grad + kHidden * kIn + kHidden, kOut, kHidden);
    Eigen::Map<VectorXd> gb1(grad + kHidden * kIn, kHidden), gb2(grad + kHidden * kIn + kHidden + kOut * kHidden, kOut);
    gw2.noalias() = dz_.transpose() * h_;
    gb2 = dz_.colwise().sum().transpose();
    dh_.noalias() = dz_ * m_.w2;
    dh_ = (h_.array() > 0).select(dh_, 0.0);
    gw1.noalias() = dh_.transpose() * m_.x;
    gb1 = dh_.colwise().sum().transpose();
    return loss_;
  }

 private:
  const Model &m_;
  RowMat h_{kBatch, kHidden}, z_{kBatch, kOut}, p_{kBatch, kOut}, dz_{kBatch, kOut}, dh_{kBatch, kHidden};
  double loss_ = 0;
  void forward() {
    h_.noalias() = m_.x * m_.w1.transpose();
    h_ = (h_.rowwise() + m_.b1.transpose()).cwiseMax(0.0);
    z_.noalias() = h_ * m_.w2.transpose();
    z_.rowwise() += m_.b2.transpose();
    const VectorXd mx = z_.rowwise().maxCoeff();
    p_ = (z_.colwise() - mx).array().exp();
    const VectorXd s = p_.rowwise().sum();
    p_.array().colwise() /= s.array();
    loss_ = ((s.array().log() + mx.array()).sum() - (m_.y.array() * z_.array()).sum()) / kBatch;
  }
};

// Our path for mlp.rml's mlp_loss.
struct Compiled {
  std::unique_ptr<rml::exec::Executable> obj, grad;
  double t_lower = 0, t_vectorise = 0, t_compile_obj = 0, t_gradient_program = 0, t_compile_grad = 0;
  const Model &m;
  double one = 1.0;
  explicit Compiled(const Model &model, bool params_only = true) : m(model) {
    static std::unique_ptr<rml::FrontendResult> fe = [] {
      const std::string path = std::string(RML_SOURCE_DIR) + "/benchmarks/mlp/mlp.rml";
      std::string err;
      auto text = rml::read_file(path, err);
      if (!text) die(err);
      auto r = rml::run_frontend(path, *text);
      if (r->diags.has_errors()) die(rml::render_all(r->diags));
      return r;
    }();
    using rml::ir::Elem;
    const std::vector<rml::ir::Type> types = {{Elem::Real, {kHidden, kIn}}, {Elem::Real, {kHidden}},
                                              {Elem::Real, {kOut, kHidden}}, {Elem::Real, {kOut}},
                                              {Elem::Real, {kBatch, kIn}},   {Elem::Real, {kBatch, kOut}}};
    // Only the parameters' gradients (x and y are data, as torch's requires_grad=False):
    // dropping the other outputs lets the executor's liveness remove their computation.
    rml::driver::FunRequest request;
    request.gradient = true;
    request.gradient_outputs = params_only ? 5 : 0;
    rml::driver::CompiledFun c = rml::driver::compile_fun(fe->checked, "mlp_loss", {}, types, request);
    if (c.gradient.outputs.size() != (params_only ? 5u : 7u)) die("gradient program: expected 7 outputs (5 kept with params_only)");
    obj = std::move(c.objective_exe);
    grad = std::move(c.gradient_exe);
    t_lower = c.seconds.lower;
    t_vectorise = c.seconds.vectorise;
    t_compile_obj = c.seconds.compile_objective;
    t_gradient_program = c.seconds.gradient_program;
    t_compile_grad = c.seconds.compile_gradient;
  }
  std::vector<const void *> args(bool ctg) const {
    std::vector<const void *> a = {m.w1.data(), m.b1.data(), m.w2.data(), m.b2.data(), m.x.data(), m.y.data()};
    if (ctg) a.push_back(&one);
    return a;
  }
  double loss() {
    double v = 0;
    obj->run_raw(args(false), {&v});
    return v;
  }
  double gradient(double *g, std::vector<double> *data_grads = nullptr) {
    double v = 0;
    std::vector<void *> outs = {&v, g, g + kHidden * kIn, g + kHidden * kIn + kHidden,
                                g + kHidden * kIn + kHidden + kOut * kHidden};
    if (data_grads) {
      data_grads->resize(kBatch * (kIn + kOut));
      outs.push_back(data_grads->data());
      outs.push_back(data_grads->data() + kBatch * kIn);
    }
    grad->run_raw(args(true), outs);
    return v;
  }
};

double rho(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(a) + std::abs(b)); }

void check(const Model &m0) {
  Model m = m0;
  Compiled c(m);
  EigenMlp e(m);
  std::vector<double> gc(m.num_params()), ge(m.num_params());
  const double lc = c.gradient(gc.data()), le = e.gradient(ge.data());
  if (rho(c.loss(), le) > 1e-12 || rho(lc, le) > 1e-12) die("loss differs from Eigen's: " + std::to_string(lc) + " vs " + std::to_string(le));
  for (size_t j = 0; j < gc.size(); ++j)
    if (rho(gc[j], ge[j]) > 1e-10) die("gradient entry " + std::to_string(j) + " differs from Eigen's");
  // Central differences (step cbrt(eps)) of both losses along fixed directions.
  double *blocks[] = {m.w1.data(), m.b1.data(), m.w2.data(), m.b2.data()};
  const long sizes[] = {m.w1.size(), m.b1.size(), m.w2.size(), m.b2.size()};
  const double h = std::cbrt(std::numeric_limits<double>::epsilon());
  for (int dir = 0; dir < 3; ++dir) {
    std::vector<double> v(gc.size());
    for (size_t j = 0; j < v.size(); ++j) v[j] = std::sin(1.0 + 7.0 * static_cast<double>(j) + 3.0 * dir);
    auto shift = [&](double s) {
      for (size_t b = 0, off = 0; b < 4; off += static_cast<size_t>(sizes[b]), ++b)
        for (long j = 0; j < sizes[b]; ++j) blocks[b][j] += s * v[off + static_cast<size_t>(j)];
    };
    shift(h);
    const double fp = c.loss(), fpe = e.loss();
    shift(-2 * h);
    const double fm = c.loss(), fme = e.loss();
    shift(h);
    double gv = 0;
    for (size_t j = 0; j < v.size(); ++j) gv += gc[j] * v[j];
    if (rho(gv, (fp - fm) / (2 * h)) > 1e-6 || rho(gv, (fpe - fme) / (2 * h)) > 1e-6)
      die("gradient fails central differences along direction " + std::to_string(dir));
  }
}

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const auto &r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred || r.iterations == 0) continue;
      const double sec = r.cpu_accumulated_time / static_cast<double>(r.iterations);  // see bench_gmm
      auto [it, fresh] = min_.emplace(r.run_name.function_name, sec);
      if (!fresh) it->second = std::min(it->second, sec);
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto t = [&](const char *k) { return min_.count(k) ? min_[k] * 1e3 : -1.0; };
    char buf[512];
    std::snprintf(buf, sizeof buf,
                  "\nMLP %d-%d-%d batch %d, float64, one thread; minimum CPU time (ms):\n"
                  "  rml loss %.4g, rml loss+gradient %.4g (ratio %.2f); all-inputs gradient %.4g\n"
                  "  Eigen loss %.4g, Eigen loss+gradient %.4g; rml/Eigen: loss %.2f, gradient %.2f\n",
                  kIn, kHidden, kOut, kBatch, t("rml_loss"), t("rml_gradient"), t("rml_gradient") / t("rml_loss"),
                  t("rml_gradient_all_inputs"), t("eigen_loss"), t("eigen_gradient"), t("rml_loss") / t("eigen_loss"),
                  t("rml_gradient") / t("eigen_gradient"));
    GetOutputStream() << buf;
  }

 private:
  std::map<std::string, double> min_;
};

}  // namespace

int main(int argc, char **argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 2;
  static const Model model;
  check(model);
  static Compiled ours(model);
  static Compiled ours_all(model, false);
  static EigenMlp eig(model);
  static std::vector<double> g(model.num_params());
  static std::vector<double> data_grads;
  benchmark::RegisterBenchmark("rml_loss", [](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(ours.loss());
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("rml_gradient", [](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(ours.gradient(g.data()));
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("rml_gradient_all_inputs", [](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(ours_all.gradient(g.data(), &data_grads));
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("eigen_loss", [](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(eig.loss());
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("eigen_gradient", [](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(eig.gradient(g.data()));
  })->Unit(benchmark::kMicrosecond);
  benchmark::RegisterBenchmark("rml_build_gradient", [](benchmark::State &st) {
    double lower = 0, ad = 0, comp = 0;
    for (auto _ : st) {
      Compiled c(model);
      lower = c.t_lower, ad = c.t_gradient_program, comp = c.t_compile_grad;
    }
    st.counters["lower_ms"] = lower * 1e3;
    st.counters["bot_ad_ms"] = ad * 1e3;
    st.counters["compile_ms"] = comp * 1e3;
  })->Unit(benchmark::kMillisecond)->Iterations(1);
  SummaryReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  return 0;
}
