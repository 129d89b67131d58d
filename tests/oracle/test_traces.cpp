// Trace files: CSV and JSON inputs, and clear errors for bad ones.
#include "oracle_util.hpp"
#include "oracle/json_input.hpp"

#include <limits>

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
  EXPECT_EQ(trace_error("[{\"x\": 1,"),
            "trace.csv:1:10: not valid JSON: syntax error while parsing object key - unexpected end of input; expected string literal");
  EXPECT_EQ(trace_error("x,c,v\n1e999,T,[1,2]\n"), "trace.csv:2:1: input 'x' (real): '1e999' is out of the range of a 64-bit float");
  EXPECT_NE(trace_error("x,c,v\n1,T,[1,99999999999999999999]\n").find("not a 64-bit integer"), std::string::npos);
}

// Each bad trace names the rule that failed and its place as numbers (the CLI renders
// them as a diagnostic with the trace's line); what() stays "FILE:LINE:COL: MESSAGE".
TEST(Traces, ErrorsNameTheirRuleAndPlace) {
  Fixture fx;
  struct Case {
    std::string text, rule;
    size_t line, col;
  };
  const std::vector<Case> cases = {
      {"x,c,w\n", "trace.header", 1, 5},
      {"x,c\n", "trace.header", 1, 1},
      {"x,c,v,x\n", "trace.header", 1, 7},
      {"", "trace.header", 0, 0},
      {"x,c,v\n1,T\n", "trace.row", 2, 1},
      {"x,c,v\n1,maybe,[1,2]\n", "trace.cell", 2, 3},
      {"x,c,v\n1,T,\"[1, 2]\n", "trace.syntax", 2, 1},
      {std::string("x,c,v\n1,T\0,[1,2]\n", 17), "trace.syntax", 2, 4},  // 17 bytes: the NUL is inside
      {"[{\"x\": 1,", "trace.syntax", 1, 10},
      {"[{\"x\": 1e400, \"c\": true, \"v\": [1, 2]}]", "trace.syntax", 1, 8},
      {"\n  {\"x\": [1]}", "trace.row", 2, 3},
      {"[{\"x\": 1, \"c\": true, \"v\": [1, 2]}, 7]", "trace.row", 1, 36},
      {"[{\"x\": 1, \"c\": true, \"v\": [1, 2]}, {\"x\": 1}]", "trace.header", 1, 36},
      {"[{\"x\": 1, \"c\": true, \"v\": [1, 2], \"w\": 0}]", "trace.header", 1, 35},
      {"[{\"x\": 1, \"c\": true,\n  \"v\": [1, 2.5]}]", "trace.cell", 2, 12},
  };
  for (auto &c : cases) {
    try {
      oracle::read_trace("trace.csv", c.text, fx.prog, 0);
      ADD_FAILURE() << "read: " << c.text;
    } catch (oracle::TraceError &e) {
      EXPECT_EQ(e.rule, c.rule) << e.what();
      EXPECT_EQ(e.line, c.line) << e.what();
      EXPECT_EQ(e.col, c.col) << e.what();
      EXPECT_EQ(e.path, "trace.csv") << e.what();
      EXPECT_EQ(std::string(e.what()), (c.line ? "trace.csv:" + std::to_string(c.line) + ":" + std::to_string(c.col) : std::string("trace.csv")) + ": " + e.message);
    }
  }
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

// Nothing is truncated or rounded away silently. A NUL byte stops every C-string
// step (strtod, strtoll): it was dropped with the rest of its cell.
TEST(Traces, CsvNulByteIsALocatedError) {
  using namespace std::string_literals;
  EXPECT_EQ(trace_error("x,c,v\n12\0"s "5,T,[1,2]\n"), "trace.csv:2:3: a NUL byte: a trace is text (NUL bytes are not allowed)");
  EXPECT_EQ(trace_error("x,c,v\n1,T,[1,2\0"s "]\n"), "trace.csv:2:9: a NUL byte: a trace is text (NUL bytes are not allowed)");
  EXPECT_EQ(trace_error("x,c\0"s ",v\n"), "trace.csv:1:4: a NUL byte: a trace is text (NUL bytes are not allowed)");
  std::string err;
  oracle::parse_cell("7\0"s "5", Type::scalar(Scalar::Int), err);
  EXPECT_EQ(err, "a NUL byte in the value (byte 2): a trace is text");
}

// A number strtod reads as 0 while it is not 0 (1e-400) is an error, as 1e400 is; the
// subnormals are numbers (4.9e-324 is the smallest); a 0 written any way is 0.
TEST(Traces, CsvUnderflowIsALocatedError) {
  EXPECT_EQ(trace_error("x,c,v\n1e-400,T,[1,2]\n"),
            "trace.csv:2:1: input 'x' (real): '1e-400' is not 0 but is too small for a 64-bit float (the smallest nonzero one is 4.9e-324)");
  EXPECT_EQ(trace_error("x,c,v\n-2e-324,T,[1,2]\n"),
            "trace.csv:2:1: input 'x' (real): '-2e-324' is not 0 but is too small for a 64-bit float (the smallest nonzero one is 4.9e-324)");
  Fixture fx;
  auto a = oracle::read_trace("t.csv", "x,c,v\n4.9e-324,T,[1,2]\n0e-400,T,[1,2]\n-0.000e-999,T,[1,2]\n", fx.prog, 0);
  EXPECT_EQ(a.streams["x"][0].value.r.at(0), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(a.streams["x"][1].value.r.at(0), 0.0);
  EXPECT_EQ(a.streams["x"][2].value.r.at(0), 0.0);
  // Only decimal numbers: strtod would read hex and "nan(...)" too.
  EXPECT_EQ(trace_error("x,c,v\n0x10,T,[1,2]\n"), "trace.csv:2:1: input 'x' (real): '0x10' is not a number");
  EXPECT_EQ(trace_error("x,c,v\nnan(1),T,[1,2]\n"), "trace.csv:2:1: input 'x' (real): 'nan(1)' is not a number");
}

// JSON traces: every error, found while parsing or after, is at the line and column of
// the offending value (or key).
TEST(Traces, JsonErrorsAreLocated) {
  const std::string ok = "\"x\": 1, \"c\": true, \"v\": [1, 2]";
  EXPECT_EQ(trace_error("[{" + ok + "},\n {\"x\": 1e-400, \"c\": true, \"v\": [1, 2]}]"),
            "trace.csv:2:8: 1e-400 is not 0 but is too small for a double (the smallest nonzero double is 4.9e-324): write 0 if 0 is meant");
  EXPECT_EQ(trace_error("[{\"x\": 1e400, \"c\": true, \"v\": [1, 2]}]"),
            "trace.csv:1:8: 1e400 is beyond the range of a double (at most 1.7976931348623157e308 in magnitude)");
  EXPECT_EQ(trace_error("[{" + ok + "},\n {\"x\": 1, \"c\": 3, \"v\": null}]"),
            "trace.csv:2:16: cycle 1, input 'c' (bool): expected a bool, found 3");
  EXPECT_EQ(trace_error("[{\"x\": 1, \"c\": true,\n  \"v\": [1, 2.5]}]"),
            "trace.csv:2:12: cycle 0, input 'v' (int[2]): expected an integer, found 2.5");
  EXPECT_EQ(trace_error("[{\"x\": 1, \"c\": true, \"v\": [1, 18446744073709551615]}]"),
            "trace.csv:1:31: cycle 0, input 'v' (int[2]): the integer 18446744073709551615 does not fit in 64 bits");
  EXPECT_EQ(trace_error("[{\"x\": 1, \"c\": true, \"v\": [1, 2, 3]}]"),
            "trace.csv:1:27: cycle 0, input 'v' (int[2]): expected a list of length 2 at depth 1, found [1,2,3]");
  EXPECT_EQ(trace_error("[{" + ok + "},\n\n  {" + ok + ", \"w\\u0000\": 0}]"),
            "trace.csv:3:36: cycle 1: 'w\\x00' is not an input of 'f'");
  EXPECT_EQ(trace_error("[{" + ok + "}, {\"x\": 1}]"), "trace.csv:1:36: cycle 1: the input 'c' is missing (use null for absent)");
  EXPECT_EQ(trace_error("[{" + ok + "}, 7]"), "trace.csv:1:36: cycle 1 is not an object: 7");
  EXPECT_EQ(trace_error("\n  {\"x\": [1]}"), "trace.csv:2:3: a JSON trace is a list of per-cycle objects, found {\"x\":[1]}");
  EXPECT_EQ(trace_error("[{\"x\": 1, \"c\": true, \"v\": [1, 2], \"\\u0078\": 2}]"),
            "trace.csv:1:35: the key 'x' appears twice in this object");
  EXPECT_EQ(trace_error("[{\"x\": \"maybe\", \"c\": true, \"v\": [1, 2]}]"),
            "trace.csv:1:8: cycle 0, input 'x' (real): the string \"maybe\" is not a value (use null or \"_\" for absent, \"?\" for unknown)");
  // A value is shown at most 80 characters long.
  std::string ones;
  for (int k = 0; k < 50000; ++k) ones += "1,";
  std::string big = trace_error("[{\"x\": 1, \"c\": [" + ones + "1], \"v\": [1, 2]}]");
  EXPECT_EQ(big, "trace.csv:1:16: cycle 0, input 'c' (bool): expected a bool, found [" + ones.substr(0, 79) + "...");
}

// The locator agrees with the parser on keys written with escapes, on nesting and on
// lines; the depth limit is exact.
TEST(JsonInput, WhereAndDepth) {
  const std::string text = "{\"a\": [10, {\"b\\\"c\": [1, 2]}],\n \"\\u0064\": {\"e\": \"]\"}, \"f\": 3}";
  nlohmann::json j = json_input::parse("d.json", text);
  EXPECT_EQ(j["a"][1]["b\"c"][1], 2);
  EXPECT_EQ(json_input::where("d.json", text, {"a", "1", "b\"c", "1"}), "d.json:1:25");
  EXPECT_EQ(json_input::where("d.json", text, {"a", "1", "b\"c"}, true), "d.json:1:13");
  EXPECT_EQ(json_input::where("d.json", text, {"d", "e"}), "d.json:2:18");
  EXPECT_EQ(json_input::where("d.json", text, {"f"}), "d.json:2:29");
  EXPECT_EQ(json_input::where("d.json", text, {"a", "2"}), "d.json");  // not in the document
  auto nested = [](size_t n) { return std::string(n, '[') + std::string(n, ']'); };
  EXPECT_NO_THROW(json_input::parse("d.json", nested(json_input::kMaxDepth)));
  try {
    json_input::parse("d.json", "\n" + nested(json_input::kMaxDepth + 1));
    ADD_FAILURE() << "257 levels parsed";
  } catch (json_input::Error &e) {
    EXPECT_EQ(std::string(e.what()), "d.json:2:257: JSON nested deeper than 256 levels of lists and objects (the limit)");
  }
}

// Found by fuzz_trace_json and fuzz_grad_at in a long fuzz run: an error found while
// parsing was located in the unread rest of the text when a key of its path appeared there
// again (the locator took a key's last occurrence): the message lost its line and column.
TEST(JsonInput, ErrorsWhileParsingIgnoreTheUnreadRest) {
  auto error = [](const std::string &text) {
    try {
      json_input::parse("d.json", text);
    } catch (json_input::Error &e) {
      return std::string(e.what());
    }
    return std::string("parsed");
  };
  const std::string tiny = ": 1e-400 is not 0 but is too small for a double (the smallest nonzero double is 4.9e-324): write 0 if 0 is meant";
  EXPECT_EQ(error("{\"a\": [1e-400], \"a\": []}"), "d.json:1:8" + tiny);
  EXPECT_EQ(error("{\"a\": {\"b\": [2, 1e-400]}, \"a\": [], \"b\": 0}"), "d.json:1:17" + tiny);
  EXPECT_EQ(error("{\"a\": [1e-400%, \"a\": []"), "d.json:1:8" + tiny);  // invalid after the number
  EXPECT_EQ(error("{\"a\": 1, \"a\": 2, \"a\": 3}"), "d.json:1:10: the key 'a' appears twice in this object");
  // The parser reports a key before its ':': a duplicate followed by anything is located.
  EXPECT_EQ(error("[{\"c\": true,\"c\"; 1}]"), "d.json:1:13: the key 'c' appears twice in this object");
  EXPECT_EQ(error("{\"c\": true, \"c\""), "d.json:1:13: the key 'c' appears twice in this object");
  EXPECT_EQ(trace_error("[{\"x\": 1e-400, \"c\": true, \"v\": [1, 2], \"x\": 2}]"), "trace.csv:1:8" + tiny);
}
