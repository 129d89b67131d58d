// The stream runner on the window runtime (rml_window.hpp, the one rml compile's window
// classes run): the node's tables (window_tables.hpp) run in process, the cells given out
// as FrameViews, the runtime's statuses and error origins said as runner.hpp says them.
// What stream::Runner runs for a node whose every slot is a scalar and whose applications
// are the runtime's operators; a retimed node takes the fast sweep, each cell computed once.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "stream/runner.hpp"
#include "stream/window_tables.hpp"

namespace rml::stream {

class WindowRunner {
 public:
  // Null when the node has a tensor slot or an application the runtime's operators do not
  // compute (a fun, a builtin, indexing): the runner's own rules run it.
  static std::unique_ptr<WindowRunner> make(const Plan &plan, const Options &opts, Runner::Emit emit);

  void push(const std::vector<oracle::Cell> &inputs);
  void finish();
  size_t cycles() const { return run_->back(); }
  size_t max_window() const { return widest_; }
  uint64_t evaluations() const { return run_->evaluations(); }
  const std::vector<oracle::ErrorOrigin> &errors() const { return origins_; }
  std::vector<std::string> input_clock_violations() const;
  bool retimed() const { return finished_ ? retimed_ : run_->fast(); }  // every push took the fast sweep

  WindowRunner(const Plan &plan, const Options &opts, Runner::Emit emit, WindowTables tables);

 private:
  void status(window::Status s);  // throws what the runner throws
  void collect_origins();
  void leave();                   // the front frame: checked, emitted, dropped
  FrameView view(size_t n);

  const Plan &plan_;
  Options opts_;
  Runner::Emit emit_;
  WindowTables tables_;
  window::Node node_;
  std::unique_ptr<window::Runner> run_;
  size_t widest_ = 0, origins_read_ = 0;
  bool finished_ = false, retimed_ = false;  // (finish() hands the last cycles to the worklist)
  std::vector<oracle::ErrorOrigin> origins_;
  std::vector<std::string> clock_violations_;  // per input, its first violation or ""
  std::vector<window::Tag> tags_;
  std::vector<const void *> values_;
  std::vector<int64_t> words_;  // the inputs' int and bool words
  std::vector<int> block_of_;   // per slot -1: no tensor blocks
};

}  // namespace rml::stream
