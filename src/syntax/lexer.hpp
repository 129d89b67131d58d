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

// A comment as written: `// ...` and `-- ...` (Line, without the newline), `/* ... */`
// and `(* ... *)` (Block, delimiters included). The formatter keeps them (printer.hpp).
struct Comment {
  enum Kind : uint8_t { Line, Block } kind = Line;
  Span span;
};

// Tokenises the whole file; errors go to `diags` and the offending text is skipped.
// The result always ends with an Eof token. When `comments` is given, the file's
// comments are appended to it in source order (an unterminated block comment, an error,
// is not recorded).
std::vector<Token> lex(const SourceFile &file, Diagnostics &diags, std::vector<Comment> *comments = nullptr);

}  // namespace rml
