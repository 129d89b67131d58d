// GEMM-shaped contractions through the executor against Eigen's own GEMM on the same
// shapes, one thread, float64 and float32. The executor runs the forms the language
// produces: the prelude's matmul and matvec (sumOuter of a product of replicates and
// transposes) and bot's form of the build-based matmul (sumOuter of a product of two
// gathers). At the end a table gives each executor time as a fraction of Eigen's speed
// (Eigen time / executor time, medians when --benchmark_repetitions is given); the goal
// is ≥ 0.8. The table uses CPU time: everything is single-threaded, and on a shared
// machine wall time also counts the other processes (both are in the console output).
//
//   BM_Eigen<T>/m/n/k/form     C = A B with Eigen matrices (GEMV when n = 1)
//   BM_ExecRaw<T>/m/n/k/form   the compiled program through run_raw (data in T, no copies)
//   BM_ExecRun<T>/m/n/k/form   the compiled program through run (ir::Tensor in and out:
//                              float32 converts the arguments and results)
// form: 0 prelude matmul, 1 prelude matvec (n = 1), 2 bot's gather form, 3 matmul of a
// transposed A (a stored k×m).
#include <benchmark/benchmark.h>

#include <Eigen/Core>
#include <cmath>
#include <cstdio>
#include <map>
#include <string>

#include "array/exec/exec.hpp"

