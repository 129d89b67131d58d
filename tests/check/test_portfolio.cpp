// The second lane (checker/portfolio.hpp): IC3/PDR from the start on a thread of its own,
// beside the engines in their usual order. Deterministic budgets only.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "checker/budget.hpp"
#include "checker/checker.hpp"
#include "checker/engine.hpp"
#include "checker/portfolio.hpp"
#include "common/property_runs.hpp"
#include "common/sanitized.hpp"
#include "common/stream_prog_gen.hpp"
#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"

using namespace rml;

namespace portfolio_test {

// A counter that runs 0..100 and wraps to 0: `x <> 200` is not k-inductive for any k (from
// 188, twelve good cycles reach 200), Houdini's ranges from 64-cycle runs do not bound x
// (its ceiling written `50 * 2` is no constant of the program, which Houdini would try as
// a bound: `x <= 200` is not inductive), and Spacer finds `x <= 100` quickly. The first lane reaches Spacer only after BMC and
// k-induction over both int encodings; at 1 M units that leaves it too little, while the
// second lane has the whole million for it.
const char *kCounter = R"(
node main(a : bool) returns (ok : bool);
var x : int;
let
  x = 0 -> if pre x = 50 * 2 then 0 else pre x + 1;
  ok = x <> 200;
  --%PROPERTY ok;
tel
)";

struct Checked {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
  check::Report rep;
};

check::Options options(int lanes, uint64_t rlimit) {
  check::Options o;
  o.rlimit = rlimit;
  o.solver_only = true;
  o.lanes = lanes;
  return o;
}

Checked check_text(const std::string &text, int lanes, uint64_t rlimit) {
  Checked c;
  c.fe = run_frontend("counter.lus", text);
  if (c.fe->diags.has_errors()) throw std::runtime_error(render_all(c.fe->diags));
  c.prog = core::elaborate(c.fe->checked, "main");
  c.rep = check::check_program(c.fe->checked, c.prog, options(lanes, rlimit));
  return c;
}

const check::PropertyResult &user_property(const check::Report &rep) {
  for (auto &p : rep.properties)
    if (p.kind == "property") return p;
  throw std::runtime_error("no user property");
}

// Every property's verdict, method and resources, in order: what must not depend on the run.
std::string summary(const check::Report &rep) {
  std::string out;
  for (auto &p : rep.properties)
    out += p.kind + ": " + check::verdict_name(p.verdict) + " -- " + p.method + " [" + std::to_string(p.resources) + "]\n";
  return out;
}

TEST(Portfolio, TheSecondLaneProvesWhatOneLaneDoesNotInTheSameBudget) {
  auto one = check_text(kCounter, 1, 1'000'000);
  const auto &p1 = user_property(one.rep);
  EXPECT_EQ(p1.verdict, check::Verdict::Unknown) << p1.method;  // the negative control
  auto two = check_text(kCounter, 2, 1'000'000);
  const auto &p2 = user_property(two.rep);
  EXPECT_EQ(p2.verdict, check::Verdict::Valid) << p2.method;
  EXPECT_NE(p2.method.find("Spacer"), std::string::npos) << p2.method;
  EXPECT_NE(p2.method.find("on a second lane"), std::string::npos) << p2.method;
  // Deterministic: the same report again (each lane has its own meter).
  EXPECT_EQ(summary(check_text(kCounter, 2, 1'000'000).rep), summary(two.rep));
}

// When the first lane decides, the report is exactly the one-lane report: the second lane
// is stopped and changes nothing (its units are on a meter of its own). The budget leaves
// room for the build: Z3 counts the same units for the same queries, but the checker's
// terms are made in an order that depends on the compiler (the one lane proves kCounter
// with 1.06 M units in the GCC release build and with 2.4-2.8 M in the Clang sanitizer
// build, where 4 M ran out).
TEST(Portfolio, WhenTheFirstLaneDecidesTheReportIsTheOneLaneReport) {
  auto one = check_text(kCounter, 1, 12'000'000);
  EXPECT_EQ(user_property(one.rep).verdict, check::Verdict::Valid) << user_property(one.rep).method;
  EXPECT_EQ(summary(check_text(kCounter, 2, 12'000'000).rep), summary(one.rep));
}

