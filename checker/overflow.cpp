// The overflow property (rml-check --int-overflow error): no int operation's exact result
// leaves the 64-bit range at any cycle, so no cell is ‖ by the rule `overflow`, and every
// int the program computes is the mathematical integer (Kind 2's unbounded reading, on
// inputs in range). Proved on the encodings of the wrapping ints, which is sound: a run of
// either reading is the same run until its first overflow, and that overflow is a bad
// cycle of both (TransitionSystem::overflow_errors). Refuted by an oracle replay in which a
// cell is ‖ by that rule.
#include <string>

#include "checker/engine.hpp"

namespace rml::check {

PropertyResult Checker::check_overflow() {
  PropertyResult r;
  r.kind = "overflow";
  struct Set {  // for this check only
    bool &flag, was;
    explicit Set(bool &f) : flag(f), was(f) { flag = true; }
    ~Set() { flag = was; }
  } encode(encode_overflow), replay(overflow_reading);

  const core::Equation *first = nullptr;  // an operation that can overflow, for the finding's place
  const core::Equation *unencoded = nullptr;  // one the solver cannot say (a tensor, a freed value)
  for (auto &eq : prog.equations) {
    if (!core::may_overflow(eq)) continue;
    if (!first) first = &eq;
    bool free = !eq.type.shape.empty() || free_values.count(eq.lhs);
    for (auto &a : eq.args) free |= free_values.count(a) > 0;
    if (free && !unencoded) unencoded = &eq;
  }
  if (!first) {
    r.verdict = Verdict::Valid;
    r.method = "no operation of the node can leave the 64-bit range (no + - * div, unary -, abs, floor or int on ints "
               "outside machine integers)";
    return r;
  }
  // The oracle's runs find most overflows (an input near the range's end) in milliseconds.
  std::string overflowed;  // the variable of the last confirmed failure
  auto fails = [&](const oracle::Result &res, Counterexample &cx) {
    for (auto &e : res.errors) {
      if (e.rule != "overflow") continue;
      overflowed = e.var;
      cx.what = "error value in '" + e.var + "' at cycle " + std::to_string(e.cycle) + " [overflow]: " + e.message;
      cx.show = read_by(e.var);
      return true;
    }
    return false;
  };
  if (!opts.solver_only)
    if (auto quick = falsify_by_simulation(fails)) {
      r.verdict = Verdict::Falsified;
      r.method = "an oracle run on inputs that keep the assumptions (their bounds and random values), before any solver";
      r.cex = std::move(*quick);
    }
  if (r.verdict != Verdict::Falsified) {
    smt_invariant(
        r, [](const TransitionSystem::Frame &f) { return f.overflow; }, "no int operation leaves the 64-bit range at any cycle",
        fails, true, nullptr, true);
    // That operation is a free condition in the proof (TransitionSystem::overflow_errors),
    // so the proof cannot succeed: say why.
    if (r.verdict == Verdict::Unknown && unencoded)
      r.method = "the solver cannot say whether '" + core::apply_name(*unencoded) + "' (defining '" + unencoded->lhs +
                 "') overflows: " + (unencoded->type.shape.empty() ? "its value is left free" : "it computes on tensors") +
                 " (" + r.method + ")";
  }
  if (r.verdict == Verdict::Falsified) {
    const core::Equation *at = def_of(overflowed) ? def_of(overflowed) : first;
    r.findings.push_back(Finding{"int.overflow", "an int operation leaves the 64-bit range: " + (r.cex ? r.cex->what : std::string()),
                                 at->span});
  }
  return r;
}

}  // namespace rml::check
