// The library interface (include/rml/rml.hpp), as a user's code meets it: loading with
// errors as values, traces, runs on each back end with exact cells, rml-check's verdicts
// with counterexamples, compiling, generating, comparing and shrinking.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <tuple>
#include <utility>

#include <unistd.h>

#include "api/state.hpp"
#include "rml/rapidcheck.hpp"
#include "rml/rml.hpp"

namespace api = rml::api;

namespace {

const char *kBackfill = R"(node backfill(i: int, bp: bool) -> (o: int)
  assume always eventually bp within 3;
  o = merge bp (i when bp) ((post o) when not bp);
)";

std::vector<int64_t> ints(const api::Chronogram &c, const std::string &name) {
  std::vector<int64_t> out;
  const auto *col = c.column(name);
  if (!col) return out;
  for (auto &x : *col) out.push_back(x.kind == api::Cell::Kind::Value ? x.value.ints.at(0) : -999);
  return out;
}

api::Program must_load(const std::string &name, const std::string &text, const api::LoadOptions &o = {}) {
  auto p = api::load_text(name, text, o);
  if (!p) ADD_FAILURE() << p.failure().text();
  return *p;
}

}  // namespace

TEST(Api, LoadingGivesTheMainNodeAndItsInterface) {
  api::Program p = must_load("backfill.rml", kBackfill);
  EXPECT_EQ(p.main(), "backfill");
  ASSERT_EQ(p.inputs().size(), 2u);
  EXPECT_EQ(p.inputs()[0].name, "i");
  EXPECT_EQ(p.inputs()[0].type, "int");
  EXPECT_EQ(p.inputs()[1].type, "bool");
  ASSERT_EQ(p.outputs().size(), 1u);
  EXPECT_EQ(p.outputs()[0].name, "o");
  EXPECT_EQ(p.nodes(), std::vector<std::string>{"backfill"});
  EXPECT_NE(p.normalized().find("post"), std::string::npos);
}

// A program that loads can still carry the front end's warnings, with their notes.
TEST(Api, WarningsComeWithTheProgram) {
  api::Program p = must_load("w.rml", "fun relu(x: real) : real = x;\nnode m(x: real) -> (y: real) let y = relu(x); tel\n");
  auto ws = p.warnings();
  ASSERT_EQ(ws.size(), 1u);
  EXPECT_EQ(ws[0].severity, api::Diagnostic::Severity::Warning);
  EXPECT_EQ(ws[0].rule, "name.shadows-prelude");
  EXPECT_EQ(ws[0].line, 1u);
  EXPECT_EQ(ws[0].column, 5u);
  EXPECT_NE(ws[0].rendered.find("note: the prelude's 'relu'"), std::string::npos) << ws[0].rendered;
  EXPECT_TRUE(must_load("backfill.rml", kBackfill).warnings().empty());
}

// Errors are values: the front end's diagnostics, located, with their rule and the exit
// code the command line uses.
TEST(Api, AFrontEndErrorIsAFailureWithLocatedDiagnostics) {
  auto p = api::load_text("bad.rml", "node f(x: int) -> (y: bool)\nlet\n  y = x + 1;\ntel\n");
  ASSERT_FALSE(p.ok());
  EXPECT_EQ(p.failure().exit_code, 2);
  ASSERT_FALSE(p.failure().diagnostics.empty());
  const api::Diagnostic &d = p.failure().diagnostics[0];
  EXPECT_EQ(d.severity, api::Diagnostic::Severity::Error);
  EXPECT_EQ(d.file, "bad.rml");
  EXPECT_EQ(d.line, 3u);
  EXPECT_FALSE(d.rule.empty());
  EXPECT_NE(d.rendered.find("bad.rml:3:"), std::string::npos) << d.rendered;
  EXPECT_NE(d.rendered.find('^'), std::string::npos) << "a caret excerpt: " << d.rendered;
  EXPECT_EQ(p.failure().summary, "1 error");
  EXPECT_EQ(p.failure().text().substr(p.failure().text().size() - 8), "1 error\n");
  EXPECT_THROW((void)p.value(), std::bad_variant_access);
}

TEST(Api, TheMainNodeIsChosenOrTheChoiceIsAnError) {
  const char *two = "node a(x: int) -> (y: int) let y = x; tel\nnode b(x: int) -> (y: int) let y = x; tel\n";
  auto amb = api::load_text("two.rml", two);
  ASSERT_FALSE(amb.ok());
  EXPECT_EQ(amb.failure().exit_code, 2);
  EXPECT_EQ(amb.failure().diagnostics.at(0).rule, "main.ambiguous") << amb.failure().text();
  auto b = api::load_text("two.rml", two, {"b", {}});
  ASSERT_TRUE(b.ok()) << b.failure().text();
  EXPECT_EQ(b->main(), "b");
  auto none = api::load_text("two.rml", two, {"c", {}});
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.failure().diagnostics.at(0).rule, "main.unknown") << none.failure().text();
  auto missing = api::load_file("/nonexistent/x.rml");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.failure().exit_code, 2);
  EXPECT_NE(missing.failure().text().find("/nonexistent/x.rml"), std::string::npos);
}

// rml parse through the library: the program printed back, or each main node's core
// after the file's constants (so the text checks on its own), or a refusal.
TEST(Api, PrintTextGivesTheProgramOrEachMainNodesCore) {
  const std::string src = "const k: int = 3;\nnode f(x: int) -> (y: int) // one\n  y = x + k;\n\nnode g(x: int) -> (y: int)\n  y = f(x) * 2;\n";
  auto plain = api::print_text("two.rml", src);
  ASSERT_TRUE(plain.ok()) << plain.failure().text();
  EXPECT_EQ(plain->text.find("// one"), std::string::npos) << "comments dropped";
  EXPECT_NE(plain->text.find("node g"), std::string::npos);
  EXPECT_FALSE(plain->failed);
  api::PrintOptions o;
  o.normalized = true;
  auto both = api::print_text("two.rml", src, o);
  ASSERT_TRUE(both.ok()) << both.failure().text();
  EXPECT_EQ(both->text.rfind("const k", 0), 0u) << both->text;
  EXPECT_LT(both->text.find("node f"), both->text.find("node g")) << both->text;
  auto again = api::load_text("core.rml", both->text, {"g", {}});
  EXPECT_TRUE(again.ok()) << "the normalized text loads on its own: " << (again ? "" : again.failure().text()) << both->text;
  o.main = "g";
  auto g = api::print_text("two.rml", src, o);
  ASSERT_TRUE(g.ok());
  EXPECT_EQ(g->text.find("node f"), std::string::npos) << g->text;
  EXPECT_EQ(*g->text.rbegin(), '\n');
  EXPECT_EQ(g->text, both->text.substr(0, both->text.find("node f")) + both->text.substr(both->text.find("node g"))) << "g's core, as among both";
  o.main = "h";
  auto none = api::print_text("two.rml", src, o);
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.failure().diagnostics.at(0).rule, "main.unknown");
  auto warned = api::print_text("w.rml", "fun relu(x: real) : real = x;\nnode m(x: real) -> (y: real)\n  y = relu(x);\n", o);
  ASSERT_FALSE(warned.ok());
  EXPECT_EQ(warned.failure().diagnostics.at(0).rule, "name.shadows-prelude") << "the front end's warnings first";
}

