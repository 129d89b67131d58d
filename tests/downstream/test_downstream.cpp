// What another project's test suite writes against rml's installed package: only
// <rml/rml.hpp> and <rml/rapidcheck.hpp>, linked with rml::rml. Its "back end" here is
// rml's oracle with funs on the compiled array path, standing in for the project's own
// compiler; the reference is the oracle with the reference evaluator.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <optional>
#include <sstream>
#include <string>

#include <rml/rapidcheck.hpp>
#include <rml/rml.hpp>

namespace {

std::optional<rml::api::Chronogram> run(const rml::api::Program &p, const rml::api::Chronogram &t, rml::api::Backend b) {
  rml::api::RunOptions o;
  o.backend = b;
  auto r = rml::api::run(p, t, o);
  if (!r) return std::nullopt;
  return r->chronogram;
}

}  // namespace

// Law: on every program rml generates that rml-check accepts, the back end's chronogram
// equals the oracle's, cell for cell: ints and bools exactly, reals as the README says to
// compare a back end whose transcendentals are not libm's (the compiled path's are SLEEF's,
// an ulp apart at times, which a later subtraction can magnify: 16 ulps were seen). A
// program whose check is unknown within the budget is discarded; one refused as wrong is a
// failure.
RC_GTEST_PROP(Downstream, BackEndEqualsTheOracleOnGeneratedPrograms, ()) {
  rml::api::GeneratedCase c = *rml::api::arbitrary_case();
  auto p = rml::api::accept("case.rml", c.program, c.main);
  const bool decided_or_unknown = p.ok() || p.failure().exit_code == 3;  // RC_ASSERT would not short-circuit
  RC_ASSERT(decided_or_unknown);
  RC_PRE(p.ok());
  auto t = rml::api::parse_trace(*p, "case.csv", c.trace);
  RC_ASSERT(t.ok());
  auto want = run(*p, *t, rml::api::Backend::Oracle);
  auto got = run(*p, *t, rml::api::Backend::OracleCompiled);
  RC_ASSERT(want && got);
  rml::api::Tolerance close;
  close.rel = 1e-12, close.abs = 1e-15;  // rml diff --rel-tol 1e-12 --abs-tol 1e-15
  RC_ASSERT(rml::api::compare(*want, *got, {}, close).kind == rml::api::Difference::Kind::None);
}

// Negative control: a back end that changes one cell is caught, at that cell.
TEST(Downstream, AWrongCellIsCaught) {
  rml::api::GeneratedCase c = *rml::api::generate(7);
  auto p = rml::api::accept("case.rml", c.program, c.main);
  ASSERT_TRUE(p.ok()) << p.failure().text();
  auto t = rml::api::parse_trace(*p, "case.csv", c.trace);
  ASSERT_TRUE(t.ok()) << t.failure().text();
  auto want = run(*p, *t, rml::api::Backend::Oracle);
  ASSERT_TRUE(want);
  auto bad = *want;
  rml::api::Cell &x = bad.columns.back()[3];
  x = x.kind == rml::api::Cell::Kind::Absent ? rml::api::Cell::of(rml::api::Value::of_int(0)) : rml::api::Cell::absent();
  auto d = rml::api::compare(*want, bad);
  EXPECT_EQ(d.kind, rml::api::Difference::Kind::Cell);
  EXPECT_EQ(d.cycle, 3u);
}

// What a failing property shows the project: RapidCheck shrinks the program, not only the
// seed, to a few equations that still fail (here a "back end" that fails on every `post`).
TEST(Downstream, AFailingProgramShrinksToAFewEquations) {
  rml::api::GenerateOptions o;
  o.tensors = false;
  std::optional<rml::api::GeneratedCase> last;
  bool passed = rc::check("a back end that fails on post", [&] {
    rml::api::GeneratedCase c = *rml::api::arbitrary_case(o);
    if (c.program.find("post ") != std::string::npos) {
      last = c;
      RC_FAIL("post");
    }
  });
  EXPECT_FALSE(passed);
  ASSERT_TRUE(last.has_value());
  EXPECT_EQ(std::count(last->trace.begin(), last->trace.end(), '\n'), 2) << "a header and one cycle:\n" << last->trace;
  auto p = rml::api::load_text("last.rml", last->program);
  ASSERT_TRUE(p.ok()) << p.failure().text();
  EXPECT_NE(last->program.find("post "), std::string::npos);
  EXPECT_LE(std::count(last->program.begin(), last->program.end(), ';'), 8) << last->program;
}

