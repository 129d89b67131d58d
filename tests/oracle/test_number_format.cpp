// One number format across `rml run --format table|csv|json`: a real prints as
// array::format_real everywhere, reads back (as a trace) to the same double bits, and is
// told apart from an int ("1.0" vs "1").
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstring>
#include <functional>
#include <limits>

#include "oracle_util.hpp"
#include "driver/chronogram.hpp"

using namespace rml;

namespace {

const char *kProgram = "node f(x: real, k: int) -> (o: real; n: int)\n  o = x;\n  n = k;\n";

struct FormatFixture {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
  FormatFixture() {
    fe = run_frontend("t.rml", kProgram);
    prog = core::elaborate(fe->checked, "f");
  }
};
FormatFixture &fixture() {
  static FormatFixture fx;
  return fx;
}

// Runs f on one cycle (x = v, k = 1) and returns the chronogram in format `f`.
std::string run_one(double v, oracle::Format f) {
  FormatFixture &fx = fixture();
  oracle::Inputs in;
  in.cycles = 1;
  in.streams["x"] = {oracle::Cell{oracle::Tag::Val, array::Tensor::real(v)}};
  in.streams["k"] = {oracle::Cell{oracle::Tag::Val, array::Tensor::integer(1)}};
  oracle::Oracle o(fx.fe->checked, fx.prog);
  return format_chronogram(o.run(in), {"x", "k", "o", "n"}, f);
}

// The printed output, read back as an input trace of f (x from column o): its bits.
double read_back_csv(const std::string &csv) {
  // "x,k,o,n\nX,1,O,1\n": keep the header's x,k and the row's first two fields.
  size_t row = csv.find('\n') + 1;
  std::string line = csv.substr(row, csv.find('\n', row) - row);
  std::string o = line.substr(line.find(',', line.find(',') + 1) + 1);
  o = o.substr(0, o.find(','));
  oracle::Inputs in = oracle::read_trace("out.csv", "x,k\n" + o + ",1\n", fixture().prog, 0);
  return in.streams.at("x").at(0).value.r.at(0);
}
double read_back_json(const std::string &json) {
  // The JSON output is itself a trace of f's inputs plus its outputs: drop o and n.
  std::string text = json;
  size_t o = text.find(", \"o\": ");
  text = text.substr(0, o) + "}\n]\n";
  oracle::Inputs in = oracle::read_trace("out.json", text, fixture().prog, 0);
  return in.streams.at("x").at(0).value.r.at(0);
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Does `spell` round-trip `v` through a CSV trace? (The property, for any spelling.)
bool round_trips(const std::function<std::string(double)> &spell, double v) {
  oracle::Inputs in = oracle::read_trace("t.csv", "x,k\n" + spell(v) + ",1\n", fixture().prog, 0);
  return same_bits(in.streams.at("x").at(0).value.r.at(0), v);
}

}  // namespace

TEST(NumberFormat, GoldenTableCsvJson) {
  EXPECT_EQ(run_one(1.0, oracle::Format::Table), "cycle  0\nx      1.0\nk      1\no      1.0\nn      1\n");
  EXPECT_EQ(run_one(1.0, oracle::Format::Csv), "x,k,o,n\n1.0,1,1.0,1\n");
  EXPECT_EQ(run_one(1.0, oracle::Format::Json), "[\n {\"x\": 1.0, \"k\": 1, \"o\": 1.0, \"n\": 1}\n]\n");
  // Shortest round-trip digits, the same in the three formats.
  EXPECT_EQ(run_one(0.1 + 0.2, oracle::Format::Csv), "x,k,o,n\n0.30000000000000004,1,0.30000000000000004,1\n");
  EXPECT_EQ(run_one(0.1 + 0.2, oracle::Format::Json),
            "[\n {\"x\": 0.30000000000000004, \"k\": 1, \"o\": 0.30000000000000004, \"n\": 1}\n]\n");
  EXPECT_EQ(run_one(1e16, oracle::Format::Json), "[\n {\"x\": 1e+16, \"k\": 1, \"o\": 1e+16, \"n\": 1}\n]\n");
  EXPECT_EQ(run_one(1e15, oracle::Format::Csv), "x,k,o,n\n1000000000000000.0,1,1000000000000000.0,1\n");
  EXPECT_EQ(run_one(-0.0, oracle::Format::Csv), "x,k,o,n\n-0.0,1,-0.0,1\n");
  EXPECT_EQ(run_one(2.5e-7, oracle::Format::Table), "cycle  0\nx      2.5e-07\nk      1\no      2.5e-07\nn      1\n");
  EXPECT_EQ(run_one(std::nan(""), oracle::Format::Json), "[\n {\"x\": \"nan\", \"k\": 1, \"o\": \"nan\", \"n\": 1}\n]\n");
  EXPECT_EQ(array::Tensor::real(-std::numeric_limits<double>::infinity()).str(), "-inf");
}

// Print -> read back as a trace -> the same double bits, in CSV and JSON; and the three
// formats spell the cell identically.
RC_GTEST_PROP(NumberFormat, PrintedRealsReadBackToTheSameBits, ()) {
  uint64_t bits = *rc::gen::arbitrary<uint64_t>();
  double v;
  std::memcpy(&v, &bits, sizeof v);
  if (!std::isfinite(v)) v = *rc::gen::arbitrary<double>();  // also small and round values
  RC_PRE(std::isfinite(v));
  std::string csv = run_one(v, oracle::Format::Csv), json = run_one(v, oracle::Format::Json),
              table = run_one(v, oracle::Format::Table);
  RC_ASSERT(same_bits(read_back_csv(csv), v));
  RC_ASSERT(same_bits(read_back_json(json), v));
  std::string s = array::format_real(v);
  RC_ASSERT(csv == "x,k,o,n\n" + s + ",1," + s + ",1\n");
  RC_ASSERT(json == "[\n {\"x\": " + s + ", \"k\": 1, \"o\": " + s + ", \"n\": 1}\n]\n");
  RC_ASSERT(table == "cycle  0\nx      " + s + "\nk      1\no      " + s + "\nn      1\n");
  RC_ASSERT(s.find_first_of(".e") != std::string::npos);  // never read as an int
}

// Negative control: the property catches a lossy spelling (15 significant digits, what
// rml printed tables with when they were exact) and accepts format_real.
TEST(NumberFormat, TheRoundTripCheckCatchesALossySpelling) {
  auto g15 = [](double v) {
    char buf[40];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return std::string(buf);
  };
  EXPECT_FALSE(round_trips(g15, 0.1 + 0.2));
  EXPECT_TRUE(round_trips(array::format_real, 0.1 + 0.2));
  size_t lossy = 0;
  for (uint64_t k = 1; k < 1000; ++k) {
    double v = 1.0 / static_cast<double>(k * 7919);
    lossy += !round_trips(g15, v);
    EXPECT_TRUE(round_trips(array::format_real, v)) << v;
  }
  EXPECT_GT(lossy, 100u);
}
