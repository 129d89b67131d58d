// Scoping of global names between the prelude and the user's file (grammar.md §3, §6):
// - the user's global constants never capture the prelude's size variables or names;
// - a user declaration with a prelude name shadows it in the user's file (warning
//   name.shadows-prelude), while the prelude keeps calling its own;
// - in the user's file, a global constant named in a type denotes the constant.
// Results of `rml run` and `rml grad` are pinned to values computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>

#include "test_util.hpp"
#include "tools/commands.hpp"

namespace rml {
extern const char *const kPreludeSource;
}

using namespace rml;
using rml::test::check_text;
using rml::test::diag_text;
using rml::test::errors_of;

namespace {

// "LINE:COL RULE" of every warning in the user's file.
std::vector<std::string> warnings_of(const FrontendResult &r) {
  std::vector<std::string> out;
  for (auto &d : r.diags.all()) {
    if (d.severity != Severity::Warning) continue;
    auto [l, c] = d.span.file->line_col(d.span.begin);
    out.push_back(std::to_string(l) + ":" + std::to_string(c) + " " + d.rule);
  }
  return out;
}

// 1-based line of the first line of the prelude's text that starts with `prefix`.
uint32_t prelude_line(const std::string &prefix) {
  std::istringstream in(kPreludeSource);
  std::string line;
  for (uint32_t k = 1; std::getline(in, line); ++k)
    if (line.rfind(prefix, 0) == 0) return k;
  return 0;
}

// A file in the temporary folder, removed at the end of the test.
struct TempFile {
  std::string path;
  TempFile(const std::string &ext, const std::string &text) {
    static int n = 0;
    path = (std::filesystem::temp_directory_path() /
            ("rml_names_test_" + std::to_string(::getpid()) + "_" + std::to_string(++n) + ext))
               .string();
    std::ofstream(path) << text;
  }
  ~TempFile() { std::filesystem::remove(path); }
  TempFile(const TempFile &) = delete;
  TempFile &operator=(const TempFile &) = delete;
};

// `rml run FILE --main main --inputs TRACE --format csv`; returns (exit code, stdout).
std::pair<int, std::string> run_csv(const std::string &program, const std::string &trace,
                                    const std::string &backend = "reference") {
  TempFile f(".rml", program), t(".csv", trace);
  RunCmd c;
  c.file = f.path;
  c.inputs = t.path;
  c.main_node = "main";
  c.format = oracle::Format::Csv;
  c.backend = backend == "compiled" ? Backend::Compiled : Backend::Reference;
  std::ostringstream out, err;
  int rc = cmd_run(c, out, err);
  return {rc, out.str() + (rc == kOk ? "" : err.str())};
}

// The numbers in a text, in order.
std::vector<double> numbers_in(const std::string &text) {
  std::vector<double> out;
  static const std::regex num(R"(-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?)");
  for (auto it = std::sregex_iterator(text.begin(), text.end(), num); it != std::sregex_iterator(); ++it)
    out.push_back(std::stod(it->str()));
  return out;
}

// `rml grad FILE --fun F --at ARGS` on both backends: the numbers of the JSON output
// (value, then the gradient of each real parameter), which must agree.
std::vector<double> grad_at(const std::string &program, const std::string &fun, const std::string &args) {
  TempFile f(".rml", program), a(".json", args);
  std::vector<double> first;
  for (const char *backend : {"compiled", "reference"}) {
    GradCmd c;
    c.file = f.path;
    c.fun = fun;
    c.at = a.path;
    c.backend = std::string(backend) == "compiled" ? Backend::Compiled : Backend::Reference;
    std::ostringstream out, err;
    int rc = cmd_grad(c, out, err);
    EXPECT_EQ(rc, kOk) << backend << ": " << err.str();
    std::vector<double> v = numbers_in(out.str());
    if (first.empty()) first = v;
    else EXPECT_EQ(v, first) << backend << ": " << out.str();
  }
  return first;
}

void expect_near_all(const std::vector<double> &got, const std::vector<double> &want) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t k = 0; k < want.size(); ++k) EXPECT_NEAR(got[k], want[k], 1e-12) << "number " << k;
}

}  // namespace

// ------------------------------------------------------------------ user constants