// rml fmt through the library: the canonical layout, comments kept, idempotent; a syntax
// error and a Kind 2 contract are located refusals.
TEST(Api, FormatTextLaysOutAndKeepsComments) {
  const std::string messy = "node  m(x:int)->(y:int) // doubles\n  y=x+x ;\n";
  auto once = api::format_text("m.rml", messy);
  ASSERT_TRUE(once.ok()) << once.failure().text();
  EXPECT_NE(*once, messy);
  EXPECT_NE(once->find("// doubles"), std::string::npos) << *once;
  EXPECT_NE(once->find("y = x + x;"), std::string::npos) << *once;
  auto twice = api::format_text("m.rml", *once);
  ASSERT_TRUE(twice.ok());
  EXPECT_EQ(*twice, *once) << "formatting a formatted text changes nothing";
  auto bad = api::format_text("bad.rml", "node m(x: int) -> (y: int)\n  y = x +;\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.failure().exit_code, 2);
  EXPECT_EQ(bad.failure().diagnostics.at(0).line, 2u);
  auto contract = api::format_text("c.lus", "node m(x: int) returns (y: int);\n(*@contract guarantee y >= 0; *)\nlet\n  y = x;\ntel\n");
  ASSERT_FALSE(contract.ok());
  EXPECT_EQ(contract.failure().diagnostics.at(0).rule, "fmt.contract") << contract.failure().text();
  auto block = api::format_text("f.lus", "node m(c: bool) returns (y: int);\nlet\n  frame (y) y = 0;\n  let\n    if c then y = 1; fi\n  tel\ntel\n");
  ASSERT_FALSE(block.ok());
  EXPECT_EQ(block.failure().diagnostics.at(0).rule, "fmt.block") << block.failure().text();
  EXPECT_EQ(block.failure().diagnostics.at(0).line, 3u);
  // A tester alone (no datatype declared) is enough: printed, it would be `x = A`.
  auto tester = api::format_text("d.lus", "type E = enum { A, B };\nnode m(x: E) returns (y: bool);\nlet\n  y = A?(x);\ntel\n");
  ASSERT_FALSE(tester.ok());
  EXPECT_EQ(tester.failure().diagnostics.at(0).rule, "fmt.datatype") << tester.failure().text();
  EXPECT_EQ(tester.failure().diagnostics.at(0).line, 4u);
  // A quantifier: printed, it would be its expansion.
  auto quantifier = api::format_text("q.lus", "node m(x: bool) returns (y: bool);\nlet\n  y = forall (b: bool) b or not b or x;\ntel\n");
  ASSERT_FALSE(quantifier.ok());
  EXPECT_EQ(quantifier.failure().diagnostics.at(0).rule, "fmt.datatype") << quantifier.failure().text();
  EXPECT_EQ(quantifier.failure().diagnostics.at(0).line, 3u);
  // An activation: printed, it would be its expansion.
  auto activation = api::format_text(
      "a.lus", "node k(x: int) returns (o: int);\nlet\n  o = x;\ntel\nnode m(c: bool; x: int) returns (y: int);\nlet\n  y = merge(c; (activate k every c)(x); 0 when not c);\ntel\n");
  ASSERT_FALSE(activation.ok());
  EXPECT_EQ(activation.failure().diagnostics.at(0).rule, "fmt.datatype") << activation.failure().text();
  EXPECT_EQ(activation.failure().diagnostics.at(0).line, 7u);
}

TEST(Api, ABadTraceIsALocatedFailure) {
  api::Program p = must_load("backfill.rml", kBackfill);
  auto t = api::parse_trace(p, "t.csv", "i,bp\n1,T\n2,maybe\n");
  ASSERT_FALSE(t.ok());
  EXPECT_EQ(t.failure().exit_code, 2);
  const api::Diagnostic &d = t.failure().diagnostics.at(0);
  EXPECT_EQ(d.file, "t.csv");
  EXPECT_EQ(d.line, 3u);
  EXPECT_EQ(d.rule.rfind("trace.", 0), 0u) << d.rendered;
}

// The paper's backfill (Figure 16) on every back end: o at n is i at the next cycle where
// bp holds.
TEST(Api, BackfillRunsToThePapersChronogramOnEveryBackEnd) {
  api::Program p = must_load("backfill.rml", kBackfill);
  auto t = api::parse_trace(p, "t.csv", "i,bp\n2,F\n6,F\n8,T\n5,T\n1,F\n4,T\n");
  ASSERT_TRUE(t.ok()) << t.failure().text();
  EXPECT_EQ(t->cycles, 6u);
  for (api::Backend b : {api::Backend::Oracle, api::Backend::OracleCompiled, api::Backend::Stream}) {
    api::RunOptions o;
    o.backend = b;
    auto r = api::run(p, *t, o);
    ASSERT_TRUE(r.ok()) << r.failure().text();
    EXPECT_EQ(r->chronogram.names, (std::vector<std::string>{"i", "bp", "o"}));
    EXPECT_EQ(ints(r->chronogram, "o"), (std::vector<int64_t>{8, 8, 8, 5, 4, 4})) << static_cast<int>(b);
    EXPECT_FALSE(r->has_error_values);
  }
}

// A prefix that leaves the future open: the last cells are unknown, and said so.
TEST(Api, UnknownCellsAreCellsAndDiagnostics) {
  api::Program p = must_load("backfill.rml", kBackfill);
  auto t = api::parse_trace(p, "t.csv", "i,bp\n2,F\n6,T\n8,F\n");
  ASSERT_TRUE(t.ok());
  auto r = api::run(p, *t);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  const auto &o = *r->chronogram.column("o");
  EXPECT_EQ(o[1].value.ints.at(0), 6);
  EXPECT_EQ(o[2].kind, api::Cell::Kind::Unknown);
  EXPECT_EQ(o[2].text(), "?");
  auto said = std::find_if(r->diagnostics.begin(), r->diagnostics.end(), [](const api::Diagnostic &d) { return d.rule == "run.unknown"; });
  ASSERT_NE(said, r->diagnostics.end());
  EXPECT_NE(said->message.find("cycles 2"), std::string::npos) << said->message;
}

// An input absent where its clock (the base clock) ticks: `i when bp` is an error value
// at that cycle (semantics: the `when` rule), located at the `when`, and the input's clock
// is said to be broken; the cycles after it are computed as usual.
TEST(Api, AnErrorValueIsACellAndADiagnostic) {
  api::Program p = must_load("backfill.rml", kBackfill);
  auto t = api::parse_trace(p, "t.csv", "i,bp\n1,T\n_,F\n3,T\n");
  ASSERT_TRUE(t.ok()) << t.failure().text();
  EXPECT_EQ((*t->column("i"))[1].kind, api::Cell::Kind::Absent);
  auto r = api::run(p, *t);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  EXPECT_TRUE(r->has_error_values);
  const auto &o = *r->chronogram.column("o");
  EXPECT_EQ(o[1].kind, api::Cell::Kind::Error);
  EXPECT_EQ(o[1].text(), "‖");
  EXPECT_EQ(o[2].value.ints.at(0), 3);
  auto e = std::find_if(r->diagnostics.begin(), r->diagnostics.end(), [](const api::Diagnostic &d) { return d.rule == "run.error-value"; });
  ASSERT_NE(e, r->diagnostics.end());
  EXPECT_NE(e->message.find("cycle 1"), std::string::npos) << e->message;
  EXPECT_EQ(e->line, 3u);
  EXPECT_EQ(e->column, 17u);
  EXPECT_TRUE(std::any_of(r->diagnostics.begin(), r->diagnostics.end(), [](const api::Diagnostic &d) {
    return d.rule == "input.clock" && d.severity == api::Diagnostic::Severity::Warning;
  }));
}

TEST(Api, RunRefusesAShowNameAndAMissingInputColumn) {
  api::Program p = must_load("backfill.rml", kBackfill);
  auto t = api::parse_trace(p, "t.csv", "i,bp\n2,T\n");
  api::RunOptions o;
  o.show = {"nope"};
  auto r = api::run(p, *t, o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.failure().diagnostics.at(0).rule, "run.show");
  api::Chronogram half = *t;
  half.names.pop_back();
  half.columns.pop_back();
  auto m = api::run(p, half);
  ASSERT_FALSE(m.ok());
  EXPECT_EQ(m.failure().exit_code, 2);
  EXPECT_EQ(m.failure().diagnostics.at(0).rule, "trace.header");
  EXPECT_NE(m.failure().text().find("'bp'"), std::string::npos) << m.failure().text();
  // A chronogram built by hand with a value of another type, or a tensor whose elements do
  // not fill its shape, is a bad trace on every back end (never read past its elements).
  api::Chronogram wrong = *t;
  wrong.columns[0][0] = api::Cell::of(api::Value::of_real(1.5));
  api::Chronogram torn = *t;
  torn.columns[0][0] = api::Cell::of(api::Value{api::ElementType::Int, {}, {1, 2, 3}, {}});
  for (auto *bad : {&wrong, &torn})
    for (api::Backend b : {api::Backend::Oracle, api::Backend::Stream}) {
      api::RunOptions ob;
      ob.backend = b;
      auto w = api::run(p, *bad, ob);
      ASSERT_FALSE(w.ok());
      EXPECT_EQ(w.failure().exit_code, 2);
      EXPECT_EQ(w.failure().diagnostics.at(0).rule, "trace.cell") << w.failure().text();
      EXPECT_NE(w.failure().diagnostics.at(0).message.find("'i' at cycle 0"), std::string::npos) << w.failure().text();
    }
}

// Required cells (rml run's --require-known/--require-true, rml-check's replays): one that
// holds a value passes; unknown, past the run, nil, or not true fails the run, said at the
// cell and naming who asks; a name that is no stream is refused. The trace's three cycles
// are the boundary: cycle 2 is the last (unknown here), cycle 3 is past it.
TEST(Api, RequiredCellsFailTheRunWhereTheyAreNotAsAsked) {
  api::Program p = must_load("backfill.rml", kBackfill);
  auto t = api::parse_trace(p, "t.csv", "i,bp\n2,F\n6,T\n8,F\n");
  ASSERT_TRUE(t.ok()) << t.failure().text();
  auto failed_with = [&](api::RequiredCell cell) -> std::string {
    api::RunOptions o;
    o.required = {std::move(cell)};
    auto r = api::run(p, *t, o);
    if (!r) return "refused: " + r.failure().text();
    if (!r->failed) return "";
    return r->diagnostics.back().rendered;
  };
  EXPECT_EQ(failed_with({"o", 1, false, "--require-known"}), "");
  EXPECT_EQ(failed_with({"bp", 1, true, "--require-true"}), "");
  EXPECT_EQ(failed_with({"o", 2, false, "--require-known"}),
            "error[run.unknown]: 'o' at cycle 2 is unknown, but --require-known asks for its value\n");
  EXPECT_EQ(failed_with({"o", 3, false, "--require-known"}),
            "error[run.unknown]: 'o' at cycle 3 is past the run's 3 cycles, but --require-known asks for its value\n");
  EXPECT_EQ(failed_with({"bp", 0, true, "--require-true"}), "error[run.false]: 'bp' at cycle 0 is false, but --require-true asks for true\n");
  EXPECT_EQ(failed_with({"i", 0, true, "the replay"}), "error[run.false]: 'i' at cycle 0 is 2 (not a bool), but the replay asks for true\n");
  std::string refused = failed_with({"nope", 0, false, "--require-known"});
  EXPECT_EQ(refused.rfind("refused: backfill.rml: error[run.show]: --require-known: ", 0), 0u) << refused;
  // nil: Lustre's `pre` at the first cycle.
  api::Program pre = must_load("pre.rml", "node p(x: int) -> (y: int)\n  y = pre x;\n");
  auto tx = api::parse_trace(pre, "x.csv", "x\n1\n2\n");
  api::RunOptions o;
  o.required = {{"y", 0, false, "--require-known"}, {"y", 1, true, "--require-true"}};
  auto r = api::run(pre, *tx, o);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  EXPECT_TRUE(r->failed);
  ASSERT_GE(r->diagnostics.size(), 2u);
  EXPECT_EQ(r->diagnostics[r->diagnostics.size() - 2].rule, "run.nil");
  EXPECT_EQ(r->diagnostics.back().rendered, "error[run.false]: 'y' at cycle 1 is 1 (not a bool), but --require-true asks for true\n");
}

// The oracle's options: Kleene's iteration computes the worklist's chronogram; show_all
// returns every stream (a local too), inputs and outputs first; strict_assume turns a
// broken assumption into a failed run, on the oracle and the stream runner alike; the
// stream runner refuses the oracle's own options.
TEST(Api, TheOraclesOptionsAreRunOptions) {
  api::Program p = must_load("m.rml", "node m(c: bool, x: int) -> (o: int)\n  a = x when c;\n  o = merge c a ((x * 2) when not c);\n");
  auto t = api::parse_trace(p, "t.csv", "c,x\nT,1\nF,2\nT,_\n");
  ASSERT_TRUE(t.ok()) << t.failure().text();
  api::RunOptions w, k;
  k.solver = api::OracleSolver::Kleene;
  auto rw = api::run(p, *t, w), rk = api::run(p, *t, k);
  ASSERT_TRUE(rw.ok() && rk.ok());
  EXPECT_EQ(rw->chronogram.columns, rk->chronogram.columns);
  api::RunOptions all;
  all.show_all = true;
  auto ra = api::run(p, *t, all);
  ASSERT_TRUE(ra.ok()) << ra.failure().text();
  // inputs, outputs, then the equations' streams: the local a, and the normalisation's
  // own (t1, ...), as rml run --all prints them.
  ASSERT_GE(ra->chronogram.names.size(), 4u);
  EXPECT_EQ(std::vector<std::string>(ra->chronogram.names.begin(), ra->chronogram.names.begin() + 4), (std::vector<std::string>{"c", "x", "o", "a"}));
  api::Program b = must_load("backfill.rml", kBackfill);
  auto gap = api::parse_trace(b, "gap.csv", "i,bp\n1,T\n2,F\n3,F\n4,F\n5,F\n6,T\n");
  ASSERT_TRUE(gap.ok()) << gap.failure().text();
  for (api::Backend be : {api::Backend::Oracle, api::Backend::Stream}) {
    for (bool strict : {false, true}) {
      api::RunOptions o;
      o.backend = be;
      o.strict_assume = strict;
      auto r = api::run(b, *gap, o);
      ASSERT_TRUE(r.ok()) << r.failure().text();
      auto said = std::find_if(r->diagnostics.begin(), r->diagnostics.end(), [](const api::Diagnostic &d) { return d.rule == "run.assume"; });
      ASSERT_NE(said, r->diagnostics.end()) << static_cast<int>(be);
      EXPECT_EQ(said->severity, strict ? api::Diagnostic::Severity::Error : api::Diagnostic::Severity::Warning);
      EXPECT_EQ(said->line, 2u);
      EXPECT_EQ(r->failed, strict) << static_cast<int>(be);
    }
  }
  api::RunOptions oracle_only;
  oracle_only.backend = api::Backend::Stream;
  oracle_only.solver = api::OracleSolver::Kleene;
  auto refused = api::run(b, *gap, oracle_only);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.failure().diagnostics.at(0).rule, "run.option") << refused.failure().text();
}

