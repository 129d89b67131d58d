// The Lustre V6 core as people write it: `=>`, `assert`, several
// `var` sections, `tel.`, `in` as a name, declarations shadowing builtins, real and bool
// constants, and the Heptagon/Vélus spellings (`fun ... returns`, `node f() = ()`, merge
// clauses with `=>`, a last equation without `;`, constants without `;`). Each is read,
// printed back, and run on the oracle (both solvers) with chronograms computed by hand.
#include <gtest/gtest.h>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"
#include "oracle/assumptions.hpp"

using namespace rml;
using namespace rml::test;

namespace {

std::string reprint_expr(const std::string &text) {
  SourceFile f("e.lus", text);
  Diagnostics d;
  auto e = parse_expression(f, d);
  if (!e || d.has_errors()) return "<error>";
  return print_expr(*e);
}

std::vector<std::string> warnings_of(const FrontendResult &r) {
  std::vector<std::string> out;
  for (auto &d : r.diags.all())
    if (d.severity == Severity::Warning) out.push_back(d.rule);
  return out;
}

}  // namespace

// Lustre V6 manual §(operators): `=>` is right associative, looser than `or`, tighter
// than `->` (and than rml's `fby`).
TEST(LustreCore, ImplicationPrecedence) {
  EXPECT_EQ(reprint_expr("a => b => c"), reprint_expr("a => (b => c)"));
  EXPECT_NE(reprint_expr("a => b => c"), reprint_expr("(a => b) => c"));
  EXPECT_EQ(reprint_expr("a or b => c and d"), reprint_expr("(a or b) => (c and d)"));
  EXPECT_EQ(reprint_expr("a => b -> c"), reprint_expr("(a => b) -> c"));
  EXPECT_EQ(reprint_expr("x = 1 => y < 2"), reprint_expr("(x = 1) => (y < 2)"));
  EXPECT_EQ(reprint_expr("not a => b"), reprint_expr("(not a) => b"));
  EXPECT_EQ(reprint_expr("(a => b) => c"), "(a => b) => c");  // the printer keeps what it needs
  EXPECT_EQ(reprint_expr("a => (b => c)"), "a => b => c");
  // A lambda's `=>` is not an implication.
  EXPECT_EQ(reprint_expr("build(n, \\i => a => b)"), "build(n, \\i => a => b)");
}

// Vélus writes merge clauses with `=>`; they are the same merge.
TEST(LustreCore, VelusMergeClauses) {
  EXPECT_EQ(reprint_expr("merge c (true => a) (false => b)"), reprint_expr("merge c a b"));
  EXPECT_EQ(reprint_expr("merge c (false => b) (true -> a)"), reprint_expr("merge c a b"));
}

// Truth table of `=>` on the two solvers, absent cells included (a pointwise operator:
// absent where its operands are).
TEST(LustreCore, ImplicationTruthTable) {
  auto r = run_both("node f(a, b: bool) returns (o: bool);\nlet\n  o = a => b;\ntel\n", "f",
                    {{"a", {"F", "F", "T", "T", "_"}}, {"b", {"F", "T", "F", "T", "_"}}});
  expect_stream(r, "o", {"T", "T", "F", "T", "_"});
  expect_solvers_agree(r);
}

TEST(LustreCore, SeveralVarSectionsTelDotAndInAsAName) {
  const char *text =
      "node count(in: int; reset: bool) returns (c: int);\n"
      "var t: int;\n"
      "var u, w: bool;\n"
      "let\n"
      "  t = in + 1;\n"
      "  u = reset;\n"
      "  w = not u;\n"
      "  c = if u then 0 else t -> pre c + t;\n"
      "tel.\n";
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("node count(in: int, reset: bool)"), std::string::npos) << printed;
  auto r = run_both(text, "count", {{"in", {"1", "2", "3", "4"}}, {"reset", {"F", "F", "T", "F"}}});
  // t = in + 1: 2 3 4 5; c: 2, 2+3, 0, 0+5.
  expect_stream(r, "c", {"2", "5", "0", "5"});
  expect_solvers_agree(r);
}

TEST(LustreCore, HeptagonAndVelusSpellings) {
  // `fun ... returns` is a stateless node; a header may use `=`; the last equation needs
  // no `;`; a constant needs none before the next declaration.
  const char *text =
      "const k: int = 2\n"
      "fun scale(x: int) returns (y: int)\n"
      "let\n"
      "  y = k * x\n"
      "tel\n"
      "node main(x: int) = (o: int)\n"
      "let\n"
      "  o = scale(x) + (0 fby x)\n"
      "tel\n";
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("fun scale(x: int) returns (y: int);"), std::string::npos) << printed;
  auto r = run_both(text, "main", {{"x", {"1", "2", "3"}}});
  expect_stream(r, "o", {"2", "5", "8"});
  expect_solvers_agree(r);
  // `fun ... returns` is a function: state in it is an error.
  auto bad = check_text("fun f(x: int) returns (y: int)\nlet\n  y = 0 fby x;\ntel\n");
  EXPECT_TRUE(bad->diags.has_errors());
  EXPECT_EQ(errors_of(*bad), std::vector<std::string>{"3:9 node.function-stateful"});
}

// Real and bool constants have values in node bodies (they used to stop elaboration).
TEST(LustreCore, RealAndBoolConstants) {
  const char *text =
      "const L: real = 2.5;\n"
      "const M = L * 2.0;\n"
      "const B = true;\n"
      "const N = 3;\n"
      "node f(x: real) returns (o: real; p: bool; q: int);\n"
      "var L2: real;\n"
      "let\n"
      "  L2 = x;\n"
      "  o = x * M + L;\n"
      "  p = B and x > L;\n"
      "  q = N;\n"
      "tel\n";
  auto r = run_both(text, "f", {{"x", {"1.0", "3.0", "_"}}});
  expect_stream(r, "o", {"7.5", "17.5", "_"});
  expect_stream(r, "p", {"F", "T", "_"});
  expect_stream(r, "q", {"3", "3", "_"});
  expect_solvers_agree(r);
  // A local named like a constant the constant's expression uses does not capture it:
  // M = L * 2.0 reads the global L.
  auto s = run_both("const L: real = 2.5;\nconst M = L * 2.0;\n"
                    "node f(L: real) returns (o: real);\nlet\n  o = M + L;\ntel\n",
                    "f", {{"L", {"1.0"}}});
  expect_stream(s, "o", {"6.0"});
}

// A user declaration named like a builtin (Lustre nodes `abs`, `min`, `sum`) wins in the
// user's file with a warning; the prelude keeps calling the builtin.
TEST(LustreCore, DeclarationsShadowBuiltins) {
  const char *text =
      "node abs(x: real) returns (y: real);\nlet\n  y = x + 100.0;\ntel\n"
      "node sum(a, b: int) returns (s: int);\nlet\n  s = a - b;\ntel\n"
      "node main(x: real; i, j: int) returns (o: real; s: int; p: real);\n"
      "let\n"
      "  o = abs(x);\n"
      "  s = sum(i, j);\n"
      "  p = relu(x);\n"  // the prelude's relu calls the builtin max, unaffected
      "tel\n";
  auto fe = check_text(text);
  EXPECT_FALSE(fe->diags.has_errors()) << render_all(fe->diags);
  EXPECT_EQ(warnings_of(*fe), (std::vector<std::string>{"name.shadows-builtin", "name.shadows-builtin"}));
  auto r = run_both(text, "main", {{"x", {"-1.0", "2.0"}}, {"i", {"5", "1"}}, {"j", {"2", "7"}}});
  expect_stream(r, "o", {"99.0", "102.0"});
  expect_stream(r, "s", {"3", "-6"});
  expect_stream(r, "p", {"0.0", "2.0"});
  expect_solvers_agree(r);
}

