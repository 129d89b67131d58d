// The stream back end on the main node's generated class, loaded in process
// (RunOptions::native, `rml run --native`; codegen/native_class.hpp). The class is the one
// `rml compile` writes, which the CompileEqualsOracle laws hold to the oracle's cells,
// generated with the streams the run reads as its outputs (the shown ones and the
// assumptions' conditions). It gives a run's rows as long as every cycle is Ok and holds no
// error value; at a cycle where not, the run stops here (NativeStop) with its rows so far
// exact, and stream_rows hands the trace to the window runtime from its start, which writes
// the rows from that cycle on with the diagnostics only it can give (error origins, inputs
// off their clocks).
#pragma once
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/stream_run.hpp"
#include "codegen/emit_abi.hpp"
#include "codegen/native_class.hpp"

namespace rml::api {

// Where the class stops: the generated code's rml::Status, or why not a status.
struct NativeStop {
  std::string why;
};

class NativeRows {
 public:
  // The class for this run, or null and `why` it cannot give the rows (said to the user).
  static std::unique_ptr<NativeRows> make(const Program::State &s, const StreamSetup &setup, const RunOptions &o, bool rereadable,
                                          std::string &why);
  using Row = std::function<void()>;  // a cycle is final: its cells are cell(slot) until it returns
  // One cycle's inputs; each cycle that becomes final goes to `row`, in order. Throws NativeStop.
  void push(const std::vector<oracle::Cell> &inputs, const Row &row);
  void finish(const Row &row);  // the trace ends: the cycles still held
  const oracle::Cell &cell(int slot) const { return cells_[static_cast<size_t>(port_of_slot_[static_cast<size_t>(slot)])]; }
  std::string engine() const;  // for the run's note

 private:
  NativeRows() = default;
  void drain(const Row &row);
  std::unique_ptr<codegen::NativeClass> cls_;
  std::string compiler_;
  int engine_ = 0;  // the class's engine bits before finish() (which ends its tagless run)
  std::vector<codegen::AbiPort> in_, out_;
  std::vector<int> port_of_slot_;  // a shown slot: its input k, or inputs + its output k
  bool keep_inputs_ = false;       // an input is shown: its cells wait for their cycle's row
  std::deque<std::vector<oracle::Cell>> held_;
  std::vector<codegen::AbiCell> abi_in_;
  std::vector<uint8_t> kinds_;
  std::vector<std::vector<double>> reals_;  // an output's words (reals) ..
  std::vector<std::vector<int64_t>> ints_;  // .. or (ints, bools)
  std::vector<void *> words_;
  std::vector<oracle::Cell> cells_;  // the row being given: inputs, then outputs
};

}  // namespace rml::api
