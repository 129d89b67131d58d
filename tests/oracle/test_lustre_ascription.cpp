// Kind 2's type ascription `(e : t)` (syntax/parser.cpp `ascription`, grammar.md §2): e's
// value, of type t, where t's range or refinement is a property of the node (named
// `ascribedN:T`), checked as a local's. Streams and verdicts worked out by hand.
#include <gtest/gtest.h>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"

using namespace rml;
using namespace rml::test;

namespace {
const char *kAscribed =
    "type Nat = subrange [0, *] of int;\n"
    "type Small = Nat;\n"
    "type Neg = subtype { v: int | v < 0 };\n"
    "node main (x: int) returns (a, b, c, d, e: int);\n"
    "let\n"
    "  a = (x : Nat) + 1;\n"
    "  b = (x - 10 : subrange [-20, 20] of int);\n"
    "  c = (x : Neg);\n"
    "  d = (x * 0 : Small);\n"
    "  e = (x : subtype { w: int | w <> a });\n"
    "tel\n";
}  // namespace

TEST(LustreAscription, TheValueIsTheExpressionsAndItsTypeIsAProperty) {
  auto r = run_both(kAscribed, "main", {{"x", {"-1", "5", "40"}}});
  expect_stream(r, "a", {"0", "6", "41"});
  expect_stream(r, "b", {"-11", "-5", "30"});
  expect_stream(r, "c", {"-1", "5", "40"});
  expect_stream(r, "d", {"0", "0", "0"});
  expect_solvers_agree(r);
  check::Report rep = check_text_report(kAscribed, "main");
  std::map<std::string, check::Verdict> by_name;
  for (auto &p : rep.properties)
    if (p.kind == "property") by_name[p.name] = p.verdict;
  using V = check::Verdict;
  // x = -1 breaks Nat, x = 31 the inline subrange, x = 0 Neg; 0 is a Small (an alias of
  // Nat); x <> x + 1 always, the wrap at 2^63 - 1 included (it gives -2^63).
  EXPECT_EQ(by_name, (std::map<std::string, V>{{"0 <= ascribed1 (the range of Nat)", V::Falsified},
                                                {"-20 <= ascribed2 and ascribed2 <= 20 (the range of subrange)", V::Falsified},
                                                {"v < 0", V::Falsified},
                                                {"0 <= ascribed4 (the range of Small)", V::Valid},
                                                {"w <> a", V::Valid}}));
}

// The generated local avoids the file's names; outside a node's equations an ascription
// is a located refusal (its local would be computed where the expression is not).
TEST(LustreAscription, NamesAndWhereItIsRead) {
  auto taken = run_both("node main (x: int) returns (ascribed1: int);\nlet\n  ascribed1 = (x : int);\ntel\n", "main", {{"x", {"3"}}});
  expect_stream(taken, "ascribed1", {"3"});
  EXPECT_TRUE(taken.worklist.has("ascribed2"));
  auto in_property = check_text("node main (x: int) returns (y: int);\nlet\n  y = x;\n  check (y : int) = x;\ntel\n");
  EXPECT_EQ(errors_of(*in_property), std::vector<std::string>{"4:9 syntax.unsupported"});
  auto in_reset = check_text(
      "node main (x: int; r: bool) returns (y: int);\nlet\n  reset\n    y = (x : int) + (0 -> pre y);\n  every r;\ntel\n");
  EXPECT_EQ(errors_of(*in_reset), std::vector<std::string>{"4:9 syntax.unsupported"});
  auto in_const = check_text("const k: int = (3 : int);\nnode main (x: int) returns (y: int);\nlet\n  y = x + k;\ntel\n");
  EXPECT_EQ(errors_of(*in_const), std::vector<std::string>{"1:16 syntax.unsupported"});
}
