// Source files and spans. Every AST node and diagnostic points into a SourceFile.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace rml {

struct SourceFile {
  std::string path;
  std::string text;
  std::vector<uint32_t> line_starts;  // byte offset of each line's first character

  SourceFile(std::string p, std::string t);
  // 1-based line and column (column counts bytes) of a byte offset.
  std::pair<uint32_t, uint32_t> line_col(uint32_t offset) const;
  std::string_view line_text(uint32_t line) const;  // without the newline
};

struct Span {
  const SourceFile *file = nullptr;
  uint32_t begin = 0, end = 0;  // [begin, end) byte offsets
  bool valid() const { return file != nullptr; }
  static Span cover(const Span &a, const Span &b) {
    if (!a.valid()) return b;
    if (!b.valid()) return a;
    return Span{a.file, a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end};
  }
};

}  // namespace rml
