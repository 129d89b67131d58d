// User properties (`check e;`, Kind 2's `--%PROPERTY`): e is true wherever it is present,
// by the generic engines; refutations replayed in the oracle.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

// A user property (`check e;`): e is true wherever it is present. k-induction proves it;
// a BMC run where it is false (or nil) is replayed in the oracle before it is believed.
PropertyResult Checker::check_property(const core::CoreProperty &pp) {
  PropertyResult r;
  r.kind = "property";
  r.name = pp.text;
  r.span = pp.span;
  const std::string &v = pp.var;
  smt_invariant(
      r, [&](const TransitionSystem::Frame &f) { return f.p.at(v) && (f.nil.at(v) || !f.v.at(v)); },
      "'" + pp.text + "' holds at every cycle",
      [&](const oracle::Result &res, Counterexample &cx) {
        if (!res.has(v)) return false;
        for (size_t n = 0; n < res.cycles; ++n) {
          const oracle::Cell c = res.at(v, n);
          bool fails = c.tag == oracle::Tag::Nil || (c.tag == oracle::Tag::Val && c.value.i.size() == 1 && c.value.i[0] == 0);
          if (!fails) continue;
          cx.what = "'" + pp.text + "' is " + (c.tag == oracle::Tag::Nil ? "nil" : "false") + " at cycle " + std::to_string(n);
          cx.show = {v};
          cx.required = Counterexample::Cell{v, n, true};
          return true;
        }
        return false;
      },
      true);
  if (r.verdict == Verdict::Falsified)
    r.findings.push_back(Finding{"property.falsified", "the property '" + pp.text + "' does not hold", pp.span});
  return r;
}

}  // namespace rml::check