// A prelude fun that calls a builtin by a name the user redeclares still calls the
// builtin (the oracle dispatches on the elaborated call, not the name).
TEST(LustreCore, PreludeKeepsTheBuiltinItCalls) {
  const char *text =
      "node max(a, b: real) returns (m: real);\nlet\n  m = a;\ntel\n"
      "node main(x: real) returns (p: real; q: real);\nlet\n  p = relu(x);\n  q = max(x, 7.0);\ntel\n";
  auto r = run_both(text, "main", {{"x", {"-3.0", "4.0"}}});
  expect_stream(r, "p", {"0.0", "4.0"});  // builtin max(x, 0.0)
  expect_stream(r, "q", {"-3.0", "4.0"});  // the user's max returns its first argument
  expect_solvers_agree(r);
}

// `assert e;` is `assume always e;` and also binds in node instances: the run reports
// the cycle where it is false, in the main node and in an instance (on its clock).
TEST(LustreCore, AssertIsMonitoredInTheMainNodeAndInInstances) {
  const char *text =
      "node pos(v: int) returns (w: int);\nlet\n  assert v >= 0;\n  w = v;\ntel\n"
      "node main(x: int; c: bool) returns (o: int);\n"
      "let\n"
      "  assert x < 10;\n"
      "  o = merge c (pos(x when c)) (0 when not c);\n"
      "tel\n";
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("  assert v >= 0;\n"), std::string::npos) << printed;
  auto r = run_both(text, "main", {{"x", {"1", "-2", "-3", "12"}}, {"c", {"T", "F", "T", "T"}}});
  expect_stream(r, "o", {"1", "0", "-3", "12"});
  ASSERT_EQ(r.prog.assumptions.size(), 2u);
  auto broken = broken_assumptions(r.prog, r.worklist);
  ASSERT_EQ(broken.size(), 2u);
  std::map<std::string, std::string> by_text;
  for (auto &b : broken) by_text[b.text] = b.message;
  EXPECT_EQ(by_text["assert x < 10"], "the condition is false at cycle 3");
  // x = -2 at cycle 1 is not seen by pos (c is false there): only cycle 2 breaks it.
  EXPECT_EQ(by_text["assert v >= 0"], "the condition is false at cycle 2");
}

// Tuples are lists of streams (Lustre V6): nested tuples flatten, operators apply
// componentwise, and a call with several outputs fills several arguments.
TEST(LustreCore, TuplesFlattenAndOperatorsApplyComponentwise) {
  const char *text =
      "node swap(a, b: int) returns (x, y: int);\nlet\n  x = b;\n  y = a;\ntel\n"
      "node add3(a, b, c: int) returns (s: int);\nlet\n  s = a + 10 * b + 100 * c;\ntel\n"
      "node main(a, b: int; c: bool) returns (p, q: int; r, s, t: int; u: int; v, w: int; m, n: int; e: bool);\n"
      "let\n"
      "  (p, q) = (1, 2) fby (a, b);\n"                       // fby componentwise
      "  r, s, t = if c then (1, (2, 3)) else (4, (5, 6));\n"  // nested tuple, if componentwise
      "  u = add3(swap(a, b), 7);\n"                          // swap's two outputs fill two arguments
      "  (v, w) = (0, 0) -> pre swap(a, b);\n"                // pre and -> over a call's outputs
      "  (m, n) = merge c (true -> swap(a, b) when c) (false => (a, b) when not c);\n"
      "  e = (a, b) = (p, q);\n"                              // tuples compare componentwise
      "tel\n";
  auto r = run_both(text, "main", {{"a", {"3", "4", "5"}}, {"b", {"7", "8", "9"}}, {"c", {"T", "F", "T"}}});
  expect_stream(r, "p", {"1", "3", "4"});
  expect_stream(r, "q", {"2", "7", "8"});
  expect_stream(r, "r", {"1", "4", "1"});
  expect_stream(r, "s", {"2", "5", "2"});
  expect_stream(r, "t", {"3", "6", "3"});
  expect_stream(r, "u", {"737", "748", "759"});  // add3(b, a, 7) = b + 10a + 700
  expect_stream(r, "v", {"0", "7", "8"});
  expect_stream(r, "w", {"0", "3", "4"});
  expect_stream(r, "m", {"7", "4", "9"});
  expect_stream(r, "n", {"3", "8", "5"});
  expect_stream(r, "e", {"F", "F", "F"});
  expect_solvers_agree(r);
  // Only the checked program is rewritten: the user's AST prints as written.
  auto fe = check_text(text);
  EXPECT_NE(print_program(fe->user).find("= (1, 2) fby (a, b);"), std::string::npos);
}

TEST(LustreCore, TuplesThatDoNotLineUpAreStillErrors) {
  auto a = check_text("node f(a, b, c: int) returns (x, y: int);\nlet\n  (x, y) = (a, b) fby c;\ntel\n");
  EXPECT_EQ(errors_of(*a), (std::vector<std::string>{"3:12 type.tuple", "3:12 arity.outputs"}));
  auto b = check_text("node g(a: int) returns (x, y: int);\nlet\n  x = a;\n  y = a;\ntel\n"
                      "node f(a: int) returns (o: int);\nlet\n  o = 1 + g(a);\ntel\n");
  EXPECT_EQ(errors_of(*b), std::vector<std::string>{"8:11 type.tuple"});
}

// ---- type declarations: aliases, subranges, enumerations ----

namespace {
const char *kEnumProgram =
    "type color = enum { Red, Green, Blue };\n"
    "type small = subrange [0, 9] of int;\n"
    "type speed = real;\n"
    "type mode = Off | On;\n"
    "node next(c: color) returns (n: color);\n"
    "let\n  n = if c = Red then Green else if c = Green then Blue else Red;\ntel\n"
    "node main(c: color; k: small; v: speed) returns (n: color; m: mode; w: speed; moved: bool);\n"
    "let\n"
    "  n = next(c);\n"
    "  m = if k > 4 then On else Off;\n"
    "  w = v * 2.0;\n"
    "  moved = n <> c;\n"
    "tel\n";

check::Verdict property_verdict(const check::Report &r, size_t k) {
  std::vector<const check::PropertyResult *> ps;
  for (auto &p : r.properties)
    if (p.kind == "property") ps.push_back(&p);
  EXPECT_LT(k, ps.size());
  return k < ps.size() ? ps[k]->verdict : check::Verdict::Unknown;
}
}  // namespace

TEST(LustreCore, EnumerationsAliasesAndSubranges) {
  std::string printed = reprint_program(kEnumProgram);
  EXPECT_NE(printed.find("type color = enum { Red, Green, Blue };"), std::string::npos) << printed;
  EXPECT_NE(printed.find("type mode = Off | On;"), std::string::npos) << printed;
  EXPECT_NE(printed.find("type small = subrange [0, 9] of int;"), std::string::npos) << printed;
  // Traces and expectations name the values (parse_cell reads constructors by the type).
  auto r = run_both(kEnumProgram, "main",
                    {{"c", {"Red", "Blue", "Green", "_"}}, {"k", {"3", "7", "9", "_"}}, {"v", {"1.0", "2.5", "0.0", "_"}}});
  expect_stream(r, "n", {"Green", "Red", "Blue", "_"});
  expect_stream(r, "m", {"Off", "On", "On", "_"});
  expect_stream(r, "w", {"2.0", "5.0", "0.0", "_"});
  expect_stream(r, "moved", {"T", "T", "T", "_"});
  expect_solvers_agree(r);
  // The values are the constructors' indices; a name the type does not have is an error.
  std::string err;
  Type color = r.prog.inputs[0].type;
  EXPECT_EQ(color.enum_name, "color");
  EXPECT_EQ(oracle::parse_cell("Blue", color, err).value.i.at(0), 2);
  EXPECT_EQ(oracle::parse_cell("1", color, err).value.i.at(0), 1);
  oracle::parse_cell("Yellow", color, err);
  EXPECT_EQ(err, "'Yellow' is not a value of the enumeration color (Red, Green, Blue, or their indices 0..2)");
  err.clear();
  oracle::parse_cell("3", color, err);
  EXPECT_FALSE(err.empty());
}

