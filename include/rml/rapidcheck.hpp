// rml's generated programs as a RapidCheck generator for your own property tests, with
// structural shrinking: a failing case shrinks by rml diff's edits (the trace cut, nodes,
// `check`/`assume` clauses, equations and subexpressions removed), each candidate kept
// only if rml-check accepts it, so a minimal counterexample is a program of a few
// equations with one meaning. RapidCheck is your dependency; rml's is only rml/rml.hpp.
//
//   #include <rml/rapidcheck.hpp>
//   RC_GTEST_PROP(MyBackEnd, EqualsTheOracle, ()) {
//     rml::api::GeneratedCase c = *rml::api::arbitrary_case();
//     auto p = rml::api::accept("case.rml", c.program, c.main);
//     RC_PRE(p.ok());
//     ... run c.program on c.trace with your back end, compare with rml::api::run ...
//   }
#pragma once
#include <rapidcheck.h>

#include <ostream>
#include <string>
#include <vector>

#include "rml/rml.hpp"

namespace rml::api {

// How RapidCheck prints a counterexample: the seed, the program and its trace.
inline void showValue(const GeneratedCase &c, std::ostream &os) {
  os << "seed " << c.seed << "\n" << c.program << "trace:\n" << c.trace;
}

// The cases one edit smaller than `c` that rml-check accepts, in shrink order; each is
// checked only when RapidCheck asks for it (it stops at the first that still fails).
inline rc::Seq<GeneratedCase> accepted_shrinks(const GeneratedCase &c, bool lustre, CheckOptions check = {}) {
  ShrinkOptions so;
  so.main = c.main;
  so.lustre = lustre;
  std::vector<Case> cands = shrink_candidates(Case{c.program, c.trace}, so);
  const std::string main = c.main, name = lustre ? "<case.lus>" : "<case.rml>";
  auto accepted = rc::seq::filter(rc::seq::fromContainer(std::move(cands)),
                                  [main, name, check](const Case &k) { return accept(name, k.program, main, check).ok(); });
  return rc::seq::map(std::move(accepted), [c](const Case &k) {
    GeneratedCase s = c;  // the seed, the main node and its outputs stay
    s.program = k.program;
    s.trace = k.trace;
    return s;
  });
}

// A case drawn from a random seed by generate(seed, o), shrinking structurally (above).
// Options generate() refuses make the generator fail (rc::GenerationFailure, its message).
inline rc::Gen<GeneratedCase> arbitrary_case(GenerateOptions o = {}, CheckOptions check = {}) {
  return rc::Gen<GeneratedCase>([o, check](const rc::Random &random, int size) {
    uint64_t seed = rc::gen::arbitrary<uint64_t>()(random, size).value();
    Result<GeneratedCase> drawn = generate(seed, o);
    if (!drawn) throw rc::GenerationFailure(drawn.failure().text());
    return rc::shrinkable::shrinkRecur(std::move(*drawn),
                                       [o, check](const GeneratedCase &c) { return accepted_shrinks(c, o.lustre, check); });
  });
}

}  // namespace rml::api
