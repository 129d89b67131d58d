// Property tests of the printer/parser pair (grammar.md: "parse(print(p)) = p, tested").
// Random well-formed surface ASTs come from frontend/ast_gen.hpp.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdlib>
#include <string>

#include "frontend/ast_gen.hpp"
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"
#include "syntax/source.hpp"

namespace {

using rml::testgen::GenExpr;
using rml::testgen::GenProgram;

// RapidCheck runs 100 cases per property unless RC_PARAMS says otherwise. These
// properties are cheap, so run 1000 by default. RapidCheck reads RC_PARAMS once, lazily,
// when the first property of the process runs (after static initialisation), so adding
// `max_success` here works; an explicit max_success in the environment still wins, and
// other RC_PARAMS keys (seed, verbose_progress, ...) are kept. Note: the configuration is
// process-wide, so every RapidCheck property linked into this binary gets 1000 cases.
const bool rc_params_set = [] {
  const char *old = std::getenv("RC_PARAMS");
  std::string params = old ? old : "";
  if (params.find("max_success") == std::string::npos) {
    if (!params.empty()) params += ' ';
    params += "max_success=1000";
    setenv("RC_PARAMS", params.c_str(), 1);
  }
  return true;
}();

// Expressions up to this generator depth (AST height <= depth + 2, far below the
// parser's limit of 512 and its nesting limit of 256).
constexpr int kExprDepth = 8;

const char *kind_name(rml::ExprKind k) {
  switch (k) {
    case rml::ExprKind::IntLit: return "IntLit";
    case rml::ExprKind::RealLit: return "RealLit";
    case rml::ExprKind::BoolLit: return "BoolLit";
    case rml::ExprKind::Var: return "Var";
    case rml::ExprKind::Unary: return "Unary";
    case rml::ExprKind::Binary: return "Binary";
    case rml::ExprKind::When: return "When";
    case rml::ExprKind::Merge: return "Merge";
    case rml::ExprKind::If: return "If";
    case rml::ExprKind::Let: return "Let";
    case rml::ExprKind::Call: return "Call";
    case rml::ExprKind::Index: return "Index";
    case rml::ExprKind::Tuple: return "Tuple";
    case rml::ExprKind::Array: return "Array";
    case rml::ExprKind::Lambda: return "Lambda";
    case rml::ExprKind::Reset: return "Reset";
    case rml::ExprKind::Field: return "Field";
    case rml::ExprKind::Record: return "Record";
    case rml::ExprKind::Update: return "Update";
  }
  return "?";
}

struct Parsed {
  std::unique_ptr<rml::SourceFile> file;  // spans point into it: keep it alive
  rml::Diagnostics diags;
};

rml::ExprPtr reparse_expr(const std::string &text, Parsed &out) {
  out.file = std::make_unique<rml::SourceFile>("<roundtrip>", text);
  return rml::parse_expression(*out.file, out.diags);
}

rml::Program reparse_program(const std::string &text, Parsed &out) {
  out.file = std::make_unique<rml::SourceFile>("<roundtrip>", text);
  return rml::parse_program(*out.file, out.diags);
}

}  // namespace

// Law: for every well-formed expression e,
//   parse_expression(print_expr(e)) succeeds without diagnostics and is ast_equal to e.
RC_GTEST_PROP(RoundTrip, PrintThenParseIsIdentityOnExpressions, ()) {
  const GenExpr g = *rml::testgen::genExpr(kExprDepth);
  const std::string text = rml::print_expr(*g.e);
  RC_LOG() << "printed: " << text << "\n";
  RC_TAG(kind_name(g.e->kind));
  Parsed p;
  auto back = reparse_expr(text, p);
  if (!p.diags.all().empty()) RC_FAIL("diagnostics on re-parse:\n" + rml::render_all(p.diags));
  if (!back) RC_FAIL("re-parse returned no expression");
  if (!rml::ast_equal(*back, *g.e)) RC_FAIL("re-parsed AST differs; it prints as: " + rml::print_expr(*back));
}

