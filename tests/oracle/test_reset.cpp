// Modular reset `f(xs) every r` (semantics.md §2.5): chronograms computed by hand, the
// front end's errors, and two laws over random programs against the definition (a fresh
// instance per segment), with a negative control.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "common/stream_prog_gen.hpp"
#include "core/clocks.hpp"
#include "oracle_util.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"

using namespace rml;
using oracle::Cell;
using oracle::Tag;
using rml::test::expect_solvers_agree;
using rml::test::expect_stream;
using rml::test::run_both;
using rml::test::Vec;

namespace {

// The case count is test_laws.cpp's (1000 unless RC_PARAMS says otherwise).

// count(x): how many times x has been true.
const char *kCount =
    "node count(x: bool) -> (n: int)\n"
    "  n = (if x then 1 else 0) + (0 fby n);\n";

}  // namespace

// Golden: a counter restarted at cycles 2 and 4; `restart` and `every` are the same.
TEST(Reset, CounterRestartsAtEachReset) {
  for (const char *call : {"count(x) every r", "(restart count every r)(x)"}) {
    std::string text = std::string(kCount) + "node main(x: bool, r: bool) -> (o: int, plain: int)\n  o = " + call +
                       ";\n  plain = count(x);\n";
    auto run = run_both(text, "main", {{"x", {"T", "T", "F", "T", "T", "T"}}, {"r", {"F", "F", "T", "F", "T", "F"}}});
    expect_stream(run, "plain", {"1", "2", "2", "3", "4", "5"});
    expect_stream(run, "o", {"1", "2", "0", "1", "1", "2"});
    expect_solvers_agree(run);
  }
}

// Golden: `every false` never resets; `every true` restarts at every cycle.
TEST(Reset, ConstantConditions) {
  std::string text = std::string(kCount) +
                     "node main(x: bool) -> (never: int, always: int)\n"
                     "  never = count(x) every false;\n  always = count(x) every true;\n";
  auto run = run_both(text, "main", {{"x", {"T", "F", "T", "T"}}});
  expect_stream(run, "never", {"1", "1", "2", "3"});
  expect_stream(run, "always", {"1", "0", "1", "1"});
  expect_solvers_agree(run);
}

// Golden: pre is nil again after a reset, -> takes its first operand again.
TEST(Reset, PreAndArrow) {
  std::string text =
      "node p(x: int) -> (o: int, a: int)\n  o = pre x;\n  a = 0 -> x;\n"
      "node main(x: int, r: bool) -> (o: int, a: int)\n  (o, a) = p(x) every r;\n";
  auto run = run_both(text, "main", {{"x", {"1", "2", "3", "4"}}, {"r", {"F", "F", "T", "F"}}});
  expect_stream(run, "o", {"nil", "1", "nil", "3"});
  expect_stream(run, "a", {"0", "2", "0", "4"});
  expect_solvers_agree(run);
}

// Golden: post at the last cycle of a segment is nil (the segment's run has no next
// cycle); at the end of the prefix it is ? as always.
TEST(Reset, PostEndsWithTheSegment) {
  std::string text =
      "node q(x: int) -> (o: int)\n  o = post x;\n"
      "node main(x: int, r: bool) -> (o: int, plain: int)\n  o = q(x) every r;\n  plain = q(x);\n";
  auto run = run_both(text, "main", {{"x", {"1", "2", "3", "4", "5"}}, {"r", {"F", "F", "T", "F", "F"}}});
  expect_stream(run, "plain", {"2", "3", "4", "5", "?"});
  expect_stream(run, "o", {"2", "nil", "4", "5", "?"});
  expect_solvers_agree(run);
}

// Golden: state on a sub-clock is reset by a reset that falls between two of its ticks.
// s sums x where c; the reset at cycle 2 (c false) still restarts s at cycle 3.
TEST(Reset, SubClockedStateSeesResetsBetweenItsTicks) {
  std::string text =
      "node acc(c: bool, x: int) -> (o: int)\n"
      "  s = (x when c) + (0 fby s);\n"
      "  o = merge c s ((0 fby o) when not c);\n"
      "node main(c: bool, x: int, r: bool) -> (o: int, plain: int)\n"
      "  o = acc(c, x) every r;\n  plain = acc(c, x);\n";
  auto run = run_both(text, "main",
                      {{"c", {"T", "F", "F", "T", "F", "T"}}, {"x", {"1", "2", "3", "4", "5", "6"}},
                       {"r", {"F", "F", "T", "F", "F", "F"}}});
  expect_stream(run, "plain", {"1", "1", "1", "5", "5", "11"});
  expect_stream(run, "o", {"1", "1", "0", "4", "4", "10"});
  expect_solvers_agree(run);
}