// Errors are values with their diagnostics, and verdicts come with counterexamples.
TEST(Downstream, ErrorsAndVerdictsAreValues) {
  auto bad = rml::api::load_text("bad.rml", "node f(x: int) -> (y: bool) let y = x; tel\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.failure().exit_code, 2);
  EXPECT_EQ(bad.failure().diagnostics.at(0).line, 1u);
  auto p = rml::api::load_text("relu.rml", "node relu(x: int) -> (y: int) let y = if x > 0 then x else 0; check y >= 0; check y > 0; tel\n");
  ASSERT_TRUE(p.ok()) << p.failure().text();
  auto rep = rml::api::check(*p);
  ASSERT_TRUE(rep.ok()) << rep.failure().text();
  int valid = 0, falsified = 0;
  for (auto &q : rep->properties)
    if (q.kind == "property") {
      valid += q.verdict == rml::api::Verdict::Valid;
      falsified += q.verdict == rml::api::Verdict::Falsified && q.counterexample.has_value();
    }
  EXPECT_EQ(valid, 1);
  EXPECT_EQ(falsified, 1);
  EXPECT_EQ(rep->exit_code(), 1);
}

// A campaign split across jobs in the project's own harness, as `rml diff --shard` splits
// one: program k of seed 7 is the same whoever draws it; it runs from its CSV trace's text;
// a required cell past the trace fails the run, said at the cell.
TEST(Downstream, ACampaignsProgramKRunsFromItsTrace) {
  for (uint64_t k : {0u, 3u}) {
    auto c = rml::api::generate_in_campaign(7, k);
    ASSERT_TRUE(c.ok()) << c.failure().text();
    EXPECT_EQ(c->generated.program, rml::api::generate_in_campaign(7, k)->generated.program);
    auto p = rml::api::load_text("k.rml", c->generated.program, {c->generated.main, {}});
    ASSERT_TRUE(p.ok()) << p.failure().text();
    rml::api::RunOptions o;
    o.required = {{c->generated.outputs.at(0), 1000000, false, "the harness"}};
    auto r = rml::api::run_trace(*p, "k.csv", c->generated.trace, o);
    ASSERT_TRUE(r.ok()) << r.failure().text();
    EXPECT_TRUE(r->failed);
    EXPECT_NE(r->diagnostics.back().rendered.find("is past the run's"), std::string::npos) << r->diagnostics.back().rendered;
  }
}

// A long trace streamed through the installed library: read from a stream of the
// project's own, the rows written to another as they leave the window, the same text as
// the stream back end's whole run prints.
TEST(Downstream, AStreamedRunWritesTheWholeRunsRows) {
  rml::api::GeneratedCase c = *rml::api::generate(7);
  auto p = rml::api::accept("case.rml", c.program, c.main);
  ASSERT_TRUE(p.ok()) << p.failure().text();
  rml::api::RunOptions o;
  o.backend = rml::api::Backend::Stream;
  auto whole = rml::api::run_trace(*p, "case.csv", c.trace, o);
  ASSERT_TRUE(whole.ok()) << whole.failure().text();
  rml::api::TraceStream trace{"case.csv", [&](std::string &) -> std::shared_ptr<std::istream> {
                                return std::make_shared<std::istringstream>(c.trace);
                              },
                              true};
  std::ostringstream out;
  auto streamed = rml::api::run_streamed(*p, trace, out, rml::api::TextFormat::Csv);
  ASSERT_TRUE(streamed.ok()) << streamed.failure().text();
  EXPECT_EQ(out.str(), whole->chronogram.csv());
  EXPECT_EQ(streamed->cycles, whole->chronogram.cycles);
}
