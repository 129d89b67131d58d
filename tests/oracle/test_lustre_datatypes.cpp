// Kind 2's algebraic datatypes (syntax/datatypes.hpp, grammar.md §2): a datatype with
// fields is a record of its constructor and every constructor's fields, those of the
// other constructors holding their type's first value, so that the records' equality is
// the datatype's; a node's inputs are made canonical where they enter; `match` takes its
// first matching arm, and an arm that keeps state runs only where it is taken.
// Every expected stream below is worked out by hand from those rules (comments show how).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"

using namespace rml;
using namespace rml::test;

namespace {

const char *kShape = "datatype Shape = Circle (radius: real) | Rect (w: real, h: real) | Dot;\n";

}  // namespace

// Constructors, selectors, testers and match on an input whose fields of the other
// constructors hold junk: the input is read canonically, so `s = Circle(r)` holds at cycle
// 0 whatever w and h say, and `s.radius` of a Rect is 0.0, not the junk 9.0.
TEST(LustreDatatypes, ConstructorsSelectorsTestersAndMatch) {
  const std::string text = std::string(kShape) +
                           "node main(s: Shape; r: real) returns (area: real; isc, same: bool; sel: real; k: int; rh: real);\n"
                           "let\n"
                           "  area = match s with | Circle(x): 3.0 * x * x | Rect(a, b): a * b | Dot: 0.0 end;\n"
                           "  isc = Circle?(s);\n"
                           "  same = s = Circle(r);\n"
                           "  sel = s.radius;\n"
                           "  k = match s with | Rect(_, _): 1 | _ : 2 end;\n"
                           "  rh = Rect(r, 2.0 * r).h + Rect(r, 0.0).radius;\n"
                           "tel\n";
  auto r = run_both(text, "main",
                    {{"s.ctor", {"Circle", "Rect", "Dot", "Circle"}},
                     {"s.radius", {"2.0", "9.0", "1.0", "1.0"}},
                     {"s.w", {"5.0", "3.0", "2.0", "0.0"}},
                     {"s.h", {"7.0", "4.0", "2.0", "0.0"}},
                     {"r", {"2.0", "9.0", "1.0", "1.0"}}});
  expect_stream(r, "area", {"12.0", "12.0", "0.0", "3.0"});  // 3 * 2 * 2; 3 * 4; Dot; 3 * 1 * 1
  expect_stream(r, "isc", {"T", "F", "F", "T"});
  expect_stream(r, "same", {"T", "F", "F", "T"});          // a Rect and a Dot are no Circle, whatever their radius
  expect_stream(r, "sel", {"2.0", "0.0", "0.0", "1.0"});   // another constructor's field: its first value
  expect_stream(r, "k", {"2", "1", "2", "2"});
  expect_stream(r, "rh", {"4.0", "18.0", "2.0", "2.0"});  // 2r + a Rect's radius, 0.0
  expect_solvers_agree(r);
}

// A datatype whose constructors have no field is an enumeration; a match reads it too,
// and a plain enumeration (`type ... = enum`) as well.
TEST(LustreDatatypes, AFieldlessDatatypeIsAnEnumeration) {
  const std::string text =
      "datatype Dir = North | South | East;\n"
      "type Color = enum { Red, Green };\n"
      "node main(d: Dir; c: Color) returns (n: int; g: bool; t: bool);\n"
      "let\n"
      "  n = match d with | North: 1 | South: 2 | East: 3 end;\n"
      "  g = match c with | Red: false | Green: true end;\n"
      "  t = South?(d) or d = East;\n"
      "tel\n";
  auto r = run_both(text, "main", {{"d", {"North", "South", "East"}}, {"c", {"Green", "Red", "Red"}}});
  expect_stream(r, "n", {"1", "2", "3"});
  expect_stream(r, "g", {"T", "F", "F"});
  expect_stream(r, "t", {"F", "T", "T"});
}