TEST(LustreCore, EnumerationAndTypeErrors) {
  auto r = check_text(
      "type color = enum { Red, Green };\n"
      "type a = b;\n"
      "type b = a;\n"
      "type t2 = enum { Red, Blue };\n"
      "node f(c: color; x: int; y: foo) returns (o: int; p: color; q: int; s: bool);\n"
      "let\n"
      "  o = x when Red(c);\n"
      "  p = c + Red;\n"
      "  q = merge c (Red -> x) (Green -> x);\n"
      "  s = c = 1;\n"
      "tel\n");
  // (`x when Red(c)` and the merge over c are clocks on the values of c: their own test.)
  EXPECT_EQ(errors_of(*r), (std::vector<std::string>{"4:18 name.duplicate", "3:10 type.recursive", "5:29 name.unknown",
                                                     "8:7 type.not-numeric", "10:11 type.mismatch"}));
}

// The range of an enumeration or a subrange input is an assumption the checker uses;
// without it (a plain int) the same property is falsified (the negative control).
TEST(LustreCore, CheckerUsesEnumerationAndSubrangeRanges) {
  auto r = check_text_report(std::string(kEnumProgram) + "node p(c: color; k: small) returns (ok: bool);\nlet\n"
                                                         "  ok = next(c) <> c and k < 10;\n  check ok;\ntel\n",
                             "p");
  EXPECT_EQ(property_verdict(r, 0), check::Verdict::Valid);
  auto plain = check_text_report("node p(k: int) returns (ok: bool);\nlet\n  ok = k < 10;\n  check ok;\ntel\n", "p");
  EXPECT_EQ(property_verdict(plain, 0), check::Verdict::Falsified);
}

// `assert` is an assumption for the checker, in the main node and in instances; `=>`
// is implication.
TEST(LustreCore, CheckerProvesUnderAsserts) {
  auto r = check_text_report(
      "node pos(v: int) returns (w: int);\nlet\n  assert v > 0;\n  w = v;\ntel\n"
      "node main(x, y: int) returns (a, b: bool);\nlet\n"
      "  assert x > 0;\n"
      "  a = x <> 0;\n"
      "  b = pos(y) > 0 => y >= 1;\n"
      "  check a;\n  check b;\n  check y > 0;\n"
      "tel\n",
      "main");
  EXPECT_EQ(property_verdict(r, 0), check::Verdict::Valid);
  EXPECT_EQ(property_verdict(r, 1), check::Verdict::Valid);
  EXPECT_EQ(property_verdict(r, 2), check::Verdict::Valid);  // pos's assert binds y
  auto without = check_text_report("node main(x: int) returns (a: bool);\nlet\n  a = x <> 0;\n  check a;\ntel\n", "main");
  EXPECT_EQ(property_verdict(without, 0), check::Verdict::Falsified);
}

// condact(c, N(args), defaults): N runs where c is true on the sampled arguments; where
// c is false the outputs hold, the defaults before the first activation (Kind 2, JKind).
TEST(LustreCore, CondactHoldsOutputsWhereTheConditionIsFalse) {
  const char *text =
      "node acc(x: int) returns (s, n: int);\nlet\n  s = x -> pre s + x;\n  n = 1 -> pre n + 1;\ntel\n"
      "node main(c: bool; x: int) returns (s, n: int; t: int);\n"
      "let\n"
      "  (s, n) = condact(c, acc(x), -1, 0);\n"
      "  t = condact(x > 2, acc(x), 9, 9);\n"  // one output named, two defaults: left alone
      "tel\n";
  auto fe = check_text(text);
  EXPECT_EQ(errors_of(*fe), std::vector<std::string>{"9:7 syntax.unsupported"});
  const char *ok =
      "node acc(x: int) returns (s, n: int);\nlet\n  s = x -> pre s + x;\n  n = 1 -> pre n + 1;\ntel\n"
      "node one(x: int) returns (s: int);\nlet\n  s = x -> pre s + x;\ntel\n"
      "node main(c: bool; x: int) returns (s, n: int; u: int);\n"
      "let\n"
      "  (s, n) = condact(c and x > 0, acc(x), -1, 0);\n"
      "  u = 100 * condact(c, one(x), 0) + 1;\n"  // inside an expression: its own equation first
      "  assert condact(true, one(x), 0) > -100;\n"
      "tel\n";
  auto r = run_both(ok, "main", {{"c", {"F", "T", "T", "F", "T"}}, {"x", {"4", "3", "-2", "6", "5"}}});
  // Active at cycles 1 and 4 only (cycle 2 has x <= 0): acc sees 3, then 5.
  expect_stream(r, "s", {"-1", "3", "3", "3", "8"});
  expect_stream(r, "n", {"0", "1", "1", "1", "2"});
  expect_stream(r, "u", {"1", "301", "101", "101", "601"});  // one(x) on c: 3, 3 - 2, then 1 + 5
  expect_solvers_agree(r);
}

// ---- records: flattened into their fields (sema/expand_aggregates) ----

TEST(LustreCore, RecordsAreFlattenedIntoTheirFields) {
  const char *text =
      "type rat = struct { n: real; d: real };\n"
      "type seg = { a: rat; b: rat; k: int };\n"
      "node mk(u: real) returns (s: seg);\n"
      "let\n  s = seg { a = rat { n = u; d = 1.0 }; b = rat { d = 2.0; n = u + 1.0 }; k = 3 };\ntel\n"
      "node main(u: real; r: rat) returns (s: seg; t: rat; same: bool; d: real; y: rat);\n"
      "let\n"
      "  s = mk(u);\n"
      "  t = rat { n = 0.0; d = 0.0 } -> pre s.b;\n"               // a record under -> and pre
      "  same = s.a = s.b;\n"                                         // records compare fieldwise
      "  d = mk(u).b.d + (if same then s else mk(u + 1.0)).a.n;\n"  // fields of calls and of an if
      "  y = r[n := r.n * 2.0];\n"                                    // Kind 2's update
      "tel\n";
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("type seg = struct { a: rat; b: rat; k: int };"), std::string::npos) << printed;
  EXPECT_NE(printed.find("seg { a = rat { n = u; d = 1.0 }; b = rat { d = 2.0; n = u + 1.0 }; k = 3 }"), std::string::npos);
  auto r = run_both(text, "main", {{"u", {"1.0", "2.0", "2.0"}}, {"r.n", {"1.5", "-1.0", "0.5"}}, {"r.d", {"4.0", "5.0", "1.0"}}});
  expect_stream(r, "s.a.n", {"1.0", "2.0", "2.0"});
  expect_stream(r, "s.b.n", {"2.0", "3.0", "3.0"});
  expect_stream(r, "s.b.d", {"2.0", "2.0", "2.0"});
  expect_stream(r, "s.k", {"3", "3", "3"});
  expect_stream(r, "t.n", {"0.0", "2.0", "3.0"});
  expect_stream(r, "t.d", {"0.0", "2.0", "2.0"});
  expect_stream(r, "same", {"F", "F", "F"});
  expect_stream(r, "d", {"4.0", "5.0", "5.0"});  // mk(u).b.d = 2, mk(u + 1).a.n = u + 1
  expect_stream(r, "y.n", {"3.0", "-2.0", "1.0"});
  expect_stream(r, "y.d", {"4.0", "5.0", "1.0"});
  expect_solvers_agree(r);
}

// Two calls whose records hold an enumeration and a machine integer, compared: each call's
// outputs are bound to fresh locals, which must take the outputs' types (the enumeration,
// uint8), not plain ints.
TEST(LustreCore, RecordsOfEnumerationsComparedThroughCalls) {
  const char *text =
      "type C = enum { A, B };\n"
      "type R = struct { c: C; v: uint8 };\n"
      "function f(x: R) returns (y: R);\nlet\n  y = x;\ntel\n"
      "node main(x, y: R) returns (ok: bool);\n"
      "let\n  ok = f(x) = f(y);\ntel\n";
  auto r = run_both(text, "main", {{"x.c", {"A", "B", "B"}}, {"x.v", {"1", "2", "3"}}, {"y.c", {"A", "A", "B"}}, {"y.v", {"1", "2", "4"}}});
  expect_stream(r, "ok", {"T", "F", "F"});
}

