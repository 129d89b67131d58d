// The static may-be-nil analysis: which variables of an elaborated node can ever hold
// nil, Lustre's uninitialised first value of `pre`. An over-approximation (sound): a
// variable outside the set is never nil in the oracle. Initialisation and the clocks'
// nil conditions use it as a first proof, and Kind 2's reading of user properties to see
// that a property reads no first value. The SMT model must not pin the others' nil
// flags to false: the analysis reads `a -> pre x + 1` as not nil (the pre's nil is at the
// arrow's first tick, where it reads a), which holds on well-clocked runs only, and a
// pinned flag made every run through a clock error impossible, so that
// rml-check said `clocks: valid` of a program with errors at every cycle
// (tests/check/ko/72).
#pragma once
#include <set>
#include <string>

#include "core/normalize.hpp"

namespace rml::check {

// `well_clocked`: the static clock calculus unified (no clash), so the idiom `a -> pre x`
// (x's nil, not the pre's first one) holds. Without it an arrow may start before its pre
// has ticked (`a -> pre (a when c)`, c false at first), and the pre's own nil flows.
std::set<std::string> may_be_nil(const core::Program &prog, bool well_clocked = true);

}  // namespace rml::check
