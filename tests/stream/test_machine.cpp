// The clock-directed machine (src/stream/machine.hpp) against the oracle: on every node it
// builds, every variable's cell at every cycle of a trace inside the clocks is the
// oracle's (absent, nil, or the same value, reals bit for bit); what the proofs exclude
// (an input out of its clock, a nil condition) stops the cycle with a status, never a
// value.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <random>

#include <optional>
#include "common/sanitized.hpp"
#include "common/stream_prog_gen.hpp"
#include "stream/machine.hpp"
#include "stream_util.hpp"

using namespace rml;
using oracle::Cell;
using oracle::Tag;
using stream::Machine;

namespace {

// The inputs of cycle n of `in`, in the plan's input order.
std::vector<stream::InputValue> inputs_at(const test::StreamProgram &p, const oracle::Inputs &in, size_t n) {
  std::vector<stream::InputValue> v;
  for (auto &var : p.prog.inputs) {
    const Cell &c = in.streams.at(var.name).at(n);
    stream::InputValue x;
    x.present = c.tag == Tag::Val;
    if (x.present) {
      if (c.value.elem == Scalar::Real) x.r = c.value.r.at(0);
      else x.i = c.value.i.at(0);
    }
    v.push_back(x);
  }
  return v;
}

bool same_cell(const Cell &a, const Cell &b) {
  if (a.tag != b.tag) return false;
  if (a.tag != Tag::Val) return true;
  if (a.value.elem != b.value.elem) return false;
  // Reals bit for bit, but any NaN equals any NaN: IEEE 754 leaves open which NaN an
  // operation on two NaNs returns, and compilers commute a + b (seen: max(x, v) + w with
  // both NaN gave nan here and -nan in the oracle).
  if (a.value.elem == Scalar::Real)
    return std::memcmp(a.value.r.data(), b.value.r.data(), 8) == 0 || (std::isnan(a.value.r[0]) && std::isnan(b.value.r[0]));
  return a.value.i == b.value.i;
}

struct MachineRun {
  size_t ok_cycles = 0;  // cycles stepped Ok before the first other status
  Machine::Status stopped = Machine::Status::Ok;
  std::string diff;      // the first cell (of the Ok cycles) that differs from the oracle's
  size_t nil_cells = 0, absent_cells = 0;
};

// Runs `m` on `in` until a status other than Ok, comparing every variable with `want`.
MachineRun run_against(const test::StreamProgram &p, Machine &m, const oracle::Inputs &in, const oracle::Result &want) {
  MachineRun r;
  m.reset();
  for (size_t n = 0; n < in.cycles; ++n) {
    r.stopped = m.step(inputs_at(p, in, n));
    if (r.stopped != Machine::Status::Ok) return r;
    ++r.ok_cycles;
    for (auto &v : want.vars) {
      Cell got = m.cell(p.plan.slot(v));
      r.nil_cells += got.tag == Tag::Nil;
      r.absent_cells += got.tag == Tag::Abs;
      if (r.diff.empty() && !same_cell(got, want.at(v, n)))
        r.diff = "'" + v + "' at cycle " + std::to_string(n) + ": machine " + got.str() + ", oracle " + want.at(v, n).str();
    }
  }
  return r;
}

// A trace of ProgGen's main(x: real, y: int, c: bool), whose inputs are all on the base
// clock: at each cycle all present or all absent; `partial_at` (if < len) makes one cycle
// hold x alone, outside the clocks.
oracle::Inputs trace(uint64_t seed, size_t len, size_t partial_at) {
  std::mt19937_64 rng(seed);
  oracle::Inputs in;
  in.cycles = len;
  for (size_t n = 0; n < len; ++n) {
    bool present = rng() % 5 != 0, partial = n == partial_at;
    auto val = [&](Cell c, bool keep) { return present && keep ? c : Cell::absent(); };
    in.streams["x"].push_back(val(Cell::of(array::Tensor::real(static_cast<double>(static_cast<int>(rng() % 13) - 6) / 2.0)), present || partial));
    if (partial) in.streams["x"].back() = Cell::of(array::Tensor::real(1.5));
    in.streams["y"].push_back(val(Cell::of(array::Tensor::integer(static_cast<int64_t>(rng() % 9) - 4)), !partial));
    in.streams["c"].push_back(val(Cell::of(array::Tensor::boolean(rng() % 2 == 1)), !partial));
  }
  return in;
}

}  // namespace