// Nested patterns, tried in order; a datatype field of a datatype.
TEST(LustreDatatypes, NestedPatterns) {
  const std::string text =
      "datatype Inner = A | B (n: int);\n"
      "datatype Outer = Wrap (i: Inner) | Empty;\n"
      "node main(o: Outer; x: int) returns (v: int; same: bool);\n"
      "let\n"
      "  v = match o with | Wrap(A): 0 | Wrap(B(n)): n | Empty: -1 end;\n"
      "  same = o = Wrap(B(x));\n"
      "tel\n";
  auto r = run_both(text, "main",
                    {{"o.ctor", {"Wrap", "Wrap", "Empty", "Wrap"}},
                     {"o.i.ctor", {"A", "B", "B", "B"}},
                     {"o.i.n", {"9", "7", "5", "4"}},
                     {"x", {"9", "7", "5", "3"}}});
  expect_stream(r, "v", {"0", "7", "-1", "4"});
  // Wrap(A) with junk 9 is not Wrap(B(9)); Empty's junk field does not make it Wrap(B(5)).
  expect_stream(r, "same", {"F", "T", "F", "F"});
}

// An arm that keeps state runs only where it is taken (Kind 2's reading): its `pre` reads
// the value at the arm's previous tick, its `->` counts its own first tick, and a node it
// calls steps only there. With m = Up Down Up Up Down Up, the Up arm ticks at 0, 2, 3, 5:
//   y: 100 at 0, then x at the previous Up tick (1 at 2, 3 at 3, 4 at 5); -x where Down.
//   z: count() = 1, 2, 3, 4 at the Up ticks, 0 elsewhere.
//   w: the catch-all `0 -> pre w + 1` at the Up ticks: 0, 1, 2, 3.
// Computed at every cycle, y would be 100 -2 2 3 -5 5.
TEST(LustreDatatypes, AnArmWithStateRunsOnlyWhereTaken) {
  const std::string text =
      "datatype Mode = Up | Down;\n"
      "node count() returns (n: int);\n"
      "let\n"
      "  n = 1 -> pre n + 1;\n"
      "tel\n"
      "node main(m: Mode; x: int) returns (y, z, w: int);\n"
      "let\n"
      "  y = match m with | Up: 100 -> pre x | Down: -x end;\n"
      "  z = match m with | Up: count() | Down: 0 end;\n"
      "  w = match m with | Down: 0 | _ : 0 -> pre w + 1 end;\n"
      "tel\n";
  std::map<std::string, Vec> in = {{"m", {"Up", "Down", "Up", "Up", "Down", "Up"}}, {"x", {"1", "2", "3", "4", "5", "6"}}};
  auto r = run_both(text, "main", in);
  expect_stream(r, "y", {"100", "-2", "1", "3", "-5", "4"});
  expect_stream(r, "z", {"1", "0", "2", "3", "0", "4"});
  expect_stream(r, "w", {"0", "0", "1", "2", "0", "3"});
  expect_solvers_agree(r);
  // The negative control: the same arms computed at every cycle (if-then-else).
  auto e = run_both(
      "type Mode = enum { Up, Down };\n"
      "node main(m: Mode; x: int) returns (y: int);\n"
      "let\n"
      "  y = if m = Up then 100 -> pre x else -x;\n"
      "tel\n",
      "main", in);
  expect_stream(e, "y", {"100", "-2", "2", "3", "-5", "5"});
}

// Kind 2's `when c then e1 else e2`: each branch computed only where it is taken when it
// keeps state. c = T F T T F: the then branch ticks at 0, 2, 3 (`0 -> pre x` gives 0, then
// x at the previous tick: 1, 3), the else branch at 1, 4 (`x fby 100`: x = 2 at its first
// tick, then 100).
// Without state it is `if`: w = x + 1 where c, -x elsewhere.
TEST(LustreDatatypes, AWhenExpressionRunsEachBranchWhereTaken) {
  const std::string text =
      "node main(c: bool; x: int) returns (y, w: int);\n"
      "let\n"
      "  y = when c then 0 -> pre x else x fby 100;\n"
      "  w = when x > 2 and c then x + 1 else -x;\n"
      "tel\n";
  auto r = run_both(text, "main", {{"c", {"T", "F", "T", "T", "F"}}, {"x", {"1", "2", "3", "4", "5"}}});
  expect_stream(r, "y", {"0", "2", "1", "3", "100"});
  expect_stream(r, "w", {"-1", "-2", "4", "5", "-5"});
  expect_solvers_agree(r);
}

