#include "oracle/assumptions.hpp"

namespace rml {

namespace {
std::string span_text(const Span &s) {
  if (!s.valid()) return "assume";
  std::string t = s.file->text.substr(s.begin, s.end - s.begin);
  while (!t.empty() && (t.back() == ';' || t.back() == ' ' || t.back() == '\n')) t.pop_back();
  return t;
}
std::string others(size_t count, const char *what) {
  return count > 1 ? " (and " + std::to_string(count - 1) + " other " + what + (count > 2 ? "s" : "") + ")" : "";
}
}  // namespace

AssumptionMonitor::AssumptionMonitor(const core::Program &prog) : prog_(prog), state_(prog.assumptions.size()) {
  for (size_t k = 0; k < prog.assumptions.size(); ++k) {
    state_[k].b.assumption = &prog.assumptions[k];
    state_[k].b.text = span_text(prog.assumptions[k].span);
  }
}

void AssumptionMonitor::observe(size_t k, const oracle::Cell &c) {
  const core::CoreAssumption &a = prog_.assumptions[k];
  State &st = state_[k];
  size_t n = st.cycles++;
  bool present = c.tag == oracle::Tag::Val;
  bool holds = present && !c.value.i.empty() && c.value.i[0] != 0;
  if (!a.eventually) {
    // False where present; absent, unknown, nil or ‖ cells say nothing either way.
    if (present && !holds && !st.b.count++) st.b.first = n;
    return;
  }
  if (a.within < 0) return;  // unbounded liveness: no finite prefix breaks it
  // Sliding window of w cycles: broken when the latest cycle where c held is before it.
  size_t w = static_cast<size_t>(a.within) + 1;
  if (holds) st.last = static_cast<long>(n);
  if (n + 1 >= w && st.last < static_cast<long>(n + 1 - w) && !st.b.count++) st.b.first = n + 1 - w;
}

bool AssumptionMonitor::any_broken() const {
  for (auto &st : state_)
    if (st.b.count) return true;
  return false;
}

std::vector<BrokenAssumption> AssumptionMonitor::broken() const {
  std::vector<BrokenAssumption> out;
  for (size_t k = 0; k < state_.size(); ++k) {
    BrokenAssumption b = state_[k].b;
    if (!b.count) continue;
    const core::CoreAssumption &a = prog_.assumptions[k];
    if (!a.eventually) b.message = "the condition is false at cycle " + std::to_string(b.first) + others(b.count, "cycle");
    else {
      size_t w = static_cast<size_t>(a.within) + 1;
      b.message = "the condition does not hold at any of the " + std::to_string(w) + " cycles " + std::to_string(b.first) + ".." +
                  std::to_string(b.first + w - 1) + others(b.count, "window");
    }
    out.push_back(std::move(b));
  }
  return out;
}

std::vector<BrokenAssumption> broken_assumptions(const core::Program &prog, const oracle::Result &res) {
  AssumptionMonitor m(prog);
  for (size_t k = 0; k < prog.assumptions.size(); ++k) {
    if (!res.has(prog.assumptions[k].var)) continue;  // never observed: nothing broken
    for (size_t n = 0; n < res.cycles; ++n) m.observe(k, res.at(prog.assumptions[k].var, n));
  }
  return m.broken();
}

std::string render_broken(const BrokenAssumption &b, bool strict) {
  Diagnostic d;
  d.severity = strict ? Severity::Error : Severity::Warning;
  d.rule = "run.assume";
  d.span = b.assumption->span;
  d.message = "the input trace breaks '" + b.text + "': " + b.message +
              (strict ? "" : " (the run continues; --strict-assume makes this an error)");
  return render(d);
}

}  // namespace rml
