// Retiming a node with `post`: each step gets a lag L, so that pushing cycle t computes the
// cell of step k at cycle t - L_k once, after every cell its rule reads (semantics.md §3-§4,
// the window runtime's rules), with no worklist. What the window class's fast sweep runs
// (rml_window.hpp, Runner::push while `fast`; src/codegen/README.md).
//
// A rule reads an operand at the same cycle (offset 0), at the previous tick (fby, pre,
// ->: offset -1 on the base clock, further back on a slower one), or at the next tick
// (post). A read at offset d of the producer j by the reader k is final when
// L_k >= L_j + d, and when L_k == L_j + d the producer comes first within the push (the
// slack-0 edges must be acyclic). The fast sweep runs while the base clock ticks (it
// leaves for the worklist on a cycle where it does not), so a `post` on the base clock
// reads the next cycle. A `post` on a sampled clock reads the next tick of that clock,
// which rml-check's horizon H bounds (a cell is known once H more cycles are in): it is
// read as if at offset H, and where the next tick is further (inputs the node's
// assumptions exclude) the rule leaves the cell unknown and the sweep hands over to the
// worklist, so H only decides how fast, never what. Lags are the least solution (longest
// paths; a cycle of positive weight, a backward recurrence such as Figure 16's backfill,
// has none: no retiming).
//
// Some reads only look at an operand's presence, to turn the result into an error when
// the clocks disagree (fby and pre look at their operand at the cycle; a `when` whose
// condition is a constant selecting the other side, and a `merge` whose condition is a
// constant, at the branch not taken). Ordering those would close the cycles every
// accumulator (`o = 0 fby o + d`) and Figure 3's `merge true d ((post s) when false)` have;
// instead they are checks: the reader is computed with the operand still unknown (which
// gives what the expected presence gives), and once the operand is known a check re-runs
// the reader through the worklist if the operand is not as expected.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "stream/plan.hpp"

namespace rml::stream {

struct Retiming {
  // What a check expects of the operand's cell at the cycle (else the reader is re-run):
  // SameClock: present exactly where the reader is (or the reader is an error);
  // Present: present; Absent: absent.
  enum class Expect : uint8_t { SameClock, Present, Absent };
  struct Check {
    int reader;  // a step computed before the operand's within a push
    Expect expect;
  };
  std::vector<int> lag;                     // per step
  std::vector<int> order;                   // the steps in the order a push computes them
  std::vector<std::vector<Check>> checks;   // per step: what to check once its cell is known
  int max_lag = 0;
};

// The retiming of a node with post, or nullopt with the reason in *why (a post off the
// base clock without a horizon, a cycle of positive weight, a same-cycle cycle).
// `horizon`: how many cycles ahead a post on a sampled clock looks for its next tick
// (rml-check's horizon; 0: such a post is refused).
std::optional<Retiming> retime(const Plan &p, std::string *why = nullptr, int horizon = 0);

// The look-ahead a runner with lag (rml-check's horizon) `lag` gives retime(): the lag, or 0
// past 4096 cycles (its sampled posts' cells would wait so long that the worklist is as good).
inline int post_lookahead(int64_t lag) { return lag >= 0 && lag <= 4096 ? static_cast<int>(lag) : 0; }

}  // namespace rml::stream
