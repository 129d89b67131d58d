// rml gen's programs and traces as a RapidCheck generator for rml's own tests.
// Header-only: RapidCheck is the test's dependency, not rml_gen's.
//
// A case is drawn from a 64-bit seed, so RapidCheck shrinks the seed, not the program;
// the library's rml/rapidcheck.hpp (arbitrary_case(), for users) draws the same cases
// and shrinks the program and trace themselves, to a few equations.
#pragma once
#include <rapidcheck.h>

#include <cstdint>
#include <ostream>
#include <string>

#include "gen/program_gen.hpp"

namespace rml::gen {

struct GeneratedCase {
  uint64_t seed;
  GeneratedProgram program;
  std::string trace;  // CSV, o.cycles rows
};

// How RapidCheck prints a counterexample: the seed (rml gen's numbering aside, the
// program is generate_program(seed, options)), the program and the trace.
inline void showValue(const GeneratedCase &c, std::ostream &os) {
  os << "seed " << c.seed << "\n" << c.program.text << "trace:\n" << c.trace;
}

inline rc::Gen<GeneratedCase> arbitrary_case(GenOptions o = {}) {
  return rc::gen::map(rc::gen::arbitrary<uint64_t>(), [o](uint64_t seed) {
    GeneratedProgram p = generate_program(seed, o);
    std::string trace = generate_trace(p, seed, o.cycles);
    return GeneratedCase{seed, std::move(p), std::move(trace)};
  });
}

}  // namespace rml::gen

namespace rc {
template <>
struct Arbitrary<rml::gen::GeneratedCase> {
  static Gen<rml::gen::GeneratedCase> arbitrary() { return rml::gen::arbitrary_case(); }
};
}  // namespace rc
