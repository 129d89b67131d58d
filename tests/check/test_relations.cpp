// Affine relations among int memories (checker/affine_relations.hpp) and their use as
// Houdini candidates. The finder: exact relations on pinned samples, the boundaries (one
// distinct sample, samples that span everything, the coefficient cap), and the law that
// every relation it returns holds on every sample and that it returns exactly one per
// dimension the samples leave (negative control: a relation with its constant moved is
// caught by the same check). The checker: a token-passing model whose bound follows only
// from a conservation law that holds while its environment behaves is proved by
// induction, and stays unknown without the relations under the same deterministic budget;
// a model whose law is broken is falsified and replayed, never proved. Difference bounds
// (a − b ≤ c, Checker::difference_candidates): two counters with different ceilings are
// proved through their slack, which Houdini keeps exactly; a law over random two-counter
// programs that what they prove holds on runs reaching the ceilings, and that verdicts
// with and without them never contradict each other.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
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
#include "common/property_runs.hpp"
#include "common/sanitized.hpp"

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


// Two counters that count the same ticks, one up to 80 and the other only to 50; a
// reset of the first alone, or of both. When the first is full the second is too: from
// a − b ≤ 30, the slack of their two ceilings, a bound no random run comes near (the
// runs' largest difference is far below it). Deterministic budgets only.
const char *kCeilings = R"(
node main(tick, reset_a, reset_both : bool) returns (ok : bool);
var a, b : int;
let
  a = 0 -> if reset_a or reset_both then 0 else if tick and pre a < 80 then pre a + 1 else pre a;
  b = 0 -> if reset_both then 0 else if tick and pre b < 50 then pre b + 1 else pre b;
  ok = a = 80 => b = 50;
  --%PROPERTY ok;
tel
)";

check::Report check_ceilings(const std::string &text, bool differences) {
  auto fe = run_frontend("ceilings.lus", text);
  if (fe->diags.has_errors()) throw std::runtime_error(render_all(fe->diags));
  core::Program prog = core::elaborate(fe->checked, "main");
  check::Options o;
  o.rlimit = 4'000'000;
  o.solver_only = true;
  o.zone_bounds = differences;
  return check::check_program(fe->checked, prog, o);
}

TEST(DifferenceBounds, TheSlackOfTwoCeilingsProvesTheProperty) {
  auto with = check_ceilings(kCeilings, true);
  EXPECT_EQ(user_property(with).verdict, check::Verdict::Valid) << user_property(with).method;
  EXPECT_NE(user_property(with).method.find("-induction"), std::string::npos) << user_property(with).method;
  // The same budget without the difference bounds: not proved.
  auto without = check_ceilings(kCeilings, false);
  EXPECT_NE(user_property(without).verdict, check::Verdict::Valid) << user_property(without).method;
}

TEST(DifferenceBounds, AResetOfTheSecondAloneIsNeverProved) {
  // b has a reset of its own: a = 80 with b = 0 after 81 cycles (deeper than the budget's
  // runs reach, so unknown; what matters is that no candidate Houdini could not prove,
  // such as a − b ≤ 30, is taken for an invariant).
  std::string broken = kCeilings;
  broken.replace(broken.find("node main(tick, reset_a, reset_both : bool)"), std::string("node main(tick, reset_a, reset_both : bool)").size(),
                 "node main(tick, reset_a, reset_b, reset_both : bool)");
  broken.replace(broken.find("b = 0 -> if reset_both"), std::string("b = 0 -> if reset_both").size(), "b = 0 -> if reset_b or reset_both");
  auto r = check_ceilings(broken, true);
  EXPECT_NE(user_property(r).verdict, check::Verdict::Valid) << user_property(r).method;
}

