// Kind 2's contracts (syntax/contracts.hpp): every spelling is read alike; each item
// becomes the local, assumption or property it stands for (pinned on the canonical print);
// rml-check gives each item its verdict under its name, assumes the contract's assumptions
// in the node and checks them at every call; bad contracts are located errors. Negative
// controls: without its `assume` a guarantee that needs it is falsified; a call whose
// argument breaks the callee's assumption is falsified, the call beside it is not.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "checker/checker.hpp"
#include "core/normalize.hpp"
#include "frontend/test_util.hpp"

using namespace rml;

namespace contracts_test {

std::unique_ptr<test::Parsed> parse(const std::string &text) { return test::parse_text(text, "c.lus"); }

// "LINE:COL RULE" of every error of the front end.
std::vector<std::string> errors_of(const std::string &text) {
  auto r = run_frontend("c.lus", text);
  std::vector<std::string> out;
  for (auto &d : r->diags.all()) {
    if (d.severity != Severity::Error) continue;
    auto [l, c] = d.span.valid() ? d.span.file->line_col(d.span.begin) : std::pair<uint32_t, uint32_t>{0, 0};
    out.push_back(std::to_string(l) + ":" + std::to_string(c) + " " + d.rule);
  }
  return out;
}

// Each user property of `main` by its name (or its text when unnamed) -> its verdict.
std::map<std::string, std::string> verdicts(const std::string &text, const std::string &main) {
  auto r = run_frontend("c.lus", text);
  if (r->diags.has_errors()) throw std::runtime_error(render_all(r->diags));
  core::Program prog = core::elaborate(r->checked, main);
  check::Options o;
  o.rlimit = 8'000'000;  // deterministic: no wall-clock budget
  check::Report rep = check::check_program(r->checked, prog, o);
  std::map<std::string, std::string> out;
  for (auto &p : rep.properties) {
    if (p.kind != "property") continue;
    const core::CoreProperty &cp = prog.properties.at(static_cast<size_t>(p.index));
    out[cp.name.empty() ? cp.text : cp.name] =
        p.verdict == check::Verdict::Valid ? "valid" : p.verdict == check::Verdict::Falsified ? "falsified" : "unknown";
  }
  return out;
}

const std::string kBody = "  assume x >= 0;\n  guarantee y >= x;\n  mode pos (require x > 0; ensure y > 0;);\n";
const std::string kNode = "node f(x: int) returns (y: int);\n";
const std::string kLet = "let\n  y = x + 1;\ntel\n";

}  // namespace contracts_test

using namespace contracts_test;

// `(*@contract ... *)`, `/*@contract ... */` and `con ... noc` are one contract; `weakly`
// changes nothing rml checks.
TEST(Contracts, EverySpellingIsTheSameContract) {
  auto a = parse(kNode + "(*@contract\n" + kBody + "*)\n" + kLet);
  auto b = parse(kNode + "/*@contract\n" + kBody + "*/\n" + kLet);
  auto c = parse(kNode + "con\n" + kBody + "noc\n" + kLet);
  auto w = parse(kNode + "con\n  weakly assume x >= 0;\n  weakly guarantee y >= x;\n  mode pos (require x > 0; ensure y > 0;);\nnoc\n" + kLet);
  for (auto *p : {a.get(), b.get(), c.get(), w.get()}) {
    ASSERT_FALSE(p->diags.has_errors()) << render_all(p->diags);
    EXPECT_TRUE(ast_equal(a->prog, p->prog)) << print_program(p->prog);
    EXPECT_EQ(p->prog.contracts.size(), 1u);
  }
  // Without the contract, the same node has none of its statements; `con` stays a name.
  auto plain = parse("node f(con: int) returns (noc: int);\nlet\n  noc = con + 1;\ntel\n");
  ASSERT_FALSE(plain->diags.has_errors()) << render_all(plain->diags);
  EXPECT_TRUE(plain->prog.contracts.empty());
}

