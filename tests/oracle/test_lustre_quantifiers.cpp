// Kind 2's quantifiers over finite domains (syntax/quantifiers.hpp, grammar.md §2): each
// is the conjunction (forall) or disjunction (exists) of its body over the values of its
// variables: an enumeration's constructors, false and true, a subrange's ints, or the
// ints between the static bounds its guard gives. Every expected stream below is worked
// out by hand from that reading (comments show how).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"

using namespace rml;
using namespace rml::test;

// Over enumerations, bools and guarded ints, both ways round, with the concise form's
// guard, a constant in a bound, several variables, and empty domains.
TEST(LustreQuantifiers, ForallAndExistsOverFiniteDomains) {
  const std::string text =
      "type E = enum { Red, Green, Blue };\n"
      "type Small = subrange [1, 2] of int;\n"
      "const two: int = 2;\n"
      "node main(a: int^4; e: E; b: bool) returns (all_pos, some_neg, pos3, no_blue, e_any, bb, sub, empty_all, empty_some: bool);\n"
      "let\n"
      "  all_pos = forall (i: int) 0 <= i and i <= 3 => a[i] > 0;\n"
      "  some_neg = exists (i: int) i >= 0 and 3 >= i and a[i] < 0;\n"
      "  pos3 = forall (i: int | 0 <= i and i < two + 1) a[i] > 0;\n"
      "  no_blue = forall (x: E) x = e => x <> Blue;\n"
      "  e_any = exists (x: E) x = e;\n"
      "  bb = forall (p, q: bool) (p and q) = (q and p) and (p or b or not p);\n"
      "  sub = exists (k: Small) a[k] = a[0];\n"
      "  empty_all = forall (i: int) 3 <= i and i < 3 => false;\n"
      "  empty_some = exists (i: int) 3 <= i and i < 3 and true;\n"
      "tel\n";
  auto r = run_both(text, "main",
                    {{"a[0]", {"1", "1", "-1"}},
                     {"a[1]", {"2", "2", "2"}},
                     {"a[2]", {"3", "1", "3"}},
                     {"a[3]", {"4", "-4", "4"}},
                     {"e", {"Red", "Blue", "Green"}},
                     {"b", {"T", "F", "T"}}});
  expect_stream(r, "all_pos", {"T", "F", "F"});   // a[0..3] > 0: -4 at cycle 1, -1 at cycle 2
  expect_stream(r, "some_neg", {"F", "T", "T"});
  expect_stream(r, "pos3", {"T", "T", "F"});      // i in 0..2 only: cycle 1's -4 is a[3]
  expect_stream(r, "no_blue", {"T", "F", "T"});   // false only where e is Blue
  expect_stream(r, "e_any", {"T", "T", "T"});
  expect_stream(r, "bb", {"T", "T", "T"});
  expect_stream(r, "sub", {"F", "T", "F"});       // a[1] or a[2] equal to a[0]: cycle 1's a[2] = 1
  expect_stream(r, "empty_all", {"T", "T", "T"}); // no value: forall is true,
  expect_stream(r, "empty_some", {"F", "F", "F"}); // exists false
  expect_solvers_agree(r);
}

// Several variables go one after the other, so a later bound may name an earlier
// variable; an inner quantifier binding the same name hides the outer one; a quantified
// variable hides a constant of its name; `pre` inside the body.
TEST(LustreQuantifiers, NestingShadowingAndState) {
  const std::string text =
      "const i: int = 7;\n"
      "node main(a: int^3) returns (sorted, inner, hidden, rising: bool);\n"
      "let\n"
      "  sorted = forall (i, j: int) 0 <= i and i < 3 and 0 <= j and j < i => a[j] <= a[i];\n"
      "  inner = forall (k: int) 0 <= k and k < 2 => (exists (k: int) 1 <= k and k < 3 and a[k] = 0);\n"
      "  hidden = exists (i: int) 0 <= i and i < 3 and a[i] = i;\n"
      "  rising = true -> forall (k: int) 0 <= k and k < 3 => a[k] > pre a[k];\n"
      "tel\n";
  auto r = run_both(text, "main", {{"a[0]", {"1", "0", "5"}}, {"a[1]", {"2", "0", "6"}}, {"a[2]", {"3", "0", "2"}}});
  expect_stream(r, "sorted", {"T", "T", "F"});   // 1 2 3; 0 0 0; 5 6 2 (a[2] < a[0])
  expect_stream(r, "inner", {"F", "T", "F"});    // the inner k alone decides: a[1] or a[2] is 0
  expect_stream(r, "hidden", {"F", "T", "T"});   // i is the quantified one, not the constant 7: a[0] = 0, a[2] = 2
  expect_stream(r, "rising", {"T", "F", "T"});   // each element above its previous value
  expect_solvers_agree(r);
}

