// The budget of one check: wall-clock seconds (Options::timeout_s), Z3's resource count
// (Options::rlimit), both or neither. Z3 counts resources (rlimit units) by the work its
// procedures do, not by the clock, so a check bounded by the count alone reaches the same
// verdict on any machine at any load; a wall-clock budget does not, and tests never pin a
// verdict reached under one. Every Z3 context of a check charges what it spent to one
// shared meter; a slice (part of what is left) lets one search keep budget for the rest.
// A wall-clock budget is kept by interruption, not by polling: a watchdog thread calls
// Z3's interrupt on every query of the check in flight when the deadline passes, so a long
// query (Spacer's included) ends there instead of at its own, coarser, limit. A query
// limited to a slice's deadline is interrupted by the same thread, never by Z3's own
// "timeout" parameter: Z3 4.8's timer threads can deadlock (Z3 issues #5371, #5990),
// which left rml-check hanging past --timeout on a busy machine.
// Every interrupt lands inside a query (Budget::Query), never between queries: Z3 4.8.12
// deletes a fixedpoint (Spacer) with code that rewrites terms, an interrupt reaching its
// context meanwhile made the rewriter throw inside a destructor, and std::terminate ended
// the process (the second lane, cancelled while its Spacer object was being deleted).
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <thread>
#include <condition_variable>
#include <optional>
#include <stdexcept>
#include <string>

#include <z3++.h>

#include "checker/checker.hpp"

namespace rml::check {

// The budget of a check is spent: every later property is unknown.
struct BudgetExhausted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// What every slice of one check's budget shares.
struct BudgetState {
  uint64_t spent = 0;  // Z3 resource units charged by every context (one thread: the check's)
  std::mutex m;        // guards what the watchdog reads
  std::condition_variable cv;
  std::multiset<z3::context *> querying;  // contexts with a query in flight (Budget::Query)
  struct AlarmEntry {
    std::chrono::steady_clock::time_point at;  // when it rings next
    z3::context *ctx;
    int rung = 0;  // times it rang (the first is traced: trace.hpp)
  };
  std::map<uint64_t, AlarmEntry> alarms;  // queries' own deadlines (Budget::Query), by number
  uint64_t next_alarm = 0;
  bool stop = false, expired = false;
};

class Budget {
 public:
  // Starts now: the deadline is timeout_s from now, the resource count is rlimit from zero.
  explicit Budget(const Options &o);
  // num/den of what is left now; what the slice spends is spent by the whole check too.
  Budget slice(int num, int den) const;
  // A slice that one property spends (1/k of what is left when k properties are still to
  // check): what it leaves goes to the next. Its end is said as "its share ... ran out".
  Budget share(int k) const;
  // Milliseconds left (nullopt: no wall-clock limit), never negative.
  std::optional<uint64_t> ms_left() const;
  // Resource units left (nullopt: no resource limit).
  std::optional<uint64_t> units_left() const;
  bool exhausted() const;
  // Throws BudgetExhausted, saying which limit ran out.
  [[noreturn]] void fail() const;
  // Resources every context of the check has charged so far.
  uint64_t spent() const { return shared_->spent; }
  // Adds what a context spent since `counted`, given its count `now` (Z3 counts per
  // context, cumulatively).
  void charge(uint64_t now, uint64_t &counted) const;
  // Ends the check of this budget now (the second lane's, once the first has decided):
  // every slice is exhausted from here on, and every query in flight is interrupted. Safe
  // from another thread; call it until that thread is done (an interrupt that lands
  // before a query starts is lost).
  void cancel() const;
  // Ends this share now, and only it (its property was proved on the second lane while the
  // first still searched; only under a wall-clock budget, where what a property leaves
  // already depends on the machine): every slice of the share is exhausted from here on
  // and the check's queries in flight, all the share's, are interrupted. Safe from another
  // thread; call it until the share's engines have returned. Nothing on a budget that is
  // not a share.
  void end_share() const;
  // A query in flight on `ctx` while it lives: the only time the check interrupts ctx
  // (cancel, end_share, the watchdog past the deadline) and, when this budget has a
  // deadline (a slice's, which the watchdog does not know otherwise), interrupted there.
  // Made just before the query, destroyed as soon as it returns, before any Z3 object the
  // query used is deleted.
  class Query {
   public:
    Query(const Budget &b, z3::context &ctx);
    ~Query();
    Query(const Query &) = delete;
    Query &operator=(const Query &) = delete;

   private:
    std::shared_ptr<BudgetState> shared_;
    z3::context *ctx_;
    std::optional<uint64_t> id_;
  };

  // While it lives, interrupts the budget's queries in flight once its deadline passes,
  // and a query whose own deadline passed (a thread only when the budget has a deadline).
  class Watchdog {
   public:
    explicit Watchdog(const Budget &b);
    ~Watchdog();
    Watchdog(const Watchdog &) = delete;
    Watchdog &operator=(const Watchdog &) = delete;

   private:
    std::shared_ptr<BudgetState> shared_;
    std::thread thread_;
  };

 private:
  double timeout_s_ = 0;
  uint64_t rlimit_ = 0;
  std::optional<std::chrono::steady_clock::time_point> deadline_;
  std::shared_ptr<BudgetState> shared_;  // the meter and the queries in flight, one per check
  std::optional<uint64_t> end_;  // shared_->spent at which this budget ends
  bool share_ = false;           // a property's share (share())
  std::shared_ptr<std::atomic<bool>> ended_;  // a share's, and its slices': end_share() was called
};


// The resources Z3 has counted in a solver's context since it was made: every solver's
// statistics carry the context's count. Read it from a solver that has been used (a
// fresh one builds its procedures to answer: milliseconds each time).
uint64_t resources_counted(z3::solver &s);

}  // namespace rml::check