// What a run says is one implementation for every back end (api/run_findings.hpp): the
// oracle and the stream runner say the same things, in the same words and order, about
// the same run — error values, inputs off their clocks, unknown cells, broken assumptions.
TEST(Api, TheOracleAndTheStreamRunnerSayTheSame) {
  api::Program p = must_load("backfill.rml", kBackfill);
  size_t compared = 0;
  for (const char *trace : {"i,bp\n1,T\n_,F\n3,T\n", "i,bp\n2,F\n6,T\n8,F\n", "i,bp\n1,T\n2,F\n3,F\n4,F\n5,F\n6,T\n7,F\n"}) {
    auto t = api::parse_trace(p, "t.csv", trace);
    ASSERT_TRUE(t.ok()) << t.failure().text();
    api::RunOptions s;
    s.backend = api::Backend::Stream;
    auto ro = api::run(p, *t), rs = api::run(p, *t, s);
    ASSERT_TRUE(ro.ok() && rs.ok()) << trace;
    std::vector<std::string> said_o, said_s;
    for (auto &d : ro->diagnostics) said_o.push_back(d.rendered);
    for (auto &d : rs->diagnostics) said_s.push_back(d.rendered);
    // The stream back end says first how it ran (its rows, horizon, frames); the rest is
    // what both say.
    ASSERT_FALSE(said_s.empty()) << trace;
    EXPECT_EQ(rs->diagnostics.front().rule, "run.stream");
    EXPECT_EQ(said_s.front().rfind("note: stream backend: " + std::to_string(t->cycles) + " cycles, horizon 4, ", 0), 0u) << said_s.front();
    said_s.erase(said_s.begin());
    EXPECT_FALSE(said_o.empty()) << trace;
    EXPECT_EQ(said_o, said_s) << trace;
    EXPECT_EQ(ro->chronogram.columns, rs->chronogram.columns) << trace;
    EXPECT_EQ(ro->failed, rs->failed) << trace;
    compared += said_o.size();
  }
  EXPECT_GE(compared, 4u);
}

// run_trace reads the trace's text only once the memory the run needs fits: a trace of
// 4000 rows against a 1 MiB cap is refused before it is read (exit 2, the cap named);
// under the default cap it runs; a bad cell is located in the trace.
TEST(Api, RunTraceChecksTheMemoryBeforeReading) {
  api::Program p = must_load("backfill.rml", kBackfill);
  std::string text = "i,bp\n";
  for (int n = 0; n < 4000; ++n) text += std::to_string(n) + ",T\n";
  api::RunOptions small;
  small.max_memory = 1 << 20;
  auto r = api::run_trace(p, "long.csv", text, small);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.failure().exit_code, 2);
  EXPECT_EQ(r.failure().diagnostics.at(0).rule, "run.memory") << r.failure().text();
  EXPECT_NE(r.failure().text().find("--max-memory"), std::string::npos) << r.failure().text();
  auto ok = api::run_trace(p, "long.csv", text);
  ASSERT_TRUE(ok.ok()) << ok.failure().text();
  EXPECT_EQ(ok->chronogram.cycles, 4000u);
  auto bad = api::run_trace(p, "bad.csv", "i,bp\n1,maybe\n");
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.failure().diagnostics.at(0).file, "bad.csv");
  EXPECT_EQ(bad.failure().diagnostics.at(0).line, 2u);
}

// The stream back end's window (2H + 2 frames, H the proved horizon) is under the same
// cap, checked before a frame is allocated: backfill's fits the default cap, not 64 bytes.
TEST(Api, StreamRunChecksItsWindowAgainstTheMemoryCap) {
  api::Program p = must_load("backfill.rml", kBackfill);
  api::RunOptions o;
  o.backend = api::Backend::Stream;
  o.max_memory = 64;
  auto r = api::run_trace(p, "t.csv", "i,bp\n1,T\n2,T\n", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.failure().exit_code, 2);
  EXPECT_EQ(r.failure().diagnostics.at(0).rule, "run.memory") << r.failure().text();
  EXPECT_NE(r.failure().text().find("the stream window of"), std::string::npos) << r.failure().text();
  o.max_memory = api::RunOptions{}.max_memory;
  auto ok = api::run_trace(p, "t.csv", "i,bp\n1,T\n2,T\n", o);
  ASSERT_TRUE(ok.ok()) << ok.failure().text();
  EXPECT_EQ(ok->chronogram.cycles, 2u);
}

// Calls may run at once from different threads (the header says so), on different
// programs or on one shared Program: two threads, each checking and running a program on
// the oracle and the stream runner, get what one thread gets alone, three rounds over.
TEST(Api, CallsFromTwoThreadsGiveWhatOneThreadGets) {
  auto work = [](const api::Program &p, const std::string &trace) -> std::string {
    auto c = api::check(p);
    if (!c) return "check: " + c.failure().text();
    std::string out;
    for (auto &prop : c->properties) out += prop.kind + " " + prop.name + ": " + api::verdict_name(prop.verdict) + "\n";
    auto t = api::parse_trace(p, "t.csv", trace);
    if (!t) return "trace: " + t.failure().text();
    for (api::Backend b : {api::Backend::Oracle, api::Backend::Stream}) {
      api::RunOptions o;
      o.backend = b;
      auto r = api::run(p, *t, o);
      out += r ? r->chronogram.csv() : "run: " + r.failure().text();
      if (r)
        for (auto &d : r->diagnostics) out += d.rendered;
    }
    return out;
  };
  const api::Program a = must_load("a.rml", kBackfill);
  const api::Program b = must_load("b.rml", "node count(reset: bool, x: int) -> (n: int)\n  n = if reset then 0 else (0 fby n) + x;\n  check n <= 100;\n");
  const std::string a_trace = "i,bp\n2,F\n6,F\n8,T\n5,T\n1,F\n4,T\n7,F\n", b_trace = "reset,x\nF,50\nF,40\nF,20\nT,1\nF,3\n";
  const std::string a_alone = work(a, a_trace), b_alone = work(b, b_trace);
  EXPECT_NE(a_alone.find("8\n"), std::string::npos) << a_alone;
  EXPECT_NE(b_alone.find("falsified"), std::string::npos) << b_alone;
  for (int round = 0; round < 3; ++round) {
    std::string x, y, z, w;
    std::thread ta([&] { x = work(a, a_trace); }), tb([&] { y = work(b, b_trace); });
    ta.join();
    tb.join();
    EXPECT_EQ(x, a_alone) << "round " << round;
    EXPECT_EQ(y, b_alone) << "round " << round;
    std::thread t1([&] { z = work(b, b_trace); }), t2([&] { w = work(b, b_trace); });  // one Program, shared
    t1.join();
    t2.join();
    EXPECT_EQ(z, b_alone) << "round " << round;
    EXPECT_EQ(w, b_alone) << "round " << round;
  }
}