TEST(Names, UserConstantNamedLikeAPreludeSizeVariableIsAccepted) {
  // The issue's program: every prelude declaration with a size variable n used to be
  // checked with n = 4 (errors inside <prelude>).
  for (const char *name : {"n", "m", "p", "q", "k", "s"}) {
    std::string c = std::string(name) == "s" ? "const s = [4];\n" : "const " + std::string(name) + " = 4;\n";
    auto r = check_text(c + "node acc(x: real[" + name + "]) returns (o: real[" + name + "]);\nlet\n  o = x;\ntel\n");
    EXPECT_TRUE(r->diags.all().empty()) << name << ":\n" << diag_text(*r);
  }
}

TEST(Names, UserConstantsNeverCaptureThePreludesNames) {
  // Constants named like the prelude's size/shape variables, parameters, let and lambda
  // binders and node variables, with every prelude declaration used at other sizes.
  auto r = check_text(
      "const n = 4; const m = 5; const p = 6; const q = 7; const k = 8; const s = [2, 3];\n"
      "const e = 10.0; const i = 1; const j = 2; const x = 3; const a = 4; const b = 5; const d = 0.5;\n"
      "const mx = 0.25; const seed = 9; const rows = 2; const cols = 3; const beaten = 0; const t = 1;\n"
      "const init = 2.0; const o = 3; const v = 4; const r = 5; const x2 = 6; const field = 7; const big = 8;\n"
      "node main(u: real[2], w: real[3], g: real[3, 2]) returns (o1: real; o2: real[3]; o3: real[3, 3]; o4: real[5];\n"
      "    o5: real[2]; o6: real; o7: real; o8: real[3]; o9: real[2, 3]; o10: real[3]; o11: real[2, 2]; o12: real[3, 2];\n"
      "    o13: real[2]);\n"
      "let\n"
      "  o1 = dot(u, u);\n"
      "  o2 = matvec(g, u);\n"
      "  o3 = matmul(g, tr(g));\n"
      "  o4 = concat(u, w);\n"
      "  o5 = softmax(u);\n"
      "  o6 = logsumexp(w) + mse(u, u);\n"
      "  o7 = maximum(w);\n"
      "  o8 = relu(w) + sigmoid(w) + mse_grad(w, w);\n"
      "  o9 = outer(u, w) + zeros([2, 3]) + ones([2, 3]) + glorot_uniform([2, 3]) + orthogonal([2, 3]);\n"
      "  o10 = param(w);\n"
      "  o11 = eye(2) + householder(eye(2), u);\n"
      "  o12 = g;\n"
      "  o13 = u;\n"
      "tel\n");
  EXPECT_TRUE(r->diags.all().empty()) << diag_text(*r);
}

