// ADBench LSTM (data/adbench/lstm: l ∈ {2, 4} × c ∈ {1024, 4096}, b = 14): the objective
// of the stream program reference/adbench/lstm.rml and the gradient of the training
// program `rml adjoint` derives from it (BPTT through post chains), run on the stream path
// (src/stream's runner, a window of one sequence, funs on the compiled path) and on the
// oracle, against the objective written directly as loops and ADOL-C's taped gradient of
// the same loops (taping excluded, as ADBench does). Each instance is checked before it
// is timed: the rml objective equals the loops' (1e-12) and the rml gradient ADOL-C's
// (rho <= 1e-8). The summary prints minimum CPU times and the target ratios on each
// path: grad/obj (rml gradient / rml objective, target <= 4) and adolc/grad (target > 1).
// The stream runner holds a frame per cycle of the sequence (BPTT needs the whole
// sequence, and a frame holds every variable): for the gradient it is memory-bound.
//
//   ./build/benchmarks/adbench/bench_lstm [--instances=l2_c1024,...] [--oracle]
#include <adolc/adolc.h>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "adjoint/adjoint.hpp"
#include "core/clocks.hpp"
#include "driver/compiled_funs.hpp"
#include "lstm_data.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"
#include "stream/plan.hpp"
#include "stream/runner.hpp"
#include "syntax/diag.hpp"

