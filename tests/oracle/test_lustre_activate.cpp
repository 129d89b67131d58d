// Kind 2's activation `(activate N every c)(x)` (syntax/parser.cpp `activate`, grammar.md
// §2): N's instance on the clock c, `N(x when c)`; `every k = C` the enumeration's clock,
// `every not c` the complement; `initial default (d)` Lustre's condact (outputs held where
// c is false, d before c first holds); `restart every r` the instance restarted where r
// holds (r sampled by c). Every expected stream is worked out by hand in the comments;
// the first is Kind 2's own example (its manual, "Merge, When, Activate and Restart").
#include <gtest/gtest.h>

#include "oracle_util.hpp"
#include "test_util.hpp"

using namespace rml;
using namespace rml::test;

namespace {
const char *kActivate =
    "type t = enum { A, B };\n"
    "node sum_ge_10 (i: int) returns (out: bool);\n"
    "var sum: int;\n"
    "let\n  sum = i + (0 -> pre sum);\n  out = sum >= 10;\ntel\n"
    "node integr (e: int) returns (s: int);\n"
    "let\n  s = e + (0 -> pre s);\ntel\n"
    "node main (i: int; cl: t; r: bool) returns (safe: bool; held, en, rs, neg: int);\n"
    "var i_pos, pre_tmp: bool;\n"
    "let\n"
    "  i_pos = i >= 0;\n"
    "  pre_tmp = false -> pre safe;\n"
    "  safe = merge(i_pos; (activate sum_ge_10 every i_pos)(i); pre_tmp when not i_pos);\n"
    "  held = (activate integr every i_pos initial default (-1))(i);\n"
    "  en = merge cl (A -> (activate integr every cl = A)(i)) (B -> 0 when B(cl));\n"
    "  rs = merge(i_pos; (activate integr every i_pos restart every r)(i); 0 when not i_pos);\n"
    "  neg = merge(i_pos; 1 when i_pos; (activate integr every not i_pos)(i));\n"
    "tel\n";
}  // namespace

TEST(LustreActivate, AnActivatedInstanceStepsOnlyOnItsClock) {
  // i_pos at cycles 1, 2, 4, 6 (and cl = A there).
  auto r = run_both(kActivate, "main",
                    {{"i", {"-1", "3", "2", "-1", "2", "-7", "35", "-2"}},
                     {"cl", {"B", "A", "A", "B", "A", "B", "A", "B"}},
                     {"r", {"F", "F", "T", "F", "F", "F", "F", "F"}}});
  // sum over the active cycles: 3, 5, 7, 42; >= 10 only at cycle 6; held after it.
  expect_stream(r, "safe", {"F", "F", "F", "F", "F", "F", "T", "T"});
  // condact: -1 before the first activation, then the running sum, held in between.
  expect_stream(r, "held", {"-1", "3", "5", "5", "7", "7", "42", "42"});
  // the enumeration's clock: the same sums where cl = A, 0 elsewhere.
  expect_stream(r, "en", {"0", "3", "5", "0", "7", "0", "42", "0"});
  // restarted at cycle 2 (r and active): 2, then 2 + 2 = 4, 4 + 35 = 39.
  expect_stream(r, "rs", {"0", "3", "2", "0", "4", "0", "39", "0"});
  // the complement: sums of the negative inputs -1, -1, -7, -2 at cycles 0, 3, 5, 7.
  expect_stream(r, "neg", {"-1", "1", "1", "-2", "1", "-9", "1", "-11"});
  expect_solvers_agree(r);
}

// `every a = b` on two bools is no enumeration's clock: the clock of the condition a = b.
TEST(LustreActivate, AnEqualityOfTwoVariablesIsAnEnumerationClockOnlyForAConstructor) {
  auto r = run_both(
      "node integr (e: int) returns (s: int);\nlet\n  s = e + (0 -> pre s);\ntel\n"
      "node main (i: int; a, b: bool) returns (o: int);\nlet\n"
      "  o = merge (a = b) ((activate integr every a = b)(i)) (0 when not (a = b));\ntel\n",
      "main", {{"i", {"1", "2", "3"}}, {"a", {"T", "T", "F"}}, {"b", {"T", "F", "F"}}});
  expect_stream(r, "o", {"1", "0", "4"});  // steps at cycles 0 and 2: 1, then 1 + 3
  expect_solvers_agree(r);
}

TEST(LustreActivate, WhatIsNotReadIsALocatedError) {
  auto none = check_text(
      "node k () returns (o: int);\nlet\n  o = 1;\ntel\n"
      "node main (c: bool) returns (o: int);\nlet\n  o = merge(c; (activate k every c)(); 0 when not c);\ntel\n");
  EXPECT_EQ(errors_of(*none), std::vector<std::string>{"7:16 syntax.unsupported"});
  auto both = check_text(
      "node k (x: int) returns (o: int);\nlet\n  o = x;\ntel\n"
      "node main (c, r: bool; x: int) returns (o: int);\nlet\n  o = (activate k every c initial default (0) restart every r)(x);\ntel\n");
  EXPECT_EQ(errors_of(*both), std::vector<std::string>{"7:7 syntax.unsupported"});
}