// rml-check's verdicts, with the counterexample as a chronogram that the oracle replays
// to the failure.
TEST(Api, CheckGivesVerdictsAndReplayableCounterexamples) {
  api::Program p = must_load("count.rml", R"(node count(reset: bool) -> (n: int)
let
  n = 0 -> if reset or pre n >= 5 then 0 else pre n + 1;
  check n >= 0;
  check n < 3;
tel
)");
  auto rep = api::check(p);
  ASSERT_TRUE(rep.ok()) << rep.failure().text();
  EXPECT_EQ(rep->main, "count");
  const api::Property *ge = nullptr, *lt = nullptr;
  for (auto &q : rep->properties) {
    if (q.kind != "property") {
      EXPECT_EQ(q.verdict, api::Verdict::Valid) << q.kind;
      continue;
    }
    (q.name.find(">=") != std::string::npos ? ge : lt) = &q;
  }
  ASSERT_TRUE(ge && lt);
  EXPECT_EQ(ge->verdict, api::Verdict::Valid);
  ASSERT_EQ(lt->verdict, api::Verdict::Falsified);
  EXPECT_EQ(rep->exit_code(), 1);
  ASSERT_TRUE(lt->counterexample);
  const api::Chronogram &cex = *lt->counterexample;
  // n < 3 fails first at cycle 3, when reset stays false from the start.
  EXPECT_GE(cex.cycles, 4u);
  api::RunOptions o;
  o.show = {"n"};
  auto r = api::run(p, cex, o);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  auto n = ints(r->chronogram, "n");
  EXPECT_TRUE(std::any_of(n.begin(), n.end(), [](int64_t v) { return v >= 3; })) << "the replay shows n >= 3";
}

// --int-overflow error through the library: check() adds the property "overflow", whose
// counterexample replays with the overflowing cell an error value, and proves `y > x`
// in that reading (falsified without it); run() computes the same reading on the oracle,
// and the stream back end refuses it.
TEST(Api, AnIntOverflowIsAnErrorWhenAsked) {
  api::Program p = must_load("inc.lus", "node inc(x: int) returns (y: int);\nlet\n  y = x + 1;\n  check y > x;\ntel\n");
  api::CheckOptions co;
  co.int_overflow_error = true;
  auto rep = api::check(p, co);
  ASSERT_TRUE(rep.ok()) << rep.failure().text();
  const api::Property *ovf = nullptr, *gt = nullptr;
  for (auto &q : rep->properties) {
    if (q.kind == "overflow") ovf = &q;
    if (q.kind == "property") gt = &q;
  }
  ASSERT_TRUE(ovf && gt);
  ASSERT_EQ(ovf->verdict, api::Verdict::Falsified);
  ASSERT_TRUE(ovf->replay);
  const auto *y = ovf->replay->column("y");
  ASSERT_NE(y, nullptr);
  EXPECT_EQ(y->at(0).kind, api::Cell::Kind::Error);
  EXPECT_EQ(gt->verdict, api::Verdict::Valid) << gt->method;
  auto wrapping = api::check(p);
  ASSERT_TRUE(wrapping.ok());
  for (auto &q : wrapping->properties) {
    EXPECT_NE(q.kind, "overflow");
    if (q.kind == "property") EXPECT_EQ(q.verdict, api::Verdict::Falsified);
  }
  auto t = api::parse_trace(p, "t.csv", "x\n9223372036854775806\n9223372036854775807\n");
  ASSERT_TRUE(t.ok()) << t.failure().text();
  api::RunOptions ro;
  ro.int_overflow_error = true;
  auto r = api::run(p, *t, ro);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  EXPECT_TRUE(r->has_error_values);
  EXPECT_EQ(ints(r->chronogram, "y"), (std::vector<int64_t>{9223372036854775807, -999}));
  auto w = api::run(p, *t);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->has_error_values);
  ro.backend = api::Backend::Stream;
  auto refused = api::run(p, *t, ro);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.failure().diagnostics.at(0).rule, "run.option") << refused.failure().text();
}

// A whole file as rml-check checks it: the main node, every other node with a property
// in its own context (any input), and a generic node's property said unchecked, with the
// reason. check() of the main node alone does not see the other nodes' properties.
// `jobs` at least twice the nodes gives each node a second lane (IC3/PDR from the start,
// checker/portfolio.hpp): x <> 200 is not k-inductive (the ceiling `50 * 2` is no
// constant Houdini would try as a bound), and at 1 M units the engines in
// their order reach Spacer with too little left, while the second lane proves it. Fewer
// jobs: one lane, unknown. Resource budgets only.
TEST(Api, TwoJobsForOneNodeGiveItASecondLane) {
  const char *text = R"(
node main(a : bool) returns (ok : bool);
var x : int;
let
  x = 0 -> if pre x = 50 * 2 then 0 else pre x + 1;
  ok = x <> 200;
  --%PROPERTY ok;
tel
)";
  auto verdict = [&](unsigned jobs) {
    api::FileCheckOptions o;
    o.check.rlimit = 1'000'000;
    o.jobs = jobs;
    auto rep = api::check_text("counter.lus", text, o);
    if (!rep.ok()) throw std::runtime_error(rep.failure().text());
    for (auto &q : rep->checked.at(0).properties)
      if (q.kind == "property") return std::make_pair(q.verdict, q.method);
    throw std::runtime_error("no user property");
  };
  auto [one, why_one] = verdict(1);
  EXPECT_EQ(one, api::Verdict::Unknown) << why_one;
  auto [two, why_two] = verdict(2);
  EXPECT_EQ(two, api::Verdict::Valid) << why_two;
  EXPECT_NE(why_two.find("on a second lane"), std::string::npos) << why_two;
}

TEST(Api, CheckFileChecksEveryNodeWithAProperty) {
  const char *text = R"(// main: top
node helper(x: int) returns (y: int);
let
  y = if x > 0 then x else 0;
  --%PROPERTY y >= 0;
tel

node clip(x: int) returns (y: int);
let
  y = x;
  (*%PROPERTY "clip.nonneg" y >= 0; *)
tel

node gen<<const n: int>>(x: int) returns (y: int);
let
  y = x + n;
  --%PROPERTY y >= x;
tel

node top(a: int) returns (b: int);
let
  b = helper(a) + gen<<1>>(a);
tel
)";
  auto rep = api::check_text("nodes.lus", text);
  ASSERT_TRUE(rep.ok()) << rep.failure().text();
  EXPECT_EQ(rep->nodes, (std::vector<std::string>{"helper", "clip", "gen", "top"}));
  ASSERT_EQ(rep->checked.size(), 4u);
  std::vector<std::string> order;
  for (auto &n : rep->checked) order.push_back(n.node);
  EXPECT_EQ(order, (std::vector<std::string>{"top", "helper", "clip", "gen"}));
  auto user = [](const api::NodeCheck &n) {
    std::vector<const api::Property *> out;
    for (auto &q : n.properties)
      if (q.kind == "property") out.push_back(&q);
    return out;
  };
  // top has no property of its own: its four obligations hold.
  const api::NodeCheck &top = rep->checked[0];
  ASSERT_TRUE(top.program);
  EXPECT_EQ(top.program->main(), "top");
  EXPECT_TRUE(user(top).empty());
  for (auto &q : top.properties) EXPECT_EQ(q.verdict, api::Verdict::Valid) << q.kind;
  // helper's holds for any input.
  auto helper = user(rep->checked[1]);
  ASSERT_EQ(helper.size(), 1u);
  EXPECT_EQ(helper[0]->verdict, api::Verdict::Valid);
  EXPECT_EQ(helper[0]->name, "y >= 0");
  EXPECT_FALSE(helper[0]->named);
  EXPECT_EQ(helper[0]->line, 5u);
  // clip's, named, fails at the first cycle on a negative input; the replay shows the
  // input and the property's cell, which a replay must find false.
  auto clip = user(rep->checked[2]);
  ASSERT_EQ(clip.size(), 1u);
  const api::Property &nonneg = *clip[0];
  EXPECT_EQ(nonneg.name, "clip.nonneg");
  EXPECT_TRUE(nonneg.named);
  EXPECT_EQ(nonneg.text, "y >= 0");
  EXPECT_EQ(nonneg.line, 11u);
  EXPECT_EQ(nonneg.column, 3u);
  ASSERT_EQ(nonneg.verdict, api::Verdict::Falsified);
  ASSERT_EQ(nonneg.findings.size(), 1u);
  EXPECT_EQ(nonneg.findings[0].severity, api::Diagnostic::Severity::Error);
  EXPECT_EQ(nonneg.findings[0].rule, "property.falsified");
  ASSERT_TRUE(nonneg.counterexample && nonneg.replay && nonneg.counterexample_cell) << nonneg.replay_error;
  EXPECT_EQ(nonneg.counterexample->names, std::vector<std::string>{"x"});
  EXPECT_LT(ints(*nonneg.counterexample, "x").at(0), 0);
  EXPECT_TRUE(nonneg.counterexample_cell->must_be_true);
  EXPECT_EQ(nonneg.counterexample_cell->cycle, 0u);
  const std::string cell = nonneg.counterexample_cell->stream;
  ASSERT_TRUE(nonneg.replay->column(cell)) << cell;
  EXPECT_EQ(nonneg.replay->column(cell)->at(0), api::Cell::of(api::Value::of_bool(false)));
  EXPECT_EQ(nonneg.replay->names.at(0), "x");
  // The property's cell is neither an input nor an output: rml run must be told to show it.
  EXPECT_EQ(nonneg.replay_show.at(0), "x");
  EXPECT_NE(std::find(nonneg.replay_show.begin(), nonneg.replay_show.end(), cell), nonneg.replay_show.end());
  // The trace text is the counterexample, and replays to the failure through the library.
  ASSERT_TRUE(rep->checked[2].program);
  auto trace = api::parse_trace(*rep->checked[2].program, "cex.csv", nonneg.counterexample_csv);
  ASSERT_TRUE(trace.ok()) << trace.failure().text();
  EXPECT_EQ(trace->names, nonneg.counterexample->names);
  EXPECT_EQ(trace->columns, nonneg.counterexample->columns);
  api::RunOptions ro;
  ro.required.push_back(*nonneg.counterexample_cell);
  ro.show = nonneg.replay_show;
  auto replayed = api::run(*rep->checked[2].program, *trace, ro);
  ASSERT_TRUE(replayed.ok()) << replayed.failure().text();
  EXPECT_TRUE(replayed->failed);
  // gen's has no values of its own.
  const api::NodeCheck &gen = rep->checked[3];
  EXPECT_FALSE(gen.program);
  ASSERT_EQ(gen.properties.size(), 1u);
  EXPECT_EQ(gen.properties[0].verdict, api::Verdict::Unknown);
  EXPECT_EQ(gen.properties[0].name, "y >= x");
  EXPECT_NE(gen.properties[0].method.find("static parameters"), std::string::npos) << gen.properties[0].method;
  EXPECT_EQ(rep->exit_code(), 1);
  // Without clip, the worst is gen's unknown.
  std::string no_clip = text;
  no_clip.replace(no_clip.find("(*%PROPERTY"), std::string("(*%PROPERTY \"clip.nonneg\" y >= 0; *)").size(), "");
  auto rest = api::check_text("nodes.lus", no_clip);
  ASSERT_TRUE(rest.ok()) << rest.failure().text();
  EXPECT_EQ(rest->checked.size(), 3u);
  EXPECT_EQ(rest->exit_code(), 3);
  // Nodes checked at once give the same report, node by node and cell by cell.
  api::FileCheckOptions jobs;
  jobs.jobs = 4;
  auto parallel = api::check_text("nodes.lus", text, jobs);
  ASSERT_TRUE(parallel.ok()) << parallel.failure().text();
  ASSERT_EQ(parallel->checked.size(), rep->checked.size());
  for (size_t k = 0; k < rep->checked.size(); ++k) {
    const api::NodeCheck &a = rep->checked[k], &b = parallel->checked[k];
    EXPECT_EQ(a.node, b.node);
    ASSERT_EQ(a.properties.size(), b.properties.size()) << a.node;
    for (size_t j = 0; j < a.properties.size(); ++j) {
      const api::Property &p = a.properties[j], &q = b.properties[j];
      EXPECT_EQ(std::tie(p.kind, p.name, p.verdict, p.method, p.resources, p.counterexample_csv),
                std::tie(q.kind, q.name, q.verdict, q.method, q.resources, q.counterexample_csv))
          << a.node << " " << p.kind;
    }
  }
  // The main node alone: none of the others' properties.
  auto alone = api::check(*top.program);
  ASSERT_TRUE(alone.ok());
  EXPECT_EQ(alone->properties.size(), top.properties.size());
  EXPECT_EQ(alone->exit_code(), 0);
}

