// The stream back end's window for a node rml-check proved with horizon H, set up for its
// run (stream_run.cpp): H + 1 frames wait for the future and H more before one
// leaves (the lag that keeps a late ‖ from reaching an emitted frame); funs run on the
// compiled path, each executable on its operands in place.
#pragma once
#include <cstdint>
#include <string>

#include "sema/typecheck.hpp"
#include "stream/plan.hpp"
#include "stream/runner.hpp"

namespace rml::api {

struct StreamWindow {
  stream::Options options;
  size_t frames = 0;      // the most held: options.max_window, and the largest lag of a retimed cell
  long double bytes = 0;  // about what those frames take
};

// Tensor blocks are kept on the heap when any slot holds a tensor (a process-wide switch
// of the runtime's allocator).
StreamWindow stream_window(const stream::Plan &plan, int64_t horizon, const CheckedProgram &checked);

// `rml: error[run.memory]: ...` when the window needs more than `max_memory` bytes, else
// empty: checked before the runner allocates a frame.
std::string window_memory_error(const StreamWindow &w, uint64_t max_memory);

}  // namespace rml::api
