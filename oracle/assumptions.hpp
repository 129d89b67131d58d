// Whether an input trace keeps the main node's `assume` clauses (rml run, and rml-check
// for the counterexamples it gives): each assumption's condition is an elaborated
// variable, evaluated by the oracle like any other.
//   assume always c;                    c is true at every cycle where it is present
//   assume always eventually c within N; every window of N+1 cycles has a cycle where c is
//                                       present and true (only windows inside the prefix are
//                                       judged; without `within`, a finite prefix cannot break it)
#pragma once
#include <string>
#include <vector>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"

namespace rml {

struct BrokenAssumption {
  const core::CoreAssumption *assumption = nullptr;
  std::string text;       // the clause as written, "assume always eventually bp within 5"
  size_t first = 0;       // the first cycle that breaks it (always: c false there; eventually:
                          // the first window [first, first + N] without a true c)
  size_t count = 0;       // how many such cycles (or windows)
  std::string message;    // "'bp' is false at cycle 3 (and 2 other cycles)"
};

std::vector<BrokenAssumption> broken_assumptions(const core::Program &prog, const oracle::Result &res);

// The diagnostic rml run prints for one: warning[run.assume] at the assumption, or an
// error with --strict-assume.
std::string render_broken(const BrokenAssumption &b, bool strict);

// The same judgement cycle by cycle, for runs that do not keep the trace (rml run
// --backend stream): observe each cycle's cells of the assumptions' variables in order.
class AssumptionMonitor {
 public:
  explicit AssumptionMonitor(const core::Program &prog);
  // The cell of prog.assumptions[k]'s variable at the next cycle of assumption k.
  void observe(size_t k, const oracle::Cell &c);
  std::vector<BrokenAssumption> broken() const;
  bool any_broken() const;  // broken() is not empty (cheap: once a cycle)

 private:
  struct State {
    size_t cycles = 0;  // observed
    long last = -1;     // eventually: the latest cycle where the condition held
    BrokenAssumption b;
  };
  const core::Program &prog_;
  std::vector<State> state_;
};

}  // namespace rml
