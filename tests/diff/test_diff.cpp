// rml gen / rml diff's parts: the comparison of chronograms (exact cells, the real
// tolerance at its boundary, unknown cells), the generator (reproducible, accepted by
// rml-check, features left out), the shrinker (a minimal failing case, and only cases
// that still fail), the Lustre printer (its text reads back as the same program).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>

#include "diff/accept.hpp"
#include "diff/compare.hpp"
#include "diff/lustre_print.hpp"
#include "diff/shrink.hpp"
#include "gen/program_gen.hpp"
#include "sema/frontend.hpp"
#include "syntax/printer.hpp"

namespace rml::diff {
namespace {

TEST(Compare, RealsWithinUlpsAndNotOneMore) {
  Tolerance t{2, 0};
  double one = 1.0, up1 = std::nextafter(one, 2.0), up2 = std::nextafter(up1, 2.0), up3 = std::nextafter(up2, 2.0);
  EXPECT_TRUE(reals_equal(one, up2, t));
  EXPECT_FALSE(reals_equal(one, up3, t));
  // Across zero: -0.0 and 0.0 are one value; the smallest subnormals either side are 2 apart.
  double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_TRUE(reals_equal(-0.0, 0.0, Tolerance{0, 0}));
  EXPECT_TRUE(reals_equal(-tiny, tiny, Tolerance{2, 0}));
  EXPECT_FALSE(reals_equal(-tiny, tiny, Tolerance{1, 0}));
  // NaN equals NaN only; infinities only themselves, whatever the tolerance.
  EXPECT_TRUE(reals_equal(std::nan(""), -std::nan(""), t));
  EXPECT_FALSE(reals_equal(std::nan(""), 1.0, Tolerance{1 << 30, 1.0}));
  EXPECT_FALSE(reals_equal(INFINITY, std::numeric_limits<double>::max(), Tolerance{4, 0.5}));
  EXPECT_TRUE(reals_equal(-INFINITY, -INFINITY, Tolerance{0, 0}));
  // Relative: at the boundary and past it.
  EXPECT_TRUE(reals_equal(100.0, 101.0, Tolerance{0, 0.01}));
  EXPECT_FALSE(reals_equal(100.0, 101.5, Tolerance{0, 0.01}));
}

TEST(Compare, CellsByKind) {
  Tolerance t{4, 0};
  EXPECT_TRUE(cells_equal("?", "anything", t));   // unknown in the oracle: excluded
  EXPECT_FALSE(cells_equal("1.0", "?", t));       // unknown in the back end: a difference
  EXPECT_TRUE(cells_equal("_", "_", t));
  EXPECT_FALSE(cells_equal("_", "0", t));
  EXPECT_FALSE(cells_equal("0", "_", t));
  EXPECT_TRUE(cells_equal("T", "true", t));
  EXPECT_TRUE(cells_equal("F", "false", t));
  EXPECT_FALSE(cells_equal("T", "1", t));
  EXPECT_FALSE(cells_equal("T", "F", t));
  EXPECT_TRUE(cells_equal("8", "8", t));
  EXPECT_FALSE(cells_equal("8", "8.0", t));       // an int is not a real
  EXPECT_FALSE(cells_equal("9223372036854775807", "9223372036854775806", t));
  EXPECT_TRUE(cells_equal("1.0", "1", t));         // a real read as a double
  EXPECT_TRUE(cells_equal("0.1", "0.10000000000000001", t));
  EXPECT_FALSE(cells_equal("0.1", "0.1x", t));
  EXPECT_TRUE(cells_equal("nil", "nil", t));
  EXPECT_FALSE(cells_equal("nil", "0", t));
  EXPECT_TRUE(cells_equal("‖", "‖", t));
  EXPECT_FALSE(cells_equal("1.0", "‖", t));
  EXPECT_TRUE(cells_equal("[1.0, [2.0, 3.0]]", "[1.0,[2.0,3.0]]", t));
  EXPECT_FALSE(cells_equal("[1.0, [2.0, 3.0]]", "[1.0, [2.0]]", t));
  EXPECT_FALSE(cells_equal("[1.0, 2.0]", "[[1.0, 2.0]]", t));
}

TEST(Compare, ChronogramsAndTheFirstDifference) {
  std::string why;
  auto o = read_chronogram("x,o,p\n1,2.0,T\n\n# a comment\n2,[1, 2],F\n", why);
  ASSERT_TRUE(o) << why;
  EXPECT_EQ(o->rows.size(), 2u);
  EXPECT_EQ(o->rows[1][1], "[1, 2]");
  EXPECT_FALSE(read_chronogram("", why));
  EXPECT_FALSE(read_chronogram("a,b\n1\n", why));
  EXPECT_EQ(why, "line 2: 1 cells, but the header names 2 columns");
  auto b = read_chronogram("p,o\nT,2.0\nT,[1, 2]\n", why);
  ASSERT_TRUE(b);
  Difference d = compare(*o, *b, {"o", "p"}, Tolerance{});
  EXPECT_EQ(d.kind, Difference::Cell);
  EXPECT_EQ(d.var, "p");
  EXPECT_EQ(d.cycle, 1u);
  EXPECT_EQ(d.describe(), "'p' at cycle 1: the oracle says F, the back end T");
  // Cycle by cycle first, then in the order of the outputs.
  auto c = read_chronogram("o,p\n3.0,F\n[1, 2],T\n", why);
  d = compare(*o, *c, {"p", "o"}, Tolerance{});
  EXPECT_EQ(d.var, "p");
  EXPECT_EQ(d.cycle, 0u);
  auto shorter = read_chronogram("o,p\n2.0,T\n", why);
  d = compare(*o, *shorter, {"o", "p"}, Tolerance{});
  EXPECT_EQ(d.kind, Difference::MissingCycles);
  EXPECT_EQ(d.describe(), "the back end's output stops after 1 cycle of 2");
  auto missing = read_chronogram("o\n2.0\n[1, 2]\n", why);
  d = compare(*o, *missing, {"o", "p"}, Tolerance{});
  EXPECT_EQ(d.kind, Difference::MissingColumn);
  EXPECT_EQ(d.var, "p");
  auto same = read_chronogram("p,o,extra\nT,2.0,9\nF,[1,2],9\n", why);
  EXPECT_EQ(compare(*o, *same, {"o", "p"}, Tolerance{}).kind, Difference::None);
  auto reals = read_chronogram("p,o\nT,2.0\nF,[1.0, 2.0]\n", why);  // an int tensor's elements are exact
  EXPECT_EQ(compare(*o, *reals, {"o", "p"}, Tolerance{}).kind, Difference::Cell);
}

TEST(Generator, ReproducibleAndSeedDependent) {
  gen::GenOptions o;
  auto a = gen::generate_program(42, o), b = gen::generate_program(42, o), c = gen::generate_program(43, o);
  EXPECT_EQ(a.text, b.text);
  EXPECT_NE(a.text, c.text);
  EXPECT_EQ(gen::generate_trace(a, 7, 20), gen::generate_trace(b, 7, 20));
  // SplitMix64's first output for seed 0 (Vigna's reference implementation).
  gen::Rng r(0);
  EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFull);
}

// Law: rml-check never refuses a program the generator draws (no verdict falsified, no
// front-end error), in both dialects; its trace keeps the assumption it states. An
// unknown (a proof past the time budget: resets with nonlinear arithmetic can take
// Spacer seconds) is allowed and counted, never a refusal. Negative control below: the
// same check refuses a program whose post chain is not cut.
RC_GTEST_PROP(Generator, DrawsAreAcceptedByRmlCheck, ()) {
  uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  // CI checks 8 draws in 20 (each costs a proof); RML_ALL_CASES=1 checks every one.
  if (!std::getenv("RML_ALL_CASES") && seed % 20 >= 8) RC_SUCCEED("sampled out in CI (RML_ALL_CASES=1 checks every draw)");
  gen::GenOptions o;
  o.size = *rc::gen::inRange(1, 9);
  if (*rc::gen::arbitrary<bool>()) o = o.for_lustre();
  auto p = gen::generate_program(seed, o);
  Acceptance a = accept("<gen>", p.text, p.main, 20);
  RC_TAG(a.accepted ? "accepted" : "unknown");
  RC_ASSERT(a.accepted || a.rc == 3);  // 3: unknown
  std::string trace = gen::generate_trace(p, seed, 30);
  if (p.within >= 0) {  // c holds at least once in every within + 1 cycles
    int gap = 0, c_col = 0;
    for (size_t i = 0; i < p.inputs.size(); ++i)
      if (p.inputs[i].name == "c") c_col = static_cast<int>(i);
    std::string why;
    auto t = read_chronogram(trace, why);
    RC_ASSERT(t.has_value());
    for (auto &row : t->rows) {
      gap = row[static_cast<size_t>(c_col)] == "T" ? 0 : gap + 1;
      RC_ASSERT(gap <= p.within);
    }
  }
}

TEST(Generator, NegativeControlAnUncutPostIsRefused) {
  Acceptance a = accept("<gen>", "node main(x: real) -> (o: real)\n  o = post o + x;\n", "main", 20);
  EXPECT_FALSE(a.accepted);
}

TEST(Generator, FeaturesLeftOut) {
  gen::GenOptions o;
  o.post = o.clocks = o.instances = o.funs = false;
  for (uint64_t s = 0; s < 50; ++s) {
    auto p = gen::generate_program(s, o);
    EXPECT_EQ(p.text.find("post"), std::string::npos) << p.text;
    EXPECT_EQ(p.text.find("merge"), std::string::npos) << p.text;
    EXPECT_EQ(p.text.find("acc_"), std::string::npos) << p.text;
    EXPECT_EQ(p.text.find("sigmoid"), std::string::npos) << p.text;
  }
  o = gen::GenOptions{};
  bool post = false, merge = false, call = false, every = false;
  for (uint64_t s = 0; s < 50; ++s) {  // and with them, each is drawn
    auto p = gen::generate_program(s, o);
    post |= p.text.find("post") != std::string::npos;
    merge |= p.text.find("merge") != std::string::npos;
    call |= p.text.find("acc_") != std::string::npos;
    every |= p.text.find(" every ") != std::string::npos;
  }
  EXPECT_TRUE(post && merge && call && every);
}

ShrinkHooks hooks_for_rml() {
  ShrinkHooks h;
  h.parse = [](const std::string &text, Program &p) {
    auto r = run_frontend("<case>", text, FrontendOptions{true, false, {}});
    if (!r->parsed_ok) return false;
    p = std::move(r->user);
    return true;
  };
  h.print = [](const Program &p, std::string &text) {
    text = print_program(p);
    return true;
  };
  h.main = "main";
  return h;
}

// "Fails" while the program still has a fby and the trace at least 3 cycles: the shrinker
// keeps exactly that (a minimum: one fby, three cycles), and every case it kept fails.
TEST(Shrink, ReachesAMinimalFailingCase) {
  ShrinkHooks h = hooks_for_rml();
  int calls = 0;
  h.fails = [&](const Case &c) {
    ++calls;
    auto r = run_frontend("<case>", c.program);
    return !r->diags.has_errors() && c.program.find("fby") != std::string::npos && count_cycles(c.trace) >= 3;
  };
  Case c{"node helper(a: int) -> (o: int)\n  o = a + 1;\n\n"
         "node main(x: int, b: bool) -> (o: int, p: bool)\n  v = helper(x) * 2;\n  w = if b then v else 0 fby x;\n"
         "  o = w + v;\n  p = b and (x > 3);\n",
         "x,b\n1,T\n2,F\n3,T\n4,F\n5,T\n6,F\n7,T\n"};
  ASSERT_TRUE(h.fails(c));
  ShrinkStats st;
  Case s = shrink(c, h, ShrinkLimits{}, st);
  EXPECT_TRUE(h.fails(s));
  EXPECT_EQ(count_cycles(s.trace), 3);
  // 1-minimal for the edits: the helper and v go; w keeps the one fby (no edit moves it
  // into o, so w's equation stays), its operands and o, p become literals.
  EXPECT_EQ(s.program, "node main(x: int, b: bool) -> (o: int, p: bool)\n  w = 0 fby 0;\n  o = 0;\n  p = false;\n");
  EXPECT_FALSE(st.stopped_at_limit);
  EXPECT_EQ(count_equations(h, s.program), 3);
  // The budget is a bound: with 3 candidates it stops there.
  ShrinkStats few;
  shrink(c, h, ShrinkLimits{3, 60}, few);
  EXPECT_TRUE(few.stopped_at_limit);
  EXPECT_LE(few.tried, 3);
}

// A literal is replaced by the zero of its own kind only (1.5 by 0.0, then it stays): an
// unread local type-checks as `0.0` and as `0`, and trading one for the other forever
// spent the whole budget (found when rml gen drew tensors). The unread locals a and b,
// which read each other through fby and so cannot go alone, go once a's operands are
// literals.
TEST(Shrink, UnreadLocalsGoAndLiteralsStayPut) {
  ShrinkHooks h = hooks_for_rml();
  h.fails = [&](const Case &c) {
    auto r = run_frontend("<case>", c.program);
    return !r->diags.has_errors() && c.program.find("post") != std::string::npos && c.program.find("z =") != std::string::npos;
  };
  Case c{"node main(x: real) -> (o: real)\n  a = 0.5 fby b;\n  b = a + x;\n  z = 1.5;\n  o = post x + a;\n", "x\n1.0\n2.0\n"};
  ASSERT_TRUE(h.fails(c));
  ShrinkStats st;
  Case s = shrink(c, h, ShrinkLimits{}, st);
  EXPECT_EQ(s.program, "node main(x: real) -> (o: real)\n  z = 0.0;\n  o = post 0.0;\n");
  EXPECT_FALSE(st.stopped_at_limit);
  EXPECT_LT(st.tried, 60) << st.tried;
}

TEST(LustrePrint, GeneratedLustreReadsBackToTheSameProgram) {
  for (uint64_t s = 0; s < 30; ++s) {
    auto p = gen::generate_program(s, gen::GenOptions{}.for_lustre());
    auto r = run_frontend("<gen>", p.text, FrontendOptions{true, false, {}});
    ASSERT_TRUE(r->parsed_ok) << p.text;
    std::string why;
    auto text = print_lustre(r->user, why);
    ASSERT_TRUE(text) << why;
    auto again = run_frontend("<again>", *text, FrontendOptions{true, false, {}});
    ASSERT_TRUE(again->parsed_ok) << *text;
    // Lustre prints fby as -> pre, so compare the two prints rather than the trees.
    std::string why2;
    EXPECT_EQ(*print_lustre(again->user, why2), *text);
    EXPECT_TRUE(accept("<again>", *text, "main", 20).accepted) << *text;
  }
  auto post = run_frontend("<p>", "node main(x: int) -> (o: int)\n  o = post x;\n", FrontendOptions{true, false, {}});
  std::string why;
  EXPECT_FALSE(print_lustre(post->user, why));
  EXPECT_EQ(why, "post cannot be written in the Lustre dialect");
}

}  // namespace
}  // namespace rml::diff
