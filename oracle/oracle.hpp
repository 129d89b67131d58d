// The oracle: the least fixpoint of an elaborated program over finite stream prefixes
// (semantics/semantics.md). Values are T ∪ {⊥ unknown, □ absent, ‖ error}; `nil` is the
// value of Lustre's `pre` at its first tick (a value in T that no operator accepts).
#pragma once
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "array/eval.hpp"
#include "core/clocks.hpp"
#include "core/normalize.hpp"

namespace rml::oracle {

enum class Tag : uint8_t { Bot = 0, Abs = 1, Err = 2, Val = 3, Nil = 4 };

// One cell, at the API boundary (storage is columnar).
struct Cell {
  Tag tag = Tag::Bot;
  array::Tensor value;  // Tag::Val
  static Cell bot() { return {}; }
  static Cell absent() { return Cell{Tag::Abs, {}}; }
  static Cell error() { return Cell{Tag::Err, {}}; }
  static Cell of(array::Tensor t) { return Cell{Tag::Val, std::move(t)}; }
  bool operator==(const Cell &o) const { return tag == o.tag && (tag != Tag::Val || value == o.value); }
  std::string str() const;  // "?", "_", "‖", "nil" or the value
};

struct Options {
  bool post_clock_data = false;    // refuted alternative: post takes its presence from its argument
  bool strict_when_merge = false;  // refuted alternative: when/merge strict in every operand
  bool lazy_if = false;            // alternative: `if` non-strict in the unselected branch
  bool check_monotone = true;      // every update must go up in the information order
  uint64_t shuffle_seed = 0;       // worklist: evaluate in a random order (tests: any order, same result)
  // Pointwise application of a `fun` (user or prelude; never an operator or builtin):
  // when set, called instead of the reference evaluator (rml run --backend compiled).
  using FunApply = std::function<array::Tensor(const std::string &fun, const std::vector<StaticValue> &statics,
                                               const std::vector<array::Tensor> &args)>;
  FunApply apply_fun;
  // The memory cap of a run (README "Limits and exit codes"): Oracle::memory_needed(N)
  // must not exceed it, checked before anything is allocated (MemoryLimitError). Every
  // cell is kept, so the need grows as cycles × (the cells of every variable).
  uint64_t max_memory = kDefaultMaxMemory;
  static constexpr uint64_t kDefaultMaxMemory = 2ull << 30;  // 2 GiB
  // Told how far a run is (cycles done, of how many), every 1024 cycles of the worklist's
  // sweep: a command's progress line. Never changes a result.
  std::function<void(size_t done, size_t cycles)> progress;
  // rml-check's replays: an unknown (⊥) cell given for an imported call's output is a
  // value to choose (Inputs): an imported function's output for arguments it is given an
  // output for elsewhere in the run, else zero, as an imported node's.
  bool free_imported = false;
  // --int-overflow error: an int operation (`+ - *`, unary `-`, `abs`, `div`, and `floor`
  // or `int` of a real) whose exact result leaves the 64-bit range is ‖ (rule `overflow`)
  // instead of wrapping (or saturating). A machine integer's arithmetic still wraps (its
  // meaning), and so does what a `fun` or a builtin computes inside (semantics.md §4.3).
  bool int_overflow_error = false;
};

enum class Solver { Kleene, Worklist };

// Input prefixes, by input name; every stream has exactly `cycles` cells. The outputs of
// imported calls (an Apply of core::ApplyOp::Imported, by its elaborated output variable)
// may be given too: where the call computes a value (its clock ticks, its operands are
// present), the run takes the given one, which must then be a value. An imported
// function's outputs must be equal wherever its arguments are (semantics.md §2.7).
struct Inputs {
  size_t cycles = 0;
  std::map<std::string, std::vector<Cell>> streams;
};

struct ErrorOrigin {  // where an error (‖) was produced, not merely propagated
  std::string var;
  size_t cycle;
  std::string rule;     // "when", "merge", "fby", "post", "op", "const", "clock", "overflow", ...
  std::string message;
  Span span;
};
// The order in which a run reports its origins: by cycle, then by variable.
inline bool origin_before(const ErrorOrigin &a, const ErrorOrigin &b) { return a.cycle != b.cycle ? a.cycle < b.cycle : a.var < b.var; }

struct Result {
  size_t cycles = 0;
  std::vector<std::string> vars;            // inputs, outputs, then the other variables
  std::vector<ErrorOrigin> errors;
  uint64_t evaluations = 0;                 // rule applications (cells computed)
  uint64_t rounds = 0;                      // Kleene: iterations until the fixpoint
  uint64_t store_bytes = 0;                 // memory of the stream store and solver bookkeeping
  std::vector<std::string> input_clock_violations;  // inputs whose presence disagrees with their clock