// on_node tells each node once, in the report's order, as soon as the node and those
// before it are checked, with the front end's warnings already there and the node's report
// as it will be returned; whatever `jobs` is. The first node (a counter whose bound needs
// induction) takes longer than the others, so with jobs 3 they may finish before it and
// must wait. A callback that throws ends the check with its message (exit 3), telling no
// later node and, one node at a time, beginning none.
TEST(Api, CheckFileTellsEachNodeInTheReportsOrder) {
  const char *text = R"(fun relu(x: real) : real = x;
node count(reset: bool) -> (n: int)
  n = if reset then 0 else (0 fby (if n >= 10 then 0 else n)) + 1;
  check n <= 11;
node twice(x: real) -> (y: real)
  y = relu(x) + relu(x);
  check y = 2.0 * x;
node neg(x: int) -> (y: int)
  y = 0 - x;
  check y <= 0;
)";
  for (unsigned jobs : {1u, 3u}) {
    SCOPED_TRACE("jobs " + std::to_string(jobs));
    api::FileCheckOptions o;
    o.main = "count";
    o.jobs = jobs;
    std::vector<size_t> told;
    std::vector<std::string> names, verdicts;
    size_t warnings_seen = 0;
    o.on_node = [&](const api::FileCheckReport &so_far, size_t k) {
      told.push_back(k);
      warnings_seen = so_far.warnings.size();
      names.push_back(so_far.checked[k].node);
      std::string v;
      for (auto &q : so_far.checked[k].properties) v += q.kind + "=" + api::verdict_name(q.verdict) + " ";
      verdicts.push_back(v);
    };
    auto rep = api::check_text("told.rml", text, o);
    ASSERT_TRUE(rep.ok()) << rep.failure().text();
    ASSERT_EQ(rep->checked.size(), 3u);
    EXPECT_EQ(told, (std::vector<size_t>{0, 1, 2}));
    EXPECT_EQ(names, (std::vector<std::string>{"count", "twice", "neg"}));
    EXPECT_EQ(warnings_seen, 1u);  // relu shadows the prelude's
    for (size_t k = 0; k < rep->checked.size(); ++k) {
      std::string v;
      for (auto &q : rep->checked[k].properties) v += q.kind + "=" + api::verdict_name(q.verdict) + " ";
      EXPECT_EQ(verdicts.at(k), v) << rep->checked[k].node;
    }
    // A falsified one among them (neg: y <= 0 fails on a negative input).
    EXPECT_NE(verdicts.at(2).find("property=falsified"), std::string::npos) << verdicts.at(2);
    // A callback that throws at the first node: the check fails with its message, and no
    // other node is told.
    size_t calls = 0;
    o.on_node = [&](const api::FileCheckReport &, size_t) {
      ++calls;
      throw std::runtime_error("the disk is full");
    };
    std::vector<std::string> started;  // the progress line's: which nodes were begun
    o.check.progress = [&](const std::string &what) { started.push_back(what); };
    auto stopped = api::check_text("told.rml", text, o);
    ASSERT_FALSE(stopped.ok());
    EXPECT_EQ(stopped.failure().exit_code, 3);
    EXPECT_NE(stopped.failure().text().find("the disk is full"), std::string::npos) << stopped.failure().text();
    EXPECT_EQ(calls, 1u);
    // One node at a time: none is begun after the throw.
    if (jobs == 1) {
      ASSERT_FALSE(started.empty());
      for (auto &line : started) EXPECT_NE(line.find("node count:"), std::string::npos) << line;
    }
  }
}

