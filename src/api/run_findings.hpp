// What a run says besides its cells, in `rml run`'s words and order (RunResult::diagnostics):
// one implementation for the oracle's run, the library's stream run and `rml run --backend
// stream`, which watches its rows as they leave instead of keeping them.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/clocks.hpp"
#include "oracle/assumptions.hpp"
#include "oracle/declared_clocks.hpp"
#include "oracle/oracle.hpp"
#include "rml/rml.hpp"
#include "syntax/diag.hpp"

namespace rml::api {

// A shown stream's cells, seen cycle by cycle in order: its first non-finite real, and its
// unknown cycles as ranges.
class CellWatch {
 public:
  void see(size_t cycle, const oracle::Cell &c);
  void close(size_t cycles);               // after the last cycle: closes an open range
  const std::string &non_finite() const { return non_finite_; }  // "nan at cycle 3 (element 1)", or empty
  const std::string &unknown() const { return unknown_; }        // "3-5, 8", or empty

 private:
  std::string non_finite_, unknown_;
  long unknown_from_ = -1;
};

struct RunFindings {
  std::vector<std::string> labels;  // the shown streams, as printed
  std::vector<CellWatch> cells;     // the same streams' cells
  std::vector<std::string> input_clock;    // inputs present off their clock, as the run words them
  std::vector<oracle::ErrorOrigin> errors;  // where error values arose
  std::function<std::string(const std::string &)> label;  // an elaborated variable as printed
  std::vector<oracle::DeclaredClockViolation> declared;
  std::vector<BrokenAssumption> broken;
};

// In order: input.clock, run.non-finite, the error values, clock.declared, run.unknown,
// run.assume (an error with strict_assume, else a warning).
std::vector<Diagnostic> diagnostics_of(const RunFindings &f, bool strict_assume);

// The clock clashes of the static calculus that rml-check accepted (under assumptions) or
// the oracle runs past: warning[clock.clash], each located, before a run's findings.
std::vector<Diagnostic> clash_warnings(const core::Clocks &clocks);

// A shown stream (or a required cell's) that is no stream of the node: error[run.show].
Diagnostic show_error(const std::string &file, const std::string &why);

// A diagnostic with the text rml prints for it, located at `span` when it is valid.
Diagnostic said_as(Diagnostic::Severity sev, const std::string &rule, const std::string &message, const std::string &rendered,
                   Span span = {});

}  // namespace rml::api
