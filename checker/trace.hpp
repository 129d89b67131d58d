// A developer's view of where a check spends its budget: with the environment variable
// RML_CHECK_TRACE set, every Z3 query of the checker prints a line on standard error (the
// time since the first line, the stage that asked, the encoding, the answer and the units
// it spent). Nothing else reads it: verdicts and reports are the same with or without.
#pragma once
#include <string>

namespace rml::check::trace {

bool on();
// One line on standard error, when on().
void line(const std::string &text);

// The stage whose queries follow (k-induction step 3, Spacer, Houdini ...), for this
// thread, until the scope ends.
struct Stage {
  explicit Stage(std::string name);
  ~Stage();
  Stage(const Stage &) = delete;
  Stage &operator=(const Stage &) = delete;

 private:
  std::string previous_;
};
const std::string &stage();

}  // namespace rml::check::trace