// The second lane only proves: a property that fails is falsified by the first lane,
// replayed, with the same report as one lane gives.
TEST(Portfolio, AFailingPropertyIsFalsifiedNeverProved) {
  std::string failing = kCounter;
  failing.replace(failing.find("x <> 200"), 8, "x <> 8  ");  // at cycle 8
  auto one = check_text(failing, 1, 1'000'000);
  auto two = check_text(failing, 2, 1'000'000);
  EXPECT_EQ(user_property(two.rep).verdict, check::Verdict::Falsified) << user_property(two.rep).method;
  ASSERT_TRUE(user_property(two.rep).cex.has_value());
  EXPECT_EQ(summary(two.rep), summary(one.rep));
}

// Neither lane decides: unknown, with the first lane's reason (the second lane's failure
// is never taken for a proof).
TEST(Portfolio, WhenNeitherLaneDecidesTheVerdictIsUnknown) {
  auto two = check_text(kCounter, 2, 30'000);
  EXPECT_EQ(user_property(two.rep).verdict, check::Verdict::Unknown) << user_property(two.rep).method;
  EXPECT_EQ(summary(two.rep), summary(check_text(kCounter, 1, 30'000).rep));
}

// A lane with no limit at all (neither units nor a deadline) on a property Spacer does not
// settle stops when it is destroyed: its budget is cancelled until its thread ends. A lost
// cancel hangs this test.
TEST(Portfolio, AnUnlimitedLaneStopsWhenItIsDestroyed) {
  const char *twins = R"(
node main(a : bool) returns (ok : bool);
var x, y : int;
let
  x = 0 -> if pre x >= 100 then 0 else pre x + 1;
  y = 0 -> if pre x >= 100 then 0 else pre y + 1;
  ok = y <= 100;
  --%PROPERTY ok;
tel
)";
  auto fe = run_frontend("twins.lus", twins);
  ASSERT_FALSE(fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  core::Clocks clocks = core::infer_clocks(prog);
  check::Options o = options(2, 0);
  o.affine_relations = false;  // without x = y, Spacer searches for a long time
  check::Checker first(fe->checked, prog, clocks, o);
  const std::string v = prog.properties.at(0).var;
  std::function<z3::expr(const check::TransitionSystem::Frame &)> bad = [&](const check::TransitionSystem::Frame &f) {
    return f.p.at(v) && (f.nil.at(v) || !f.v.at(v));
  };
  std::set<std::string> roots{v};
  for (int k = 0; k < 3; ++k) {
    check::SecondLane lane(first, first.budget, bad, "'ok' holds", true, &roots, true);
    std::this_thread::sleep_for(std::chrono::milliseconds(200 * k));  // stopped early, or well into Spacer
  }
  SUCCEED();
}

// Ending a property's share (a proof on the second lane, under a wall-clock budget) ends
// that share and its slices, and nothing else: the whole check and the next property's
// share keep their budget. The deadline is far: nothing here depends on the clock.
TEST(Portfolio, EndingAShareEndsItsSlicesOnly) {
  check::Options o = options(2, 0);
  o.timeout_s = 3600;
  check::Budget whole(o);
  const check::Budget first = whole.share(2), part = first.slice(1, 2), second = whole.share(1);
  EXPECT_FALSE(first.exhausted());
  whole.end_share();  // not a share: nothing
  EXPECT_FALSE(whole.exhausted());
  first.end_share();
  EXPECT_TRUE(first.exhausted());
  EXPECT_TRUE(part.exhausted());
  EXPECT_FALSE(whole.exhausted());
  EXPECT_FALSE(second.exhausted());
  try {
    part.fail();
    ADD_FAILURE() << "fail() returned";
  } catch (const check::BudgetExhausted &e) {
    EXPECT_NE(std::string(e.what()).find("second lane had proved it"), std::string::npos) << e.what();
  }
}

// Under a wall-clock budget, the second lane's proof ends the first lane's share (the first
// lane of kCounter would search on); under a resource budget alone it does not (the
// negative control: what the first lane leaves must not depend on the machine). The wait
// is for an event, bounded far above what the proof takes; no verdict depends on it.
TEST(Portfolio, ASecondLaneProofEndsTheFirstLanesShareOnlyUnderAWallClockBudget) {
  auto fe = run_frontend("counter.lus", kCounter);
  ASSERT_FALSE(fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  core::Clocks clocks = core::infer_clocks(prog);
  const std::string v = prog.properties.at(0).var;
  std::function<z3::expr(const check::TransitionSystem::Frame &)> bad = [&](const check::TransitionSystem::Frame &f) {
    return f.p.at(v) && (f.nil.at(v) || !f.v.at(v));
  };
  std::set<std::string> roots{v};
  for (bool wall_clock : {true, false}) {
    // Under a resource budget in both cases (the verdict must not depend on the clock); the
    // deadline, an hour away, only makes the budget a wall-clock one.
    check::Options o = options(2, 5'000'000);
    if (wall_clock) o.timeout_s = 3600;
    check::Checker first(fe->checked, prog, clocks, o);
    const check::Budget whole = first.budget;
    first.budget = whole.share(1);
    check::PropertyResult r;
    {
      check::SecondLane lane(first, first.budget, bad, "'ok' holds", true, &roots, true);
      if (wall_clock) {
        auto until = std::chrono::steady_clock::now() + std::chrono::minutes(5);
        while (!first.budget.exhausted() && std::chrono::steady_clock::now() < until)
          std::this_thread::sleep_for(std::chrono::milliseconds(10));
        EXPECT_TRUE(first.budget.exhausted()) << "the proof did not end the first lane's share";
      }
      ASSERT_TRUE(lane.take_proof(r));
    }
    EXPECT_EQ(r.verdict, check::Verdict::Valid) << r.method;
    EXPECT_EQ(first.budget.exhausted(), wall_clock);
    EXPECT_FALSE(whole.exhausted());
  }
}

// Nothing left: no lane.
// A budget interrupts a context only while a query runs on it (Budget::Query), never
// between queries: Z3 4.8.12 deletes a Spacer object with code that rewrites terms, and an
// interrupt that reached its context then made the rewriter throw inside a destructor
// (std::terminate: the second lane's fixedpoint deleted while SecondLane's destructor
// cancelled the lane, seen on a busy machine). What an interrupt leaves is observable
// without a query: Z3 keeps the context cancelled until its next query starts, and
// simplify() meanwhile throws "canceled". Single-threaded except the watchdog's part, and
// no step waits on the clock.
namespace {
bool cancelled(z3::context &ctx) {
  z3::expr x = ctx.int_const("x");
  try {
    (x + 1 + 2).simplify();
    return false;
  } catch (const z3::exception &) {
    return true;
  }
}
void clear(z3::context &ctx) {  // a query lowers the flag when it starts
  z3::solver s(ctx);
  s.check();
}
}  // namespace

TEST(Portfolio, ACancelReachesAContextOnlyDuringAQuery) {
  check::Budget b(options(2, 0));
  z3::context ctx;
  {
    check::Budget::Query in_flight(b, ctx);
    b.cancel();
    EXPECT_TRUE(cancelled(ctx));  // the cancel reached the query
  }
  clear(ctx);
  ASSERT_FALSE(cancelled(ctx));
  b.cancel();  // between queries: where Z3 objects of the context are deleted
  EXPECT_FALSE(cancelled(ctx));
  {  // two queries on one context (a nested engine), one ended: the other is still reached
    check::Budget::Query outer(b, ctx);
    { check::Budget::Query inner(b, ctx); }
    b.cancel();
    EXPECT_TRUE(cancelled(ctx));
  }
}

TEST(Portfolio, EndingAShareReachesAContextOnlyDuringAQuery) {
  check::Options o = options(2, 0);
  o.timeout_s = 3600;  // end_share acts under a wall-clock budget only; far: no wait on it
  check::Budget whole(o);
  const check::Budget share = whole.share(1);
  z3::context ctx;
  share.end_share();
  EXPECT_FALSE(cancelled(ctx));
  {
    check::Budget::Query in_flight(share, ctx);
    share.end_share();
    EXPECT_TRUE(cancelled(ctx));
  }
  clear(ctx);
  share.end_share();
  EXPECT_FALSE(cancelled(ctx));
}

// Past the deadline the watchdog interrupts the queries in flight on every ring: once a
// context in a query has been reached, a context of the same check whose query has
// returned was passed over in that ring (both are looked at under one lock).
TEST(Portfolio, TheWatchdogReachesAContextOnlyDuringAQuery) {
  check::Options o = options(2, 0);
  o.timeout_s = 1e-9;  // expired at once: the watchdog rings every 10 ms from the start
  check::Budget b(o);
  z3::context querying, idle;
  { check::Budget::Query ended(b, idle); }  // its query has returned
  check::Budget::Query in_flight(b, querying);
  check::Budget::Watchdog dog(b);
  while (!cancelled(querying)) std::this_thread::yield();  // an event, not a time
  EXPECT_FALSE(cancelled(idle));
}

TEST(Portfolio, NoLaneForASpentBudget) {
  check::Options o = options(2, 10);
  check::Budget b(o);
  uint64_t counted = 0;
  b.charge(10, counted);
  EXPECT_FALSE(check::lane_options(o, b).has_value());
  check::Budget fresh(o);
  auto lane = check::lane_options(o, fresh);
  ASSERT_TRUE(lane.has_value());
  EXPECT_EQ(lane->rlimit, 10u);
  EXPECT_EQ(lane->lanes, 1);
}

// Under a wall-clock budget the lane ends a tenth early (its Spacer may answer an interrupt
// late, and the check waits for it); the resource budget is the same.
TEST(Portfolio, ALaneKeepsATenthOfTheTimeBack) {
  check::Options o = options(2, 10);
  o.timeout_s = 1000;
  check::Budget b(o);
  auto lane = check::lane_options(o, b);
  ASSERT_TRUE(lane.has_value());
  EXPECT_LE(lane->timeout_s, 900.0);
  EXPECT_GT(lane->timeout_s, 800.0);  // not less than nine tenths of what was left (with room for a slow machine)
  EXPECT_EQ(lane->rlimit, 10u);
}

// Whether the program's first property is false or nil at some cycle of an oracle run.
bool fails_in(const Checked &c, const oracle::Inputs &in) { return rml::test::first_property_fails_in(c.fe->checked, c.prog, in); }

// Random inputs of the generator's main node (x: real, y: int, c: bool), ints at or next
// to the 64-bit extremes.
oracle::Inputs extreme_inputs(size_t max_cycles) {
  const std::vector<int64_t> extremes{std::numeric_limits<int64_t>::min(), std::numeric_limits<int64_t>::min() + 1, -1, 0, 1,
                                      std::numeric_limits<int64_t>::max() - 1, std::numeric_limits<int64_t>::max()};
  oracle::Inputs in;
  in.cycles = *rc::gen::inRange<size_t>(1, max_cycles + 1);
  for (size_t n = 0; n < in.cycles; ++n) {
    in.streams["x"].push_back(oracle::Cell::of(array::Tensor::real(*rc::gen::inRange(-3, 4))));
    in.streams["y"].push_back(oracle::Cell::of(array::Tensor::integer(*rc::gen::elementOf(extremes))));
    in.streams["c"].push_back(oracle::Cell::of(array::Tensor::boolean(*rc::gen::arbitrary<bool>())));
  }
  return in;
}

// Law: over random programs (ints, reals and bools, fby, pre, ->, when/merge, calls) with
// a random bool property, two lanes (1) give exactly the one-lane report whenever one
// lane decides the property, (2) otherwise say unknown or valid, never falsified, and (3)
// a property they prove is never false or nil on an oracle run whose int input sits at or
// next to the 64-bit extremes (and over a counter's whole period). The negative control
// below shows the oracle check catches a false property. On these programs the second
// lane's proof is seldom what decides (none in 1000 draws at the time of writing: the
// first lane decides, or neither does); that path is pinned by the tests above.
RC_GTEST_PROP(Portfolio, TwoLanesKeepTheOneLaneVerdictAndProveOnlyWhatHolds, ()) {
  testgen::ProgGen g;
  g.well_clocked = true;
  std::string text = g.program();
  // In half of the programs the property also holds through a counter that runs 0..n and
  // wraps: `lane_k <> m` with m past n is not k-inductive but Spacer proves it (the case
  // where the second lane's proof is taken); with m within 0..n it fails at cycle m. The
  // ceiling is written `n / 2 * 2 + n mod 2`, so that it is no constant of the program
  // (Houdini would prove `lane_k <= n` and k-induction the property, as for kCounter).
  const bool counter = *rc::gen::arbitrary<bool>();
  std::string property = g.expr(testgen::Ty::Bool, 2, g.locals);
  size_t long_run = 8;
  if (counter) {
    const int n = *rc::gen::inRange(20, 150);
    const int m = *rc::gen::arbitrary<bool>() ? n + *rc::gen::inRange(1, 100) : *rc::gen::inRange(5, n + 1);
    text += "  lane_k = 0 fby (if lane_k = " + std::to_string(n / 2) + " * 2 + " + std::to_string(n % 2) + " then 0 else lane_k + 1);\n";
    property = "(" + property + ") or (lane_k <> " + std::to_string(m) + ")";
    long_run = static_cast<size_t>(n) + 2;
  }
  text += "  check " + property + ";\n";
  // One program in twenty in the Release CI run (two in twenty took 42-68 s there;
  // scripts/soundness-long.sh checks every one).
  if (rml::test::sampled_out_in_ci(text, 1)) RC_SUCCEED("sampled out in CI (scripts/soundness-long.sh checks every case)");
  RC_LOG() << text;
  auto run = [&](int lanes) {
    Checked c;
    c.fe = run_frontend("gen.rml", text);
    c.prog = core::elaborate(c.fe->checked, "main");
    // A budget that leaves the first lane unknown on some programs, where the second
    // lane's proof is taken.
    check::Options o = options(lanes, 1'000'000);
    o.max_depth = 4;
    o.max_horizon = 6;
    c.rep = check::check_program(c.fe->checked, c.prog, o);
    return c;
  };
  RC_PRE(!run_frontend("gen.rml", text)->diags.has_errors());
  Checked one = run(1), two = run(2);
  const auto &p1 = user_property(one.rep), &p2 = user_property(two.rep);
  RC_TAG(check::verdict_name(p1.verdict), check::verdict_name(p2.verdict), counter ? "counter" : "");
  if (p1.verdict != check::Verdict::Unknown) {
    RC_ASSERT(summary(two.rep) == summary(one.rep));
  } else {
    RC_ASSERT(p2.verdict != check::Verdict::Falsified);
  }
  if (p2.verdict == check::Verdict::Valid) {
    RC_ASSERT(!fails_in(two, extreme_inputs(8)));
    RC_ASSERT(!fails_in(two, extreme_inputs(long_run)));  // the counter's whole period
  }
}

TEST(Portfolio, TheLawsOracleCheckCatchesAFalseProperty) {
  Checked c = check_text(
      "node main(x: real; y: int; c: bool) returns (o: int);\nlet\n  o = y;\n  --%PROPERTY o <> 0;\ntel\n", 1, 1'000);
  oracle::Inputs in;
  in.cycles = 1;
  in.streams["x"].push_back(oracle::Cell::of(array::Tensor::real(0)));
  in.streams["y"].push_back(oracle::Cell::of(array::Tensor::integer(0)));
  in.streams["c"].push_back(oracle::Cell::of(array::Tensor::boolean(true)));
  EXPECT_TRUE(fails_in(c, in));
}

}  // namespace portfolio_test