TEST(Names, UserConstantsWithThePreludeRunInTheOracle) {
  // n = 2, m = 3, p = 1, q = 4. By hand, with x = [1, 2], a = [[1, 0], [0, 1], [1, 1]],
  // b = [[1, 2, 0, 1], [0, 1, 3, 1]], w = [7]:
  //   dot(x, x) = 1 + 4 = 5;  matvec(a, x) = [1, 2, 3];  matmul(a, b) = rows of b picked
  //   by a: [1, 2, 0, 1], [0, 1, 3, 1], their sum [1, 3, 3, 2];  concat(x, v) = [1, 2, 1, 2, 3];
  //   mse([1, 2, 3], [1, 2, 6]) = 9 / 3 = 3 (the prelude's n is 3 here, not the user's 2,
  //   which would give 4.5);  twice(x) = [2, 4];  concat(x, w) = [1, 2, 7].
  const std::string program =
      "const n = 2;\nconst m = 3;\nconst p = 1;\nconst q = 4;\n"
      "fun twice(x: real[n]) : real[n] = 2.0 * x;\n"
      "node acc(x: real[n]) returns (o: real[n]);\nlet\n  o = x;\ntel\n"
      "node main(x: real[n], a: real[m, n], b: real[n, q], w: real[p]) returns (o: real[n]; d: real; v: real[m];\n"
      "    c: real[m, q]; k: real[n + m]; e: real; t: real[n]; u: real[n + p]);\n"
      "let\n"
      "  o = acc(x);\n  d = dot(x, x);\n  v = matvec(a, x);\n  c = matmul(a, b);\n  k = concat(x, v);\n"
      "  e = mse(v, [1.0, 2.0, 6.0]);\n  t = twice(x);\n  u = concat(x, w);\n"
      "tel\n";
  const std::string trace =
      "x,a,b,w\n"
      "\"[1.0, 2.0]\",\"[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]\",\"[[1.0, 2.0, 0.0, 1.0], [0.0, 1.0, 3.0, 1.0]]\",\"[7.0]\"\n";
  const std::string want =
      "x,a,b,w,o,d,v,c,k,e,t,u\n"
      "\"[1.0, 2.0]\",\"[[1.0, 0.0], [0.0, 1.0], [1.0, 1.0]]\",\"[[1.0, 2.0, 0.0, 1.0], [0.0, 1.0, 3.0, 1.0]]\",[7.0],"
      "\"[1.0, 2.0]\",5.0,\"[1.0, 2.0, 3.0]\",\"[[1.0, 2.0, 0.0, 1.0], [0.0, 1.0, 3.0, 1.0], [1.0, 3.0, 3.0, 2.0]]\","
      "\"[1.0, 2.0, 1.0, 2.0, 3.0]\",3.0,\"[2.0, 4.0]\",\"[1.0, 2.0, 7.0]\"\n";
  for (const char *backend : {"reference", "compiled"}) {
    auto [rc, out] = run_csv(program, trace, backend);
    EXPECT_EQ(rc, kOk) << backend << ": " << out;
    EXPECT_EQ(out, want) << backend;
  }
}

TEST(Names, AGlobalConstantInAUserTypeDenotesTheConstant) {
  // const n = 3: f takes real[3] (n is not an implicit size variable of f).
  auto ok = check_text(
      "const n = 3;\nfun f(x: real[n]) : real = dot(x, x);\n"
      "node g(v: real[3]) returns (o: real);\nlet\n  o = f(v);\ntel\n");
  EXPECT_TRUE(ok->diags.all().empty()) << diag_text(*ok);
  auto ko = check_text(
      "const n = 3;\nfun f(x: real[n]) : real = dot(x, x);\n"
      "node g(v: real[2]) returns (o: real);\nlet\n  o = f(v);\ntel\n");
  EXPECT_EQ(errors_of(*ko), std::vector<std::string>{"5:9 shape.mismatch"}) << diag_text(*ko);
  // The same fun with another name for the size is generic: real[2] and real[5] both work.
  auto gen = check_text(
      "const n = 3;\nfun f(x: real[k]) : real[k] = x * real(n);\n"
      "node g(v: real[2], w: real[5]) returns (o: real[2]; p: real[5]);\nlet\n  o = f(v);\n  p = f(w);\ntel\n");
  EXPECT_TRUE(gen->diags.all().empty()) << diag_text(*gen);
  // A static parameter named like a global constant hides it in its declaration.
  auto hide = check_text(
      "const n = 3;\nfun f(const n: int, x: real[n]) : real[n] = x;\n"
      "node g(v: real[2]) returns (o: real[2]);\nlet\n  o = f(2, v);\ntel\n");
  EXPECT_TRUE(hide->diags.all().empty()) << diag_text(*hide);
}

TEST(Names, AWrongProgramWithUserConstantsIsRejectedAtTheUsersLocation) {
  // The mismatch is the user's: reported in test.rml, never in <prelude>.
  auto r = check_text(
      "const n = 4;\nnode acc(x: real[n], y: real[2]) returns (o: real);\nlet\n  o = dot(x, y);\ntel\n");
  EXPECT_EQ(errors_of(*r), std::vector<std::string>{"4:14 shape.mismatch"}) << diag_text(*r);
  for (auto &d : r->diags.all()) EXPECT_EQ(d.span.file->path, "test.rml") << diag_text(*r);
}

// ------------------------------------------------------------------ shadowing the prelude

