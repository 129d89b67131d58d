// The stream path's throughput: the stream runner and the clock-directed machine
// (src/stream) and rml compile's generated step class on scalar programs, against a
// hand-written C++ loop computing the same streams and against the oracle, in the same
// run; the frames the runner holds, whatever the number of cycles.
//
// Programs: the chain of bench_oracle (`layers` equations through arithmetic and fby) and
// backfill (Figure 16, a post cut by an input every 4 cycles at most).
#include <benchmark/benchmark.h>

#include <Eigen/Dense>
#include <cmath>
#include <cstdlib>

#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>

#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"
#include "stream/plan.hpp"
#include "stream/machine.hpp"
#include "stream/runner.hpp"
#include "driver/compiled_funs.hpp"
#include "codegen/emit_abi.hpp"
#include "codegen/native_class.hpp"
#include "rml/rml.hpp"
#include "common/count_allocations.hpp"  // allocs_per_cycle: heap allocations counted (tests/common)

#include "chain.hpp"  // rml compile of the 100-layer chain (benchmarks/CMakeLists.txt)
#include "lstm256/lstm.hpp"  // rml compile of Figure 20 at 256 x 128
#include "lstm64/lstm.hpp"   // and at 64 x 32
#include "train/train.hpp"     // rml compile of Figure 3's train

