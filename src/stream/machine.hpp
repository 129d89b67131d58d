// The clock-directed machine: a post-free scalar node that rml-check accepts, run in
// process the way rml compile's step class runs it (stream/clock_directed.hpp), from a
// flat list of instructions over registers instead of generated C++.
//
// Where the runner keeps a tag on every cell and applies the rules of semantics.md to a
// fixpoint, the machine relies on the checker's proofs: clocks valid makes a variable
// present exactly where its clock term is true, so presence is the clock, computed once
// per cycle; causality gives one static order; a value carries a nil flag only where the
// first value of a `pre` may reach it. Each instruction runs when its clock is true.
//
// What the proofs exclude is still checked, never computed into a wrong value: an input
// present where its clock is false or absent where it is true (Status::InputClock, the
// trace is outside what rml-check assumed), a nil condition of a clock or a merge
// (Status::Error). Then the cycle's outputs are undefined and the state is unchanged.
//
// Nodes outside the machine (tensors, fun applications, `post`, cycles through
// exclusive branches) are refused with MachineUnsupported: the runner (runner.hpp) runs
// them.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "stream/plan.hpp"
#include "stream/runner.hpp"

namespace rml::stream {

struct MachineUnsupported : StreamError {
  MachineUnsupported(const std::string &what, Span s) : StreamError(what), span(s) {}
  Span span;
};

// An input's cell at one cycle: present with its value (`r` for a real, `i` for an int or
// a bool as 0/1), or absent.
struct InputValue {
  bool present = false;
  double r = 0;
  int64_t i = 0;
};

class Machine {
 public:
  enum class Status : uint8_t { Ok, InputClock, Error };

  Machine(const core::Program &prog, const core::Clocks &clocks, const Plan &plan);
  // Back to the first cycle.
  void reset();
  // One cycle; `in` holds one value per plan.input_slots.
  Status step(const InputValue *in);
  Status step(const std::vector<InputValue> &in) { return step(in.data()); }
  // The cell of `slot` at the last cycle that stepped Ok: absent, nil or a value.
  oracle::Tag tag(int slot) const;
  double real(int slot) const { return R[static_cast<size_t>(slot)]; }
  int64_t integer(int slot) const { return I[static_cast<size_t>(slot)]; }
  oracle::Cell cell(int slot) const;
  // Why the last step failed: the input out of its clock, or the nil condition.
  const std::string &failure() const { return failure_; }
  size_t instructions() const { return code.size(); }

 private:
  // The instruction set. Real* write R, the others I (ints, and bools as 0/1).
  enum class Op : uint8_t {
    ClockBase, ClockNever, ClockOn,
    CopyR, CopyI,                         // copy and when
    AddR, SubR, MulR, DivR, BinR, CmpR,   // real operands
    BinI, CmpI, BinB,                     // int operands (CmpI: a comparison), bool operands
    UnR, UnRtoI, UnItoR, UnI, UnB,
    IfR, IfI, MergeR, MergeI,
    FbyR, FbyI, PreR, PreI, ArrowR, ArrowI,
    // The arithmetic with an operand the previous instruction of the block just computed,
    // read from a register of the loop rather than reloaded from R (a dependence through
    // memory costs a store-to-load forward, about five cycles, on every link of a chain).
    AddRa, AddRb, SubRa, SubRb, MulRa, MulRb, DivRa, DivRb,
  };

  struct Instr {
    Op op;
    uint8_t sub = 0;      // the operator (UnOp or BinOp), or ClockOn's polarity
    bool nil = false;     // the result may be nil: compute its flag
    int guard = 0;        // the register of the clock under which it runs (ClockOn: its parent is a)
    int out = 0, a = 0, b = 0, c = 0;
    int term = -1;        // state primitives: the clock term whose earlier ticks start them
    int state = -1;       // fby, pre: its update
  };
  struct Block {  // code[begin, end) shares the clock `guard`
    int guard;
    size_t begin, end;
  };
  struct Constant {
    int slot;
    double r;
    int64_t i;
  };

  struct Update {
    int guard, operand, state;
    bool real, nil;  // nil: the operand may be nil
  };

  // The clock-directed order rearranged so that an instruction follows the one computing
  // its operand where it can (state reads, which need nothing of the cycle, first), then
  // the forwarded opcodes marked.
  void chain_instructions();

  const Plan &plan;
  std::vector<Instr> code;
  std::vector<Block> blocks;
  std::vector<Update> updates;  // fby/pre state, written after the cycle's checks
  std::vector<Constant> constants;  // set once, by reset()
  std::vector<int> ticking;     // the clock terms of state primitives
  std::vector<int> term_slot;   // per clock term, its slot
  std::vector<int> clock_reg;   // per slot, the register of its clock (presence)
  std::vector<uint8_t> may_be_nil;  // per slot
  std::vector<double> R;        // per slot (+ the always-true guard)
  std::vector<int64_t> I;
  std::vector<uint8_t> N;       // nil flags
  std::vector<uint8_t> ticked;  // per clock term: it has ticked before
  std::vector<double> last_r;   // per update
  std::vector<int64_t> last_i;
  std::vector<uint8_t> last_nil;
  std::string failure_;
  int guard_true = 0;           // the register that is always 1
};

}  // namespace rml::stream
