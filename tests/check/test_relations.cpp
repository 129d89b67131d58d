// Affine relations among int memories (checker/affine_relations.hpp) and their use as
// Houdini candidates. The finder: exact relations on pinned samples, the boundaries (one
// distinct sample, samples that span everything, the coefficient cap), and the law that
// every relation it returns holds on every sample and that it returns exactly one per
// dimension the samples leave (negative control: a relation with its constant moved is
// caught by the same check). The checker: a token-passing model whose bound follows only
// from a conservation law that holds while its environment behaves is proved by
// induction, and stays unknown without the relations under the same deterministic budget;
// a model whose law is broken is falsified and replayed, never proved.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <limits>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "checker/affine_relations.hpp"
#include "checker/checker.hpp"
#include "checker/engine.hpp"
#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "sema/frontend.hpp"

using namespace rml;

namespace relations_test {

using Samples = std::vector<std::vector<int64_t>>;

bool holds(const check::AffineRelation &r, const std::vector<int64_t> &x) {
  int64_t sum = 0;
  for (size_t i = 0; i < x.size(); ++i) sum += r.coeffs[i] * x[i];
  return sum == r.constant;
}

TEST(AffineRelations, ASumOfCountersIsFoundExactly) {
  // a + b + c = 5 in every sample, nothing else.
  Samples s{{5, 0, 0}, {4, 1, 0}, {3, 1, 1}, {0, 2, 3}, {1, 4, 0}};
  auto rels = check::affine_relations(3, s);
  ASSERT_EQ(rels.size(), 1u);
  EXPECT_EQ(rels[0].coeffs, (std::vector<int64_t>{1, 1, 1}));
  EXPECT_EQ(rels[0].constant, 5);
}

TEST(AffineRelations, IndependentRelationsComeApartWithIntegerCoefficients) {
  // x = y and 2w - z = -1 (z = 2w + 1), with x, w varying independently.
  Samples s;
  for (int64_t x : {0, 3, -2})
    for (int64_t w : {1, 4}) s.push_back({x, x, 2 * w + 1, w});
  auto rels = check::affine_relations(4, s);
  ASSERT_EQ(rels.size(), 2u);
  // Reduced echelon form: each relation alone, normalised (no common divisor, first
  // coefficient positive).
  EXPECT_EQ(rels[0].coeffs, (std::vector<int64_t>{1, -1, 0, 0}));
  EXPECT_EQ(rels[0].constant, 0);
  EXPECT_EQ(rels[1].coeffs, (std::vector<int64_t>{0, 0, 1, -2}));
  EXPECT_EQ(rels[1].constant, 1);
}

TEST(AffineRelations, OneDistinctSampleProposesNothingAndTwoDo) {
  EXPECT_TRUE(check::affine_relations(2, Samples{{1, 2}, {1, 2}, {1, 2}}).empty());
  // Two distinct points of the plane: the line through them, 2x - y = 0.
  auto rels = check::affine_relations(2, Samples{{1, 2}, {3, 6}});
  ASSERT_EQ(rels.size(), 1u);
  EXPECT_EQ(rels[0].coeffs, (std::vector<int64_t>{2, -1}));
  EXPECT_EQ(rels[0].constant, 0);
}

TEST(AffineRelations, SamplesThatSpanEverythingHaveNoRelation) {
  EXPECT_TRUE(check::affine_relations(2, Samples{{0, 0}, {1, 0}, {0, 1}}).empty());
  // Three collinear points do have one: y = x + 1.
  auto rels = check::affine_relations(2, Samples{{0, 1}, {1, 2}, {5, 6}});
  ASSERT_EQ(rels.size(), 1u);
  EXPECT_EQ(rels[0].coeffs, (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(rels[0].constant, -1);
}

TEST(AffineRelations, ValuesAtTheEndsOfTheInt64RangeAreExact) {
  constexpr int64_t kMax = std::numeric_limits<int64_t>::max(), kMin = std::numeric_limits<int64_t>::min();
  // x + y = MAX, near both ends (residues of negative numbers included).
  auto rels = check::affine_relations(2, Samples{{kMax, 0}, {kMax - 1, 1}, {0, kMax}, {kMax - 5, 5}});
  ASSERT_EQ(rels.size(), 1u);
  EXPECT_EQ(rels[0].coeffs, (std::vector<int64_t>{1, 1}));
  EXPECT_EQ(rels[0].constant, kMax);
  // x - y = MIN + 1 with x from MIN + 1 up: the constant at the negative end.
  rels = check::affine_relations(2, Samples{{kMin + 1, 0}, {kMin + 3, 2}, {0, kMax}});
  ASSERT_EQ(rels.size(), 1u);
  EXPECT_EQ(rels[0].coeffs, (std::vector<int64_t>{1, -1}));
  EXPECT_EQ(rels[0].constant, kMin + 1);
}

TEST(AffineRelations, CoefficientsBeyondTheCapAreLeftOut) {
  Samples s{{1, 3}, {2, 6}, {4, 12}};  // 3x - y = 0
  EXPECT_EQ(check::affine_relations(2, s, 3).size(), 1u);
  EXPECT_TRUE(check::affine_relations(2, s, 2).empty());
}

// Law: for samples drawn from an affine subspace of dimension at most d in n dimensions
// (a base point plus integer combinations of d random directions), every relation returned
// holds on every sample, and there are at least n - d of them (independent ones: each has
// a free column of its own), unless fewer than two samples are distinct, when there are none.
// Small directions and n <= 4, so that no coefficient (a minor of at most 3 by 3 of the
// samples' differences, each at most 36: below 6·36³ < 2^20) reaches the cap, which would
// leave a relation out.
RC_GTEST_PROP(AffineRelations, EveryRelationHoldsOnEverySampleAndNoneIsMissing, ()) {
  const auto n = *rc::gen::inRange<size_t>(1, 5);
  const auto d = *rc::gen::inRange<size_t>(0, n + 1);
  const auto base = *rc::gen::container<std::vector<int64_t>>(n, rc::gen::inRange<int64_t>(-20, 21));
  std::vector<std::vector<int64_t>> dirs;
  for (size_t k = 0; k < d; ++k) dirs.push_back(*rc::gen::container<std::vector<int64_t>>(n, rc::gen::inRange<int64_t>(-2, 3)));
  Samples s;
  const auto count = *rc::gen::inRange<size_t>(1, 3 * n + 4);
  for (size_t j = 0; j < count; ++j) {
    std::vector<int64_t> x = base;
    for (auto &dir : dirs) {
      const auto t = *rc::gen::inRange<int64_t>(-3, 4);
      for (size_t i = 0; i < n; ++i) x[i] += t * dir[i];
    }
    s.push_back(x);
  }
  auto rels = check::affine_relations(n, s);
  for (auto &r : rels) {
    RC_ASSERT(r.coeffs.size() == n);
    for (auto &x : s) RC_ASSERT(holds(r, x));
  }
  // The samples lie in a space of dimension at most d, so at least n - d relations hold
  // on them: none is missing unless the samples are fewer than two distinct points.
  std::set<std::vector<int64_t>> distinct(s.begin(), s.end());
  if (distinct.size() >= 2) RC_ASSERT(rels.size() >= n - d);
  else RC_ASSERT(rels.empty());
}

// Negative control of the law's check: a relation with its constant moved fails on a
// sample.
TEST(AffineRelations, TheLawsCheckCatchesAWrongConstant) {
  Samples s{{5, 0, 0}, {4, 1, 0}, {3, 1, 1}};
  auto rels = check::affine_relations(3, s);
  ASSERT_EQ(rels.size(), 1u);
  auto wrong = rels[0];
  wrong.constant += 1;
  bool caught = false;
  for (auto &x : s) caught |= !holds(wrong, x);
  EXPECT_TRUE(caught);
}

// A token-passing model: `total` tokens move idle → busy → done → idle, one event per
// cycle while the environment behaves (`env`, a latch); busy <= total follows from
// idle + busy + done = total and idle, done >= 0 only. Deterministic budgets only.
const char *kTokens = R"(
node Sofar(x : bool) returns (y : bool);
let
  y = x -> x and pre y;
tel
node main(a, b, c : bool; n : int) returns (ok : bool);
var idle, busy, done, total : int; env : bool;
let
  total = n -> pre total;
  idle = total -> if a and pre idle >= 1 then pre idle - 1
                  else if c and pre done >= 1 then pre idle + 1 else pre idle;
  busy = 0 -> if a and pre idle >= 1 then pre busy + 1
              else if b and pre busy >= 1 then pre busy - 1 else pre busy;
  done = 0 -> if b and pre busy >= 1 then pre done + 1
              else if c and pre done >= 1 then pre done - 1 else pre done;
  env = Sofar(not (a and b) and not (a and c) and not (b and c) and n > 0);
  ok = env => busy <= total;
  --%PROPERTY ok;
tel
)";

struct CheckedTokens {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
  check::Report rep;
};

CheckedTokens check_tokens(const std::string &text, bool relations) {
  CheckedTokens c;
  c.fe = run_frontend("tokens.lus", text);
  if (c.fe->diags.has_errors()) throw std::runtime_error(render_all(c.fe->diags));
  c.prog = core::elaborate(c.fe->checked, "main");
  check::Options o;
  o.rlimit = 6'000'000;
  o.solver_only = true;
  o.affine_relations = relations;
  c.rep = check::check_program(c.fe->checked, c.prog, o);
  return c;
}

const check::PropertyResult &user_property(const check::Report &rep) {
  for (auto &p : rep.properties)
    if (p.kind == "property") return p;
  throw std::runtime_error("no user property");
}

TEST(AffineRelations, AConservationLawWhileTheEnvironmentBehavesProvesTheBound) {
  auto with = check_tokens(kTokens, true);
  const auto &p = user_property(with.rep);
  EXPECT_EQ(p.verdict, check::Verdict::Valid) << p.method;
  EXPECT_NE(p.method.find("-induction"), std::string::npos) << p.method;
  EXPECT_NE(p.method.find("while 'env' holds"), std::string::npos) << p.method;
  // The same budget without the relations: not proved.
  auto without = check_tokens(kTokens, false);
  EXPECT_NE(user_property(without.rep).verdict, check::Verdict::Valid) << user_property(without.rep).method;
}

TEST(AffineRelations, ABrokenLawIsFalsifiedNeverProved) {
  // A token appears from nowhere when c finds nothing done: busy reaches total + 1.
  std::string broken = kTokens;
  const std::string from = "else if c and pre done >= 1 then pre done - 1 else pre done;";
  broken.replace(broken.find(from), from.size(), "else if c and pre done >= 1 then pre done - 1 else if c then pre done + 1 else pre done;");
  auto r = check_tokens(broken, true);
  const auto &p = user_property(r.rep);
  EXPECT_EQ(p.verdict, check::Verdict::Falsified) << p.method;
  ASSERT_TRUE(p.cex.has_value());
}

// Houdini interrupted (its budget ran out in its first query) keeps no candidate, and a
// later call on the same encoding (an engine resumed after its slice ran out) proves them
// again: an unproved candidate taken for an invariant would make a proof unsound.
TEST(AffineRelations, AnInterruptedHoudiniKeepsNoCandidate) {
  auto fe = run_frontend("tokens.lus", kTokens);
  ASSERT_FALSE(fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  core::Clocks clocks = core::infer_clocks(prog);
  check::Options o;
  o.rlimit = 1000;  // far below one Houdini query
  check::Checker tight(fe->checked, prog, clocks, o);
  check::Smt smt(prog, clocks, tight.budget);
  smt.ts->lia_ints = true;
  EXPECT_THROW(tight.discover_invariants(smt), check::BudgetExhausted);
  EXPECT_TRUE(smt.invariants.empty());
  EXPECT_FALSE(smt.invariants_done);
  // The same encoding with a budget: the relation idle + busy + done = total, guarded by
  // the latch, is proved.
  o.rlimit = 6'000'000;
  check::Checker ample(fe->checked, prog, clocks, o);
  ample.latches_ = {"env"};  // as smt_invariant sets them: the relation holds while env does
  check::Smt again(prog, clocks, ample.budget);
  again.ts->lia_ints = true;
  ample.discover_invariants(again);
  EXPECT_TRUE(again.invariants_done);
  size_t relations = 0;
  for (auto &iv : again.invariants) relations += !iv.terms.empty() && iv.guarded && iv.terms.size() == 4;
  EXPECT_EQ(relations, 1u);
}

}  // namespace relations_test
