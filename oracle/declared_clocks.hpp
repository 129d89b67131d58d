// Lustre's meaning of a declaration `x: t when c` (semantics.md §9.1): x is present
// exactly where its instance runs and c is true. The oracle computes streams from the
// equations alone, so a program can run without ‖ and still break what it declares (a
// main output declared on the base clock that is absent at some cycles, or an instance's
// input given on another clock than its declaration says). This finds such cells in a
// run; rml run reports them (clock.declared, exit 1) and rml-check's clocks property
// replays its counterexamples with it.
#pragma once
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"

namespace rml::oracle {

struct DeclaredClockViolation {
  std::string var;   // the elaborated variable
  size_t cycle = 0;  // its first cycle where presence and declaration disagree
  bool present = false;
  std::string message;  // "'x' is absent at cycle 0, where its declared clock ... ticks"
  Span span;            // the declaration
};

// The first violation of every declaration, in declaration order. `x: t when c1 .. when
// cm` (Lustre: on clock(c1) on c1 .. on cm) is present exactly where every ck is present
// with its value; `x: t` exactly where its instance's base clock ticks: the presence of
// the instance's first variable declared without `when` (the main node's: the cycles
// where some input is present, or every cycle). Not checked: the main node's inputs
// (their clocks are the environment's assumption, input.clock) and a Heptagon
// declaration without a clock (DeclaredClock::inferred). Cycles where a cell involved is
// ⊥ or ‖ are skipped (‖ is reported as an error value already).
// `label` spells a variable in the messages (rml run prints the names of rml parse
// --normalized).
std::vector<DeclaredClockViolation> declared_clock_violations(
    const core::Program &prog, const Result &res,
    const std::function<std::string(const std::string &)> &label = [](const std::string &v) { return v; });

// The same, cycle by cycle, for a run that does not keep its streams (the stream back end
// watches its frames as they leave): declared_clock_violations is this watch run over a
// Result's cycles. observe() reads the cells of vars() at one cycle, in order of cycles;
// tag(k) the tag of vars()[k], truth(k) whether that cell (a bool value) is true.
class DeclaredClockWatch {
 public:
  DeclaredClockWatch(const core::Program &prog, std::function<std::string(const std::string &)> label,
                     const std::function<bool(const std::string &)> &has);
  const std::vector<std::string> &vars() const { return vars_; }
  bool empty() const { return checks_.empty(); }
  template <class TagOf, class TruthOf>
  void observe(size_t n, const TagOf &tag, const TruthOf &truth);
  std::vector<DeclaredClockViolation> violations() const;  // the first of each declaration, in declaration order

 private:
  struct Check {
    const core::DeclaredClock *d;
    int x = -1, rep = -1;  // vars_ indices: the variable, its instance's base representative (-1: the main node's)
    std::vector<std::pair<bool, int>> on;  // (positive, condition)
    std::string clock;  // as the message spells it
    bool found = false;
    DeclaredClockViolation v;
  };
  int index(const std::string &var);
  void found(Check &c, size_t n, bool present);
  std::vector<std::string> vars_;
  std::unordered_map<std::string, int> index_;
  std::vector<int> inputs_;  // the main node's inputs (vars_ indices): its base clock ticks where one is present
  bool no_inputs_ = false;
  std::vector<Check> checks_;
};

template <class TagOf, class TruthOf>
void DeclaredClockWatch::observe(size_t n, const TagOf &tag, const TruthOf &truth) {
  auto present = [](Tag t) { return t == Tag::Val || t == Tag::Nil; };
  auto unsettled = [](Tag t) { return t == Tag::Bot || t == Tag::Err; };
  int main_base = -1;  // the main node's base clock at n: 1 ticks, 0 not, -1 not computed yet, 2 unknown
  for (Check &c : checks_) {
    if (c.found) continue;
    const Tag xt = tag(c.x);
    if (unsettled(xt)) continue;
    bool ticks = true, known = true;
    if (c.d->on.empty() && c.rep < 0) {
      if (main_base < 0) {
        bool any = no_inputs_, settled = true;
        for (int k : inputs_) {
          const Tag t = tag(k);
          settled &= !unsettled(t);
          any |= present(t);
        }
        main_base = !settled ? 2 : any ? 1 : 0;
      }
      known = main_base != 2;
      ticks = main_base == 1;
    } else if (c.d->on.empty()) {
      const Tag bt = tag(c.rep);
      known = !unsettled(bt);
      ticks = present(bt);
    }
    for (auto &[positive, k] : c.on) {
      if (!ticks) break;
      const Tag ct = tag(k);
      if (unsettled(ct) || ct == Tag::Nil) {
        known = false;
        break;
      }
      if (ct == Tag::Abs) {
        ticks = false;
        break;
      }
      ticks = truth(k) == positive;
    }
    if (known && ticks != present(xt)) found(c, n, present(xt));
  }
}

}  // namespace rml::oracle