  // The streams stay columnar (a tag byte and a flat payload per variable); cells are
  // materialised on demand.
  bool has(const std::string &var) const;
  Cell at(const std::string &var, size_t n) const;
  Tag tag(const std::string &var, size_t n) const;  // at(var, n).tag without copying the value
  std::vector<Cell> stream(const std::string &var) const;
  bool any_error() const;  // some cell of some variable is ‖

  struct Data;
  std::shared_ptr<const Data> data;
};

struct OracleError : std::runtime_error {  // bad inputs or an internal invariant broken
  using std::runtime_error::runtime_error;
};

// A run needed the output of an imported node or function (core::ApplyOp::Imported),
// which has no body to compute, and its inputs did not give it (Inputs::streams), or gave
// an imported function two outputs for equal arguments. rml run refuses a trace without
// the imported outputs (run.imported); rml-check's replays give the ones its model found.
struct ImportedError : OracleError {
  ImportedError(const std::string &fn, Span where, const std::string &why = "")
      : OracleError("'" + fn + "' is imported: " + (why.empty() ? "the oracle cannot compute it (it has no body)" : why)),
        name(fn), span(where), reason(why) {}
  std::string name;
  Span span;
  std::string reason;  // empty: no value was given
};

// A run would need more memory than Options::max_memory. The message says how much, for
// how many cycles, and the largest variable; callers add how to raise the cap.
struct MemoryLimitError : OracleError {
  MemoryLimitError(const std::string &what, size_t run_cycles, uint64_t needed_bytes, uint64_t limit_bytes)
      : OracleError(what), cycles(run_cycles), needed(needed_bytes), limit(limit_bytes) {}
  size_t cycles;
  uint64_t needed, limit;
};

class Oracle {
 public:
  Oracle(const CheckedProgram &cp, const core::Program &prog, Options opts = {});
  // With the node's clocks, inferred once by the caller (driver::Session, the checker).
  Oracle(const CheckedProgram &cp, const core::Program &prog, const core::Clocks &clocks, Options opts = {});
  ~Oracle();
  Result run(const Inputs &in, Solver solver = Solver::Worklist);
  const core::Clocks &clocks() const;

  // Bytes a run of `cycles` cycles needs (an estimate from the variables' types, saturating
  // at UINT64_MAX): the stream store (a tag byte and 8 bytes per element of every cell),
  // the solver's bookkeeping (Kleene keeps a second store) and the input cells the caller
  // holds (Inputs). The constructor throws MemoryLimitError when one cycle exceeds the
  // cap, run() when its cycles do; callers add their own needs (printing) and may check
  // before building the inputs.
  uint64_t memory_needed(size_t cycles, Solver solver = Solver::Worklist) const;
  // Elements of one cell of a variable (1 for scalars); 0 when there is no such variable.
  uint64_t cell_elements(const std::string &var) const;
  // Throws MemoryLimitError when `needed` exceeds `limit`, saying why.
  void check_memory(size_t cycles, uint64_t needed, uint64_t limit) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace rml::oracle
