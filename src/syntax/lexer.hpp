#pragma once
#include <vector>

#include "syntax/diag.hpp"
#include "syntax/token.hpp"

namespace rml {

// Limits that keep bad input from exhausting the machine (grammar.md §1).
struct Limits {
  static constexpr size_t kMaxFileBytes = 16u << 20;
  static constexpr int kMaxDepth = 256;
};

// Tokenises the whole file; errors go to `diags` and the offending text is skipped.
// The result always ends with an Eof token.
std::vector<Token> lex(const SourceFile &file, Diagnostics &diags);

}  // namespace rml
