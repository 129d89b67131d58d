// Helpers shared by the front-end tests.
#pragma once
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "sema/frontend.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"
#include "driver/expectations.hpp"

namespace rml::test {

inline std::string source_dir() { return RML_SOURCE_DIR; }

inline std::vector<std::string> rml_files(const std::string &rel) {
  std::vector<std::string> out;
  for (auto &e : std::filesystem::recursive_directory_iterator(source_dir() + "/" + rel))
    if (e.is_regular_file() && e.path().extension() == ".rml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

// A text parsed alone (no front end after the parser), with the file its spans point into.
struct Parsed {
  std::unique_ptr<SourceFile> file;
  Program prog;
  Diagnostics diags;
};
inline std::unique_ptr<Parsed> parse_text(const std::string &text, const std::string &path = "p.lus") {
  auto p = std::make_unique<Parsed>();
  p->file = std::make_unique<SourceFile>(path, text);
  p->prog = parse_program(*p->file, p->diags);
  return p;
}

// Runs the whole front end (prelude included) on a text.
inline std::unique_ptr<FrontendResult> check_text(const std::string &text) { return run_frontend("test.rml", text); }

// "LINE:COL RULE" of every error in the user's file.
// Every diagnostic of a front-end run, rendered, for failure messages.
inline std::string diag_text(const FrontendResult &r) { return render_all(r.diags); }

inline std::vector<std::string> errors_of(const FrontendResult &r) {
  std::vector<std::string> out;
  for (auto &d : r.diags.all()) {
    if (d.severity != Severity::Error) continue;
    auto [l, c] = d.span.valid() ? d.span.file->line_col(d.span.begin) : std::pair<uint32_t, uint32_t>{0, 0};
    out.push_back(std::to_string(l) + ":" + std::to_string(c) + " " + d.rule);
  }
  return out;
}

// Parses one expression; returns its canonical print, or "<error>".
inline std::string reprint(const std::string &text) {
  SourceFile f("e.rml", text);
  Diagnostics d;
  auto e = parse_expression(f, d);
  if (!e || d.has_errors()) return "<error>";
  return print_expr(*e);
}

// The front end reports exactly the errors a file's `// expect` header names.
inline void expect_header_matches(const std::string &path, bool require_errors) {
  std::string err;
  auto text = read_file(path, err);
  ASSERT_TRUE(text) << err;
  Expectations ex = parse_expectations(*text);
  ASSERT_TRUE(ex.has_header) << "missing '// expect' header";
  if (require_errors) {
    ASSERT_FALSE(ex.errors.empty()) << "a malformed-program test must expect at least one error";
  }
  auto r = run_frontend(path, *text);
  ExpectationCheck c = compare(ex, *r);
  std::string detail;
  for (auto &m : c.missing) detail += "  missing: " + m.str() + "\n";
  for (auto &u : c.unexpected) detail += "  unexpected: " + u.str() + "\n";
  EXPECT_TRUE(c.pass) << detail << render_all(r->diags);
}

}  // namespace rml::test
