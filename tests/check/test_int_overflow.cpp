// --int-overflow error (oracle::Options::int_overflow_error, check::Options::int_overflow_error;
// semantics/int_encoding.md, "When an overflow is an error"): an int operation whose exact
// result leaves the 64-bit range is ‖ (rule `overflow`) instead of wrapping, and rml-check
// adds the property "overflow" and proves user properties in that reading.
//
// Pinned: each operation one step inside and one step past the range's ends (the oracle);
// a machine integer still wraps; nil, absent and propagated cells; verdicts of the
// overflow property and of user properties in that reading, with their negative controls
// (the same programs in the wrapping reading). Laws: (1) a cell that is not ‖ in that
// reading is the wrapping reading's cell (what makes a proof of either reading count for
// this one), with a negative control (comparing every cell fails: the draws reach
// overflows); (2) over random programs, a property proved valid in that reading, and an
// overflow property proved valid, hold on oracle runs whose ints sit at the extremes.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "checker/checker.hpp"
#include "common/property_runs.hpp"
#include "common/sanitized.hpp"
#include "common/stream_prog_gen.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"

using namespace rml;

namespace int_overflow_test {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();
constexpr int64_t kMin = std::numeric_limits<int64_t>::min();

struct Loaded {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
};

Loaded load(const std::string &text, const std::string &path = "ovf.rml") {
  Loaded l;
  l.fe = run_frontend(path, text);
  if (l.fe->diags.has_errors()) throw std::runtime_error(render_all(l.fe->diags) + "\n" + text);
  l.prog = core::elaborate(l.fe->checked, "main");
  return l;
}

oracle::Options overflow_reading() {
  oracle::Options o;
  o.int_overflow_error = true;
  return o;
}

oracle::Cell ival(int64_t v) { return oracle::Cell::of(array::Tensor::integer(v)); }
oracle::Cell rval(double v) { return oracle::Cell::of(array::Tensor::real(v)); }

// One cycle of `main` on the given inputs, in the overflow reading or the wrapping one.
oracle::Result one_cycle(const Loaded &l, const std::vector<std::pair<std::string, oracle::Cell>> &inputs, bool errors) {
  oracle::Inputs in;
  in.cycles = 1;
  for (auto &[name, cell] : inputs) in.streams[name].push_back(cell);
  return oracle::Oracle(l.fe->checked, l.prog, errors ? overflow_reading() : oracle::Options{}).run(in);
}

// y = a OP b on ints: ‖ by the rule `overflow` exactly when `overflows`, else the value
// `expected` (the wrapping reading gives the same value where there is no overflow, and
// the wrapped one where there is).
void expect_binary(const std::string &op, int64_t a, int64_t b, bool overflows, int64_t expected, int64_t wrapped) {
  Loaded l = load("node main(a: int; b: int) returns (y: int);\nlet\n  y = a " + op + " b;\ntel\n");
  oracle::Result r = one_cycle(l, {{"a", ival(a)}, {"b", ival(b)}}, true);
  const std::string what = std::to_string(a) + " " + op + " " + std::to_string(b);
  oracle::Cell y = r.at("y", 0);
  if (overflows) {
    ASSERT_EQ(y.tag, oracle::Tag::Err) << what;
    ASSERT_EQ(r.errors.size(), 1u) << what;
    EXPECT_EQ(r.errors[0].rule, "overflow") << what;
    EXPECT_EQ(r.errors[0].var, "y") << what;
    EXPECT_EQ(r.errors[0].cycle, 0u) << what;
  } else {
    ASSERT_EQ(y.tag, oracle::Tag::Val) << what;
    EXPECT_EQ(y.value.i.at(0), expected) << what;
    EXPECT_TRUE(r.errors.empty()) << what;
  }
  oracle::Cell w = one_cycle(l, {{"a", ival(a)}, {"b", ival(b)}}, false).at("y", 0);
  ASSERT_EQ(w.tag, oracle::Tag::Val) << what << " (wrapping)";
  EXPECT_EQ(w.value.i.at(0), wrapped) << what << " (wrapping)";
}

TEST(IntOverflow, EachBinaryOperationIsAnErrorExactlyPastTheRange) {
  // + : the last sums in range, and one past each end.
  expect_binary("+", kMax - 1, 1, false, kMax, kMax);
  expect_binary("+", kMax, 1, true, 0, kMin);
  expect_binary("+", kMin + 1, -1, false, kMin, kMin);
  expect_binary("+", kMin, -1, true, 0, kMax);
  expect_binary("+", kMax, kMin, false, -1, -1);
  // - : subtracting the minimum is the one asymmetric case.
  expect_binary("-", kMin + 1, 1, false, kMin, kMin);
  expect_binary("-", kMin, 1, true, 0, kMax);
  expect_binary("-", kMax, -1, true, 0, kMin);
  expect_binary("-", -1, kMax, false, kMin, kMin);
  expect_binary("-", 0, kMin, true, 0, kMin);
  expect_binary("-", -1, kMin, false, kMax, kMax);
  // * : 2^62 · 2 = 2^63 is out, −2^62 · 2 = −2^63 is in.
  const int64_t p62 = int64_t{1} << 62;
  expect_binary("*", p62 - 1, 2, false, kMax - 1, kMax - 1);
  expect_binary("*", p62, 2, true, 0, kMin);
  expect_binary("*", -p62, 2, false, kMin, kMin);
  expect_binary("*", -p62 - 1, 2, true, 0, kMax - 1);
  expect_binary("*", kMin, -1, true, 0, kMin);
  expect_binary("*", -1, kMin, true, 0, kMin);
  expect_binary("*", kMin, 1, false, kMin, kMin);
  expect_binary("*", kMin, 0, false, 0, 0);
  expect_binary("*", 3037000499, 3037000499, false, 9223372030926249001, 9223372030926249001);  // ⌊√(2^63 − 1)⌋²
  expect_binary("*", 3037000500, 3037000500, true, 0, static_cast<int64_t>(uint64_t{3037000500} * 3037000500));
  // div: only INT64_MIN div −1; a zero divisor is 0 (no error).
  expect_binary("div", kMin, -1, true, 0, kMin);
  expect_binary("div", kMin, 1, false, kMin, kMin);
  expect_binary("div", kMin, 0, false, 0, 0);
  expect_binary("div", kMax, -1, false, -kMax, -kMax);
  expect_binary("div", kMin + 1, -1, false, kMax, kMax);
  // mod never leaves the range.
  expect_binary("mod", kMin, -1, false, 0, 0);
  expect_binary("mod", kMin, kMax, false, -1, -1);
}

TEST(IntOverflow, UnaryOperationsAndConversionsOfRealsAreErrorsExactlyPastTheRange) {
  auto unary = [](const std::string &body, const oracle::Cell &x, bool overflows, int64_t expected) {
    bool real = x.value.elem == Scalar::Real;
    Loaded l = load(std::string("node main(x: ") + (real ? "real" : "int") + ") returns (y: int);\nlet\n  y = " + body + ";\ntel\n");
    oracle::Result r = one_cycle(l, {{"x", x}}, true);
    oracle::Cell y = r.at("y", 0);
    std::string what = body + " at " + (real ? std::to_string(x.value.r.at(0)) : std::to_string(x.value.i.at(0)));
    if (overflows) {
      ASSERT_EQ(y.tag, oracle::Tag::Err) << what;
      ASSERT_EQ(r.errors.size(), 1u) << what;
      EXPECT_EQ(r.errors[0].rule, "overflow") << what;
    } else {
      ASSERT_EQ(y.tag, oracle::Tag::Val) << what;
      EXPECT_EQ(y.value.i.at(0), expected) << what;
    }
  };
  unary("-x", ival(kMin), true, 0);
  unary("-x", ival(kMin + 1), false, kMax);
  unary("abs(x)", ival(kMin), true, 0);
  unary("abs(x)", ival(kMin + 1), false, kMax);
  unary("abs(x)", ival(kMax), false, kMax);
  const double two63 = 9223372036854775808.0;
  const double below = std::nextafter(two63, 0.0);  // 2^63 − 1024, the largest double below 2^63
  unary("floor(x)", rval(two63), true, 0);
  unary("floor(x)", rval(below), false, static_cast<int64_t>(below));
  unary("floor(x)", rval(-two63), false, kMin);
  unary("floor(x)", rval(std::nextafter(-two63, -INFINITY)), true, 0);
  unary("int(x)", rval(-two63), false, kMin);
  unary("int(x)", rval(std::nextafter(-two63, -INFINITY)), true, 0);
  unary("int(x)", rval(INFINITY), true, 0);
  unary("floor(x)", rval(-0.5), false, -1);
  unary("int(x)", rval(-0.5), false, 0);
  unary("int(x)", rval(NAN), false, 0);  // NaN gives 0: not an overflow (reals are binary64)
}

// The message names the operation's values and the option.
TEST(IntOverflow, TheOriginSaysWhichValuesLeftTheRange) {
  Loaded l = load("node main(a: int) returns (y: int);\nlet\n  y = a + 1;\ntel\n");
  oracle::Result r = one_cycle(l, {{"a", ival(kMax)}}, true);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].message, "9223372036854775807 + 1 leaves the 64-bit int range (--int-overflow error)");
  ASSERT_TRUE(r.errors[0].span.valid());
  EXPECT_EQ(r.errors[0].span.file->line_col(r.errors[0].span.begin), std::make_pair(3u, 7u));
}