// What each item stands for, on the canonical print: ghosts are locals (an import's are
// renamed apart), constants are written where they are read, assumptions are `assume
// always`, guarantees are properties, a mode is a local holding its requires with one
// property per ensure, mode references read that local, an import's input that is not a
// variable is a local of its own, and one mode must be active.
TEST(Contracts, EachItemIsWhatItStandsFor) {
  auto p = parse(
      "contract Bounded (lo, x: int) returns (y: int);\n"
      "let\n"
      "  const gap = 1;\n"
      "  var above: bool = y >= lo - gap;\n"
      "  assume x >= lo;\n"
      "  guarantee \"above\" above;\n"
      "  mode up (require x > lo; ensure y > lo;);\n"
      "tel\n"
      "\n"
      "node clamp (lo, x: int) returns (y: int);\n"
      "(*@contract\n"
      "  var d: int = x - lo;\n"
      "  assume \"ordered\" d >= 0;\n"
      "  guarantee y = x;\n"
      "  mode zero (require d = 0; ensure y = lo; ensure \"same\" y = x;);\n"
      "  mode pos (require not ::zero; ensure ::Bounded::up;);\n"
      "  import Bounded (lo + 0, x) returns (y);\n"
      "*)\n"
      "let\n"
      "  y = if x < lo then lo else x;\n"
      "tel\n");
  ASSERT_FALSE(p->diags.has_errors()) << render_all(p->diags);
  EXPECT_EQ(print_program(p->prog),
            "node clamp(lo: int, x: int) returns (y: int);\n"
            "var\n"
            "  d: int;\n"
            "  zero: bool;\n"
            "  pos: bool;\n"
            "  Bounded_lo: int;\n"
            "  Bounded_above: bool;\n"
            "  Bounded_up: bool;\n"
            "let\n"
            "  y = if x < lo then lo else x;\n"
            "  d = x - lo;\n"
            "  zero = d = 0;\n"
            "  pos = not zero;\n"
            "  Bounded_lo = lo + 0;\n"
            "  Bounded_above = y >= Bounded_lo - 1;\n"
            "  Bounded_up = x > Bounded_lo;\n"
            "  assume \"ordered\" always d >= 0;\n"
            "  guarantee y = x;\n"
            "  guarantee \"zero.ensure1\" zero => y = lo;\n"
            "  guarantee \"zero.same\" zero => y = x;\n"
            "  guarantee \"pos\" pos => Bounded_up;\n"
            "  assume always x >= Bounded_lo;\n"
            "  guarantee \"Bounded::above\" Bounded_above;\n"
            "  guarantee \"Bounded::up\" Bounded_up => y > Bounded_lo;\n"
            "  guarantee \"one_mode_active\" zero or pos or Bounded_up;\n"
            "tel\n");
  // The expansion is rml a reader can check again: printed and parsed back, it is equal.
  auto q = parse(print_program(p->prog));
  ASSERT_FALSE(q->diags.has_errors()) << render_all(q->diags);
  EXPECT_TRUE(ast_equal(p->prog, q->prog));
}

// Verdicts per item, by name: the assumption is assumed (the monotone guarantee needs it),
// a guarantee and the mode check that fail are falsified (their counterexamples replayed
// by the checker), the others valid.
TEST(Contracts, EachItemHasItsVerdict) {
  const std::string contract =
      "  guarantee \"monotone\" true -> s >= pre s;\n"
      "  guarantee \"bounded\" s <= 30;\n"
      "  mode idle (require x = 0; ensure s = (0 -> pre s););\n"
      "  mode busy (require x > 5; ensure s > 5;);\n";
  // s saturates at 100: no int wraps, so the verdicts are those of unbounded integers too.
  const std::string body = "let\n  s = x -> if pre s >= 100 then pre s else pre s + x;\ntel\n";
  auto v = verdicts("node acc (x: int) returns (s: int);\n(*@contract\n  assume x >= 0 and x <= 10;\n" + contract + "*)\n" + body, "acc");
  std::map<std::string, std::string> want = {{"monotone", "valid"},  {"bounded", "falsified"},      {"idle", "valid"},
                                             {"busy", "valid"},      {"one_mode_active", "falsified"}};
  EXPECT_EQ(v, want);
  // Negative control: without the assumption, x may be negative and s fall.
  auto u = verdicts("node acc (x: int) returns (s: int);\n(*@contract\n" + contract + "*)\n" + body, "acc");
  EXPECT_EQ(u.at("monotone"), "falsified");
  // Modes that cover every input the assumption allows pass the mode check.
  auto covered = verdicts(
      "node acc (x: int) returns (s: int);\ncon\n  assume x >= 0 and x <= 10;\n"
      "  mode idle (require x = 0;);\n  mode busy (require x > 0; ensure s > 0;);\nnoc\n" + body, "acc");
  EXPECT_EQ(covered.at("one_mode_active"), "valid");
  EXPECT_EQ(covered.at("busy"), "valid");
}

