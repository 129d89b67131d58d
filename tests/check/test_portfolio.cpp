// The second lane (checker/portfolio.hpp): IC3/PDR from the start on a thread of its own,
// beside the engines in their usual order. Deterministic budgets only.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>

#include "checker/checker.hpp"
#include "checker/engine.hpp"
#include "checker/portfolio.hpp"
#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "sema/frontend.hpp"

using namespace rml;

namespace portfolio_test {

// A counter that runs 0..100 and wraps to 0: `x <> 200` is not k-inductive for any k (from
// 188, twelve good cycles reach 200), Houdini's ranges from 64-cycle runs do not bound x,
// and Spacer finds `x <= 100` quickly. The first lane reaches Spacer only after BMC and
// k-induction over both int encodings; at 1 M units that leaves it too little, while the
// second lane has the whole million for it.
const char *kCounter = R"(
node main(a : bool) returns (ok : bool);
var x : int;
let
  x = 0 -> if pre x = 100 then 0 else pre x + 1;
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
// is stopped and changes nothing (its units are on a meter of its own).
TEST(Portfolio, WhenTheFirstLaneDecidesTheReportIsTheOneLaneReport) {
  auto one = check_text(kCounter, 1, 4'000'000);
  EXPECT_EQ(user_property(one.rep).verdict, check::Verdict::Valid) << user_property(one.rep).method;
  EXPECT_EQ(summary(check_text(kCounter, 2, 4'000'000).rep), summary(one.rep));
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

// Nothing left: no lane.
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

}  // namespace portfolio_test
