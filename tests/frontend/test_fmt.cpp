// `rml fmt` keeps comments (format_source, src/syntax/printer.hpp): golden outputs for
// representative files, and three laws checked on random programs with comments
// sprinkled at token boundaries (ast_gen.hpp genCommentedProgram), each with a negative
// control showing that its checker catches a formatter that breaks it.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "frontend/ast_gen.hpp"
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"
#include "syntax/source.hpp"

namespace {

// Formats `text` as `rml fmt` does; "" with `error` set when the text does not parse.
std::string fmt(const std::string &text, std::string *error = nullptr) {
  rml::SourceFile file("<fmt>", text);
  rml::Diagnostics diags;
  rml::Program p = rml::parse_program(file, diags);
  if (diags.has_errors()) {
    if (error) *error = rml::render_all(diags);
    return "";
  }
  return rml::format_source(p, file);
}

// The comments of a text, as format_source writes them, in source order.
std::vector<std::string> comments_of(const std::string &text) {
  rml::SourceFile file("<comments>", text);
  rml::Diagnostics diags;
  std::vector<rml::Comment> cs;
  rml::lex(file, diags, &cs);
  std::vector<std::string> out;
  for (auto &c : cs) out.push_back(rml::comment_text(file, c));
  return out;
}

using Formatter = std::function<std::string(const std::string &)>;
std::string real_fmt(const std::string &t) { return fmt(t); }

// The three laws, as checkers returning "" when the law holds on `input`, else why not.
// Law 1 (same program): parse(f(x)) has no diagnostics and is ast_equal to parse(x).
std::string same_program(const std::string &input, const Formatter &f) {
  rml::SourceFile a("<in>", input), b("<out>", f(input));
  rml::Diagnostics da, db;
  rml::Program pa = rml::parse_program(a, da), pb = rml::parse_program(b, db);
  if (da.has_errors()) return "input does not parse:\n" + rml::render_all(da);
  if (!db.all().empty()) return "output does not parse:\n" + rml::render_all(db) + "\n" + b.text;
  if (!rml::ast_equal(pa, pb)) return "output is another program:\n" + b.text;
  return "";
}
// Law 2 (idempotence): f(f(x)) == f(x).
std::string idempotent(const std::string &input, const Formatter &f) {
  std::string once = f(input), twice = f(once);
  if (once != twice) return "fmt(fmt(x)) != fmt(x):\n--- once\n" + once + "--- twice\n" + twice;
  return "";
}
// Law 3 (comments kept): the comments of f(x) are those of x, same texts, same order.
std::string keeps_comments(const std::string &input, const Formatter &f) {
  std::string out = f(input);
  auto a = comments_of(input), b = comments_of(out);
  if (a != b) {
    std::string why = "comments differ: " + std::to_string(a.size()) + " in, " + std::to_string(b.size()) + " out\n";
    for (size_t k = 0; k < a.size() || k < b.size(); ++k)
      why += (k < a.size() ? a[k] : "<none>") + "  |  " + (k < b.size() ? b[k] : "<none>") + "\n";
    return why + "output:\n" + out;
  }
  return "";
}

}  // namespace

// ---- golden outputs ----

