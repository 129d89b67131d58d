// Laws of the semantics as RapidCheck properties over random streams with absences
// (semantics.md §4.7, §4.5, §5), and the agreement of the two solvers.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdlib>

#include "common/stream_prog_gen.hpp"
#include "oracle_util.hpp"

using namespace rml;
using oracle::Cell;
using oracle::Tag;

namespace {

// At least 1000 cases per property in CI, unless RC_PARAMS already says otherwise.
const bool kRcParams = [] {
  const char *cur = std::getenv("RC_PARAMS");
  std::string v = cur ? cur : "";
  if (v.find("max_success") == std::string::npos) setenv("RC_PARAMS", (v.empty() ? "" : v + " ") .append("max_success=1000").c_str(), 1);
  return true;
}();

struct Compiled {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
};
Compiled compile(const std::string &text, const std::string &main) {
  Compiled c;
  c.fe = run_frontend("law.rml", text);
  if (c.fe->diags.has_errors()) throw std::runtime_error(render_all(c.fe->diags));
  c.prog = core::elaborate(c.fe->checked, main);
  return c;
}

Cell real_cell(int v) { return Cell::of(array::Tensor::real(v)); }

// A random presence pattern and values, `len` cycles.
std::vector<bool> presence(size_t len) { return *rc::gen::container<std::vector<bool>>(len, rc::gen::arbitrary<bool>()); }
std::vector<Cell> reals_on(const std::vector<bool> &p) {
  std::vector<Cell> out;
  for (bool b : p) out.push_back(b ? real_cell(*rc::gen::inRange(-50, 50)) : Cell::absent());
  return out;
}

oracle::Inputs random_main_inputs(size_t len) {
  // Inputs of testgen::ProgGen's main(x: real, y: int, c: bool), each with its own absences.
  oracle::Inputs in;
  in.cycles = len;
  for (size_t n = 0; n < len; ++n) {
    auto absent = [] { return *rc::gen::inRange(0, 5) == 0; };
    in.streams["x"].push_back(absent() ? Cell::absent() : real_cell(*rc::gen::inRange(-3, 4)));
    in.streams["y"].push_back(absent() ? Cell::absent() : Cell::of(array::Tensor::integer(*rc::gen::inRange(-3, 4))));
    in.streams["c"].push_back(absent() ? Cell::absent() : Cell::of(array::Tensor::boolean(*rc::gen::arbitrary<bool>())));
  }
  return in;
}

// "" when a result names an error origin whenever some cell is ‖, and every origin it names
// in a variable of the result is a ‖ cell (an origin may also be a clock term, "ck:...",
// which is not a variable of the result); else what is wrong.
std::string origins_consistent(const oracle::Result &r) {
  if (r.any_error() && r.errors.empty()) return "a cell is ‖ but no origin is named";
  for (auto &e : r.errors)
    if (r.has(e.var) && r.tag(e.var, e.cycle) != Tag::Err)
      return "origin '" + e.var + "' at cycle " + std::to_string(e.cycle) + " is not ‖";
  return "";
}

}  // namespace

// Law: post (y fby x) = x. On a finite prefix the last tick is ⊥: post reads the next tick
// of (y fby x), which lies beyond the prefix.
RC_GTEST_PROP(Laws, PostOfFbyIsTheIdentity, ()) {
  static const Compiled c = compile("node law(y: real, x: real) -> (o: real) o = post (y fby x);\n", "law");
  size_t len = *rc::gen::inRange<size_t>(1, 16);
  auto p = presence(len);
  oracle::Inputs in;
  in.cycles = len;
  in.streams["x"] = reals_on(p);
  in.streams["y"] = reals_on(p);
  oracle::Oracle o(c.fe->checked, c.prog);
  auto r = o.run(in);
  for (size_t n = 0; n < len; ++n) {
    bool later_tick = false;
    for (size_t m = n + 1; m < len; ++m) later_tick |= p[m];
    const Cell &got = r.at("o", n);
    if (!p[n]) RC_ASSERT(got.tag == Tag::Abs);
    else if (later_tick) RC_ASSERT(got == in.streams["x"][n]);
    else RC_ASSERT(got.tag == Tag::Bot);  // needs the next tick, beyond the prefix
  }
}