// A callee's assumption is a property of every caller, at each call, named after the call's
// place and the assumption's (Kind 2's `sub[l13c7].assume[l3c3]`); the callee's guarantees
// are checked in the callee's own context.
TEST(Contracts, ACalleesAssumptionIsCheckedAtEachCall) {
  const std::string text =
      "node sub (x: int) returns (y: int);\n"  // line 1
      "(*@contract\n"
      "  assume x >= 0;\n"                     // line 3
      "  assume \"small\" x < 100;\n"
      "  guarantee y >= x;\n"
      "*)\n"
      "let\n"
      "  y = x + 1;\n"
      "tel\n"
      "\n"
      "node top (a: int) returns (b: int);\n"
      "let\n"
      "  b = sub(a) + sub(5);\n"  // line 13: the first call may break both, the second none
      "tel\n";
  std::map<std::string, std::string> want = {{"sub[l13c7].assume[l3c3]", "falsified"},
                                             {"sub[l13c7].small", "falsified"},
                                             {"sub[l13c16].assume[l3c3]", "valid"},
                                             {"sub[l13c16].small", "valid"}};
  EXPECT_EQ(verdicts(text, "top"), want);
  EXPECT_EQ(verdicts(text, "sub"), (std::map<std::string, std::string>{{"y >= x", "valid"}}));
  // A caller that keeps the assumption discharges it.
  std::string kept = text;
  kept.replace(kept.find("sub(a)"), 6, "sub(if a >= 0 and a < 100 then a else 0)");
  EXPECT_EQ(verdicts(kept, "top").at("sub[l13c7].assume[l3c3]"), "valid");
  EXPECT_EQ(verdicts(kept, "top").at("sub[l13c7].small"), "valid");
}

