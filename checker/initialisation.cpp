// The initialisation property (Heptagon and Vélus): no output of the main node is ever
// nil. A static may-be-nil analysis first, then the generic engines on the nil flags.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
#include "checker/may_be_nil.hpp"
#include "core/primitives.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

const core::Equation * Checker::def_of(const std::string &v) {
  if (defs.empty())
    for (auto &eq : prog.equations) defs[eq.lhs] = &eq;
  auto it = defs.find(v);
  return it == defs.end() ? nullptr : it->second;
}

// Lustre's `pre` can make a condition nil: a static may-be-nil analysis over the program.
std::set<std::string> Checker::may_be_nil() { return check::may_be_nil(prog); }

const std::set<std::string> &Checker::may_be_nil_here() {
  if (!may_be_nil_here_) may_be_nil_here_ = check::may_be_nil(prog, clocks.clashes.empty());
  return *may_be_nil_here_;
}

// Initialisation (as Heptagon and Vélus check it): no output of the main node is ever
// nil, Lustre's uninitialised first value of `pre`. A static may-be-nil analysis proves
// most programs; otherwise k-induction (then IC3/PDR) on the nil flags, or a BMC run
// where an output is nil, replayed in the oracle.
PropertyResult Checker::check_initialisation() {
  PropertyResult r;
  r.kind = "initialisation";
  // The idiom `a -> pre x` reads x's nil only on well-clocked runs: with a clash, the
  // analysis keeps the pre's own first nil (an ill-clocked arrow can start first; may_be_nil_here).
  const std::set<std::string> &nil = may_be_nil_here();
  std::vector<std::string> outs;
  for (auto &o : prog.outputs)
    if (nil.count(o.name)) outs.push_back(o.name);
  if (outs.empty()) {
    r.verdict = Verdict::Valid;
    r.method = "static analysis: no output can be the uninitialised first value of a 'pre'";
    return r;
  }
  for (auto &o : outs)
    r.findings.push_back(Finding{"init.nil", "the output '" + o + "' may be nil (the first value of a 'pre' not guarded by '->', or a 'current' before its clock first ticks)",
                                 def_of(o) ? def_of(o)->span : Span{}});
  smt_invariant(
      r,
      [&](const TransitionSystem::Frame &f) {
        z3::expr any = f.err.ctx().bool_val(false);
        for (auto &o : outs) any = any || (f.p.at(o) && f.nil.at(o));
        return any;
      },
      "no output is nil at any cycle",
      [&](const oracle::Result &res, Counterexample &cx) {
        for (size_t n = 0; n < res.cycles; ++n)
          for (auto &o : outs)
            if (res.has(o) && res.at(o, n).tag == oracle::Tag::Nil) {
              cx.what = "the output '" + o + "' is nil at cycle " + std::to_string(n);
              cx.show = {o};
              cx.required = Counterexample::Cell{o, n, false};
              return true;
            }
        return false;
      },
      true,  // a property of present values: runs of silent cycles add nothing (as for properties)
      nullptr, false, true);  // nil flags: first with every number free
  if (r.verdict == Verdict::Valid) r.findings.clear();  // the may-be-nil warnings were false alarms
  return r;
}

}  // namespace rml::check
