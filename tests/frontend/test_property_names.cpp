// Named properties: `check "P1" e;`, `guarantee "P1" e;`, Kind 2's `--%PROPERTY "P1" e;`
// and `(*%PROPERTY "P1" e; *)`, JKind's `--!PROPERTY "P1" : e;`: the name is read by the
// lexer and parser, printed back, kept by elaboration next to the property's text; an
// empty or repeated name and an unterminated string are located errors.
#include <gtest/gtest.h>

#include "core/normalize.hpp"
#include "test_util.hpp"

using namespace rml;

namespace {

std::unique_ptr<test::Parsed> parse(const std::string &text) { return test::parse_text(text); }

// (name, text of the condition, "LINE:COL" of the name) of each property of the first node.
std::vector<std::tuple<std::string, std::string, std::string>> properties_of(const Program &prog) {
  std::vector<std::tuple<std::string, std::string, std::string>> out;
  for (auto &a : std::get<NodeDecl>(prog.decls.at(0)).assumptions) {
    if (!a.property) continue;
    std::string at;
    if (a.name_span.valid()) {
      auto [l, c] = a.name_span.file->line_col(a.name_span.begin);
      at = std::to_string(l) + ":" + std::to_string(c);
    }
    out.emplace_back(a.name, core::property_text(a.cond->span), at);
  }
  return out;
}

const std::string kHeader = "node sat(x: int) returns (y: int);\nlet\n  y = if x > 5 then 5 else x;\n";

}  // namespace

// Every spelling gives the property its name, located at the string; the text is the
// condition alone, whatever comes between.
TEST(PropertyNames, EverySpellingIsRead) {
  auto p = parse(kHeader +
                 "  check \"c1\" y <= 5;\n"                 // line 4
                 "  guarantee \"g 1\" y >= 0;\n"            // line 5
                 "  --%PROPERTY \"k2 line\" y <> 7;\n"      // line 6
                 "  (*%PROPERTY \"k2 block\" y <> 8; *)\n"  // line 7
                 "  /*%PROPERTY \"jk block\" y <> 9; */\n"  // line 8
                 "  --!PROPERTY \"jk:line\" : y <> 10;\n"   // line 9
                 "  /*!PROPERTY \"jk bang\": y <> 11; */\n" // line 10
                 "  check y <> 12;\n"                       // line 11: unnamed
                 "  --%PROPERTY y <> 13;\n"
                 "  --!PROPERTY : y <> 14;\n"
                 "tel\n");
  ASSERT_FALSE(p->diags.has_errors()) << render_all(p->diags);
  using T = std::tuple<std::string, std::string, std::string>;
  std::vector<T> want = {
      T{"c1", "y <= 5", "4:9"},         T{"g 1", "y >= 0", "5:13"},      T{"k2 line", "y <> 7", "6:15"},
      T{"k2 block", "y <> 8", "7:15"},  T{"jk block", "y <> 9", "8:15"}, T{"jk:line", "y <> 10", "9:15"},
      T{"jk bang", "y <> 11", "10:15"}, T{"", "y <> 12", ""},            T{"", "y <> 13", ""},
      T{"", "y <> 14", ""}};
  EXPECT_EQ(properties_of(p->prog), want);
  // `check` keeps being a name where it cannot start a property.
  auto q = parse("node f(x: int) returns (check: int);\nlet\n  check = x;\n  check \"x\" check >= 0;\ntel\n");
  ASSERT_FALSE(q->diags.has_errors()) << render_all(q->diags);
  EXPECT_EQ(std::get<0>(properties_of(q->prog).at(0)), "x");
}

// The canonical print writes `check "name" e;` for every spelling, and reads back equal;
// a different name is a different program (ast_equal compares names).
TEST(PropertyNames, PrintedAndReadBack) {
  auto p = parse(kHeader + "  --%PROPERTY \"k2\" y <> 7;\n  guarantee \"g\" y >= 0;\n  check y <= 5;\ntel\n");
  ASSERT_FALSE(p->diags.has_errors()) << render_all(p->diags);
  std::string printed = print_program(p->prog);
  EXPECT_NE(printed.find("  check \"k2\" y <> 7;\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("  guarantee \"g\" y >= 0;\n"), std::string::npos) << printed;
  EXPECT_NE(printed.find("  check y <= 5;\n"), std::string::npos) << printed;
  auto q = parse(printed);
  ASSERT_FALSE(q->diags.has_errors()) << render_all(q->diags);
  EXPECT_TRUE(ast_equal(p->prog, q->prog));
  auto renamed = parse(kHeader + "  --%PROPERTY \"k3\" y <> 7;\n  guarantee \"g\" y >= 0;\n  check y <= 5;\ntel\n");
  EXPECT_FALSE(ast_equal(p->prog, renamed->prog));
  auto unnamed = parse(kHeader + "  --%PROPERTY y <> 7;\n  guarantee \"g\" y >= 0;\n  check y <= 5;\ntel\n");
  EXPECT_FALSE(ast_equal(p->prog, unnamed->prog));
  // rml fmt keeps the name (it used to print a named pragma as `check e;`).
  std::string formatted = format_source(p->prog, *p->file);
  EXPECT_NE(formatted.find("check \"k2\" y <> 7;"), std::string::npos) << formatted;
}