// An imported node's contract is all that is known of it: each call assumes its guarantees
// while its assumptions have held (a node) or where they hold (a function), and checks its
// assumptions. Negative controls: without the guarantees nothing bounds the outputs; a
// guarantee is not assumed once an assumption has broken, even where it holds again.
TEST(Contracts, AnImportedNodesContractIsAssumedAtEachCall) {
  const std::string imported =
      "function imported half (x: int) returns (y: int);\n"
      "(*@contract\n  assume x >= 0 and x <= 100;\n  guarantee y >= 0 and y <= x;\n*)\n"
      "node imported counter (tick: bool) returns (c: int);\n"
      "(*@contract\n  guarantee c >= 0 and c <= 1000;\n*)\n";
  const std::string top =
      "node top (a: int; t: bool) returns (o: int);\n"
      "(*@contract\n  assume a >= 0 and a <= 100;\n  guarantee \"ok\" o >= 0 and o <= 1100;\n*)\n"
      "let\n  o = half(a) + counter(t);\ntel\n";
  std::map<std::string, std::string> want = {{"half[l16c7].assume[l3c3]", "valid"}, {"ok", "valid"}};
  EXPECT_EQ(verdicts(imported + top, "top"), want);
  // The expansion prints as an imported node with a body of its statements, which reads
  // back equal (the fuzzer found the header printed alone, its statements after it).
  auto p = parse(imported + top);
  ASSERT_FALSE(p->diags.has_errors()) << render_all(p->diags);
  std::string printed = print_program(p->prog);
  EXPECT_NE(printed.find("imported node counter(tick: bool) returns (c: int);\nlet\n  guarantee c >= 0 and c <= 1000;\ntel\n"),
            std::string::npos)
      << printed;
  EXPECT_NE(printed.find("imported function half(x: int) returns (y: int);\nlet\n  assume always x >= 0 and x <= 100;\n"
                         "  guarantee x >= 0 and x <= 100 => y >= 0 and y <= x;\ntel\n"),
            std::string::npos)
      << printed;
  auto q = parse(printed);
  ASSERT_FALSE(q->diags.has_errors()) << render_all(q->diags) << printed;
  EXPECT_TRUE(ast_equal(p->prog, q->prog)) << printed;
  // Such a body says what is known of the node; it never computes an output.
  EXPECT_EQ(errors_of("imported node g(x: int) returns (y: int);\nlet\n  y = x;\ntel\n"), std::vector<std::string>{"3:3 syntax.unsupported"});
  std::string unbounded = imported;
  const std::string bound = "  guarantee c >= 0 and c <= 1000;\n";
  unbounded.replace(unbounded.find(bound), bound.size(), "");
  EXPECT_EQ(verdicts(unbounded + top, "top").at("ok"), "falsified");  // counter's output as the solver chose it
  // pos's guarantee binds while a >= 0 has held: once a fell below 0 it binds no more.
  const std::string guarded =
      "node imported pos (x: int) returns (y: int);\n"
      "(*@contract\n  assume x >= 0;\n  guarantee y > 0 and y < 1000;\n*)\n"
      "node top (a: int) returns (o: bool);\n"
      "let\n  o = (if a >= 0 then 1 else 0) + pos(a) > 0;\n  check \"q\" o;\n  check \"r\" (true -> pre o) => o;\n  check \"s\" a >= 0 => o;\ntel\n";
  auto g = verdicts(guarded, "top");
  EXPECT_EQ(g.at("q"), "falsified");  // at a < 0, pos(a) is any value
  EXPECT_EQ(g.at("r"), "falsified");
  EXPECT_EQ(g.at("s"), "falsified");  // a < 0 once: pos(a) is any value from then on, even where a >= 0
  EXPECT_NE(g.at("pos[l8c35].assume[l3c3]"), "valid");
  // The same with the assumption kept by the caller: both proved.
  std::string kept = guarded;
  kept.replace(kept.find("pos(a)"), 6, "pos(if a >= 0 then a else 0)");
  auto k = verdicts(kept, "top");
  EXPECT_EQ(k.at("q"), "valid");
  EXPECT_EQ(k.at("r"), "valid");
  EXPECT_EQ(k.at("s"), "valid");
}

