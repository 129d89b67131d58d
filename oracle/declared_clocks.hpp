// Lustre's meaning of a declaration `x: t when c` (semantics.md §9.1): x is present
// exactly where its instance runs and c is true. The oracle computes streams from the
// equations alone, so a program can run without ‖ and still break what it declares (a
// main output declared on the base clock that is absent at some cycles, or an instance's
// input given on another clock than its declaration says). This finds such cells in a
// run; rml run reports them (clock.declared, exit 1) and rml-check's clocks property
// replays its counterexamples with it.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"

namespace rml::oracle {

struct DeclaredClockViolation {
  std::string var;   // the elaborated variable
  size_t cycle = 0;  // its first cycle where presence and declaration disagree
  bool present = false;
  std::string message;  // "'x' is absent at cycle 0, where its declared clock ... ticks"
  Span span;            // the declaration
};

// The first violation of every declaration, in declaration order. `x: t when c1 .. when
// cm` (Lustre: on clock(c1) on c1 .. on cm) is present exactly where every ck is present
// with its value; `x: t` exactly where its instance's base clock ticks: the presence of
// the instance's first variable declared without `when` (the main node's: the cycles
// where some input is present, or every cycle). Not checked: the main node's inputs
// (their clocks are the environment's assumption, input.clock) and a Heptagon
// declaration without a clock (DeclaredClock::inferred). Cycles where a cell involved is
// ⊥ or ‖ are skipped (‖ is reported as an error value already).
// `label` spells a variable in the messages (rml run prints the names of rml parse
// --normalized).
std::vector<DeclaredClockViolation> declared_clock_violations(
    const core::Program &prog, const Result &res,
    const std::function<std::string(const std::string &)> &label = [](const std::string &v) { return v; });

}  // namespace rml::oracle