// Law: for every node the machine builds (post-free, scalar, the static clock calculus
// unifying, one static order: what it needs of rml-check's proofs, checked by the machine
// itself) and every trace, cycle by cycle until the first status other than Ok:
//   Ok          every variable's cell equals the oracle's (absent, nil, value bit for bit);
//   InputClock  only at the cycle the trace puts outside the clocks (x without y and c);
//   Error       only where the oracle has a ‖ at that cycle (a nil condition).
// Programs: ProgGen without post and funs (every operator of the table, when/merge on
// sampled clocks, fby/pre/->, node instances, resets), at size 100, from the well-clocked
// generator and from the free one (whose clashes the machine must refuse). No rml-check
// call: the law covers more than the accepted programs, at a few ms a case.
// Negative control: MachineNegativeControl below.
RC_GTEST_PROP(MachineEqualsOracle, OnEveryProgramItBuilds, ()) {
  testgen::ProgGen g;
  g.well_clocked = *rc::gen::weightedElement<bool>({{4, true}, {1, false}});
  g.with_post = false;
  g.with_funs = false;
  g.sub_clocked_state = g.well_clocked && *rc::gen::arbitrary<bool>();
  g.resets = *rc::gen::arbitrary<bool>();
  // g by value: shrinking re-runs the generator after this frame has gone.
  std::string text = *rc::gen::resize(100, rc::gen::exec([g] { testgen::ProgGen h = g; return h.program(); }));
  RC_LOG() << text;
  test::StreamProgram p = test::compile_stream(text, "main");
  std::optional<Machine> m;
  try {
    m.emplace(p.prog, p.clocks, p.plan);
  } catch (stream::MachineUnsupported &e) {
    RC_TAG(g.well_clocked ? "refused (well-clocked generator)" : "refused (free generator)");
    RC_ASSERT(!p.clocks.clashes.empty() || std::string(e.what()).find("depends on itself") != std::string::npos ||
              std::string(e.what()).find("cycle") != std::string::npos);
    return;
  }
  const size_t len = *rc::gen::inRange<size_t>(1, 25);
  const bool outside = *rc::gen::arbitrary<bool>();
  const size_t partial_at = outside ? *rc::gen::inRange<size_t>(0, len) : len;
  oracle::Inputs in = trace(*rc::gen::arbitrary<uint64_t>(), len, partial_at);
  oracle::Result want = oracle::Oracle(p.fe->checked, p.prog, p.clocks).run(in);
  MachineRun r = run_against(p, *m, in, want);
  RC_ASSERT(r.diff == "");
  if (r.nil_cells) RC_TAG("nil cells met");
  if (r.absent_cells) RC_TAG("absent cells met");
  switch (r.stopped) {
    case Machine::Status::Ok:
      RC_TAG("every cycle Ok");
      RC_ASSERT(r.ok_cycles == len);
      RC_ASSERT(!outside);
      break;
    case Machine::Status::InputClock:
      RC_TAG("stopped: input clock");
      RC_ASSERT(r.ok_cycles == partial_at);
      break;
    case Machine::Status::Error: {
      RC_TAG("stopped: nil condition");
      bool err = false;
      for (auto &v : want.vars) err |= want.at(v, r.ok_cycles).tag == Tag::Err;
      RC_ASSERT(err);
      break;
    }
  }
  // reset() starts over: the same run again.
  MachineRun again = run_against(p, *m, in, want);
  RC_ASSERT(again.ok_cycles == r.ok_cycles);
  RC_ASSERT(again.stopped == r.stopped);
}

// A real expression over x and c nesting state under state: pre, fby and -> of
// expressions that may themselves be nil (pre of a pre, fby of a pre, -> of pres), mixed
// with arithmetic and if, all on the base clock. ProgGen rarely nests them (a machine
// losing nil through fby/pre state passed its 3000 cases).
rc::Gen<std::string> nested_state(int depth) {
  if (depth == 0) return rc::gen::element<std::string>("x", "1.5", "(-x)");
  auto sub = [depth] { return rc::gen::lazy([depth] { return nested_state(depth - 1); }); };
  return rc::gen::oneOf(
      rc::gen::element<std::string>("x"),
      rc::gen::map(sub(), [](std::string e) { return "pre (" + e + ")"; }),
      rc::gen::map(rc::gen::pair(sub(), sub()), [](auto p) { return "((" + p.first + ") fby (" + p.second + "))"; }),
      rc::gen::map(rc::gen::pair(sub(), sub()), [](auto p) { return "((" + p.first + ") -> (" + p.second + "))"; }),
      rc::gen::map(rc::gen::pair(sub(), sub()), [](auto p) { return "(" + p.first + " + " + p.second + ")"; }),
      rc::gen::map(rc::gen::pair(sub(), sub()), [](auto p) { return "(if c then " + p.first + " else " + p.second + ")"; }));
}