namespace {

using namespace rml;
using ir::BinOp;
using ir::Elem;
using ir::Term;

ir::Type rt(ir::Shape s) { return ir::Type{Elem::Real, std::move(s)}; }

ir::Program contraction(int64_t m, int64_t n, int64_t k, int form) {
  ir::Program p;
  Term a = ir::var("a", rt(form == 3 ? ir::Shape{k, m} : ir::Shape{m, k}));
  p.inputs = {{"a", a->type}};
  if (form == 1) {  // matvec(a, x) = sumOuter(tr(a * replicate(m, x)))
    Term x = ir::var("x", rt({k}));
    p.inputs.emplace_back("x", x->type);
    p.outputs = {ir::sum_outer(ir::tr(ir::binary(BinOp::Mul, a, ir::replicate(m, x))))};
    return p;
  }
  Term b = ir::var("b", rt({k, n}));
  p.inputs.emplace_back("b", b->type);
  if (form == 2) {  // sumOuter (gather [k,m,n] a (\[p,i,j]. [i,p]) * gather [k,m,n] b (\[p,i,j]. [p,j]))
    auto v = [](const char *x) { return ir::var(x, ir::Type{Elem::Int, {}}); };
    Term x = ir::gather({k, m, n}, a, {"p", "i", "j"}, {v("i"), v("p")});
    Term y = ir::gather({k, m, n}, b, {"p", "i", "j"}, {v("p"), v("j")});
    p.outputs = {ir::sum_outer(ir::binary(BinOp::Mul, x, y))};
    return p;
  }
  if (form == 3) a = ir::tr(a);
  // matmul(a, b) = sumOuter(transpose([2, 1, 0], replicate(n, a)) * tr(replicate(m, b)))
  p.outputs = {ir::sum_outer(ir::binary(BinOp::Mul, ir::transpose({2, 1, 0}, ir::replicate(n, a)), ir::tr(ir::replicate(m, b))))};
  return p;
}

ir::Tensor random_tensor(ir::Shape s, unsigned seed) {
  ir::Tensor t = ir::Tensor::zeros(Elem::Real, std::move(s));
  unsigned x = seed * 2654435761u + 1;
  for (auto &v : t.r) {
    x = x * 1664525u + 1013904223u;
    v = static_cast<double>(x >> 8) / static_cast<double>(1u << 24) - 0.5;
  }
  return t;
}

void set_flops(benchmark::State &st, int64_t m, int64_t n, int64_t k) {
  st.counters["FLOP/s"] = benchmark::Counter(2.0 * static_cast<double>(m * n * k), benchmark::Counter::kIsIterationInvariantRate,
                                             benchmark::Counter::OneK::kIs1000);
}

template <class T>
void BM_Eigen(benchmark::State &st) {
  const int64_t m = st.range(0), n = st.range(1), k = st.range(2);
  using Mat = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic>;
  Mat a = Mat::Random(m, k), b = Mat::Random(k, n), c(m, n);
  if (n == 1) {
    using Vec = Eigen::Matrix<T, Eigen::Dynamic, 1>;
    Vec x = Vec::Random(k), y(m);
    for (auto _ : st) {
      y.noalias() = a * x;
      benchmark::DoNotOptimize(y.data());
      benchmark::ClobberMemory();
    }
  } else {
    for (auto _ : st) {
      c.noalias() = a * b;
      benchmark::DoNotOptimize(c.data());
      benchmark::ClobberMemory();
    }
  }
  set_flops(st, m, n, k);
}

template <class T>
exec::Options options() {
  exec::Options o;
  o.precision = std::is_same_v<T, float> ? exec::Precision::F32 : exec::Precision::F64;
  return o;
}

template <class T>
void BM_ExecRaw(benchmark::State &st) {
  const int64_t m = st.range(0), n = st.range(1), k = st.range(2);
  const int form = static_cast<int>(st.range(3));
  ir::Program p = contraction(m, n, k, form);
  auto ex = exec::compile(p, options<T>());
  std::vector<std::vector<T>> in;
  for (size_t q = 0; q < p.inputs.size(); ++q) {
    ir::Tensor t = random_tensor(p.inputs[q].second.shape, static_cast<unsigned>(q + 1));
    in.emplace_back(t.r.begin(), t.r.end());
  }
  std::vector<T> out(static_cast<size_t>(m * n));
  std::vector<const void *> args;
  for (auto &v : in) args.push_back(v.data());
  std::vector<void *> outs{out.data()};
  for (auto _ : st) {
    ex->run_raw(args, outs);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  if (ex->plan().find("gemm") == std::string::npos) st.SkipWithError("the contraction was not sent to GEMM");
  set_flops(st, m, n, k);
}

template <class T>
void BM_ExecRun(benchmark::State &st) {
  const int64_t m = st.range(0), n = st.range(1), k = st.range(2);
  const int form = static_cast<int>(st.range(3));
  ir::Program p = contraction(m, n, k, form);
  auto ex = exec::compile(p, options<T>());
  std::vector<ir::Tensor> args;
  for (size_t q = 0; q < p.inputs.size(); ++q) args.push_back(random_tensor(p.inputs[q].second.shape, static_cast<unsigned>(q + 1)));
  for (auto _ : st) {
    auto out = ex->run(args);
    benchmark::DoNotOptimize(out[0].r.data());
    benchmark::ClobberMemory();
  }
  set_flops(st, m, n, k);
}

void shapes(benchmark::internal::Benchmark *b) {
  b->ArgNames({"m", "n", "k", "form"});
  b->Args({64, 256, 784, 0});   // an MLP layer: batch 64, 784 inputs, 256 units
  b->Args({256, 256, 256, 0});
  b->Args({512, 512, 512, 0});
  b->Args({1024, 1, 1024, 1});  // matvec
  b->Args({256, 256, 256, 2});  // bot's gather form
  b->Args({256, 256, 256, 3});  // A stored transposed
  b->Unit(benchmark::kMicrosecond);
}

BENCHMARK_TEMPLATE(BM_Eigen, double)->Apply(shapes);
BENCHMARK_TEMPLATE(BM_ExecRaw, double)->Apply(shapes);
BENCHMARK_TEMPLATE(BM_ExecRun, double)->Apply(shapes);
BENCHMARK_TEMPLATE(BM_Eigen, float)->Apply(shapes);
BENCHMARK_TEMPLATE(BM_ExecRaw, float)->Apply(shapes);
BENCHMARK_TEMPLATE(BM_ExecRun, float)->Apply(shapes);

// An LSTM cell's gates, to be no slower than Eigen's: from
// the four pre-activations and the cell state, c' = σ(zf) c + σ(zi) tanh(zg) and
// h = σ(zo) tanh(c'), σ the prelude's sigmoid (0.5 tanh(0.5 x) + 0.5). The executor
// (its transcendentals SLEEF's vectorised ones) against Eigen's own vectorised
// functions (`logistic()`, `tanh()` on arrays), one thread, u units; BM_GatesEigen and
// BM_GatesExec in the console (not in the table below, which is the contractions').
ir::Program gates(int64_t u) {
  ir::Program p;
  auto in = [&](const char *name) {
    Term t = ir::var(name, rt({u}));
    p.inputs.emplace_back(name, t->type);
    return t;
  };
  Term zi = in("zi"), zf = in("zf"), zo = in("zo"), zg = in("zg"), c = in("c");
  auto half = [&](Term x) { return ir::broadcast_binary(BinOp::Mul, ir::real_scalar(0.5), x); };
  auto sigmoid = [&](Term x) { return ir::broadcast_binary(BinOp::Add, half(ir::unary(ir::UnOp::Tanh, half(x))), ir::real_scalar(0.5)); };
  Term c2 = ir::binary(BinOp::Add, ir::binary(BinOp::Mul, sigmoid(zf), c), ir::binary(BinOp::Mul, sigmoid(zi), ir::unary(ir::UnOp::Tanh, zg)));
  Term v = ir::var("c2", rt({u}));
  p.outputs = {ir::let("c2", c2, ir::binary(BinOp::Mul, sigmoid(zo), ir::unary(ir::UnOp::Tanh, v)))};
  return p;
}

// The gates by the formula with the C library's tanh: both sides are checked against it
// before they are timed (SLEEF's and Eigen's tanh are within a few ulps of it).
std::vector<double> gates_reference(const std::vector<std::vector<double>> &z) {
  auto sig = [](double x) { return 0.5 * std::tanh(0.5 * x) + 0.5; };
  std::vector<double> h(z[0].size());
  for (size_t k = 0; k < h.size(); ++k) {
    double c2 = sig(z[1][k]) * z[4][k] + sig(z[0][k]) * std::tanh(z[3][k]);
    h[k] = sig(z[2][k]) * std::tanh(c2);
  }
  return h;
}
bool close(const double *got, const std::vector<double> &want) {
  for (size_t k = 0; k < want.size(); ++k)
    if (std::abs(got[k] - want[k]) > 1e-13) return false;
  return true;
}
std::vector<std::vector<double>> gates_inputs(int64_t u) {
  std::vector<std::vector<double>> z;
  for (unsigned q = 0; q < 5; ++q) {
    ir::Tensor t = random_tensor({u}, q + 1);
    z.emplace_back(t.r.begin(), t.r.end());
    for (auto &x : z.back()) x *= 8.0;  // pre-activations in [-4, 4)
  }
  return z;
}

void BM_GatesEigen(benchmark::State &st) {
  const int64_t u = st.range(0);
  auto in = gates_inputs(u);
  std::vector<Eigen::ArrayXd> z;
  for (auto &v : in) z.push_back(Eigen::Map<Eigen::ArrayXd>(v.data(), u));
  Eigen::ArrayXd c2(u), h(u);
  c2 = z[1].logistic() * z[4] + z[0].logistic() * z[3].tanh();
  h = z[2].logistic() * c2.tanh();
  if (!close(h.data(), gates_reference(in))) st.SkipWithError("Eigen's gates differ from the formula");
  for (auto _ : st) {
    c2 = z[1].logistic() * z[4] + z[0].logistic() * z[3].tanh();
    h = z[2].logistic() * c2.tanh();
    benchmark::DoNotOptimize(h.data());
    benchmark::ClobberMemory();
  }
}

void BM_GatesExec(benchmark::State &st) {
  const int64_t u = st.range(0);
  ir::Program p = gates(u);
  auto ex = exec::compile(p, options<double>());
  auto in = gates_inputs(u);
  std::vector<double> out(static_cast<size_t>(u));
  std::vector<const void *> args;
  for (auto &v : in) args.push_back(v.data());
  std::vector<void *> outs{out.data()};
  ex->run_raw(args, outs);
  if (!close(out.data(), gates_reference(in))) st.SkipWithError("the executor's gates differ from the formula");
  for (auto _ : st) {
    ex->run_raw(args, outs);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
}

BENCHMARK(BM_GatesEigen)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_GatesExec)->Arg(64)->Arg(256)->Arg(1024)->Unit(benchmark::kMicrosecond);

// The console output, then the table of ratios to Eigen from the same run.
class RatioReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run> &runs) override {
    for (auto &r : runs) {
      if (r.error_occurred) continue;
      bool agg = r.run_type == Run::RT_Aggregate;
      if (agg && r.aggregate_name != "median") continue;
      const std::string &f = r.run_name.function_name;  // "BM_Eigen<double>"
      auto lt = f.find('<');
      if (lt == std::string::npos) continue;  // the gates: console only
      std::string variant = f.substr(3, lt - 3), type = f.substr(lt + 1, f.size() - lt - 2);
      auto &slot = times_[{type, r.run_name.args}][variant];
      if (agg || slot.second == 0) slot = {r.GetAdjustedCPUTime(), agg ? 2 : 1};
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    std::printf("\nFraction of Eigen's speed (Eigen CPU time / executor CPU time; goal >= 0.80):\n");
    std::printf("%-8s %-24s %12s %12s %12s %9s %9s\n", "type", "m/n/k/form", "Eigen us", "raw us", "run us", "raw", "run");
    for (auto &entry : times_) {
      const auto &key = entry.first;
      const auto &v = entry.second;  // not a structured binding: clang 14 cannot capture those
      auto get = [&](const char *n) {
        auto it = v.find(n);
        return it == v.end() ? 0.0 : it->second.first;
      };
      double e = get("Eigen"), raw = get("ExecRaw"), run = get("ExecRun");
      if (e <= 0) continue;
      std::printf("%-8s %-24s %12.1f %12.1f %12.1f %9.3f %9.3f\n", key.first.c_str(), key.second.c_str(), e, raw, run,
                  raw > 0 ? e / raw : 0.0, run > 0 ? e / run : 0.0);
    }
    ConsoleReporter::Finalize();
  }

 private:
  // (type, args) → variant → (time, 1 single run / 2 median)
  std::map<std::pair<std::string, std::string>, std::map<std::string, std::pair<double, int>>> times_;
};

}  // namespace

int main(int argc, char **argv) {
  Eigen::setNbThreads(1);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  RatioReporter reporter;
  benchmark::RunSpecifiedBenchmarks(&reporter);
  benchmark::Shutdown();
  return 0;
}
