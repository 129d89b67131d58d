// rml/rapidcheck.hpp: a RapidCheck generator of accepted programs whose counterexamples
// shrink structurally. The laws: every shrink it offers is accepted by rml-check
// (negative control: among the raw edits, some are not, so the filter is what keeps them
// out), and a property that fails on a shape ends at a program of a few equations holding
// that shape, where shrinking the seed alone keeps the whole draw.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <optional>
#include <set>

#include "diff/case_hooks.hpp"
#include "diff/shrink.hpp"
#include "gen/rapidcheck_gen.hpp"
#include "rml/rapidcheck.hpp"

namespace api = rml::api;

namespace {

int equations(const std::string &text) { return rml::diff::count_equations(rml::diff::case_hooks(false), text); }
int cycles(const std::string &trace) { return rml::diff::count_cycles(trace); }

// RapidCheck's counterexample: its last failing evaluation is the minimal case it ends at.
// `text` and `trace` read a case of the generator's type.
template <class Gen, class Text, class Trace>
auto counterexample(Gen g, const std::string &needle, Text text, Trace trace) {
  std::optional<std::decay_t<decltype(*g)>> last;
  bool passed = rc::check("fails on every program holding '" + needle + "' with 2 cycles or more", [&] {
    auto c = *g;
    if (text(c).find(needle) != std::string::npos && cycles(trace(c)) >= 2) {
      last = c;
      RC_FAIL("holds " + needle);
    }
  });
  EXPECT_FALSE(passed);
  return last;
}

}  // namespace

TEST(RapidCheckCase, EveryShrinkOfferedIsAccepted) {
  api::GenerateOptions o;
  o.size = 3;
  o.cycles = 4;
  o.post = false;  // each candidate costs a check: keep them cheap
  o.resets = false;
  o.instances = false;
  api::GeneratedCase c = *api::generate(3, o);
  auto raw = api::shrink_candidates(api::Case{c.program, c.trace});
  std::set<std::pair<std::string, std::string>> accepted;
  for (auto &k : raw)
    if (api::accept("<case>", k.program, "main").ok()) accepted.insert({k.program, k.trace});
  EXPECT_LT(accepted.size(), raw.size()) << "no raw edit is refused: the filter is not shown to matter";
  EXPECT_FALSE(accepted.empty());
  std::set<std::pair<std::string, std::string>> offered;
  auto shrinks = api::accepted_shrinks(c, false);
  while (auto s = shrinks.next()) {
    EXPECT_EQ(s->seed, 3u);
    EXPECT_EQ(s->main, "main");
    offered.insert({s->program, s->trace});
  }
  EXPECT_EQ(offered, accepted);
}

TEST(RapidCheckCase, AFailingProgramShrinksToAFewEquations) {
  api::GenerateOptions o;
  o.size = 5;
  o.cycles = 8;
  o.tensors = false;
  auto small = counterexample(api::arbitrary_case(o), " fby ", [](const api::GeneratedCase &c) { return c.program; },
                              [](const api::GeneratedCase &c) { return c.trace; });
  ASSERT_TRUE(small);
  EXPECT_NE(small->program.find(" fby "), std::string::npos);
  EXPECT_EQ(cycles(small->trace), 2);
  EXPECT_TRUE(api::accept("<case>", small->program, "main").ok()) << small->program;
  // The main node's outputs (three or four) and at most one more equation for the fby.
  EXPECT_LE(equations(small->program), 5) << small->program;
  // Negative control: the seed-shrinking generator ends at a whole draw, trace and all.
  rml::gen::GenOptions g;
  g.size = 5;
  g.cycles = 8;
  g.tensors = false;
  auto whole = counterexample(rml::gen::arbitrary_case(g), " fby ", [](const rml::gen::GeneratedCase &c) { return c.program.text; },
                              [](const rml::gen::GeneratedCase &c) { return c.trace; });
  ASSERT_TRUE(whole);
  EXPECT_EQ(cycles(whole->trace), 8);
  EXPECT_GT(equations(whole->program.text), equations(small->program)) << whole->program.text;
}
