#include "api/run_findings.hpp"

#include <algorithm>
#include <cmath>

#include "api/state.hpp"

namespace rml::api {

void CellWatch::see(size_t cycle, const oracle::Cell &c) {
  if (c.tag == oracle::Tag::Bot) {
    if (unknown_from_ < 0) unknown_from_ = static_cast<long>(cycle);
  } else {
    close(cycle);
  }
  if (!non_finite_.empty() || c.tag != oracle::Tag::Val || c.value.elem != Scalar::Real) return;
  const std::vector<double> &v = c.value.r;
  auto bad = std::find_if(v.begin(), v.end(), [](double x) { return !std::isfinite(x); });
  if (bad == v.end()) return;
  non_finite_ = std::string(std::isnan(*bad) ? "nan" : *bad > 0 ? "inf" : "-inf") + " at cycle " + std::to_string(cycle) +
                (v.size() > 1 ? " (element " + std::to_string(bad - v.begin()) + ")" : "");
}

void CellWatch::close(size_t cycles) {
  if (unknown_from_ < 0) return;
  size_t a = static_cast<size_t>(unknown_from_), b = cycles - 1;
  unknown_ += (unknown_.empty() ? "" : ", ") + (a == b ? std::to_string(a) : std::to_string(a) + "-" + std::to_string(b));
  unknown_from_ = -1;
}

Diagnostic said_as(Diagnostic::Severity sev, const std::string &rule, const std::string &message, const std::string &rendered, Span span) {
  Diagnostic d;
  d.severity = sev;
  d.rule = rule;
  d.message = message;
  if (span.valid()) {
    d.file = span.file->path;
    auto [line, col] = span.file->line_col(span.begin);
    d.line = line;
    d.column = col;
  }
  d.rendered = rendered;
  return d;
}

std::vector<Diagnostic> diagnostics_of(const RunFindings &f, bool strict_assume) {
  using Sev = Diagnostic::Severity;
  std::vector<Diagnostic> out;
  for (auto &v : f.input_clock)
    out.push_back(said_as(Sev::Warning, "input.clock", "input " + v, "warning[input.clock]: input " + v + "\n"));
  for (size_t k = 0; k < f.cells.size(); ++k)
    if (const std::string &nf = f.cells[k].non_finite(); !nf.empty()) {
      std::string msg = "'" + f.labels[k] + "' is " + nf + ", its first non-finite value";
      out.push_back(said_as(Sev::Warning, "run.non-finite", msg, "warning[run.non-finite]: " + msg + "\n"));
    }
  for (auto &e : f.errors) {
    std::string msg = "error value at cycle " + std::to_string(e.cycle) + " in '" + (f.label ? f.label(e.var) : e.var) + "' [" + e.rule +
                      "]: " + e.message;
    out.push_back(said_as(Sev::Error, "run.error-value", msg, (e.span.valid() ? location(e.span) + ": " : std::string()) + msg + "\n", e.span));
  }
  for (auto &v : f.declared) out.push_back(from_stage(rml::Diagnostic{Severity::Error, "clock.declared", v.message, v.span, {}}));
  for (size_t k = 0; k < f.cells.size(); ++k)
    if (const std::string &u = f.cells[k].unknown(); !u.empty())
      out.push_back(said_as(Sev::Warning, "run.unknown", "'" + f.labels[k] + "' is unknown at cycles " + u + " (not determined by this prefix)",
                            "unknown: '" + f.labels[k] + "' at cycles " + u + " (not determined by this prefix)\n"));
  for (auto &b : f.broken)
    for (auto &d : from_text(render_broken(b, strict_assume))) out.push_back(d);
  return out;
}

std::vector<Diagnostic> clash_warnings(const core::Clocks &clocks) {
  std::vector<Diagnostic> out;
  for (auto &clash : clocks.clashes) {
    std::string msg = clash.message + " (the oracle continues with the first unification)";
    out.push_back(said_as(Diagnostic::Severity::Warning, "clock.clash", msg,
                          (clash.span.valid() ? location(clash.span) + ": " : std::string()) + "warning[clock.clash]: " + msg + "\n", clash.span));
  }
  return out;
}

Diagnostic show_error(const std::string &file, const std::string &why) {
  return said_as(Diagnostic::Severity::Error, "run.show", why, file + ": error[run.show]: " + why + "\n");
}

}  // namespace rml::api
