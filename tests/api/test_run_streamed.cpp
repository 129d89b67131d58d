// api::run_streamed (`rml run --backend stream`): the trace read as the run goes and the
// rows written as they leave. Its rows are the oracle's whichever path computes them (the
// clock-directed machine, the runner, or the machine handing over to the runner); a run
// stopped half-way says where its rows stop; what it refuses, it refuses before a row.
#include <gtest/gtest.h>

#include <sstream>

#include "api/streamed_trace.hpp"
#include "rml/rml.hpp"

namespace api = rml::api;
using rml::api::testing::CountedTrace;
using rml::api::testing::load_streamed;
using rml::api::testing::rendered;

namespace {

// Post-free and scalar: the clock-directed machine runs it while the trace stays inside
// the clocks.
const char *kSumStreamed = R"(node sum(x: int, c: bool) -> (s: int)
let
  s = 0 -> pre s + (if c then x else 0);
tel
)";

const char *kBackfillStreamed = rml::api::testing::kBackfillAssumed;

}  // namespace

// The law: for every trace, path and format, the rows written are the oracle's chronogram
// (Chronogram::csv(), rml run's CSV) and what is said after the run's note is what the
// oracle says. The machine runs a trace inside the clocks (opened once); at an input
// absent off its clock it hands over to the runner, which reads the trace again from its
// start and writes the rows from that cycle on (opened twice, each row once); a trace
// that cannot be read again goes to the runner alone.
TEST(RunStreamed, WritesTheOraclesRowsWhicheverPathComputesThem) {
  api::Program p = load_streamed("sum.rml", kSumStreamed);
  struct Case {
    const char *trace;
    bool rereadable;
    int opens;
    const char *path;  // in the note
  };
  const Case cases[] = {
      {"x,c\n1,T\n2,F\n3,T\n4,T\n", true, 1, "on the clock-directed machine"},
      {"x,c\n1,T\n2,F\n_,T\n4,T\n5,F\n", true, 2, "from cycle 2 (the trace leaves the clocks there)"},
      {"x,c\n_,T\n2,F\n", true, 2, "from cycle 0 (the trace leaves the clocks there)"},
      {"x,c\n1,T\n2,F\n_,T\n4,T\n5,F\n", false, 1, " held (window "},
      {"x,c\n1,T\n2,F\n3,T\n4,T\n", false, 1, " held (window "},
  };
  for (const Case &c : cases) {
    auto oracle = api::run_trace(p, "t.csv", c.trace);
    ASSERT_TRUE(oracle.ok()) << oracle.failure().text();
    CountedTrace t{c.trace};
    std::ostringstream out;
    auto r = api::run_streamed(p, t.stream(c.rereadable), out, api::TextFormat::Csv);
    ASSERT_TRUE(r.ok()) << r.failure().text();
    EXPECT_EQ(out.str(), oracle->chronogram.csv()) << c.trace;
    EXPECT_EQ(r->cycles, oracle->chronogram.cycles);
    EXPECT_EQ(t.opens, c.opens) << c.trace;
    ASSERT_FALSE(r->diagnostics.empty());
    EXPECT_EQ(r->diagnostics[0].rule, "run.stream");
    EXPECT_NE(r->diagnostics[0].message.find(c.path), std::string::npos) << r->diagnostics[0].message;
    EXPECT_EQ(rendered(r->diagnostics, 1), rendered(oracle->diagnostics)) << c.trace;
    EXPECT_EQ(r->failed, oracle->failed) << c.trace;
  }
  // Negative control: the handover's rows differ from the machine's on the same trace
  // read whole, so a run that wrote a cycle twice or skipped one would not match.
  auto whole = api::run_trace(p, "t.csv", "x,c\n1,T\n2,F\n3,T\n4,T\n5,F\n");
  auto gap = api::run_trace(p, "t.csv", "x,c\n1,T\n2,F\n_,T\n4,T\n5,F\n");
  ASSERT_TRUE(whole.ok() && gap.ok());
  EXPECT_NE(whole->chronogram.csv(), gap->chronogram.csv());
}