TEST(Fmt, GoldenHeadersTrailingBetweenAndBlockComments) {
  const std::string in =
      "// main: f\n"
      "// expect: ok\n"
      "\n"
      "-- a Lustre comment\n"
      "node f(x: int;  -- input\n"
      "       y: int) returns (z: int);\n"
      "var t : int; (* local *)\n"
      "    u, v : int;\n"
      "let\n"
      "  -- first\n"
      "  t = x + /* inner */ y;   // trailing   \n"
      "\n"
      "\n"
      "  z = t ->\n"
      "     pre z; -- lustre trailing\n"
      "  u = 1; v = 2; /* two */\n"
      "  assume always x > 0;\n"
      "  /* before tel */\n"
      "tel -- end\n"
      "(* between *)\n"
      "fun g(a: real) : real = -- header\n"
      "  a * a;\n"
      "const c = 3; // c\n"
      "// eof comment\n";
  const std::string want =
      "// main: f\n"
      "// expect: ok\n"
      "\n"
      "-- a Lustre comment\n"
      "-- input\n"                       // inside the header: moved above it
      "node f(x: int, y: int) returns (z: int);\n"
      "var\n"
      "  t: int; (* local *)\n"
      "  u: int;\n"
      "  v: int;\n"
      "let\n"
      "  -- first\n"
      "  /* inner */\n"                  // inside the equation: moved above it
      "  t = x + y; // trailing\n"       // trailing blanks of a line comment dropped
      "\n"                               // two empty lines count as one
      "  z = t -> pre z; -- lustre trailing\n"
      "  u = 1;\n"
      "  v = 2; /* two */\n"
      "  assume always x > 0;\n"
      "  /* before tel */\n"
      "tel -- end\n"
      "\n"                               // declarations: one empty line between
      "(* between *)\n"
      "fun g(a: real) : real = -- header\n"
      "  a * a;\n"
      "\n"
      "const c = 3; // c\n"
      "\n"
      "// eof comment\n";
  EXPECT_EQ(fmt(in), want);
  EXPECT_EQ(fmt(want), want);
}

TEST(Fmt, GoldenCorpusHeaderAndPaperStyle) {
  const std::string in =
      "// main: counter\n"
      "// expect: clocks=valid causality=valid\n"
      "// A counter (paper, fig. 7).\n"
      "node counter(tick: bool) -> (n: int)\n"
      "  n = 0 fby (n + 1);   (* counts ticks *)\n"
      "\n"
      "\n"
      "\n"
      "// the second node\n"
      "\n"
      "node main(x: int) -> (y: int) y = x;\n";
  const std::string want =
      "// main: counter\n"
      "// expect: clocks=valid causality=valid\n"
      "// A counter (paper, fig. 7).\n"
      "node counter(tick: bool) -> (n: int)\n"
      "  n = 0 fby (n + 1); (* counts ticks *)\n"
      "\n"
      "// the second node\n"
      "\n"
      "node main(x: int) -> (y: int)\n"
      "  y = x;\n";
  EXPECT_EQ(fmt(in), want);
  EXPECT_EQ(fmt(want), want);
}

TEST(Fmt, GoldenVarWithoutLetAndStatementOrder) {
  // No `let` in the source: the printer adds `let ... tel`; an assumption written before
  // an equation stays before it (statements keep their source order).
  const std::string in =
      "node f(x: int) -> (y: int)\n"
      "var t: int;\n"
      "// body\n"
      "assume always x > 0; // env\n"
      "t = x; y = t;\n"
      "// after\n";
  const std::string want =
      "node f(x: int) -> (y: int)\n"
      "var\n"
      "  t: int;\n"
      "let\n"
      "  // body\n"
      "  assume always x > 0; // env\n"
      "  t = x;\n"
      "  y = t;\n"
      "tel\n"
      "\n"
      "// after\n";
  EXPECT_EQ(fmt(in), want);
  EXPECT_EQ(fmt(want), want);
}

// Kind 2's `transparent` and `opaque` (which rml reads and ignores: it always reads the
// body) are kept, before `imported` too; as names elsewhere they stay names.
TEST(Fmt, GoldenKind2NodeModifiers) {
  const std::string in =
      "transparent function f(x: int) returns (y: int);\nlet y = x; tel\n"
      "opaque imported node g(x: int) returns (y: int);\n"
      "node h(opaque: int) returns (transparent: int);\nlet transparent = f(opaque); tel\n";
  const std::string want =
      "transparent function f(x: int) returns (y: int);\n"
      "let\n"
      "  y = x;\n"
      "tel\n"
      "\n"
      "opaque imported node g(x: int) returns (y: int);\n"
      "\n"
      "node h(opaque: int) returns (transparent: int);\n"
      "let\n"
      "  transparent = f(opaque);\n"
      "tel\n";
  EXPECT_EQ(fmt(in), want);
  EXPECT_EQ(fmt(want), want);
}