// A called function's assumption is an obligation only where the call is made: in the
// branch of a `when` (or a match arm) that is taken. Kind 2's call_context example: the
// else branch calls f only where P(x) is false, so f's `assume not P(a)` holds; computed
// at every cycle (the `if` beside it) it is falsified.
TEST(LustreDatatypes, ACallsAssumptionBindsOnlyWhereItsBranchIsTaken) {
  auto r = check_text_report(
      "function imported P(a: int) returns (r: bool);\n"
      "function imported f(a: int) returns (b: int);\n"
      "(*@contract assume not P(a); guarantee b > a; *)\n"
      "node main(x: int) returns (y, z: int);\n"
      "let\n"
      "  y = when P(x) then 1 else f(x);\n"
      "  z = if P(x) then 1 else f(x);\n"
      "  check not P(x) => y > x;\n"
      "tel\n",
      "main");
  std::vector<check::Verdict> v = user_property_verdicts(r);
  using V = check::Verdict;
  // f's assumption at the when's call, at the if's call, then the user's property.
  EXPECT_EQ(v, (std::vector<V>{V::Valid, V::Falsified, V::Valid}));
}

// A match in a when block's branch: its arms sample what the branch already samples.
// c = T F T T, m = Up Up Down Up: the branch runs at 0, 2, 3; its Up arm at 0 and 3
// (0, then x at 0 = 1), its Down arm at 2 (x = 3); y holds 0 at 1.
TEST(LustreDatatypes, AMatchInsideAWhenBlock) {
  const std::string text =
      "datatype Mode = Up | Down;\n"
      "node main(c: bool; m: Mode; x: int) returns (y: int);\n"
      "let\n"
      "  frame (y) y = 0;\n"
      "  let\n"
      "    when c then\n"
      "      y = match m with | Up: 0 -> pre x | Down: x end;\n"
      "    end\n"
      "  tel\n"
      "tel\n";
  auto r = run_both(text, "main", {{"c", {"T", "F", "T", "T"}}, {"m", {"Up", "Up", "Down", "Up"}}, {"x", {"1", "2", "3", "4"}}});
  expect_stream(r, "y", {"0", "0", "3", "1"});
  expect_solvers_agree(r);
}

// Type parameters: each instance is a datatype of its own (`Opt<int>`, `Opt<bool>`,
// `Opt<Opt<int>>`), chosen by the declaration a constructor defines, the other side of
// `=`, the values of its fields or its written type arguments (`None@<int>`); an alias
// names an instance, and a match reads the instance's fields.
TEST(LustreDatatypes, TypeParametersMakeInstances) {
  const std::string text =
      "datatype Opt<T> = None | Some (val: T);\n"
      "type P = Opt<int>;\n"
      "node get(o: P; d: int) returns (v: int);\n"
      "let\n  v = match o with | Some(x): x | None: d end;\ntel\n"
      "node main(i: int; b: bool) returns (x: P; y: Opt<bool>; z: Opt<Opt<int>>; v, w: int; e1, e2: bool; u: P; e3: bool);\n"
      "let\n"
      "  x = if b then Some(i) else None;\n"
      "  y = Some(b);\n"
      "  z = Some(x);\n"
      "  v = get(x, -1) + get(Some(10), 0);\n"
      "  w = match z with | Some(Some(k)): k | Some(None): 100 | None: 200 end;\n"
      "  e1 = x = None@<int>;\n"
      "  e2 = Some(Some(i)) = z;\n"
      "  u = when b then None else (match Some(i) with | Some(k): Some(k + 1) | None: None end);\n"
      "  e3 = Some(1.5) = Some(real(i)) or None@<real> = Some(0.0);\n"
      "tel\n";
  auto r = run_both(text, "main", {{"i", {"3", "4", "5"}}, {"b", {"T", "F", "T"}}});
  expect_stream(r, "x.ctor", {"Some", "None", "Some"});
  expect_stream(r, "x.val", {"3", "0", "5"});
  expect_stream(r, "y.val", {"T", "F", "T"});
  expect_stream(r, "z.val.val", {"3", "0", "5"});
  expect_stream(r, "v", {"13", "9", "15"});     // i + 10, or -1 + 10
  expect_stream(r, "w", {"3", "100", "5"});
  expect_stream(r, "e1", {"F", "T", "F"});
  expect_stream(r, "e2", {"T", "F", "T"});
  expect_stream(r, "u.ctor", {"None", "Some", "None"});  // through when and match arms
  expect_stream(r, "u.val", {"0", "5", "0"});
  expect_stream(r, "e3", {"F", "F", "F"});  // Opt<real>, named by no type: made for its constructors
}

