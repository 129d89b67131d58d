// A main node elaborated once with its clocks inferred once: what the oracle, the checker
// and the counterexample replays of one `rml-check` share (each used to infer the clocks
// again: the checker, and an oracle per replay and per invariant search).
#pragma once
#include <string>

#include "core/clocks.hpp"
#include "core/normalize.hpp"

namespace rml::driver {

struct Elaborated {
  core::Program prog;
  core::Clocks clocks;
};

// Throws core::ElabError (a main that cannot be elaborated).
inline Elaborated elaborate(const CheckedProgram &cp, const std::string &main) {
  Elaborated e;
  e.prog = core::elaborate(cp, main);
  e.clocks = core::infer_clocks(e.prog);
  return e;
}

}  // namespace rml::driver
