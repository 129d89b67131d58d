// The static may-be-nil analysis: which variables of an elaborated node can ever hold
// nil, Lustre's uninitialised first value of `pre`. An over-approximation (sound): a
// variable outside the set is never nil in the oracle. Initialisation and the clocks'
// nil conditions use it as a first proof; the SMT model pins the nil flag of every
// variable outside it to false, so that no engine explores a nil the oracle cannot have
// (a post's prophecy at the last unrolled cycle was such a freedom: issue 14's note).
#pragma once
#include <set>
#include <string>

#include "core/normalize.hpp"

namespace rml::check {

std::set<std::string> may_be_nil(const core::Program &prog);

}  // namespace rml::check
