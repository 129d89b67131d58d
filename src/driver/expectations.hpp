// The `// expect: ok` / `// expect-error: LINE:COL RULE` headers of corpus and test files,
// and their comparison with what the front end reports.
#pragma once
#include <string>
#include <vector>

#include "sema/frontend.hpp"

namespace rml {

struct ExpectedDiag {
  unsigned line = 0, col = 0;
  std::string rule;
  bool operator==(const ExpectedDiag &o) const { return line == o.line && col == o.col && rule == o.rule; }
  std::string str() const { return std::to_string(line) + ":" + std::to_string(col) + " " + rule; }
};

struct Expectations {
  bool has_header = false;  // at least one expect line
  bool expect_ok = false;
  std::vector<ExpectedDiag> errors;
  std::string main_node;    // `// main: NODE`
};

// Reads the header lines anywhere in the file (they are comments).
Expectations parse_expectations(const std::string &text);

// Errors the front end reported in the user's file (not the prelude), in source order.
std::vector<ExpectedDiag> reported_errors(const FrontendResult &r);

struct ExpectationCheck {
  bool pass = false;
  std::vector<ExpectedDiag> missing, unexpected;
};
ExpectationCheck compare(const Expectations &e, const FrontendResult &r);

}  // namespace rml