// A machine integer's arithmetic wraps by definition (Kind 2's bit-vectors), int64's too,
// beside a plain int that overflows in the same node.
TEST(IntOverflow, AMachineIntegerStillWraps) {
  Loaded l = load(
      "node main(a: int64; b: int8; c: int) returns (y: int64; z: int8; w: int);\nlet\n"
      "  y = a + (int64 1);\n  z = b * (int8 2);\n  w = c + 1;\ntel\n",
      "ovf.lus");
  oracle::Result r = one_cycle(l, {{"a", ival(kMax)}, {"b", ival(127)}, {"c", ival(kMax)}}, true);
  ASSERT_EQ(r.at("y", 0).tag, oracle::Tag::Val);
  EXPECT_EQ(r.at("y", 0).value.i.at(0), kMin);
  ASSERT_EQ(r.at("z", 0).tag, oracle::Tag::Val);
  EXPECT_EQ(r.at("z", 0).value.i.at(0), -2);
  EXPECT_EQ(r.at("w", 0).tag, oracle::Tag::Err);
  ASSERT_EQ(r.errors.size(), 1u);
  EXPECT_EQ(r.errors[0].var, "w");
}

// Nil (a pre's first value) and absent operands compute nothing, so nothing overflows; a
// ‖ propagates (only its origin is reported); a fby keeps it.
TEST(IntOverflow, NilAbsentAndPropagatedCells) {
  Loaded l = load(
      "node main(a: int; c: bool) returns (p: int; s: int; q: int; m: int);\nlet\n"
      "  p = pre a + 1;\n"
      "  s = merge c (a when c) ((a when not c) + 1);\n"
      "  q = (a + 1) * 0;\n"
      "  m = 0 fby q;\ntel\n");
  oracle::Inputs in;
  in.cycles = 2;
  in.streams["a"] = {ival(kMax), ival(0)};
  in.streams["c"] = {oracle::Cell::of(array::Tensor::boolean(true)), oracle::Cell::of(array::Tensor::boolean(true))};
  oracle::Result r = oracle::Oracle(l.fe->checked, l.prog, overflow_reading()).run(in);
  EXPECT_EQ(r.at("p", 0).tag, oracle::Tag::Nil);  // pre a is nil at cycle 0
  EXPECT_EQ(r.at("p", 1).tag, oracle::Tag::Err);  // kMax + 1 at cycle 1
  ASSERT_EQ(r.at("s", 0).tag, oracle::Tag::Val);  // the sum is absent where c holds
  EXPECT_EQ(r.at("s", 0).value.i.at(0), kMax);
  EXPECT_EQ(r.at("q", 0).tag, oracle::Tag::Err);  // (kMax + 1) * 0: the ‖ of the sum
  ASSERT_EQ(r.at("q", 1).tag, oracle::Tag::Val);
  EXPECT_EQ(r.at("m", 1).tag, oracle::Tag::Err);  // the fby's memory of cycle 0
  size_t overflow_origins = 0;
  for (auto &e : r.errors) overflow_origins += e.rule == "overflow";
  EXPECT_EQ(overflow_origins, 2u);  // a + 1 at cycle 0, pre a + 1 at cycle 1; not q, not m
  // The wrapping reading: no error anywhere.
  oracle::Result w = oracle::Oracle(l.fe->checked, l.prog).run(in);
  EXPECT_TRUE(w.errors.empty());
  EXPECT_FALSE(w.any_error());
}

