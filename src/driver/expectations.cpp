#include "driver/expectations.hpp"

#include <algorithm>
#include <sstream>

namespace rml {

Expectations parse_expectations(const std::string &text) {
  Expectations ex;
  std::istringstream in(text);
  std::string line;
  auto after = [](const std::string &l, const std::string &key) -> std::optional<std::string> {
    auto p = l.find(key);
    if (p == std::string::npos) return std::nullopt;
    std::string rest = l.substr(p + key.size());
    while (!rest.empty() && (rest.back() == '\r' || rest.back() == ' ')) rest.pop_back();
    size_t b = rest.find_first_not_of(' ');
    return b == std::string::npos ? std::string() : rest.substr(b);
  };
  while (std::getline(in, line)) {
    if (auto r = after(line, "// expect-error:")) {
      ExpectedDiag d;
      char colon = 0;
      std::istringstream ls(*r);
      if (ls >> d.line >> colon >> d.col >> d.rule && colon == ':') {
        ex.errors.push_back(d);
        ex.has_header = true;
      }
    } else if (auto r2 = after(line, "// expect:")) {
      if (r2->rfind("ok", 0) == 0) {
        ex.expect_ok = true;
        ex.has_header = true;
      }
    } else if (auto r3 = after(line, "// main:")) {
      std::istringstream ls(*r3);
      ls >> ex.main_node;
    }
  }
  return ex;
}

std::vector<ExpectedDiag> reported_errors(const FrontendResult &r) {
  std::vector<ExpectedDiag> out;
  const SourceFile *user = r.files.empty() ? nullptr : r.files.back().get();
  for (auto &d : r.diags.all()) {
    if (d.severity != Severity::Error) continue;
    ExpectedDiag e;
    e.rule = d.rule;
    if (d.span.valid() && d.span.file == user) {
      auto [l, c] = d.span.file->line_col(d.span.begin);
      e.line = l;
      e.col = c;
    }
    out.push_back(e);
  }
  return out;
}

ExpectationCheck compare(const Expectations &e, const FrontendResult &r) {
  ExpectationCheck c;
  auto got = reported_errors(r);
  std::vector<bool> used(got.size(), false);
  for (auto &want : e.errors) {
    bool found = false;
    for (size_t i = 0; i < got.size(); ++i)
      if (!used[i] && got[i] == want) {
        used[i] = found = true;
        break;
      }
    if (!found) c.missing.push_back(want);
  }
  for (size_t i = 0; i < got.size(); ++i)
    if (!used[i]) c.unexpected.push_back(got[i]);
  c.pass = e.has_header && c.missing.empty() && c.unexpected.empty();
  return c;
}

}  // namespace rml
