// Golden vectors: every chronogram of the paper (semantics.md §7), run from the
// reference corpus. Expected values are the paper's printed figures (symbolic values of
// Figure 14 replaced by distinct numbers, which the program only moves around); where the
// printed prefix does not determine a cell the oracle gives `?`, as §7 records. Every
// test also checks that the worklist solver and the Kleene iteration agree.
#include "oracle_util.hpp"

using namespace rml;
using rml::test::expect_solvers_agree;
using rml::test::expect_stream;
using rml::test::read_source;
using rml::test::run_both;

TEST(Golden, Figure5_AppNormalised) {
  auto r = run_both(read_source("reference/paper/fig04_app_normalized.rml"), "app", {{"i", {"1", "2", "1.5", "_", "1"}}});
  expect_stream(r, "t", {"1", "2", "1.5", "_", "1"});
  expect_stream(r, "b", {"0", "0", "0", "_", "0"});  // a constant is absent where its node does not run
  expect_stream(r, "x", {"1", "2", "1.5", "_", "1"});
  expect_stream(r, "o", {"1", "4", "2.25", "_", "1"});
  expect_solvers_agree(r);
}

TEST(Golden, Figure6_Fby) {
  auto r = run_both(read_source("reference/paper/fig06_fby.rml"), "fig06",
                    {{"i", {"3.0", "5.1", "_", "6.1", "3.0", "2.2"}}, {"x", {"4.3", "0.8", "_", "3.3", "1.9", "7.7"}}});
  expect_stream(r, "y", {"3.0", "4.3", "_", "0.8", "3.3", "1.9"});
  expect_solvers_agree(r);
}

TEST(Golden, Figure7_Counter) {
  auto r = run_both(read_source("reference/paper/fig07_counter.rml"), "counter", {}, 6);
  expect_stream(r, "o", {"0", "1", "2", "3", "4", "5"});
  expect_stream(r, "u", {"1", "2", "3", "4", "5", "6"});
  expect_solvers_agree(r);
}

TEST(Golden, Figure10_When) {
  auto r = run_both(read_source("reference/paper/fig10_when.rml"), "fig10",
                    {{"c", {"T", "F", "T", "_", "F"}}, {"y", {"2", "7", "5", "_", "1"}}});
  expect_stream(r, "x", {"2", "_", "5", "_", "_"});
  expect_solvers_agree(r);
}

TEST(Golden, Figure11_Merge) {
  auto r = run_both(read_source("reference/paper/fig11_merge.rml"), "fig11",
                    {{"c", {"T", "F", "T", "_", "F"}}, {"y", {"2", "_", "5", "_", "_"}}, {"z", {"_", "3", "_", "_", "1"}}});
  expect_stream(r, "x", {"2", "3", "5", "_", "1"});
  expect_solvers_agree(r);
}

TEST(Golden, Figure13_Post) {
  // The figure prints y5 = 1.9, a value of x at cycle 6, outside the figure (D1): `?`.
  auto r = run_both(read_source("reference/paper/fig13_post.rml"), "fig13", {{"x", {"4.3", "3.0", "_", "3.3", "1.9", "7.7"}}});
  expect_stream(r, "y", {"3.0", "3.3", "_", "1.9", "7.7", "?"});
  expect_solvers_agree(r);
}

// Figure 14: i_k = 100 + k, do_k = 200 + k.
TEST(Golden, Figure14_DiffFby1) {
  auto r = run_both(read_source("reference/paper/fig03_gradient_descent.rml"), "diff_fby1",
                    {{"init", {"0.0", "0.0", "0.0", "_", "0.0", "0.0"}},
                     {"i", {"100", "101", "102", "_", "104", "105"}},
                     {"bpo", {"F", "F", "T", "_", "F", "T"}},
                     {"do", {"_", "_", "202", "_", "_", "205"}}});
  expect_stream(r, "o", {"0.0", "100", "101", "_", "102", "104"});
  expect_stream(r, "bpi", {"F", "T", "F", "_", "T", "?"});  // D2: the last column needs cycle 6
  expect_stream(r, "di", {"_", "202", "_", "_", "205", "?"});
  expect_solvers_agree(r);
}

TEST(Golden, Figure14_WithASeventhColumn) {
  auto r = run_both(read_source("reference/paper/fig03_gradient_descent.rml"), "diff_fby1",
                    {{"init", {"0.0", "0.0", "0.0", "_", "0.0", "0.0", "0.0"}},
                     {"i", {"100", "101", "102", "_", "104", "105", "106"}},
                     {"bpo", {"F", "F", "T", "_", "F", "T", "F"}},
                     {"do", {"_", "_", "202", "_", "_", "205", "_"}}});
  expect_stream(r, "o", {"0.0", "100", "101", "_", "102", "104", "105"});
  expect_stream(r, "bpi", {"F", "T", "F", "_", "T", "F", "?"});
  expect_stream(r, "di", {"_", "202", "_", "_", "205", "_", "?"});
  expect_solvers_agree(r);
}

