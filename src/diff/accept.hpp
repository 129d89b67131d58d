// Whether rml-check accepts a program (clocks, causality, productivity, initialisation
// valid on its main node): the filter of `rml gen`, and what every shrinking step of
// `rml diff` must keep, so that a counterexample is always a program with one meaning.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sema/frontend.hpp"
#include "driver/acceptance.hpp"

namespace rml::diff {

struct Acceptance {
  bool accepted = false;
  int rc = 0;            // when not: 2 front-end error or falsified, 3 unknown
  std::string why;       // when not: the diagnostics (front end) or the verdict
  std::string main;      // the main node
  std::vector<std::string> outputs;  // its outputs, as rml run prints them
  int64_t horizon = 0;   // the proved productivity horizon
  std::unique_ptr<FrontendResult> frontend;
};

// `path` names the text in diagnostics; `main` empty: the file's rule (--main, "// main:",
// the only node without static parameters).
Acceptance accept(const std::string &path, const std::string &text, const std::string &main, const CheckBudget &budget);

}  // namespace rml::diff