// Elaboration keeps the name next to the text; the property's span finds it again
// (rml-check's results carry that span).
TEST(PropertyNames, ElaborationKeepsTheNameNextToTheText) {
  auto r = test::check_text(kHeader + "  --%PROPERTY \"bounded\" y <= 5;\n  check y >= 0;\ntel\n");
  ASSERT_TRUE(r->checked_ok) << test::diag_text(*r);
  core::Program prog = core::elaborate(r->checked, "sat");
  ASSERT_EQ(prog.properties.size(), 2u);
  EXPECT_EQ(prog.properties[0].name, "bounded");
  EXPECT_EQ(prog.properties[0].text, "y <= 5");
  EXPECT_EQ(prog.properties[1].name, "");
  EXPECT_EQ(prog.properties[1].text, "y >= 0");
  EXPECT_EQ(core::property_at(prog, prog.properties[0].span), &prog.properties[0]);
  EXPECT_EQ(core::property_at(prog, prog.properties[1].span), &prog.properties[1]);
  EXPECT_EQ(core::property_at(prog, Span{}), nullptr);
}

// An empty name is an error at the string; two properties of one node with one name are
// an error at the second, with a note at the first, whatever their spellings; the same
// name in two nodes is fine.
TEST(PropertyNames, EmptyAndRepeatedNamesAreLocatedErrors) {
  auto r = test::check_text(kHeader + "  check \"\" y <= 5;\ntel\n");
  EXPECT_EQ(test::errors_of(*r), std::vector<std::string>{"4:9 name.empty"}) << test::diag_text(*r);
  EXPECT_EQ(render(r->diags.all().at(0)),
            "test.rml:4:9: error[name.empty]: a property's name cannot be empty: write a name between the quotes, or "
            "leave the quotes out\n"
            " 4 |   check \"\" y <= 5;\n"
            "   |         ^~\n");
  auto d = test::check_text(kHeader + "  --%PROPERTY \"P1\" y <= 5;\n  check y >= 0;\n  guarantee \"P1\" y >= 1;\ntel\n");
  EXPECT_EQ(test::errors_of(*d), std::vector<std::string>{"6:13 name.duplicate"}) << test::diag_text(*d);
  EXPECT_EQ(render(d->diags.all().at(0)),
            "test.rml:6:13: error[name.duplicate]: two properties of 'sat' are named \"P1\": a property's name must be "
            "unique in its node\n"
            " 6 |   guarantee \"P1\" y >= 1;\n"
            "   |             ^~~~\n"
            "test.rml:4:15: note: the first property named so\n"
            " 4 |   --%PROPERTY \"P1\" y <= 5;\n"
            "   |               ^~~~\n");
  auto two = test::check_text(kHeader + "  check \"P1\" y <= 5;\ntel\n\nnode g(x: int) returns (y: int);\nlet\n  y = x;\n"
                                        "  check \"P1\" y = x;\ntel\n");
  EXPECT_TRUE(two->checked_ok) << test::diag_text(*two);
  // Names differ by case: two names.
  auto cased = test::check_text(kHeader + "  check \"p\" y <= 5;\n  check \"P\" y >= 0;\ntel\n");
  EXPECT_TRUE(cased->checked_ok) << test::diag_text(*cased);
}

// A string ends on its line: an unterminated one is a lexer error at its opening quote
// (never a crash), in a statement and in every pragma; so is a control character in it.
// A string where no name may stand is a parse error that names it.
TEST(PropertyNames, UnterminatedStringsAreLocatedLexerErrors) {
  for (const char *prop : {"  check \"P1 y <= 5;\n", "  --%PROPERTY \"P1 y <= 5;\n", "  --!PROPERTY \"P1 : y <= 5;\n",
                           "  guarantee \"P1\n y <= 5;\n"}) {
    auto r = test::check_text(kHeader + prop + "tel\n");
    auto errs = test::errors_of(*r);
    ASSERT_FALSE(errs.empty()) << prop;
    size_t col = std::string(prop).find('"') + 1;
    EXPECT_EQ(errs[0], "4:" + std::to_string(col) + " lex.string") << prop << test::diag_text(*r);
    EXPECT_NE(render(r->diags.all().at(0)).find("unterminated string: this '\"' has no closing '\"' on its line"),
              std::string::npos);
  }
  // In a block pragma the closer is on the rest of the line: both are said.
  auto b = test::check_text(kHeader + "  (*%PROPERTY \"P1 y <= 5; *)\ntel\n");
  EXPECT_EQ(test::errors_of(*b), (std::vector<std::string>{"4:15 lex.string", "4:3 lex.comment"})) << test::diag_text(*b);
  // At the end of the file, with nothing after the quote.
  auto e = test::check_text(kHeader + "  check \"");
  EXPECT_EQ(test::errors_of(*e), std::vector<std::string>{"4:9 lex.string"}) << test::diag_text(*e);
  auto c = test::check_text(kHeader + "  check \"P\x01\" y <= 5;\ntel\n");
  EXPECT_EQ(test::errors_of(*c), std::vector<std::string>{"4:11 lex.string"}) << test::diag_text(*c);
  auto s = test::check_text("node f(x: int) returns (y: int);\nlet\n  y = \"x\";\ntel\n");
  EXPECT_EQ(test::errors_of(*s), std::vector<std::string>{"3:7 parse.expected"}) << test::diag_text(*s);
  EXPECT_NE(test::diag_text(*s).find("found string \"x\""), std::string::npos) << test::diag_text(*s);
}