// Errors in contracts are located and name their rule; a contract rml cannot honour is
// refused, never read as a comment.
TEST(Contracts, BadContractsAreLocatedErrors) {
  auto node = [](const std::string &items) { return "node f(x: int) returns (y: int);\n(*@contract\n" + items + "*)\nlet\n  y = x;\ntel\n"; };
  EXPECT_EQ(errors_of(node("  import Missing (x) returns (y);\n")), std::vector<std::string>{"3:10 name.unknown"});
  EXPECT_EQ(errors_of(node("  guarantee ::nothing;\n")), std::vector<std::string>{"3:13 name.unknown"});
  EXPECT_EQ(errors_of(node("  mode m (require ::m;);\n")), std::vector<std::string>{"3:19 contract.mode"});
  EXPECT_EQ(errors_of(node("  mode m (require x > 0;);\n  mode m (require x < 0;);\n")), std::vector<std::string>{"4:8 name.duplicate"});
  EXPECT_EQ(errors_of(node("  weakly var g: int = x;\n")), std::vector<std::string>{"3:10 parse.expected"});
  EXPECT_EQ(errors_of(node("  var g = x;\n")), std::vector<std::string>{"3:9 parse.expected"});
  EXPECT_EQ(errors_of(node("  y = x;\n")), std::vector<std::string>{"3:3 parse.expected"});
  EXPECT_EQ(errors_of("contract C (a: int) returns (b: int);\nlet\n  import C (a) returns (b);\ntel\n" + node("  import C (x) returns (y);\n")),
            std::vector<std::string>{"3:10 contract.cycle"});
  EXPECT_EQ(errors_of("contract C (a: int) returns (b: int);\nlet\n  guarantee b = a;\ntel\n" + node("  import C (x, x) returns (y);\n")),
            std::vector<std::string>{"7:3 arity.args"});
  EXPECT_EQ(errors_of("contract C (a: int) returns (b: int);\nlet\ntel\ncontract C (a: int) returns (b: int);\nlet\ntel\n"),
            std::vector<std::string>{"4:10 name.duplicate"});
  EXPECT_EQ(errors_of("contract C<T> (a: T) returns (b: T);\nlet\ntel\n"), std::vector<std::string>{"1:11 syntax.unsupported"});
  EXPECT_EQ(errors_of("node f(x: int) returns (y: int);\n(*@contract\n  guarantee y = x;\n"), std::vector<std::string>{"2:1 lex.comment"});
  EXPECT_EQ(errors_of("node f(x: int) returns (y: int);\n(*@requires x > 0; *)\nlet\n  y = x;\ntel\n"),
            std::vector<std::string>{"2:1 syntax.unsupported"});
  // Kind 2's well-formedness: a contract reads no local of its node; what a caller must make
  // hold reads no output at the current cycle (through ghosts and calls too; under `pre`
  // it may); ghosts do not define each other at one cycle; declarations are checked even
  // when nothing imports them.
  EXPECT_EQ(errors_of("node f(x: int) returns (y: int);\n(*@contract\n  guarantee y >= l;\n*)\nvar l: int;\nlet\n  l = x;\n  y = l;\ntel\n"),
            std::vector<std::string>{"3:18 name.unknown"});
  EXPECT_EQ(errors_of(node("  var g: int = y + 1;\n  assume g > 0;\n")), std::vector<std::string>{"4:10 contract.assume"});
  EXPECT_EQ(errors_of("node id(a: int) returns (b: int);\nlet\n  b = a;\ntel\n" + node("  assume x = id(y);\n")),
            std::vector<std::string>{"7:10 contract.assume"});
  EXPECT_EQ(errors_of(node("  mode m (require x > y;);\n")), std::vector<std::string>{"3:19 contract.assume"});
  // A node that reads the output only under `pre` may be passed it (Kind 2 accepts this).
  EXPECT_EQ(errors_of("node g(a, b: int) returns (c: int);\nlet\n  c = a + (0 -> pre b);\ntel\n" + node("  var h: int = g(x, y);\n  assume h > 0;\n")),
            std::vector<std::string>{});
  EXPECT_EQ(errors_of("node g(a, b: int) returns (c: int);\nlet\n  c = b + (0 -> pre a);\ntel\n" + node("  var h: int = g(x, y);\n  assume h > 0;\n")),
            std::vector<std::string>{"8:10 contract.assume"});
  EXPECT_EQ(errors_of(node("  assume true -> x > pre y;\n  var g: int = 0 fby y;\n  assume g >= 0;\n  mode m (require pre y > 0;);\n")),
            std::vector<std::string>{});
  EXPECT_EQ(errors_of("contract C (a: int) returns (b: int);\nlet\n  assume a < b;\ntel\n"), std::vector<std::string>{"3:10 contract.assume"});
  EXPECT_EQ(errors_of("contract C (a: int) returns (b: int);\nlet\n  var v: int = w;\n  var w: int = v + a;\ntel\n"),
            std::vector<std::string>{"3:16 contract.cycle"});
  // A mode reference outside a contract is no expression.
  EXPECT_EQ(errors_of("node f(x: int) returns (y: int);\nlet\n  y = x;\n  check ::m;\ntel\n"), std::vector<std::string>{"4:9 parse.expected"});
}

