#include "syntax/source.hpp"

#include <algorithm>

namespace rml {

SourceFile::SourceFile(std::string p, std::string t) : path(std::move(p)), text(std::move(t)) {
  line_starts.push_back(0);
  for (uint32_t i = 0; i < text.size(); ++i)
    if (text[i] == '\n') line_starts.push_back(i + 1);
}

std::pair<uint32_t, uint32_t> SourceFile::line_col(uint32_t offset) const {
  auto it = std::upper_bound(line_starts.begin(), line_starts.end(), offset);
  uint32_t line = static_cast<uint32_t>(it - line_starts.begin());  // 1-based
  return {line, offset - line_starts[line - 1] + 1};
}

std::string_view SourceFile::line_text(uint32_t line) const {
  if (line == 0 || line > line_starts.size()) return {};
  uint32_t b = line_starts[line - 1];
  uint32_t e = line < line_starts.size() ? line_starts[line] : static_cast<uint32_t>(text.size());
  while (e > b && (text[e - 1] == '\n' || text[e - 1] == '\r')) --e;
  return std::string_view(text).substr(b, e - b);
}

}  // namespace rml
