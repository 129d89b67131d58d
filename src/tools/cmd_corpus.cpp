// rml corpus: every .rml file of a folder against its `// expect:` header.
#include "tools/commands.hpp"

#include <algorithm>
#include <filesystem>

#include "driver/expectations.hpp"
#include "driver/load.hpp"

namespace rml {

int cmd_corpus(const CorpusCmd &c, std::ostream &out, std::ostream &err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(c.dir, ec)) {
    err << "rml: error: '" << c.dir << "' is not a folder\n";
    return kFrontendError;
  }
  std::vector<fs::path> files;
  for (auto &e : fs::recursive_directory_iterator(c.dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".rml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  size_t pass = 0, fail = 0;
  for (auto &p : files) {
    auto r = load(p.string(), err);
    if (!r) {
      ++fail;
      continue;
    }
    Expectations ex = parse_expectations(r->files.back()->text);
    ExpectationCheck chk = compare(ex, *r);
    std::string verdict = r->diags.has_errors() ? "rejected" : "accepted";
    out << (chk.pass ? "PASS  " : "FAIL  ") << p.string() << "  " << verdict;
    if (r->diags.has_errors()) {
      out << " (";
      auto errs = reported_errors(*r);
      for (size_t i = 0; i < errs.size() && i < 4; ++i) out << (i ? ", " : "") << errs[i].str();
      if (errs.size() > 4) out << ", ...";
      out << ")";
    }
    out << "\n";
    if (!ex.has_header) out << "      no '// expect:' header\n";
    for (auto &m : chk.missing) out << "      expected but not reported: " << m.str() << "\n";
    for (auto &u : chk.unexpected) out << "      reported but not expected: " << u.str() << "\n";
    if (c.verbose || !chk.pass) {
      std::string text = render_all(r->diags);
      if (!text.empty() && (c.verbose || !chk.unexpected.empty())) out << text;
    }
    (chk.pass ? pass : fail)++;
  }
  out << pass << " passed, " << fail << " failed\n";
  return fail == 0 ? kOk : kFalsified;
}

}  // namespace rml
