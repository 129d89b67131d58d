// What every Z3 query of the checker shares: a context with the node's transition system
// (smt_model), solvers that spend the check's one time budget, the invariants proved for
// that encoding, and the way back from a model to an oracle trace.
#pragma once
#include <chrono>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <z3++.h>

#include "checker/checker.hpp"
#include "checker/smt_model.hpp"
#include "core/clocks.hpp"

namespace rml::check {

struct Interval {  // for a bool memory: lo = hi = the constant value (0 or 1)
  size_t slot, started;
  int64_t lo, hi;
  bool is_bool = false;
  bool never_nil = false;     // the candidate "started ⇒ the memory is not nil" (slot = nil flag)
  bool same_started = false;  // the candidate "slot == started" (two started flags)
};

std::string fmt_seconds(double s);

// The time budget of a check (Options::timeout_s) is spent: every later property is unknown.
struct BudgetExhausted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Smt {
  z3::context ctx;
  std::unique_ptr<TransitionSystem> ts;
  const Options &opts;
  // Proved invariants of this encoding (state slots are specific to it).
  std::vector<Interval> invariants;
  bool invariants_done = false;
  Smt(const core::Program &p, const core::Clocks &c, const Options &o, const std::set<std::string> *roots = nullptr)
      : opts(o) {
    ts = std::make_unique<TransitionSystem>(ctx, p, c, roots);
  }
  z3::solver solver() {
    z3::solver s(ctx);
    z3::params prm(ctx);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(opts.deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) throw BudgetExhausted("the time budget of the check (" + fmt_seconds(opts.timeout_s) + " s) ran out");
    prm.set("timeout", static_cast<unsigned>(std::min<long long>(left, 0xFFFFFFF0LL)));
    s.set(prm);
    return s;
  }
  // Frames 0..n-1 from the initial state (or a free state).
  std::vector<TransitionSystem::Frame> unroll(int n, bool initial, z3::solver &s) {
    std::vector<TransitionSystem::Frame> fs;
    for (int k = 0; k < n; ++k) {
      fs.push_back(ts->frame(k, k ? &fs.back() : nullptr, initial && k == 0));
      for (auto e : fs.back().constraints) s.add(e);
    }
    return fs;
  }
};

// Reads the inputs of a model as an oracle trace.
oracle::Inputs model_inputs(const core::Program &p, const std::vector<TransitionSystem::Frame> &fs, z3::model &m);

std::string trace_csv(const core::Program &p, const oracle::Inputs &in);

// The uninterpreted constants of some expressions (the variables of a Horn clause).
z3::expr_vector free_constants(z3::context &ctx, const std::vector<z3::expr> &roots);

}  // namespace rml::check