// ---- rml-check ----

check::Options checker(bool overflow_error) {
  check::Options o;
  o.rlimit = 8'000'000;
  o.int_overflow_error = overflow_error;
  return o;
}

struct Checked : Loaded {
  check::Report rep;
};

Checked check_text(const std::string &text, bool overflow_error, const std::string &path = "ovf.lus") {
  Checked c;
  static_cast<Loaded &>(c) = load(text, path);
  c.rep = check::check_program(c.fe->checked, c.prog, checker(overflow_error));
  return c;
}

const check::PropertyResult *find(const Checked &c, const std::string &kind) {
  for (auto &p : c.rep.properties)
    if (p.kind == kind) return &p;
  return nullptr;
}

// y = x + 1 overflows at x = INT64_MAX, which the overflow property finds and the oracle
// replays; in that reading `y > x` is true wherever y is a value, and proved over the
// integers. The negative control: in the wrapping reading `y > x` is falsified at the same
// input, and no overflow property is checked.
TEST(IntOverflow, AnIncrementOverflowsAtTheMaximumAndIsGreaterWhereItHasAValue) {
  const std::string text = "node main(x: int) returns (y: int);\nlet\n  y = x + 1;\n  check y > x;\ntel\n";
  Checked c = check_text(text, true);
  const check::PropertyResult *o = find(c, "overflow");
  ASSERT_NE(o, nullptr);
  ASSERT_EQ(o->verdict, check::Verdict::Falsified) << o->method;
  ASSERT_TRUE(o->cex);
  EXPECT_EQ(o->cex->inputs.streams.at("x").at(0).value.i.at(0), kMax);
  ASSERT_EQ(o->findings.size(), 1u);
  EXPECT_EQ(o->findings[0].rule, "int.overflow");
  EXPECT_EQ(o->findings[0].span.file->line_col(o->findings[0].span.begin), std::make_pair(3u, 7u));
  const check::PropertyResult *p = find(c, "property");
  ASSERT_NE(p, nullptr);
  EXPECT_EQ(p->verdict, check::Verdict::Valid) << p->method;
  EXPECT_NE(p->method.find("an overflow an error value"), std::string::npos) << p->method;
  EXPECT_EQ(c.rep.exit_code(), 1);

  Checked w = check_text(text, false);
  EXPECT_EQ(find(w, "overflow"), nullptr);
  ASSERT_EQ(find(w, "property")->verdict, check::Verdict::Falsified);
  EXPECT_EQ(find(w, "property")->cex->inputs.streams.at("x").at(0).value.i.at(0), kMax);
}