namespace {

using rml::adbench::LstmInput;
using rml::oracle::Cell;

std::string data_dir() {
  const char *env = std::getenv("RML_ADBENCH_DIR");
  return env ? env : RML_ADBENCH_DEFAULT_DIR;
}

std::string read_text(const std::string &path) {
  std::string err;
  auto t = rml::read_file(path, err);
  if (!t) throw std::runtime_error(err);
  return *t;
}

// A node of a checked text, elaborated, with its stream plan.
struct Node {
  std::unique_ptr<rml::FrontendResult> fe;
  rml::core::Program prog;
  rml::core::Clocks clocks;
  rml::stream::Plan plan;
  std::unique_ptr<rml::driver::CompiledFuns> funs;
  Node(const std::string &text, const std::string &main) {
    fe = rml::run_frontend("lstm.rml", text);
    if (!fe->checked_ok) throw std::runtime_error(rml::render_all(fe->diags));
    prog = rml::core::elaborate(fe->checked, main);
    clocks = rml::core::infer_clocks(prog);
    plan = rml::stream::build_plan(prog, clocks);
    funs = std::make_unique<rml::driver::CompiledFuns>(fe->checked);
  }
  rml::oracle::Options::FunApply apply() {
    return [this](const std::string &fn, const std::vector<rml::StaticValue> &s, const std::vector<rml::array::Tensor> &a) {
      return funs->apply(fn, s, a);
    };
  }
};

Cell tensor(const double *v, std::vector<int64_t> shape) {
  rml::array::Tensor t = rml::array::Tensor::zeros(rml::Scalar::Real, shape);
  std::copy(v, v + t.r.size(), t.r.begin());
  return Cell::of(std::move(t));
}

// The cycles of the trace (benchmarks/adbench/to_json lstm), in the node's input order.
std::vector<std::vector<Cell>> trace(const LstmInput &in, const rml::core::Program &prog, bool derived) {
  const int64_t l = in.l, b = in.b;
  const std::vector<double> zm(in.main.size()), ze(in.extra.size()), zs(in.state.size());
  std::vector<std::vector<Cell>> cycles;
  const int T = in.c - 1;
  for (int t = 0; t < T; ++t) {
    std::map<std::string, Cell> c;
    c["x"] = tensor(&in.seq[t * b], {b});
    c["ygold"] = tensor(&in.seq[(t + 1) * b], {b});
    c["end"] = Cell::of(rml::array::Tensor::boolean(t == T - 1));
    c["count"] = Cell::of(rml::array::Tensor::real(double(T) * double(b)));
    c["main"] = tensor((t == 0 ? in.main : zm).data(), {2 * l, 4 * b});
    c["extra"] = tensor((t == 0 ? in.extra : ze).data(), {3, b});
    c["state"] = tensor((t == 0 ? in.state : zs).data(), {2 * l, b});
    if (derived) {
      c["bp"] = Cell::of(rml::array::Tensor::boolean(true));
      c["d_objective"] = Cell::of(rml::array::Tensor::real(t == T - 1 ? 1.0 : 0.0));
    }
    std::vector<Cell> row;
    for (auto &v : prog.inputs) row.push_back(c.at(v.name));
    cycles.push_back(std::move(row));
  }
  return cycles;
}

struct Instance {
  std::string name;
  LstmInput in;
  std::vector<double> params;
  std::unique_ptr<Node> fwd, adj;
  std::vector<std::vector<Cell>> fwd_trace, adj_trace;
  short tag = 0;
};

std::vector<std::unique_ptr<Instance>> &instances() {
  static std::vector<std::unique_ptr<Instance>> v;
  return v;
}

// The stream path: the objective at the last cycle, or the gradient (d_main, d_extra) at
// cycle 0, which leaves the window once the sequence's backward chain is complete.
std::vector<double> run_stream(Node &n, const std::vector<std::vector<Cell>> &cycles, bool gradient) {
  rml::stream::Options o;
  o.lag = gradient ? cycles.size() + 1 : 0;
  o.apply_fun = n.apply();
  // As rml run does: each fun's executable on its operands' words, no tensor copies.
  o.fun_executable = [&n](const std::string &fn, const std::vector<rml::StaticValue> &statics, const std::vector<rml::ir::Type> &types) {
    return &n.funs->executable(fn, statics, types);
  };
  std::vector<double> out;
  const int obj = n.plan.slot("objective");
  const int dm = gradient ? n.plan.slot("d_main") : -1, de = gradient ? n.plan.slot("d_extra") : -1;
  const size_t last = cycles.size() - 1;
  o.read_slots = std::vector<int>{obj};  // what the callback reads (as rml run says what it shows)
  if (gradient) o.read_slots->insert(o.read_slots->end(), {dm, de});
  rml::stream::Runner r(n.fe->checked, n.plan, o, [&](const rml::stream::FrameView &f) {
    if (gradient && f.cycle == 0) {
      for (int s : {dm, de})
        if (f.tag(s) == rml::oracle::Tag::Val) {
          auto c = f.cell(s);
          out.insert(out.end(), c.value.r.begin(), c.value.r.end());
        }
    }
    if (!gradient && f.cycle == last && f.tag(obj) == rml::oracle::Tag::Val) out.push_back(f.cell(obj).value.r[0]);
  });
  for (auto &c : cycles) r.push(c);
  r.finish();
  return out;
}

std::vector<double> run_oracle(Node &n, const std::vector<std::vector<Cell>> &cycles, bool gradient) {
  rml::oracle::Options o;
  o.apply_fun = n.apply();
  rml::oracle::Oracle orc(n.fe->checked, n.prog, n.clocks, o);
  rml::oracle::Inputs in;
  in.cycles = cycles.size();
  for (size_t k = 0; k < n.prog.inputs.size(); ++k)
    for (auto &c : cycles) in.streams[n.prog.inputs[k].name].push_back(c[k]);
  auto r = orc.run(in);
  std::vector<double> out;
  if (gradient) {
    for (const char *v : {"d_main", "d_extra"})
      if (r.tag(v, 0) == rml::oracle::Tag::Val) {
        auto c = r.at(v, 0);
        out.insert(out.end(), c.value.r.begin(), c.value.r.end());
      }
  } else if (r.tag("objective", cycles.size() - 1) == rml::oracle::Tag::Val) {
    out.push_back(r.at("objective", cycles.size() - 1).value.r[0]);
  }
  return out;
}

double rho(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(a) + std::abs(b)); }