// Refinement types (syntax/refinements.hpp) are contract items: on an input an assumption
// (and each caller's obligation), on an output or a local a guarantee, through aliases of
// aliases (each refinement its own property, named `x:Type`, `x:subtype` written in place).
// Negative control: a caller that can pass 100 breaks `Small` at the call and at its output.
TEST(RefinementTypes, AreAssumptionsOnInputsAndGuaranteesElsewhere) {
  const std::string types =
      "type Nat = subtype { n: int | n >= 0 };\n"
      "type Small = subtype { s: Nat | s < 100 };\n"
      "node inc (x: Small) returns (y: Nat);\n"
      "let\n  y = x + 1;\ntel\n";
  auto top = [&](int bound) {
    return types + "node top (a: int | a >= 0 and a < " + std::to_string(bound) + ") returns (z: Small);\n" +
           "var w: int | w >= 0;\nlet\n  w = a * 2;\n  z = inc(w) + 0;\ntel\n";
  };
  EXPECT_EQ(verdicts(top(50), "inc"), (std::map<std::string, std::string>{{"y:Nat", "valid"}}));
  std::map<std::string, std::string> want = {{"inc[l11c7].x:Small", "valid"}, {"inc[l11c7].x:Nat", "valid"},
                                             {"z:Small", "valid"},           {"z:Nat", "valid"},
                                             {"w:subtype", "valid"}};
  EXPECT_EQ(verdicts(top(50), "top"), want);
  want["inc[l11c7].x:Small"] = "falsified";
  want["z:Small"] = "falsified";
  EXPECT_EQ(verdicts(top(60), "top"), want);
  // The declarations keep their base types; a refinement elsewhere is refused, never dropped.
  auto p = parse(top(50));
  ASSERT_FALSE(p->diags.has_errors()) << render_all(p->diags);
  EXPECT_NE(print_program(p->prog).find("node inc(x: Small) returns (y: Nat);"), std::string::npos) << print_program(p->prog);
  const std::string nat = "type Nat = subtype { n: int | n >= 0 };\n";
  EXPECT_EQ(errors_of(nat + "type A = Nat^3;\nnode f(a: A) returns (y: int);\nlet\n  y = a[0];\ntel\n"),
            (std::vector<std::string>{"2:6 syntax.unsupported", "3:8 syntax.unsupported"}));
  EXPECT_EQ(errors_of(nat + "type R = struct { f: Nat^2 };\n"), std::vector<std::string>{"2:19 syntax.unsupported"});
  EXPECT_EQ(errors_of(nat + "const c: Nat = 3;\n"), std::vector<std::string>{"2:7 syntax.unsupported"});
  EXPECT_EQ(errors_of(nat + "type R = struct { f: Nat };\nconst c: R = R { f = 3 };\n"), std::vector<std::string>{"3:7 syntax.unsupported"});
  EXPECT_EQ(errors_of("fun f(x: real | x > 0.0) : real = x;\n"), std::vector<std::string>{"1:7 syntax.unsupported"});
  EXPECT_EQ(errors_of(nat + "node f(x: int) returns (y: int);\n(*@contract\n  var g: Nat = x;\n*)\nlet\n  y = x;\ntel\n"),
            std::vector<std::string>{"4:7 syntax.unsupported"});
}

// A refinement on a record's field, at any depth, is an item of each node variable of that
// record: `r.f:Nat` reads `r.f` (an assumption on an input, a guarantee elsewhere), and
// an alias of the record refines the whole. Negative control: an output whose field may
// be -1 falsifies its item (and x.a mod 10 + 6 keeps z.q > 5 without any overflow).
TEST(RefinementTypes, OnRecordFieldsAreItemsOfTheirVariables) {
  const std::string text =
      "type Nat = subtype { n: int | n >= 0 };\n"
      "type In = struct { a: Nat; b: int };\n"
      "type Out = struct { p: In; q: Nat };\n"
      "type Big = subtype { o: Out | o.q > 5 };\n"
      "node f(x: In) returns (y: Out; z: Big);\n"
      "let\n"
      "  y = Out { p = x; q = x.a };\n"
      "  z = Out { p = In { a = x.b; b = 0 }; q = x.a mod 10 + 6 };\n"
      "tel\n";
  std::map<std::string, std::string> want = {{"y.p.a:Nat", "valid"}, {"y.q:Nat", "valid"}, {"z:Big", "valid"},
                                             {"z.p.a:Nat", "falsified"}, {"z.q:Nat", "valid"}};
  EXPECT_EQ(verdicts(text, "f"), want);
}

