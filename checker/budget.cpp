#include "checker/trace.hpp"
#include "checker/budget.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>

namespace rml::check {

Budget::Budget(const Options &o) : timeout_s_(o.timeout_s), rlimit_(o.rlimit), shared_(std::make_shared<BudgetState>()) {
  if (o.timeout_s > 0)
    deadline_ = std::chrono::steady_clock::now() +
                std::chrono::milliseconds(static_cast<long long>(std::min(o.timeout_s, 1e9) * 1000));
  if (o.rlimit > 0) end_ = o.rlimit;
}

Budget Budget::slice(int num, int den) const {
  Budget b = *this;
  if (deadline_) {
    auto now = std::chrono::steady_clock::now();
    auto left = std::max(*deadline_ - now, std::chrono::steady_clock::duration::zero());
    b.deadline_ = now + left * num / den;
  }
  if (end_) {
    uint64_t left = *end_ > shared_->spent ? *end_ - shared_->spent : 0;
    b.end_ = shared_->spent + left / static_cast<uint64_t>(den) * static_cast<uint64_t>(num);
  }
  return b;
}

Budget Budget::share(int k) const {
  Budget b = slice(1, std::max(k, 1));
  b.share_ = true;
  b.ended_ = std::make_shared<std::atomic<bool>>(false);
  return b;
}

std::optional<uint64_t> Budget::ms_left() const {
  if (!deadline_) return std::nullopt;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(*deadline_ - std::chrono::steady_clock::now()).count();
  return left > 0 ? static_cast<uint64_t>(left) : 0;
}

std::optional<uint64_t> Budget::units_left() const {
  if (!end_) return std::nullopt;
  return *end_ > shared_->spent ? *end_ - shared_->spent : 0;
}

bool Budget::exhausted() const {
  if (ended_ && ended_->load()) return true;
  {
    std::lock_guard<std::mutex> lock(shared_->m);
    if (shared_->expired) return true;
  }
  auto ms = ms_left();
  auto units = units_left();
  return (ms && *ms == 0) || (units && *units == 0);
}

void Budget::fail() const {
  std::ostringstream o;
  auto units = units_left();
  const char *part = share_ ? "its share of " : "";  // the other properties keep theirs
  if (ended_ && ended_->load()) throw BudgetExhausted("its engines were stopped once the second lane had proved it");
  if (units && *units == 0 && !(ms_left() && *ms_left() == 0))
    o << part << "the resource budget of the check (" << rlimit_ << " Z3 resource units) ran out (raise it with --rlimit)";
  else
    o << part << "the time budget of the check (" << timeout_s_ << " s) ran out (raise it with --timeout)";
  throw BudgetExhausted(o.str());
}

uint64_t resources_counted(z3::solver &s) {
  z3::stats st = s.statistics();
  for (unsigned i = 0; i < st.size(); ++i)
    if (st.key(i) == "rlimit count")
      return st.is_uint(i) ? st.uint_value(i) : static_cast<uint64_t>(std::llround(st.double_value(i)));
  return 0;
}

void Budget::charge(uint64_t now, uint64_t &counted) const {
  if (now > counted) shared_->spent += now - counted;
  counted = std::max(counted, now);
}

void Budget::cancel() const {
  std::lock_guard<std::mutex> lock(shared_->m);
  shared_->expired = true;
  for (z3::context *c : shared_->querying) c->interrupt();
}

void Budget::end_share() const {
  if (!ended_) return;
  ended_->store(true);
  std::lock_guard<std::mutex> lock(shared_->m);
  for (z3::context *c : shared_->querying) c->interrupt();
}

Budget::Query::Query(const Budget &b, z3::context &ctx) : shared_(b.shared_), ctx_(&ctx) {
  std::lock_guard<std::mutex> lock(shared_->m);
  shared_->querying.insert(&ctx);
  if (!b.deadline_) return;
  id_ = shared_->next_alarm++;
  shared_->alarms.emplace(*id_, BudgetState::AlarmEntry{*b.deadline_, &ctx});
  shared_->cv.notify_all();  // the watchdog may have to wake earlier
}

// Removed under the lock as soon as the query returns: no interrupt of this budget
// reaches the context after that (interrupt() is only called under the same lock).
Budget::Query::~Query() {
  std::lock_guard<std::mutex> lock(shared_->m);
  shared_->querying.erase(shared_->querying.find(ctx_));
  if (id_) shared_->alarms.erase(*id_);
}

// An interrupt that reaches a context before its query has started is lost (Z3 4.8.12
// clears the flag when a query starts), and one can land between the check of the budget
// and the start of the query (the CI machine met it). So the watchdog rings again every
// kRing until the alarm is removed (the query returned) and, past the deadline,
// interrupts every query in flight every kRing until the check ends: an interrupt lost
// to that race is followed by one the query receives.
Budget::Watchdog::Watchdog(const Budget &b) : shared_(b.shared_) {
  if (!b.deadline_) return;
  auto deadline = *b.deadline_;
  thread_ = std::thread([shared = shared_, deadline] {
    constexpr auto kRing = std::chrono::milliseconds(10);
    std::unique_lock<std::mutex> lock(shared->m);
    for (;;) {
      // Looked at under the lock before each wait: a stop (or an alarm) set while this
      // thread was not waiting is not lost.
      if (shared->stop) return;
      auto now = std::chrono::steady_clock::now();
      if (now >= deadline && !shared->expired) trace::line("a deadline passed: " + std::to_string(shared->querying.size()) + " queries interrupted");
      if (now >= deadline) shared->expired = true;
      if (shared->expired)
        for (z3::context *c : shared->querying) c->interrupt();
      auto wake = shared->expired ? now + kRing : deadline;
      for (auto &[id, a] : shared->alarms) {  // a few at a time (one per nested engine): scanned
        if (a.at <= now && trace::on() && a.rung++ == 0) trace::line("a query's alarm rang");
        if (a.at <= now) a.ctx->interrupt(), a.at = now + kRing;
        wake = std::min(wake, a.at);
      }
      shared->cv.wait_until(lock, wake);
    }
  });
}

Budget::Watchdog::~Watchdog() {
  {
    std::lock_guard<std::mutex> lock(shared_->m);
    shared_->stop = true;
  }
  shared_->cv.notify_all();
  if (thread_.joinable()) thread_.join();
}

}  // namespace rml::check