TEST(LustreCore, RecordErrors) {
  auto r = check_text(
      "type rat = struct { n: real; d: real };\n"
      "node f(r: rat; x: real) returns (a: real; b: real; c: rat; e: rat);\n"
      "let\n"
      "  a = r.m;\n"              // no such field
      "  b = x.n;\n"              // not a record
      "  c = rat { n = 1.0 };\n"  // a field missing
      "  e = rat { n = 1.0; d = 2.0; n = 3.0 };\n"  // a field twice
      "tel\n");
  EXPECT_EQ(errors_of(*r), (std::vector<std::string>{"4:9 type.record", "5:9 type.record", "6:7 type.record",
                                                     "7:31 type.record"}));
}

// A record that contains itself cannot be flattened: one error at its declaration, and
// no follow-on messages from the uses.
TEST(LustreCore, RecursiveRecordIsOneError) {
  auto r = check_text("type r = struct { a: r; b: int };\nnode f(x: r) returns (y: int);\nlet\n  y = x.b;\ntel\n");
  EXPECT_EQ(errors_of(*r), std::vector<std::string>{"1:6 type.recursive"});
}

// ---- arrays: flattened into their elements, like records (sema/expand_aggregates) ----

const char *kArrayProgram =
    "const N = 3;\n"
    "type V = int^N;\n"
    "type rat = struct { n: int; d: int };\n"
    "node sum3(a: V) returns (s: int);\n"
    "let\n  s = a[0] + a[1] + a[2];\ntel\n"
    "node main(x: int; v: int^2) returns (y: V; s: int; z: int^2^3; r: rat^2; k: int; w: int^2; p: int^2; ok: bool);\n"
    "let\n"
    "  y = [x, x + 1, 0 -> pre x];\n"
    "  z = [v, [x, 1], v];\n"                                     // an array of arrays
    "  s = sum3(y) + z[2][1] + z[1, 1];\n"                        // a[i, j] is a[i][j]
    "  r = [rat { n = x; d = 1 }, rat { n = v[1]; d = 2 }];\n"    // an array of records
    "  k = (if x > 1 then y else 7 ^ 3)[2] + r[1].n;\n"          // an index of an if
    "  w = (0 -> pre x + 1) ^ 2;\n"                               // e ^ n copies e
    "  p = [0, 0] -> pre v;\n"                                    // arrays under -> and pre
    "  ok = y = [x, x + 1, 0 -> pre x] and r[1].d = 2 and z[0] <> [0, 0];\n"
    "tel\n";

TEST(LustreCore, ArraysAreFlattenedIntoTheirElements) {
  std::string printed = reprint_program(kArrayProgram);
  EXPECT_NE(printed.find("type V = int^N;"), std::string::npos) << printed;
  EXPECT_NE(printed.find("z: int^2^3"), std::string::npos) << printed;
  EXPECT_NE(printed.find("w = (0 -> pre x + 1) ^ 2;"), std::string::npos) << printed;
  auto r = run_both(kArrayProgram, "main", {{"x", {"1", "2", "3"}}, {"v[0]", {"10", "20", "30"}}, {"v[1]", {"5", "6", "7"}}});
  expect_stream(r, "y[0]", {"1", "2", "3"});
  expect_stream(r, "y[1]", {"2", "3", "4"});
  expect_stream(r, "y[2]", {"0", "1", "2"});
  expect_stream(r, "z[1][0]", {"1", "2", "3"});
  expect_stream(r, "z[2][1]", {"5", "6", "7"});
  expect_stream(r, "s", {"9", "13", "17"});  // (x + x+1 + pre x) + v[1] + 1
  expect_stream(r, "r[0].n", {"1", "2", "3"});
  expect_stream(r, "r[1].n", {"5", "6", "7"});
  expect_stream(r, "r[1].d", {"2", "2", "2"});
  expect_stream(r, "k", {"12", "7", "9"});  // 7 + 5, then y[2] + v[1]
  expect_stream(r, "w[0]", {"0", "2", "3"});
  expect_stream(r, "w[1]", {"0", "2", "3"});
  expect_stream(r, "p[0]", {"0", "10", "20"});
  expect_stream(r, "p[1]", {"0", "5", "6"});
  expect_stream(r, "ok", {"T", "T", "T"});
  expect_solvers_agree(r);
}

// Operator precedence and nesting as grammar.md §3 and §5 state them: `^` binds tighter
// than `*`, looser than `when` and prefix operators, left associative; in a type the
// size is a prefix expression.
TEST(LustreCore, ArraySyntaxPrintsBack) {
  EXPECT_EQ(reprint_expr("a * b ^ 2"), reprint_expr("a * (b ^ 2)"));
  EXPECT_EQ(reprint_expr("false ^ 2 ^ 3"), reprint_expr("(false ^ 2) ^ 3"));
  EXPECT_NE(reprint_expr("false ^ 2 ^ 3"), reprint_expr("false ^ (2 ^ 3)"));
  EXPECT_EQ(reprint_expr("-x ^ 2"), reprint_expr("(-x) ^ 2"));
  EXPECT_EQ(reprint_expr("x + 1 ^ 2"), reprint_expr("x + (1 ^ 2)"));
  std::string printed = reprint_program("node f(a: bool^(N + 1)^M) returns (b: real^2^2);\nlet\n  b = (1.0 ^ 2) ^ 2;\ntel\n");
  EXPECT_NE(printed.find("a: bool^(N + 1)^M"), std::string::npos) << printed;
}

TEST(LustreCore, ArrayErrors) {
  auto r = check_text(
      "node f(n: int; i: int; a: int^3) returns (b: int^n; c: int; d: int; e: int^2; g: int; h: int^2);\n"
      "let\n"
      "  b = a;\n"                 // a size that is not static
      "  c = a[3];\n"              // out of range
      "  d = a[i];\n"              // a dynamic index
      "  e = [1, [2, 3]];\n"       // elements of different shapes
      "  g = a.x;\n"               // a field of an array
      "  h = 1 ^ 0;\n"             // no copies
      "tel\n"
      "fun s(x: real^2) : real = x[0];\n");
  EXPECT_EQ(errors_of(*r), (std::vector<std::string>{"1:50 static.not-static", "4:9 static.eval", "5:9 syntax.unsupported",
                                                     "6:11 type.array", "7:9 type.record", "8:11 static.eval",
                                                     "10:7 syntax.unsupported"}));
}

// `[...]` keeps its tensor meaning in nodes with tensor-typed declarations, next to
// Lustre arrays in the same file (grammar.md §3).
// An abstract type `type T;` is an int of its own name (grammar.md §3): its values come
// from inputs and imported functions and are compared for equality. Pinned: the oracle on
// a trace of ints; rml-check proves what holds for every T (equality is an equivalence,
// a function gives equal results on equal arguments through a shared local) and refutes
// what holds only in a one-value T (Kind 2 refutes it too: T may have two values); the
// declaration prints back as written.
TEST(LustreCore, AbstractTypesAreIntsComparedForEquality) {
  const std::string text =
      "type T;\n"
      "node main(a, b: T) returns (same, sym: bool; c: T);\n"
      "let\n"
      "  same = a = b;\n"
      "  sym = (a = b) = (b = a);\n"
      "  c = if same then a else b;\n"
      "  check sym;\n"
      "  check c = b;\n"
      "  check a = b;\n"
      "tel\n";
  auto r = run_both(text, "main", {{"a", {"3", "-1", "7"}}, {"b", {"3", "2", "7"}}});
  expect_stream(r, "same", {"T", "F", "T"});
  expect_stream(r, "sym", {"T", "T", "T"});
  expect_stream(r, "c", {"3", "2", "7"});
  expect_solvers_agree(r);
  using V = check::Verdict;
  EXPECT_EQ(user_property_verdicts(check_text_report(text, "main")), (std::vector<V>{V::Valid, V::Valid, V::Falsified}));
  EXPECT_NE(reprint_program(text).find("type T;"), std::string::npos) << reprint_program(text);
}