TEST(Names, UserDotShadowsThePreludesWithAWarningAndANote) {
  auto r = check_text(
      "const n = 2;\n"
      "fun dot(a: real[n], b: real[n]) : real = sumOuter(a * b) + 100.0;\n");
  EXPECT_FALSE(r->diags.has_errors()) << diag_text(*r);
  EXPECT_EQ(warnings_of(*r), std::vector<std::string>{"2:5 name.shadows-prelude"}) << diag_text(*r);
  ASSERT_EQ(r->diags.all().size(), 1u);
  const Diagnostic &w = r->diags.all()[0];
  ASSERT_EQ(w.notes.size(), 1u);
  const Span &at = w.notes[0].first;
  EXPECT_EQ(at.file->path, "<prelude>");
  uint32_t line = prelude_line("fun dot(");
  ASSERT_NE(line, 0u);
  EXPECT_EQ(at.file->line_col(at.begin), (std::pair<uint32_t, uint32_t>{line, 5}));
  EXPECT_NE(render_all(r->diags).find("test.rml:2:5: warning[name.shadows-prelude]"), std::string::npos)
      << diag_text(*r);
}

TEST(Names, TheUsersDotIsUsedInTheUsersCodeAndThePreludeKeepsItsOwn) {
  // The user's dot adds 100 and the user's maximum is constantly 1000. By hand, x = [1, 1]:
  //   d = dot(x, x) = 1 + 1 + 100 = 102 (the user's);
  //   softmax(x - x) = softmax([0, 0]) = [0.5, 0.5] with the prelude's maximum (0); with the
  //     user's (1000) it would be exp(-1000) / (2 exp(-1000)) = 0 / 0 = nan;
  //   householder(eye(2), x) = I - (2 / dot(x, x)) x x^T = I - [[1, 1], [1, 1]]
  //     = [[0, -1], [-1, 0]] with the prelude's dot (2); the user's (102) gives other values;
  //   l = maximum(x) = 1000 (the user's).
  const std::string program =
      "fun dot(a: real[n], b: real[n]) : real = sumOuter(a * b) + 100.0;\n"
      "fun maximum(x: real[n]) : real = 1000.0;\n"
      "node main(x: real[2]) returns (d: real; s: real[2]; h: real[2, 2]; l: real);\n"
      "let\n  d = dot(x, x);\n  s = softmax(x - x);\n  h = householder(eye(2), x);\n  l = maximum(x);\ntel\n";
  const std::string want = "x,d,s,h,l\n\"[1.0, 1.0]\",102.0,\"[0.5, 0.5]\",\"[[0.0, -1.0], [-1.0, 0.0]]\",1000.0\n";
  for (const char *backend : {"reference", "compiled"}) {
    auto [rc, out] = run_csv(program, "x\n\"[1.0, 1.0]\"\n", backend);
    EXPECT_EQ(rc, kOk) << backend << ": " << out;
    EXPECT_EQ(out, want) << backend;
  }
}

TEST(Names, AUserDotWithAnotherSignatureLeavesThePreludeWorking) {
  // The prelude's householder calls dot(v, v) on vectors: with the user's dot(real) it would
  // be an arity error inside <prelude>.
  auto r = check_text(
      "fun dot(a: real) : real = a + 1.0;\n"
      "node main(x: real[2]) returns (d: real; h: real[2, 2]; o: real[2, 2]);\n"
      "let\n  d = dot(2.0);\n  h = householder(eye(2), x);\n  o = orthogonal([2, 2]);\ntel\n");
  EXPECT_FALSE(r->diags.has_errors()) << diag_text(*r);
  EXPECT_EQ(warnings_of(*r), std::vector<std::string>{"1:5 name.shadows-prelude"}) << diag_text(*r);
  // In the user's file dot is the user's: the prelude's two-argument call is an arity error.
  auto ko = check_text(
      "fun dot(a: real) : real = a + 1.0;\n"
      "node main(x: real[2]) returns (d: real);\nlet\n  d = dot(x, x);\ntel\n");
  EXPECT_EQ(errors_of(*ko), std::vector<std::string>{"4:7 arity.args"}) << diag_text(*ko);
  // orthogonal (which calls dot through householder) gives the same matrix with and
  // without the user's dot.
  const std::string body = "node main(x: real) returns (o: real[3, 3]);\nlet\n  o = orthogonal([3, 3]);\ntel\n";
  auto [rc1, plain] = run_csv(body, "x\n1.0\n");
  auto [rc2, shadowed] = run_csv("fun dot(a: real) : real = a + 1.0;\n" + body, "x\n1.0\n");
  EXPECT_EQ(rc1, kOk) << plain;
  EXPECT_EQ(rc2, kOk) << shadowed;
  EXPECT_EQ(shadowed, plain);
  // And it is orthogonal (Q Q^T = I), as the prelude's own dot makes it.
  std::vector<double> v = numbers_in(shadowed);
  ASSERT_EQ(v.size(), 1u + 9u) << shadowed;  // the input, then the 9 entries
  for (int row = 0; row < 3; ++row)
    for (int col = 0; col < 3; ++col) {
      double s = 0;
      for (int k = 0; k < 3; ++k) s += v[1 + 3 * row + k] * v[1 + 3 * col + k];
      EXPECT_NEAR(s, row == col ? 1.0 : 0.0, 1e-12) << row << ", " << col;
    }
}

