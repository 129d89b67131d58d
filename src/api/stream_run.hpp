// The stream back end's run, one implementation for `api::run` with Backend::Stream (rows
// kept as a chronogram) and `api::run_streamed` (`rml run --backend stream`: rows written
// as they leave): the main node proved by rml-check, then computed cycle by cycle in the
// window its horizon gives. A post-free scalar node runs on the clock-directed machine
// (stream/machine.hpp), which equals the oracle on a trace inside the clocks; at a cycle
// outside them the machine stops, its rows before are exact, and the runner takes over
// from the trace's start, giving the rows from that cycle on. With RunOptions::native the
// node's generated class, loaded in process (native_run.hpp), takes the machine's place
// and hands over the same way. A trace that cannot be read twice goes to the runner.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "api/state.hpp"
#include "api/stream_window.hpp"
#include "oracle/oracle.hpp"
#include "rml/rml.hpp"
#include "stream/plan.hpp"

namespace rml::api {

// Everything decided before the first row: the shown streams, the proved horizon, the
// plan and its window (checked against the memory cap).
struct StreamSetup {
  std::vector<std::string> vars, labels;  // elaborated, and as printed
  std::function<std::string(const std::string &)> label;
  int64_t horizon = 0;
  stream::Plan plan;
  StreamWindow window;
};

// Refuses the oracle's own options and `cycles` on a node with inputs (run.option,
// run.cycles), an unknown shown stream (run.show), an imported call whose output `given`
// does not give (run.imported; every one when `given` is null: the trace is not read
// yet), a node rml-check does not accept (stream.unchecked), a plan it cannot build
// (stream.plan, exit 3) and a window over the memory cap (run.memory).
Result<StreamSetup> stream_setup(const Program::State &s, const RunOptions &o, const oracle::Inputs *given);

// The trace from its start: `push` once per cycle with the main node's inputs in order.
// Called once, or twice when the run is told the trace can be read again. Returns a
// Failure for a source that cannot be read; a bad row throws oracle::TraceError.
using PushCycle = std::function<void(const std::vector<oracle::Cell> &)>;
using Feed = std::function<std::optional<Failure>(const PushCycle &)>;

// A row as it leaves: its cells in the order of StreamSetup::vars.
using RowSink = std::function<void(size_t cycle, const std::vector<oracle::Cell> &)>;

struct StreamRows {
  size_t cycles = 0;
  std::vector<Diagnostic> diagnostics;  // the run's note (cycles, horizon, window), then its findings
  bool has_error_values = false, failed = false;
};

// The rows, in order, to `sink`; `o.progress` is told (0, total) as they start, every
// 1024 cycles read and (cycles, cycles) once all are given. A Failure when the trace cannot be read or the run stops half-way
// (the trace's row, the window, exactness, a fun, memory): `emitted` rows were given by
// then, and `incomplete(emitted)` is the failure's summary (empty: none).
Result<StreamRows> stream_rows(const Program::State &s, const StreamSetup &setup, const Feed &feed, bool rereadable,
                               size_t total, const RowSink &sink, const RunOptions &o,
                               const std::function<std::string(size_t emitted)> &incomplete);

}  // namespace rml::api