TEST(Fmt, GoldenMultiLineBlockCommentsAndCrlf) {
  const std::string in =
      "/* a header\n"
      "   on two lines */\n"
      "const n = 2; /* trailing\n"
      "   block */\n"
      "const m = n;\r\n"
      "-- crlf comment\r\n";
  const std::string want =
      "/* a header\n"
      "   on two lines */\n"
      "const n = 2; /* trailing\n"
      "   block */\n"
      "\n"
      "const m = n;\n"
      "\n"
      "-- crlf comment\n";
  EXPECT_EQ(fmt(in), want);
  EXPECT_EQ(fmt(want), want);
}

TEST(Fmt, GoldenSourceParenthesesAreKept) {
  // Parentheses written in the source stay (beyond those the printer needs); a call's
  // own parentheses are not doubled; redundant nested ones collapse to one pair.
  const std::string in =
      "node f(s: real[3], smin: real, x: int, c: bool) -> (z: bool, o: int, p: int, q: int)\n"
      "  z = (s[0] = smin) and not (c);\n"
      "  o = if (true fby c) then x else (0 fby x);\n"
      "  p = abs(x) + abs((x)) + ((x + 1)) * 2 + ((-x));\n"
      "  q = merge c (x when c) ((pre x) when not c);\n";
  const std::string want =
      "node f(s: real[3], smin: real, x: int, c: bool) -> (z: bool, o: int, p: int, q: int)\n"
      "  z = (s[0] = smin) and not (c);\n"
      "  o = if (true fby c) then x else (0 fby x);\n"
      "  p = abs(x) + abs((x)) + (x + 1) * 2 + (-x);\n"
      "  q = merge c (x when c) ((pre x) when not c);\n";
  EXPECT_EQ(fmt(in), want);
  EXPECT_EQ(fmt(want), want);
}

TEST(Fmt, GoldenCommentsOnlyAndEmpty) {
  EXPECT_EQ(fmt(""), "");
  EXPECT_EQ(fmt("\n\n"), "");
  EXPECT_EQ(fmt("\n// only\n\n\n(* me *)\n"), "// only\n\n(* me *)\n");
}

TEST(Fmt, WithoutCommentsItIsTheCanonicalPrint) {
  const std::string canonical =
      "const k: int = 3;\n"
      "\n"
      "node f(x: int) -> (y: int)\n"
      "  y = x + k;\n"
      "\n"
      "fun sq(a: real) : real =\n"
      "  a * a;\n";
  std::string error;
  rml::SourceFile file("<c>", canonical);
  rml::Diagnostics d;
  auto p = rml::parse_program(file, d);
  ASSERT_FALSE(d.has_errors()) << rml::render_all(d);
  EXPECT_EQ(rml::print_program(p), canonical);
  EXPECT_EQ(fmt(canonical, &error), canonical) << error;
  EXPECT_EQ(fmt("const k : int = 3; node f(x: int) -> (y: int) y = x+k; fun sq(a: real): real = a*a;"),
            canonical);
}

// ---- laws on random programs with comments ----

// Law 1: the formatted text parses, without diagnostics, to the same program.
RC_GTEST_PROP(Fmt, FormattedTextIsTheSameProgram, ()) {
  const auto g = *rml::testgen::genCommentedProgram();
  RC_LOG() << "input:\n" << g.text << "\n";
  RC_CLASSIFY(g.comments == 0, "no comment");
  // The generator's contract: the commented text is the generated program.
  rml::SourceFile file("<in>", g.text);
  rml::Diagnostics d;
  auto p = rml::parse_program(file, d);
  if (d.has_errors()) RC_FAIL("generated text does not parse:\n" + rml::render_all(d));
  RC_ASSERT(rml::ast_equal(p, *g.program.p));
  std::string why = same_program(g.text, real_fmt);
  if (!why.empty()) RC_FAIL(why);
}

