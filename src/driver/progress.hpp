// A progress line on standard error for commands that can run long (rml gen, rml diff,
// rml run, rml-check): on a terminal one line rewritten in place (at most ten times a
// second), otherwise a line every ten seconds, so that a CI log shows the command is
// alive without drowning. Nothing in the first second: a short run prints nothing.
// --quiet turns it off; RML_PROGRESS_EVERY=SECONDS sets the period of the plain lines
// (0: every update, which is how the tests see them).
#pragma once

#include <chrono>
#include <ostream>
#include <string>

namespace rml {

class Progress {
 public:
  // `what` starts every line ("rml diff"); `err` must be the stream the command's errors
  // go to (a line in place needs it to be the terminal's standard error).
  Progress(std::ostream &err, std::string what, bool enabled);
  ~Progress();  // done(), if not said yet
  Progress(const Progress &) = delete;
  Progress &operator=(const Progress &) = delete;

  // The state now ("12/100 programs, 0 failures"); printed if the period has passed.
  void update(const std::string &state);
  // A part of the run ended: a line in place is cleared (the command's own output
  // follows); later updates start a new line.
  void done();
  double seconds() const;  // since the start

 private:
  std::ostream &err_;
  std::string what_;
  bool enabled_, in_place_ = false;
  bool printed_ = false;  // a line was printed (the period counts from the last one)
  bool shown_ = false;    // a line in place is on the terminal now
  double period_ = 10, quiet_start_ = 1;
  std::chrono::steady_clock::time_point start_, last_;
};

}  // namespace rml