// Law: y fby (post x) = x, except at the first tick, where it is y. Exact on every prefix.
RC_GTEST_PROP(Laws, FbyOfPostIsTheIdentityButTheFirstTick, ()) {
  static const Compiled c = compile("node law(y: real, x: real) -> (o: real) o = y fby (post x);\n", "law");
  size_t len = *rc::gen::inRange<size_t>(1, 16);
  auto p = presence(len);
  oracle::Inputs in;
  in.cycles = len;
  in.streams["x"] = reals_on(p);
  in.streams["y"] = reals_on(p);
  oracle::Oracle o(c.fe->checked, c.prog);
  auto r = o.run(in);
  bool first = true;
  for (size_t n = 0; n < len; ++n) {
    const Cell &got = r.at("o", n);
    if (!p[n]) {
      RC_ASSERT(got.tag == Tag::Abs);
      continue;
    }
    RC_ASSERT(got == (first ? in.streams["y"][n] : in.streams["x"][n]));
    first = false;
  }
}

// Law: merge c (x when c) (x when not c) = x, for c and x present at the same cycles.
RC_GTEST_PROP(Laws, MergeOfWhensReconstructs, ()) {
  static const Compiled c =
      compile("node law(c: bool, x: int) -> (o: int) o = merge c (x when c) (x when not c);\n", "law");
  size_t len = *rc::gen::inRange<size_t>(1, 16);
  auto p = presence(len);
  oracle::Inputs in;
  in.cycles = len;
  for (size_t n = 0; n < len; ++n) {
    in.streams["c"].push_back(p[n] ? Cell::of(array::Tensor::boolean(*rc::gen::arbitrary<bool>())) : Cell::absent());
    in.streams["x"].push_back(p[n] ? Cell::of(array::Tensor::integer(*rc::gen::inRange(-9, 9))) : Cell::absent());
  }
  oracle::Oracle o(c.fe->checked, c.prog);
  auto r = o.run(in);
  for (size_t n = 0; n < len; ++n) RC_ASSERT(r.at("o", n) == in.streams["x"][n]);
}

// Law (monotonicity, semantics.md §5): extending an input prefix never changes a cell the
// shorter prefix determined, except to ‖. Over random programs with every primitive.
RC_GTEST_PROP(Laws, ExtendingThePrefixOnlyAddsInformation, ()) {
  testgen::ProgGen g;
  std::string text = g.program();
  RC_LOG() << text;
  Compiled c = compile(text, "main");
  size_t len = *rc::gen::inRange<size_t>(1, 10), more = *rc::gen::inRange<size_t>(1, 6);
  oracle::Inputs longer = random_main_inputs(len + more), shorter = longer;
  shorter.cycles = len;
  for (auto &[k, v] : shorter.streams) v.resize(len);
  oracle::Oracle o(c.fe->checked, c.prog);
  auto a = o.run(shorter), b = o.run(longer);
  for (auto &name : a.vars)
    for (size_t n = 0; n < len; ++n) {
      const Cell x = a.at(name, n), y = b.at(name, n);
      RC_ASSERT(x.tag == Tag::Bot || x == y || y.tag == Tag::Err);
    }
}

// The worklist solver computes the least fixpoint whatever its evaluation order: it
// agrees with the literal Kleene iteration cell by cell, for random orders.
RC_GTEST_PROP(Solvers, WorklistInAnyOrderEqualsKleene, ()) {
  testgen::ProgGen g;
  std::string text = g.program();
  RC_LOG() << text;
  Compiled c = compile(text, "main");
  oracle::Inputs in = random_main_inputs(*rc::gen::inRange<size_t>(1, 10));
  oracle::Options shuffled;
  shuffled.shuffle_seed = *rc::gen::inRange<uint64_t>(1, 1u << 30);
  auto k = oracle::Oracle(c.fe->checked, c.prog).run(in, oracle::Solver::Kleene);
  auto w = oracle::Oracle(c.fe->checked, c.prog).run(in, oracle::Solver::Worklist);
  auto s = oracle::Oracle(c.fe->checked, c.prog, shuffled).run(in, oracle::Solver::Worklist);
  for (auto &name : k.vars)
    for (size_t n = 0; n < k.cycles; ++n) {
      const Cell want = k.at(name, n);
      RC_ASSERT(w.at(name, n) == want);
      RC_ASSERT(s.at(name, n) == want);
    }
  // Each solver says where a ‖ comes from (the cells may differ between solvers when a ‖
  // feeds back into itself: each names a cell whose rule produced it).
  RC_ASSERT(origins_consistent(k) == "");
  RC_ASSERT(origins_consistent(w) == "");
  RC_ASSERT(origins_consistent(s) == "");
}