// A counter reset below 1000 never overflows (proved); one that is never reset does at
// its 2^63-th cycle, beyond any search: never called valid.
TEST(IntOverflow, ACounterOverflowsUnlessItIsBounded) {
  Checked c = check_text(
      "node main(r: bool) returns (n: int);\nlet\n  n = 0 -> if r or pre n >= 1000 then 0 else pre n + 1;\n  check n >= 0;\ntel\n", true);
  ASSERT_EQ(find(c, "overflow")->verdict, check::Verdict::Valid) << find(c, "overflow")->method;
  EXPECT_EQ(find(c, "property")->verdict, check::Verdict::Valid) << find(c, "property")->method;
  EXPECT_EQ(c.rep.exit_code(), 0);
  Checked d = check_text("node main(r: bool) returns (n: int);\nlet\n  n = 0 -> pre n + 1;\n  check n >= 0;\ntel\n", true);
  EXPECT_NE(find(d, "overflow")->verdict, check::Verdict::Valid) << find(d, "overflow")->method;
  // n >= 0 holds wherever n is a value: in this reading n is ‖ from its overflow on.
  EXPECT_EQ(find(d, "property")->verdict, check::Verdict::Valid) << find(d, "property")->method;
}

// A machine integer's sum keeps its wrap in the proof: int64 max + 1 is int64 min, so
// y > x is falsified in this reading too, and nothing can overflow.
TEST(IntOverflow, AMachineIntegersWrapIsNotProvedAway) {
  Checked c = check_text("node main(x: int64) returns (y: int64);\nlet\n  y = x + (int64 1);\n  check y > x;\ntel\n", true);
  const check::PropertyResult *o = find(c, "overflow");
  ASSERT_EQ(o->verdict, check::Verdict::Valid);
  EXPECT_NE(o->method.find("no operation of the node can leave"), std::string::npos) << o->method;
  const check::PropertyResult *p = find(c, "property");
  ASSERT_EQ(p->verdict, check::Verdict::Falsified) << p->method;
  EXPECT_EQ(p->cex->inputs.streams.at("x").at(0).value.i.at(0), kMax);
}

