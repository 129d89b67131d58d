// The stream runner on the window runtime (rml_window.hpp, the one rml compile's window
// classes run): the node's tables (window_tables.hpp) run in process, the cells given out
// as FrameViews, the runtime's statuses and error origins said as runner.hpp says them.
// What stream::Runner runs; a retimed node takes the fast sweep, each cell computed once.
//
// The applications the runtime's operators do not compute (K::Fun: funs, builtins,
// indexing, array literals, operators on tensors) are computed here, on the operands'
// words where the runtime holds them: a fun with an executable (Options::fun_executable)
// runs on them as they are; indexing, array literals, `tr`, `reshape` and elementwise
// operators write the result's words by the evaluator's functions on words (nothing
// allocated once warm); anything else through the reference evaluator
// (apply_application) on the operands loaded into tensors whose storage is kept.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "array/eval.hpp"
#include "stream/runner.hpp"
#include "stream/window_tables.hpp"

namespace rml::stream {

// An application on its operands' values through the reference evaluator: its operators,
// builtins and funs (Options::apply_fun and fun_executable first).
array::Tensor apply_application(const CheckedProgram &cp, array::Evaluator &eval, const Options &opts, const core::Equation &eq,
                                const std::vector<array::Tensor> &args);

class WindowRunner {
 public:
  static std::unique_ptr<WindowRunner> make(const CheckedProgram &cp, const Plan &plan, const Options &opts, Runner::Emit emit);

  void push(const std::vector<oracle::Cell> &inputs);
  void finish();
  size_t cycles() const { return run_->back(); }
  size_t max_window() const { return widest_; }
  uint64_t evaluations() const { return run_->evaluations(); }
  uint64_t reused() const { return run_->reused(); }
  bool dead_left() const { return run_->dead_left(); }
  const std::vector<oracle::ErrorOrigin> &errors() const { return origins_; }
  std::vector<std::string> input_clock_violations() const;
  bool retimed() const { return finished_ ? retimed_ : run_->fast(); }  // every push took the fast sweep

  WindowRunner(const CheckedProgram &cp, const Plan &plan, const Options &opts, Runner::Emit emit, WindowTables tables);
  ~WindowRunner();

 private:
  struct Fun;  // a K::Fun step's context
  static void fun_entry(void *ctx, const void *const *args, void *out);
  void status(window::Status s);  // throws what runner.hpp says
  void collect_origins();
  void leave();                   // the front frame: checked, emitted, dropped
  FrameView view(size_t n);

  const CheckedProgram &cp_;
  const Plan &plan_;
  Options opts_;
  Runner::Emit emit_;
  array::Evaluator eval_;
  WindowTables tables_;
  std::vector<std::unique_ptr<Fun>> funs_;  // per step
  window::Node node_;
  std::unique_ptr<window::Runner> run_;
  size_t widest_ = 0, origins_read_ = 0;
  bool finished_ = false, retimed_ = false;  // (finish() hands the last cycles to the worklist)
  std::vector<oracle::ErrorOrigin> origins_;
  std::vector<std::string> clock_violations_;  // per input, its first violation or ""
  std::vector<window::Tag> tags_;
  std::vector<const void *> values_;
  std::vector<int64_t> words_;  // the inputs' scalar int and bool words
};

}  // namespace rml::stream