// A tuple and a record in a constructor's fields, an array field, a constant of a datatype
// and Kind 2's tuple value `'(a, b)`.
TEST(LustreDatatypes, AggregateFieldsAndConstants) {
  const std::string text =
      "type P = struct { x: int; y: int };\n"
      "datatype D = Pair (t: [int, int]) | Pt (p: P) | Vec (v: int^2) | None;\n"
      "const z: D = None;\n"
      "node main(a, b: int) returns (s: int; e1, e2, e3: bool);\n"
      "let\n"
      "  s = match Pair('(a, b)) with | Pair(q): q[0] - q[1] | _ : 0 end;\n"
      "  e1 = Pt(P { x = a; y = b }) = Pt(P { x = b; y = a });\n"
      "  e2 = Vec([a, b]) <> z;\n"
      "  e3 = Pair('(a, 0)).p.x = 0;\n"
      "tel\n";
  auto r = run_both(text, "main", {{"a", {"5", "2"}}, {"b", {"3", "2"}}});
  expect_stream(r, "s", {"2", "0"});
  expect_stream(r, "e1", {"F", "T"});
  expect_stream(r, "e2", {"T", "T"});
  expect_stream(r, "e3", {"T", "T"});  // a Pair's p is P's first value
}

// rml-check on datatypes: equality is the datatype's (it needs the inputs canonical), a
// selector of another constructor gives its first value, a tester refutes with a trace the
// oracle replays.
TEST(LustreDatatypes, CheckerVerdicts) {
  auto r = check_text_report(
      "datatype D = C1 (a: int) | C2 (b: int);\n"
      "node main(x, y: D) returns ();\n"
      "let\n"
      "  check (C2?(x) and C2?(y) and x.b = y.b) => x = y;\n"
      "  check C1?(x) or x.a = 0;\n"
      "  check x = y;\n"
      "  check C1?(x);\n"
      "tel\n",
      "main");
  using V = check::Verdict;
  EXPECT_EQ(user_property_verdicts(r), (std::vector<V>{V::Valid, V::Valid, V::Falsified, V::Falsified}));
}

// Kind 2's lazy arms under the checker: the Up arm's `->` counts the arm's own first
// tick, so y is 1 only at an Up tick after an earlier one (`seen`). Computed at every
// cycle, `0 -> 1` would be 1 at the first Up tick after cycle 0 (m = Down, Up), where seen
// is false; the second property is refuted by a trace the oracle replays.
TEST(LustreDatatypes, CheckerReadsArmsLazily) {
  auto r = check_text_report(
      "datatype Mode = Up | Down;\n"
      "node main(m: Mode) returns (y: int; seen: bool);\n"
      "let\n"
      "  y = match m with | Up: 0 -> 1 | Down: 5 end;\n"
      "  seen = false -> pre seen or pre Up?(m);\n"
      "  check y <> 1 or seen;\n"
      "  check y <> 1;\n"
      "tel\n",
      "main");
  using V = check::Verdict;
  EXPECT_EQ(user_property_verdicts(r), (std::vector<V>{V::Valid, V::Falsified}));
}

