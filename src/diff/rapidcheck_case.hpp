// rml gen's programs and traces as a RapidCheck generator whose counterexamples shrink
// structurally: a failing case shrinks by rml diff's edits (the trace cut, nodes,
// `check`/`assume` clauses, equations and subexpressions removed), each candidate kept
// only if rml-check accepts it, so a property's minimal counterexample is a program of a
// few equations with one meaning. Installed with rml (`#include "diff/rapidcheck_case.hpp"`,
// link `rml::rml_diff`); RapidCheck is the consumer's dependency.
//
//   RC_GTEST_PROP(MyBackEnd, EqualsTheOracle, ()) {
//     auto c = *rml::diff::arbitrary_accepted_case();
//     ... run c.program.text on c.trace, compare ...
//   }
//
// gen/rapidcheck_gen.hpp's arbitrary_case() draws the same programs with no dependency
// beyond rml_gen, and shrinks the seed only.
#pragma once
#include <rapidcheck.h>

#include <string>
#include <vector>

#include "diff/accept.hpp"
#include "diff/case_hooks.hpp"
#include "diff/shrink.hpp"
#include "gen/rapidcheck_gen.hpp"

namespace rml::diff {

// The cases one edit smaller than `c` that rml-check accepts, in shrink()'s order; each is
// checked only when RapidCheck asks for it (it stops at the first that still fails).
inline rc::Seq<gen::GeneratedCase> accepted_shrinks(const gen::GeneratedCase &c, bool lustre, const CheckBudget &budget) {
  std::vector<Case> cands = candidates(Case{c.program.text, c.trace}, case_hooks(lustre, c.program.main));
  const std::string main = c.program.main;
  auto accepted = rc::seq::filter(rc::seq::fromContainer(std::move(cands)), [main, budget](const Case &k) {
    return accept("<case>", k.program, main, budget).accepted;
  });
  return rc::seq::map(std::move(accepted), [c](const Case &k) {
    gen::GeneratedCase s = c;  // the seed and the main node's inputs and outputs stay
    s.program.text = k.program;
    s.trace = k.trace;
    if (k.program.find("assume always eventually") == std::string::npos) s.program.within = -1;
    return s;
  });
}

// A case drawn as arbitrary_case(o) draws it, shrinking structurally (above). `budget` is
// rml-check's for each shrinking candidate (default: 20 000 000 resource units, the same
// verdict on any machine).
inline rc::Gen<gen::GeneratedCase> arbitrary_accepted_case(gen::GenOptions o = {}, CheckBudget budget = {}) {
  return rc::Gen<gen::GeneratedCase>([o, budget](const rc::Random &random, int size) {
    uint64_t seed = rc::gen::arbitrary<uint64_t>()(random, size).value();
    gen::GeneratedProgram p = gen::generate_program(seed, o);
    std::string trace = gen::generate_trace(p, seed, o.cycles);
    const bool lustre = o.dialect == gen::Dialect::Lustre;
    return rc::shrinkable::shrinkRecur(gen::GeneratedCase{seed, std::move(p), std::move(trace)},
                                       [lustre, budget](const gen::GeneratedCase &c) { return accepted_shrinks(c, lustre, budget); });
  });
}

}  // namespace rml::diff