// grad_text: a fun's value and gradient at a point. Laws: the value and each partial
// derivative equal the closed form of the cross-entropy of softmax(w * x) (d/dw_i =
// x_i (softmax(z)_i - y_i), d/dx_i = w_i (softmax(z)_i - y_i), d/dy_i = -z_i), computed
// here in double, to 1e-12; each equals the float64 central difference of the values
// grad_text gives at moved points (h = 1e-6) to 1e-6; the reference evaluator agrees
// with the compiled one; `wrt` keeps its parameters only. Refusals are located, with
// their rules and exit codes, the front end's warnings first.
TEST(Api, GradAtAPointIsTheClosedFormAndTheCentralDifferences) {
  const std::string text = "fun loss(w: real[3], x: real[3], y: real[3]) : real = logsumexp(w * x) - dot(y, w * x);\n";
  const std::vector<double> w{0.5, -1, 2}, x{1, 2, 0.5}, y{0, 1, 0};
  auto list = [](const std::vector<double> &v) {
    std::string s = "[";
    for (size_t k = 0; k < v.size(); ++k) {
      char b[32];
      std::snprintf(b, sizeof b, "%.17g", v[k]);
      s += (k ? ", " : "") + std::string(b);
    }
    return s + "]";
  };
  auto at = [&](const std::vector<double> &ww, const std::vector<double> &xx, const std::vector<double> &yy) {
    return "{\"w\": " + list(ww) + ", \"x\": " + list(xx) + ", \"y\": " + list(yy) + "}";
  };
  std::vector<double> z(3), sm(3);
  double m = 0, sum = 0;
  for (size_t i = 0; i < 3; ++i) z[i] = w[i] * x[i];
  m = *std::max_element(z.begin(), z.end());
  for (size_t i = 0; i < 3; ++i) sum += std::exp(z[i] - m);
  for (size_t i = 0; i < 3; ++i) sm[i] = std::exp(z[i] - m) / sum;
  const double value = m + std::log(sum) - (y[0] * z[0] + y[1] * z[1] + y[2] * z[2]);
  std::vector<std::vector<double>> closed(3, std::vector<double>(3));
  for (size_t i = 0; i < 3; ++i) {
    closed[0][i] = x[i] * (sm[i] - y[i]);
    closed[1][i] = w[i] * (sm[i] - y[i]);
    closed[2][i] = -z[i];
  }
  api::GradOptions o;
  o.fun = "loss";
  auto g = api::grad_text("ce.rml", text, "at.json", at(w, x, y), o);
  ASSERT_TRUE(g.ok()) << g.failure().text();
  EXPECT_TRUE(g->warnings.empty());
  EXPECT_EQ(g->value.type, api::ElementType::Real);
  EXPECT_TRUE(g->value.shape.empty());
  EXPECT_NEAR(g->value.reals.at(0), value, 1e-12);
  ASSERT_EQ(g->gradient.size(), 3u);
  const std::vector<std::string> names{"w", "x", "y"};
  for (size_t p = 0; p < 3; ++p) {
    EXPECT_EQ(g->gradient[p].first, names[p]);
    EXPECT_EQ(g->gradient[p].second.shape, std::vector<size_t>{3});
    for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(g->gradient[p].second.reals.at(i), closed[p][i], 1e-12) << names[p] << i;
  }
  // Central differences of the values grad_text gives, for w.
  const double h = 1e-6;
  for (size_t i = 0; i < 3; ++i) {
    std::vector<double> up = w, down = w;
    up[i] += h, down[i] -= h;
    auto gu = api::grad_text("ce.rml", text, "at.json", at(up, x, y), o), gd = api::grad_text("ce.rml", text, "at.json", at(down, x, y), o);
    ASSERT_TRUE(gu.ok() && gd.ok());
    EXPECT_NEAR((gu->value.reals.at(0) - gd->value.reals.at(0)) / (2 * h), g->gradient[0].second.reals.at(i), 1e-6) << i;
  }
  // The reference evaluator, and wrt.
  api::GradOptions ref = o;
  ref.evaluator = api::GradOptions::Evaluator::Reference;
  ref.wrt = {"w"};
  auto r = api::grad_text("ce.rml", text, "at.json", at(w, x, y), ref);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  ASSERT_EQ(r->gradient.size(), 1u);
  EXPECT_EQ(r->gradient[0].first, "w");
  for (size_t i = 0; i < 3; ++i) EXPECT_NEAR(r->gradient[0].second.reals.at(i), g->gradient[0].second.reals.at(i), 1e-12);
  // The programs, printed.
  auto printed = api::grad_programs("ce.rml", text, {}, o);
  ASSERT_TRUE(printed.ok()) << printed.failure().text();
  EXPECT_EQ(printed->text.rfind("-- loss: vectorised objective\n", 0), 0u) << printed->text;
  EXPECT_NE(printed->text.find("-- loss: gradient program (inputs: the arguments, then the cotangent of the value)\n"), std::string::npos);
  // Refusals, each located and ruled.
  auto refused = [&](const std::string &program, const std::string &point, const api::GradOptions &go, const std::string &rule) {
    auto f = api::grad_text("bad.rml", program, "at.json", point, go);
    EXPECT_FALSE(f.ok()) << rule;
    if (f.ok()) return api::Failure{};
    EXPECT_EQ(f.failure().exit_code, 2) << rule;
    bool found = false;
    for (auto &d : f.failure().diagnostics) found |= d.rule == rule && d.severity == api::Diagnostic::Severity::Error;
    EXPECT_TRUE(found) << rule << ":\n" << f.failure().text();
    return f.failure();
  };
  api::GradOptions typo = o;
  typo.fun = "los";
  api::Failure unknown = refused(text, at(w, x, y), typo, "grad.unknown-fun");
  EXPECT_NE(unknown.text().find("did you mean 'loss'?"), std::string::npos) << unknown.text();
  api::GradOptions wrt = o;
  wrt.wrt = {"z"};
  api::Failure bad_wrt = refused(text, at(w, x, y), wrt, "grad.wrt");
  ASSERT_FALSE(bad_wrt.diagnostics.empty());
  EXPECT_EQ(bad_wrt.diagnostics[0].line, 1u);
  refused(text, "{\"w\": [1, 2, 3], \"x\": [1, 2, 3]}", o, "grad.arguments");
  api::GradOptions sm_fun = o;
  sm_fun.fun = "sm";
  refused("fun sm(z: real[3]) : real[3] = softmax(z);\n", "{\"z\": [1, 2, 3]}", sm_fun, "grad.objective");
  // The front end's warnings come first, on a refusal and with a gradient.
  const std::string shadow = "fun relu(x: real) : real = x;\n" + text;
  api::Failure warned = refused(shadow, at(w, x, y), wrt, "grad.wrt");
  ASSERT_FALSE(warned.diagnostics.empty());
  EXPECT_EQ(warned.diagnostics[0].rule, "name.shadows-prelude");
  auto with_warning = api::grad_text("w.rml", shadow, "at.json", at(w, x, y), o);
  ASSERT_TRUE(with_warning.ok()) << with_warning.failure().text();
  ASSERT_EQ(with_warning->warnings.size(), 1u);
  EXPECT_EQ(with_warning->warnings[0].rule, "name.shadows-prelude");
}

// What check_file refuses, as values with rml-check's exit code 2 and a rule.
TEST(Api, CheckFileRefusesWhatItCannotCheck) {
  auto empty = api::check_text("empty.lus", "");
  ASSERT_FALSE(empty.ok());
  EXPECT_EQ(empty.failure().exit_code, 2);
  EXPECT_EQ(empty.failure().diagnostics.at(0).rule, "check.no-node");
  EXPECT_EQ(empty.failure().text(), "rml-check: error: empty.lus: no node to check: the file declares no node; --frontend-only checks names, types and shapes only\n");
  const char *two = "node a(x: int) returns (y: int); let y = x; tel\nnode b(x: int) returns (y: int); let y = x; tel\n";
  api::FileCheckOptions c;
  c.main = "c";
  auto unknown = api::check_text("two.lus", two, c);
  ASSERT_FALSE(unknown.ok());
  EXPECT_EQ(unknown.failure().diagnostics.at(0).rule, "main.unknown") << unknown.failure().text();
  api::FileCheckOptions assume;
  assume.assume = {"always x > 0"};
  auto both = api::check_text("two.lus", two, assume);
  ASSERT_FALSE(both.ok());
  EXPECT_EQ(both.failure().text(), "rml-check: error: --assume needs one main node (use --main)\n");
  assume.main = "a";
  assume.assume = {"always x >"};
  auto bad = api::check_text("two.lus", two, assume);
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.failure().exit_code, 2);
  EXPECT_EQ(bad.failure().text().rfind("rml-check: error: in --assume:\n<--assume 1>:1:", 0), 0u) << bad.failure().text();
  // Both nodes are mains when none is chosen; with frontend_only, none is checked.
  auto all = api::check_text("two.lus", two);
  ASSERT_TRUE(all.ok()) << all.failure().text();
  EXPECT_EQ(all->checked.size(), 2u);
  EXPECT_EQ(all->exit_code(), 0);
  api::FileCheckOptions fo;
  fo.frontend_only = true;
  auto front = api::check_text("two.lus", two, fo);
  ASSERT_TRUE(front.ok());
  EXPECT_TRUE(front->checked.empty());
  EXPECT_EQ(front->nodes.size(), 2u);
  api::FileCheckOptions no_time;
  no_time.check.seconds = 0.0;
  auto zero = api::check_text("two.lus", two, no_time);
  ASSERT_FALSE(zero.ok());
  EXPECT_EQ(zero.failure().exit_code, 2);
  // A refusal after the front end keeps the front end's warnings, first.
  const char *shadow = "fun relu(x: real) : real = x;\nnode m(x: real) -> (y: real)\n  y = relu(x);\n";
  auto warned = api::check_text("w.rml", shadow, c);
  ASSERT_FALSE(warned.ok());
  EXPECT_EQ(warned.failure().diagnostics.at(0).rule, "name.shadows-prelude") << warned.failure().text();
  EXPECT_EQ(warned.failure().diagnostics.at(1).rule, "main.unknown") << warned.failure().text();
  auto loaded = api::load_text("w.rml", shadow, {"c", {}});
  ASSERT_FALSE(loaded.ok());
  EXPECT_EQ(loaded.failure().diagnostics.at(0).rule, "name.shadows-prelude") << loaded.failure().text();
  auto missing = api::check_file("/nonexistent/x.lus");
  ASSERT_FALSE(missing.ok());
  EXPECT_EQ(missing.failure().exit_code, 2);
}

// The training program of a node, derived and then loaded and run as any program: its
// gradient output is the derivative (2x + 3 of x*x + 3x, exact in binary64 at these
// points) and agrees with float64 central differences of the forward node.
TEST(Api, AdjointDerivesATrainingProgramThatRunsToTheGradient) {
  api::Program fwd = must_load("poly.rml", "node poly(x: real) -> (y: real)\n  y = x * x + 3.0 * x;\n");
  auto a = api::adjoint(fwd);
  ASSERT_TRUE(a.ok()) << a.failure().text();
  EXPECT_EQ(a->node, "poly_adjoint");
  EXPECT_EQ(a->bp, "bp");
  ASSERT_EQ(a->seeds.size(), 1u);
  EXPECT_EQ(a->seeds[0].first, "y");
  ASSERT_EQ(a->gradients.size(), 1u);
  EXPECT_EQ(a->gradients[0].first, "x");
  EXPECT_EQ(a->source.rfind("node poly(x: real)", 0), 0u) << "the input file comes first";
  EXPECT_NE(a->source.find(a->derived), std::string::npos);
  auto train = api::load_text("poly_train.rml", a->source, {a->node, {}});
  ASSERT_TRUE(train.ok()) << train.failure().text() << a->source;
  const std::string dy = a->seeds[0].second, dx = a->gradients[0].second;
  auto t = api::parse_trace(*train, "t.csv", "x," + a->bp + "," + dy + "\n0.5,T,1.0\n-2.0,T,1.0\n1.25,T,1.0\n");
  ASSERT_TRUE(t.ok()) << t.failure().text();
  auto r = api::run(*train, *t);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  const auto *col = r->chronogram.column(dx);
  ASSERT_TRUE(col) << dx;
  const double xs[] = {0.5, -2.0, 1.25}, want[] = {4.0, -1.0, 5.5};
  for (size_t n = 0; n < 3; ++n) {
    ASSERT_EQ(col->at(n).kind, api::Cell::Kind::Value) << n;
    EXPECT_EQ(col->at(n).value.reals.at(0), want[n]) << n;
    auto f = [](double x) { return x * x + 3.0 * x; };
    const double h = 1e-6;
    EXPECT_NEAR(col->at(n).value.reals.at(0), (f(xs[n] + h) - f(xs[n] - h)) / (2 * h), 1e-6) << n;
  }
  // The other derivation: names chosen, a located refusal.
  api::AdjointOptions o;
  o.name = "poly_train";
  auto named = api::adjoint(fwd, o);
  ASSERT_TRUE(named.ok());
  EXPECT_EQ(named->node, "poly_train");
  api::Program clocked = must_load("clocked.rml", "node f(c: bool, x: real when c) -> (y: real when c)\n  y = 2.0 * x;\n");
  auto refused = api::adjoint(clocked);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.failure().exit_code, 2);
  const api::Diagnostic &d = refused.failure().diagnostics.at(0);
  EXPECT_EQ(d.rule, "adjoint.interface-clock");
  EXPECT_EQ(d.line, 1u);
  EXPECT_EQ(d.column, 6u);
}

