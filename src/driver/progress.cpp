#include "driver/progress.hpp"

#include <cstdlib>
#include <iostream>
#include <unistd.h>

namespace rml {

Progress::Progress(std::ostream &err, std::string what, bool enabled)
    : err_(err), what_(std::move(what)), enabled_(enabled), start_(std::chrono::steady_clock::now()), last_(start_) {
  // Only on the process's standard error: a command writing its messages into a report
  // (rml-check --json collects them) gets no progress lines in it.
  enabled_ = enabled_ && &err_ == &std::cerr;
  if (!enabled_) return;
  in_place_ = ::isatty(STDERR_FILENO);
  if (in_place_) period_ = 0.1;
  if (const char *every = std::getenv("RML_PROGRESS_EVERY")) {
    char *end = nullptr;
    double v = std::strtod(every, &end);
    if (end != every && *end == '\0' && v >= 0) {
      period_ = v, quiet_start_ = 0, in_place_ = false;
    }
  }
}

Progress::~Progress() { done(); }

double Progress::seconds() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void Progress::update(const std::string &state) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  if (std::chrono::duration<double>(now - start_).count() < quiet_start_) return;
  if (printed_ && std::chrono::duration<double>(now - last_).count() < period_) return;
  last_ = now, shown_ = printed_ = true;
  if (in_place_) err_ << "\r" << what_ << ": " << state << "\x1b[K" << std::flush;  // erase the rest of the line
  else err_ << what_ << ": " << state << "\n" << std::flush;
}

void Progress::done() {
  if (enabled_ && in_place_ && shown_) err_ << "\r\x1b[K" << std::flush;
  shown_ = false;
}

}  // namespace rml
