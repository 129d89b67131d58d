// The array iterators (sema/expand_iterators): Heptagon's `map<<n>> f (a)`,
// `mapi`, `fold`, `foldi`, `mapfold` (a node name or an operator in parentheses) and
// Lustre V6's `map<<f, n>>(a)`, `red<<f, n>>(init, a)`, `fill<<f, n>>(init)` and
// `fillred<<f, n>>(init, a)`, expanded into array literals, static indices, calls and
// (for the iterators whose f returns a tuple) equations, before the arrays are flattened. Chronograms computed by hand, on both
// solvers; printed back as written; errors located.
#include <gtest/gtest.h>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"

using namespace rml;
using namespace rml::test;

namespace {

const char *kIterated =
    "const n: int = 3;\n"
    "node inc(a: int) returns (o: int);\nlet\n  o = a + 1;\ntel\n"
    "node sum_acc(a, acc: int) returns (o: int);\nlet\n  o = a + acc;\ntel\n"
    "node idx(a, i: int) returns (o: int);\nlet\n  o = a * 10 + i;\ntel\n"
    "node idx3(a, i, acc: int) returns (o: int);\nlet\n  o = acc + a * i;\ntel\n"
    "node integ(x: int) returns (o: int);\nlet\n  o = x + (0 fby o);\ntel\n";

}  // namespace

TEST(LustreIterators, EachIteratorIsItsDefinition) {
  auto r = run_both(std::string(kIterated) +
                        "node main(a, b: int^n) returns (m: int^n; s: int^n; f: int; g: int; r: int; v: int^n; mi: int^n; fi: int; "
                        "t: int^n);\nlet\n"
                        "  m = map<<n>> inc (map<<n>> inc (a));\n"  // a + 2
                        "  s = map<<n>> (+) (a, b);\n"               // a + b
                        "  f = fold<<n>> sum_acc (a, 0);\n"          // a[0] + a[1] + a[2]
                        "  g = fold<<n>> (+) (b, 100);\n"            // 100 + b[0] + b[1] + b[2]
                        "  r = red<<sum_acc, n>>(0, a);\n"           // the same as f
                        "  v = map<<inc, n>>(b);\n"                  // b + 1
                        "  mi = mapi<<n>> idx (a);\n"                // a[i] * 10 + i
                        "  fi = foldi<<n>> idx3 (a, 0);\n"           // 0*a[0] + 1*a[1] + 2*a[2]
                        "  t = map<<n>> integ (a);\n"                // one instance per element: running sums
                        "tel\n",
                    "main",
                    {{"a[0]", {"1", "-4"}}, {"a[1]", {"2", "5"}}, {"a[2]", {"3", "0"}},
                     {"b[0]", {"10", "1"}}, {"b[1]", {"20", "2"}}, {"b[2]", {"30", "3"}}});
  expect_solvers_agree(r);
  expect_stream(r, "m[0]", {"3", "-2"});
  expect_stream(r, "m[1]", {"4", "7"});
  expect_stream(r, "m[2]", {"5", "2"});
  expect_stream(r, "s[0]", {"11", "-3"});
  expect_stream(r, "s[2]", {"33", "3"});
  expect_stream(r, "f", {"6", "1"});
  expect_stream(r, "g", {"160", "106"});
  expect_stream(r, "r", {"6", "1"});
  expect_stream(r, "v[1]", {"21", "3"});
  expect_stream(r, "mi[0]", {"10", "-40"});
  expect_stream(r, "mi[1]", {"21", "51"});
  expect_stream(r, "mi[2]", {"32", "2"});
  expect_stream(r, "fi", {"8", "5"});
  expect_stream(r, "t[0]", {"1", "-3"});
  expect_stream(r, "t[1]", {"2", "7"});
  expect_stream(r, "t[2]", {"3", "3"});
}