// The overflow of a product found by the solver (the oracle's random runs stay near 0):
// x * x with x bounded by an assumption to 3037000500 overflows exactly there.
TEST(IntOverflow, ASquareOverflowsOnlyPastItsRoot) {
  auto with = [](int64_t bound) {
    return check_text("node main(x: int) returns (y: int);\nlet\n  assert 0 <= x and x <= " + std::to_string(bound) +
                          ";\n  y = x * x;\ntel\n",
                      true);
  };
  Checked in = with(3037000499);
  EXPECT_EQ(find(in, "overflow")->verdict, check::Verdict::Valid) << find(in, "overflow")->method;
  Checked out = with(3037000500);
  ASSERT_EQ(find(out, "overflow")->verdict, check::Verdict::Falsified) << find(out, "overflow")->method;
  bool at_root = false;  // the only value in the assumed range whose square overflows
  for (auto &cell : find(out, "overflow")->cex->inputs.streams.at("x")) at_root |= cell.value.i.at(0) == 3037000500;
  EXPECT_TRUE(at_root);
}

// The overflow condition of each operation, in each encoding of ints (mathematical
// integers first, and 64-bit vectors alone), is the oracle's on the boundary operands:
// falsified exactly where the oracle makes the cell ‖, valid elsewhere.
TEST(IntOverflow, EachOperationsConditionIsTheOraclesInEveryEncoding) {
  const int64_t p62 = int64_t{1} << 62;
  struct Case {
    std::string op;
    int64_t a, b;
    bool overflows;
  };
  const std::vector<Case> cases{
      {"+", kMax - 1, 1, false}, {"+", kMax, 1, true},      {"+", kMin, -1, true},        {"+", kMax, kMin, false},
      {"-", kMin + 1, 1, false}, {"-", kMin, 1, true},      {"-", 0, kMin, true},         {"-", -1, kMin, false},
      {"*", p62 - 1, 2, false},  {"*", p62, 2, true},       {"*", -p62, 2, false},        {"*", -p62 - 1, 2, true},
      {"*", kMin, -1, true},     {"*", kMin, 1, false},     {"*", 3037000500, 3037000500, true},
      {"*", int64_t{1} << 33, int64_t{1} << 32, true},  // 2^65: 0 in 65 bits (a product needs 128)
      {"*", kMax, kMax, true},
      {"div", kMin, -1, true},   {"div", kMin, 0, false},   {"div", kMin + 1, -1, false}, {"mod", kMin, -1, false},
  };
  for (bool lia : {true, false})
    for (auto &k : cases) {
      const std::string text = "node main(a: int; b: int) returns (y: int);\nlet\n  assert a = " + std::to_string(k.a) +
                               " and b = " + std::to_string(k.b) + ";\n  y = a " + k.op + " b;\ntel\n";
      const std::string what = std::to_string(k.a) + " " + k.op + " " + std::to_string(k.b) + (lia ? " (integers)" : " (64-bit vectors)");
      Checked c;
      static_cast<Loaded &>(c) = load(text, "ovf.lus");
      check::Options o = checker(true);
      o.solver_only = true;  // no oracle run first: the encodings decide
      o.lia_ints = lia;
      c.rep = check::check_program(c.fe->checked, c.prog, o);
      const check::PropertyResult *ovf = find(c, "overflow");
      ASSERT_NE(ovf, nullptr) << what;
      EXPECT_EQ(ovf->verdict, k.overflows ? check::Verdict::Falsified : check::Verdict::Valid) << what << ": " << ovf->method;
    }
}

