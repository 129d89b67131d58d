// Oracle throughput: cell evaluations per second on scalar programs, against a
// hand-written C++ loop computing the same streams (the baseline, in the same run);
// linearity in the prefix length; memory per cell.
//
// The program: `layers` equations chained through arithmetic and fby, on one real input:
//   v0 = x;  v{k} = 0.5 * v{k-1} + (0.0 fby v{k-1})   (k = 1..layers-1);  o = v{layers-1}
#include <benchmark/benchmark.h>

#include <string>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"

namespace {

std::string chain_program(int layers) {
  std::string s = "node chain(x: real) -> (o: real)\n  v0 = x;\n";
  for (int k = 1; k < layers; ++k)
    s += "  v" + std::to_string(k) + " = 0.5 * v" + std::to_string(k - 1) + " + (0.0 fby v" + std::to_string(k - 1) + ");\n";
  s += "  o = v" + std::to_string(layers - 1) + ";\n";
  return s;
}

struct Setup {
  std::unique_ptr<rml::FrontendResult> fe;
  rml::core::Program prog;
  rml::oracle::Inputs in;
  Setup(int layers, size_t cycles) {
    fe = rml::run_frontend("bench.rml", chain_program(layers));
    prog = rml::core::elaborate(fe->checked, "chain");
    in.cycles = cycles;
    auto &x = in.streams["x"];
    x.reserve(cycles);
    for (size_t n = 0; n < cycles; ++n) x.push_back(rml::oracle::Cell::of(rml::array::Tensor::real(double(n % 7))));
  }
};

void BM_OracleWorklist(benchmark::State &st) {
  Setup s(static_cast<int>(st.range(0)), static_cast<size_t>(st.range(1)));
  rml::oracle::Oracle o(s.fe->checked, s.prog);
  uint64_t cells = 0, bytes = 0;
  for (auto _ : st) {
    auto r = o.run(s.in, rml::oracle::Solver::Worklist);
    cells = r.evaluations;
    bytes = r.store_bytes;
    benchmark::DoNotOptimize(r.vars.size());
  }
  st.counters["cell_evals_per_s"] = benchmark::Counter(double(cells), benchmark::Counter::kIsIterationInvariantRate);
  st.counters["bytes_per_cell"] = double(bytes) / double(s.prog.equations.size() * s.in.cycles);
  st.counters["equations"] = double(s.prog.equations.size());
}

// The same streams computed by a direct loop: the baseline for the ratio.
void BM_HandWrittenLoop(benchmark::State &st) {
  int layers = static_cast<int>(st.range(0));
  size_t cycles = static_cast<size_t>(st.range(1));
  std::vector<double> v(static_cast<size_t>(layers)), prev(static_cast<size_t>(layers), 0.0), out(cycles);
  for (auto _ : st) {
    std::fill(prev.begin(), prev.end(), 0.0);
    for (size_t n = 0; n < cycles; ++n) {
      v[0] = double(n % 7);
      for (int k = 1; k < layers; ++k) v[k] = 0.5 * v[k - 1] + prev[k - 1];
      out[n] = v[layers - 1];
      prev = v;
    }
    benchmark::DoNotOptimize(out.data());
  }
}

void BM_OracleKleene(benchmark::State &st) {
  Setup s(static_cast<int>(st.range(0)), static_cast<size_t>(st.range(1)));
  rml::oracle::Oracle o(s.fe->checked, s.prog);
  uint64_t cells = 0;
  for (auto _ : st) {
    auto r = o.run(s.in, rml::oracle::Solver::Kleene);
    cells = r.evaluations;
    benchmark::DoNotOptimize(r.vars.size());
  }
  st.counters["cell_evals_per_s"] = benchmark::Counter(double(cells), benchmark::Counter::kIsIterationInvariantRate);
}

}  // namespace

// Throughput and linearity: 10 layers over 10^3 .. 10^6 cycles.
BENCHMARK(BM_OracleWorklist)->Args({10, 1000})->Args({10, 10000})->Args({10, 100000})->Args({10, 1000000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HandWrittenLoop)->Args({10, 1000})->Args({10, 1000000})->Unit(benchmark::kMillisecond);
// The 100-equation program over 10^6 cycles (bounded memory: see bytes_per_cell).
BENCHMARK(BM_OracleWorklist)->Args({100, 1000000})->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_HandWrittenLoop)->Args({100, 1000000})->Unit(benchmark::kMillisecond);
// The literal Kleene iteration is quadratic on long fby chains: small prefixes only.
BENCHMARK(BM_OracleKleene)->Args({10, 100})->Args({10, 200})->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
