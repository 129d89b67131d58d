// The compiled form of a main node for the stream path: its slots (one per clock term and
// variable, with a fixed payload size), one step per equation and clock term, who reads
// what (from the primitive table, core/primitives.hpp), and the static schedule of a cycle:
// the strongly connected components of the instantaneous dependence graph in topological
// order (Boost.Graph). A component of more than one step is a cycle through exclusive
// when/merge branches, which the checker's causality admits; the runner iterates it to
// its fixpoint within the cycle.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "array/tensor.hpp"
#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "ops/ops.hpp"

namespace rml::stream {

struct PlanError : std::runtime_error {  // a node the stream path cannot compile
  using std::runtime_error::runtime_error;
};

struct Slot {
  std::string name;
  bool clock = false;  // holds tt/ff as 1/0, never absent
  Scalar elem = Scalar::Bool;
  std::vector<int64_t> shape;
  size_t numel = 1;
  size_t offset = 0;   // of the payload in a cycle's frame (doubles or int64s, by elem)
};

// What a step computes (one kind per rule of semantics.md §3-§4).
enum class StepKind : uint8_t { ClockBase, ClockOn, ClockNever, Const, Copy, Apply, When, Merge, Fby, Pre, Arrow, Post };
// Scalar applications of the operator table, without tensors (as the oracle's fast path).
enum class ScalarOp : uint8_t { None, If, Unary, Binary };

struct Step {
  StepKind kind;
  int out = -1;
  std::vector<int> in;       // operand slots
  int clock = -1;            // Const, nullary Apply, Pre, Post: the slot of the context clock
  bool positive = true;      // When, ClockOn
  const core::Equation *eq = nullptr;
  ScalarOp scalar = ScalarOp::None;
  ops::UnOp un = ops::UnOp::Neg;
  ops::BinOp bin = ops::BinOp::Add;
  // Fby, Arrow, Pre: the slot whose ticks define "the previous tick" (fby/-> their first
  // operand, pre its clock); Post: its clock, whose next tick it reads.
  int ticks = -1;
};

// A change of slot c at cycle n must re-run `step` at n (Instant), at the next tick of
// `ticks` after n (Forward: state), or at the previous one before n (Backward: post).
enum class Travel : uint8_t { Instant, Forward, Backward };
struct Reader {
  int step;
  Travel travel;
  int ticks;
};

struct Plan {
  std::string main;
  std::vector<Slot> slots;
  std::vector<Step> steps;
  std::vector<std::vector<Reader>> readers;  // per slot
  std::vector<std::vector<int>> schedule;    // components in topological order
  std::unordered_map<std::string, int> slot_of;
  std::vector<int> input_slots, clock_slots;
  std::vector<int> input_clock_slots;        // the clock slot of each input, in input order
  // Per slot: a variable's clock (the slot of its clock term, core::Clocks), -1 for a clock
  // slot (tt/ff, never absent). In a program without clock clashes whose inputs are on their
  // clocks, a variable's cell that is no error is present exactly where that clock is true
  // (ClocksDecidePresence's law): what cells without tags would read presence from.
  std::vector<int> clock_of;
  size_t real_words = 0, int_words = 0;      // a cycle's frame
  bool has_post = false;
  int slot(const std::string &var) const;
};

Plan build_plan(const core::Program &prog, const core::Clocks &clocks);

}  // namespace rml::stream