// A node with post runs on the runner, in every format: the same text as the whole run
// printed, a JSON list closed, a table written at the end.
TEST(RunStreamed, PostRunsOnTheRunnerInEveryFormat) {
  api::Program p = load_streamed("backfill.rml", kBackfillStreamed);
  const std::string trace = "i,bp\n1,F\n2,F\n3,T\n4,T\n5,F\n6,T\n";
  auto oracle = api::run_trace(p, "t.csv", trace);
  ASSERT_TRUE(oracle.ok()) << oracle.failure().text();
  std::string json;
  for (api::TextFormat f : {api::TextFormat::Csv, api::TextFormat::Json, api::TextFormat::Table}) {
    CountedTrace t{trace};
    std::ostringstream out;
    auto r = api::run_streamed(p, t.stream(true), out, f);
    ASSERT_TRUE(r.ok()) << r.failure().text();
    EXPECT_EQ(t.opens, 1);
    EXPECT_NE(r->diagnostics.at(0).message.find("stream backend: 6 cycles, horizon 4, at most"), std::string::npos)
        << r->diagnostics.at(0).message;
    if (f == api::TextFormat::Csv) {
      EXPECT_EQ(out.str(), oracle->chronogram.csv());
    } else if (f == api::TextFormat::Json) {
      json = out.str();
    } else {
      EXPECT_EQ(out.str().rfind("cycle", 0), 0u) << out.str();
    }
  }
  EXPECT_EQ(json.front(), '[');
  EXPECT_EQ(json.substr(json.size() - 2), "]\n");
  // Backfilled: o at cycle 0 is i at cycle 2.
  EXPECT_NE(json.find("\"o\": 3"), std::string::npos) << json;
}

// A bad row stops the run: the rows before it were written and are exact; the failure
// says where the output stops, in each format's words, and locates the row. Boundaries:
// a bad first row (no cycle written) and a bad row after three good ones.
TEST(RunStreamed, ARunStoppedHalfWaySaysWhereItsRowsStop) {
  api::Program p = load_streamed("sum.rml", kSumStreamed);
  struct Case {
    const char *trace;
    api::TextFormat format;
    unsigned line;
    const char *summary;
    size_t rows;  // CSV lines written after the header
  };
  const Case cases[] = {
      {"x,c\n1,T\n2,F\n3,T\nfour,T\n5,T\n", api::TextFormat::Csv, 5, "rml: the output above is incomplete: it stops after cycle 2", 3},
      {"x,c\n1,T\n2,F\n3,T\nfour,T\n5,T\n", api::TextFormat::Json, 5,
       "rml: the output above is incomplete: it stops after cycle 2 (the JSON list is not closed)", 0},
      {"x,c\n1,T\n2,F\n3,T\nfour,T\n5,T\n", api::TextFormat::Table, 5, "rml: no chronogram printed (the table is printed at the end)", 0},
      {"x,c\nfour,T\n", api::TextFormat::Csv, 2, "rml: the output above is incomplete: it has no cycle", 0},
  };
  for (const Case &c : cases) {
    CountedTrace t{c.trace};
    std::ostringstream out;
    auto r = api::run_streamed(p, t.stream(true), out, c.format);
    ASSERT_FALSE(r.ok()) << c.trace;
    const api::Failure &f = r.failure();
    EXPECT_EQ(f.exit_code, 2);
    ASSERT_FALSE(f.diagnostics.empty());
    EXPECT_EQ(f.diagnostics[0].rule.rfind("trace.", 0), 0u) << f.text();
    EXPECT_EQ(f.diagnostics[0].line, c.line) << f.text();
    EXPECT_EQ(f.summary, c.summary);
    if (c.format == api::TextFormat::Csv) {
      auto good = api::run_trace(p, "t.csv", "x,c\n1,T\n2,F\n3,T\n");
      ASSERT_TRUE(good.ok());
      std::string expected = c.rows ? good->chronogram.csv() : "x,c,s\n";
      EXPECT_EQ(out.str(), expected);
    }
  }
}

