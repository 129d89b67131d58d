// rml-check through the library: the checker's report as verdicts per property, each
// counterexample as a chronogram of inputs (include/rml/rml.hpp).
#include "api/state.hpp"
#include "checker/checker.hpp"
#include "driver/acceptance.hpp"

namespace rml::api {

const char *verdict_name(Verdict v) {
  return v == Verdict::Valid ? "valid" : v == Verdict::Falsified ? "falsified" : "unknown";
}

int CheckReport::exit_code() const {
  bool unknown = false;
  for (auto &p : properties) {
    if (p.verdict == Verdict::Falsified) return kFalsified;
    if (p.verdict == Verdict::Unknown) unknown = true;
  }
  return unknown ? kUnknown : kOk;
}

Chronogram from_inputs(const core::Program &prog, const oracle::Inputs &in) {
  Chronogram c;
  c.cycles = in.cycles;
  auto add = [&](const std::string &name, const std::vector<oracle::Cell> &cells) {
    c.names.push_back(name);
    std::vector<Cell> col;
    for (auto &x : cells) col.push_back(from_oracle(x));
    c.columns.push_back(std::move(col));
  };
  for (auto &v : prog.inputs)
    if (auto it = in.streams.find(v.name); it != in.streams.end()) add(v.name, it->second);
  for (auto &[name, cells] : in.streams)
    if (!c.column(name)) add(name, cells);
  return c;
}

Result<CheckReport> check(const Program &p, const CheckOptions &o) try {
  const Program::State &s = p.state();
  check::Options copts = CheckBudget{o.seconds, o.rlimit}.options();
  check::Report rep = check::check_program(s.frontend->checked, s.elab.prog, s.elab.clocks, copts);
  CheckReport out;
  out.main = rep.main.empty() ? s.main : rep.main;
  for (auto &r : rep.properties) {
    Property q;
    q.kind = r.kind;
    q.name = r.name;
    q.verdict = r.verdict == check::Verdict::Valid ? Verdict::Valid
              : r.verdict == check::Verdict::Falsified ? Verdict::Falsified : Verdict::Unknown;
    q.method = r.method;
    for (auto &f : r.findings) q.findings.push_back(from_stage(rml::Diagnostic{Severity::Error, f.rule, f.message, f.span, {}}));
    q.horizon = r.horizon;
    if (r.cex) {
      q.counterexample = from_inputs(s.elab.prog, r.cex->inputs);
      q.counterexample_what = r.cex->what;
    }
    q.resources = r.resources;
    out.properties.push_back(std::move(q));
  }
  return out;
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml-check: error: out of memory while checking '" + p.main() + "'\n");
} catch (std::exception &e) {
  return failure(kUnknown, std::string("rml-check: error: checking '") + p.main() + "' failed: " + e.what() + "\n");
}

}  // namespace rml::api