TEST(LustreCore, TensorLiteralsKeepTheirMeaningNextToArrays) {
  auto r = run_both(
      "node arr(u: real) returns (a: real^2);\nlet\n  a = [u, 2.0 * u];\ntel\n"
      "node main(u: real; v: real[2]) returns (s: real; b: real);\n"
      "let\n  s = sum(v + [1.0, 2.0]);\n  b = arr(u)[1];\ntel\n",
      "main", {{"u", {"1.0", "3.0"}}, {"v", {"[1.0, 1.0]", "[0.0, 2.0]"}}});
  expect_stream(r, "s", {"5.0", "5.0"});
  expect_stream(r, "b", {"2.0", "6.0"});
  expect_solvers_agree(r);
}

// Properties over array elements are proved on the flattened streams; a false one is
// falsified with a counterexample the oracle replays (the negative control).
TEST(LustreCore, CheckerProvesPropertiesOverArrayElements) {
  const char *body =
      "node main(x: int) returns (y: int^3);\n"
      "let\n  y = [x, x + 1, 0 -> pre y[1]];\n  check %s;\ntel\n";
  char buf[256];
  std::snprintf(buf, sizeof buf, body, "y[1] = y[0] + 1");
  EXPECT_EQ(property_verdict(check_text_report(buf, "main"), 0), check::Verdict::Valid);
  std::snprintf(buf, sizeof buf, body, "y[2] <= y[1]");
  EXPECT_EQ(property_verdict(check_text_report(buf, "main"), 0), check::Verdict::Falsified);
}

// ---- static parameters: one instance per static argument (sema/instantiate_statics) ----

const char *kStaticsProgram =
    "const c: int = 3\n"
    "fun f<<n: int>>() returns (y: int)\nlet\n  y = n + c\ntel\n"                 // Heptagon's spelling
    "fun g<<m: int>>() returns (y: int)\nlet\n  y = f<<m + 1>>() + f<<2>>()\ntel\n"  // an instance calls instances
    "node cross<<const l: int>>(x: int) returns (b: bool);\nlet\n  b = x = l;\ntel\n"  // Lustre V6's
    "node total<<n: int>>(a: int^n) returns (s: int);\nlet\n  s = a[0] + a[n - 1];\ntel\n"
    "node main(x: int) returns (a: int; b: bool; d: int; e: int);\n"
    "let\n"
    "  a = g<<c>>();\n"  // f<<4>>() + f<<2>>() = 7 + 5
    "  b = cross<<2>>(x);\n"
    "  d = total<<3>>([x, 0, x + 1]);\n"
    "  e = total<<1 + 1>>(x ^ 2);\n"
    "tel\n";

TEST(LustreCore, StaticParametersAreInstantiatedPerValue) {
  std::string printed = reprint_program(kStaticsProgram);
  EXPECT_NE(printed.find("fun g<<m: int>>() returns (y: int)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("f<<m + 1>>() + f<<2>>()"), std::string::npos) << printed;
  EXPECT_NE(printed.find("node cross<<const l: int>>(x: int)"), std::string::npos) << printed;
  auto fe = check_text(kStaticsProgram);
  ASSERT_FALSE(fe->diags.has_errors()) << render_all(fe->diags);
  std::set<std::string> nodes;
  for (size_t k = fe->checked.prelude_decls; k < fe->checked.program.decls.size(); ++k)
    nodes.insert(decl_name(fe->checked.program.decls[k]));
  // One instance per distinct value (total<<1 + 1>> is total<<2>>); the generic nodes are gone.
  EXPECT_EQ(nodes, (std::set<std::string>{"c", "main", "g<<3>>", "f<<4>>", "f<<2>>", "cross<<2>>", "total<<3>>", "total<<2>>"}));
  auto r = run_both(kStaticsProgram, "main", {{"x", {"1", "2", "3"}}});
  expect_stream(r, "a", {"12", "12", "12"});
  expect_stream(r, "b", {"F", "T", "F"});
  expect_stream(r, "d", {"3", "5", "7"});
  expect_stream(r, "e", {"2", "4", "6"});
  expect_solvers_agree(r);
}

TEST(LustreCore, StaticArgumentErrors) {
  auto r = check_text(
      "node h<<n: int>>(x: int) returns (y: int);\nlet\n  y = x + n;\ntel\n"
      "node k(x: int) returns (y: int);\nlet\n  y = x;\ntel\n"
      "node main(x: int; i: int) returns (a, b, c, d, e: int);\n"
      "let\n"
      "  a = h(x);\n"            // no static arguments
      "  b = k<<1>>(x);\n"       // k has no static parameters
      "  c = h<<1, 2>>(x);\n"    // too many
      "  d = h<<i>>(x);\n"       // not static
      "  e = h<<true>>(x);\n"    // not an int
      "tel\n");
  EXPECT_EQ(errors_of(*r), (std::vector<std::string>{"11:7 static.kind", "12:7 static.kind", "13:7 arity.args",
                                                     "14:10 static.not-static", "15:10 type.mismatch"}));
  // A recursion through static arguments has no end: bounded, one error.
  auto rec = check_text(
      "node r<<n: int>>(x: int) returns (y: int);\nlet\n  y = r<<n + 1>>(x);\ntel\n"
      "node main(x: int) returns (y: int);\nlet\n  y = r<<0>>(x);\ntel\n");
  EXPECT_EQ(errors_of(*rec), std::vector<std::string>{"3:7 static.eval"});
  // A variable named like a static parameter would read the parameter's value: refused.
  auto clash = check_text("node s<<n: int>>(x: int) returns (n: int);\nlet\n  n = x;\ntel\n");
  EXPECT_EQ(errors_of(*clash), (std::vector<std::string>{"1:35 name.duplicate", "3:3 name.redefined"}));
  // A generic node without an instance is not checked, and says so.
  auto unused = check_text("node g<<n: int>>(x: int) returns (y: int);\nlet\n  y = x + n;\ntel\n");
  EXPECT_FALSE(unused->diags.has_errors());
  EXPECT_EQ(warnings_of(*unused), std::vector<std::string>{"static.uninstantiated"});
}

// Kind 2's update of several fields, `r[n := a; d := b]`, is one update after the other
// (a field given twice takes the last value); a record value may name the record
// through an alias.
TEST(LustreCore, SeveralFieldUpdatesAndRecordAliases) {
  const char *text =
      "type rat = struct { n: int; d: int };\n"
      "type q = rat;\n"
      "node main(x: int) returns (y: rat; z: q);\n"
      "let\n"
      "  y = q { n = x; d = 1 }[d := x + 1; n := 0; n := 2 * x];\n"
      "  z = y[d := 7];\n"
      "tel\n";
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("q { n = x; d = 1 }[d := x + 1][n := 0][n := 2 * x]"), std::string::npos) << printed;
  auto r = run_both(text, "main", {{"x", {"1", "5"}}});
  expect_stream(r, "y.n", {"2", "10"});
  expect_stream(r, "y.d", {"2", "6"});
  expect_stream(r, "z.n", {"2", "10"});
  expect_stream(r, "z.d", {"7", "7"});
  expect_solvers_agree(r);
}

// Heptagon's spellings of `and` (`&`) and of unary minus (`~-`, `~-.`), and its record
// values without their type (`{ x = e }`: the record type with exactly those fields).
TEST(LustreCore, HeptagonAndRecordValuesWithoutTheirType) {
  const char *text =
      "type pt = { x: int; y: int }\n"
      "type seg = { a: pt; b: pt }\n"
      "node main(u: int; c: bool) returns (s: seg; o: bool; m: int; r: real)\n"
      "let\n"
      "  s = { b = { x = u; y = ~-u }; a = { y = 0; x = 1 } };\n"
      "  o = c & u > 0;\n"
      "  m = ~-1 -> pre m + s.b.y;\n"
      "  r = ~-.2.5\n"
      "tel\n";
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("s = { b = { x = u; y = -u }; a = { y = 0; x = 1 } };"), std::string::npos) << printed;
  EXPECT_NE(printed.find("o = c and u > 0;"), std::string::npos) << printed;
  auto r = run_both(text, "main", {{"u", {"2", "-3", "4"}}, {"c", {"T", "T", "F"}}});
  expect_stream(r, "s.a.x", {"1", "1", "1"});
  expect_stream(r, "s.b.x", {"2", "-3", "4"});
  expect_stream(r, "s.b.y", {"-2", "3", "-4"});
  expect_stream(r, "o", {"T", "F", "F"});
  expect_stream(r, "m", {"-1", "2", "-2"});
  expect_stream(r, "r", {"-2.5", "-2.5", "-2.5"});
  expect_solvers_agree(r);
  // Fields that name no record type, or more than one, are an error.
  auto bad = check_text("type p = { x: int }\ntype q = { x: int }\nnode f(u: int) returns (a: p)\nlet\n  a = { x = u }\ntel\n");
  EXPECT_EQ(errors_of(*bad), std::vector<std::string>{"5:7 type.record"});
}

