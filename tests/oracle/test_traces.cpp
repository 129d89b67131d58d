// Trace files: CSV and JSON inputs, and clear errors for bad ones.
#include "oracle_util.hpp"

using namespace rml;

namespace {
struct Fixture {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
  Fixture() {
    fe = run_frontend("t.rml", "node f(x: real, c: bool, v: int[2]) -> (o: real) o = x;\n");
    prog = core::elaborate(fe->checked, "f");
  }
};
std::string trace_error(const std::string &text) {
  static Fixture fx;
  try {
    oracle::read_trace("trace.csv", text, fx.prog, 0);
  } catch (oracle::TraceError &e) {
    return e.what();
  }
  return "";
}
}  // namespace

TEST(Traces, CsvAndJsonReadTheSameInputs) {
  Fixture fx;
  auto a = oracle::read_trace("t.csv", "x,c,v\n1.5,T,\"[1, 2]\"\n_,_,_\n?,false,[3,4]\n", fx.prog, 0);
  auto b = oracle::read_trace("t.json",
                              "[{\"x\": 1.5, \"c\": true, \"v\": [1, 2]}, {\"x\": null, \"c\": \"_\", \"v\": null},"
                              " {\"x\": \"?\", \"c\": false, \"v\": [3, 4]}]",
                              fx.prog, 0);
  ASSERT_EQ(a.cycles, 3u);
  ASSERT_EQ(b.cycles, 3u);
  for (auto &[k, v] : a.streams)
    for (size_t n = 0; n < 3; ++n) EXPECT_EQ(v[n], b.streams.at(k)[n]) << k << "@" << n;
  EXPECT_EQ(a.streams["x"][1].tag, oracle::Tag::Abs);
  EXPECT_EQ(a.streams["x"][2].tag, oracle::Tag::Bot);
  EXPECT_EQ(a.streams["v"][2].value.str(), "[3, 4]");
}

TEST(Traces, CyclesExtendWithUnknownAndTruncate) {
  Fixture fx;
  auto a = oracle::read_trace("t.csv", "x,c,v\n1,T,[1,2]\n", fx.prog, 3);
  EXPECT_EQ(a.cycles, 3u);
  EXPECT_EQ(a.streams["x"][2].tag, oracle::Tag::Bot);
}

TEST(Traces, BadFilesGetClearErrors) {
  EXPECT_EQ(trace_error("x,c,w\n"), "trace.csv:1:5: 'w' is not an input of 'f'");
  EXPECT_EQ(trace_error("x,c\n"), "trace.csv:1:1: the header lacks the input 'v'");
  EXPECT_EQ(trace_error("x,c,v,x\n"), "trace.csv:1:7: 'x' appears twice in the header");
  EXPECT_EQ(trace_error("x,c,v\n1,T\n"), "trace.csv:2:1: this row has 2 fields, the header has 3");
  EXPECT_EQ(trace_error("x,c,v\n1,maybe,[1,2]\n"),
            "trace.csv:2:3: input 'c' (bool): 'maybe' is not a bool (true, false, T or F)");
  EXPECT_EQ(trace_error("x,c,v\nabc,T,[1,2]\n"), "trace.csv:2:1: input 'x' (real): 'abc' is not a number");
  EXPECT_EQ(trace_error("x,c,v\n1,T,[1,2,3]\n"),
            "trace.csv:2:5: input 'v' (int[2]): expected ']': a list of length 2 at depth 1");
  EXPECT_EQ(trace_error("x,c,v\n1,T,\"[1, 2]\n"), "trace.csv:2:1: unterminated quoted field");
  EXPECT_EQ(trace_error(""), "trace.csv: the trace is empty (it needs a header naming the inputs)");
  EXPECT_NE(trace_error("[{\"x\": 1}]").find("the input 'c' is missing"), std::string::npos);
  EXPECT_NE(trace_error("[{\"x\": 1, \"c\": 3, \"v\": null}]").find("expected a bool"), std::string::npos);
  EXPECT_NE(trace_error("[{\"x\": 1,").find("invalid JSON"), std::string::npos);
  EXPECT_EQ(trace_error("x,c,v\n1e999,T,[1,2]\n"), "trace.csv:2:1: input 'x' (real): '1e999' is out of the range of a 64-bit float");
  EXPECT_NE(trace_error("x,c,v\n1,T,[1,99999999999999999999]\n").find("not a 64-bit integer"), std::string::npos);
}

TEST(Traces, OutputFormats) {
  auto r = rml::test::run_both("node f(c: bool, y: int) -> (x: int) x = y when c;\n", "f",
                               {{"c", {"T", "_", "F"}}, {"y", {"1", "2", "3"}}});
  EXPECT_EQ(oracle::format_result(r.worklist, {"c", "y", "x"}, oracle::Format::Table),
            "cycle  0  1  2\n"
            "c      T  _  F\n"
            "y      1  2  3\n"
            "x      1  \u2016  _\n");
  EXPECT_EQ(oracle::format_result(r.worklist, {"c", "x"}, oracle::Format::Csv), "c,x\nT,1\n_,\u2016\nF,_\n");
  EXPECT_EQ(oracle::format_result(r.worklist, {"x"}, oracle::Format::Json),
            "[\n {\n  \"x\": 1\n },\n {\n  \"x\": \"error\"\n },\n {\n  \"x\": null\n }\n]\n");
}