// A ‖ that feeds back through a post into the cell whose rule would report it: the rule
// at cycle 0 reads '$3' absent at the post's next tick (cycle 1) and says so; the worklist
// then raises '$3' at cycle 1 to ‖, so the rule at cycle 1 only propagates. Every solver
// still names the post at cycle 1 as the origin.
TEST(Solvers, AnErrorFedBackThroughAPostStillHasItsOrigin) {
  static const Compiled c = compile(
      "node main(c: bool) -> (o: int)\n"
      "  v0 = post ((0 fby v0) when c);\n"
      "  o = merge c v0 0;\n",
      "main");
  oracle::Inputs in;
  in.cycles = 2;
  in.streams["c"] = {Cell::of(array::Tensor::boolean(true)), Cell::of(array::Tensor::boolean(false))};
  oracle::Options shuffled;
  shuffled.shuffle_seed = 7;
  for (auto [solver, opts] : {std::pair{oracle::Solver::Kleene, oracle::Options{}}, std::pair{oracle::Solver::Worklist, oracle::Options{}},
                              std::pair{oracle::Solver::Worklist, shuffled}}) {
    auto r = oracle::Oracle(c.fe->checked, c.prog, opts).run(in, solver);
    EXPECT_EQ(r.tag("v0", 0), Tag::Err);
    EXPECT_EQ(r.tag("v0", 1), Tag::Err);
    EXPECT_EQ(origins_consistent(r), "");
    bool post_at_1 = false;
    for (auto &e : r.errors) post_at_1 |= e.var == "v0" && e.cycle == 1 && std::string(e.rule) == "post";
    EXPECT_TRUE(post_at_1);
  }
}

// Negative control of origins_consistent: a result whose origins were dropped, or that
// names a cell that is not ‖, is refused.
TEST(Solvers, NegativeControlOriginsThatAreMissingOrWrongAreRefused) {
  static const Compiled c = compile("node main(x: real, c: bool) -> (o: real) o = x when c;\n", "main");
  oracle::Inputs in;
  in.cycles = 2;
  in.streams["x"] = {Cell::absent(), real_cell(1)};
  in.streams["c"] = {Cell::of(array::Tensor::boolean(true)), Cell::of(array::Tensor::boolean(true))};
  auto r = oracle::Oracle(c.fe->checked, c.prog).run(in);
  ASSERT_TRUE(r.any_error());
  EXPECT_EQ(origins_consistent(r), "");
  auto dropped = r;
  dropped.errors.clear();
  EXPECT_NE(origins_consistent(dropped), "");
  auto moved = r;
  moved.errors[0].cycle = 1;  // o at cycle 1 is 1.0
  EXPECT_NE(origins_consistent(moved), "");
}

// The properties above can fail: a wrong law is falsified (negative control).
TEST(Laws, NegativeControlAWrongLawIsFalsified) {
  // post x = x is not a law: the first present cell differs on a non-constant stream.
  static const Compiled c = compile("node law(x: real) -> (o: real) o = post x;\n", "law");
  oracle::Inputs in;
  in.cycles = 3;
  in.streams["x"] = {real_cell(1), real_cell(2), real_cell(3)};
  auto r = oracle::Oracle(c.fe->checked, c.prog).run(in);
  EXPECT_FALSE(r.at("o", 0) == in.streams["x"][0]);
  EXPECT_EQ(r.at("o", 0), real_cell(2));
}
