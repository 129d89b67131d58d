// rml-check's cost: the whole reference corpus, and synthetic programs of 100,
// 1000 and 10000 equations (front end + elaboration + all three properties). The baseline
// in the same run is the front end alone on the same text, so the ratio is the checker's
// own cost.
#include <benchmark/benchmark.h>

#include <filesystem>

#include "checker/checker.hpp"
#include "core/normalize.hpp"
#include "sema/frontend.hpp"
#include "driver/expectations.hpp"

namespace {

// v_k = merge c ((v_{k-1} + 1) when c) ((0 fby v_{k-1}) when not c): well-clocked, causal,
// post-free; with `backward`, the output is back-filled from a cut every 4 cycles.
std::string synthetic(int n, bool backward) {
  std::string s = "node big(x: int, c: bool) -> (o: int)\n  v0 = x;\n";
  for (int k = 1; k < n; ++k) {
    std::string p = "v" + std::to_string(k - 1);
    s += "  v" + std::to_string(k) + " = merge c ((" + p + " + 1) when c) ((0 fby " + p + ") when not c);\n";
  }
  std::string last = "v" + std::to_string(n - 1);
  if (backward) {
    s += "  k = 0 fby (if k = 3 then 0 else k + 1);\n  bp = (k = 3);\n";
    s += "  o = merge bp (" + last + " when bp) ((post o) when not bp);\n";
  } else {
    s += "  o = " + last + ";\n";
  }
  return s;
}

void BM_FrontEndOnly(benchmark::State &st) {
  std::string text = synthetic(static_cast<int>(st.range(0)), st.range(1) != 0);
  for (auto _ : st) {
    auto fe = rml::run_frontend("big.rml", text);
    auto prog = rml::core::elaborate(fe->checked, "big");
    benchmark::DoNotOptimize(prog.equations.size());
  }
}

void BM_Check(benchmark::State &st) {
  std::string text = synthetic(static_cast<int>(st.range(0)), st.range(1) != 0);
  int exit_code = -1;
  for (auto _ : st) {
    auto fe = rml::run_frontend("big.rml", text);
    auto prog = rml::core::elaborate(fe->checked, "big");
    auto rep = rml::check::check_program(fe->checked, prog, {});
    exit_code = rep.exit_code();
  }
  st.counters["exit_code"] = exit_code;  // 0: everything proved
}

// Every reference program with a concrete main, as `rml-check` would run it.
void BM_ReferenceCorpus(benchmark::State &st) {
  std::vector<std::pair<std::string, std::string>> files;
  for (auto &e : std::filesystem::recursive_directory_iterator(std::string(RML_SOURCE_DIR) + "/reference"))
    if (e.path().extension() == ".rml") {
      std::string err;
      files.emplace_back(e.path().string(), *rml::read_file(e.path().string(), err));
    }
  int checked = 0;
  for (auto _ : st) {
    checked = 0;
    for (auto &[path, text] : files) {
      auto fe = rml::run_frontend(path, text);
      if (fe->diags.has_errors()) continue;
      std::string main = rml::parse_expectations(text).main_node;
      if (main.empty() || !rml::core::can_be_main(fe->checked, main)) continue;
      auto prog = rml::core::elaborate(fe->checked, main);
      rml::check::Options o;
      o.rlimit = 5'000'000;
      auto rep = rml::check::check_program(fe->checked, prog, o);
      benchmark::DoNotOptimize(rep.properties.size());
      ++checked;
    }
  }
  st.counters["files"] = double(files.size());
  st.counters["mains_checked"] = checked;
}

}  // namespace

BENCHMARK(BM_ReferenceCorpus)->Unit(benchmark::kMillisecond)->Iterations(1);
BENCHMARK(BM_FrontEndOnly)->Args({100, 0})->Args({1000, 0})->Args({10000, 0})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Check)->Args({100, 0})->Args({1000, 0})->Args({10000, 0})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Check)->Args({100, 1})->Args({1000, 1})->Unit(benchmark::kMillisecond)->Iterations(1);

BENCHMARK_MAIN();