// Kind 2's group types `[int, [int, bool]]`, their values `{a, b}` (tuples) and static
// indices: flattened like arrays.
TEST(LustreCore, GroupTypesAreFlattenedLikeArrays) {
  const char *text =
      "node pick(e: [bool, [int, int]]) returns (c: bool; a: int; g: [int, int]);\n"
      "let\n  c, g = (e[0], e[1]);\n  a = e[1][1];\ntel\n"
      "node main(x: int) returns (c: bool; a: int; g: [int, int]; h: int);\n"
      "let\n"
      "  c, a, g = pick({x > 0, {x, 2 * x}});\n"
      "  h = g[0] + {x, 10}[1];\n"
      "tel\n";
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("e: [bool, [int, int]]"), std::string::npos) << printed;
  auto r = run_both(text, "main", {{"x", {"1", "-2"}}});
  expect_stream(r, "c", {"T", "F"});
  expect_stream(r, "a", {"2", "-4"});
  expect_stream(r, "g[1]", {"2", "-4"});
  expect_stream(r, "h", {"11", "8"});
  expect_solvers_agree(r);
}

// Vélus / Heptagon reset blocks: the block's state (its fby, pre, ->) and its instances
// restart together where the condition is true (sema/expand_reset_blocks makes the block
// a node instance with `every`).
TEST(LustreCore, ResetBlocksRestartTheirEquations) {
  const char *text =
      "node cnt(u: int) returns (k: int)\nlet\n  k = 1 -> pre k + 1;\ntel\n"
      "node main(x: int; r: bool) returns (s: int; n: int; t: int)\n"
      "let\n"
      "  reset\n"
      "    n = cnt(x);\n"  // with ';': `cnt(x) every r` would be a restarted instance
      "    s = x + (0 fby s)\n"  // the block's last equation may go without ';'
      "  every r;\n"
      "  t = s + 1;\n"
      "tel\n";
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("  reset\n    n = cnt(x);\n    s = x + (0 fby s);\n  every r;\n"), std::string::npos) << printed;
  auto r = run_both(text, "main", {{"x", {"1", "2", "3", "4", "5"}}, {"r", {"F", "F", "T", "F", "T"}}});
  expect_stream(r, "s", {"1", "3", "3", "7", "5"});
  expect_stream(r, "n", {"1", "2", "1", "2", "1"});
  expect_stream(r, "t", {"2", "4", "4", "8", "6"});
  expect_solvers_agree(r);
  // The block becomes a node whose interface needs types: a variable without one is refused.
  auto bad = check_text("node f(x: int; r: bool) returns (s: int)\nlet\n  v = x;\n  reset\n    s = v + 1;\n  every r;\ntel\n");
  EXPECT_EQ(errors_of(*bad), std::vector<std::string>{"4:3 syntax.unsupported"});
}

// Constants of array types: their value at each use (a copy of `e` in `e ^ n`, which has
// no state), and scalar constants selected from them.
TEST(LustreCore, ArrayConstants) {
  const char *text =
      "const Z = (2 - 3) ^ 3;\n"
      "const M: int^2^2 = [[1, 2], [3, 4]];\n"
      "const K = M[1][0] + Z[2];\n"
      "node main(x: int) returns (a: int^3; k: int; m: int);\n"
      "let\n  a = Z;\n  k = K;\n  m = M[0][1] * x;\ntel\n";
  auto r = run_both(text, "main", {{"x", {"5", "-1"}}});
  expect_stream(r, "a[0]", {"-1", "-1"});
  expect_stream(r, "a[2]", {"-1", "-1"});
  expect_stream(r, "k", {"2", "2"});  // 3 + (-1)
  expect_stream(r, "m", {"10", "-2"});
  expect_solvers_agree(r);
}

// ---- clocks on enumerated values (sema/expand_enum_clocks) ----

namespace {
const char *kEnumClocks =
    "type mode = enum { Idle, Run, Stop };\n"
    "node dbl(m: mode; y: int when Run(m)) returns (o: int when Run(m))\n"
    "let\n  o = y * 2;\ntel\n"
    "node main(m: mode; x: int) returns (acc: int when Run(m); r: int; s: int; d: int; e: int)\n"
    "let\n"
    "  acc = (x when Run(m)) + (0 fby acc);\n"
    "  r = merge m (Idle -> 0 when Idle(m)) (Run -> acc) (Stop -> -1 when Stop(m));\n"
    "  s = merge m (Stop -> x when Stop(m)) (Idle -> x when Idle(m)) (Run -> acc);\n"
    "  d = merge m (Run -> dbl(m, x when Run(m))) (Idle -> 7) (Stop -> 8);\n"
    "  e = merge m (Run => 1) (Idle => 0) (Stop => 0) + (if m = Stop then 10 else 0);\n"
    "tel\n";
}  // namespace

