// The stream runner: a Plan run cycle by cycle over a sliding window of frames (one frame
// of cells per cycle), in memory bounded by the window, not by the trace. It runs the
// window runtime (rml_window.hpp through window_runner.hpp: the runtime rml compile's
// window classes run), retimed where the node retimes.
//
// Each pushed cycle is swept once; a cell that stays unknown (⊥) waits for the future (a
// `post`). Changes then travel as in the oracle's worklist — within a cycle, forward along
// state, backward along post — but only inside the window. A frame leaves the window (is
// emitted, final) when it and the `lag` frames after it hold no ⊥. State read from frames
// that have left is kept in a per-step memory (the last tick of a fby, `->` or pre), so
// nothing scans beyond the window.
//
// Exactness: every emitted cell equals the oracle's on the whole trace, or the runner
// stops with ExactnessLost (a ‖ travelled back into an emitted frame; it cannot happen
// with lag ≥ the checker's horizon when the trace respects the node's clocks and
// assumptions). Boundedness: rml-check's productivity horizon H bounds the frames waiting
// for the future when the assumptions hold; Options::max_window turns a trace that breaks
// them (or unknown inputs) into WindowLimitError, never into growing memory.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "array/exec/exec.hpp"
#include "oracle/oracle.hpp"
#include "stream/plan.hpp"

namespace rml::window {
class Runner;
}

namespace rml::stream {

struct StreamError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A frame could not leave the window within max_window cycles: `cycle` still holds an
// unknown cell of `var`.
struct WindowLimitError : StreamError {
  WindowLimitError(const std::string &what, size_t c, std::string v) : StreamError(what), cycle(c), var(std::move(v)) {}
  size_t cycle;
  std::string var;
};
// A change reached a frame already emitted (only a ‖ can): the output so far is not exact.
struct ExactnessLost : StreamError {
  using StreamError::StreamError;
};

struct Options {
  size_t lag = 0;                       // frames after a ⊥-free frame that must be ⊥-free before it leaves
  size_t max_window = SIZE_MAX;         // frames held at once
  oracle::Options::FunApply apply_fun;  // fun applications (the compiled path); else the reference evaluator
  // Or, taking precedence: the executable of a fun at these static arguments and operand
  // types (f64), compiled once by the caller and alive as long as the runner. The runner
  // asks once per application and runs it on its operands where they are (frame words,
  // blocks) into a result block of its own (Executable::run_raw): nothing copied in, and
  // result blocks are reused once every frame holding them has left (rml run). A null
  // answer: that fun through apply_fun, else the reference evaluator. The executable's
  // exec::ExecError passes through.
  std::function<exec::Executable *(const std::string &fn, const std::vector<StaticValue> &statics,
                                   const std::vector<ir::Type> &operand_types)>
      fun_executable;
  // The retimed sweep where the node retimes (each cell once, after all it reads); false:
  // the sweep in schedule order and the worklist (tests compare the two).
  bool retime = true;
  // The slots the emit callback reads (FrameView::cell); unset: every slot. A tensor result
  // may be written over an operand's block that no cell will read again (in place); the
  // cells of the slots named here are never overwritten. No callback: no slot is read.
  std::optional<std::vector<int>> read_slots;
};

// The cells of one emitted cycle.
class FrameView {
 public:
  oracle::Tag tag(int slot) const;
  // A slot's cell; a StreamError for a slot Options::read_slots does not name (its value's
  // block may hold another cell's result by then).
  oracle::Cell cell(int slot) const;
  size_t cycle = 0;

 private:
  friend class WindowRunner;
  friend struct FrameViewUnchecked;  // tests: a read past read_slots (the in-place laws' negative control)
  oracle::Cell cell_unchecked(int slot) const;
  const Plan *plan_ = nullptr;
  const uint8_t *tags_ = nullptr;
  const uint8_t *readable_ = nullptr;       // per slot: whether the callback may read it
  const window::Runner *window_ = nullptr;  // the window runtime, whose front frame this is
};

// Tensor streams: a fun through the reference evaluator (and the builtins it computes)
// allocates its tensors each cycle and frees them. glibc gives a freed block over its mmap
// threshold (128 KiB at first) back to the kernel, so every cycle would page-fault them in
// again. This keeps blocks up to 32 MiB in the heap, where the next cycle reuses them.
// Process-wide (mallopt): rml run calls it for nodes with tensors.
void keep_tensor_blocks_in_heap();

class WindowRunner;

class Runner {
 public:
  using Emit = std::function<void(const FrameView &)>;
  Runner(const CheckedProgram &cp, const Plan &plan, Options opts, Emit emit);
  ~Runner();
  // The inputs of the next cycle, one per plan.input_slots (their types are checked).
  void push(const std::vector<oracle::Cell> &inputs);
  // The trace ends: the frames still held are emitted as they stand (their ⊥ cells need
  // inputs beyond the trace, exactly where the oracle's are ⊥).
  void finish();

  size_t cycles() const;                              // pushed so far
  size_t max_window() const;                          // most frames held at once
  uint64_t evaluations() const;                       // rule applications
  uint64_t reused() const;                            // tensor results written over an operand's block
  bool dead_left() const;                             // window::Runner::dead_left (a bug if true)
  const std::vector<oracle::ErrorOrigin> &errors() const;  // where ‖ cells were produced
  std::vector<std::string> input_clock_violations() const;
  // How the window runtime runs the node: "window runtime (retimed)" (each cell once, in a
  // fixed order, while every push so far took that sweep) or "window runtime" (its sweep in
  // schedule order and worklist).
  const char *engine() const;

 private:
  std::unique_ptr<WindowRunner> window_;
};

}  // namespace rml::stream
