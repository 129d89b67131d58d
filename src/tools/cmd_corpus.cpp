// rml corpus: every .rml file of a folder against its `// expect:` header, through the
// library's check_expectations.
#include "tools/commands.hpp"

#include <algorithm>
#include <filesystem>


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
    auto r = api::check_expectations(p.string());
    if (!r) {
      err << r.failure().text();
      ++fail;
      continue;
    }
    out << (r->pass ? "PASS  " : "FAIL  ") << p.string() << "  " << (r->rejected ? "rejected" : "accepted");
    if (r->rejected) {
      out << " (";
      for (size_t i = 0; i < r->reported.size() && i < 4; ++i) out << (i ? ", " : "") << r->reported[i].text();
      if (r->reported.size() > 4) out << ", ...";
      out << ")";
    }
    out << "\n";
    if (!r->has_header) out << "      no '// expect:' header\n";
    for (auto &m : r->missing) out << "      expected but not reported: " << m.text() << "\n";
    for (auto &u : r->unexpected) out << "      reported but not expected: " << u.text() << "\n";
    if ((c.verbose || !r->pass) && !r->rendered.empty() && (c.verbose || !r->unexpected.empty())) out << r->rendered;
    (r->pass ? pass : fail)++;
  }
  out << pass << " passed, " << fail << " failed\n";
  return fail == 0 ? kOk : kFalsified;
}

}  // namespace rml