// Law: a datatype's equality is "the same constructor, and equal fields of it", whatever
// junk the inputs' other fields hold (the inputs are made canonical where they enter).
// The law is checked against that definition written here; the generator draws junk that
// differs in about half the cases, and the negative control checks that the records'
// plain equality (every field) would then differ from it.
RC_GTEST_PROP(LustreDatatypes, EqualityIsTheDatatypes, ()) {
  const std::string text =
      "datatype D = C1 (a: int) | C2 (b: int, c: bool) | C3;\n"
      "node main(x, y: D) returns (eq: bool);\n"
      "let\n"
      "  eq = x = y;\n"
      "tel\n";
  const size_t n = *rc::gen::inRange<size_t>(1, 12);
  struct Val {
    int ctor, a, b;
    bool c;
  };
  auto draw = [&] {
    return Val{*rc::gen::inRange(0, 3), *rc::gen::inRange(0, 3), *rc::gen::inRange(0, 3), *rc::gen::arbitrary<bool>()};
  };
  std::vector<Val> xs, ys;
  std::map<std::string, Vec> in;
  const char *names[] = {"C1", "C2", "C3"};
  for (size_t k = 0; k < n; ++k) {
    xs.push_back(draw());
    ys.push_back(*rc::gen::arbitrary<bool>() ? xs.back() : draw());
    if (*rc::gen::arbitrary<bool>()) ys.back().a = *rc::gen::inRange(0, 3);  // junk that may differ
    for (auto [v, p] : {std::pair{&xs.back(), "x"}, std::pair{&ys.back(), "y"}}) {
      in[std::string(p) + ".ctor"].push_back(names[v->ctor]);
      in[std::string(p) + ".a"].push_back(std::to_string(v->a));
      in[std::string(p) + ".b"].push_back(std::to_string(v->b));
      in[std::string(p) + ".c"].push_back(v->c ? "T" : "F");
    }
  }
  auto r = run_both(text, "main", in);
  auto eq = r.worklist.stream("eq");
  bool differs = false;
  for (size_t k = 0; k < n; ++k) {
    const Val &x = xs[k], &y = ys[k];
    bool want = x.ctor == y.ctor && (x.ctor == 0 ? x.a == y.a : x.ctor == 1 ? x.b == y.b && x.c == y.c : true);
    bool plain = x.ctor == y.ctor && x.a == y.a && x.b == y.b && x.c == y.c;
    RC_ASSERT(eq[k].str() == std::string(want ? "T" : "F"));
    differs = differs || want != plain;
  }
  RC_TAG(differs ? "plain equality differs" : "plain equality agrees");
}

// The negative control of the law above: some drawn pair is equal as datatypes and
// different as records, so a back end comparing every field would fail the law.
TEST(LustreDatatypes, PlainRecordEqualityWouldFailTheLaw) {
  const std::string text =
      "datatype D = C1 (a: int) | C2 (b: int, c: bool) | C3;\n"
      "node main(x, y: D) returns (eq: bool);\n"
      "let\n"
      "  eq = x = y;\n"
      "tel\n";
  // x = C3 with junk a = 1, y = C3 with junk a = 2: equal datatypes, different records.
  auto r = run_both(text, "main",
                    {{"x.ctor", {"C3"}}, {"x.a", {"1"}}, {"x.b", {"0"}}, {"x.c", {"F"}},
                     {"y.ctor", {"C3"}}, {"y.a", {"2"}}, {"y.b", {"0"}}, {"y.c", {"F"}}});
  expect_stream(r, "eq", {"T"});
  // The same program over plain records says false.
  auto p = run_both(
      "type C = enum { C1, C2, C3 };\n"
      "type D = struct { ctor: C; a: int; b: int; c: bool };\n"
      "node main(x, y: D) returns (eq: bool);\nlet\n  eq = x = y;\ntel\n",
      "main",
      {{"x.ctor", {"C3"}}, {"x.a", {"1"}}, {"x.b", {"0"}}, {"x.c", {"F"}},
       {"y.ctor", {"C3"}}, {"y.a", {"2"}}, {"y.b", {"0"}}, {"y.c", {"F"}}});
  expect_stream(p, "eq", {"F"});
}