// rml-check on the expansion: a valid property and a falsified one, replayed.
TEST(LustreQuantifiers, CheckerVerdicts) {
  auto r = check_text_report(
      "type E = enum { A, B };\n"
      "node main(a: int^4; e: E) returns ();\n"
      "let\n"
      "  check forall (i: int) 0 <= i and i < 4 => (a[i] > 0 or a[i] <= 0);\n"
      "  check exists (x: E) x = e;\n"
      "  check exists (i: int) 0 <= i and i < 4 and a[i] > 100;\n"
      "tel\n",
      "main");
  using V = check::Verdict;
  EXPECT_EQ(user_property_verdicts(r), (std::vector<V>{V::Valid, V::Valid, V::Falsified}));
}

namespace {

// forall (or exists) over lo..hi of a[i] >= k, as a program, and what it computes: the
// conjunction (disjunction) of a[i] >= k over i in lo..hi, true (false) when empty.
struct RangeCase {
  bool forall;
  int lo, hi, k;
  std::vector<std::array<int, 6>> a;  // per cycle
  int spelling = 0;  // how the bounds are written: each comparison, either way round
  std::string text() const {
    const std::string l = std::to_string(lo), h = std::to_string(hi), l1 = std::to_string(lo - 1), h1 = std::to_string(hi + 1);
    const std::string lower[] = {l + " <= i", "i >= " + l, l1 + " < i", "i > " + l1};
    const std::string upper[] = {"i <= " + h, h + " >= i", "i < " + h1, h1 + " > i"};
    std::string body = std::string(forall ? "forall" : "exists") + " (i: int) " + lower[spelling % 4] + " and " + upper[spelling / 4] +
                       (forall ? " => " : " and ") + "a[i] >= " + std::to_string(k);
    return "node main(a: int^6) returns (o: bool);\nlet\n  o = " + body + ";\ntel\n";
  }
  std::vector<std::string> want(int lo_, int hi_) const {
    std::vector<std::string> out;
    for (auto &c : a) {
      bool v = forall;
      for (int i = lo_; i <= hi_; ++i) v = forall ? v && c[static_cast<size_t>(i)] >= k : v || c[static_cast<size_t>(i)] >= k;
      out.push_back(v ? "T" : "F");
    }
    return out;
  }
};

RangeCase draw_range_case() {
  RangeCase c;
  c.forall = *rc::gen::arbitrary<bool>();
  c.lo = *rc::gen::inRange(0, 6);
  c.hi = *rc::gen::inRange(0, 6);  // hi < lo: an empty domain
  c.k = *rc::gen::inRange(-2, 3);
  c.spelling = *rc::gen::inRange(0, 16);
  const size_t cycles = *rc::gen::inRange<size_t>(1, 5);
  for (size_t n = 0; n < cycles; ++n) {
    std::array<int, 6> v{};
    for (auto &e : v) e = *rc::gen::inRange(-3, 4);
    c.a.push_back(v);
  }
  return c;
}

std::vector<std::string> run_range_case(const RangeCase &c) {
  std::map<std::string, Vec> in;
  for (size_t i = 0; i < 6; ++i)
    for (auto &cyc : c.a) in["a[" + std::to_string(i) + "]"].push_back(std::to_string(cyc[i]));
  auto r = run_both(c.text(), "main", in);
  std::vector<std::string> got;
  for (auto &cell : r.worklist.stream("o")) got.push_back(cell.str());
  return got;
}

}  // namespace

