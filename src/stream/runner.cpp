// The stream runner (runner.hpp): the API over the window runtime (window_runner.hpp), and
// what the frames it gives out read.
#include "stream/runner.hpp"

#include <malloc.h>

#include "stream/rml_window.hpp"
#include "stream/window_runner.hpp"

namespace rml::stream {

using oracle::Cell;
using oracle::Tag;

void keep_tensor_blocks_in_heap() {
  mallopt(M_MMAP_THRESHOLD, 32 << 20);  // glibc's largest on 64 bits
  mallopt(M_TRIM_THRESHOLD, 64 << 20);  // give the heap's top back only past 64 MiB free
}

Tag FrameView::tag(int slot) const { return static_cast<Tag>(tags_[slot]); }

// A scalar's words or a tensor's block, in the runtime's front frame.
Cell FrameView::cell(int slot) const {
  const Slot &s = plan_->slots.at(static_cast<size_t>(slot));
  if (readable_ && !readable_[slot])
    throw StreamError("the emit callback read '" + s.name + "' (slot " + std::to_string(slot) +
                      "), which Options::read_slots does not name: its value may have been overwritten in place");
  return cell_unchecked(slot);
}

Cell FrameView::cell_unchecked(int slot) const {
  const Slot &s = plan_->slots.at(static_cast<size_t>(slot));
  Cell c;
  c.tag = tag(slot);
  if (c.tag != Tag::Val) return c;
  const void *p = window_->value(slot);
  c.value.elem = s.elem, c.value.shape = s.shape;
  if (s.elem == Scalar::Real) c.value.r.assign(static_cast<const double *>(p), static_cast<const double *>(p) + s.numel);
  else c.value.i.assign(static_cast<const int64_t *>(p), static_cast<const int64_t *>(p) + s.numel);
  return c;
}

Runner::Runner(const CheckedProgram &cp, const Plan &plan, Options opts, Emit emit)
    : window_(WindowRunner::make(cp, plan, opts, std::move(emit))) {}
Runner::~Runner() = default;
void Runner::push(const std::vector<Cell> &inputs) { window_->push(inputs); }
void Runner::finish() { window_->finish(); }
size_t Runner::cycles() const { return window_->cycles(); }
size_t Runner::max_window() const { return window_->max_window(); }
uint64_t Runner::evaluations() const { return window_->evaluations(); }
uint64_t Runner::reused() const { return window_->reused(); }
bool Runner::dead_left() const { return window_->dead_left(); }
const std::vector<oracle::ErrorOrigin> &Runner::errors() const { return window_->errors(); }
const char *Runner::engine() const { return window_->retimed() ? "window runtime (retimed)" : "window runtime"; }
std::vector<std::string> Runner::input_clock_violations() const { return window_->input_clock_violations(); }

}  // namespace rml::stream