// Law: a match whose arms keep state is the merge of its arms on their guards, written
// here by hand (`when`/`merge`, the clocks rml already has), on random traces; the
// negative control is the same match computed at every cycle (if-then-else), which the
// generator's traces tell apart from it in most draws.
RC_GTEST_PROP(LustreDatatypes, ALazyMatchIsTheMergeOfItsArms, ()) {
  const std::string match =
      "datatype M = P | Q | R;\n"
      "node main(m: M; x: int) returns (y: int);\n"
      "let\n"
      "  y = match m with | P: 0 -> pre x | Q: x + 1 | _ : x fby (x + 2) end;\n"
      "tel\n";
  const std::string merged =
      "type M = enum { P, Q, R };\n"
      "node main(m: M; x: int) returns (y: int);\n"
      "var gp: bool; gq: bool when not gp;\n"
      "let\n"
      "  gp = m = P;\n"
      "  gq = (m = Q) when not gp;\n"
      "  y = merge gp (0 -> pre (x when gp))\n"
      "               (merge gq (((x when not gp) when gq) + 1)\n"
      "                         (((x when not gp) when not gq) fby (((x when not gp) when not gq) + 2)));\n"
      "tel\n";
  const std::string eager =
      "type M = enum { P, Q, R };\n"
      "node main(m: M; x: int) returns (y: int);\n"
      "let\n"
      "  y = if m = P then 0 -> pre x else if m = Q then x + 1 else x fby (x + 2);\n"
      "tel\n";
  const size_t n = *rc::gen::inRange<size_t>(1, 16);
  std::map<std::string, Vec> in;
  const char *names[] = {"P", "Q", "R"};
  for (size_t k = 0; k < n; ++k) {
    in["m"].push_back(names[*rc::gen::inRange(0, 3)]);
    in["x"].push_back(std::to_string(*rc::gen::inRange(-5, 6)));
  }
  auto a = run_both(match, "main", in), b = run_both(merged, "main", in), c = run_both(eager, "main", in);
  auto ya = a.worklist.stream("y"), yb = b.worklist.stream("y"), yc = c.worklist.stream("y");
  for (size_t k = 0; k < n; ++k) RC_ASSERT(ya[k] == yb[k]);
  RC_TAG(ya == yc ? "eager agrees" : "eager differs");
}