// The law above on nested state (every cycle inside the clocks: x and c always present).
RC_GTEST_PROP(MachineEqualsOracle, OnNestedState, ()) {
  std::string text = "node main(x: real, c: bool) -> (o: real, q: real)\n  o = " + *nested_state(4) + ";\n  q = " +
                     *nested_state(4) + ";\n";
  RC_LOG() << text;
  test::StreamProgram p = test::compile_stream(text, "main");
  Machine m(p.prog, p.clocks, p.plan);
  const size_t len = *rc::gen::inRange<size_t>(1, 12);
  oracle::Inputs in;
  in.cycles = len;
  for (size_t n = 0; n < len; ++n) {
    in.streams["x"].push_back(Cell::of(array::Tensor::real(*rc::gen::inRange(-4, 5))));
    in.streams["c"].push_back(Cell::of(array::Tensor::boolean(*rc::gen::arbitrary<bool>())));
  }
  oracle::Result want = oracle::Oracle(p.fe->checked, p.prog, p.clocks).run(in);
  MachineRun r = run_against(p, m, in, want);
  RC_ASSERT(r.diff == "");
  RC_ASSERT(r.stopped == Machine::Status::Ok);
  RC_ASSERT(r.ok_cycles == len);
  size_t later_nil = 0;  // nil past the first cycle: only through state
  for (auto &v : {"o", "q"})
    for (size_t n = 1; n < len; ++n) later_nil += want.at(v, n).tag == Tag::Nil;
  if (later_nil) RC_TAG("nil after the first cycle");
}

// The negative control of the law: a machine built from movavg with its division turned
// into a product differs from the oracle of movavg, at the first cycle.
TEST(MachineNegativeControl, AWrongOperatorIsCaught) {
  test::StreamProgram good = test::compile_stream("node main(x: real) -> (avg: real)\n  avg = (x + (0.0 fby x)) / 2.0;\n", "main");
  test::StreamProgram bad = test::compile_stream("node main(x: real) -> (avg: real)\n  avg = (x + (0.0 fby x)) * 2.0;\n", "main");
  oracle::Inputs in;
  in.cycles = 3;
  for (double x : {1.0, 2.0, 4.0}) in.streams["x"].push_back(Cell::of(array::Tensor::real(x)));
  oracle::Result want = oracle::Oracle(good.fe->checked, good.prog, good.clocks).run(in);
  Machine right(good.prog, good.clocks, good.plan), wrong(bad.prog, bad.clocks, bad.plan);
  EXPECT_EQ(run_against(good, right, in, want).diff, "");
  std::string diff = run_against(bad, wrong, in, want).diff;
  EXPECT_NE(diff.find("at cycle 0: machine 2"), std::string::npos) << diff;
}