// Houdini keeps the tightest inductive bound on each difference, in both encodings of
// ints: a − b ≤ 30 (the difference of the ceilings 80 and 50) and b − a ≤ 50 (b full,
// a just reset), neither of which the runs come near; the candidates between the runs'
// largest difference and those (1, 49: differences of the program's constants) are
// broken by a transition and dropped.
TEST(DifferenceBounds, HoudiniKeepsTheCeilingsSlackAndNothingTighter) {
  auto fe = run_frontend("ceilings.lus", kCeilings);
  ASSERT_FALSE(fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  core::Clocks clocks = core::infer_clocks(prog);
  for (bool lia : {true, false}) {
    SCOPED_TRACE(lia ? "mathematical integers" : "64-bit vectors");
    check::Options o;
    o.rlimit = 4'000'000;
    check::Checker checker(fe->checked, prog, clocks, o);
    check::Smt smt(prog, clocks, checker.budget);
    smt.ts->lia_ints = lia;
    checker.discover_invariants(smt);
    ASSERT_TRUE(smt.invariants_done);
    for (auto &d : checker.observed_differences())  // the runs stay far below both bounds
      EXPECT_LT(d.max, 30) << d.a << " - " << d.b;
    auto source_of = [&](size_t slot) {
      for (auto &m : smt.ts->memories())
        if (m.slot == slot) return m.source;
      return std::string{};
    };
    std::map<std::string, int64_t> tightest;  // "a-b" -> the smallest bound kept
    for (auto &iv : smt.invariants) {
      if (iv.terms.size() != 2 || iv.lo == iv.hi) continue;
      ASSERT_EQ(iv.terms[0].coeff, 1);
      ASSERT_EQ(iv.terms[1].coeff, -1);
      const std::string pair = source_of(iv.terms[0].slot) + "-" + source_of(iv.terms[1].slot);
      tightest[pair] = tightest.count(pair) ? std::min(tightest[pair], iv.hi) : iv.hi;
    }
    EXPECT_EQ(tightest, (std::map<std::string, int64_t>{{"a-b", 30}, {"b-a", 50}}));
  }
}

// Random two-counter programs of the ceilings' shape: each counter counts its ticks up
// to a ceiling of its own and has resets of its own or shared; the property bounds their
// difference or ties the full first counter to the second.
struct Ceilings {
  std::string text;
  int64_t longest = 0;  // cycles a run needs to reach both ceilings, with slack
};

Ceilings random_ceilings() {
  const std::vector<std::string> resets{"false", "r1", "r2", "r1 or r2"}, ticks{"t1", "t2", "t1 or t2", "t1 and t2", "true"};
  // Half of the ceilings far beyond what k-induction unrolls and the runs of Houdini's
  // candidates reach (there only a difference bound proves), half small.
  auto ceiling = [] { return *rc::gen::arbitrary<bool>() ? *rc::gen::inRange<int64_t>(20, 121) : *rc::gen::inRange<int64_t>(1, 13); };
  const int64_t ca = ceiling(), cb = ceiling();
  // Bounds near the true slack (ca − cb when both count the same ticks) as often as not.
  const int64_t k = *rc::gen::arbitrary<bool>() ? ca - cb + *rc::gen::inRange<int64_t>(-1, 2) : *rc::gen::inRange<int64_t>(-2, 15);
  const int64_t k2 = *rc::gen::elementOf(std::vector<int64_t>{cb, cb - 1, std::min(ca, cb), *rc::gen::inRange<int64_t>(0, 13)});
  const std::vector<std::string> properties{"a - b <= " + std::to_string(k), "b - a <= " + std::to_string(-k),
                                            "a = " + std::to_string(ca) + " => b = " + std::to_string(k2),
                                            "a = " + std::to_string(ca) + " => b >= " + std::to_string(k2),
                                            "a <= b + " + std::to_string(k)};
  const std::string reset_a = *rc::gen::elementOf(resets), tick_a = *rc::gen::elementOf(ticks);
  // The second counter: the first's ticks, and its resets or more, as often as not.
  const std::string reset_b = *rc::gen::arbitrary<bool>() ? reset_a + " or " + *rc::gen::elementOf(resets) : *rc::gen::elementOf(resets);
  const std::string tick_b = *rc::gen::arbitrary<bool>() ? tick_a : *rc::gen::elementOf(ticks);
  Ceilings c;
  c.text = "node main(t1, t2, r1, r2 : bool) returns (ok : bool);\nvar a, b : int;\nlet\n"
           "  a = 0 -> if " + reset_a + " then 0 else if " + tick_a + " and pre a < " + std::to_string(ca) +
           " then pre a + 1 else pre a;\n"
           "  b = 0 -> if " + reset_b + " then 0 else if " + tick_b + " and pre b < " + std::to_string(cb) +
           " then pre b + 1 else pre b;\n"
           "  ok = " + *rc::gen::elementOf(properties) + ";\n  --%PROPERTY ok;\ntel\n";
  c.longest = 8 * std::max(ca, cb) + 16;  // four times the climb at a tick in four
  return c;
}

// Random runs of the two-counter programs (xorshift from `seed`): ticks true half the
// time, each reset one cycle in eight (odd seeds) or never (even ones: climbs to the
// ceilings, and the gaps a reset of one counter alone opens at the start).
oracle::Inputs ceiling_run(uint64_t seed, int64_t cycles) {
  const bool resets = seed % 2 == 1;
  auto rnd = [&] { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed; };
  oracle::Inputs in;
  in.cycles = static_cast<size_t>(cycles);
  for (int64_t n = 0; n < cycles; ++n) {
    for (const char *t : {"t1", "t2"}) in.streams[t].push_back(oracle::Cell::of(array::Tensor::boolean(rnd() % 2 == 0)));
    for (const char *r : {"r1", "r2"}) in.streams[r].push_back(oracle::Cell::of(array::Tensor::boolean(resets && rnd() % 8 == 0)));
  }
  return in;
}

// Whether some of 24 random runs (seeds from `seed`) of `cycles` cycles makes the
// program's property false or nil.
bool some_run_fails(const CheckedProgram &cp, const core::Program &prog, uint64_t seed, int64_t cycles) {
  for (uint64_t k = 0; k < 24; ++k)
    if (rml::test::first_property_fails_in(cp, prog, ceiling_run(seed * 7919 + k + 1, cycles))) return true;
  return false;
}

// Law: on random two-counter programs, (1) a property proved valid with difference
// bounds is false on no random run long enough to reach both ceilings, and (2) with and
// without difference bounds the verdicts never contradict each other (one valid, the
// other falsified). The negative control below shows the runs reach the ceilings' slack,
// so a wrongly kept bound would be caught.
RC_GTEST_PROP(DifferenceBounds, ProvedBoundsHoldOnRunsThatReachTheCeilings, ()) {
  const Ceilings c = random_ceilings();
  // One program in twenty in CI (each takes two checks of a few seconds).
  if (rml::test::sampled_out_in_ci(c.text, 1)) RC_SUCCEED("sampled out in CI (scripts/soundness-long.sh checks every case)");
  RC_LOG() << c.text;
  auto fe = run_frontend("ceilings.lus", c.text);
  RC_ASSERT(!fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  auto verdict = [&](bool differences) {
    check::Options o;
    o.rlimit = 1'000'000;
    o.solver_only = true;
    o.max_depth = 6;
    o.zone_bounds = differences;
    return user_property(check::check_program(fe->checked, prog, o)).verdict;
  };
  const check::Verdict with = verdict(true), without = verdict(false);
  RC_TAG(check::verdict_name(with), check::verdict_name(without));
  if (with == check::Verdict::Valid) RC_ASSERT(!some_run_fails(fe->checked, prog, *rc::gen::arbitrary<uint64_t>(), c.longest));
  if (with != check::Verdict::Unknown && without != check::Verdict::Unknown) RC_ASSERT(with == without);
}

// Negative control of the law's runs: two counters of the same ticks (one in four) and
// resets, with ceilings 12 and 3, and 100 and 60: a − b ≤ slack − 1 is false only once the
// first has climbed past the second's ceiling, and the runs get there; a − b ≤ slack
// holds on all of them. A checker that kept an unproved bound one below the slack would
// have its proof broken by these runs.
TEST(DifferenceBounds, TheLawsRunsReachTheCeilingsSlack) {
  for (auto ceilings : {std::pair<int64_t, int64_t>{12, 3}, {100, 60}}) {
    const int64_t ca = ceilings.first, cb = ceilings.second;  // (a lambda may not capture a structured binding before Clang 16)
    auto program = [&](int64_t bound) {
      return "node main(t1, t2, r1, r2 : bool) returns (ok : bool);\nvar a, b : int;\nlet\n"
             "  a = 0 -> if r1 then 0 else if t1 and t2 and pre a < " + std::to_string(ca) + " then pre a + 1 else pre a;\n"
             "  b = 0 -> if r1 then 0 else if t1 and t2 and pre b < " + std::to_string(cb) + " then pre b + 1 else pre b;\n"
             "  ok = a - b <= " + std::to_string(bound) + ";\n  --%PROPERTY ok;\ntel\n";
    };
    const int64_t cycles = 8 * std::max(ca, cb) + 16;  // as the law's runs
    auto fe = run_frontend("ceilings.lus", program(ca - cb - 1));
    ASSERT_FALSE(fe->diags.has_errors());
    core::Program prog = core::elaborate(fe->checked, "main");
    EXPECT_TRUE(some_run_fails(fe->checked, prog, 1, cycles)) << ca << ", " << cb;
    auto fe_slack = run_frontend("ceilings.lus", program(ca - cb));
    core::Program prog_slack = core::elaborate(fe_slack->checked, "main");
    EXPECT_FALSE(some_run_fails(fe_slack->checked, prog_slack, 1, cycles)) << ca << ", " << cb;
  }
}

// Houdini's invariants are proved once for every property whose encoding has the same
// state (TransitionSystem::state_key): the second property of the ceilings' counters
// adopts the first's without a query, and a property whose cone lacks a counter gets an
// encoding of another kind and a Houdini run of its own.
TEST(HoudiniSharing, PropertiesOverTheSameStateShareOneProof) {
  std::string text = kCeilings;
  text.replace(text.find("  --%PROPERTY ok;"), std::string("  --%PROPERTY ok;").size(),
               "  --%PROPERTY ok;\n  --%PROPERTY a - b <= 30;\n  --%PROPERTY a <= 80;");
  auto fe = run_frontend("ceilings.lus", text);
  ASSERT_FALSE(fe->diags.has_errors()) << render_all(fe->diags);
  core::Program prog = core::elaborate(fe->checked, "main");
  ASSERT_EQ(prog.properties.size(), 3u);
  core::Clocks clocks = core::infer_clocks(prog);
  check::Options o;
  o.rlimit = 4'000'000;
  check::Checker checker(fe->checked, prog, clocks, o);
  auto houdini = [&](size_t property) {
    std::set<std::string> roots{prog.properties[property].var};
    auto smt = std::make_unique<check::Smt>(prog, clocks, checker.budget, &roots);
    smt->ts->lia_ints = true;
    const uint64_t before = checker.budget.spent();
    checker.discover_invariants(*smt);
    EXPECT_TRUE(smt->invariants_done);
    return std::make_pair(std::move(smt), checker.budget.spent() - before);
  };
  auto [first, first_cost] = houdini(0);
  auto [second, second_cost] = houdini(1);  // a and b both: the same state
  EXPECT_GT(first_cost, 0u);
  EXPECT_EQ(second_cost, 0u);  // adopted: no query
  EXPECT_EQ(first->ts->state_key(), second->ts->state_key());
  ASSERT_EQ(second->invariants.size(), first->invariants.size());
  for (size_t k = 0; k < first->invariants.size(); ++k) {
    EXPECT_EQ(second->invariants[k].slot, first->invariants[k].slot);
    EXPECT_EQ(second->invariants[k].lo, first->invariants[k].lo);
    EXPECT_EQ(second->invariants[k].hi, first->invariants[k].hi);
  }
  auto [third, third_cost] = houdini(2);  // a alone: another state, its own proof
  EXPECT_NE(third->ts->state_key(), first->ts->state_key());
  EXPECT_GT(third_cost, 0u);
  // The same state over 64-bit vectors, or over integers modulo 2^64 (where a counter's
  // `x >= 0` is not inductive), is another kind too.
  std::set<std::string> roots{prog.properties[1].var};
  check::Smt bv(prog, clocks, checker.budget, &roots);
  EXPECT_NE(bv.ts->state_key(), first->ts->state_key());
  check::Smt modular(prog, clocks, checker.budget, &roots);
  modular.ts->lia_ints = modular.ts->lia_modular = true;
  EXPECT_NE(modular.ts->state_key(), first->ts->state_key());
  EXPECT_NE(modular.ts->state_key(), bv.ts->state_key());
  // And with a value left free.
  check::Smt freed(prog, clocks, checker.budget, &roots);
  freed.ts->lia_ints = true;
  freed.ts->free_values = {"b"};
  EXPECT_NE(freed.ts->state_key(), first->ts->state_key());
}

// An interrupted Houdini is not shared: the next property of the same kind proves the
// invariants itself (adopting the interrupted run's empty set would lose them).
TEST(HoudiniSharing, AnInterruptedRunIsNotShared) {
  auto fe = run_frontend("ceilings.lus", kCeilings);
  ASSERT_FALSE(fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  core::Clocks clocks = core::infer_clocks(prog);
  check::Options o;
  o.rlimit = 4'000'000;
  check::Checker checker(fe->checked, prog, clocks, o);
  {
    check::Smt tight(prog, clocks, checker.budget.slice(1, 4000));  // 1 000 units: far below one query
    tight.ts->lia_ints = true;
    EXPECT_THROW(checker.discover_invariants(tight), check::BudgetExhausted);
  }
  check::Smt again(prog, clocks, checker.budget);
  again.ts->lia_ints = true;
  const uint64_t before = checker.budget.spent();
  checker.discover_invariants(again);
  EXPECT_GT(checker.budget.spent(), before);
  EXPECT_FALSE(again.invariants.empty());
}

}  // namespace relations_test
