// `rml parse --normalized` prints source that reads back: generated names the
// lexer accepts, clock annotations kept, the user's funs and constants included. Over the
// whole reference corpus: print -> parse -> print is identical, for every node that can be
// a main; and the same on random programs (every primitive, a node instance, clocks right
// or wrong).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/normalize.hpp"
#include "sema/frontend.hpp"
#include "tools/commands.hpp"
#include "driver/main_node.hpp"
#include "common/stream_prog_gen.hpp"

using namespace rml;
namespace fs = std::filesystem;

namespace {

// rml parse --normalized --main MAIN FILE: (exit code, stdout, stderr).
struct Printed {
  int rc;
  std::string out, err;
};
Printed normalized(const std::string &file, const std::string &main) {
  ParseCmd c;
  c.file = file;
  c.normalized = true;
  c.main_node = main;
  std::ostringstream out, err;
  int rc = cmd_parse(c, out, err);
  return {rc, out.str(), err.str()};
}

std::string temp_path(const std::string &tag) {
  return (fs::temp_directory_path() / ("rml_normalized_" + std::to_string(::getpid()) + "_" + tag + ".rml")).string();
}

}  // namespace

TEST(NormalizedPrint, ReparsesToTheSamePrintOverTheReferenceCorpus) {
  size_t nodes = 0;
  for (auto &entry : fs::recursive_directory_iterator(std::string(RML_SOURCE_DIR) + "/reference")) {
    if (entry.path().extension() != ".rml") continue;
    std::string file = entry.path().string();
    std::string err;
    auto text = read_file(file, err);
    ASSERT_TRUE(text) << err;
    auto fe = run_frontend(file, *text);
    if (fe->diags.has_errors()) continue;  // files that expect an error
    for (auto &main : main_candidates(*fe)) {
      Printed a = normalized(file, main);
      if (a.rc != kOk) continue;  // not elaborable (an elab error the corpus expects)
      ++nodes;
      SCOPED_TRACE(file + " --main " + main);
      EXPECT_EQ(a.out.find('$'), std::string::npos) << "a name the lexer refuses:\n" << a.out;
      std::string tmp = temp_path(std::to_string(nodes));
      std::ofstream(tmp) << a.out;
      Printed b = normalized(tmp, main);
      fs::remove(tmp);
      ASSERT_EQ(b.rc, kOk) << b.err << "\n--- the printed program:\n" << a.out;
      EXPECT_EQ(a.out, b.out);
    }
  }
  // The corpus holds over twenty mains: the loop cannot pass by checking nothing.
  EXPECT_GE(nodes, 20u);
}

TEST(NormalizedPrint, KeepsClockAnnotationsAndSpellsInlinedNames) {
  std::string file = std::string(RML_SOURCE_DIR) + "/reference/paper/fig03_gradient_descent.rml";
  Printed p = normalized(file, "diff_param");
  ASSERT_EQ(p.rc, kOk) << p.err;
  EXPECT_NE(p.out.find("node diff_param(init: real, bp: bool, do: real when bp) -> (o: real)"), std::string::npos) << p.out;

  std::string tmp = temp_path("inline");
  std::ofstream(tmp) << "node movavg(x: real) -> (o: real)\nvar x1: real;\nlet\n  x1 = 0.0 fby x;\n  o = (x + x1) / 2.0;\ntel\n"
                        "node top(a: real, bp: bool) -> (o: real; s: real when bp)\n  o = movavg(movavg(a));\n  s = a when bp;\n"
                        "// an instance name a user variable already has: the generated one gets a '_'\n"
                        "node clash(a: real) -> (o: real)\nvar movavg_1_x1: real;\nlet\n  movavg_1_x1 = a;\n  o = movavg(a) + movavg_1_x1;\ntel\n";
  Printed t = normalized(tmp, "top");
  EXPECT_NE(t.out.find("-> (o: real, s: real when bp)"), std::string::npos) << t.out;
  EXPECT_NE(t.out.find("  movavg_1_x1 = movavg_1_t4 fby movavg_2_o;\n"), std::string::npos) << t.out;
  Printed c = normalized(tmp, "clash");
  fs::remove(tmp);
  EXPECT_NE(c.out.find("  movavg_1_x1 = a;\n"), std::string::npos) << c.out;
  EXPECT_NE(c.out.find("  movavg_1_x1_ = "), std::string::npos) << c.out;
}

// The same round trip on random programs (tests/common/stream_prog_gen.hpp), well
// clocked or not (a clash prints the clocks of the first unification, and reads back so).
RC_GTEST_PROP(NormalizedPrint, RandomProgramsReadBackToTheSamePrint, ()) {
  rml::testgen::ProgGen g;
  g.well_clocked = *rc::gen::arbitrary<bool>();
  std::string text = g.program();
  RC_LOG() << text;
  std::string src = temp_path("rc_src"), again = temp_path("rc_again");
  std::ofstream(src) << text;
  Printed a = normalized(src, "main");
  fs::remove(src);
  RC_PRE(a.rc == kOk);  // a program the front end rejects
  RC_LOG() << a.out;
  RC_ASSERT(a.out.find('$') == std::string::npos);
  std::ofstream(again) << a.out;
  Printed b = normalized(again, "main");
  fs::remove(again);
  RC_LOG() << b.err;
  RC_ASSERT(b.rc == kOk);
  RC_ASSERT(a.out == b.out);
}