// f returns the accumulator and values: each application is an equation of its own, and
// the iterator the tuple of the final accumulator and the arrays. A stateful f has one
// instance per element, like map's.
TEST(LustreIterators, FillFillredAndMapfold) {
  const char *text =
      "node sum_dup(a, acc: int) returns (o: int; acc_out: int);\nlet\n  acc_out = acc + a;\n  o = acc_out;\ntel\n"
      "node count(acc: int) returns (acc_out: int; y: int; sq: int);\nlet\n  acc_out = acc + 1;\n  y = acc * 10;\n"
      "  sq = acc * acc;\ntel\n"
      "node step(acc, a: int) returns (acc_out: int; y: int);\nlet\n  acc_out = acc + a + (0 fby acc_out);\n  y = acc - a;\ntel\n"
      "node main(a: int^3; k: int) returns (p: int^3; pa: int; fa: int; f: int^3; g: int^3; ra: int; r: int^3);\nlet\n"
      "  (p, pa) = mapfold<<3>> sum_dup (a, 10);\n"  // prefix sums from 10
      "  (fa, f, g) = fill<<count, 3>>(k);\n"        // k, k+1, k+2 times 10 and squared
      "  (ra, r) = fillred<<step, 3>>(0, a);\n"       // stateful: each element keeps its own fby
      "tel\n";
  auto r = run_both(text, "main", {{"a[0]", {"1", "2"}}, {"a[1]", {"2", "0"}}, {"a[2]", {"3", "-1"}}, {"k", {"4", "-1"}}});
  expect_solvers_agree(r);
  expect_stream(r, "p[0]", {"11", "12"});
  expect_stream(r, "p[1]", {"13", "12"});
  expect_stream(r, "p[2]", {"16", "11"});
  expect_stream(r, "pa", {"16", "11"});
  expect_stream(r, "fa", {"7", "2"});
  expect_stream(r, "f[0]", {"40", "-10"});
  expect_stream(r, "f[1]", {"50", "0"});
  expect_stream(r, "f[2]", {"60", "10"});
  expect_stream(r, "g[0]", {"16", "1"});
  expect_stream(r, "g[2]", {"36", "1"});
  // fillred: acc(k+1) = acc(k) + a[k] + (that element's acc_out one cycle before), y(k) = acc(k) - a[k].
  // Cycle 0: acc 0 -> 1 -> 3 -> 6, y = -1, -1, 0. Cycle 1 (memories 1, 3, 6):
  // acc 0 -> 0+2+1 = 3 -> 3+0+3 = 6 -> 6-1+6 = 11, y = -2, 3, 7.
  expect_stream(r, "ra", {"6", "11"});
  expect_stream(r, "r[0]", {"-1", "-2"});
  expect_stream(r, "r[1]", {"-1", "3"});
  expect_stream(r, "r[2]", {"0", "7"});
  // Printed as written.
  std::string out = reprint_program(text);
  EXPECT_NE(out.find("p, pa = mapfold<<3>> sum_dup (a, 10);"), std::string::npos) << out;
  EXPECT_NE(out.find("fa, f, g = fill<<count, 3>>(k);"), std::string::npos) << out;
  EXPECT_NE(out.find("ra, r = fillred<<step, 3>>(0, a);"), std::string::npos) << out;
  // rml-check proves what the expansion means.
  check::Report rep = check_text_report(std::string(text).replace(std::string(text).rfind("tel"), 3,
                                                                  "  check pa = 10 + a[0] + a[1] + a[2];\n  check f[2] = (k + 2) * 10;\n"
                                                                  "  check fa = k + 4;\ntel"),
                                        "main");
  std::vector<check::Verdict> got;
  for (auto &p : rep.properties)
    if (p.kind == "property") got.push_back(p.verdict);
  EXPECT_EQ(got, (std::vector<check::Verdict>{check::Verdict::Valid, check::Verdict::Valid, check::Verdict::Falsified}));
}

TEST(LustreIterators, PrintedBackAsWritten) {
  const std::string text = std::string(kIterated) +
                           "node main(a: int^n) returns (m: int^n; f: int; r: int);\nlet\n"
                           "  m = map<<n>> (+) (a, mapi<<n>> idx (a));\n  f = fold<<n + 0>> (and) (a > 0 ^ n, true) -> 0;\n"
                           "  r = red<<sum_acc, n>>(0, a);\ntel\n";
  std::string out = reprint_program(text);
  EXPECT_NE(out.find("m = map<<n>> (+) (a, mapi<<n>> idx (a));"), std::string::npos) << out;
  EXPECT_NE(out.find("fold<<n + 0>> (and) ("), std::string::npos) << out;
  EXPECT_NE(out.find("r = red<<sum_acc, n>>(0, a);"), std::string::npos) << out;
}

