// The clock-directed reading of a post-free node, shared by rml compile's step class
// (codegen/emit_cpp.cpp prints it) and the in-process machine (stream/machine.hpp runs
// it): a variable is computed where its clock ticks, as a plain value, in one static
// order of the cycle, and carries a nil flag only where the first value of a `pre` may
// reach it.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "stream/plan.hpp"

namespace rml::stream {

// The steps of `plan` in an order where each comes after the same-cycle operands it reads
// and after the clock term that guards it (Kahn's algorithm, the schedule's order among
// ready steps); nothing when those dependences form a cycle (then no static order exists).
std::optional<std::vector<int>> clock_directed_order(const Plan &plan, const core::Clocks &clocks);

// The variables that may be nil: every `pre`, and what its value flows into
// (core::use_of(...).nil_flows), to a fixpoint.
std::set<std::string> may_nil(const core::Program &prog);

}  // namespace rml::stream
