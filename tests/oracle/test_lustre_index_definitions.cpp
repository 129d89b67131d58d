// Kind 2's definitions of an array by index variables (sema/expand_index_definitions):
// `y[i] = e` is y = [e(0), ..., e(n-1)], `m[i][j] = e` the same per level, e(k) being e
// with i the int k; a condition the indices decide is the branch it takes, so an
// inductive definition guarded by `if i = 0` reads no element out of range.
#include <gtest/gtest.h>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"

using namespace rml;
using namespace rml::test;

// Every element as worked out by hand from the definitions (x and B given).
TEST(LustreIndexDefinitions, EachElementIsTheDefinitionAtItsIndex) {
  const std::string text =
      "const N = 4;\n"
      "node main(x: int; B: int^3) returns (y: int^N; c: int^N; m: int^2^3; d: int^3);\n"
      "var i: int;\n"
      "let\n"
      "  i = 100;\n"                                                     // hidden by the index
      "  y[i] = x + i;\n"
      "  c[i] = if i = 0 then x else c[i - 1] + B[i mod 3];\n"          // inductive
      "  m[i][j] = i * 10 + j;\n"                                       // m: 3 arrays of 2
      "  d[k] = if k < 2 then d[k + 1] - 1 else (0 -> pre d[0]);\n"     // reads later elements
      "tel\n";
  auto r = run_both(text, "main", {{"x", {"1", "5"}}, {"B[0]", {"1", "0"}}, {"B[1]", {"2", "0"}}, {"B[2]", {"3", "1"}}});
  expect_stream(r, "y[0]", {"1", "5"});
  expect_stream(r, "y[3]", {"4", "8"});
  expect_stream(r, "c[0]", {"1", "5"});
  expect_stream(r, "c[1]", {"3", "5"});
  expect_stream(r, "c[2]", {"6", "6"});
  expect_stream(r, "c[3]", {"7", "6"});
  expect_stream(r, "m[0][1]", {"1", "1"});
  expect_stream(r, "m[2][0]", {"20", "20"});
  expect_stream(r, "m[2][1]", {"21", "21"});
  expect_stream(r, "d[2]", {"0", "-2"});
  expect_stream(r, "d[1]", {"-1", "-3"});
  expect_stream(r, "d[0]", {"-2", "-4"});
  // The same through rml-check: the inductive sum, proved.
  auto rep = check_text_report(text + "node p(x: int; B: int^3) returns (ok: bool);\nvar y, c: int^4; m: int^2^3; d: int^3;\n"
                                      "let\n  y, c, m, d = main(x, B);\n  ok = true;\n  check c[3] = x + B[1] + B[2] + B[0];\n"
                                      "  check d[0] = d[2] - 2;\ntel\n",
                               "p");
  int valid = 0;
  for (auto &p : rep.properties)
    if (p.kind == "property") valid += p.verdict == check::Verdict::Valid;
  EXPECT_EQ(valid, 2);
}

// Printed back as written; the index hides a constant and a variable of its name, as in
// Kind 2.
TEST(LustreIndexDefinitions, PrintedBackAndScoped) {
  EXPECT_EQ(reprint_program("node f(x: int) returns (y: int^2; z: int^2^3);\nlet\n  y[i] = x + i;\n  z[a][b] = a - b;\ntel\n"),
            "node f(x: int) returns (y: int^2, z: int^2^3);\nlet\n  y[i] = x + i;\n  z[a][b] = a - b;\ntel\n");
  auto r = run_both("const i = 9;\nnode main(x: int) returns (y: int^3; z: int^2);\nvar j: int;\nlet\n  j = 5;\n"
                    "  y[j] = x + j;\n  z[i] = i;\ntel\n",
                    "main", {{"x", {"1"}}});
  expect_stream(r, "y[0]", {"1"});
  expect_stream(r, "y[2]", {"3"});
  expect_stream(r, "z[1]", {"1"});
}

// Each refusal at its place: an input defined, more index variables than levels, a size
// that is not static, a name that is not declared, one element or a slice on the left, an
// index the decided conditions leave out of range, a definition through itself.
TEST(LustreIndexDefinitions, Errors) {
  auto prog = [](const std::string &body) {
    return "node main(x: int; k: int) returns (y: int^4);\nvar w: int^k;\nlet\n" + body + "tel\n";
  };
  EXPECT_EQ(errors_of(*check_text(prog("  x[i] = 0;\n"))), (std::vector<std::string>{"4:3 name.input-defined"}));
  EXPECT_EQ(errors_of(*check_text(prog("  y[i][j] = 0;\n"))), (std::vector<std::string>{"4:8 shape.rank"}));
  EXPECT_EQ(errors_of(*check_text(prog("  w[i] = 0;\n  y = 0^4;\n"))), (std::vector<std::string>{"2:12 static.not-static"}));
  EXPECT_EQ(errors_of(*check_text(prog("  z[i] = 0;\n"))), (std::vector<std::string>{"4:3 name.unknown"}));
  EXPECT_EQ(errors_of(*check_text(prog("  y[0] = 0;\n"))), (std::vector<std::string>{"4:5 syntax.unsupported"}));
  auto ok = [](const std::string &body) { return "node main(x: int) returns (y: int^4);\nlet\n" + body + "tel\n"; };
  EXPECT_EQ(errors_of(*check_text(ok("  y[i] = y[i + 1];\n"))), (std::vector<std::string>{"3:12 static.eval"}));
  EXPECT_EQ(errors_of(*check_text(ok("  y[i] = if i > 0 then y[i - 1] else x;\n"))), (std::vector<std::string>{}));
  // y[1] = y[0] and y[0] = y[1]: an instantaneous cycle, which rml-check's causality refuses.
  auto rep = check_text_report(ok("  y[i] = if i = 0 then y[1] else if i = 1 then y[0] else x;\n"), "main");
  bool causality_refused = false;
  for (auto &p : rep.properties)
    if (p.kind == "causality") causality_refused = p.verdict == check::Verdict::Falsified;
  EXPECT_TRUE(causality_refused);
}