// Law: for every well-formed program p,
//   parse_program(print_program(p)) succeeds without diagnostics and is ast_equal to p.
RC_GTEST_PROP(RoundTrip, PrintThenParseIsIdentityOnPrograms, ()) {
  const GenProgram g = *rml::testgen::genProgram();
  const std::string text = rml::print_program(*g.p);
  RC_LOG() << "printed:\n" << text << "\n";
  RC_CLASSIFY(g.p->decls.empty(), "empty program");
  Parsed p;
  auto back = reparse_program(text, p);
  if (!p.diags.all().empty()) RC_FAIL("diagnostics on re-parse:\n" + rml::render_all(p.diags));
  if (!rml::ast_equal(back, *g.p)) RC_FAIL("re-parsed program differs; it prints as:\n" + rml::print_program(back));
}

// Law (idempotence of printing): print_expr(parse_expression(print_expr(e))) == print_expr(e),
// textually.
RC_GTEST_PROP(RoundTrip, PrintingIsIdempotentOnExpressions, ()) {
  const GenExpr g = *rml::testgen::genExpr(kExprDepth);
  const std::string text = rml::print_expr(*g.e);
  RC_LOG() << "printed: " << text << "\n";
  Parsed p;
  auto back = reparse_expr(text, p);
  if (!back) RC_FAIL("re-parse failed:\n" + rml::render_all(p.diags));
  RC_ASSERT(rml::print_expr(*back) == text);
}

// Law (idempotence of printing): print_program(parse_program(print_program(p))) ==
// print_program(p), textually (the header and `let ... tel` style are preserved).
RC_GTEST_PROP(RoundTrip, PrintingIsIdempotentOnPrograms, ()) {
  const GenProgram g = *rml::testgen::genProgram();
  const std::string text = rml::print_program(*g.p);
  RC_LOG() << "printed:\n" << text << "\n";
  Parsed p;
  auto back = reparse_program(text, p);
  RC_ASSERT(rml::print_program(back) == text);
}

// Law (the generators' contract): generated ASTs are clonable and a clone is ast_equal
// to its original, so ast_equal is reflexive on them.
RC_GTEST_PROP(RoundTrip, GeneratedAstsAreEqualToTheirClones, ()) {
  const GenExpr g = *rml::testgen::genExpr(kExprDepth);
  RC_ASSERT(rml::ast_equal(*g.clone(), *g.e));
  const GenProgram q = *rml::testgen::genProgram();
  RC_ASSERT(rml::ast_equal(rml::testgen::program_clone(*q.p), *q.p));
}

// Negative control: the properties above CAN fail. ast_equal distinguishes different
// trees, and a printer that dropped needed parentheses would be caught, because the
// mis-printed text re-parses to a different AST.
TEST(RoundTrip, NegativeControlAstEqualIsNotTrivial) {
  using rml::Op;
  // a - (b - c)
  auto right = rml::mk_binary(Op::Sub, rml::mk_var("a"), rml::mk_binary(Op::Sub, rml::mk_var("b"), rml::mk_var("c")));
  // (a - b) - c
  auto left = rml::mk_binary(Op::Sub, rml::mk_binary(Op::Sub, rml::mk_var("a"), rml::mk_var("b")), rml::mk_var("c"));
  EXPECT_FALSE(rml::ast_equal(*right, *left));
  EXPECT_NE(rml::print_expr(*right), rml::print_expr(*left));
  EXPECT_EQ(rml::print_expr(*right), "a - (b - c)");

  // A deliberately mis-parenthesised print of a - (b - c) reads back as (a - b) - c.
  Parsed p;
  auto wrong = reparse_expr("a - b - c", p);
  ASSERT_NE(wrong, nullptr);
  EXPECT_TRUE(p.diags.all().empty());
  EXPECT_FALSE(rml::ast_equal(*wrong, *right));
  EXPECT_TRUE(rml::ast_equal(*wrong, *left));

  // Leaf attributes matter: literals, names, `when` polarity, ints vs reals.
  EXPECT_FALSE(rml::ast_equal(*rml::mk_int(1), *rml::mk_int(2)));
  EXPECT_FALSE(rml::ast_equal(*rml::mk_int(1), *rml::mk_real(1.0)));
  EXPECT_FALSE(rml::ast_equal(*rml::mk_real(0.1), *rml::mk_real(std::nextafter(0.1, 1.0))));
  EXPECT_FALSE(rml::ast_equal(*rml::mk_var("x"), *rml::mk_var("y")));
  Parsed q1, q2;
  auto w1 = reparse_expr("x when c", q1);
  auto w2 = reparse_expr("x when not c", q2);
  ASSERT_NE(w1, nullptr);
  ASSERT_NE(w2, nullptr);
  EXPECT_FALSE(rml::ast_equal(*w1, *w2));
  // Negative literals are Neg(IntLit), never IntLit < 0.
  Parsed q3;
  auto neg = reparse_expr("-5", q3);
  ASSERT_NE(neg, nullptr);
  EXPECT_FALSE(rml::ast_equal(*neg, *rml::mk_int(-5)));
  EXPECT_TRUE(rml::ast_equal(*neg, *rml::mk_unary(Op::Neg, rml::mk_int(5))));

  // Programs: a different equation right-hand side makes the programs differ.
  Parsed r1, r2, r3;
  auto p1 = reparse_program("node f(x: int) -> (y: int)\n  y = x + 1;\n", r1);
  auto p2 = reparse_program("node f(x: int) returns (y: int);\nlet\n  y = x + 2;\ntel\n", r2);
  auto p3 = reparse_program("node f(x: int) returns (y: int);\nlet\n  y = x + 1;\ntel\n", r3);
  EXPECT_FALSE(rml::ast_equal(p1, p2));
  EXPECT_TRUE(rml::ast_equal(p1, p3));  // the header/body style is not compared
}