// Law 2: formatting is idempotent, fmt(fmt(x)) == fmt(x).
RC_GTEST_PROP(Fmt, FormattingIsIdempotent, ()) {
  const auto g = *rml::testgen::genCommentedProgram();
  RC_LOG() << "input:\n" << g.text << "\n";
  std::string why = idempotent(g.text, real_fmt);
  if (!why.empty()) RC_FAIL(why);
}

// Law 3: every comment is kept, with its text, in its order (the generator tags comments
// c1, c2, ... in source order, so a reordering shows).
RC_GTEST_PROP(Fmt, CommentsAreKeptInOrder, ()) {
  const auto g = *rml::testgen::genCommentedProgram();
  RC_LOG() << "input:\n" << g.text << "\n";
  RC_ASSERT(comments_of(g.text).size() == static_cast<size_t>(g.comments));
  std::string why = keeps_comments(g.text, real_fmt);
  if (!why.empty()) RC_FAIL(why);
}

// Law 4: on a comment-free canonical print, formatting changes nothing.
RC_GTEST_PROP(Fmt, CanonicalPrintIsAFixedPoint, ()) {
  const auto g = *rml::testgen::genProgram();
  const std::string text = rml::print_program(*g.p);
  RC_LOG() << "printed:\n" << text << "\n";
  RC_ASSERT(fmt(text) == text);
}

// ---- negative controls: each checker above catches a formatter that breaks its law ----

namespace {
const std::string kSample =
    "// main: f\n"
    "node f(x: int) -> (y: int) // header\n"
    "  /* first */ y = x + 1; -- second\n";
}  // namespace

TEST(Fmt, NegativeControlCommentDroppingPrinterIsCaught) {
  // The old `rml fmt`: print_program drops every comment.
  Formatter dropping = [](const std::string &t) {
    rml::SourceFile file("<x>", t);
    rml::Diagnostics d;
    return rml::print_program(rml::parse_program(file, d));
  };
  EXPECT_NE(keeps_comments(kSample, dropping), "");
  EXPECT_EQ(same_program(kSample, dropping), "");  // it does keep the program
  EXPECT_EQ(keeps_comments(kSample, real_fmt), "");
}

TEST(Fmt, NegativeControlCommentReorderingIsCaught) {
  // Swaps the texts of the first two comments of the real output.
  Formatter swapping = [](const std::string &t) {
    std::string out = fmt(t);
    size_t a = out.find("/* first */"), b = out.find("-- second");
    if (a == std::string::npos || b == std::string::npos) return out;
    out.replace(b, 9, "/* first */");
    out.replace(a, 11, "-- second\n ");
    return out;
  };
  EXPECT_NE(keeps_comments(kSample, swapping), "");
  EXPECT_EQ(comments_of(kSample), (std::vector<std::string>{"// main: f", "// header", "/* first */", "-- second"}));
}

TEST(Fmt, NegativeControlNonIdempotentFormatterIsCaught) {
  Formatter growing = [](const std::string &t) { return fmt(t) + "\n// again\n"; };
  EXPECT_NE(idempotent(kSample, growing), "");
  EXPECT_EQ(idempotent(kSample, real_fmt), "");
}

TEST(Fmt, NegativeControlProgramChangingFormatterIsCaught) {
  Formatter changing = [](const std::string &t) {
    std::string out = fmt(t);
    out.replace(out.find("x + 1"), 5, "x - 1");
    return out;
  };
  EXPECT_NE(same_program(kSample, changing), "");
  Formatter unparsable = [](const std::string &t) { return fmt(t) + "node"; };
  EXPECT_NE(same_program(kSample, unparsable), "");
  EXPECT_EQ(same_program(kSample, real_fmt), "");
}