TEST(Names, UserDeclarationsNamedLikePreludeNamesOfEveryKind) {
  // A node named like a size variable, a constant named like a prelude fun, a node named
  // like the prelude's node: each accepted, shadowing where the prelude declares the name.
  auto r = check_text(
      "node n(x: real) returns (o: real);\nlet\n  o = x;\ntel\n"
      "const softmax = 2.0;\n"
      "node param(init: real) returns (o: real);\nlet\n  o = init + softmax;\ntel\n"
      "node main(x: real, v: real[3]) returns (o: real; w: real; u: real);\n"
      "let\n  o = n(x);\n  w = param(x);\n  u = mse(v, v) + logsumexp(v);\ntel\n");
  EXPECT_FALSE(r->diags.has_errors()) << diag_text(*r);
  EXPECT_EQ(warnings_of(*r), (std::vector<std::string>{"5:7 name.shadows-prelude", "6:6 name.shadows-prelude"}))
      << diag_text(*r);
  // A user name declared twice is still a duplicate (after the shadowing warning).
  auto dup = check_text("fun dot(a: real) : real = a;\nfun dot(a: real) : real = a;\n");
  EXPECT_EQ(errors_of(*dup), std::vector<std::string>{"2:5 name.duplicate"}) << diag_text(*dup);
  EXPECT_EQ(warnings_of(*dup), std::vector<std::string>{"1:5 name.shadows-prelude"}) << diag_text(*dup);
}

TEST(Names, DeclarationsShadowBuiltinsWithAWarning) {
  // Lustre programs declare nodes `abs`, `min`, `sum`: a declaration named like a builtin
  // is the user's in the user's file, with a warning at it (grammar.md §6), never a
  // silent change: the warning says so, and the prelude keeps the builtin.
  for (const char *b : {"sum", "abs", "min", "max", "exp", "build", "rank", "prod"}) {
    auto r = check_text("fun " + std::string(b) + "(x: real) : real = x;\n"
                        "node main(x: real) returns (o: real);\nlet\n  o = " + b + "(x);\ntel\n");
    EXPECT_EQ(errors_of(*r), std::vector<std::string>{}) << b << ":\n" << diag_text(*r);
    EXPECT_EQ(warnings_of(*r), std::vector<std::string>{"1:5 name.shadows-builtin"}) << b << ":\n" << diag_text(*r);
  }
  // Two user declarations of a builtin's name are still a duplicate.
  auto dup = check_text("fun abs(a: real) : real = a;\nfun abs(a: real) : real = a;\n");
  EXPECT_EQ(errors_of(*dup), std::vector<std::string>{"2:5 name.duplicate"}) << diag_text(*dup);
}

// ------------------------------------------------------------------ the prelude's scope

