// The stream primitives of the elaborated core, one row each: at which cycle each operand
// is read (0 this cycle, -1 the previous tick of the clock, +1 the next), at which ticks,
// under which guard, whether nil flows through it, where the clock comes from, and what
// the primitive keeps between cycles.
//
// Consumers that need only these facts read the table: the oracle's readers and evaluation
// order, the checker's needs graph (productivity weights are the offsets), the may-be-nil
// analysis, the SMT state layout. What stays per primitive — the oracle's rule, the clock
// constraint, the SMT transition, the printer, the proof encodings — is a `switch` over
// Prim without `default:`, so that -Wswitch names every place a new primitive must be
// handled (semantics/adding-a-primitive.md).
#pragma once
#include <array>
#include <cstdint>

#include "core/normalize.hpp"

namespace rml::core {

// At which ticks of the primitive's clock an operand is read.
enum class Ticks : uint8_t { Every, First, Later };

// The guard of a read: the operand `guard` (an index into the equation's args) must be
// true (OnTrue), false (OnFalse), or equal to the equation's `positive` polarity (OnPolarity,
// `when` / `when not`).
enum class GuardKind : uint8_t { None, OnTrue, OnFalse, OnPolarity };

struct OperandUse {
  int8_t offset = 0;            // 0, -1 (fby/pre: the previous tick), +1 (post: the next tick)
  Ticks ticks = Ticks::Every;
  GuardKind guard_kind = GuardKind::None;
  int8_t guard = -1;            // operand index of the guard
  bool nil_flows = true;        // a nil operand can make the result nil
};

// Where the primitive's clock comes from: its operands (the clock calculus unifies them),
// or the context (a constant, pre, post, a call without stream arguments: they tick on the
// clock of where they are used, and need that clock's conditions).
enum class ClockFrom : uint8_t { Operands, Context, ContextWhenNullary };

// How a change travels through the primitive in the oracle's worklist: within the cycle,
// forward to later cycles (state), or backward to earlier ones (a prophecy).
enum class Time : uint8_t { Instant, Forward, Backward };

struct PrimInfo {
  Prim prim;
  const char *name;
  int8_t arity;                      // -1: any number, each read as uses[0]
  std::array<OperandUse, 3> uses;    // the first `arity` are meaningful
  ClockFrom clock;
  Time time;
  bool makes_nil;                    // can be nil whatever its operands (pre's first value)
  uint8_t state_slots;               // the SMT transition system's state per equation
};

inline constexpr OperandUse kNow{};
inline constexpr std::array<PrimInfo, 9> kPrimitives{{
    {Prim::Const, "const", 0, {}, ClockFrom::Context, Time::Instant, false, 0},
    {Prim::Copy, "copy", 1, {kNow}, ClockFrom::Operands, Time::Instant, false, 0},
    {Prim::Apply, "apply", -1, {kNow}, ClockFrom::ContextWhenNullary, Time::Instant, false, 0},
    // y = x when[not] c: c always, x where c has the polarity.
    {Prim::When, "when", 2, {OperandUse{0, Ticks::Every, GuardKind::OnPolarity, 1, true}, kNow}, ClockFrom::Operands,
     Time::Instant, false, 0},
    // y = merge c x z: c always, x where c, z where not c; a nil c is a clock error, not a nil y.
    {Prim::Merge, "merge", 3,
     {OperandUse{0, Ticks::Every, GuardKind::None, -1, false}, OperandUse{0, Ticks::Every, GuardKind::OnTrue, 0, true},
      OperandUse{0, Ticks::Every, GuardKind::OnFalse, 0, true}},
     ClockFrom::Operands, Time::Instant, false, 0},
    // y = x fby z: x at the first tick, z at the previous tick. State: started, value, nil.
    {Prim::Fby, "fby", 2, {OperandUse{0, Ticks::First}, OperandUse{-1}}, ClockFrom::Operands, Time::Forward, false, 3},
    {Prim::Pre, "pre", 1, {OperandUse{-1}}, ClockFrom::Context, Time::Forward, true, 3},
    // y = x -> z: x at the first tick, z at the later ones. State: started.
    {Prim::Arrow, "arrow", 2, {OperandUse{0, Ticks::First}, OperandUse{0, Ticks::Later}}, ClockFrom::Operands, Time::Forward,
     false, 1},
    // y = post x: x at the next tick. State (a prophecy): pending, value, nil.
    {Prim::Post, "post", 1, {OperandUse{+1}}, ClockFrom::Context, Time::Backward, false, 3},
}};

constexpr bool rows_in_prim_order() {
  for (size_t k = 0; k < kPrimitives.size(); ++k)
    if (static_cast<size_t>(kPrimitives[k].prim) != k) return false;
  return static_cast<size_t>(kLastPrim) + 1 == kPrimitives.size();
}
static_assert(rows_in_prim_order(), "one row per Prim, in the enum's order");

constexpr const PrimInfo &info(Prim p) { return kPrimitives[static_cast<size_t>(p)]; }

// The use of operand `k` of an equation (variadic primitives read every operand alike).
inline const OperandUse &use_of(const Equation &eq, size_t k) {
  const PrimInfo &pi = info(eq.prim);
  return pi.arity < 0 ? pi.uses[0] : pi.uses[k];
}

// Whether the equation ticks on the clock of its context (and needs that clock's conditions).
inline bool takes_context_clock(const Equation &eq) {
  ClockFrom c = info(eq.prim).clock;
  return c == ClockFrom::Context || (c == ClockFrom::ContextWhenNullary && eq.args.empty());
}

}  // namespace rml::core
