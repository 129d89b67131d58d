#include "tools/assumptions.hpp"

namespace rml {

namespace {
std::string span_text(const Span &s) {
  if (!s.valid()) return "assume";
  std::string t = s.file->text.substr(s.begin, s.end - s.begin);
  while (!t.empty() && (t.back() == ';' || t.back() == ' ' || t.back() == '\n')) t.pop_back();
  return t;
}
bool holds(const oracle::Result &res, const std::string &v, size_t n) {
  if (res.tag(v, n) != oracle::Tag::Val) return false;
  oracle::Cell c = res.at(v, n);
  return !c.value.i.empty() && c.value.i[0] != 0;
}
std::string others(size_t count, const char *what) {
  return count > 1 ? " (and " + std::to_string(count - 1) + " other " + what + (count > 2 ? "s" : "") + ")" : "";
}
}  // namespace

std::vector<BrokenAssumption> broken_assumptions(const core::Program &prog, const oracle::Result &res) {
  std::vector<BrokenAssumption> out;
  for (auto &a : prog.assumptions) {
    if (!res.has(a.var)) continue;
    BrokenAssumption b;
    b.assumption = &a;
    b.text = span_text(a.span);
    if (!a.eventually) {
      // False where present; absent, unknown, nil or ‖ cells say nothing either way.
      for (size_t n = 0; n < res.cycles; ++n)
        if (res.tag(a.var, n) == oracle::Tag::Val && !holds(res, a.var, n)) {
          if (!b.count++) b.first = n;
        }
      if (b.count) b.message = "the condition is false at cycle " + std::to_string(b.first) + others(b.count, "cycle");
    } else {
      if (a.within < 0) continue;  // unbounded liveness: no finite prefix breaks it
      size_t w = static_cast<size_t>(a.within) + 1;
      if (res.cycles < w) continue;
      // Sliding window: `last` is the latest cycle <= n where c holds.
      long last = -1;
      for (size_t n = 0; n < res.cycles; ++n) {
        if (holds(res, a.var, n)) last = static_cast<long>(n);
        if (n + 1 >= w && last < static_cast<long>(n + 1 - w))
          if (!b.count++) b.first = n + 1 - w;
      }
      if (b.count)
        b.message = "the condition does not hold at any of the " + std::to_string(w) + " cycles " + std::to_string(b.first) +
                    ".." + std::to_string(b.first + w - 1) + others(b.count, "window");
    }
    if (b.count) out.push_back(std::move(b));
  }
  return out;
}

}  // namespace rml