void tape(Instance &I) {
  const int n = static_cast<int>(I.params.size());
  // Buffers sized from an upper bound of the operation count (per character, layer and
  // unit about 40 operations), so that the tape stays in memory (no ADOLC-*.tap files).
  const size_t ops = static_cast<size_t>(I.in.c) * static_cast<size_t>(I.in.b) * (60 * static_cast<size_t>(I.in.l) + 20) + 65536;
  auto u = [](size_t v) { return static_cast<uint>(std::min<size_t>(v, UINT32_MAX)); };
  trace_on(I.tag, 1, u(ops), u(4 * ops), u(ops), u(ops));
  {
    std::vector<adouble> ap(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) ap[i] <<= I.params[i];
    adouble y = rml::adbench::lstm_objective_loops<adouble>(I.in, ap.data());
    double v;
    y >>= v;
  }
  trace_off();
}

std::vector<double> adolc_gradient(Instance &I) {
  std::vector<double> g(I.params.size());
  if (::gradient(I.tag, static_cast<int>(g.size()), I.params.data(), g.data()) < 0)
    throw std::runtime_error("ADOL-C gradient failed");
  return g;
}

void setup(const std::string &name, short tag) {
  auto I = std::make_unique<Instance>();
  I->name = name;
  I->tag = tag;
  I->in = rml::adbench::read_lstm(data_dir() + "/lstm/lstm_" + name + ".txt");
  I->params = I->in.main;
  I->params.insert(I->params.end(), I->in.extra.begin(), I->in.extra.end());
  const std::string text = read_text(std::string(RML_SOURCE_DIR) + "/reference/adbench/lstm.rml");
  const std::string main = "adbench_lstm_l" + std::to_string(I->in.l);
  auto fr = rml::run_frontend("lstm.rml", text);
  auto d = rml::adjoint::derive(*fr, "lstm.rml", text, main);
  I->fwd = std::make_unique<Node>(text, main);
  I->adj = std::make_unique<Node>(d.source, d.node);
  I->fwd_trace = trace(I->in, I->fwd->prog, false);
  I->adj_trace = trace(I->in, I->adj->prog, true);
  tape(*I);
  // Checked before timing: objective against the loops, gradient against ADOL-C.
  const double want = rml::adbench::lstm_objective_loops<double>(I->in, I->params.data());
  auto obj = run_stream(*I->fwd, I->fwd_trace, false);
  if (obj.size() != 1 || std::abs(obj[0] - want) > 1e-12 * std::abs(want))
    throw std::runtime_error(name + ": rml objective differs from the loops' " + std::to_string(want));
  auto g = run_stream(*I->adj, I->adj_trace, true), ga = adolc_gradient(*I);
  if (g.size() != ga.size()) throw std::runtime_error(name + ": rml gradient has " + std::to_string(g.size()) + " entries");
  for (size_t k = 0; k < g.size(); ++k)
    if (rho(g[k], ga[k]) > 1e-8) throw std::runtime_error(name + ": rml gradient differs from ADOL-C's at " + std::to_string(k));
  std::printf("%s: objective %.10f (loops %.10f), %zu gradient entries equal to ADOL-C's (rho <= 1e-8)\n", name.c_str(),
              obj[0], want, g.size());
  instances().push_back(std::move(I));
}

