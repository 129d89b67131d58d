// The retiming of a node with post (src/stream/retime.hpp): lags, the order of a push, the
// checks and the refusals, pinned on small programs and Figure 3's `train`. That a retimed
// class computes the oracle's chronogram is CompileEqualsOracle.RetimedWindowClassesOnEveryTrace.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "stream/retime.hpp"
#include "stream_util.hpp"

using namespace rml;

namespace {

struct Retimed {
  test::StreamProgram p;
  std::optional<stream::Retiming> rt;
  std::string why;
  int step_of(const std::string &var) const {  // the step computing a variable
    int slot = p.plan.slot(var);
    for (size_t k = 0; k < p.plan.steps.size(); ++k)
      if (p.plan.steps[k].out == slot) return static_cast<int>(k);
    return -1;
  }
  int lag(const std::string &var) const { return rt->lag.at(static_cast<size_t>(step_of(var))); }
  size_t position(const std::string &var) const {
    return static_cast<size_t>(std::find(rt->order.begin(), rt->order.end(), step_of(var)) - rt->order.begin());
  }
};

Retimed retime(const std::string &text) {
  Retimed r{test::compile_stream(text, "main"), std::nullopt, ""};
  r.rt = stream::retime(r.p.plan, &r.why);
  return r;
}

}  // namespace

TEST(Retime, APostChainLagsOneCycleAPostAndOrdersWhatAPushReads) {
  auto r = retime("node main(x: real) -> (o: real)\n  a = post x;\n  b = post a;\n  o = a + b;\n");
  ASSERT_TRUE(r.rt) << r.why;
  EXPECT_EQ(r.lag("a"), 1);
  EXPECT_EQ(r.lag("b"), 2);
  EXPECT_EQ(r.lag("o"), 2);  // it reads b now: b's lag; a at the same cycle is older
  EXPECT_EQ(r.rt->max_lag, 2);
  // b (cycle n, push n + 2) reads a at n + 1, computed in the same push: a comes first.
  EXPECT_LT(r.position("a"), r.position("b"));
  EXPECT_LT(r.position("b"), r.position("o"));
  for (auto &cs : r.rt->checks) EXPECT_TRUE(cs.empty());
}

TEST(Retime, AnAccumulatorReadsItsOperandAtThePreviousCycleAndChecksItsPresence) {
  auto r = retime("node main(x: real, y: real) -> (o: real, p: real)\n  o = 0.0 fby (o + x);\n  p = post y;\n");
  ASSERT_TRUE(r.rt) << r.why;
  EXPECT_EQ(r.lag("o"), 0);
  EXPECT_EQ(r.lag("p"), 1);
  int sum = -1, o = r.step_of("o");
  for (size_t k = 0; k < r.p.plan.steps.size(); ++k)
    if (r.p.plan.steps[k].kind == stream::StepKind::Apply) sum = static_cast<int>(k);
  ASSERT_GE(sum, 0);
  // o + x reads o now; o reads it a cycle before (and checks its presence now).
  EXPECT_LT(std::find(r.rt->order.begin(), r.rt->order.end(), o), std::find(r.rt->order.begin(), r.rt->order.end(), sum));
  ASSERT_EQ(r.rt->checks[static_cast<size_t>(sum)].size(), 1u);
  EXPECT_EQ(r.rt->checks[static_cast<size_t>(sum)][0].reader, o);
  EXPECT_EQ(r.rt->checks[static_cast<size_t>(sum)][0].expect, stream::Retiming::Expect::SameClock);
}

