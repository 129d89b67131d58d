// The second lane of a property (Options::lanes = 2): while the first lane runs the
// engines in their usual order (BMC and k-induction, then IC3/PDR, then deeper BMC, in
// each int encoding), IC3/PDR starts at once on a thread of its own. On a classic protocol
// model Spacer needs most of a 10-s budget, which the first lane reaches only after the
// cheaper engines have spent their part.
//
// Determinism: the first lane is exactly the one-lane check (its budget, its meter, its
// order). The second has a Checker of its own (its oracle runs, Houdini, contexts) and a
// budget of its own, what the property had left when it started, on a meter of its own,
// so under a resource budget what it proves does not depend on the machine either. The
// verdict is the first lane's when it decides, else the second lane's proof, else the
// first lane's unknown: each is deterministic, so the report is. The second lane only ever
// proves (Spacer's counterexamples are not replayed), so it cannot falsify anything.
//
// Under a wall-clock budget (--timeout), a proof on the second lane also ends the first
// lane's share at once (Budget::end_share): the property is valid whatever the first lane
// would have found (both are sound), and the time it would have spent goes to the
// properties after it (with a wall-clock budget, what a property leaves already depends on
// the machine). Under a resource budget alone the first lane runs on, so that what it
// leaves, and every later verdict, stays the same on any machine.
#pragma once
#include <condition_variable>
#include <functional>
#include <future>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "checker/engine.hpp"

namespace rml::check {

class SecondLane {
 public:
  // Starts the lane for a property of `first`'s node with the budget `left`; `bad`,
  // `roots` and what they refer to must outlive it (smt_invariant's frame).
  SecondLane(const Checker &first, const Budget &left, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
             std::string what, bool ticking, const std::set<std::string> *roots, bool reals);
  // Stops the lane (its budget cancelled) and waits for its thread.
  ~SecondLane();
  SecondLane(const SecondLane &) = delete;
  SecondLane &operator=(const SecondLane &) = delete;
  // Waits until the lane ends by itself; when it proved the property, its verdict and
  // method go to r, and true.
  bool take_proof(PropertyResult &r);

 private:
  // The first lane has returned (take_proof, the destructor): the second stops ending its share.
  void first_lane_returned();

  std::unique_ptr<Checker> checker_;
  Budget first_;            // the first lane's share, which a proof here ends (wall clock only)
  bool end_first_ = false;  // whether a proof here ends it
  std::mutex m_;
  std::condition_variable returned_cv_;
  bool returned_ = false;   // guarded by m_
  PropertyResult result_;
  std::future<void> finished_;  // ready once the lane's thread has nothing left to do
  std::thread thread_;
};

// Options for a lane with `left` of a budget: the same resource limit, and nine tenths of
// the time, counted from now. nullopt when nothing is left.
std::optional<Options> lane_options(const Options &o, const Budget &left);

}  // namespace rml::check
