// The tagless sweep of a retimed window class (rml compile): while every input is present,
// a push computes each cell once at its lag (stream/retime.hpp), as the tagged sweep does,
// but stores its value only — no tag, no count of unknown cells, no check, and frames
// leave without a tag read. Why that is exact (src/codegen/README.md, "Tagless sweep"):
//   - a cell of step k at cycle c is known exactly when the push of cycle c + L_k is done
//     (the tagged sweep computes it then, and with the base clock ticking nothing stays
//     unknown), so a frame is final and ready by arithmetic on the cycle numbers;
//   - in a program without clock clashes whose inputs are on their clocks, a cell that is
//     no error is present exactly where its variable's clock is true (Plan::clock_of, the
//     law ClocksDecidePresence), and such a program, without `pre` (whose first value is
//     nil) and with inputs on the base clock and present, makes no error: so presence is
//     the clock's word, and every check of the tagged sweep holds;
//   - the operators are total (ops/scalar_ops.hpp), so an instant cell is computed whether
//     present or not (an absent cell's word is never read as a value: a present cell reads
//     present operands); state (fby, ->) follows its ticks through a register per step, the
//     last tick's cycle, and the memory leave() would keep;
//   - where it cannot go on (an input absent, a post on a sampled clock whose next tick is
//     beyond its lag) the class writes every held frame's tags from the clocks and the lags,
//     which is the state the tagged sweep would have left, and pushes the cycle again through
//     it; finish() does the same before the worklist completes the held cells.
#pragma once
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "core/clocks.hpp"
#include "stream/plan.hpp"
#include "stream/retime.hpp"

namespace rml::codegen {

// Why a retimed window class of this node gets no tagless sweep, or "" when it gets one.
// `by_function(eq)`: the application is computed by a function (a tensor, a fun).
std::string tagless_refusal(const stream::Plan &plan, const stream::Retiming &rt, const core::Clocks &clocks,
                            const std::function<bool(const core::Equation &)> &by_function);

struct TaglessClass {
  std::string cls;                                 // the class's name
  std::vector<std::string> inputs;                 // the Inputs members, in the plan's input order
  std::vector<std::pair<std::string, int>> outputs;  // the Outputs members and their slots
  std::vector<size_t> offset;                      // per slot: its word in the frame's reals or ints
};

// The private members the class declares for its tagless sweep (the registers of the state
// steps and the mode), and their definitions: rml_tagless_push(in, status) (false: the
// cycle was not pushed, the tags are written) and rml_tagless_pop(out), inline in the
// class's header after the class (push() and pop() call them there, so that a caller's loop
// runs them without a call; they use the class's rml_cell_into()), and rml_to_tags(), in
// its source.
struct TaglessCode {
  std::string inline_functions, source_functions;
};
std::string tagless_members(const stream::Plan &plan);
TaglessCode tagless_functions(const stream::Plan &plan, const stream::Retiming &rt, const TaglessClass &c);

// The value of a scalar application step on the window's words (reals as double, ints and
// bools as int64_t 0/1): what the runtime's scalar operators give (ops/scalar_ops.hpp).
std::string window_apply_expression(const stream::Plan &plan, const stream::Step &st, const std::vector<std::string> &operand);

}  // namespace rml::codegen