TEST(Golden, Figure15_PCounterComputesNothing) {
  auto r = run_both(read_source("reference/paper/fig15_pcounter.rml"), "pcounter", {}, 6);
  expect_stream(r, "o", {"?", "?", "?", "?", "?", "?"});
  expect_stream(r, "u", {"?", "?", "?", "?", "?", "?"});
  expect_solvers_agree(r);
}

TEST(Golden, Figure16_Backfill) {
  auto r = run_both(read_source("reference/paper/fig16_backfill.rml"), "backfill",
                    {{"bp", {"F", "F", "T", "T", "F", "T"}}, {"i", {"2", "6", "8", "5", "1", "4"}}});
  expect_stream(r, "o", {"8", "8", "8", "5", "4", "4"});
  expect_solvers_agree(r);
}

TEST(Golden, Figure18_FbyEnd) {
  auto r = run_both(read_source("reference/paper/fig18_fby_end_trace.rml"), "fig18",
                    {{"end", {"F", "F", "T", "T", "F", "T"}}, {"init", {"1", "0", "9", "3", "5", "8"}},
                     {"i", {"2", "6", "8", "5", "1", "4"}}});
  expect_stream(r, "o", {"1", "2", "6", "3", "5", "1"});
  expect_solvers_agree(r);
}

// Derived vectors (semantics.md §7): the refuted alternatives, and a prefix too short.
TEST(Golden, BackfillWithDataDrivenPostIsRefuted) {
  oracle::Options o;
  o.post_clock_data = true;
  auto r = run_both(read_source("reference/paper/fig16_backfill.rml"), "backfill",
                    {{"bp", {"F", "F", "T", "T", "F", "T"}}, {"i", {"2", "6", "8", "5", "1", "4"}}}, 0, o);
  expect_stream(r, "o", {"?", "?", "8", "5", "?", "4"});
  expect_solvers_agree(r);
}

TEST(Golden, BackfillWithStrictWhenMergeIsRefuted) {
  oracle::Options o;
  o.strict_when_merge = true;
  auto r = run_both(read_source("reference/paper/fig16_backfill.rml"), "backfill",
                    {{"bp", {"F", "F", "T", "T", "F", "T"}}, {"i", {"2", "6", "8", "5", "1", "4"}}}, 0, o);
  expect_stream(r, "o", {"?", "?", "?", "?", "?", "?"});
  expect_solvers_agree(r);
}

TEST(Golden, BackfillNeedsAFutureTick) {
  auto r = run_both(read_source("reference/paper/fig16_backfill.rml"), "backfill",
                    {{"bp", {"T", "F", "F", "F"}}, {"i", {"1", "2", "3", "4"}}});
  expect_stream(r, "o", {"1", "?", "?", "?"});
  expect_solvers_agree(r);
}

// Clock errors are values: the oracle reports where ‖ was produced, by which rule.
TEST(Golden, MisalignedWhenGivesAnErrorWithItsRule) {
  auto r = run_both("node f(c: bool, y: int) -> (x: int) x = y when c;\n", "f",
                    {{"c", {"T", "_", "F"}}, {"y", {"1", "2", "3"}}});
  expect_stream(r, "x", {"1", "\u2016", "_"});
  ASSERT_EQ(r.worklist.errors.size(), 1u);
  EXPECT_EQ(r.worklist.errors[0].rule, "when");
  EXPECT_EQ(r.worklist.errors[0].cycle, 1u);
  EXPECT_EQ(r.worklist.errors[0].var, "x");
  expect_solvers_agree(r);
}

TEST(Golden, LustrePreAndArrow) {
  // o = 0 -> pre o + 1 counts ticks; pre's first value is nil, which `->` never reads.
  auto r = run_both("node f(x: int) returns (o: int, p: int); let o = 0 -> pre o + 1; p = pre x; tel\n", "f",
                    {{"x", {"5", "6", "_", "7"}}});
  expect_stream(r, "o", {"0", "1", "_", "2"});
  expect_stream(r, "p", {"nil", "5", "_", "6"});
  expect_solvers_agree(r);
}

TEST(Golden, TensorsThroughThePrelude) {
  auto r = run_both(
      "node f(a: real[3], b: real[3]) -> (d: real, c: real[6], s: real[3])\n"
      "  d = dot(a, b); c = concat(a, b); s = relu(a - b);\n",
      "f", {{"a", {"[1, 2, 3]", "_"}}, {"b", {"[4, -5, 6]", "_"}}});
  expect_stream(r, "d", {"12", "_"});
  expect_stream(r, "c", {"[1, 2, 3, 4, -5, 6]", "_"});
  expect_stream(r, "s", {"[0, 7, 0]", "_"});
  expect_solvers_agree(r);
}