// Law: `forall (i: int) lo <= i and i <= hi => P(i)` is the conjunction of P over lo..hi
// (true when hi < lo), and `exists (i: int) lo <= i and i <= hi and P(i)` the disjunction
// (false when empty), computed here directly on the trace, the bounds written with each
// comparison either way round. The generator draws empty, one-value and full ranges of a
// 6-element array; the negative control below shows that a range one short at its end
// would differ.
RC_GTEST_PROP(LustreQuantifiers, TheExpansionIsTheConjunctionOrDisjunctionOverTheRange, ()) {
  const RangeCase c = draw_range_case();
  RC_TAG(c.lo > c.hi ? "empty" : c.lo == c.hi ? "one value" : "several values");
  RC_ASSERT(run_range_case(c) == c.want(c.lo, c.hi));
}

TEST(LustreQuantifiers, ARangeOneShortWouldFailTheLaw) {
  RangeCase c{true, 0, 5, 0, {{1, 1, 1, 1, 1, -1}}};  // only a[5] fails
  EXPECT_EQ(run_range_case(c), (std::vector<std::string>{"F"}));
  EXPECT_NE(run_range_case(c), c.want(c.lo, c.hi - 1));
  c.forall = false, c.a = {{-1, -1, -1, -1, -1, 1}};  // only a[5] holds
  EXPECT_EQ(run_range_case(c), (std::vector<std::string>{"T"}));
  EXPECT_NE(run_range_case(c), c.want(c.lo, c.hi - 1));
}

// What is not read, each at the quantified variable (or the quantifier).
TEST(LustreQuantifiers, Errors) {
  auto errs = [](const std::string &text) { return errors_of(*check_text(text)); };
  auto node = [](const std::string &prop) {
    return "type R = struct { f: int };\nnode main(a: int^4; n: int) returns ();\nlet\n  check " + prop + ";\ntel\n";
  };
  // Ints without static bounds: none, one side only, a bound that is a variable.
  EXPECT_EQ(errs(node("forall (i: int) a[0] > i")), (std::vector<std::string>{"4:17 syntax.unsupported"}));
  EXPECT_EQ(errs(node("forall (i: int) 0 <= i => i > -1")), (std::vector<std::string>{"4:17 syntax.unsupported"}));
  EXPECT_EQ(errs(node("exists (i: int) 0 <= i and i < n")), (std::vector<std::string>{"4:17 syntax.unsupported"}));
  // Under forall a guard is the left of `=>`: `and` there bounds nothing.
  EXPECT_EQ(errs(node("forall (i: int) 0 <= i and i < 3 and a[0] > i")), (std::vector<std::string>{"4:17 syntax.unsupported"}));
  // Types: real, a record, an array.
  EXPECT_EQ(errs(node("forall (x: real) x = x")), (std::vector<std::string>{"4:17 syntax.unsupported"}));
  EXPECT_EQ(errs(node("forall (x: R) x.f = x.f")), (std::vector<std::string>{"4:17 syntax.unsupported"}));
  EXPECT_EQ(errs(node("forall (x: int^2) true")), (std::vector<std::string>{"4:17 syntax.unsupported"}));
  // Too many values.
  EXPECT_EQ(errs(node("forall (i: int) 0 <= i and i < 5000 => true")), (std::vector<std::string>{"4:17 syntax.unsupported"}));
  // Too many instances in a node, and a body too large to copy so many times (an error,
  // not memory exhausted).
  EXPECT_EQ(errs(node("forall (i, j: int) 0 <= i and i < 4000 and 0 <= j and j < 20 => a[0] >= 0")),
            (std::vector<std::string>{"4:9 syntax.unsupported"}));
  std::string big = "a[0]";
  for (int k = 0; k < 10; ++k) big = "(" + big + " + " + big + ")";  // 2047 nodes: 4000 copies are 8 million
  EXPECT_EQ(errs(node("forall (i: int) 0 <= i and i < 4000 => " + big + " > i")), (std::vector<std::string>{"4:9 syntax.unsupported"}));
  // Outside a node.
  EXPECT_EQ(errs("const c: bool = forall (b: bool) b or not b;\nnode main(x: int) returns (o: int);\nlet\n  o = x;\ntel\n"),
            (std::vector<std::string>{"1:17 syntax.unsupported"}));
  // Read: Kind 2's last `;` before `)`, and `exists` as a variable's name elsewhere.
  EXPECT_EQ(errs(node("forall (p: bool; q: bool;) p or q or not p")), (std::vector<std::string>{}));
  EXPECT_EQ(errs("node main(exists: int) returns (o: int);\nlet\n  o = exists + 1;\ntel\n"), (std::vector<std::string>{}));
}