// `x when C(k)` is present where k is C; the merge takes the branch of k's value, each
// on its constructor's clock; state on such a clock (acc) advances on its ticks only.
// Chronograms by hand: m = Idle Run Run Stop Run Idle, x = 1..6.
TEST(LustreCore, ClocksOnEnumeratedValues) {
  std::string printed = reprint_program(kEnumClocks);
  EXPECT_NE(printed.find("y: int when Run(m)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("merge m (Idle -> 0 when Idle(m)) (Run -> acc) (Stop -> -1 when Stop(m))"), std::string::npos)
      << printed;
  auto r = run_both(kEnumClocks, "main",
                    {{"m", {"Idle", "Run", "Run", "Stop", "Run", "Idle"}}, {"x", {"1", "2", "3", "4", "5", "6"}}});
  expect_stream(r, "acc", {"_", "2", "5", "_", "10", "_"});
  expect_stream(r, "r", {"0", "2", "5", "-1", "10", "0"});
  expect_stream(r, "s", {"1", "2", "5", "4", "10", "6"});
  expect_stream(r, "d", {"7", "4", "6", "8", "10", "7"});
  expect_stream(r, "e", {"0", "1", "1", "10", "1", "0"});
  expect_solvers_agree(r);
  // rml-check accepts it (clocks, causality): the clauses' clocks are what the merge needs.
  auto rep = check_text_report(kEnumClocks, "main");
  EXPECT_EQ(rep.exit_code(), 0);
  for (auto &p : rep.properties) EXPECT_EQ(p.verdict, check::Verdict::Valid) << p.kind << " " << p.name;
}

// Heptagon declares the clock of a value of an enumeration with `on C(k)` (and `on c`,
// `onot c` for bools); it is Lustre's `when`, and prints so.
TEST(LustreCore, HeptagonOnClocks) {
  const char *text =
      "type mode = Idle | Run;\n"
      "node f(x: int; m: mode; b: bool) returns (y: int on Run(m); z: int onot b)\n"
      "let\n  y = x when Run(m);\n  z = x when not b;\ntel\n";
  auto r = check_text(text);
  EXPECT_TRUE(errors_of(*r).empty()) << render_all(r->diags);
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("y: int when Run(m), z: int when not b"), std::string::npos) << printed;
  // `on` stays a name elsewhere.
  EXPECT_TRUE(errors_of(*check_text("node g(on: int) returns (o: int)\nlet\n  o = on;\ntel\n")).empty());
}

// Two clauses whose names are not constructors are the paper form's `->` operands, and
// `=>` there is Lustre's implication.
TEST(LustreCore, PaperMergeOfArrowsIsNotAClauseList) {
  const char *text =
      "node main(c: bool; a: int; b: bool) returns (o: int; p: int; q: bool; r: bool)\n"
      "let\n"
      "  xs = a when c;\n  ys = a when not c;\n"
      "  bs = b when c;\n  ns = b when not c;\n"
      "  o = merge c (xs -> 0) (ys -> 1);\n"
      "  p = merge c (xs -> 2) ys;\n"
      "  q = merge c (bs => false) ns;\n"
      "  r = merge c (bs => false) (ns => true);\n"
      "tel\n";
  std::string printed = reprint_program(text);
  EXPECT_NE(printed.find("merge c (xs -> 0) (ys -> 1)"), std::string::npos) << printed;
  EXPECT_NE(printed.find("merge c ((xs -> 2)) ys"), std::string::npos) << printed;
  EXPECT_NE(printed.find("merge c ((bs => false)) ns"), std::string::npos) << printed;
  EXPECT_NE(printed.find("merge c (bs => false) (ns => true)"), std::string::npos) << printed;
  auto r = run_both(text, "main", {{"c", {"T", "F", "T", "F"}}, {"a", {"5", "6", "7", "8"}}, {"b", {"T", "T", "F", "F"}}});
  expect_stream(r, "o", {"5", "6", "0", "1"});
  expect_stream(r, "p", {"5", "6", "2", "8"});
  expect_stream(r, "q", {"F", "T", "T", "F"});
  expect_stream(r, "r", {"F", "T", "T", "T"});
  expect_solvers_agree(r);
}

TEST(LustreCore, EnumeratedClockErrors) {
  const char *head = "type color = enum { Red, Green, Blue };\ntype heat = enum { Hot, Cold };\n";
  auto r = check_text(std::string(head) +
                      "node f(c: color; t: heat; x: int) returns (o: int; p: int; q: int; u: int)\n"
                      "let\n"
                      "  o = merge c (Red -> x) (Green -> x);\n"
                      "  p = merge c (Red -> x) (Hot -> x) (Blue -> x);\n"
                      "  q = merge c (Red -> x) (Green -> x) (Red -> x) (Blue -> x);\n"
                      "  u = merge c (Red -> x) (y -> x) (Blue -> x);\n"
                      "tel\n");
  EXPECT_EQ(errors_of(*r), (std::vector<std::string>{"5:7 clock.merge", "6:27 clock.merge", "7:40 clock.merge",
                                                     "8:27 clock.merge"}));
  auto s = check_text(std::string(head) +
                      "node f(c: color; t: heat; x: int) returns (o: int; v: int when Purple(c))\n"
                      "let\n"
                      "  o = x when Red(c, t);\n"
                      "  v = 1;\n"
                      "tel\n");
  EXPECT_EQ(errors_of(*s), (std::vector<std::string>{"3:59 name.unknown", "5:14 arity.args"}));
  // Lustre's interface rules apply to k as to a bool clock: an input's clock uses inputs,
  // and k must be a variable.
  auto v = check_text(std::string(head) +
                      "node f(c: color; x: int when Red(l)) returns (w: int when Hot(z))\n"
                      "let\n  l = c;\n  w = 2;\ntel\n");
  EXPECT_EQ(errors_of(*v), (std::vector<std::string>{"3:25 name.unknown", "3:54 name.unknown"}));
  // A value of another enumeration, or of none: one error where the clock is written.
  auto t = check_text(std::string(head) +
                      "node f(c: color; t: heat; x: int) returns (o: int; p: int when Red(x))\n"
                      "let\n"
                      "  o = x when Red(t);\n"
                      "  p = merge t (Hot -> 1) (Cold -> 2) when Red(c);\n"
                      "tel\n");
  EXPECT_EQ(errors_of(*t), (std::vector<std::string>{"3:59 type.mismatch", "5:14 type.mismatch"}));
  auto u = check_text(std::string(head) +
                      "node f(c: color; t: heat; x: int) returns (p: int; q: int)\n"
                      "let\n"
                      "  p = Red(c);\n"
                      "  q = x when c;\n"
                      "tel\n");
  EXPECT_EQ(errors_of(*u), (std::vector<std::string>{"5:7 name.unknown", "6:14 type.not-bool"}));
}

// Lustre V6's `#(a, b, c)`: at most one operand is true (sema/expand_at_most_one).
TEST(LustreCore, AtMostOneOperator) {
  const std::string text = "node main(a, b, c: bool) returns (o: bool; p: bool);\nlet\n  o = #(a, b, c);\n  p = #(a, not a);\n"
                           "  check p;\n  check #(a, b);\ntel\n";
  auto r = run_both(text, "main", {{"a", {"F", "T", "T", "T", "F"}}, {"b", {"F", "F", "T", "T", "F"}}, {"c", {"F", "F", "F", "T", "T"}}});
  expect_solvers_agree(r);
  expect_stream(r, "o", {"T", "T", "F", "F", "T"});
  expect_stream(r, "p", {"T", "T", "T", "T", "T"});
  EXPECT_NE(reprint_program(text).find("o = #(a, b, c);"), std::string::npos);
  auto rep = check_text_report(text, "main");
  EXPECT_EQ(property_verdict(rep, 0), check::Verdict::Valid);
  EXPECT_EQ(property_verdict(rep, 1), check::Verdict::Falsified);
  // `#` only before '(': elsewhere it is still an unexpected character.
  auto bad = check_text("node main(a: bool) returns (o: bool);\nlet\n  o = # a;\ntel\n");
  EXPECT_EQ(errors_of(*bad), (std::vector<std::string>{"3:7 lex.char"}));
}

// Lustre's precedence of `when` in a Lustre node (a `returns` header): looser than the
// arithmetic operators, tighter than the comparisons, as Vélus and Heptagon parse it
// (grammar.md §5).
TEST(LustreCore, WhenIsLooserThanArithmeticInALustreNode) {
  auto body_of = [](const std::string &text) {
    SourceFile f("p.lus", text);
    Diagnostics d;
    Program p = parse_program(f, d);
    EXPECT_FALSE(d.has_errors()) << render_all(d);
    return print_expr(*std::get<NodeDecl>(p.decls.at(0)).equations.at(0).rhs);
  };
  // Lustre (`returns`): `when` looser than + - * / mod div, tighter than the comparisons.
  EXPECT_EQ(body_of("node f(a: bool; b: int) returns (y: int when a);\nlet\n  y = b * 2 when a;\ntel\n"), "(b * 2) when a");
  EXPECT_EQ(body_of("node f(a: bool; b: int) returns (y: int when a);\nlet\n  y = b - 1 + b when a;\ntel\n"), "(b - 1 + b) when a");
  EXPECT_EQ(body_of("node f(a: bool; b: int) returns (y: bool);\nlet\n  y = b < 1 when a;\ntel\n"), "b < (1 when a)");
  EXPECT_EQ(body_of("node f(a: bool; b: int) returns (y: int);\nlet\n  y = -b when a when a;\ntel\n"), "-b when a when a");
  EXPECT_EQ(body_of("node f<<n: int>>(a: bool) returns (y: int);\nlet\n  y = g<<n + 1 when a>>(a);\ntel\n"), "g<<(n + 1) when a>>(a)");
  // rml's own nodes (`->`): `when` binds tighter than the arithmetic (the paper's
  // `do * 2.0 * i when bp`).
  EXPECT_EQ(body_of("node f(a: bool, b: int) -> (y: int)\n  y = b * 2 when a;\n"), "b * (2 when a)");
  EXPECT_EQ(body_of("node f(a: bool, b: int) -> (y: bool)\n  y = b < 1 when a;\n"), "b < (1 when a)");
}

TEST(LustreCore, AMergeOverSampledSumsIsWellClocked) {
  // Kind 2's way of writing a merge over an enumeration: each branch a sum sampled by its
  // constructor. Read as Lustre reads it, every branch is on its clock.
  const char *text =
      "type mode = enum { Up, Down, Hold };\n"
      "node main(m: mode; s: int) returns (t: int);\n"
      "let\n"
      "  t = merge m (Up -> s + 1 when Up(m)) (Down -> s - 1 when Down(m)) (Hold -> s when Hold(m));\n"
      "tel\n";
  test::Run r = run_both(text, "main", {{"m", {"Up", "Down", "Hold", "Down"}}, {"s", {"10", "20", "30", "-4"}}});
  expect_stream(r, "t", {"11", "19", "30", "-5"});
  expect_solvers_agree(r);
  EXPECT_FALSE(r.worklist.any_error());
  check::Report rep = check_text_report(text, "main");
  ASSERT_FALSE(rep.properties.empty());
  EXPECT_EQ(rep.properties[0].kind, "clocks");
  EXPECT_EQ(rep.properties[0].verdict, check::Verdict::Valid);
  EXPECT_TRUE(rep.properties[0].findings.empty());  // the static calculus alone
}

// Lustre's `current e` (Lustre V6 manual): on the parent of e's clock, e's value at the
// last tick, nil before the first (sema/expand_current: `merge c e ((pre $current) when
// not c)`). Chronograms by hand on both solvers: a variable declared on a clock, `when
// not`, an expression sampled in place, an enumeration's clock; nil until c first ticks.
TEST(LustreCore, CurrentHoldsTheLastSampledValue) {
  const char *text =
      "type mode = enum { Up, Down };\n"
      "node main(c: bool; x: int; m: mode) returns (o: int; p: int; q: int; u: int);\n"
      "var xc: int when c; xn: int when not c; xu: int when Up(m);\n"
      "let\n"
      "  xc = x when c;\n  xn = x when not c;\n  xu = x when Up(m);\n"
      "  o = current xc;\n"
      "  p = 0 -> current(xn);\n"
      "  q = current (x * 2 when c);\n"
      "  u = current xu;\n"
      "tel\n";
  auto r = run_both(text, "main",
                    {{"c", {"F", "T", "F", "T", "F"}}, {"x", {"1", "2", "3", "4", "5"}}, {"m", {"Down", "Down", "Up", "Down", "Up"}}});
  expect_solvers_agree(r);
  expect_stream(r, "o", {"nil", "2", "2", "4", "4"});
  expect_stream(r, "p", {"0", "1", "3", "3", "5"});
  expect_stream(r, "q", {"nil", "4", "4", "8", "8"});
  expect_stream(r, "u", {"nil", "nil", "3", "3", "5"});
  // A prefix operator that prints as a call, which reads back the same.
  std::string out = reprint_program(text);
  EXPECT_NE(out.find("o = current(xc);"), std::string::npos) << out;
  EXPECT_NE(out.find("q = current((x * 2) when c);"), std::string::npos) << out;
  // rml-check reads it through the primitives: where c ticks it is x, between ticks the
  // last x; nil until c first ticks (a property reading it is then nil, not true).
  auto verdicts = [](const std::string &assertion) {
    check::Report rep = check_text_report(
        "node main(c: bool; x: int) returns (o: int);\nvar xc: int when c;\nlet\n  xc = x when c;\n  o = current xc;\n" + assertion +
            "  check c => o = x;\n  check o = x;\ntel\n",
        "main");
    std::vector<check::Verdict> got;
    for (auto &p : rep.properties)
      if (p.kind == "property" || p.kind == "initialisation") got.push_back(p.verdict);
    return got;
  };
  using V = check::Verdict;
  EXPECT_EQ(verdicts("  assert c -> true;\n"), (std::vector<V>{V::Valid, V::Valid, V::Falsified}));  // c ticks first
  EXPECT_EQ(verdicts(""), (std::vector<V>{V::Falsified, V::Falsified, V::Falsified}));             // nil at cycle 0
  // Errors: an operand whose clock is not written; two operands.
  auto e = check_text("node main(c: bool; x: int) returns (o: int; p: int);\nvar xc: int when c;\nlet\n  xc = x when c;\n"
                      "  o = current (xc + 1);\n  p = current(xc, xc);\ntel\n");
  EXPECT_EQ(errors_of(*e), (std::vector<std::string>{"5:7 syntax.unsupported", "6:7 arity.args"})) << diag_text(*e);
}

// Kind 2's and Vélus's `merge(c; a; b)` is the merge `merge c a b` (printed so).
TEST(LustreCore, SemicolonMerge) {
  const char *text =
      "node main(c: bool; x: int) returns (y: int; z: int);\nlet\n"
      "  y = merge(c; x when c; (0 -> pre y) when not c);\n"
      "  z = merge(c; merge(c; 1 when c; 2 when not c) when c; [x][0] when not c);\ntel\n";
  auto r = run_both(text, "main", {{"c", {"T", "F", "F", "T"}}, {"x", {"5", "6", "7", "8"}}});
  expect_solvers_agree(r);
  expect_stream(r, "y", {"5", "5", "5", "8"});
  expect_stream(r, "z", {"1", "6", "7", "1"});
  std::string out = reprint_program(text);
  EXPECT_NE(out.find("y = merge c (x when c) ((0 -> pre y) when not c);"), std::string::npos) << out;
  // A missing operand is located.
  auto e = check_text("node main(c: bool; x: int) returns (y: int);\nlet\n  y = merge(c; x when c);\ntel\n");
  EXPECT_EQ(errors_of(*e), (std::vector<std::string>{"3:24 parse.expected"})) << diag_text(*e);
}

// Kind 2's constants of a node, `const c: t = e;` among its sections: each is its value
// wherever the node reads it (an array size included), and one with a declared type is
// checked against it as a local of that type (`d:Pos` refuted: -1 is not positive).
TEST(LustreNodeConstants, AreTheirValuesAndTheirTypesAreChecked) {
  const std::string text =
      "type Pos = subtype { p: int | p > 0 };\n"
      "node main(x: int) returns (y: int; a: int^2);\n"
      "const n: int = 2; k = n + 1;\n"
      "var s: int^n;\n"
      "const d: Pos = k - 4;\n"
      "let\n"
      "  s = [x, k];\n"
      "  a = s;\n"
      "  y = x * k + d;\n"
      "tel\n";
  auto r = run_both(text, "main", {{"x", {"1", "2"}}});
  expect_stream(r, "y", {"2", "5"});  // x * 3 - 1
  expect_stream(r, "a[1]", {"3", "3"});
  auto c = check_text_report(text, "main");  // its one property: d:Pos
  EXPECT_EQ(user_property_verdicts(c), std::vector<check::Verdict>{check::Verdict::Falsified});
  // Without a value it is refused; a header alone followed by `const` declares a global one.
  EXPECT_EQ(errors_of(*check_text("node main(x: int) returns (y: int);\nconst c: int;\nlet\n  y = x;\ntel\n")),
            (std::vector<std::string>{"2:7 syntax.unsupported"}));
  EXPECT_TRUE(errors_of(*check_text("node f(x: int) returns (y: int);\nconst c: int = 3;\n"
                                    "node main(x: int) returns (y: int);\nlet\n  y = f(x) + c;\ntel\n"))
                  .empty());
}

// A `const` after a node without a body is a global constant: a `let` inside its value is
// an expression, not a body (the round-trip law found `let` taken for one).
TEST(LustreNodeConstants, ALetInAGlobalConstantAfterABodilessNodeIsNoBody) {
  const std::string text = "node f() returns ();\nconst c: int = let y = 2 in y + 1;\nnode main(x: int) returns (o: int);\nlet\n  o = x + c;\ntel\n";
  SourceFile f("p.lus", text);
  Diagnostics d;
  Program p = parse_program(f, d);
  ASSERT_FALSE(d.has_errors()) << render_all(d);
  ASSERT_EQ(p.decls.size(), 3u);
  EXPECT_TRUE(std::holds_alternative<ConstDecl>(p.decls[1]));
  EXPECT_TRUE(std::get<NodeDecl>(p.decls[0]).equations.empty());
}
