// diff/rapidcheck_case.hpp: a RapidCheck generator of accepted programs whose
// counterexamples shrink structurally. The laws: every shrink it offers is accepted by
// rml-check (negative control: among the raw edits, some are not, so the filter is what
// keeps them out), and a property that fails on a shape ends at a program of a few
// equations holding that shape, where shrinking the seed alone keeps the whole draw.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <optional>
#include <set>

#include "diff/case_hooks.hpp"
#include "diff/rapidcheck_case.hpp"

using namespace rml;

namespace {

int equations(const std::string &text) { return diff::count_equations(diff::case_hooks(false), text); }

// RapidCheck's counterexample: its last failing evaluation is the minimal case it ends at.
template <class Gen>
std::optional<gen::GeneratedCase> counterexample(Gen g, const std::string &needle) {
  std::optional<gen::GeneratedCase> last;
  bool passed = rc::check("fails on every program holding '" + needle + "' with 2 cycles or more", [&] {
    gen::GeneratedCase c = *g;
    if (c.program.text.find(needle) != std::string::npos && diff::count_cycles(c.trace) >= 2) {
      last = c;
      RC_FAIL("holds " + needle);
    }
  });
  EXPECT_FALSE(passed);
  return last;
}

}  // namespace

TEST(RapidCheckCase, EveryShrinkOfferedIsAccepted) {
  gen::GenOptions o;
  o.size = 3;
  o.post = false;  // each candidate costs a check: keep them cheap
  o.resets = false;
  o.instances = false;
  auto p = gen::generate_program(3, o);
  gen::GeneratedCase c{3, p, gen::generate_trace(p, 3, 4)};
  auto raw = diff::candidates(diff::Case{c.program.text, c.trace}, diff::case_hooks(false));
  std::set<std::pair<std::string, std::string>> accepted;
  for (auto &k : raw)
    if (diff::accept("<case>", k.program, "main", {}).accepted) accepted.insert({k.program, k.trace});
  EXPECT_LT(accepted.size(), raw.size()) << "no raw edit is refused: the filter is not shown to matter";
  EXPECT_FALSE(accepted.empty());
  std::set<std::pair<std::string, std::string>> offered;
  auto shrinks = diff::accepted_shrinks(c, false, {});
  while (auto s = shrinks.next()) {
    EXPECT_EQ(s->seed, 3u);
    EXPECT_EQ(s->program.main, "main");
    offered.insert({s->program.text, s->trace});
  }
  EXPECT_EQ(offered, accepted);
}

TEST(RapidCheckCase, AFailingProgramShrinksToAFewEquations) {
  gen::GenOptions o;
  o.size = 5;
  o.cycles = 8;
  o.tensors = false;
  auto small = counterexample(diff::arbitrary_accepted_case(o), " fby ");
  ASSERT_TRUE(small);
  EXPECT_NE(small->program.text.find(" fby "), std::string::npos);
  EXPECT_EQ(diff::count_cycles(small->trace), 2);
  EXPECT_TRUE(diff::accept("<case>", small->program.text, "main", {}).accepted) << small->program.text;
  // The main node's outputs (three or four) and at most one more equation for the fby.
  EXPECT_LE(equations(small->program.text), 5) << small->program.text;
  // Negative control: the seed-shrinking generator ends at a whole draw, trace and all.
  auto whole = counterexample(gen::arbitrary_case(o), " fby ");
  ASSERT_TRUE(whole);
  EXPECT_EQ(diff::count_cycles(whole->trace), 8);
  EXPECT_GT(equations(whole->program.text), equations(small->program.text)) << whole->program.text;
}
