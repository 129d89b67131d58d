// Shrinking a failing case (a program and its trace) to a small one that still fails:
// greedy, each step one edit that keeps the failure —
//   - the trace cut to a prefix (halves first, then a cycle at a time);
//   - a node other than the main one removed;
//   - a property or assumption (`check`, `assume`, `assert`) removed;
//   - an equation of a local removed (with its declaration), when nothing reads it;
//   - an expression replaced by one of its operands, or by a literal (0, 0.0, false).
// The caller's predicate decides "still fails": it re-checks the candidate (rml-check
// must accept it, so the counterexample has one meaning) and re-runs both sides.
#pragma once
#include <chrono>
#include <functional>
#include <string>
#include <vector>

#include "syntax/ast.hpp"

namespace rml::diff {

struct Case {
  std::string program;  // the source text as the back end reads it
  std::string trace;    // CSV
};

// The candidate count bounds shrinking the same way on any machine; a wall-clock limit,
// when asked, makes the result depend on the machine's speed and load.
struct ShrinkLimits {
  int max_candidates = 2000;  // predicate calls
  double seconds = 0;         // wall time; 0: none
};

struct ShrinkStats {
  int tried = 0, kept = 0;
  bool stopped_at_limit = false;
};

// `parse` reads a program text into rml's AST (false when it cannot); `print` writes a
// candidate in the back end's dialect (false when it cannot); `fails` is the predicate.
struct ShrinkHooks {
  std::function<bool(const std::string &text, Program &out)> parse;
  std::function<bool(const Program &p, std::string &text)> print;
  std::function<bool(const Case &c)> fails;
  std::string main;  // never removed
};

Case shrink(Case c, const ShrinkHooks &h, const ShrinkLimits &lim, ShrinkStats &st);

// Every case one edit away from c, in the order shrink() tries the edits (trace prefixes,
// nodes, assumptions, equations, expressions), each printed with h.print; c itself and
// repeats left out. Nothing is checked: the caller keeps those rml-check accepts (the
// structural shrinks of a RapidCheck generator: include/rml/rapidcheck.hpp).
std::vector<Case> candidates(const Case &c, const ShrinkHooks &h);

// The number of equations of a program text's nodes (for the report), -1 if it does not parse.
int count_equations(const ShrinkHooks &h, const std::string &text);
int count_cycles(const std::string &trace);

}  // namespace rml::diff