// The errors, each at its place.
TEST(LustreDatatypes, Errors) {
  auto errs = [](const std::string &text) { return errors_of(*check_text(text)); };
  auto node = [](const std::string &body) {
    return std::string(kShape) + "node main(s: Shape; r: real) returns (o: real);\nlet\n" + body + "tel\n";
  };
  // A match covers every constructor (and every value of nested ones).
  EXPECT_EQ(errs(node("  o = match s with | Circle(x): x | Dot: 0.0 end;\n")), (std::vector<std::string>{"4:7 type.match"}));
  EXPECT_EQ(errs("datatype I = A | B (n: int);\ndatatype O = W (i: I);\nnode main(o: O) returns (v: int);\nlet\n"
                 "  v = match o with | W(A): 0 end;\ntel\n"),
            (std::vector<std::string>{"5:7 type.match"}));
  // Arity of constructors, in values and in patterns.
  EXPECT_EQ(errs(node("  o = (Circle(r, r)).radius;\n")), (std::vector<std::string>{"4:8 arity.args"}));
  EXPECT_EQ(errs(node("  o = match s with | Circle: 0.0 | _ : 1.0 end;\n")), (std::vector<std::string>{"4:22 arity.args"}));
  EXPECT_EQ(errs(node("  o = (Circle).radius;\n")), (std::vector<std::string>{"4:8 arity.args"}));
  // Names: a tester of no constructor; a constructor of another type in a pattern.
  EXPECT_EQ(errs(node("  o = if Square?(s) then 1.0 else 0.0;\n")), (std::vector<std::string>{"4:10 name.unknown"}));
  EXPECT_EQ(errs("datatype E = F (n: int) | G;\n" + node("  o = match s with | Circle(x): x | F(y): 0.0 | _ : 1.0 end;\n")),
            (std::vector<std::string>{"5:37 type.mismatch"}));
  // Declarations: a field twice in a datatype, a constructor twice.
  EXPECT_EQ(errs("datatype D = A (v: int) | B (v: int);\nnode main(d: D) returns (o: int);\nlet\n  o = 0;\ntel\n"),
            (std::vector<std::string>{"1:30 name.duplicate"}));
  EXPECT_EQ(errs("datatype D = A | B;\ndatatype E = B | C;\nnode main(d: D) returns (o: int);\nlet\n  o = 0;\ntel\n"),
            (std::vector<std::string>{"2:14 name.duplicate"}));
  // Not read: recursive datatypes, type parameters, imported outputs and free constants.
  EXPECT_EQ(errs("datatype L = Nil | Cons (h: int, t: L);\nnode main(l: L) returns (o: int);\nlet\n  o = 0;\ntel\n"),
            (std::vector<std::string>{"1:10 syntax.unsupported"}));
  // Type parameters: an instance whose arguments nothing tells, their number, a type
  // without parameters given arguments, Kind 2's maps.
  EXPECT_EQ(errs("datatype O<T> = N | S (v: T);\nnode main(x: int) returns (o: bool);\nlet\n  o = N = N;\ntel\n"),
            (std::vector<std::string>{"4:7 type.missing", "4:11 type.missing"}));
  EXPECT_EQ(errs("datatype O<T> = N | S (v: T);\ntype E = O<E>;\nnode main(x: E) returns (o: int);\nlet\n  o = 0;\ntel\n"),
            (std::vector<std::string>{"1:10 syntax.unsupported"}));  // recursive through an alias
  EXPECT_EQ(errs("datatype O<T> = N | S (v: T);\nnode main(x: O<int, int>) returns (o: int);\nlet\n  o = 0;\ntel\n"),
            (std::vector<std::string>{"2:14 arity.args"}));
  EXPECT_EQ(errs(std::string(kShape) + "node main(x: Shape<int>) returns (o: int);\nlet\n  o = 0;\ntel\n"),
            (std::vector<std::string>{"2:14 arity.args"}));
  EXPECT_EQ(errs("node main(m: map<int, int>) returns (o: int);\nlet\n  o = 0;\ntel\n"),
            (std::vector<std::string>{"1:14 syntax.unsupported"}));
  EXPECT_EQ(errs(std::string(kShape) + "node imported f(x: real) returns (s: Shape);\n"),
            (std::vector<std::string>{"2:35 syntax.unsupported"}));
  EXPECT_EQ(errs(std::string(kShape) + "const c: Shape;\nnode main(x: real) returns (o: real);\nlet\n  o = x;\ntel\n"),
            (std::vector<std::string>{"2:7 syntax.unsupported"}));
  // A lazy match reads a datatype with fields from a variable.
  EXPECT_EQ(errs(node("  o = match Circle(r) with | Circle(x): 0.0 -> pre x | _ : 1.0 end;\n")),
            (std::vector<std::string>{"4:13 syntax.unsupported"}));
  // Parse errors: a match without `end`, a tester away from its name.
  EXPECT_EQ(errs(node("  o = match s with | Dot: 0.0;\n")), (std::vector<std::string>{"4:30 parse.expected"}));
  EXPECT_EQ(errs(node("  o = if Circle ?(s) then 1.0 else 0.0;\n")), (std::vector<std::string>{"4:17 lex.char"}));
}