namespace {

using rml::oracle::Cell;

std::string chain_program(int layers) {
  std::string s = "node chain(x: real) -> (o: real)\n  v0 = x;\n";
  for (int k = 1; k < layers; ++k)
    s += "  v" + std::to_string(k) + " = 0.5 * v" + std::to_string(k - 1) + " + (0.0 fby v" + std::to_string(k - 1) + ");\n";
  s += "  o = v" + std::to_string(layers - 1) + ";\n";
  return s;
}
const char *kBackfill =
    "node backfill(i: int, bp: bool) -> (o: int)\n"
    "  o = merge bp (i when bp) ((post o) when not bp);\n";

struct Compiled {
  std::unique_ptr<rml::FrontendResult> fe;
  rml::core::Program prog;
  rml::core::Clocks clocks;
  rml::stream::Plan plan;
  Compiled(const std::string &text, const std::string &main) {
    fe = rml::run_frontend("bench.rml", text);
    prog = rml::core::elaborate(fe->checked, main);
    clocks = rml::core::infer_clocks(prog);
    plan = rml::stream::build_plan(prog, clocks);
  }
};

Cell chain_input(size_t n) { return Cell::of(rml::array::Tensor::real(double(n % 7))); }

void BM_StreamChain(benchmark::State &st) {
  Compiled c(chain_program(static_cast<int>(st.range(0))), "chain");
  size_t cycles = static_cast<size_t>(st.range(1));
  int out = c.plan.slot("o");
  std::vector<Cell> in(1);
  size_t frames = 0;
  uint64_t evals = 0;
  double sum = 0;
  for (auto _ : st) {
    rml::stream::Runner r(c.fe->checked, c.plan, {}, [&](const rml::stream::FrameView &f) { sum += f.tag(out) == rml::oracle::Tag::Val; });
    for (size_t n = 0; n < cycles; ++n) {
      in[0] = chain_input(n);
      r.push(in);
    }
    r.finish();
    frames = r.max_window();
    evals = r.evaluations();
  }
  benchmark::DoNotOptimize(sum);
  st.counters["frames_held"] = double(frames);
  st.counters["evals_per_cell"] = double(evals) / double(cycles * (c.plan.steps.size()));
}

// The clock-directed machine (stream/machine.hpp): the same node, in process, from
// instructions (what rml run --backend stream uses for post-free scalar nodes).
void BM_MachineChain(benchmark::State &st) {
  Compiled c(chain_program(static_cast<int>(st.range(0))), "chain");
  size_t cycles = static_cast<size_t>(st.range(1));
  int out = c.plan.slot("o");
  rml::stream::Machine m(c.prog, c.clocks, c.plan);
  rml::stream::InputValue in;
  in.present = true;
  double sum = 0;
  for (auto _ : st) {
    m.reset();
    for (size_t n = 0; n < cycles; ++n) {
      in.r = double(n % 7);
      if (m.step(&in) != rml::stream::Machine::Status::Ok) st.SkipWithError("the machine stopped");
      sum += m.real(out);
    }
  }
  benchmark::DoNotOptimize(sum);
  st.counters["instructions"] = double(m.instructions());
}

void BM_HandWrittenChain(benchmark::State &st) {
  int layers = static_cast<int>(st.range(0));
  size_t cycles = static_cast<size_t>(st.range(1));
  std::vector<double> v(static_cast<size_t>(layers)), prev(static_cast<size_t>(layers), 0.0);
  double sum = 0;
  for (auto _ : st) {
    std::fill(prev.begin(), prev.end(), 0.0);
    for (size_t n = 0; n < cycles; ++n) {
      v[0] = double(n % 7);
      for (int k = 1; k < layers; ++k) v[k] = 0.5 * v[k - 1] + prev[k - 1];
      sum += v[layers - 1];
      prev = v;
    }
  }
  benchmark::DoNotOptimize(sum);
}

// The step class rml compile generates for the 100-layer chain.
void BM_GeneratedChain(benchmark::State &st) {
  size_t cycles = static_cast<size_t>(st.range(0));
  double sum = 0;
  for (auto _ : st) {
    bench::chain c;
    bench::chain::Outputs out;
    for (size_t n = 0; n < cycles; ++n) {
      c.step({rml::Cell<double>::of(double(n % 7))}, out);
      sum += out.o.value;
    }
  }
  benchmark::DoNotOptimize(sum);
}

// In process on the native class (`rml run --backend stream --native`'s engine): the
// chain's step class loaded behind its C ABI, a call per push and per pop.
void BM_NativeChain(benchmark::State &st) {
  Compiled c(chain_program(static_cast<int>(st.range(0))), "chain");
  auto files = rml::codegen::emit_cpp(c.prog, c.clocks, c.plan, "chain.rml", "rml_generated", 0, &c.fe->checked);
  rml::codegen::NativeBuild b;
  b.cache_dir = (std::filesystem::temp_directory_path() / "rml_bench_native").string();
  const std::string sig = rml::codegen::abi_signature({{"x", rml::Scalar::Real, {}}}, {{"o", rml::Scalar::Real, {}}});
  const size_t cycles = static_cast<size_t>(st.range(1));
  double sum = 0, o = 0;
  uint8_t kinds[1];
  void *words[1] = {&o};
  rml::codegen::NativeClass(files, "chain", sig, b);  // compiled here, untimed
  for (auto _ : st) {
    rml::codegen::NativeClass cls(files, "chain", sig, b);  // (from the cache: a new instance)
    for (size_t n = 0; n < cycles; ++n) {
      const double x = double(n % 7);
      const rml::codegen::AbiCell in[1] = {{rml::codegen::kAbiValue, &x}};
      if (cls.push(in) != 0 || cls.pop(kinds, words) != 1) st.SkipWithError("push failed");
      sum += o;
    }
  }
  benchmark::DoNotOptimize(sum);
}

void BM_OracleChain(benchmark::State &st) {
  Compiled c(chain_program(static_cast<int>(st.range(0))), "chain");
  rml::oracle::Inputs in;
  in.cycles = static_cast<size_t>(st.range(1));
  for (size_t n = 0; n < in.cycles; ++n) in.streams["x"].push_back(chain_input(n));
  rml::oracle::Oracle o(c.fe->checked, c.prog, c.clocks);
  for (auto _ : st) benchmark::DoNotOptimize(o.run(in).evaluations);
}

bool backfill_bp(size_t n) { return n % 4 == 3 || n % 7 == 0; }

void BM_StreamBackfill(benchmark::State &st) {
  Compiled c(kBackfill, "backfill");
  size_t cycles = static_cast<size_t>(st.range(0));
  std::vector<Cell> in(2);
  size_t frames = 0;
  int64_t sum = 0;
  int out = c.plan.slot("o");
  for (auto _ : st) {
    rml::stream::Runner r(c.fe->checked, c.plan, {}, [&](const rml::stream::FrameView &f) { sum += f.tag(out) == rml::oracle::Tag::Val; });
    for (size_t n = 0; n < cycles; ++n) {
      in[0] = Cell::of(rml::array::Tensor::integer(int64_t(n % 1000)));
      in[1] = Cell::of(rml::array::Tensor::boolean(backfill_bp(n)));
      r.push(in);
    }
    r.finish();
    frames = r.max_window();
  }
  benchmark::DoNotOptimize(sum);
  st.counters["frames_held"] = double(frames);
}

// Backfill by hand: a buffer of the cycles since the last cut, filled when bp holds.
void BM_HandWrittenBackfill(benchmark::State &st) {
  size_t cycles = static_cast<size_t>(st.range(0));
  int64_t sum = 0;
  for (auto _ : st) {
    size_t pending = 0;
    for (size_t n = 0; n < cycles; ++n) {
      ++pending;
      if (backfill_bp(n)) {
        sum += int64_t(n % 1000) * int64_t(pending);
        pending = 0;
      }
    }
  }
  benchmark::DoNotOptimize(sum);
}

// Figure 20's file with a main node `lstm` training diff_lstm_end at units x sizex (as
// benchmarks/CMakeLists.txt writes it for the generated classes).
std::string lstm_program(int units, int sizex) {
  std::ifstream f(std::string(RML_SOURCE_DIR) + "/reference/paper/fig20_diff_lstm_end.rml");
  std::stringstream text;
  text << f.rdbuf();
  std::string u = std::to_string(units), x = std::to_string(sizex);
  text << "\nnode lstm(x: real[" << x << "], end: bool, bp: bool, dh_next: real[" << u << "] when bp)\n  -> (h_next: real[" << u
       << "], dx: real[" << x << "] when bp)\n  h_next, dx = diff_lstm_end(" << u << ", " << x << ", x, end, bp, dh_next);\n";
  return text.str();
}

// Figure 20 repaired (reference/paper/fig20_diff_lstm_end.rml): LSTM training with
// truncated backpropagation, here at units x sizex, a sequence ending every 5 cycles
// (what rml-check proves productive: horizon 5), fun applications on the compiled path;
// time per `cycles` cycles in steady state (cycles is a multiple of 5: the pattern goes on).
void BM_StreamLstm(benchmark::State &st) {
  const int units = static_cast<int>(st.range(0)), sizex = static_cast<int>(st.range(1));
  const size_t cycles = static_cast<size_t>(st.range(2));
  const std::string text = lstm_program(units, sizex);
  Compiled c(text, "lstm");
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uni(-1, 1);
  auto vec = [&](int n, double scale) {
    rml::array::Tensor t = rml::array::Tensor::zeros(rml::Scalar::Real, {n});
    for (auto &e : t.r) e = uni(rng) * scale;
    return Cell::of(std::move(t));
  };
  std::vector<std::vector<Cell>> in;
  for (size_t n = 0; n < cycles; ++n)
    in.push_back({vec(sizex, 1.0), Cell::of(rml::array::Tensor::boolean(n % 5 == 4)), Cell::of(rml::array::Tensor::boolean(true)),
                  vec(units, 0.1)});
  rml::stream::keep_tensor_blocks_in_heap();  // as rml run does for tensor nodes
  rml::driver::CompiledFuns funs(c.fe->checked);
  rml::stream::Options o;
  o.lag = 5;
  o.fun_executable = [&](const std::string &fn, const std::vector<rml::StaticValue> &statics, const std::vector<rml::ir::Type> &types) {
    return &funs.executable(fn, statics, types);  // as rml run does
  };
  // Steady state: one runner, warmed up (the funs are compiled at their first application,
  // the ring grows to its window), then each iteration pushes `cycles` more cycles.
  rml::stream::Runner r(c.fe->checked, c.plan, o, nullptr);
  for (size_t n = 0; n < 100; ++n) r.push(in[n % in.size()]);  // past the window: the ring and the blocks have grown
  long allocations = rml::test::allocations(), pushed = 0;
  for (auto _ : st)
    for (auto &cyc : in) r.push(cyc), ++pushed;
  // Counted before the counter's name is built: the std::string "allocs_per_cycle" and its
  // map node are allocations of their own, which the count took for the class's.
  const long allocated = rml::test::allocations() - allocations;
  st.counters["allocs_per_cycle"] = double(allocated) / double(pushed);
  size_t frames = r.max_window();
  st.counters["cycles"] = double(cycles);
  st.counters["frames_held"] = double(frames);
  st.counters["equations"] = double(c.prog.equations.size());
}

// Figure 20 as rml compile writes it (the window class: std::arrays, the funs as loops in
// the reference evaluator's order), the same trace as BM_StreamLstm: push a cycle, pop
// what is final; time per `cycles` cycles in steady state.
template <class Lstm>
void generated_lstm(benchmark::State &st) {
  const int units = static_cast<int>(st.range(0)), sizex = static_cast<int>(st.range(1));
  const size_t cycles = static_cast<size_t>(st.range(2));
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uni(-1, 1);
  std::vector<typename Lstm::Inputs> in(cycles);
  for (size_t n = 0; n < cycles; ++n) {
    decltype(in[n].x.value) x{};
    decltype(in[n].dh_next.value) dh{};
    for (int k = 0; k < sizex; ++k) x[static_cast<size_t>(k)] = uni(rng);
    for (int k = 0; k < units; ++k) dh[static_cast<size_t>(k)] = uni(rng) * 0.1;
    in[n].x = decltype(in[n].x)::of(x);
    in[n].end = rml::Cell<bool>::of(n % 5 == 4);
    in[n].bp = rml::Cell<bool>::of(true);
    in[n].dh_next = decltype(in[n].dh_next)::of(dh);
  }
  auto m = std::make_unique<Lstm>();
  auto out = std::make_unique<typename Lstm::Outputs>();
  double sink = 0;
  for (size_t n = 0; n < 100; ++n) {  // past the window and the blocks' growth (as BM_StreamLstm)
    m->push(in[n % in.size()]);
    while (m->pop(*out)) sink += out->h_next.value[0];
  }
  long allocations = rml::test::allocations(), pushed = 0;
  for (auto _ : st)
    for (auto &cyc : in) {
      if (m->push(cyc) != rml::Status::Ok) st.SkipWithError("push failed");
      while (m->pop(*out)) sink += out->h_next.value[0];
      ++pushed;
    }
  // Counted before the counter's name is built: the std::string "allocs_per_cycle" and its
  // map node are allocations of their own, which the count took for the class's.
  const long allocated = rml::test::allocations() - allocations;
  st.counters["allocs_per_cycle"] = double(allocated) / double(pushed);
  benchmark::DoNotOptimize(sink);
  st.counters["cycles"] = double(cycles);
}
void BM_GeneratedLstm(benchmark::State &st) {
  if (st.range(0) == 64) generated_lstm<bench64::lstm>(st);
  else generated_lstm<bench256::lstm>(st);
}

// In process on the native class (`rml run --backend stream --native`'s engine): the class
// rml compile writes for the same node (api::compile), loaded behind its C ABI; each
// cycle's tensors cross as their words (the ABI copies them into the class's cells and
// the outputs out), the cost the ABI adds to the class's.
void BM_NativeLstm(benchmark::State &st) {
  const int units = static_cast<int>(st.range(0)), sizex = static_cast<int>(st.range(1));
  const size_t cycles = static_cast<size_t>(st.range(2));
  const std::string text = lstm_program(units, sizex);
  auto p = rml::api::load_text("lstm.rml", text, {"lstm", {"always eventually (end and bp) within 4", "always (bp or not end)"}});
  auto cc = p ? rml::api::compile(*p) : rml::api::Result<rml::api::CompiledClass>(p.failure());
  if (!cc) return st.SkipWithError("not compiled");
  std::vector<rml::codegen::GeneratedFile> files;
  for (auto &g : cc->files) files.push_back({g.path, g.text});
  rml::codegen::NativeBuild b;
  b.cache_dir = (std::filesystem::temp_directory_path() / "rml_bench_native").string();
  using P = rml::codegen::AbiPort;
  const std::string sig = rml::codegen::abi_signature(
      {P{"x", rml::Scalar::Real, {sizex}}, P{"end", rml::Scalar::Bool, {}}, P{"bp", rml::Scalar::Bool, {}}, P{"dh_next", rml::Scalar::Real, {units}}},
      {P{"h_next", rml::Scalar::Real, {units}}, P{"dx", rml::Scalar::Real, {sizex}}});
  rml::codegen::NativeClass cls(files, cc->class_name, sig, b);
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uni(-1, 1);
  std::vector<std::vector<double>> xs(cycles, std::vector<double>(static_cast<size_t>(sizex))), dhs(cycles, std::vector<double>(static_cast<size_t>(units)));
  std::vector<int64_t> ends(cycles);
  for (size_t n = 0; n < cycles; ++n) {
    for (auto &e : xs[n]) e = uni(rng);
    for (auto &e : dhs[n]) e = uni(rng) * 0.1;
    ends[n] = n % 5 == 4;
  }
  const int64_t yes = 1;
  std::vector<double> h(static_cast<size_t>(units)), dx(static_cast<size_t>(sizex));
  uint8_t kinds[2];
  void *words[2] = {h.data(), dx.data()};
  double sink = 0;
  auto push = [&](size_t n) {
    const rml::codegen::AbiCell in[4] = {{rml::codegen::kAbiValue, xs[n].data()},
                                         {rml::codegen::kAbiValue, &ends[n]},
                                         {rml::codegen::kAbiValue, &yes},
                                         {rml::codegen::kAbiValue, dhs[n].data()}};
    if (cls.push(in) != 0) st.SkipWithError("push failed");
    while (cls.pop(kinds, words) == 1) sink += h[0];
  };
  for (size_t n = 0; n < 100; ++n) push(n % cycles);  // past the window (as BM_GeneratedLstm)
  for (auto _ : st)
    for (size_t n = 0; n < cycles; ++n) push(n);
  benchmark::DoNotOptimize(sink);
}

// Figure 3's repaired `train` (reference/paper/fig03_gradient_descent.rml): a dense
// layer k i + b, squared, trained online by SGD through a pipeline register (its gradient
// arrives one cycle later, through `post`). As rml compile writes it (the window class,
// horizon 1), and by hand: the same operations in the same order, one cycle behind the
// inputs as the class is (the gradient of cycle n needs gt at n + 1).
std::vector<std::pair<double, double>> train_trace(size_t cycles) {
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> uni(-1, 1);
  std::vector<std::pair<double, double>> in(cycles);
  for (auto &[i, gt] : in) i = uni(rng), gt = 2 * i + 1;
  return in;
}
void BM_GeneratedTrain(benchmark::State &st) {
  auto in = train_trace(static_cast<size_t>(st.range(0)));
  auto m = std::make_unique<bench_fig03::train>();
  bench_fig03::train::Outputs out;
  for (auto _ : st) {
    m->reset();
    for (auto &[i, gt] : in) {
      if (m->push({rml::Cell<double>::of(i), rml::Cell<double>::of(gt)}) != rml::Status::Ok) st.SkipWithError("push failed");
      while (m->pop(out)) {
      }
    }
  }
  st.SetLabel(m->tagless() ? "tagless" : m->retimed() ? "retimed, tagged" : "worklist");
  st.counters["cycles"] = double(in.size());
}
// In process: `rml run --backend stream`'s engine on the same node, without the trace's
// reading and writing, on the window runtime. Arg 1: retimed (its tables' sweep); 0: the
// schedule's sweep and the worklist.
void BM_StreamTrain(benchmark::State &st) {
  std::ifstream f(std::string(RML_SOURCE_DIR) + "/reference/paper/fig03_gradient_descent.rml");
  std::stringstream text;
  text << f.rdbuf();
  Compiled c(text.str(), "train");
  auto in = train_trace(static_cast<size_t>(st.range(1)));
  rml::stream::Options o;
  o.retime = st.range(0) != 0;
  size_t frames = 0;
  std::vector<Cell> cyc(2);
  for (auto _ : st) {
    rml::stream::Runner r(c.fe->checked, c.plan, o, nullptr);
    for (auto &[i, gt] : in) {
      cyc[0] = Cell::of(rml::array::Tensor::real(i)), cyc[1] = Cell::of(rml::array::Tensor::real(gt));
      r.push(cyc);
    }
    r.finish();
    frames = r.max_window();
    st.SetLabel(r.engine());
  }
  st.counters["frames_held"] = double(frames);
  st.counters["cycles"] = double(in.size());
}
// In process on the native class (`rml run --native`'s engine, codegen/native_class.hpp):
// the class `rml compile` writes, compiled into a shared object at the first run (not timed)
// and driven through its C ABI, a call per push and pop, the words of each input in place.
void BM_NativeTrain(benchmark::State &st) {
  std::ifstream f(std::string(RML_SOURCE_DIR) + "/reference/paper/fig03_gradient_descent.rml");
  std::stringstream text;
  text << f.rdbuf();
  Compiled c(text.str(), "train");
  auto files = rml::codegen::emit_cpp(c.prog, c.clocks, c.plan, "fig03_gradient_descent.rml", "rml_generated", 1, &c.fe->checked);
  rml::codegen::NativeBuild b;
  b.cache_dir = (std::filesystem::temp_directory_path() / "rml_bench_native").string();
  std::vector<rml::codegen::AbiPort> ports = {{"i", rml::Scalar::Real, {}}, {"gt", rml::Scalar::Real, {}}};
  auto in = train_trace(static_cast<size_t>(st.range(0)));
  uint8_t kinds[1];
  void *words[1] = {nullptr};
  rml::codegen::NativeClass(files, "train", rml::codegen::abi_signature(ports, {}), b);  // compiled here, untimed
  for (auto _ : st) {
    rml::codegen::NativeClass fresh(files, "train", rml::codegen::abi_signature(ports, {}), b);  // (from the cache: a new instance)
    for (auto &[i, gt] : in) {
      const rml::codegen::AbiCell cells[2] = {{rml::codegen::kAbiValue, &i}, {rml::codegen::kAbiValue, &gt}};
      if (fresh.push(cells) != 0) st.SkipWithError("push failed");
      while (fresh.pop(kinds, words) == 1) {
      }
    }
    st.SetLabel((fresh.engine() & 4) ? "tagless" : "tagged");  // (before finish(), which ends the tagless run)
    fresh.finish();
  }
  st.counters["cycles"] = double(in.size());
}
void BM_HandWrittenTrain(benchmark::State &st) {
  auto in = train_trace(static_cast<size_t>(st.range(0)));
  double sink = 0;
  for (auto _ : st) {
    double k = 1.0, b = 0.0;
    for (size_t n = 0; n + 1 < in.size(); ++n) {
      double x = k * in[n].first + b;                      // dense; y = x at n + 1 (0.0 fby x)
      double o = x * x;                                    // multiply at n + 1
      double d = -0.01 * (2.0 * (o - in[n + 1].second));   // do = -learn_rate * mse_grad_i(o, gt)
      double dy = d * 2.0 * x;                             // diff_multiply
      k = k + in[n].first * dy;                            // diff_param: o + merge bp do 0.0
      b = b + dy;
    }
    sink += k + b;
  }
  benchmark::DoNotOptimize(sink);
  st.counters["cycles"] = double(in.size());
}

// The same training by hand with Eigen (f64, one thread, nothing allocated per cycle): an
// LSTM cell a = K [x; h] + b, gates f, i, o = sigmoid, g = tanh, c' = f c + i g,
// h' = o tanh(c'); the loss of a sequence is the sum of h' . dh_next; at each sequence end
// (every 5 cycles) backpropagation through its cycles gives dK, db and each cycle's dx,
// and SGD updates K and b. What the repaired Figure 20 computes, as PyTorch does it
// (torch_lstm_bptt.py), without rml's stream bookkeeping: the cost floor.
void BM_HandWrittenLstm(benchmark::State &st) {
  using Eigen::ArrayXd, Eigen::MatrixXd, Eigen::VectorXd;
  const int u = static_cast<int>(st.range(0)), m = static_cast<int>(st.range(1));
  const size_t cycles = static_cast<size_t>(st.range(2));
  const int E = 5;
  const double lr = 0.01;
  std::mt19937_64 rng(1);
  std::uniform_real_distribution<double> uni(-1, 1);
  MatrixXd K = MatrixXd::NullaryExpr(4 * u, m + u, [&] { return uni(rng) * std::sqrt(6.0 / (5 * u + m)); });
  VectorXd b = VectorXd::Zero(4 * u);
  MatrixXd xs = MatrixXd::NullaryExpr(m, static_cast<Eigen::Index>(cycles), [&] { return uni(rng); });
  MatrixXd dhs = MatrixXd::NullaryExpr(u, static_cast<Eigen::Index>(cycles), [&] { return uni(rng) * 0.1; });
  // Per cycle of a sequence: the cell's input z = [x; h], its gates, c before and after.
  MatrixXd Z(m + u, E), G(4 * u, E), Cp(u, E), C(u, E);
  VectorXd h = VectorXd::Zero(u), c = VectorXd::Zero(u), a(4 * u), da(4 * u), dz(m + u), dh(u), dc(u), db(4 * u);
  MatrixXd dK(4 * u, m + u), dx(m, E);
  double sink = 0;
  for (auto _ : st) {
    for (size_t n = 0; n < cycles; ++n) {
      const int t = static_cast<int>(n % E);
      Z.col(t) << xs.col(static_cast<Eigen::Index>(n)), h;
      a.noalias() = K * Z.col(t);
      a += b;
      auto g = G.col(t).array();
      g.head(3 * u) = 1.0 / (1.0 + (-a.head(3 * u).array()).exp());
      g.tail(u) = a.tail(u).array().tanh();
      Cp.col(t) = c;
      c.array() = g.segment(0, u) * c.array() + g.segment(u, u) * g.segment(3 * u, u);
      C.col(t) = c;
      h.array() = g.segment(2 * u, u) * c.array().tanh();
      if (t != E - 1) continue;
      // The sequence ends: backward through its cycles, then the step.
      dK.setZero(), db.setZero(), dh.setZero(), dc.setZero();
      for (int k = E - 1; k >= 0; --k) {
        dh += dhs.col(static_cast<Eigen::Index>(n) - (E - 1 - k));
        auto gk = G.col(k).array();
        ArrayXd tc = C.col(k).array().tanh();
        ArrayXd dct = dc.array() + dh.array() * gk.segment(2 * u, u) * (1 - tc * tc);
        da.segment(0, u).array() = dct * Cp.col(k).array() * gk.segment(0, u) * (1 - gk.segment(0, u));
        da.segment(u, u).array() = dct * gk.segment(3 * u, u) * gk.segment(u, u) * (1 - gk.segment(u, u));
        da.segment(2 * u, u).array() = dh.array() * tc * gk.segment(2 * u, u) * (1 - gk.segment(2 * u, u));
        da.segment(3 * u, u).array() = dct * gk.segment(u, u) * (1 - gk.segment(3 * u, u) * gk.segment(3 * u, u));
        dc.array() = dct * gk.segment(0, u);
        dK.noalias() += da * Z.col(k).transpose();
        db += da;
        dz.noalias() = K.transpose() * da;
        dx.col(k) = dz.head(m);
        dh = dz.tail(u);
      }
      K -= lr * dK;
      b -= lr * db;
      h.setZero(), c.setZero();  // the next sequence starts afresh (fby_end's reset)
      sink += dx(0, 0);
    }
  }
  benchmark::DoNotOptimize(sink);
  st.counters["cycles"] = double(cycles);
}

}  // namespace

BENCHMARK(BM_HandWrittenLstm)->Args({64, 32, 200})->Args({256, 128, 20})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamLstm)->Args({64, 32, 200})->Args({256, 128, 20})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeneratedLstm)->Args({64, 32, 200})->Args({256, 128, 20})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NativeLstm)->Args({64, 32, 200})->Args({256, 128, 20})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HandWrittenTrain)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeneratedTrain)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamTrain)->Args({1, 100000})->Args({0, 100000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NativeTrain)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HandWrittenChain)->Args({10, 10000})->Args({100, 10000})->Args({100, 1000000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_MachineChain)->Args({10, 10000})->Args({100, 10000})->Args({100, 1000000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamChain)->Args({10, 10000})->Args({100, 10000})->Args({100, 1000000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GeneratedChain)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_NativeChain)->Args({100, 1000000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_OracleChain)->Args({10, 10000})->Args({100, 10000})->Unit(benchmark::kMillisecond);
BENCHMARK(BM_HandWrittenBackfill)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_StreamBackfill)->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);

BENCHMARK_MAIN();
