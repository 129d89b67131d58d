// Buffers are reused across cycles; no heap allocation per cycle in steady
// state. This binary replaces the global operator new with a counter
// (tests/common/count_allocations.cpp; its own executable, so that the other test binaries
// keep the sanitizers' own new and delete) and counts what the in-process stream paths
// allocate in warm cycles of scalar programs and of Figure 20's training. (The generated
// classes are counted by CompiledClasses.AllocateNothingPerCycleOnceWarm, in their own
// driver.)
#include <gtest/gtest.h>

#include <deque>

#include "common/count_allocations.hpp"
#include "driver/compiled_funs.hpp"
#include "stream/machine.hpp"
#include "stream_util.hpp"

using namespace rml;
using oracle::Cell;

namespace {

// The allocations of `cycle(n)` over cycles [warm, warm + count), the first `warm` run first.
template <class F>
long allocations_once_warm(F cycle, size_t warm, size_t count) {
  for (size_t n = 0; n < warm; ++n) cycle(n);
  long before = test::allocations();
  for (size_t n = warm; n < warm + count; ++n) cycle(n);
  return test::allocations() - before;
}

struct Source {
  const char *what, *text, *main;
};

// Scalar programs of each shape the runner treats apart: state (fby, ->, pre) in a chain,
// a backward recurrence through a cut (Figure 16's backfill, a window of frames waiting
// for bp), post in a pipeline (Figure 3's train, with nodes), sampled clocks and merge.
const Source kPrograms[] = {
    {"a chain of fby", "node main(x: real) -> (o: real)\nvar a, b: real;\nlet\n  a = 0.5 * x + (0.0 fby a);\n  b = a -> pre (a + b);\n  o = b;\ntel\n", "main"},
    {"Figure 16's backfill",
     "node main(i: int, bp: bool) -> (o: int)\nlet\n  assume always eventually bp within 3;\n  o = merge bp (i when bp) ((post o) when not bp);\ntel\n", "main"},
    {"when, merge and a counter on a sampled clock",
     "node main(x: int, c: bool) -> (o: int)\nvar n: int when c;\nlet\n  n = 0 fby (n + 1);\n  o = merge c n ((x * 2) when not c);\ntel\n", "main"},
};

std::vector<Cell> inputs_at(const core::Program &prog, size_t n) {
  std::vector<Cell> cyc;
  for (auto &v : prog.inputs) {
    if (v.type.elem == Scalar::Real) cyc.push_back(Cell::of(array::Tensor::real(static_cast<double>(n % 7) - 3.0)));
    else if (v.type.elem == Scalar::Int) cyc.push_back(Cell::of(array::Tensor::integer(static_cast<int64_t>(n % 5))));
    else cyc.push_back(Cell::of(array::Tensor::boolean(n % 3 == 2)));
  }
  return cyc;
}

}  // namespace

// Law: once warm, the stream runner (rml run --backend stream) allocates nothing in a cycle
// of a scalar program: its frames are a ring, its worklist a vector that keeps its capacity.
// The inputs are built before the count (the caller's cells, not the runner's).
// Negative control: a std::deque used as the worklist was (pushes and pops each cycle)
// allocates in the same count.
TEST(StreamAllocations, TheRunnerAllocatesNothingPerCycleOnScalarsOnceWarm) {
  for (const Source &pr : kPrograms) {
    test::StreamProgram p = test::compile_stream(pr.text, pr.main);
    std::vector<std::vector<Cell>> trace;
    for (size_t n = 0; n < 64; ++n) trace.push_back(inputs_at(p.prog, n));
    stream::Options o;
    o.lag = 4;
    o.max_window = 64;
    size_t emitted = 0;
    stream::Runner r(p.fe->checked, p.plan, o, [&](const stream::FrameView &) { ++emitted; });
    long news = allocations_once_warm([&](size_t n) { r.push(trace[n % trace.size()]); }, 500, 2000);
    EXPECT_EQ(news, 0) << pr.what << ": allocations in 2000 warm cycles";
    EXPECT_GT(emitted, 2000u) << pr.what;
    EXPECT_TRUE(r.errors().empty()) << pr.what;
  }
  std::deque<std::pair<int, size_t>> fifo;  // the control
  long control = allocations_once_warm(
      [&](size_t n) {
        for (int k = 0; k < 40; ++k) fifo.emplace_back(k, n);
        while (!fifo.empty()) fifo.pop_front();
      },
      500, 2000);
  EXPECT_GT(control, 0) << "the counter does not see std::deque's chunks";
}

// Law: the in-process clock-directed machine (post-free nodes) allocates nothing in a cycle.
TEST(StreamAllocations, TheMachineAllocatesNothingPerCycle) {
  test::StreamProgram p = test::compile_stream(kPrograms[0].text, "main");
  stream::Machine m(p.prog, p.clocks, p.plan);
  std::vector<stream::InputValue> in(1);
  in[0].present = true;
  long news = allocations_once_warm(
      [&](size_t n) {
        in[0].r = static_cast<double>(n % 7);
        ASSERT_EQ(m.step(in), stream::Machine::Status::Ok);
      },
      100, 2000);
  EXPECT_EQ(news, 0);
}


// Law: with funs on the compiled path (rml run's Options::fun_executable), the runner
// allocates nothing in a warm cycle of Figure 20's training either: tensor results are
// written into the window runtime's frames (funs, elementwise operators, indexing, array
// literals, tr, reshape, inputs) by the evaluator's functions on words. Units 8 ×
// sizex 4 (the same equations as at 64 × 32), end every 5 cycles; 400 cycles to warm up
// (the ring and the kept storage grow to the window's needs), 400 counted.
TEST(StreamAllocations, TheRunnerAllocatesNothingPerCycleOnFigure20OnceWarm) {
  std::string text = test::read_text("reference/paper/fig20_diff_lstm_end.rml") +
                     "\nnode lstm(x: real[4], end: bool, bp: bool, dh_next: real[8] when bp)\n  -> (h_next: real[8], dx: real[4] when bp)\n"
                     "  h_next, dx = diff_lstm_end(8, 4, x, end, bp, dh_next);\n";
  test::StreamProgram p = test::compile_stream(text, "lstm");
  std::vector<std::vector<Cell>> trace;
  for (size_t n = 0; n < 20; ++n) {
    array::Tensor x = array::Tensor::zeros(Scalar::Real, {4}), dh = array::Tensor::zeros(Scalar::Real, {8});
    for (size_t k = 0; k < 4; ++k) x.r[k] = static_cast<double>((n * 7 + k) % 11) / 11.0 - 0.5;
    for (size_t k = 0; k < 8; ++k) dh.r[k] = static_cast<double>((n + k * 3) % 5) / 50.0;
    trace.push_back({Cell::of(x), Cell::of(array::Tensor::boolean(n % 5 == 4)), Cell::of(array::Tensor::boolean(true)), Cell::of(dh)});
  }
  driver::CompiledFuns funs(p.fe->checked);
  stream::Options o;
  o.lag = 4;
  o.fun_executable = [&](const std::string &fn, const std::vector<StaticValue> &st, const std::vector<ir::Type> &types) {
    return &funs.executable(fn, st, types);
  };
  size_t emitted = 0;
  stream::Runner r(p.fe->checked, p.plan, o, [&](const stream::FrameView &) { ++emitted; });
  long news = allocations_once_warm([&](size_t n) { r.push(trace[n % trace.size()]); }, 400, 400);
  EXPECT_EQ(news, 0) << "allocations in 400 warm cycles";
  EXPECT_GT(emitted, 700u);
  EXPECT_TRUE(r.errors().empty());
}