TEST(LustreIterators, Errors) {
  const std::string head = kIterated;
  auto r = check_text(head +
                      "node main(a: int^n; k: int) returns (o: int^n; p: int; q: int^n; u: int; w: int^n);\nlet\n"
                      "  o = map<<k>> inc (a);\n"                    // not static
                      "  p = fold<<n>> sum_acc ();\n"                // no accumulator
                      "  q = map<<0>> inc (a);\n"                    // size 0
                      "  u = fold<<n, n>> sum_acc (a, 0);\n"         // several sizes
                      "  w = map<<n>> (+) (a);\n"                    // an operator takes two
                      "tel\n");
  EXPECT_EQ(errors_of(*r), (std::vector<std::string>{"24:12 static.not-static", "25:7 arity.args", "26:12 static.eval",
                                                     "27:7 syntax.unsupported", "28:7 arity.args"}))
      << diag_text(*r);
  // fill, fillred and mapfold apply a node that returns the accumulator and values.
  auto m = check_text(head + "node main(a: int^n) returns (o: int^n; acc: int);\nlet\n  (o, acc) = mapfold<<n>> inc (a, 0);\ntel\n");
  EXPECT_EQ(errors_of(*m), (std::vector<std::string>{"24:14 type.mismatch"})) << diag_text(*m);
  auto f = check_text(head + "node main(a: int) returns (o: int^n);\nlet\n  o = fill<<inc, n>>(a);\ntel\n");
  EXPECT_EQ(errors_of(*f), (std::vector<std::string>{"24:7 type.mismatch"})) << diag_text(*f);
  auto op = check_text(head + "node main(a: int^n) returns (o: int^n; acc: int);\nlet\n  (o, acc) = mapfold<<n>> (+) (a, 0);\ntel\n");
  EXPECT_EQ(errors_of(*op), (std::vector<std::string>{"24:14 type.mismatch"})) << diag_text(*op);
  auto noinit = check_text(head + "node st(acc: int) returns (a: int; y: int);\nlet\n  a = acc + 1;\n  y = acc;\ntel\n"
                                  "node main(a: int^n) returns (o: int^n; acc: int);\nlet\n  (acc, o) = fill<<st, n>>(a[0], 1);\n"
                                  "  (acc, o) = fillred<<st, n>>();\ntel\n");
  EXPECT_EQ(errors_of(*noinit), (std::vector<std::string>{"29:14 arity.args", "30:14 arity.args"})) << diag_text(*noinit);
  // A fold nests its applications: past the parser's height bound it is refused, a map of
  // the same size is not.
  auto deep = check_text("node main(a: int^600) returns (f: int; m: int^600);\nlet\n  f = fold<<600>> (+) (a, 0);\n"
                         "  m = map<<600>> (-) (a, a);\ntel\n");
  EXPECT_EQ(errors_of(*deep), (std::vector<std::string>{"3:13 static.eval"})) << diag_text(*deep);
  // Something other than a name or `(op)` after the sizes.
  auto g = check_text(head + "node main(a: int^n) returns (o: int^n);\nlet\n  o = map<<n>> 3 (a);\ntel\n");
  EXPECT_EQ(errors_of(*g), (std::vector<std::string>{"24:7 syntax.unsupported"})) << diag_text(*g);
}

// A node the program calls `map` (without `<<..>>`) is a call, not the iterator.
TEST(LustreIterators, ANodeNamedMapIsCalled) {
  auto r = run_both("node map(x: int) returns (y: int);\nlet\n  y = x * 2;\ntel\n"
                    "node main(x: int) returns (o: int);\nlet\n  o = map(x);\ntel\n",
                    "main", {{"x", {"4"}}});
  expect_stream(r, "o", {"8"});
}

TEST(LustreIterators, CheckerProvesPropertiesOfAFold) {
  auto rep = check_text_report(std::string(kIterated) +
                                   "node main(a: int^n) returns (f: int);\nlet\n  f = fold<<n>> (+) (a, 0);\n"
                                   "  check f = a[0] + a[1] + a[2];\n  check f = a[0] + a[1];\ntel\n",
                               "main");
  std::vector<check::Verdict> got;
  for (auto &p : rep.properties)
    if (p.kind == "property") got.push_back(p.verdict);
  EXPECT_EQ(got, (std::vector<check::Verdict>{check::Verdict::Valid, check::Verdict::Falsified}));
}
