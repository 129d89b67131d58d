// Declared clocks (semantics.md §9.1): a declaration `x: t when c` is a claim of the
// program: x is present exactly where its instance runs and c is true. The oracle's runs
// find where a declaration is broken (oracle/declared_clocks.hpp); rml-check's clocks
// property proves the declarations hold (tests/check/ko/73, 74; ok/65).
#include <gtest/gtest.h>

#include "oracle/declared_clocks.hpp"
#include "oracle_util.hpp"

using namespace rml;
using namespace rml::test;

namespace {

// The output x is declared on the base clock but defined on `base on t`, t = false fby b.
const char *kOutputOnSlowerClock =
    "node step(a: bool) returns (t: bool; v: int when t);\n"
    "let\n  t = false fby a;\n  v = 1 when t;\ntel\n"
    "node pass(k: bool; w: int when k) returns (y: int when k);\n"
    "let\n  y = w;\ntel\n"
    "node main(b: bool) returns (x: int);\n"
    "let\n  x = pass(step(b));\ntel\n";

std::vector<oracle::DeclaredClockViolation> violations(const test::Run &r) {
  return oracle::declared_clock_violations(r.prog, r.worklist);
}

std::string where(const Span &s) {
  auto [line, col] = s.file->line_col(s.begin);
  return std::to_string(line) + ":" + std::to_string(col);
}

}  // namespace

TEST(DeclaredClocks, AnOutputOnASlowerClockIsReportedAtItsFirstAbsence) {
  // t = F T T F: x is present at cycles 1 and 2 only; the first absence where the base
  // clock ticks is cycle 0, and only the first violation of each declaration is kept.
  test::Run r = run_both(kOutputOnSlowerClock, "main", {{"b", {"true", "true", "false", "false"}}});
  expect_stream(r, "x", {"_", "1", "1", "_"});
  auto v = violations(r);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].var, "x");
  EXPECT_EQ(v[0].cycle, 0u);
  EXPECT_FALSE(v[0].present);
  EXPECT_EQ(where(v[0].span), "10:29");  // the declaration `x: int`
  EXPECT_EQ(v[0].message, "'x' is absent at cycle 0, where its declared clock (base) ticks");
  EXPECT_FALSE(r.worklist.any_error());  // no cell is ‖: only the declaration is broken
  // Boundary: from the second cycle on, t = b of the cycle before; b = T T T T keeps x
  // present from cycle 1, so the only violation is still cycle 0.
  test::Run all = run_both(kOutputOnSlowerClock, "main", {{"b", {"true", "true", "true", "true"}}});
  auto w = violations(all);
  ASSERT_EQ(w.size(), 1u);
  EXPECT_EQ(w[0].cycle, 0u);
}

TEST(DeclaredClocks, CyclesWhereTheMainNodeDoesNotRunAreNotClaimed) {
  // A cycle where every input is absent is not a cycle of the main node: its base clock
  // does not tick there, so an absent output keeps its declaration.
  test::Run r = run_both("node main(b: bool) returns (x: int);\nlet\n  x = 0 fby (x + 1);\ntel\n", "main", {{"b", {"true", "_", "false"}}});
  expect_stream(r, "x", {"0", "_", "1"});
  EXPECT_TRUE(violations(r).empty());
}

TEST(DeclaredClocks, UnknownAndErrorCellsAreSkipped) {
  // x = (post y) when c, declared on the base clock: at the last cycle post y is ⊥ (it
  // needs the cycle after the trace), so nothing is claimed there; where c is false, x
  // is absent, a violation.
  const char *text = "node main(c: bool) returns (x: int);\nvar y: int;\nlet\n  y = 0 fby (y + 1);\n  x = (post y) when c;\ntel\n";
  test::Run known = run_both(text, "main", {{"c", {"true", "true", "false"}}});
  expect_stream(known, "x", {"1", "2", "_"});
  auto v = violations(known);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].cycle, 2u);
  test::Run bot = run_both(text, "main", {{"c", {"true", "true", "true"}}});
  expect_stream(bot, "x", {"1", "2", "?"});
  EXPECT_TRUE(violations(bot).empty());
  // An error value (‖) where the declaration would be checked is reported as ‖ alone.
  const char *err = "node main(c: bool) returns (x: int);\nlet\n  x = 1 + (2 when c);\ntel\n";
  test::Run e = run_both(err, "main", {{"c", {"true", "false"}}});
  EXPECT_TRUE(e.worklist.any_error());
  EXPECT_TRUE(violations(e).empty());
}

