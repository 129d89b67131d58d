// rml-check: clock correctness, causality and productivity of a main node (semantics.md
// §9-§11), each with a verdict that is sound: "valid" only with a proof, "falsified" only
// with evidence (a counterexample that the oracle replays, or a dependency cycle that
// holds unconditionally), and "unknown" otherwise.
#pragma once

#include <functional>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/typecheck.hpp"

namespace rml::check {

enum class Verdict { Valid, Falsified, Unknown };
const char *verdict_name(Verdict v);

struct Finding {  // a located explanation (file:line:col via the span)
  std::string rule;     // clock.clash, causality.cycle, productivity.*, ...
  std::string message;
  Span span;
};

struct Counterexample {
  oracle::Inputs inputs;            // replayable: `rml run --inputs` on the CSV below
  std::string csv;
  std::vector<std::string> show;    // variables that exhibit the failure
  std::string what;                 // e.g. "error value in 'x' at cycle 3"
  // A refutation of productivity by a lasso: the inputs of cycles [first, last] may repeat
  // forever (the trace holds them at least once more), and the failure stays.
  std::optional<std::pair<size_t, size_t>> loop;
  // The cell (variable, cycle) where the replay shows the failure, which the replay command
  // asks for so that it fails (exit 1) as the property does: `rml run --require-known`
  // (a cell that stays unknown, or an output that is nil) or `--require-true` (the value
  // of a user property). Clock counterexamples need none: an error value exits 1.
  struct Cell {
    std::string var;
    size_t cycle = 0;
    bool must_be_true = false;
  };
  std::optional<Cell> required;
};

struct PropertyResult {
  std::string kind;        // "clocks", "causality", "productivity", "initialisation", "overflow", "property" (a user property)
  std::string name;        // a user property: its condition as written
  Span span;               // a user property: where it is stated
  int index = -1;          // a user property: its place in core::Program::properties
  Verdict verdict = Verdict::Unknown;
  std::string method;      // how the verdict was reached
  std::vector<Finding> findings;
  std::optional<int64_t> horizon;   // productivity: ticks of lookahead needed (0: post-free)
  std::optional<Counterexample> cex;
  std::string smt;         // --explain: the obligations in SMT-LIB
  uint64_t resources = 0;  // Z3 resource units spent on this property (how to size --rlimit)
};

// Z3 resource units (rlimit) a check spends by default: on an idle 2-core x86-64 machine,
// about what Z3 does in 20 s on the corpus's hardest nodes (README, "Budgets").
inline constexpr uint64_t kDefaultRlimit = 20'000'000;

struct Options {
  // The budget of the whole check of one main node, which every solver call shares:
  // wall-clock seconds and Z3's resource count, each 0 for no limit of that kind. The
  // resource count is deterministic: under it alone the same node gets the same verdicts
  // on any machine at any load (checker/budget.hpp); a wall-clock budget does not.
  double timeout_s = 0;
  uint64_t rlimit = kDefaultRlimit;
  int max_depth = 12;      // BMC depth and k-induction bound
  int max_horizon = 32;    // largest horizon searched
  bool explain = false;
  // Tests only, unsound: reals as exact rationals in the solver, no interval analysis and
  // no oracle runs before it (they compute in binary64). The negative control of the
  // soundness laws of real-valued properties, which must catch it.
  bool exact_reals = false;
  // Ints: first over mathematical integers, with "no operation wraps" proved alongside
  // (TransitionSystem::lia_ints), then, if that does not decide, as 64-bit vectors.
  // Off: 64-bit vectors only.
  bool lia_ints = true;
  // Tests only, unsound: the integer encoding without its wrap-around conditions, so an
  // int that overflows in the oracle is an unbounded integer in the proof. The negative
  // control of the integer soundness laws, which must catch it.
  bool ignore_wraps = false;
  // The integer encoding does not count a wrap at a cycle where a latch of the property is
  // down (Checker::wrap_latches). Off: every wrap that matters is counted (tests compare).
  bool wrap_latches = true;
  // Houdini is also offered the affine relations among int memories that oracle runs
  // keep (checker/affine_relations.hpp: counters that sum to a constant). Off: ranges and
  // flags only (tests compare).
  bool affine_relations = true;
  // Houdini is also offered a zone domain's bounds: each int memory's range out to the
  // program's nearest constants, and bounds on the difference of two int memories
  // (Checker::difference_candidates). Off: the runs' ranges only (tests compare).
  bool zone_bounds = true;
  // Tests only, unsound: a latch needs only "down makes the property true", not "stays
  // down". The negative control of the latch tests, which must catch it.
  bool unsound_latches = false;
  // Tests only: user properties go straight to the solvers (no oracle runs or interval
  // analysis first), so that a test reaches the engine it is about.
  bool solver_only = false;
  // What a back end asks before it runs a node (driver/acceptance.hpp): clocks, causality
  // and productivity, then initialisation only when those three are valid; no user
  // property. The verdicts given (vacuous assumptions included) are the ones a full check
  // gives, their budget shares aside: with no user property, clocks and initialisation
  // get more of it, so one may be decided where the full check says unknown.
  bool acceptance = false;
  // User properties in Kind 2's and JKind's reading of `pre` (rml-check --pre-any): its
  // first value is any value of its type. A property holds when, for every such value, it
  // is true wherever present; a nil cell is no failure in itself. Sound because nil is
  // strict (semantics.md §4.3): a cell the oracle computes as a value reads no nil, so it
  // is that value for every choice, and a replay where the property is false (not nil)
  // falsifies it in this reading too; the solvers see values only (the encoding gives a
  // pre's first value a free value of its type), on bit-vectors (over the integers a wrap
  // of a nil value is not counted, as nothing reads it in rml's reading).
  bool pre_any = false;
  // rml-check --int-overflow error: an int operation whose exact result leaves the 64-bit
  // range is an error value (‖, rule `overflow`; oracle::Options::int_overflow_error)
  // instead of wrapping. The report then holds the property "overflow": no operation
  // overflows at any cycle, so that every int the program computes is the mathematical
  // one (Kind 2's unbounded reading, on inputs in range). User properties are replayed in
  // that reading: a counterexample that needs a wrap is not one.
  bool int_overflow_error = false;
  // 2: a property that reaches the solvers in a program whose ints can be mathematical
  // integers also runs IC3/PDR from the start on a thread of its own (a second core), with
  // a Checker and a budget of its own: what the property had left when it started, counted
  // on a meter of its own (portfolio.cpp). The first lane is unchanged; when it ends
  // unknown, the second lane's proof is the verdict. Under a resource budget the report
  // is then as deterministic as with one lane.
  int lanes = 1;
  // Told, when the check of each property starts, what it is ("initialisation", "property
  // 2 of 5: 'y >= 0'"): a command's progress line. Never changes a verdict.
  std::function<void(const std::string &)> starting;
};

struct Report {
  std::string main;
  std::vector<PropertyResult> properties;
  // 0 all valid, 1 some property falsified, 3 otherwise (unknown).
  int exit_code() const;
};

Report check_program(const CheckedProgram &cp, const core::Program &prog, const Options &opts);
// With the node's clocks, inferred once by the caller (driver::Session): the checker and
// the oracles it runs for replays and invariants use them.
Report check_program(const CheckedProgram &cp, const core::Program &prog, const core::Clocks &clocks, const Options &opts);

}  // namespace rml::check