// A callee's input of a subrange type is the caller's obligation at each call, as its
// contract's assumptions are (Kind 2 checks an input's type at the call): a property
// `lo <= arg <= hi` named after the call's place, for a node and for an imported function
// (a `*` bound leaves its side out), at the argument's own place in the call; an
// enumeration's input needs none (typing keeps it).
// Negative control: the calls whose argument may leave the range are falsified, those
// beside them whose argument cannot are valid.
TEST(Subranges, ACallsArgumentIsCheckedAgainstTheCalleesInputRange) {
  const std::string text =
      "type color = enum { Red, Green };\n"
      "node sub (x: subrange [0, 10] of int) returns (y: int);\n"
      "let\n  y = x + 1;\ntel\n"
      "function imported half (z: subrange [*, 100] of int) returns (w: int);\n"
      "node pick (c: color; p: subrange [1, 2] of int) returns (r: bool);\n"
      "let\n  r = c = Red and p = 1;\ntel\n"
      "node top (a: int; k: color) returns (b: int; q: bool);\n"
      "let\n"
      "  b = sub(a) + sub(if a >= 0 and a <= 10 then a else 5) + half(a) + half(7 - a * 0);\n"  // line 13
      "  q = pick(k, (2));\n"
      "tel\n";
  std::map<std::string, std::string> want = {{"sub[l13c7].x:range", "falsified"},
                                             {"sub[l13c16].x:range", "valid"},
                                             {"half[l13c59].z:range", "falsified"},
                                             {"half[l13c69].z:range", "valid"},
                                             {"pick[l14c7].p:range", "valid"}};
  EXPECT_EQ(verdicts(text, "top"), want);
  // The callee itself assumes its input's range.
  EXPECT_EQ(verdicts(text, "sub"), (std::map<std::string, std::string>{}));
  // Each obligation says which argument and which range.
  auto r = run_frontend("c.lus", text);
  ASSERT_FALSE(r->diags.has_errors()) << render_all(r->diags);
  core::Program prog = core::elaborate(r->checked, "top");
  std::map<std::string, std::string> texts;
  for (auto &p : prog.properties) texts[p.name] = p.text;
  EXPECT_EQ(texts.at("sub[l13c7].x:range"), "0 <= a <= 10 (the range of sub's input x)");
  EXPECT_EQ(texts.at("half[l13c59].z:range"), "a <= 100 (the range of half's input z)");
  EXPECT_EQ(texts.at("half[l13c69].z:range"), "7 - a * 0 <= 100 (the range of half's input z)");
  EXPECT_EQ(texts.at("pick[l14c7].p:range"), "1 <= 2 <= 2 (the range of pick's input p)");
}

// Kind 2's `any { x: T | P }` (syntax/any_values.hpp) is an imported node whose guarantee
// is P, called where the `any` is: rml-check assumes P of each value, and nothing more
// (y may be 9, so `y < 9` is falsified with a replayed trace that gives it), P reading the
// node's variables (b) and constants (lo). A value of a datatype is read canonically:
// `d.b = 0` holds of a C1 whatever the imported node gives for its other fields.
TEST(AnyValues, AreImportedNodesThatGuaranteeTheirCondition) {
  const std::string text =
      "const lo: int = 3;\n"
      "datatype D = C1 (a: int) | C2 (b: int);\n"
      "node main(a: int) returns (y, z: int; d: D);\n"
      "var b: int;\n"
      "let\n"
      "  b = a mod 100;\n"
      "  y = any { x: int | x > lo and x < 10 };\n"
      "  z = any { x: int | b <= x and x <= b + 5 };\n"
      "  d = any { v: D | C1?(v) };\n"
      "  check \"y4\" y >= 4;\n"
      "  check \"y9\" y < 9;\n"
      "  check \"z\" b <= z and z <= b + 5;\n"
      "  check \"zb\" z = b;\n"
      "  check \"d\" C1?(d) and d.b = 0;\n"
      "tel\n";
  EXPECT_EQ(verdicts(text, "main"), (std::map<std::string, std::string>{
                                        {"y4", "valid"}, {"y9", "falsified"}, {"z", "valid"}, {"zb", "falsified"}, {"d", "valid"}}));
  // Where it is not read: outside a node, or reading a local without a declared type.
  EXPECT_EQ(errors_of("const c: int = any { x: int | x > 0 };\n"), std::vector<std::string>{"1:16 syntax.unsupported"});
  EXPECT_EQ(errors_of("node main(a: int) returns (y: int);\nlet\n  t = a + 1;\n  y = any { x: int | x > t };\ntel\n"),
            std::vector<std::string>{"4:7 syntax.unsupported"});
}