TEST(Api, CompileWritesTheStepClassOnceTheNodeIsProved) {
  api::Program p = must_load("backfill.rml", kBackfill);
  auto k = api::compile(p);
  ASSERT_TRUE(k.ok()) << k.failure().text();
  EXPECT_EQ(k->class_name, "backfill");
  EXPECT_TRUE(k->window);  // backfill reads the future: a window class
  auto has = [&](const std::string &path) {
    return std::any_of(k->files.begin(), k->files.end(), [&](const api::GeneratedFile &f) { return f.path == path; });
  };
  EXPECT_TRUE(has("backfill.hpp"));
  EXPECT_TRUE(has("backfill.cpp"));
  EXPECT_TRUE(has("CMakeLists.txt"));
  // A node that is not productive is refused, with rml-check's reason (exit 2).
  api::Program bad = must_load("late.rml", "node late(i: int) -> (o: int) let o = post o; tel\n");
  auto no = api::compile(bad);
  ASSERT_FALSE(no.ok());
  EXPECT_EQ(no.failure().exit_code, 2);
  EXPECT_EQ(no.failure().diagnostics.at(0).rule, "stream.unchecked") << no.failure().text();
}

// LoadOptions::assume is rml-check's --assume: backfill without its assumption in the
// text is not productive (the future it waits for may never come), and is with it.
TEST(Api, AssumptionsGivenAtLoadingAreTheNodesOwn) {
  const char *bare = "node backfill(i: int, bp: bool) -> (o: int)\n  o = merge bp (i when bp) ((post o) when not bp);\n";
  api::Program without = must_load("bare.rml", bare);
  auto no = api::check(without);
  ASSERT_TRUE(no.ok()) << no.failure().text();
  EXPECT_NE(no->exit_code(), 0);
  api::RunOptions s;
  s.backend = api::Backend::Stream;
  auto t = api::parse_trace(without, "t.csv", "i,bp\n1,T\n");
  ASSERT_TRUE(t.ok());
  auto refused = api::run(without, *t, s);
  ASSERT_FALSE(refused.ok());
  EXPECT_EQ(refused.failure().diagnostics.at(0).rule, "stream.unchecked") << refused.failure().text();
  api::Program with = must_load("bare.rml", bare, {"", {"always eventually bp within 3"}});
  auto yes = api::check(with);
  ASSERT_TRUE(yes.ok()) << yes.failure().text();
  EXPECT_EQ(yes->exit_code(), 0);
  for (auto &q : yes->properties)
    if (q.kind == "productivity") {
      // bp may stay false for 3 cycles, so o can wait 3 cycles for its value: a sound
      // horizon is at least 3; rml-check's bound for `within 3` is one more (README).
      ASSERT_TRUE(q.horizon.has_value());
      EXPECT_GE(*q.horizon, 3);
      EXPECT_LE(*q.horizon, 4);
    }
  auto ran = api::run(with, *t, s);
  ASSERT_TRUE(ran.ok()) << ran.failure().text();
  EXPECT_EQ(ints(ran->chronogram, "o"), std::vector<int64_t>{1});
  // An assumption that does not parse is the loading's failure, located in its own text.
  auto bad = api::load_text("bare.rml", bare, {"", {"always eventually"}});
  ASSERT_FALSE(bad.ok());
  EXPECT_EQ(bad.failure().exit_code, 2);
  EXPECT_EQ(bad.failure().diagnostics.at(0).file, "<--assume 1>") << bad.failure().text();
}

// A node that applies an imported function (no body) cannot be compiled (exit 3, what rml
// cannot do) and runs only on a trace that gives the imported output's values.
TEST(Api, ImportedCallsAreRefusedWhereNoBackEndComputesThem) {
  api::Program p = must_load("imp.rml", "imported node f(x: int) -> (y: int);\nnode m(x: int) -> (z: int) let z = f(x) + 1; tel\n", {"m", {}});
  auto k = api::compile(p);
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(k.failure().exit_code, 3);
  EXPECT_EQ(k.failure().diagnostics.at(0).rule, "codegen.imported") << k.failure().text();
  auto t = api::parse_trace(p, "t.csv", "x\n1\n");
  ASSERT_TRUE(t.ok()) << t.failure().text();
  auto r = api::run(p, *t);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.failure().diagnostics.at(0).rule, "run.imported") << r.failure().text();
  EXPECT_EQ(r.failure().diagnostics.at(0).line, 2u);
}

TEST(Api, CompareFindsTheFirstDifferingCell) {
  api::Chronogram a;
  a.cycles = 3;
  a.names = {"x", "y"};
  a.columns = {{api::Cell::of(api::Value::of_int(1)), api::Cell::of(api::Value::of_int(2)), api::Cell::absent()},
               {api::Cell::of(api::Value::of_real(0.5)), api::Cell::of(api::Value::of_real(1.0)), api::Cell::of(api::Value::of_real(2.0))}};
  EXPECT_EQ(api::compare(a, a).kind, api::Difference::Kind::None);
  api::Chronogram b = a;
  b.columns[1][1] = api::Cell::of(api::Value::of_real(1.0 + 1e-9));
  api::Difference d = api::compare(a, b);
  EXPECT_EQ(d.kind, api::Difference::Kind::Cell);
  EXPECT_EQ(d.stream, "y");
  EXPECT_EQ(d.cycle, 1u);
  EXPECT_FALSE(d.describe().empty());
  EXPECT_EQ(api::compare(a, b, {}, api::Tolerance{4, 1e-6, 0}).kind, api::Difference::Kind::None);
  api::Chronogram c = a;
  c.columns[0][2] = api::Cell::of(api::Value::of_int(7));
  EXPECT_EQ(api::compare(a, c).cycle, 2u);
  EXPECT_EQ(api::compare(a, c, {"y"}).kind, api::Difference::Kind::None);  // only the streams asked
  api::Chronogram shorter = a;
  shorter.cycles = 2;
  for (auto &col : shorter.columns) col.pop_back();
  EXPECT_EQ(api::compare(a, shorter).kind, api::Difference::Kind::MissingCycles);
}

// Law: every generated program is accepted by rml-check, and its stream run equals the
// oracle's with the same funs (both on the compiled path), cell for cell: the library's
// run on two back ends, compared by its compare. Over a fixed sample of seeds (each costs
// two proofs by rml-check); the generator's hard shapes are asserted to be among them.
TEST(Api, GeneratedProgramsRunAlikeOnTheOracleAndTheStreamRunner) {
  std::set<std::string> shapes;
  for (uint64_t seed = 1; seed <= 10; ++seed) {
    api::GeneratedCase c = *api::generate(seed);
    shapes.insert(c.shapes.begin(), c.shapes.end());
    auto p = api::accept("case.rml", c.program, c.main);
    ASSERT_TRUE(p.ok()) << "seed " << seed << ": " << p.failure().text() << c.program;
    auto t = api::parse_trace(*p, "case.csv", c.trace);
    ASSERT_TRUE(t.ok()) << t.failure().text();
    api::RunOptions o, s;
    o.backend = api::Backend::OracleCompiled;
    s.backend = api::Backend::Stream;
    auto want = api::run(*p, *t, o);
    auto got = api::run(*p, *t, s);
    ASSERT_TRUE(want.ok()) << want.failure().text();
    ASSERT_TRUE(got.ok()) << got.failure().text();
    api::Difference d = api::compare(want->chronogram, got->chronogram, {}, api::Tolerance{0, 0, 0});
    EXPECT_EQ(d.kind, api::Difference::Kind::None) << "seed " << seed << ": " << d.describe() << "\n" << c.program << c.trace;
  }
  for (const char *shape : {"backfill", "tensor post"}) EXPECT_TRUE(shapes.count(shape)) << shape;
}

// Negative control of the law: a chronogram with one cell changed is caught at that cell.
TEST(Api, AChangedCellIsCaught) {
  api::GeneratedCase c = *api::generate(7);
  auto p = api::accept("case.rml", c.program, c.main);
  ASSERT_TRUE(p.ok()) << p.failure().text();
  auto t = api::parse_trace(*p, "case.csv", c.trace);
  ASSERT_TRUE(t.ok());
  auto want = api::run(*p, *t);
  ASSERT_TRUE(want.ok());
  api::Chronogram bad = want->chronogram;
  api::Cell &x = bad.columns.back()[3];
  x = x.kind == api::Cell::Kind::Absent ? api::Cell::of(api::Value::of_int(0)) : api::Cell::absent();
  api::Difference d = api::compare(want->chronogram, bad);
  EXPECT_EQ(d.kind, api::Difference::Kind::Cell);
  EXPECT_EQ(d.cycle, 3u);
  EXPECT_EQ(d.stream, bad.names.back());
}