void register_instance(Instance &I, bool oracle) {
  const std::string s = "/" + I.name;
  benchmark::RegisterBenchmark(("loops_objective" + s).c_str(), [&I](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(rml::adbench::lstm_objective_loops<double>(I.in, I.params.data()));
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("adolc_gradient" + s).c_str(), [&I](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(adolc_gradient(I));
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("rml_stream_objective" + s).c_str(), [&I](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(run_stream(*I.fwd, I.fwd_trace, false));
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("rml_stream_gradient" + s).c_str(), [&I](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(run_stream(*I.adj, I.adj_trace, true));
  })->Unit(benchmark::kMillisecond);
  if (!oracle) return;
  benchmark::RegisterBenchmark(("rml_oracle_objective" + s).c_str(), [&I](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(run_oracle(*I.fwd, I.fwd_trace, false));
  })->Unit(benchmark::kMillisecond);
  benchmark::RegisterBenchmark(("rml_oracle_gradient" + s).c_str(), [&I](benchmark::State &st) {
    for (auto _ : st) benchmark::DoNotOptimize(run_oracle(*I.adj, I.adj_trace, true));
  })->Unit(benchmark::kMillisecond);
}

class SummaryReporter : public benchmark::ConsoleReporter {
 public:
  void ReportRuns(const std::vector<Run> &runs) override {
    for (const auto &r : runs) {
      if (r.run_type != Run::RT_Iteration || r.error_occurred || r.iterations == 0) continue;
      const double sec = r.cpu_accumulated_time / static_cast<double>(r.iterations);
      auto [it, fresh] = min_.emplace(r.run_name.function_name, sec);
      if (!fresh) it->second = std::min(it->second, sec);
    }
    ConsoleReporter::ReportRuns(runs);
  }
  void Finalize() override {
    ConsoleReporter::Finalize();
    auto &out = GetOutputStream();
    out << "\nMinimum CPU time over repetitions (ms). Ratios, per path (stream runner, oracle):\n"
        << "  grad/obj = gradient / objective (target <= 4); adolc/grad = adolc_gradient / gradient (target > 1);\n"
        << "  obj/loops = objective / loops_objective\n\n";
    char line[512];
    std::snprintf(line, sizeof line, "%-9s %9s %10s %9s %9s %9s %9s %8s %8s %8s %8s %9s\n", "inst", "loops_obj", "adolc_grad",
                  "str_obj", "str_grad", "orc_obj", "orc_grad", "str g/o", "orc g/o", "adolc/s", "adolc/o", "orc o/lp");
    out << line;
    for (auto &I : instances()) {
      auto t = [&](const std::string &k) {
        auto it = min_.find(k + "/" + I->name);
        return it == min_.end() ? -1.0 : it->second * 1e3;
      };
      auto ratio = [](double a, double b) { return a < 0 || b <= 0 ? -1.0 : a / b; };
      const double lo = t("loops_objective"), ag = t("adolc_gradient"), ro = t("rml_stream_objective"),
                   rg = t("rml_stream_gradient"), oo = t("rml_oracle_objective"), og = t("rml_oracle_gradient");
      std::snprintf(line, sizeof line, "%-9s %9.4g %10.4g %9.4g %9.4g %9.4g %9.4g %8.2f %8.2f %8.3f %8.3f %9.2f\n",
                    I->name.c_str(), lo, ag, ro, rg, oo, og, ratio(rg, ro), ratio(og, oo), ratio(ag, rg), ratio(ag, og),
                    ratio(oo, lo));
      out << line;
    }
    out << "(-1: not measured)\n";
  }

 private:
  std::map<std::string, double> min_;
};

}  // namespace

int main(int argc, char **argv) {
  std::vector<std::string> names = {"l2_c1024", "l4_c1024", "l2_c4096", "l4_c4096"};
  bool oracle = false;
  std::vector<char *> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::strncmp(argv[i], "--instances=", 12) == 0) {
      names.clear();
      std::string s = argv[i] + 12;
      for (size_t a = 0, b; a <= s.size(); a = b + 1) {
        b = s.find(',', a);
        if (b == std::string::npos) b = s.size();
        if (b > a) names.push_back(s.substr(a, b - a));
      }
    } else if (std::strcmp(argv[i], "--oracle") == 0) {
      oracle = true;
    } else {
      rest.push_back(argv[i]);
    }
  }
  int n = static_cast<int>(rest.size());
  benchmark::Initialize(&n, rest.data());
  rml::stream::keep_tensor_blocks_in_heap();
  try {
    short tag = 1;
    for (auto &name : names) setup(name, tag++);
  } catch (const std::exception &e) {
    std::fprintf(stderr, "bench_lstm: %s\n", e.what());
    return 1;
  }
  for (auto &I : instances()) register_instance(*I, oracle);
  SummaryReporter rep;
  benchmark::RunSpecifiedBenchmarks(&rep);
  benchmark::Shutdown();
  return 0;
}
