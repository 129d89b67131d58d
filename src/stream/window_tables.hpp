// The node as the tables of the window runtime (rml_window.hpp), built once from the plan
// and its retiming: what `rml compile` prints into a window class, and what the stream
// backend runs in process. One builder, so that both run the same tables.
//
// The layout of a frame: a scalar's value is its words at `offset` in the frame's reals
// (reals) or ints (ints, bools as 0/1, clocks); a tensor's cell (more than one element, or
// a shape) is a handle to a shared block, one int word.
#pragma once
#include <functional>
#include <optional>
#include <vector>

#include "stream/plan.hpp"
#include "stream/retime.hpp"
#include "stream/rml_window.hpp"

namespace rml::stream {

struct WindowTables {
  std::vector<window::E> elem;      // per slot
  std::vector<uint8_t> is_clock;    // per slot
  std::vector<int> numel;           // per slot
  std::vector<uint8_t> shared;      // per slot: its cells are block handles (a tensor)
  std::vector<int> offset;          // per slot: in the frame's reals or ints
  int real_words = 0, int_words = 0;
  std::vector<window::Step> steps;  // a K::Fun step's fn is the caller's to set
  std::vector<std::vector<int>> fun_args;  // per step: a K::Fun step's operand slots
  std::vector<int> reader_begin;    // per slot, slots + 1 entries into `readers`
  std::vector<window::Reader> readers;
  std::vector<int> order, comp;     // the schedule flattened; per step its component's rank
  std::vector<int> inputs, input_clocks;
  std::optional<Retiming> retiming;  // retimed: the fast sweep's tables below
  std::vector<int> check_begin;     // per step, steps + 1 entries into `checks`
  std::vector<window::Check> checks;
  // Per slot: whether the host reads its cells (Node::observed), set by the caller; empty:
  // every slot (no result is ever written over an operand's block).
  std::vector<uint8_t> observed;

  // The runtime's view of the tables (pointers into this object: keep it alive and
  // unmoved while a Runner uses it). Node::sweep is null: the tables' sweep.
  window::Node node() const;
};

// Whether the window runtime (and rml compile's step class) computes the application eq by
// a function, K::Fun (rather than a scalar operator of the runtime, or sharing a tensor
// `if`'s chosen operand): calls, indexing, array literals, and any operator on tensors.
// `is_tensor(v)`: whether variable v holds a tensor (a shape).
bool applied_by_function(const core::Equation &eq, const std::function<bool(const std::string &)> &is_tensor);

// `by_function(eq)`: whether an application is computed by a function (K::Fun: tensors,
// funs, builtins) rather than by the runtime's scalar operators. `retime_it`: whether to
// retime a node with post (stream/retime.hpp; *why says why not; `horizon`, the runner's
// lag, bounds how far a post on a sampled clock looks ahead).
WindowTables window_tables(const Plan &plan, const std::function<bool(const core::Equation &)> &by_function, bool retime_it,
                           std::string *why = nullptr, int horizon = 0);

}  // namespace rml::stream