// ---- Known printer bugs found by the properties above (the generator steers around them:
// kAvoidKnownPrinterBugs in ast_gen.cpp). These tests state the law on the shrunk
// counterexamples; they are disabled until src/syntax/printer.cpp is fixed (run them with
// --gtest_also_run_disabled_tests).

namespace {
rml::ExprPtr merge3(rml::ExprPtr c, rml::ExprPtr a, rml::ExprPtr b) {
  auto e = std::make_unique<rml::Expr>(rml::ExprKind::Merge);
  e->args.push_back(std::move(c));
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}
rml::ExprPtr array_of(std::vector<rml::ExprPtr> elems) {
  auto e = std::make_unique<rml::Expr>(rml::ExprKind::Array);
  e->args = std::move(elems);
  return e;
}
void expect_round_trip(const rml::Expr &e) {
  const std::string text = rml::print_expr(e);
  Parsed p;
  auto back = reparse_expr(text, p);
  EXPECT_TRUE(p.diags.all().empty()) << "printed: " << text << "\n" << rml::render_all(p.diags);
  ASSERT_NE(back, nullptr) << "printed: " << text;
  EXPECT_TRUE(rml::ast_equal(*back, e)) << "printed: " << text << "\nre-parsed: " << rml::print_expr(*back);
}
}  // namespace

// Regression (found by the properties): a merge branch that starts with '[' must be
// parenthesised, or the parser takes the '[' as an index of the previous operand
// (Merge(x, false, []) once printed as "merge x false []").
TEST(RoundTrip, MergeBranchArrayLiteral) {
  std::vector<rml::ExprPtr> none;
  expect_round_trip(*merge3(rml::mk_var("x"), rml::mk_bool(false), array_of(std::move(none))));
  std::vector<rml::ExprPtr> one;
  one.push_back(rml::mk_int(1));
  expect_round_trip(*merge3(rml::mk_var("c"), array_of(std::move(one)), rml::mk_var("y")));
}

// Regression (found by the properties): a first merge branch `true -> a` must not print
// as the Lustre clause "(true -> a)": Merge(c, true -> a, false -> b) once printed as
// "merge c (true -> a) (false -> b)" and silently re-parsed as Merge(c, a, b).
TEST(RoundTrip, MergeBranchLooksLikeClause) {
  using rml::Op;
  expect_round_trip(*merge3(rml::mk_var("c"), rml::mk_binary(Op::Arrow, rml::mk_bool(true), rml::mk_var("a")),
                            rml::mk_binary(Op::Arrow, rml::mk_bool(false), rml::mk_var("b"))));
  auto idx = std::make_unique<rml::Expr>(rml::ExprKind::Index);
  idx->args.push_back(rml::mk_binary(Op::Arrow, rml::mk_bool(false), rml::mk_int(0)));
  idx->args.push_back(rml::mk_int(0));
  expect_round_trip(*merge3(rml::mk_var("x"), std::move(idx), rml::mk_int(0)));
}
