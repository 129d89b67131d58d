// rml-check's encodings of ints (semantics/int_encoding.md): mathematical integers with
// "no operation wraps" proved alongside, then integers modulo 2^64, then 64-bit vectors.
// Pinned verdicts on the boundaries (wrap-around, truncating division, C's remainder,
// zero divisors), the engine named in each proof, and the laws: each operation modulo
// 2^64 is the oracle's on every pair of boundary operands (negative control: the checked
// encoding's exact results are not); over random programs, a property proved valid holds
// on oracle runs whose ints reach the 64-bit extremes, and the encodings never give
// opposite verdicts. Negative control: Options::ignore_wraps (the integer encoding
// without its wrap conditions) proves a property that wraps, and the law's check catches it.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "checker/checker.hpp"
#include "checker/smt_ints.hpp"
#include "common/property_runs.hpp"
#include "common/sanitized.hpp"
#include "common/stream_prog_gen.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "ops/scalar_ops.hpp"
#include "sema/frontend.hpp"

using namespace rml;

namespace int_encoding_test {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

struct Checked {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
  check::Report rep;
};

// Deterministic budgets only (Z3's resource count).
check::Options solver_options() {
  check::Options o;
  o.rlimit = 8'000'000;
  o.solver_only = true;  // straight to the encodings this file is about
  return o;
}

Checked run(const std::string &text, const check::Options &o) {
  Checked c;
  c.fe = run_frontend("ints.lus", text);
  if (c.fe->diags.has_errors()) throw std::runtime_error(render_all(c.fe->diags) + "\n" + text);
  c.prog = core::elaborate(c.fe->checked, "main");
  c.rep = check::check_program(c.fe->checked, c.prog, o);
  return c;
}

const check::PropertyResult &property(const Checked &c) {
  for (auto &p : c.rep.properties)
    if (p.kind == "property") return p;
  throw std::runtime_error("no property");
}

bool over_integers(const check::PropertyResult &p) { return p.method.find("over mathematical integers") != std::string::npos; }

// Whether the property (the program's first) is false or nil at some cycle of the run.
bool fails_in(const Checked &c, const oracle::Inputs &in) { return rml::test::first_property_fails_in(c.fe->checked, c.prog, in); }

oracle::Inputs held(const std::string &name, int64_t v, size_t cycles) {
  oracle::Inputs in;
  in.cycles = cycles;
  for (size_t n = 0; n < cycles; ++n) in.streams[name].push_back(oracle::Cell::of(array::Tensor::integer(v)));
  return in;
}

// The property is falsified by a run the oracle replays; the negative control: with the
// unsound options it is called valid (wrong, on purpose), and the oracle run `breaks`
// shows it false.
void expect_falsified_unless(const std::string &text, const check::Options &unsound, const oracle::Inputs &breaks) {
  auto c = run(text, solver_options());
  const auto &p = property(c);
  ASSERT_EQ(p.verdict, check::Verdict::Falsified) << p.method;
  ASSERT_TRUE(p.cex.has_value());
  EXPECT_TRUE(fails_in(c, p.cex->inputs));
  auto d = run(text, unsound);
  EXPECT_EQ(property(d).verdict, check::Verdict::Valid) << property(d).method;
  EXPECT_TRUE(fails_in(d, breaks));
}

// Two counters reset together: their equality is 1-inductive, and neither can wrap
// (each is incremented only below 100). Proved over integers; the 64-bit encoding alone
// agrees.
TEST(IntEncoding, BoundedCountersAreProvedOverIntegers) {
  const std::string text =
      "node main(r: bool) returns (ok: bool);\nvar a, b: int;\nlet\n"
      "  a = 0 -> if r or pre a >= 100 then 0 else pre a + 1;\n"
      "  b = 0 -> if r or pre b >= 100 then 0 else pre b + 1;\n"
      "  ok = a = b;\n  --%PROPERTY ok;\ntel\n";
  auto c = run(text, solver_options());
  EXPECT_EQ(property(c).verdict, check::Verdict::Valid) << property(c).method;
  EXPECT_TRUE(over_integers(property(c))) << property(c).method;
  check::Options bv = solver_options();
  bv.lia_ints = false;
  auto d = run(text, bv);
  EXPECT_EQ(property(d).verdict, check::Verdict::Valid) << property(d).method;
  EXPECT_FALSE(over_integers(property(d))) << property(d).method;
}

// An accumulator of non-negative inputs is non-negative over the integers, but wraps in
// the oracle: falsified (the integer attempt meets the wrap; the 64-bit encoding finds
// the run, replayed). The negative control: without the wrap conditions the integer
// encoding calls it valid, and one oracle run at the extreme breaks it.
TEST(IntEncoding, AWrapIsNeverProvedAway) {
  const std::string text =
      "node main(x: int) returns (acc: int);\nlet\n  assert x >= 0;\n"
      "  acc = 0 -> pre acc + x;\n  --%PROPERTY acc >= 0;\ntel\n";
  check::Options unsound = solver_options();
  unsound.ignore_wraps = true;
  expect_falsified_unless(text, unsound, held("x", kMax, 3));
}

// (x + 1) - 1 = x holds only through wrap-around: the integer attempt meets the wrap at
// the first cycle, the 64-bit encoding proves it.
TEST(IntEncoding, WhatHoldsThroughWrapAroundIsProvedOnBitVectors) {
  auto c = run("node main(x: int) returns (ok: bool);\nlet\n  ok = (x + 1) - 1 = x;\n  --%PROPERTY ok;\ntel\n", solver_options());
  EXPECT_EQ(property(c).verdict, check::Verdict::Valid) << property(c).method;
  EXPECT_FALSE(over_integers(property(c))) << property(c).method;
  // x + 1 > x is false at the maximum, whichever encoding finds it.
  auto d = run("node main(x: int) returns (ok: bool);\nlet\n  ok = x + 1 > x;\n  --%PROPERTY ok;\ntel\n", solver_options());
  ASSERT_EQ(property(d).verdict, check::Verdict::Falsified) << property(d).method;
  EXPECT_TRUE(fails_in(d, held("x", kMax, 1)));
  EXPECT_FALSE(fails_in(d, held("x", kMax - 1, 1)));
}

// A wrap matters only where its value is taken: `x + 1` in a branch taken only below
// 100 never wraps (proved over integers); taken for every positive x it wraps at
// INT64_MAX (falsified, replayed).
TEST(IntEncoding, AWrapCountsWhereItsBranchIsTaken) {
  auto with = [](const std::string &cond) {
    return "node main(x: int) returns (ok: bool);\nvar y: int;\nlet\n  y = if " + cond +
           " then x + 1 else x;\n  ok = y >= x;\n  --%PROPERTY ok;\ntel\n";
  };
  auto c = run(with("x < 100"), solver_options());
  EXPECT_EQ(property(c).verdict, check::Verdict::Valid) << property(c).method;
  EXPECT_TRUE(over_integers(property(c))) << property(c).method;
  auto d = run(with("x > 0"), solver_options());
  ASSERT_EQ(property(d).verdict, check::Verdict::Falsified) << property(d).method;
  ASSERT_TRUE(property(d).cex.has_value());
  EXPECT_TRUE(fails_in(d, property(d).cex->inputs));
  // Its first value too: `0 -> pre s + x` adds nothing at the first cycle.
  auto e = run("node main(x: int) returns (ok: bool);\nvar s: int;\nlet\n  assert x >= 0 and x <= 10;\n"
               "  s = 0 -> if pre s >= 100 then 0 else pre s + x;\n  ok = s <= 110;\n  --%PROPERTY ok;\ntel\n",
               solver_options());
  EXPECT_EQ(property(e).verdict, check::Verdict::Valid) << property(e).method;
  EXPECT_TRUE(over_integers(property(e))) << property(e).method;
}

// Division and remainder truncate toward zero (C), a zero divisor gives 0, and
// INT64_MIN / -1 wraps to itself: each boundary pinned, with its opposite falsified.
TEST(IntEncoding, DivisionAndRemainderAreTheOraclesAtEveryBoundary) {
  struct Case {
    const char *prop;
    check::Verdict want;
  } cases[] = {
      {"x / 0 = 0 and x mod 0 = 0", check::Verdict::Valid},
      {"x >= 0 or x mod 3 <= 0", check::Verdict::Valid},       // the dividend's sign (Euclid: >= 0)
      {"x >= 0 or x / 2 * 2 >= x", check::Verdict::Valid},     // toward zero (floor: below x)
      {"x / -1 = -x", check::Verdict::Valid},                  // MIN / -1 = MIN = -MIN, both wrap
      {"x = -9223372036854775807 - 1 or x / -1 > x or x >= 0", check::Verdict::Valid},
      {"x >= 0 or x mod 3 >= 0", check::Verdict::Falsified},  // x = -1
      {"x / 2 * 2 = x or x mod 2 <> 0", check::Verdict::Valid},
      {"abs(x) >= 0", check::Verdict::Falsified},              // abs(MIN) = MIN
  };
  for (auto &k : cases) {
    auto c = run(std::string("node main(x: int) returns (ok: bool);\nlet\n  ok = ") + k.prop + ";\n  --%PROPERTY ok;\ntel\n",
                 solver_options());
    const auto &p = property(c);
    EXPECT_EQ(p.verdict, k.want) << k.prop << ": " << p.method;
    if (p.verdict == check::Verdict::Falsified) {
      ASSERT_TRUE(p.cex.has_value()) << k.prop;
      EXPECT_TRUE(fails_in(c, p.cex->inputs)) << k.prop;
    }
  }
}

// Law: every int operation of the modular encoding (LiaOps::modular) is the oracle's
// (ops::int_binary, ops::int_unary) on every pair of operands among the boundaries:
// Z3 simplifies the encoded term of two numerals to the oracle's number. Negative
// control: the checked encoding's exact results differ at the boundaries (so the
// comparison can fail), and each difference is flagged by its wrap condition.
TEST(IntEncoding, EachOperationModulo2To64IsTheOracles) {
  const std::vector<int64_t> operands{kMin, kMin + 1, -7, -2, -1, 0, 1, 2, 3, 7, kMax - 1, kMax};
  z3::context ctx;
  auto value = [&](const z3::expr &e) {
    int64_t v = 0;
    EXPECT_TRUE(e.simplify().is_numeral_i64(v)) << e.simplify();
    return v;
  };
  int checked_differs = 0;
  for (auto op : {ops::BinOp::Add, ops::BinOp::Sub, ops::BinOp::Mul, ops::BinOp::Div, ops::BinOp::IDiv, ops::BinOp::Mod})
    for (int64_t x : operands)
      for (int64_t z : operands) {
        const int64_t want = ops::int_binary(op, x, z);
        check::LiaOps mod(ctx, true), exact(ctx, false);
        auto m = check::lia_binary(op, ctx.int_val(x), ctx.int_val(z), mod);
        ASSERT_TRUE(m.has_value());
        EXPECT_EQ(value(*m), want) << static_cast<int>(op) << " " << x << " " << z;
        EXPECT_EQ(mod.wraps.size(), 0u);
        EXPECT_FALSE(mod.nonlinear);  // numerals on both sides
        auto e = check::lia_binary(op, ctx.int_val(x), ctx.int_val(z), exact);
        int64_t v = 0;
        bool in_range = e->simplify().is_numeral_i64(v);
        bool wrapped = false;
        for (auto w : exact.wraps) wrapped |= w.simplify().is_true();
        if (!in_range || v != want) {
          ++checked_differs;
          EXPECT_TRUE(wrapped) << static_cast<int>(op) << " " << x << " " << z;
        }
      }
  for (auto op : {ops::UnOp::Neg, ops::UnOp::Abs})
    for (int64_t x : operands) {
      check::LiaOps mod(ctx, true);
      auto m = check::lia_unary(op, ctx.int_val(x), mod);
      ASSERT_TRUE(m.has_value());
      EXPECT_EQ(value(*m), ops::int_unary(op, x)) << static_cast<int>(op) << " " << x;
    }
  EXPECT_GT(checked_differs, 20);  // the boundaries do wrap
  // A product of two variables is nonlinear; by a constant it is not.
  check::LiaOps ops(ctx, true);
  check::lia_binary(ops::BinOp::Mul, ctx.int_const("a"), ctx.int_val(3), ops);
  EXPECT_FALSE(ops.nonlinear);
  check::lia_binary(ops::BinOp::Mul, ctx.int_const("a"), ctx.int_const("b"), ops);
  EXPECT_TRUE(ops.nonlinear);
}

// A counter guarded by its environment: under `env` it stays in [0, 110]; once `env`
// fails, inputs are arbitrary and `c + x` wraps, a wrap that matters (c feeds its own
// memory), so the integer encoding cannot prove "never a wrap". The property holds in the
// oracle (a wrap happens only where `env` is false for ever) and is proved over integers
// modulo 2^64; the opposite bound is falsified by a replayed run.
TEST(IntEncoding, AGuardedPropertyIsProvedModulo2To64DespiteAReachableWrap) {
  auto with = [](const std::string &bound) {
    return "node main(x: int) returns (ok: bool);\nvar c: int; env: bool;\nlet\n"
           "  env = (x >= 0 and x <= 10) -> (pre env and x >= 0 and x <= 10);\n"
           "  c = 0 -> if pre c >= 100 then 0 else pre c + x;\n"
           "  ok = env => " + bound + ";\n  --%PROPERTY ok;\ntel\n";
  };
  auto c = run(with("c >= 0"), solver_options());
  EXPECT_EQ(property(c).verdict, check::Verdict::Valid) << property(c).method;
  EXPECT_NE(property(c).method.find("modulo 2^64"), std::string::npos) << property(c).method;
  EXPECT_TRUE(fails_in(c, held("x", kMax, 3)) == false);  // env false: ok holds though c wraps
  auto d = run(with("c <= 100"), solver_options());
  ASSERT_EQ(property(d).verdict, check::Verdict::Falsified) << property(d).method;
  ASSERT_TRUE(property(d).cex.has_value());
  EXPECT_TRUE(fails_in(d, property(d).cex->inputs));
}

// Inputs x (int) and go (bool), one value a cycle.
oracle::Inputs trace(const std::vector<int64_t> &x, const std::vector<bool> &go) {
  oracle::Inputs in;
  in.cycles = x.size();
  for (size_t n = 0; n < x.size(); ++n) {
    in.streams["x"].push_back(oracle::Cell::of(array::Tensor::integer(x[n])));
    in.streams["go"].push_back(oracle::Cell::of(array::Tensor::boolean(go[n])));
  }
  return in;
}

// A latch (semantics/int_encoding.md, "Wraps after a latch falls"): `env`, once false,
// stays false and makes `ok` true. The counter adds the previous input, so it can wrap
// only from the cycle after `env` falls, where the latch's memory is down: that wrap is
// not counted, and the property is proved over mathematical integers, the method naming
// the latch. With latches off, every wrap counts and the integer attempt cannot prove it.
TEST(IntEncoding, AWrapAfterALatchFallsIsNotCounted) {
  const std::string text =
      "node main(x: int; go: bool) returns (ok: bool);\nvar c: int; env: bool;\nlet\n"
      "  env = (go and x >= 0 and x <= 10) -> (go and x >= 0 and x <= 10) and pre env;\n"
      "  c = 0 -> if pre c >= 100 then 0 else pre c + pre x;\n"
      "  ok = env => (c >= 0 and c <= 110);\n  --%PROPERTY ok;\ntel\n";
  auto c = run(text, solver_options());
  const auto &p = property(c);
  EXPECT_EQ(p.verdict, check::Verdict::Valid) << p.method;
  EXPECT_TRUE(over_integers(p)) << p.method;
  EXPECT_NE(p.method.find("while 'env' holds"), std::string::npos) << p.method;
  // The wrap is real: x = 1 then the maximum makes c wrap at cycle 2, once env has fallen.
  oracle::Inputs in = trace({1, kMax, kMax, kMax}, {true, true, true, true});
  oracle::Result res = oracle::Oracle(c.fe->checked, c.prog).run(in);
  EXPECT_EQ(res.at("c", 2).value.i.at(0), kMin);
  EXPECT_FALSE(fails_in(c, in));
  check::Options off = solver_options();
  off.wrap_latches = false;
  auto d = run(text, off);
  EXPECT_FALSE(over_integers(property(d))) << property(d).method;
}

// A flag that can rise again is no latch, though its being down makes the property true
// at that cycle: a counter adds x only while the flag's memory is down, wraps there, the
// flag rises and the property fails. Falsified, replayed. The negative control: latches that need only
// "down makes the property true" (Options::unsound_latches, tests only) excuse that wrap
// and call the property valid; an oracle run breaks it.
TEST(IntEncoding, AFlagThatRisesAgainExcusesNoWrap) {
  const std::string text =
      "node main(x: int; go: bool) returns (ok: bool);\nvar c: int; g: bool;\nlet\n"
      "  assert x >= 0;\n"
      "  g = go;\n"
      "  c = 0 -> if pre g then pre c else pre c + x;\n"
      "  ok = (true -> pre g) => c >= 0;\n  --%PROPERTY ok;\ntel\n";
  check::Options unsound = solver_options();
  unsound.unsound_latches = true;
  // Runs of at most 3 cycles: the counterexample below has 4, and the exact encodings'
  // bounded runs, which go before the integer encoding's Spacer, would find it first.
  unsound.max_depth = 3;
  // c = 0, MAX, then MAX + MAX = -2 while g is down, kept once g is up: ok fails at cycle 3.
  expect_falsified_unless(text, unsound, trace({0, kMax, kMax, 0}, {false, false, true, true}));
}

// A counter that grows for ever is non-negative over the integers (Spacer proves it at
// once on the property alone) but wraps after 2^63 cycles in the oracle, where no BMC
// reaches: unknown, never valid. The invariant Spacer finds for the property alone is
// taken only when it also excludes every wrap (Checker::cover_is_invariant), which
// `n >= 0` does not (n = INT64_MAX wraps). Bounded by a reset, the same counter is proved.
TEST(IntEncoding, AnInvariantThatLetsAWrapThroughProvesNothing) {
  auto c = run("node main(x: int) returns (n: int);\nlet\n  n = 0 -> pre n + 1;\n  --%PROPERTY n >= 0;\ntel\n",
               solver_options());
  EXPECT_EQ(property(c).verdict, check::Verdict::Unknown) << property(c).method;
  auto d = run("node main(x: int) returns (n: int);\nlet\n  n = 0 -> if pre n >= 1000 then 0 else pre n + 1;\n"
               "  --%PROPERTY n >= 0;\ntel\n",
               solver_options());
  EXPECT_EQ(property(d).verdict, check::Verdict::Valid) << property(d).method;
}

// Law: over random programs (ints, reals and bools, fby, pre, ->, when/merge, calls),
// with a random bool property, (1) a property proved valid is never false or nil on an
// oracle run whose int input sits at or next to the 64-bit extremes, zero or ±1, and
// (2) the encodings never disagree: with ints as 64-bit vectors alone, no property the
// default calls valid is falsified, and none it calls falsified is valid.
RC_GTEST_PROP(IntEncoding, ProvedPropertiesHoldAtTheExtremesAndTheEncodingsAgree, ()) {
  testgen::ProgGen g;
  g.well_clocked = true;
  std::string text = g.program();
  text += "  check " + g.expr(testgen::Ty::Bool, 2, g.locals) + ";\n";
  // One program in ten in the Release CI run (1000 cases take 160 s; scripts/soundness-long.sh checks every one).
  if (rml::test::sampled_out_in_ci(text, 2)) RC_SUCCEED("sampled out in CI (scripts/soundness-long.sh checks every case)");
  RC_LOG() << text;
  check::Options o = solver_options();
  o.rlimit = 3'000'000;
  o.max_depth = 4;
  o.max_horizon = 6;
  Checked c;
  c.fe = run_frontend("gen.rml", text);
  RC_PRE(!c.fe->diags.has_errors());
  c.prog = core::elaborate(c.fe->checked, "main");
  c.rep = check::check_program(c.fe->checked, c.prog, o);
  const auto &p = property(c);
  RC_TAG(check::verdict_name(p.verdict), over_integers(p) ? "over integers" : "");
  if (p.verdict == check::Verdict::Valid) {
    const std::vector<int64_t> extremes{kMin, kMin + 1, -1, 0, 1, kMax - 1, kMax};
    oracle::Inputs in;
    in.cycles = *rc::gen::inRange<size_t>(1, 8);
    for (size_t n = 0; n < in.cycles; ++n) {
      in.streams["x"].push_back(oracle::Cell::of(array::Tensor::real(*rc::gen::inRange(-3, 4))));
      in.streams["y"].push_back(oracle::Cell::of(array::Tensor::integer(*rc::gen::elementOf(extremes))));
      in.streams["c"].push_back(oracle::Cell::of(array::Tensor::boolean(*rc::gen::arbitrary<bool>())));
    }
    RC_ASSERT(!fails_in(c, in));
  }
  if (p.verdict == check::Verdict::Unknown) return;
  check::Options bv = o;
  bv.lia_ints = false;
  Checked d;
  d.fe = run_frontend("gen.rml", text);
  d.prog = core::elaborate(d.fe->checked, "main");
  d.rep = check::check_program(d.fe->checked, d.prog, bv);
  const auto &q = property(d);
  if (q.verdict != check::Verdict::Unknown) RC_ASSERT(q.verdict == p.verdict);
}

}  // namespace int_encoding_test