TEST(DeclaredClocks, AnInstanceInputIsCheckedAgainstItsInstanceBase) {
  // count's w is declared `when k`, k := p, but receives `1 when q`: where p and not q,
  // w is absent although its declared clock (clock(p) on p) ticks; where q and not p,
  // present though it does not. An instance's n, declared on its base clock, is checked
  // against the clock of its first variable declared without `when` (k, that is p).
  const char *text =
      "node count(k: bool; w: int when k) returns (n: int);\nlet\n  n = 0 fby (n + 1);\ntel\n"
      "node main(p, q: bool) returns (n: int);\nlet\n  n = count(p, 1 when q);\ntel\n";
  test::Run agree = run_both(text, "main", {{"p", {"true", "false"}}, {"q", {"true", "false"}}});
  EXPECT_TRUE(violations(agree).empty());
  test::Run absent = run_both(text, "main", {{"p", {"true", "true"}}, {"q", {"true", "false"}}});
  auto v = violations(absent);
  ASSERT_EQ(v.size(), 1u);
  EXPECT_EQ(v[0].cycle, 1u);
  EXPECT_FALSE(v[0].present);
  EXPECT_EQ(where(v[0].span), "1:21");  // `w: int when k`
  EXPECT_NE(v[0].message.find("is absent at cycle 1, where its declared clock (when p) ticks"), std::string::npos) << v[0].message;
  test::Run present = run_both(text, "main", {{"p", {"false", "true"}}, {"q", {"true", "true"}}});
  auto u = violations(present);
  ASSERT_EQ(u.size(), 1u);
  EXPECT_EQ(u[0].cycle, 0u);
  EXPECT_TRUE(u[0].present);
}

TEST(DeclaredClocks, TheMainNodesInputsAreTheEnvironmentsAssumption) {
  // An input absent where its declared clock ticks is input.clock (a trace outside the
  // node's assumptions), not a broken declaration of the program.
  test::Run r = run_both("node main(c: bool; x: int when c) returns (y: int when c);\nlet\n  y = x;\ntel\n", "main",
                   {{"c", {"true", "true"}}, {"x", {"1", "_"}}});
  EXPECT_FALSE(r.worklist.input_clock_violations.empty());
  for (auto &v : violations(r)) EXPECT_NE(v.var, "x") << v.message;
}

TEST(DeclaredClocks, HeptagonInfersTheClocksItIsNotGiven) {
  // Heptagon reads `y: bool` without a clock as "inferred" (its good test clocks.ept has
  // `y = x when x` so): in a .ept source such a declaration claims nothing; the same text
  // in a .lus source claims the base clock, which the run breaks where x is false.
  const char *text = "node main(x: bool) returns (y: bool)\nlet\n  y = x when x\ntel\n";
  for (const char *path : {"g.ept", "g.lus"}) {
    auto fe = run_frontend(path, text);
    ASSERT_FALSE(fe->diags.has_errors()) << render_all(fe->diags);
    core::Program prog = core::elaborate(fe->checked, "main");
    oracle::Inputs in;
    in.cycles = 2;
    for (bool b : {true, false}) in.streams["x"].push_back(oracle::Cell::of(array::Tensor::boolean(b)));
    auto v = oracle::declared_clock_violations(prog, oracle::Oracle(fe->checked, prog).run(in));
    EXPECT_EQ(v.size(), std::string(path) == "g.lus" ? 1u : 0u) << path;
    check::Options o;
    o.rlimit = 20'000'000;
    auto rep = check::check_program(fe->checked, prog, o);
    EXPECT_EQ(rep.properties.at(0).kind, "clocks");
    EXPECT_EQ(rep.properties.at(0).verdict, std::string(path) == "g.lus" ? check::Verdict::Falsified : check::Verdict::Valid) << path;
  }
}