// Pinned cells: movavg; a sampled fby whose state waits between ticks; nil through pre and
// an operator, guarded by ->; a nil merge condition stops the cycle (Error) and leaves the
// state as it was.
TEST(MachineGolden, MovavgSampledStateAndNil) {
  {
    test::StreamProgram p = test::compile_stream("node main(x: real) -> (avg: real)\n  avg = (x + (0.0 fby x)) / 2.0;\n", "main");
    Machine m(p.prog, p.clocks, p.plan);
    std::vector<double> got;
    for (double x : {2.0, 4.0, 8.0}) {
      ASSERT_EQ(m.step({{true, x, 0}}), Machine::Status::Ok);
      got.push_back(m.real(p.plan.slot("avg")));
    }
    EXPECT_EQ(got, (std::vector<double>{1.0, 3.0, 6.0}));
  }
  {
    // o counts the ticks of c's true cycles; absent elsewhere.
    test::StreamProgram p = test::compile_stream(
        "node main(c: bool) -> (o: int when c)\n  o = (0 when c) fby (o + (1 when c));\n", "main");
    Machine m(p.prog, p.clocks, p.plan);
    std::vector<std::string> got;
    for (bool c : {false, true, false, false, true, true}) {
      ASSERT_EQ(m.step({{true, 0, c}}), Machine::Status::Ok);
      got.push_back(m.cell(p.plan.slot("o")).str());
    }
    std::vector<std::string> want;
    for (const char *s : {"□", "0", "□", "□", "1", "2"}) want.push_back(s);
    for (auto &w : want) w = w == "□" ? Cell::absent().str() : Cell::of(array::Tensor::integer(std::stoll(w))).str();
    EXPECT_EQ(got, want);
  }
  {
    test::StreamProgram p = test::compile_stream("node main(x: real) -> (o: real, q: real)\n  o = pre x;\n  q = 0.5 -> pre (o + 1.0);\n", "main");
    Machine m(p.prog, p.clocks, p.plan);
    std::vector<Tag> o, q;
    std::vector<double> qv;
    for (double x : {1.0, 2.0, 4.0, 8.0}) {
      ASSERT_EQ(m.step({{true, x, 0}}), Machine::Status::Ok);
      o.push_back(m.tag(p.plan.slot("o")));
      q.push_back(m.tag(p.plan.slot("q")));
      qv.push_back(m.real(p.plan.slot("q")));
    }
    EXPECT_EQ(o, (std::vector<Tag>{Tag::Nil, Tag::Val, Tag::Val, Tag::Val}));
    EXPECT_EQ(q, (std::vector<Tag>{Tag::Val, Tag::Nil, Tag::Val, Tag::Val}));
    EXPECT_EQ(qv[0], 0.5);
    EXPECT_EQ(qv[2], 2.0);  // pre (o + 1) at cycle 2: o at cycle 1 is 1, plus 1
    EXPECT_EQ(qv[3], 3.0);
  }
  {
    // Nil through the state itself: pre of a pre, fby of a pre (the generator rarely nests them).
    test::StreamProgram p = test::compile_stream("node main(x: real) -> (o: real, q: real)\n  o = pre (pre x);\n  q = 0.0 fby (pre x);\n", "main");
    Machine m(p.prog, p.clocks, p.plan);
    std::vector<std::string> o, q;
    for (double x : {1.0, 2.0, 4.0}) {
      ASSERT_EQ(m.step({{true, x, 0}}), Machine::Status::Ok);
      o.push_back(m.cell(p.plan.slot("o")).str());
      q.push_back(m.cell(p.plan.slot("q")).str());
    }
    const std::string nil = Cell{Tag::Nil, {}}.str(), one = Cell::of(array::Tensor::real(1.0)).str(),
                      zero = Cell::of(array::Tensor::real(0.0)).str();
    EXPECT_EQ(o, (std::vector<std::string>{nil, nil, one}));
    EXPECT_EQ(q, (std::vector<std::string>{zero, nil, one}));
  }
  {
    test::StreamProgram p = test::compile_stream(
        "node main(c: bool, x: real) -> (o: real)\n  d = pre c;\n  o = merge d (x when d) (x when not d);\n",
        "main");
    Machine m(p.prog, p.clocks, p.plan);
    EXPECT_EQ(m.step({{true, 0, 1}, {true, 5.0, 0}}), Machine::Status::Error);
    EXPECT_NE(m.failure().find("'d' is the uninitialised first value"), std::string::npos) << m.failure();
    // A failed cycle leaves the state as it was: the next cycle is d's first tick again.
    EXPECT_EQ(m.step({{true, 0, 0}, {true, 6.0, 0}}), Machine::Status::Error);
  }
}

// Inputs out of their clocks: present where the clock is false, absent where it is true.
TEST(MachineGolden, InputsOutOfTheirClocks) {
  test::StreamProgram p = test::compile_stream(
      "node main(c: bool, x: real when c) -> (o: real when c)\n  o = x + (1.0 when c);\n", "main");
  Machine m(p.prog, p.clocks, p.plan);
  EXPECT_EQ(m.step({{true, 0, 1}, {true, 2.0, 0}}), Machine::Status::Ok);
  EXPECT_EQ(m.real(p.plan.slot("o")), 3.0);
  EXPECT_EQ(m.step({{true, 0, 0}, {false, 0, 0}}), Machine::Status::Ok);
  EXPECT_EQ(m.tag(p.plan.slot("o")), Tag::Abs);
  EXPECT_EQ(m.step({{true, 0, 0}, {true, 2.0, 0}}), Machine::Status::InputClock);
  EXPECT_NE(m.failure().find("'x' is present where its clock is false"), std::string::npos) << m.failure();
  EXPECT_EQ(m.step({{true, 0, 1}, {false, 0, 0}}), Machine::Status::InputClock);
  EXPECT_NE(m.failure().find("'x' is absent where its clock is true"), std::string::npos) << m.failure();
}

// What the machine does not run is refused, located: tensors, funs, post.
TEST(MachineUnsupported, TensorsFunsAndPostAreRefused) {
  auto refusal = [](const std::string &text) -> std::string {
    test::StreamProgram p = test::compile_stream(text, "main");
    try {
      Machine m(p.prog, p.clocks, p.plan);
    } catch (stream::MachineUnsupported &e) {
      return e.what();
    }
    return "";
  };
  EXPECT_NE(refusal("node main(x: real[2]) -> (o: real[2])\n  o = x;\n").find("tensor"), std::string::npos);
  EXPECT_NE(refusal("node main(x: real) -> (o: real)\n  o = sigmoid(x);\n").find("not an operator of the table"), std::string::npos);
  EXPECT_NE(refusal("node main(i: int, bp: bool) -> (o: int)\n  o = merge bp (i when bp) ((post o) when not bp);\n").find("post"),
            std::string::npos);
}