// Refused before a row: a node with inputs and no trace, a trace that cannot be opened
// (the opener's words), the oracle's options. Without inputs, `cycles` rows (10 when 0).
// Progress: the proof's lines, then (0, 0) once rows are about to be written, then every
// 1024 cycles read.
TEST(RunStreamed, RefusalsComeBeforeARowAndProgressAfterTheProof) {
  api::Program p = load_streamed("sum.rml", kSumStreamed);
  std::ostringstream out;
  auto none = api::run_streamed(p, std::nullopt, out, api::TextFormat::Csv);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.failure().exit_code, 2);
  EXPECT_NE(none.failure().text().find("'sum' has inputs: give a trace"), std::string::npos) << none.failure().text();
  api::TraceStream missing{"gone.csv", [](std::string &why) -> std::shared_ptr<std::istream> {
                             why = "cannot open 'gone.csv': No such file or directory";
                             return nullptr;
                           },
                           true};
  auto cannot = api::run_streamed(p, missing, out, api::TextFormat::Csv);
  ASSERT_FALSE(cannot.ok());
  EXPECT_EQ(cannot.failure().text(), "rml: error: cannot open 'gone.csv': No such file or directory\n");
  EXPECT_EQ(cannot.failure().exit_code, 2);
  EXPECT_EQ(out.str(), "") << "nothing is written for a trace that cannot be opened";
  api::RunOptions lazy;
  lazy.lazy_if = true;
  CountedTrace t{"x,c\n1,T\n"};
  auto refused = api::run_streamed(p, t.stream(true), out, api::TextFormat::Csv, lazy);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.failure().diagnostics.at(0).rule, "run.option");
  EXPECT_EQ(t.opens, 0);
  EXPECT_EQ(out.str(), "");

  api::Program counter = load_streamed("count.rml", "node count() -> (n: int)\nlet\n  n = 0 -> pre n + 1;\ntel\n");
  for (size_t cycles : {0u, 4u}) {
    std::ostringstream rows;
    api::RunOptions o;
    o.cycles = cycles;
    auto r = api::run_streamed(counter, std::nullopt, rows, api::TextFormat::Csv, o);
    ASSERT_TRUE(r.ok()) << r.failure().text();
    EXPECT_EQ(r->cycles, cycles ? cycles : 10u);
    EXPECT_EQ(rows.str().substr(0, 10), "n\n0\n1\n2\n3\n");
  }

  std::vector<std::string> said;
  api::RunOptions o;
  o.check.progress = [&](const std::string &line) { said.push_back("proof: " + line); };
  o.progress = [&](size_t done, size_t total) { said.push_back(std::to_string(done) + "/" + std::to_string(total)); };
  std::string long_trace = "x,c\n";
  for (int k = 0; k < 2100; ++k) long_trace += std::to_string(k % 7) + (k % 3 ? ",T\n" : ",F\n");
  CountedTrace lt{long_trace};
  std::ostringstream rows;
  auto r = api::run_streamed(p, lt.stream(true), rows, api::TextFormat::Csv, o);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  ASSERT_GE(said.size(), 5u);
  EXPECT_EQ(said[0].rfind("proof: ", 0), 0u);
  std::vector<std::string> tail(said.end() - 4, said.end());
  EXPECT_EQ(tail, (std::vector<std::string>{"0/0", "1024/0", "2048/0", "2100/2100"}));
  for (size_t k = 0; k + 4 < said.size(); ++k) EXPECT_EQ(said[k].rfind("proof: ", 0), 0u) << said[k];
}