// Figure 3's train: bp is the constant true, so diff_fby1's `merge bpo do ((post s) when
// not bpo)` reads do, and its other branch and the when's operand only as checks; the
// backward recurrence through post s is no cycle of the retiming.
TEST(Retime, Figure3TrainRetimesWithLagOne) {
  auto text = test::read_text("reference/paper/fig03_gradient_descent.rml");
  Retimed r{test::compile_stream(text, "train"), std::nullopt, ""};
  r.rt = stream::retime(r.p.plan, &r.why);
  ASSERT_TRUE(r.rt) << r.why;
  EXPECT_EQ(r.rt->max_lag, 1);
  std::map<std::string, int> lags;
  size_t posts = 0;
  for (size_t k = 0; k < r.p.plan.steps.size(); ++k) {
    const auto &st = r.p.plan.steps[k];
    if (st.kind != stream::StepKind::Post) continue;
    ++posts;
    EXPECT_EQ(r.rt->lag[k], 1);
  }
  EXPECT_EQ(posts, 3u);
  EXPECT_EQ(r.lag("diff_app_pipe$1.diff_fby1$1.s"), 0);   // do, now
  EXPECT_EQ(r.lag("diff_app_pipe$1.dx"), 1);              // (post s) when bpi
  EXPECT_EQ(r.lag("diff_app_pipe$1.diff_dense$1.k"), 0);  // k fby (k + dk): dk a cycle later
  std::map<stream::Retiming::Expect, size_t> checks;
  for (auto &cs : r.rt->checks)
    for (auto &c : cs) ++checks[c.expect];
  EXPECT_EQ(checks[stream::Retiming::Expect::SameClock], 3u);  // the three fby of the parameters and the pipeline
  EXPECT_EQ(checks[stream::Retiming::Expect::Present], 1u);    // (post s) when not bpo: the operand of the when
  EXPECT_EQ(checks[stream::Retiming::Expect::Absent], 0u);     // the merge reads that when before it: no check
}

TEST(Retime, RefusesABackwardRecurrenceAPostOffTheBaseClockAndACycleWithinACycle) {
  Retimed fig16{test::compile_stream(test::read_text("reference/paper/fig16_backfill.rml"), "backfill"), std::nullopt, ""};
  fig16.rt = stream::retime(fig16.p.plan, &fig16.why);
  EXPECT_FALSE(fig16.rt);
  EXPECT_EQ(fig16.why, "a cycle through post (a backward recurrence)");
  auto b = retime("node main(x: real, c: bool) -> (y: real)\n  y = merge c (x when c) ((post y) when not c);\n");
  EXPECT_FALSE(b.rt);
  EXPECT_EQ(b.why, "a cycle through post (a backward recurrence)");
  auto s = retime("node main(x: real, c: bool) -> (o: real)\n  o = merge c (post (x when c)) (0.0 when not c);\n");
  EXPECT_FALSE(s.rt);
  EXPECT_EQ(s.why.rfind("a post off the base clock", 0), 0u) << s.why;
  // t at n reads s at n + 1, which is t at n: no order within a push.
  auto c = retime("node main(x: real) -> (t: real)\n  s = 0.0 fby t;\n  t = (post s) + x;\n");
  EXPECT_FALSE(c.rt);
  EXPECT_EQ(c.why, "a cycle within a cycle (through exclusive when/merge branches)");
}

// A post on a sampled clock reads the next tick of its clock, which the horizon bounds:
// it is read as if `horizon` cycles ahead (the cycles between are older), and without a
// horizon it is refused. That the retimed sweep computes the oracle's cells on them, also
// where the next tick is further than the horizon, is StreamEqualsOracle's and
// CompileEqualsOracle's law (and SampledPost.* in test_stream.cpp).
TEST(Retime, APostOnASampledClockLooksAheadTheHorizon) {
  const std::string text = "node main(x: real, c: bool) -> (o: real)\n  o = merge c (post (x when c)) (0.0 when not c);\n";
  auto no = retime(text);
  EXPECT_FALSE(no.rt);
  EXPECT_EQ(no.why.rfind("a post off the base clock", 0), 0u) << no.why;
  for (int h : {1, 3}) {
    Retimed r{test::compile_stream(text, "main"), std::nullopt, ""};
    r.rt = stream::retime(r.p.plan, &r.why, h);
    ASSERT_TRUE(r.rt) << r.why;
    int post = -1;
    for (size_t k = 0; k < r.p.plan.steps.size(); ++k)
      if (r.p.plan.steps[k].kind == stream::StepKind::Post) post = static_cast<int>(k);
    ASSERT_GE(post, 0);
    EXPECT_EQ(r.rt->lag[static_cast<size_t>(post)], h) << h;  // x when c at lag 0, h cycles ahead
    EXPECT_EQ(r.lag("o"), h) << h;
    EXPECT_EQ(r.rt->max_lag, h) << h;
  }
  // On the base clock the horizon changes nothing: the next tick is the next cycle.
  Retimed b{test::compile_stream("node main(x: real) -> (o: real)\n  o = post x;\n", "main"), std::nullopt, ""};
  b.rt = stream::retime(b.p.plan, &b.why, 5);
  ASSERT_TRUE(b.rt) << b.why;
  EXPECT_EQ(b.lag("o"), 1);
}