// Golden: nested resets add up: the inner instance restarts at its own resets and at
// the outer ones; the outer condition is on the outer call's clock.
TEST(Reset, NestedResetsAreOred) {
  std::string text = std::string(kCount) +
                     "node inner(x: bool, r1: bool) -> (n: int)\n  n = count(x) every r1;\n"
                     "node main(x: bool, r1: bool, r2: bool) -> (o: int)\n  o = inner(x, r1) every r2;\n";
  auto run = run_both(text, "main",
                      {{"x", {"T", "T", "T", "T", "T", "T"}}, {"r1", {"F", "F", "F", "T", "F", "F"}},
                       {"r2", {"F", "T", "F", "F", "F", "F"}}});
  expect_stream(run, "o", {"1", "1", "2", "1", "2", "3"});
  expect_solvers_agree(run);
}

// Golden: the instance's arguments are the caller's and are not reset.
TEST(Reset, ArgumentsAreNotReset) {
  std::string text = "node id(x: int) -> (o: int)\n  o = x;\n"
                     "node main(r: bool) -> (o: int)\n  o = id(0 fby (o + 1)) every r;\n";
  auto run = run_both(text, "main", {{"r", {"F", "T", "T", "F"}}});
  expect_stream(run, "o", {"0", "1", "2", "3"});
  expect_solvers_agree(run);
}

// A condition on another clock than the call's is a clock clash at the condition, and
// the oracle shows the error where it is absent.
TEST(Reset, ConditionOnAnotherClockIsAClash) {
  std::string text = std::string(kCount) +
                     "node main(x: bool, c: bool, r: bool) -> (o: int)\n  o = count(x) every (r when c);\n";
  auto fe = run_frontend("reset.rml", text);
  ASSERT_FALSE(fe->diags.has_errors()) << render_all(fe->diags);
  core::Program p = core::elaborate(fe->checked, "main");
  core::Clocks ck = core::infer_clocks(p);
  ASSERT_FALSE(ck.clashes.empty());
  bool at_condition = false;
  for (auto &c : ck.clashes) at_condition |= c.span.begin == text.find("(r when c)") + 1;
  EXPECT_TRUE(at_condition) << ck.clashes[0].message;
  auto run = run_both(text, "main", {{"x", {"T", "T"}}, {"c", {"T", "F"}}, {"r", {"F", "F"}}});
  EXPECT_EQ(run.worklist.at("o", 1).tag, Tag::Err);
}

// The front end's rules: `every` restarts nodes only; its condition is a bool.
TEST(Reset, FrontEndErrors) {
  auto rule_at = [](const std::string &text, const std::string &rule) {
    auto fe = run_frontend("reset.rml", text);
    std::string all = render_all(fe->diags);
    EXPECT_NE(all.find("error[" + rule + "]"), std::string::npos) << text << all;
  };
  rule_at("fun sq(x: real) : real = x * x;\nnode main(x: real, r: bool) -> (o: real)\n  o = sq(x) every r;\n",
          "reset.not-node");
  rule_at("node main(x: real, r: bool) -> (o: real)\n  o = sigmoid(x) every r;\n", "reset.not-node");
  rule_at(std::string(kCount) + "node main(x: bool, r: int) -> (o: int)\n  o = count(x) every r;\n", "type.not-bool");
  rule_at(std::string(kCount) + "node main(x: bool, r: bool) -> (o: int)\n  o = (restart count r)(x);\n",
          "parse.expected");
  rule_at(std::string(kCount) + "node main(x: bool, r: bool) -> (o: int)\n  o = count(x) every;\n", "parse.expected");
}

// The printer keeps each spelling, and the normalised program (the translation) parses
// again and means the same.
TEST(Reset, PrintsAndNormalisesToSourceThatParsesAgain) {
  std::string text = std::string(kCount) +
                     "node main(x: bool, r: bool) -> (o: int)\n  o = (restart count every r)(x) + count(x) every (not r);\n";
  auto fe = run_frontend("reset.rml", text);
  ASSERT_FALSE(fe->diags.has_errors());
  std::string printed = print_program(fe->checked.program);
  EXPECT_NE(printed.find("(restart count every r)(x) + count(x) every (not r)"), std::string::npos) << printed;
  core::Program p = core::elaborate(fe->checked, "main");
  std::string core_text = core::print_core(p);
  EXPECT_EQ(core_text.find("every"), std::string::npos) << core_text;
  Vec xs{"T", "F", "T", "T", "T"}, rs{"F", "T", "F", "F", "T"};
  auto a = run_both(text, "main", {{"x", xs}, {"r", rs}});
  auto b = run_both(core_text, "main", {{"x", xs}, {"r", rs}});
  // (restart count every r)(x): 1 0 1 2 1; count(x) every (not r): 1 1 1 1 2.
  expect_stream(a, "o", {"2", "1", "2", "3", "3"});
  expect_stream(b, "o", {"2", "1", "2", "3", "3"});
}

