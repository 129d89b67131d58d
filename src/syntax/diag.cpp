#include "syntax/diag.hpp"

#include <algorithm>

namespace rml {

void Diagnostics::error(const std::string &rule, Span span, std::string message) {
  if (errors_ >= kMaxErrors) return;
  diags_.push_back({Severity::Error, rule, std::move(message), span, {}});
  ++errors_;
}

void Diagnostics::warning(const std::string &rule, Span span, std::string message) {
  diags_.push_back({Severity::Warning, rule, std::move(message), span, {}});
}

void Diagnostics::note(Span span, std::string message) {
  if (!diags_.empty()) diags_.back().notes.emplace_back(span, std::move(message));
}

std::string location(Span s) {
  if (!s.valid()) return "<unknown>";
  auto [l, c] = s.file->line_col(s.begin);
  return s.file->path + ":" + std::to_string(l) + ":" + std::to_string(c);
}

// The line of `s` with a caret under it. A long line (a trace's tensor row) shows a window
// of kWindow bytes around the column, cut at UTF-8 boundaries and marked with "..."; control
// characters (a NUL in a trace) show as '?', so the excerpt is always printable text.
static void excerpt(std::string &out, Span s) {
  if (!s.valid()) return;
  constexpr uint32_t kWindow = 160, kBefore = 60;
  auto [line, col] = s.file->line_col(s.begin);
  std::string_view text = s.file->line_text(line);
  uint32_t from = 0, to = static_cast<uint32_t>(text.size());
  if (text.size() > kWindow) {
    from = col - 1 > kBefore ? col - 1 - kBefore : 0;
    to = std::min<uint32_t>(to, from + kWindow);
    auto boundary = [&](uint32_t &at) {
      while (at > 0 && at < text.size() && (static_cast<unsigned char>(text[at]) & 0xC0) == 0x80) --at;
    };
    boundary(from);
    boundary(to);
  }
  std::string shown = from > 0 ? "..." : "";
  uint32_t pad = static_cast<uint32_t>(shown.size());
  for (uint32_t i = from; i < to; ++i) {
    unsigned char ch = static_cast<unsigned char>(text[i]);
    shown += (ch < 0x20 && ch != '\t') || ch == 0x7F ? '?' : static_cast<char>(ch);
  }
  if (to < text.size()) shown += "...";
  std::string num = std::to_string(line);
  out += " " + num + " | " + shown;
  out += "\n " + std::string(num.size(), ' ') + " | " + std::string(pad, ' ');
  for (uint32_t i = from + 1; i < col; ++i) out += (i - 1 < text.size() && text[i - 1] == '\t') ? '\t' : ' ';
  uint32_t len = s.end > s.begin ? s.end - s.begin : 1;
  uint32_t room = col - 1 <= to && col - 1 >= from ? to - (col - 1) : 0;
  len = std::max<uint32_t>(1, std::min(len, room));
  out += '^';
  out += std::string(len - 1, '~');
  out += '\n';
}

std::string render(const Diagnostic &d) {
  const char *sev = d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note";
  std::string out = location(d.span) + ": " + sev + "[" + d.rule + "]: " + d.message + "\n";
  excerpt(out, d.span);
  for (auto &[sp, msg] : d.notes) {
    out += location(sp) + ": note: " + msg + "\n";
    excerpt(out, sp);
  }
  return out;
}

std::string render_all(const Diagnostics &ds) {
  std::string out;
  for (auto &d : ds.all()) out += render(d);
  return out;
}

}  // namespace rml
