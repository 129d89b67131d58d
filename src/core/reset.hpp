// Modular reset, `f(args) every c` (Lustre's `(restart f every c)(args)`), defined by
// translation into the core's primitives (semantics/semantics.md §4.11): no primitive,
// rule, clock constraint or SMT transition of its own.
//
// In an instance restarted by c, each state equation on clock κ reads
//   st = pending_κ(c) or (true -> false)   "this tick of κ starts a segment"
// where pending_κ(c) is true at a tick of κ when c was true at some tick of the instance's
// base clock since the previous tick of κ (with sub-clocks, c can come between two ticks
// of κ; Vélus's reset semantics resets the state all the same). Then
//   x fby z  ->  merge st (x when st) ((pre z) when not st)
//   x -> z   ->  merge st (x when st) (z when not st)
//   pre z    ->  merge st (nil when st) ((pre z) when not st)      nil: n = pre n
//   post z   ->  merge ps (nil when ps) ((post z) when not ps)     ps = post st
// (post at the last tick of a segment has no next value in that run: nil). Nested
// resets are or-ed. Each `or`/`and` here is a merge, lazy in its second operand where the
// first decides. What the instance reads from its caller is not reset.
#pragma once
#include "core/normalize.hpp"

namespace rml::core {

// Rewrites the state equations of every instance under `every` as above. Fresh variables
// are named like elaboration's temporaries; `temps` is elaboration's running count.
// A state equation whose clock is not below its reset's clock (the clock calculus then
// reports a clash) reads the condition as it is, so that the oracle shows the error (‖).
void expand_resets(Program &p, int &temps);

}  // namespace rml::core