namespace {

// Runs `main` of `c` on all-present inputs, cycles [from, to) of `in`.
oracle::Result run_segment(const test::Run &c, const oracle::Inputs &in, size_t from, size_t to) {
  oracle::Inputs seg;
  seg.cycles = to - from;
  for (auto &[k, v] : in.streams)
    if (k != "r") seg.streams[k] = std::vector<Cell>(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(to));
  return oracle::Oracle(c.fe->checked, c.prog).run(seg);
}

struct Setup {
  test::Run plain, wrapped;
  oracle::Inputs in;
  std::vector<bool> r;
  bool has_post = false;
};

// A random program with state on the base clock and on sub-clocks (fby, pre, ->, post,
// an inner instance), its wrapper `wrap = main(...) every r`, and all-present inputs.
Setup setup(bool with_resets, bool wrapper_resets = true) {
  testgen::ProgGen g;
  g.well_clocked = true;
  g.sub_clocked_state = true;
  std::string text = g.program();
  std::string wrap = text +
                     "node wrap(x: real, y: int, c: bool, r: bool) -> (o1: real, o2: bool)\n"
                     "  (o1, o2) = main(x, y, c)" + std::string(wrapper_resets ? " every r" : "") + ";\n";
  RC_LOG() << wrap;
  Setup s;
  s.has_post = text.find("post") != std::string::npos;
  size_t len = *rc::gen::inRange<size_t>(2, 10);
  s.in.cycles = len;
  for (size_t n = 0; n < len; ++n) {
    s.in.streams["x"].push_back(Cell::of(array::Tensor::real(*rc::gen::inRange(-3, 4))));
    s.in.streams["y"].push_back(Cell::of(array::Tensor::integer(*rc::gen::inRange(-3, 4))));
    s.in.streams["c"].push_back(Cell::of(array::Tensor::boolean(*rc::gen::arbitrary<bool>())));
    bool r = with_resets && *rc::gen::inRange(0, 3) == 0;
    s.r.push_back(r);
    s.in.streams["r"].push_back(Cell::of(array::Tensor::boolean(r)));
  }
  RC_LOG() << "r = " << [&] { std::string t; for (bool b : s.r) t += b ? 'T' : 'F'; return t; }() << "\n";
  for (const char *v : {"x", "y", "c"}) {
    RC_LOG() << v << " =";
    for (auto &cell : s.in.streams[v]) RC_LOG() << " " << cell.str();
    RC_LOG() << "\n";
  }
  for (auto [run, src, main] : {std::tuple{&s.plain, text, "main"}, std::tuple{&s.wrapped, wrap, "wrap"}}) {
    run->fe = run_frontend("reset_law.rml", src);
    if (run->fe->diags.has_errors()) throw std::runtime_error(render_all(run->fe->diags));
    run->prog = core::elaborate(run->fe->checked, main);
  }
  return s;
}

}  // namespace

// Law (definition of modular reset, semantics.md §2.5): cut the cycles at each reset;
// on each segment the outputs are those of a fresh `main` run on that segment's inputs,
// in the information order: the reset run's cell is the fresh run's, or the fresh run's
// is ? (post at the segment's end, where the reset run has nil; `->`, whose presence is
// its first operand's, while the translation takes it from the clock), or the reset run's
// is ‖ (that nil reached a condition). Without post, with known inputs, they are equal.
static void segment_law(bool wrapper_resets, bool with_resets) {
  Setup s = setup(with_resets, wrapper_resets);
  auto whole = oracle::Oracle(s.wrapped.fe->checked, s.wrapped.prog).run(s.in);
  size_t len = s.in.cycles;
  RC_TAG(s.has_post ? "with post" : "without post");
  for (size_t a = 0; a < len;) {
    size_t b = a + 1;
    while (b < len && !s.r[b]) ++b;
    auto seg = run_segment(s.plain, s.in, a, b);
    for (const char *o : {"o1", "o2"})
      for (size_t n = a; n < b; ++n) {
        const Cell want = seg.at(o, n - a), got = whole.at(o, n);
        bool refines = want.tag == Tag::Bot || got.tag == Tag::Err;  // ? below everything, ‖ above
        if (!(got == want) && !(s.has_post && refines))
          RC_FAIL(std::string(o) + " at cycle " + std::to_string(n) + ": " + got.str() + " with the reset, " + want.str() +
                  " in a fresh run of cycles " + std::to_string(a) + ".." + std::to_string(b - 1));
      }
    a = b;
  }
}
RC_GTEST_PROP(Reset, EachSegmentIsAFreshInstance, ()) { segment_law(true, true); }

// Law: a condition that is never true changes nothing (in the same sense: one segment).
RC_GTEST_PROP(Reset, NeverTrueIsNoReset, ()) { segment_law(true, false); }

// Negative control: the segment law fails for a wrapper that does not reset (it calls
// main(x, y, c) without `every r`): some random program with state meets a reset.
TEST(Reset, NegativeControlTheSegmentLawSeesAMissingReset) {
  EXPECT_FALSE(rc::check("segment law without the reset", [] { segment_law(false, true); }));
}