TEST(Names, APreludeDeclarationSeesOnlyThePrelude) {
  // A stand-in prelude that names a constant, a fun and a node of the user's file: none is
  // in its scope. Built by hand, as run_frontend does with the real prelude.
  SourceFile pre("<prelude>",
                 "fun pf(x: real) : real = x + uc;\n"
                 "fun pg(x: real) : real = uf(x);\n"
                 "fun ph(x: real[uk]) : real[uk] = x;\n");
  SourceFile user("u.rml", "const uc = 1.0;\nconst uk = 3;\nfun uf(x: real) : real = x;\n"
                           "node main(v: real[2]) returns (o: real[2]);\nlet\n  o = ph(v);\ntel\n");
  Diagnostics diags;
  Program p = parse_program(pre, diags), u = parse_program(user, diags);
  ASSERT_FALSE(diags.has_errors());
  CheckedProgram cp;
  for (auto &d : p.decls) {
    cp.prelude_names.insert(decl_name(d));
    cp.program.decls.push_back(std::move(d));
  }
  cp.prelude_decls = cp.program.decls.size();
  for (auto &d : u.decls) cp.program.decls.push_back(std::move(d));
  check_program(cp, diags);
  std::vector<std::string> got;
  for (auto &d : diags.all()) {
    auto [l, c] = d.span.file->line_col(d.span.begin);
    got.push_back(d.span.file->path + ":" + std::to_string(l) + ":" + std::to_string(c) + " " + d.rule);
  }
  // uc and uf are unknown in the prelude; uk in ph's type is ph's own size variable, so
  // ph(v) with v: real[2] is accepted (with uk = 3 it would not be).
  EXPECT_EQ(got, (std::vector<std::string>{"<prelude>:1:30 name.unknown", "<prelude>:2:26 name.unknown"}))
      << render_all(diags);
}

// ------------------------------------------------------------------ elaboration, gradients

TEST(Names, ElaborationOfAProgramWithUserConstantsAndPreludeCalls) {
  TempFile f(".rml",
             "const n = 2;\nconst m = 3;\n"
             "node main(x: real[n], a: real[m, n]) returns (d: real; v: real[m]);\n"
             "let\n  d = dot(x, x);\n  v = matvec(a, x);\ntel\n");
  ParseCmd c;
  c.file = f.path;
  c.normalized = true;
  c.main_node = "main";
  std::ostringstream out, err;
  ASSERT_EQ(cmd_parse(c, out, err), kOk) << err.str();
  // The user's constants come first (the printed program reads back on its own).
  EXPECT_EQ(out.str(),
            "const n = 2;\n\nconst m = 3;\n\n"
            "node main(x: real[2], a: real[3, 2]) -> (d: real, v: real[3])\n"
            "let\n"
            "  d = dot(x, x);\n"
            "  v = matvec(a, x);\n"
            "tel\n");
  EXPECT_EQ(err.str(), "");
}

TEST(Names, GradientsWithUserConstantsAndPreludeCalls) {
  // const n = 2 (the user's) while mse's own n is 3. By hand, at x = [1, 2], y = [1, 2, 3]:
  //   f = dot(x, x) + mse(y, 0) = 5 + 14 / 3;  df/dx = 2x = [2, 4];  df/dy = 2y / 3.
  const std::string program =
      "const n = 2;\n"
      "fun f(x: real[n], y: real[3]) : real = dot(x, x) + mse(y, [0.0, 0.0, 0.0]);\n";
  expect_near_all(grad_at(program, "f", R"({"x": [1, 2], "y": [1, 2, 3]})"),
                  {5.0 + 14.0 / 3.0, 2.0, 4.0, 2.0 / 3.0, 4.0 / 3.0, 2.0});
}

TEST(Names, GradientsThroughShadowedPreludeNames) {
  // The user's maximum is 1000 and the user's dot adds 100; the lowering must resolve them
  // as the checker does: the prelude's softmax uses the prelude's maximum.
  //   g(x) = softmax(x)[0] at x = [0, 0]: 1/2; dg/dx = [s0 (1 - s0), -s0 s1] = [1/4, -1/4]
  //   (with the user's maximum, exp(-1000) underflows and g is nan).
  //   h(x) = dot(x, x) (the user's) at [1, 2]: 5 + 100 = 105; dh/dx = 2x = [2, 4].
  const std::string program =
      "fun maximum(x: real[k]) : real = 1000.0;\n"
      "fun dot(a: real[n], b: real[n]) : real = sumOuter(a * b) + 100.0;\n"
      "fun g(x: real[2]) : real = softmax(x)[0];\n"
      "fun h(x: real[2]) : real = dot(x, x);\n";
  expect_near_all(grad_at(program, "g", R"({"x": [0, 0]})"), {0.5, 0.25, -0.25});
  expect_near_all(grad_at(program, "h", R"({"x": [1, 2]})"), {105.0, 2.0, 4.0});
}