// Where ints cannot be mathematical integers (a machine integer's bit operation), a user
// property's counterexample found on 64-bit vectors is replayed in the overflow reading:
// `y > x` at x = INT64_MAX is ‖ there, not false, so it is no counterexample (the
// overflow property reports that run). The negative control: the wrapping reading
// falsifies it.
TEST(IntOverflow, AWrappingCounterexampleIsNoCounterexampleOfThisReading) {
  const std::string text =
      "node main(x: int; b: uint8) returns (y: int; z: uint8);\nlet\n  y = x + 1;\n  z = b && (uint8 1);\n  check y > x;\ntel\n";
  Checked c = check_text(text, true);
  EXPECT_NE(find(c, "property")->verdict, check::Verdict::Falsified) << find(c, "property")->method;
  ASSERT_EQ(find(c, "overflow")->verdict, check::Verdict::Falsified) << find(c, "overflow")->method;
  Checked w = check_text(text, false);
  EXPECT_EQ(find(w, "property")->verdict, check::Verdict::Falsified) << find(w, "property")->method;
}

// ---- laws ----

oracle::Inputs extreme_inputs() {
  const std::vector<int64_t> extremes{kMin, kMin + 1, -2, -1, 0, 1, 2, kMax - 1, kMax};
  oracle::Inputs in;
  in.cycles = *rc::gen::inRange<size_t>(1, 8);
  for (size_t n = 0; n < in.cycles; ++n) {
    in.streams["x"].push_back(rval(*rc::gen::inRange(-3, 4)));
    in.streams["y"].push_back(ival(*rc::gen::elementOf(extremes)));
    in.streams["c"].push_back(oracle::Cell::of(array::Tensor::boolean(*rc::gen::arbitrary<bool>())));
  }
  return in;
}

// Equations that put y (at the 64-bit extremes in the laws' runs) through each operation
// that can overflow, and the ‖ through state, a merge of complementary branches and a
// generated expression: the generator's own ints are mostly small (`mod 7`).
std::string overflowing_equations(testgen::ProgGen &g, int depth) {
  return "  w0 = (y + " + g.expr(testgen::Ty::Int, depth, g.locals) + ") * " + g.expr(testgen::Ty::Int, 1, g.locals) + ";\n" +
         "  w1 = (0 fby w0) - y;\n" + "  w2 = merge c ((-y) when c) ((y div (0 - 1)) when not c);\n";
}

// Whether two cells are the same (tag, and the value's bits).
bool same_cell(const oracle::Cell &a, const oracle::Cell &b) {
  if (a.tag != b.tag) return false;
  if (a.tag != oracle::Tag::Val) return true;
  if (a.value.i != b.value.i || a.value.r.size() != b.value.r.size()) return false;
  for (size_t k = 0; k < a.value.r.size(); ++k)
    if (std::memcmp(&a.value.r[k], &b.value.r[k], sizeof(double)) != 0) return false;
  return true;
}