TEST(Api, GenerationIsAFunctionOfTheSeed) {
  api::GeneratedCase a = *api::generate(42), b = *api::generate(42), c = *api::generate(43);
  EXPECT_EQ(a.program, b.program);
  EXPECT_EQ(a.trace, b.trace);
  EXPECT_NE(a.program, c.program);
  api::GenerateOptions lustre;
  lustre.lustre = true;
  api::GeneratedCase l = *api::generate(42, lustre);
  EXPECT_NE(l.program.find("tel"), std::string::npos);
  auto lp = api::load_text("case.lus", l.program, {l.main, {}});
  EXPECT_TRUE(lp.ok()) << lp.failure().text() << l.program;
  // Options out of rml gen's ranges are refused, just past each end (a depth of 30 would
  // grow its expressions exponentially); the ends themselves draw.
  for (auto edit : {+[](api::GenerateOptions &o) { o.depth = 9; }, +[](api::GenerateOptions &o) { o.depth = -1; },
                    +[](api::GenerateOptions &o) { o.size = 0; }, +[](api::GenerateOptions &o) { o.size = 201; },
                    +[](api::GenerateOptions &o) { o.cycles = 0; }, +[](api::GenerateOptions &o) { o.cycles = 100001; }}) {
    api::GenerateOptions bad;
    edit(bad);
    auto r = api::generate(42, bad);
    ASSERT_FALSE(r.ok());
    EXPECT_EQ(r.failure().exit_code, 2);
    EXPECT_EQ(r.failure().diagnostics.at(0).rule, "gen.options");
  }
  api::GenerateOptions edge;
  edge.size = 200, edge.depth = 8, edge.cycles = 1;
  EXPECT_TRUE(api::generate(42, edge).ok());
}

// Shrinking keeps what fails and what rml-check accepts: a "back end" that fails on every
// program holding a `merge` ends on a small program that still holds one.
// Program k of a campaign is a function of the seed and k alone: the same call gives the
// same case, and every one rml-check confirms is accepted by it. Confirmation only filters:
// where no draw was refused the confirmed case is the unconfirmed one. The sample of
// confirmed programs: every program with 1, none with 0, about one in 20 with 20. Sizes
// outside rml gen's ranges are refused, just past each end; the ends themselves draw.
TEST(Api, CampaignDrawsAreTheSeedsProgramK) {
  api::GenerateOptions o;
  o.size = 3;
  size_t refused = 0;
  for (uint64_t k = 0; k < 6; ++k) {
    auto c = api::generate_in_campaign(7, k, o, true);
    ASSERT_TRUE(c.ok()) << c.failure().text();
    auto again = api::generate_in_campaign(7, k, o, true);
    ASSERT_TRUE(again.ok());
    EXPECT_EQ(c->generated.program, again->generated.program);
    EXPECT_EQ(c->generated.trace, again->generated.trace);
    auto accepted = api::accept("<k>.rml", c->generated.program, c->generated.main);
    EXPECT_TRUE(accepted.ok()) << c->generated.program << (accepted ? "" : accepted.failure().text());
    auto built = api::generate_in_campaign(7, k, o, false);
    ASSERT_TRUE(built.ok());
    refused += c->refusals.size();
    if (c->refusals.empty()) {
      EXPECT_EQ(built->generated.program, c->generated.program) << k;
    }
  }
  EXPECT_EQ(refused, 0u) << "programs are built to be accepted";
  EXPECT_NE(api::generate_in_campaign(7, 0, o, false)->generated.program, api::generate_in_campaign(7, 1, o, false)->generated.program);
  EXPECT_NE(api::generate_in_campaign(7, 0, o, false)->generated.program, api::generate_in_campaign(8, 0, o, false)->generated.program);
  size_t sampled = 0;
  for (uint64_t k = 0; k < 2000; ++k) {
    EXPECT_TRUE(api::confirmed_in_campaign(k, 1));
    EXPECT_FALSE(api::confirmed_in_campaign(k, 0));
    sampled += api::confirmed_in_campaign(k, 20);
  }
  EXPECT_GT(sampled, 60u);
  EXPECT_LT(sampled, 140u);
  // Options out of rml gen's ranges are refused (exit 2), at each end.
  for (auto [size, depth, cycles] : {std::tuple{0, 3, 20}, std::tuple{201, 3, 20}, std::tuple{6, 9, 20}, std::tuple{6, 3, 0},
                                     std::tuple{6, 3, 100001}}) {
    api::GenerateOptions bad;
    bad.size = size, bad.depth = depth, bad.cycles = cycles;
    auto r = api::generate_in_campaign(7, 0, bad, false);
    ASSERT_FALSE(r.ok()) << size << " " << depth << " " << cycles;
    EXPECT_EQ(r.failure().exit_code, 2);
    EXPECT_EQ(r.failure().diagnostics.at(0).rule, "gen.options");
  }
  api::GenerateOptions edge;
  edge.size = 200, edge.depth = 0, edge.cycles = 1;
  EXPECT_TRUE(api::generate_in_campaign(7, 0, edge, false).ok());
}

TEST(Api, ShrinkKeepsTheFailureAndAcceptance) {
  api::GeneratedCase c;
  for (uint64_t seed = 1; seed < 200; ++seed) {
    c = *api::generate(seed);
    if (c.program.find("merge") != std::string::npos && c.program.size() > 400) break;
  }
  ASSERT_NE(c.program.find("merge"), std::string::npos);
  auto fails = [](const api::Case &k) { return k.program.find("merge") != std::string::npos; };
  api::ShrinkOptions o;
  o.main = c.main;
  o.max_candidates = 300;
  api::Case small = api::shrink(api::Case{c.program, c.trace}, fails, o);
  EXPECT_TRUE(fails(small));
  EXPECT_LT(small.program.size(), c.program.size());
  EXPECT_TRUE(api::accept("small.rml", small.program, c.main).ok());
  // The candidates are one edit smaller, and not filtered.
  auto cands = api::shrink_candidates(api::Case{c.program, c.trace}, o);
  ASSERT_FALSE(cands.empty());
  for (auto &k : cands) EXPECT_FALSE(k == (api::Case{c.program, c.trace}));
}

// What a stage prints is cut into diagnostics at each headed line, the caret lines kept
// with theirs.
TEST(Api, PrintedDiagnosticsAreCutAtTheirHeads) {
  auto ds = api::from_text(
      "f.rml:3:7: error[type.mismatch]: expected bool\n  3 |   y = x + 1;\n    |       ^\n"
      "warning[input.clock]: input x\n"
      "rml: error[stream.unchecked]: 'm' cannot run\n"
      "two.rml: error[main.none]: no node\n"
      "rml gen: note: draw 0 was refused by rml-check (unknown) and not written, drawn again: why\n");
  ASSERT_EQ(ds.size(), 5u);
  EXPECT_EQ(ds[0].file, "f.rml");
  EXPECT_EQ(ds[0].line, 3u);
  EXPECT_EQ(ds[0].column, 7u);
  EXPECT_EQ(ds[0].rule, "type.mismatch");
  EXPECT_NE(ds[0].rendered.find('^'), std::string::npos);
  EXPECT_EQ(ds[1].severity, api::Diagnostic::Severity::Warning);
  EXPECT_EQ(ds[1].rule, "input.clock");
  EXPECT_EQ(ds[2].rule, "stream.unchecked");
  EXPECT_EQ(ds[2].file, "");
  EXPECT_EQ(ds[2].message, "'m' cannot run");
  EXPECT_EQ(ds[3].file, "two.rml");
  EXPECT_EQ(ds[3].rule, "main.none");
  EXPECT_EQ(ds[4].file, "") << "a command's own prefix is not a file";
  EXPECT_EQ(ds[4].severity, api::Diagnostic::Severity::Note);
}

// A corpus file's front-end errors against its `// expect:` header: exact agreement
// passes; an error expected at another column is both missing and unexpected (negative
// control); `expect: ok` on an accepted file passes; an unreadable file is a Failure.
TEST(Api, CheckExpectationsComparesTheHeaderWithTheFrontEnd) {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("rml-api-expect-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const std::string body = "node f(x: int) returns (o: int);\nlet\n  o = x + $ 1;\ntel\n";
  auto write = [&](const std::string &name, const std::string &text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  auto good = api::check_expectations(write("good.rml", "// expect-error: 4:11 lex.char\n" + body));
  ASSERT_TRUE(good.ok()) << good.failure().text();
  EXPECT_TRUE(good->pass);
  EXPECT_TRUE(good->rejected);
  EXPECT_TRUE(good->has_header);
  ASSERT_EQ(good->reported.size(), 1u);
  EXPECT_EQ(good->reported[0].text(), "4:11 lex.char");
  EXPECT_NE(good->rendered.find("error[lex.char]"), std::string::npos) << good->rendered;
  auto off = api::check_expectations(write("off.rml", "// expect-error: 4:12 lex.char\n" + body));
  ASSERT_TRUE(off.ok());
  EXPECT_FALSE(off->pass);
  EXPECT_EQ(off->missing, (std::vector<api::ExpectedError>{{4, 12, "lex.char"}}));
  EXPECT_EQ(off->unexpected, (std::vector<api::ExpectedError>{{4, 11, "lex.char"}}));
  auto ok = api::check_expectations(write("ok.rml", "// expect: ok\nnode f(x: int) returns (o: int);\nlet\n  o = x + 1;\ntel\n"));
  ASSERT_TRUE(ok.ok());
  EXPECT_TRUE(ok->pass);
  EXPECT_FALSE(ok->rejected);
  auto none = api::check_expectations((dir / "missing.rml").string());
  ASSERT_FALSE(none.ok());
  EXPECT_EQ(none.failure().exit_code, 2);
  fs::remove_all(dir);
}
