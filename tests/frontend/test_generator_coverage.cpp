// The random program generators against the tables they should reach: the elaborated
// programs of testgen::ProgGen (every property of the oracle, the checker and the front end
// draws from it) must contain every stream primitive of src/core/primitives.hpp and apply
// every surface operator and builtin of src/ops/ops.hpp. A row added to either table
// fails this test until the generator produces it, so that no property silently leaves a
// new primitive or operator out.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <rapidcheck/detail/Configuration.h>

#include <algorithm>
#include <set>
#include <string>

#include "common/sanitized.hpp"
#include "common/stream_prog_gen.hpp"
#include "core/normalize.hpp"
#include "core/primitives.hpp"
#include "test_util.hpp"

using namespace rml;

namespace {

struct Reached {
  std::set<core::Prim> prims;
  std::set<std::string> operators;  // surface spellings
};

// Elaborates 2000 to 4000 programs over every ProgGen configuration, whatever RC_PARAMS's
// max_success (100 under ASan, 1000 here), and records what they contain.
Reached reach(const std::set<std::string> &skip_ops) {
  Reached seen;
  const int rounds = std::max(1, 500 / rc::detail::configuration().testParams.maxSuccess);
  bool ok = rc::check("generated programs", [&] {
    for (int config = 0; config < 4 * rounds; ++config) {
      testgen::ProgGen g;
      g.well_clocked = config % 4 >= 1;
      g.sub_clocked_state = config % 4 >= 2;
      g.resets = config % 4 == 3;
      g.skip_ops = skip_ops;
      std::string text = g.program();
      auto r = rml::test::check_text(text);
      if (r->diags.has_errors()) RC_FAIL(text + render_all(r->diags));
      core::Program p;
      try {
        p = core::elaborate(r->checked, "main");
      } catch (const core::ElabError &) {
        continue;  // a clock error the generator may make when not well_clocked
      }
      for (auto &eq : p.equations) {
        seen.prims.insert(eq.prim);
        if (eq.prim == core::Prim::Apply && (eq.op == core::ApplyOp::Unary || eq.op == core::ApplyOp::Binary))
          seen.operators.insert(core::apply_name(eq));
      }
    }
  });
  EXPECT_TRUE(ok);
  return seen;
}

std::set<std::string> missing_operators(const Reached &seen) {
  std::set<std::string> missing;
  for (const ops::UnaryRow &r : ops::kUnary)
    if (r.spelling != ops::Spelling::IrOnly && !seen.operators.count(std::string(r.surface))) missing.insert(std::string(r.surface));
  for (const ops::BinaryRow &r : ops::kBinary)
    if (r.spelling != ops::Spelling::IrOnly && !seen.operators.count(std::string(r.name))) missing.insert(std::string(r.name));
  return missing;
}

}  // namespace

// A statement about the generator, not about memory: the Release run checks it, and the
// sanitizers' build (where 4000 elaborations take a minute) skips it.
TEST(GeneratorCoverage, ProgramsReachEveryPrimitiveAndEveryOperatorOfTheTables) {
  if (rml::test::kSanitized) GTEST_SKIP() << "checked by the Release build";
  Reached seen = reach({});
  for (const core::PrimInfo &pi : core::kPrimitives) EXPECT_TRUE(seen.prims.count(pi.prim)) << "never generated: " << pi.name;
  std::set<std::string> missing = missing_operators(seen);
  EXPECT_TRUE(missing.empty()) << "operators never generated: " << ::testing::PrintToString(missing);
}

// Negative control: a generator told to leave `lgamma` and `xor` out is caught.
TEST(GeneratorCoverage, AnOperatorLeftOutIsReported) {
  if (rml::test::kSanitized) GTEST_SKIP() << "checked by the Release build";
  Reached seen = reach({"lgamma", "xor"});
  EXPECT_EQ(missing_operators(seen), (std::set<std::string>{"lgamma", "xor"}));
}
