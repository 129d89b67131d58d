// rml-check's verdicts on clocks, causality and productivity as a command needs them
// (acceptance.hpp).
#include "driver/acceptance.hpp"

#include <algorithm>
#include <chrono>
#include <cstdio>

#include "oracle/oracle.hpp"

namespace rml {

check::Options CheckBudget::options() const {
  check::Options o;
  // A wall-clock budget alone is what was asked: no resource limit besides it.
  o.timeout_s = seconds.value_or(0);
  o.rlimit = rlimit ? *rlimit : seconds ? 0 : check::kDefaultRlimit;
  return o;
}

std::string render_trace_error(const oracle::TraceError &e, const std::string &text) {
  if (e.line == 0) return e.path + ": error[" + e.rule + "]: " + e.message + "\n";
  bool bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0;  // the reader's columns skip it
  SourceFile file(e.path, bom ? text.substr(3) : text);
  Diagnostic d;
  d.rule = e.rule;
  d.message = e.message;
  uint32_t line = static_cast<uint32_t>(std::min<size_t>(e.line, file.line_starts.size()));
  uint32_t begin = file.line_starts[line - 1];
  uint32_t end = line < file.line_starts.size() ? file.line_starts[line] : static_cast<uint32_t>(file.text.size());
  uint32_t at = static_cast<uint32_t>(std::min<size_t>(begin + e.col - (e.col ? 1 : 0), end));
  d.span = Span{&file, at, at + 1};
  return render(d);
}

std::optional<int64_t> accepted_horizon(const FrontendResult &r, const driver::Elaborated &elab, const std::string &file,
                                        const std::string &main, const CheckBudget &budget, const std::string &what, std::ostream &err,
                                        int &rc, const std::function<void(const std::string &)> &progress) {
  check::Options copts = budget.options();
  copts.acceptance = true;  // no user property; no initialisation once one of the others fails
  // The proof can take as long as its budget: said to `progress` (a command's progress line).
  const auto start = std::chrono::steady_clock::now();
  if (progress)
    copts.starting = [&](const std::string &property) {
      char t[32];
      std::snprintf(t, sizeof t, " (%.0f s)", std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
      progress("proving '" + main + "' before it can " + what + ": " + property + t);
    };
  check::Report rep;
  try {
    rep = check::check_program(r.checked, elab.prog, elab.clocks, copts);
  } catch (std::exception &e) {
    err << "rml: error[stream.unchecked]: checking '" << main << "' failed: " << e.what() << "\n";
    rc = kUnknown;
    return std::nullopt;
  }
  int64_t H = 0;
  for (auto &p : rep.properties) {
    if (p.kind == "property") continue;  // user properties are rml-check's business
    if (p.kind == "productivity" && p.horizon) H = *p.horizon;
    if (p.verdict == check::Verdict::Valid) continue;
    err << file << ": error[stream.unchecked]: '" << main << "' cannot " << what << ": " << p.kind << " is "
        << check::verdict_name(p.verdict) << " (rml-check " << file << " --main " << main << " says why"
        << (p.verdict == check::Verdict::Unknown ? "; --check-rlimit gives it more" : "") << ")\n";
    rc = p.verdict == check::Verdict::Falsified ? kFrontendError : kUnknown;
    return std::nullopt;
  }
  return H;
}

bool refuse_imported(const core::Program &prog, const char *rule, const std::string &what, std::ostream &err,
                     const oracle::Inputs *given) {
  for (auto &io : oracle::imported_outputs(prog)) {
    if (given && given->streams.count(io.var)) continue;
    Diagnostic d;
    d.rule = rule;
    d.span = io.span;
    d.message = "'" + io.fn + "' is imported (declared without a body): " + what +
                " (rml-check reads its outputs as unknown values; give it a body to run it" +
                (given ? ", or its output's values in the trace, as a column '" + io.printed + "'" : std::string()) + ")";
    err << render(d);
    return true;
  }
  return false;
}

}  // namespace rml
