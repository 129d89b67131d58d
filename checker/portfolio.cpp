#include "checker/portfolio.hpp"
#include "checker/trace.hpp"

#include <chrono>
#include <new>
#include <system_error>

namespace rml::check {

std::optional<Options> lane_options(const Options &o, const Budget &left) {
  Options lane = o;
  lane.lanes = 1;
  lane.explain = false;
  lane.starting = nullptr;  // no progress line of its own
  auto units = left.units_left();
  auto ms = left.ms_left();
  if ((units && *units == 0) || (ms && *ms == 0)) return std::nullopt;
  lane.rlimit = units ? *units : 0;
  // A tenth of the time is kept back: the lane's last engine is Spacer, which on a node of
  // thousands of equations answered an interrupt 1.5-1.8 s late (Kind 2's Mode_Logic
  // models), and the check waits for the lane before it reports.
  lane.timeout_s = ms ? 0.9 * static_cast<double>(*ms) / 1000.0 : 0;
  return lane;
}

SecondLane::SecondLane(const Checker &first, const Budget &left,
                       const std::function<z3::expr(const TransitionSystem::Frame &)> &bad, std::string what, bool ticking,
                       const std::set<std::string> *roots, bool reals)
    : first_(left), end_first_(left.ms_left().has_value()) {
  std::optional<Options> o = lane_options(first.opts, left);
  if (!o) return;
  try {
    // Made here, so that the destructor can cancel its budget at any time.
    checker_ = std::make_unique<Checker>(first.cp, first.prog, first.clocks, *o);
    checker_->free_values = first.free_values;
    checker_->encode_overflow = first.encode_overflow;
    checker_->overflow_reading = first.overflow_reading;
    checker_->proved_horizon = first.proved_horizon;
    std::promise<void> finished;
    finished_ = finished.get_future();
    thread_ = std::thread([this, &bad, what = std::move(what), ticking, roots, reals, finished = std::move(finished)]() mutable {
      try {
        checker_->spacer_lane(result_, bad, what, ticking, roots, reals);
      } catch (...) {  // its budget ran out or was cancelled, Z3 failed, memory: the lane says nothing
        result_.verdict = Verdict::Unknown;
      }
      // Proved: the first lane's share ends, again every 10 ms until that lane has returned
      // (an interrupt that lands between two of its queries is lost).
      if (result_.verdict == Verdict::Valid && end_first_) {
        std::unique_lock<std::mutex> lock(m_);
        while (!returned_) {
          first_.end_share();
          returned_cv_.wait_for(lock, std::chrono::milliseconds(10));
        }
      }
      finished.set_value();
    });
  } catch (const std::system_error &) {  // no thread for it (or for its watchdog): one lane
    checker_.reset();
  } catch (const std::bad_alloc &) {
    checker_.reset();
  }
}

void SecondLane::first_lane_returned() {
  {
    std::lock_guard<std::mutex> lock(m_);
    returned_ = true;
  }
  returned_cv_.notify_all();
}

SecondLane::~SecondLane() {
  if (!thread_.joinable()) return;
  first_lane_returned();
  // Again until the thread ends: an interrupt that lands between two queries is lost (the
  // lane looks at its budget before every query and frame, so it ends within one query).
  do checker_->budget.cancel();
  while (finished_.wait_for(std::chrono::milliseconds(10)) != std::future_status::ready);
  thread_.join();
}

bool SecondLane::take_proof(PropertyResult &r) {
  if (!thread_.joinable()) return false;
  first_lane_returned();
  thread_.join();
  if (result_.verdict != Verdict::Valid) return false;
  r.verdict = Verdict::Valid;
  r.method = result_.method + ", on a second lane beside the other engines";
  return true;
}

// Over mathematical integers with half of the lane (the wraps counted as in the first
// lane, its latches found again), then, when an int can wrap and the program is linear,
// over integers modulo 2^64 with the rest.
void Checker::spacer_lane(PropertyResult &r, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                          const std::string &what, bool ticking, const std::set<std::string> *roots, bool reals) {
  trace::Stage stage("lane 2");
  auto never = [](const oracle::Result &, Counterexample &) { return false; };  // no BMC here
  auto spacer = [&](Smt &smt, bool wraps) {
    EngineProgress only;
    only.induction_over = only.spacer_only = true;
    return run_engines(r, smt, bad, what, never, ticking, wraps, false, &only) == EngineEnd::Decided;
  };
  bool can_wrap = false, linear = false;
  try {
    Smt smt(prog, clocks, budget, roots, reals);
    smt.ts->lia_ints = true;
    smt.ts->nil_values_read = opts.pre_any;
    smt.ts->overflow_exact = overflow_reading;
    can_wrap = !opts.ignore_wraps && !smt.ts->frame(0, nullptr, false).wrap.is_false();
    linear = !smt.ts->nonlinear_ints;
    if (can_wrap && linear) smt.budget = budget.slice(1, 2);  // else this encoding is the only one
    struct Reset {
      std::vector<std::string> &l;
      ~Reset() { l.clear(); }
    } reset{latches_};
    if (can_wrap && opts.wrap_latches) latches_ = wrap_latches(bad, roots, reals, smt.budget.slice(1, 16));
    if (spacer(smt, can_wrap)) return;
  } catch (BudgetExhausted &) {
    if (budget.exhausted()) throw;
  } catch (z3::exception &) {
    if (budget.exhausted()) throw;
  }
  if (!can_wrap || !linear) return;
  Smt mod(prog, clocks, budget, roots, reals);
  mod.ts->lia_ints = mod.ts->lia_modular = true;
  mod.ts->nil_values_read = opts.pre_any;
  spacer(mod, false);
}

}  // namespace rml::check
