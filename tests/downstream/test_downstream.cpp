// What another project's test suite writes against rml's installed package: rml's
// program and trace generators as a RapidCheck generator, the oracle as the reference,
// rml diff's comparison of chronograms. Its "back end" here is the oracle's Kleene
// solver, standing in for the project's own compiler.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "diff/accept.hpp"
#include "diff/compare.hpp"
#include "diff/rapidcheck_case.hpp"
#include "diff/case_hooks.hpp"
#include "tools/commands.hpp"

namespace {

struct Files {
  std::string program, trace;
};

Files write_case(const rml::gen::GeneratedCase &c) {
  auto dir = std::filesystem::temp_directory_path() / ("rml-downstream-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  Files f{(dir / "p.rml").string(), (dir / "p.csv").string()};
  std::ofstream(f.program) << c.program.text;
  std::ofstream(f.trace) << c.trace;
  return f;
}

// The main node's outputs as `rml run --format csv` prints them, by one solver.
std::string run(const Files &f, const std::vector<std::string> &outputs, rml::oracle::Solver s) {
  rml::RunCmd r;
  r.file = f.program;
  r.main_node = "main";
  r.inputs = f.trace;
  r.format = rml::oracle::Format::Csv;
  r.show = outputs;
  r.solver = s;
  std::ostringstream out, err;
  int rc = rml::cmd_run(r, out, err);
  EXPECT_EQ(rc, 0) << err.str();
  return out.str();
}

}  // namespace

// Law: on every program rml generates that rml-check accepts, the back end's chronogram
// equals the oracle's, cell for cell (rml diff's comparison). A program whose check is
// unknown within the time budget is discarded; one refused as wrong is a failure.
RC_GTEST_PROP(Downstream, BackEndEqualsTheOracleOnGeneratedPrograms, ()) {
  rml::gen::GeneratedCase c = *rml::diff::arbitrary_accepted_case();
  rml::diff::Acceptance a = rml::diff::accept("<case>", c.program.text, "main", {});
  RC_ASSERT(a.accepted || a.rc == rml::kUnknown);
  RC_PRE(a.accepted);
  Files f = write_case(c);
  std::string why;
  auto want = rml::diff::read_chronogram(run(f, a.outputs, rml::oracle::Solver::Worklist), why);
  auto got = rml::diff::read_chronogram(run(f, a.outputs, rml::oracle::Solver::Kleene), why);
  RC_ASSERT(want && got);
  RC_ASSERT(rml::diff::compare(*want, *got, a.outputs, rml::diff::Tolerance{}).kind == rml::diff::Difference::None);
}

// Negative control: a back end that changes one cell is caught, at that cell.
TEST(Downstream, AWrongCellIsCaught) {
  auto p = rml::gen::generate_program(7, {});
  rml::gen::GeneratedCase k{7, p, rml::gen::generate_trace(p, 7, 10)};
  rml::diff::Acceptance a = rml::diff::accept("<case>", k.program.text, "main", {});
  ASSERT_TRUE(a.accepted) << a.why;
  Files f = write_case(k);
  std::string why;
  auto want = rml::diff::read_chronogram(run(f, a.outputs, rml::oracle::Solver::Worklist), why);
  ASSERT_TRUE(want) << why;
  auto bad = *want;
  bad.rows[3][0] = bad.rows[3][0] == "T" ? "F" : bad.rows[3][0] == "_" ? "0" : "_";
  auto d = rml::diff::compare(*want, bad, a.outputs, rml::diff::Tolerance{});
  EXPECT_EQ(d.kind, rml::diff::Difference::Cell);
  EXPECT_EQ(d.cycle, 3u);
}

// What a failing property shows the project: RapidCheck shrinks the program, not only the
// seed, to a few equations that still fail (here a "back end" that fails on every `post`).
TEST(Downstream, AFailingProgramShrinksToAFewEquations) {
  rml::gen::GenOptions o;
  o.tensors = false;
  std::optional<rml::gen::GeneratedCase> last;
  bool passed = rc::check("a back end that fails on post", [&] {
    rml::gen::GeneratedCase c = *rml::diff::arbitrary_accepted_case(o);
    if (c.program.text.find("post ") != std::string::npos) {
      last = c;
      RC_FAIL("post");
    }
  });
  EXPECT_FALSE(passed);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(rml::diff::count_cycles(last->trace), 1) << last->trace;
  EXPECT_LE(rml::diff::count_equations(rml::diff::case_hooks(false), last->program.text), 5) << last->program.text;
}