// A JSON trace is read whole once and kept: the handover to the runner reads the kept
// text, not the source again. A trace that cannot be read again after the machine's rows
// says where the rows written stop.
TEST(RunStreamed, TheHandoverRereadsWhatItMust) {
  api::Program p = load_streamed("sum.rml", kSumStreamed);
  const std::string json = R"([{"x": 1, "c": true}, {"x": 2, "c": false}, {"x": null, "c": true}, {"x": 4, "c": true}])";
  auto oracle = api::run_trace(p, "t.json", json);
  ASSERT_TRUE(oracle.ok()) << oracle.failure().text();
  CountedTrace t{json};
  std::ostringstream out;
  auto r = api::run_streamed(p, t.stream(true), out, api::TextFormat::Csv);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  EXPECT_EQ(out.str(), oracle->chronogram.csv());
  EXPECT_EQ(t.opens, 1);
  EXPECT_NE(r->diagnostics.at(0).message.find("on the window runtime"), std::string::npos) << r->diagnostics.at(0).message;
  EXPECT_NE(r->diagnostics.at(0).message.find(" from cycle 2 (the trace leaves the clocks there)"), std::string::npos)
      << r->diagnostics.at(0).message;

  int opens = 0;
  api::TraceStream once{"t.csv", [&](std::string &why) -> std::shared_ptr<std::istream> {
                          if (opens++) {
                            why = "'t.csv' is gone";
                            return nullptr;
                          }
                          return std::make_shared<std::istringstream>("x,c\n1,T\n2,F\n_,T\n4,T\n");
                        },
                        true};
  std::ostringstream rows;
  auto gone = api::run_streamed(p, once, rows, api::TextFormat::Csv);
  ASSERT_FALSE(gone.ok());
  EXPECT_EQ(gone.failure().exit_code, 2);
  EXPECT_EQ(gone.failure().text(), "rml: error: 't.csv' is gone\nrml: the output above is incomplete: it stops after cycle 1\n");
  EXPECT_EQ(rows.str(), "x,c,s\n1,T,0\n2,F,0\n");
}

// What the runner says after a handover is what the oracle says, in its order. At cycle 1
// (y present: the base clock ticks) x and c are absent: o1 = 0.5 fby x is an error value
// there and at cycle 2, v0 = if c then x else x at cycle 2 only (c present, x absent), and
// o2 = c, declared on the base clock, is absent at cycle 1: a clock.declared error of the
// run (o1's ‖ is an error value, not also a declaration broken). Error values come by
// cycle, then by variable (o1 before v0 at cycle 2). The runner said neither the declared
// clock nor the oracle's order until the native run's law compared them.
TEST(RunStreamed, DeclaredClocksAndErrorOriginsAsTheOracleSaysThem) {
  api::Program p = load_streamed("declared.rml", R"(node main(x: real, y: int, c: bool) -> (o1: real, o2: bool)
  v0 = if c then x else x;
  o1 = 0.5 fby x;
  o2 = c;
)");
  const char *trace = "x,y,c\n1.5,1,T\n_,2,_\n_,3,T\n";
  auto oracle = api::run_trace(p, "t.csv", trace);
  ASSERT_TRUE(oracle.ok()) << oracle.failure().text();
  CountedTrace t{trace};
  std::ostringstream out;
  auto r = api::run_streamed(p, t.stream(true), out, api::TextFormat::Csv);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  EXPECT_EQ(out.str(), oracle->chronogram.csv());
  EXPECT_NE(r->diagnostics[0].message.find("from cycle 1 (the trace leaves the clocks there)"), std::string::npos) << r->diagnostics[0].message;
  std::vector<std::string> rules;
  for (size_t k = 1; k < r->diagnostics.size(); ++k) rules.push_back(r->diagnostics[k].rule + " " + r->diagnostics[k].message.substr(0, 30));
  EXPECT_EQ(rules, (std::vector<std::string>{"input.clock input x at cycle 1: absent whe", "input.clock input c at cycle 1: absent whe",
                                             "run.error-value error value at cycle 1 in 'o1'", "run.error-value error value at cycle 2 in 'o1'",
                                             "run.error-value error value at cycle 2 in 'v0'", "clock.declared 'o2' is absent at cycle 1, whe"}));
  EXPECT_EQ(rendered(r->diagnostics, 1), rendered(oracle->diagnostics));
  EXPECT_TRUE(r->failed);
  EXPECT_EQ(r->failed, oracle->failed);
}
