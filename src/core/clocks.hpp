// Clock inference on an elaborated program (semantics/semantics.md §2; Lustre's clock
// calculus solved by unification). It gives every variable a clock term, which the oracle
// needs for constants, `pre` and `post` (their presence comes from their clock, not from
// data), and reports clock clashes. After a clash the first unification wins.
#pragma once
#include <string>
#include <unordered_map>
#include <vector>

#include "core/normalize.hpp"

namespace rml::core {

struct ClockTerm {
  enum Kind : uint8_t { Base, Never, On } kind = Base;
  int parent = -1;        // On: the clock being sampled
  bool positive = true;   // On: `on c` or `on not c`
  std::string cond;       // On: the condition variable
};

struct ClockClash {
  Span span;
  std::string message;  // "this expression has clock A, but is expected to have clock B"
};

struct Clocks {
  std::vector<ClockTerm> terms;                 // [0] = base, [1] = never; parents come first
  std::unordered_map<std::string, int> of_var;  // every variable's clock
  std::vector<ClockClash> clashes;
  std::string str(int term) const;              // "base on c on not d"
  int of(const std::string &var) const { return of_var.at(var); }
};

Clocks infer_clocks(const Program &p);

}  // namespace rml::core
