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

// A user property (`check e;`): e is true wherever it is present. First the oracle on
// inputs that keep the assumptions (simulation.cpp): a failure there is a counterexample
// in milliseconds. Then k-induction and IC3/PDR prove it; a BMC run where it is false (or
// nil) is replayed in the oracle before it is believed. Counterexamples are shrunk toward
// short runs of round numbers and show the variables the property reads.
PropertyResult Checker::check_property(const core::CoreProperty &pp) {
  const std::string label = property_label(pp);
  // With --int-overflow error the property is about that reading: its replays too.
  struct Reading {
    bool &flag, was;
    ~Reading() { flag = was; }
  } reading{overflow_reading, overflow_reading};
  overflow_reading = opts.int_overflow_error;
  PropertyResult r;
  r.kind = "property";
  r.name = pp.text;
  r.span = pp.span;
  const std::string &v = pp.var;
  std::vector<std::string> show = read_by(v);
  // In Kind 2's reading (Options::pre_any) only a false value fails: a nil cell may be
  // true for some first value of the pres it reads, and false is false for all of them.
  const bool nil_fails = !opts.pre_any;
  auto fails = [&](const oracle::Result &res, Counterexample &cx) {
    if (!res.has(v)) return false;
    for (size_t n = 0; n < res.cycles; ++n) {
      const oracle::Cell c = res.at(v, n);
      bool bad = (nil_fails && c.tag == oracle::Tag::Nil) || (c.tag == oracle::Tag::Val && c.value.i.size() == 1 && c.value.i[0] == 0);
      if (!bad) continue;
      cx.what = label + " is " + (c.tag == oracle::Tag::Nil ? "nil" : "false") + " at cycle " + std::to_string(n);
      cx.show = show;
      cx.required = Counterexample::Cell{v, n, true};
      return true;
    }
    return false;
  };
  std::optional<Counterexample> quick;
  if (!opts.exact_reals && !opts.solver_only) quick = falsify_by_simulation(fails);
  if (quick) {
    r.verdict = Verdict::Falsified;
    r.method = "an oracle run on inputs that keep the assumptions (their bounds and random values), before any solver";
    r.cex = std::move(*quick);
  } else if (!opts.exact_reals && !opts.solver_only && proved_by_bounds(v)) {
    r.verdict = Verdict::Valid;
    r.method = "proved by interval analysis in binary64: '" + pp.text + "' cannot be false or nil at any cycle";
  } else {
    // The property's cone of influence, reals as binary64.
    std::set<std::string> roots{v};
    // In Kind 2's reading, a property that can never be nil (the static analysis, as
    // initialisation uses it) reads no nil value, so where it is a value it is the same
    // for every first value of the pres (nil is strict; a merge's nil condition gives ‖,
    // not a value), and rml's single search decides it: its bad cycles include Kind 2's
    // (false), and a falsification still replays as a false value (`fails`). The two
    // phases below would spend half the share on runs that replay, wasted on a valid
    // property (most of Kind 2's classic benchmarks, whose every pre is guarded by ->).
    if (nil_fails || !may_be_nil_here().count(v)) {
      smt_invariant(
          r, [&](const TransitionSystem::Frame &f) { return f.p.at(v) && (f.nil.at(v) || !f.v.at(v)); },
          "'" + pp.text + "' holds at every cycle", fails, true, &roots, true);
    } else {
      // Kind 2's reading. A run where the property is false at a cycle where it reads no nil
      // is one the oracle replays; one where it is false only for some first values of its
      // pres is not (and BMC would find those first, again and again). So first the runs
      // that the oracle can replay, with half of the share; then the proof for every first
      // value, with what is left (a proof of the first search says only "never false
      // without a nil", and is not kept).
      PropertyResult replayable = r;
      {
        const Budget share = budget;
        struct Restore {
          Budget &b;
          const Budget &to;
          ~Restore() { b = to; }
        } restore{budget, share};
        budget = share.slice(1, 2);
        // One lane: a second lane's proof here would end the property's share (under a
        // wall-clock budget, Budget::end_share), the second phase's too, and it proves only
        // the weaker claim.
        struct OneLane {
          int &lanes;
          int was;
          ~OneLane() { lanes = was; }
        } one_lane{opts.lanes, opts.lanes};
        opts.lanes = 1;
        try {
          smt_invariant(
              replayable, [&](const TransitionSystem::Frame &f) { return f.p.at(v) && !f.nil.at(v) && !f.v.at(v); },
              "'" + pp.text + "' is never false where it reads no nil", fails, true, &roots, true);
        } catch (BudgetExhausted &) {
          if (share.exhausted()) throw;
        } catch (z3::exception &) {
          if (share.exhausted()) throw;
        }
      }
      if (replayable.verdict == Verdict::Falsified) {
        r = std::move(replayable);
      } else {
        smt_invariant(
            r, [&](const TransitionSystem::Frame &f) { return f.p.at(v) && !f.v.at(v); },
            "'" + pp.text + "' holds at every cycle for every first value of its pres", fails, true, &roots, true);
      }
    }
    if (r.verdict == Verdict::Falsified && r.cex) shrink(*r.cex, fails);
  }
  if (r.verdict == Verdict::Falsified && r.cex && nil_fails && r.cex->what.find(" is nil at cycle ") != std::string::npos)
    r.method += " (nil: the first value of a 'pre'; Kind 2 and JKind read it as any value of its type, which --pre-any checks)";
  if (r.verdict == Verdict::Falsified)
    r.findings.push_back(Finding{"property.falsified", "the property " + label + " does not hold", pp.span});
  return r;
}

// How messages name a property: 'text', or "name" 'text' when it has a name (as the
// reports print it).
std::string property_label(const core::CoreProperty &pp) {
  return (pp.name.empty() ? "" : "\"" + pp.name + "\" ") + "'" + pp.text + "'";
}

// The property's variable, then the variables it reads that the user named (through the
// temporaries of its expression) or that an imported call computes (the trace gives its
// values), in the order met: what the replay shows.
std::vector<std::string> Checker::read_by(const std::string &var) {
  auto generated = [](const std::string &n) {
    size_t dot = n.rfind('.');
    return n.compare(dot == std::string::npos ? 0 : dot + 1, 1, "$") == 0;
  };
  std::vector<std::string> out{var};
  std::set<std::string> seen{var};
  std::vector<std::string> todo{var};
  while (!todo.empty() && out.size() < 12) {
    std::string x = todo.front();
    todo.erase(todo.begin());
    if (x != var && !generated(x)) continue;  // a named variable: shown, not expanded
    const core::Equation *eq = def_of(x);
    if (!eq) continue;
    for (auto &a : eq->args)
      if (seen.insert(a).second) {
        const core::Equation *def = def_of(a);
        if (!generated(a) || (def && def->prim == core::Prim::Apply && def->op == core::ApplyOp::Imported)) out.push_back(a);
        todo.push_back(a);
      }
  }
  return out;
}

}  // namespace rml::check
