// Diagnostics: file:line:col, a caret excerpt, and the rule that failed.
#pragma once
#include <string>
#include <vector>

#include "syntax/source.hpp"

namespace rml {

enum class Severity { Error, Warning, Note };

struct Diagnostic {
  Severity severity = Severity::Error;
  std::string rule;     // e.g. "type.mismatch" (semantics/grammar.md §8)
  std::string message;
  Span span;
  std::vector<std::pair<Span, std::string>> notes;  // secondary locations
};

class Diagnostics {
 public:
  void error(const std::string &rule, Span span, std::string message);
  void warning(const std::string &rule, Span span, std::string message);
  // Attach a note to the last diagnostic reported.
  void note(Span span, std::string message);
  const std::vector<Diagnostic> &all() const { return diags_; }
  size_t error_count() const { return errors_; }
  bool has_errors() const { return errors_ > 0; }
  // Stop collecting after this many errors (a flood helps nobody).
  static constexpr size_t kMaxErrors = 100;
  bool saturated() const { return errors_ >= kMaxErrors; }

 private:
  std::vector<Diagnostic> diags_;
  size_t errors_ = 0;
};

// "FILE:LINE:COL: error[RULE]: MESSAGE" plus the caret excerpt.
std::string render(const Diagnostic &d);
std::string render_all(const Diagnostics &ds);
std::string location(Span s);  // "FILE:LINE:COL"

}  // namespace rml