// Law (‖ is strict): every cell that is not ‖ in the overflow reading is the wrapping
// reading's cell, on random programs and inputs at the 64-bit extremes. With `every`
// (the negative control) ‖ cells are compared too, which must fail on some draw.
bool readings_agree(bool every) {
  testgen::ProgGen g;
  g.well_clocked = true;
  std::string text = g.program();
  text += overflowing_equations(g, 2);
  text += "  w3 = (w1 -> pre w2) + abs(y);\n";
  text += "  w4 = if " + g.expr(testgen::Ty::Bool, 1, g.locals) + " then w3 else " + g.expr(testgen::Ty::Int, 1, g.locals) + ";\n";
  RC_LOG() << text;
  auto fe = run_frontend("gen.rml", text);
  RC_PRE(!fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  oracle::Inputs in = extreme_inputs();
  oracle::Result e = oracle::Oracle(fe->checked, prog, overflow_reading()).run(in);
  oracle::Result w = oracle::Oracle(fe->checked, prog).run(in);
  size_t overflows = 0;
  for (auto &o : e.errors) overflows += o.rule == "overflow";
  RC_CLASSIFY(overflows > 0, "some overflow");
  for (auto &v : prog.outputs)
    for (size_t n = 0; n < in.cycles; ++n) {
      oracle::Cell a = e.at(v.name, n), b = w.at(v.name, n);
      if (!every && a.tag == oracle::Tag::Err) continue;
      if (!same_cell(a, b)) return false;
    }
  for (auto &eq : prog.equations)
    for (size_t n = 0; n < in.cycles; ++n) {
      oracle::Cell a = e.at(eq.lhs, n), b = w.at(eq.lhs, n);
      if (!every && a.tag == oracle::Tag::Err) continue;
      if (!same_cell(a, b)) return false;
    }
  return true;
}

RC_GTEST_PROP(IntOverflow, ACellThatIsNotAnErrorIsTheWrappingReadingsCell, ()) { RC_ASSERT(readings_agree(false)); }

// The negative control: comparing the ‖ cells too fails on some draw (the generator
// reaches overflows at the extremes).
TEST(IntOverflow, ComparingEveryCellOfTheTwoReadingsFails) {
  const auto r = rc::check("every cell equal", [] { RC_ASSERT(readings_agree(true)); });
  EXPECT_FALSE(r);
}

// Law: over random programs with a random property, checked with --int-overflow error,
// a property proved valid is never false or nil, and an overflow property proved valid
// sees no overflow, on oracle runs of that reading whose int input sits at or next to the
// 64-bit extremes.
RC_GTEST_PROP(IntOverflow, WhatIsProvedInTheOverflowReadingHoldsAtTheExtremes, ()) {
  testgen::ProgGen g;
  g.well_clocked = true;
  std::string text = g.program();
  // One program in two: y through each operation that can overflow (overflowing_equations),
  // which the property then reads one time in two (the others reach "overflow valid").
  std::string property = g.expr(testgen::Ty::Bool, 2, g.locals);
  if (*rc::gen::arbitrary<bool>()) {
    text += overflowing_equations(g, 1);
    const std::vector<std::string> about_ints{"w0 <> y", "w1 + y = 0 fby w0", "w2 >= 0 or y >= 0", "abs(w2) >= 0", "w1 < w0 or c"};
    if (*rc::gen::arbitrary<bool>()) property = *rc::gen::elementOf(about_ints);
  }
  text += "  check " + property + ";\n";
  if (rml::test::sampled_out_in_ci(text, 2)) RC_SUCCEED("sampled out in CI (scripts/soundness-long.sh checks every case)");
  RC_LOG() << text;
  check::Options o = checker(true);
  o.rlimit = 3'000'000;
  o.max_depth = 4;
  o.max_horizon = 6;
  auto fe = run_frontend("gen.rml", text);
  RC_PRE(!fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  check::Report rep = check::check_program(fe->checked, prog, o);
  const check::PropertyResult *ovf = nullptr, *prop = nullptr;
  for (auto &p : rep.properties) {
    if (p.kind == "overflow") ovf = &p;
    if (p.kind == "property") prop = &p;
  }
  RC_ASSERT(ovf != nullptr);
  RC_ASSERT(prop != nullptr);
  RC_TAG(std::string("overflow ") + check::verdict_name(ovf->verdict), std::string("property ") + check::verdict_name(prop->verdict));
  oracle::Inputs in = extreme_inputs();
  if (prop->verdict == check::Verdict::Valid) RC_ASSERT(!rml::test::first_property_fails_in(fe->checked, prog, in, true, overflow_reading()));
  if (ovf->verdict == check::Verdict::Valid) {
    oracle::Result r = oracle::Oracle(fe->checked, prog, overflow_reading()).run(in);
    for (auto &e : r.errors) RC_ASSERT(e.rule != "overflow");
  }
  if (ovf->verdict == check::Verdict::Falsified) {  // replayed: the counterexample overflows in that reading
    RC_ASSERT(ovf->cex.has_value());
    oracle::Result r = oracle::Oracle(fe->checked, prog, overflow_reading()).run(ovf->cex->inputs);
    bool any = false;
    for (auto &e : r.errors) any |= e.rule == "overflow";
    RC_ASSERT(any);
  }
}

// That law's negative control: a property proved in the overflow reading is refuted by
// the wrapping reading's run at the extreme (the law's runs tell the readings apart).
TEST(IntOverflow, AProofInTheOverflowReadingIsNoProofInTheWrappingOne) {
  const std::string text = "node main(x: int) returns (y: int);\nlet\n  y = x + 1;\n  check y > x;\ntel\n";
  Checked c = check_text(text, true);
  ASSERT_EQ(find(c, "property")->verdict, check::Verdict::Valid);
  oracle::Inputs in;
  in.cycles = 1;
  in.streams["x"] = {ival(kMax)};
  EXPECT_FALSE(rml::test::first_property_fails_in(c.fe->checked, c.prog, in, true, overflow_reading()));
  EXPECT_TRUE(rml::test::first_property_fails_in(c.fe->checked, c.prog, in, true));
}

}  // namespace int_overflow_test
