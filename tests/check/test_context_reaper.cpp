// The reaper (checker/context_reaper.hpp) deletes what a finished encoding leaves on a
// thread of its own, so that freeing a large Z3 context never stands between a check and
// its deadline; and no context is made for a budget with nothing left.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "checker/budget.hpp"
#include "checker/context_reaper.hpp"
#include "checker/smt_session.hpp"
#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "sema/frontend.hpp"

using namespace rml;

namespace reaper_test {

// Says which thread deleted it.
struct Tracked {
  std::atomic<int> *deleted;
  std::thread::id *by;
  Tracked(std::atomic<int> *d, std::thread::id *b) : deleted(d), by(b) {}
  Tracked(const Tracked &) = delete;
  ~Tracked() {
    *by = std::this_thread::get_id();
    ++*deleted;
  }
};

TEST(ContextReaper, DeletesWhatItIsGivenOnAThreadOfItsOwn) {
  std::atomic<int> deleted{0};
  std::thread::id by;
  check::dispose_later(std::make_shared<Tracked>(&deleted, &by));
  check::wait_until_disposed();
  EXPECT_EQ(deleted.load(), 1);
  EXPECT_NE(by, std::this_thread::get_id());
}

// Many at once: every one is deleted, once, whether queued or (the queue full) here.
TEST(ContextReaper, DeletesEverythingOnce) {
  std::atomic<int> deleted{0};
  std::vector<std::thread::id> by(200);
  for (auto &b : by) check::dispose_later(std::make_shared<Tracked>(&deleted, &b));
  check::wait_until_disposed();
  EXPECT_EQ(deleted.load(), 200);
}

// While the reaper is busy with one and kMaxPendingContexts wait, the next is deleted by
// the caller at once: memory stays bounded when contexts come faster than they go.
TEST(ContextReaper, AFullQueueIsDeletedByTheCaller) {
  struct Blocking {
    std::promise<void> *started;
    std::shared_future<void> release;
    Blocking(std::promise<void> *s, std::shared_future<void> r) : started(s), release(std::move(r)) {}
    Blocking(const Blocking &) = delete;
    ~Blocking() {
      started->set_value();
      release.wait();
    }
  };
  std::promise<void> started, release;
  std::shared_future<void> released = release.get_future().share();
  check::dispose_later(std::make_shared<Blocking>(&started, released));
  started.get_future().wait();  // the reaper is inside the first deletion
  std::atomic<int> deleted{0};
  std::vector<std::thread::id> by(check::kMaxPendingContexts + 1);
  for (auto &b : by) check::dispose_later(std::make_shared<Tracked>(&deleted, &b));
  EXPECT_EQ(deleted.load(), 1);  // the last one, here
  EXPECT_EQ(by.back(), std::this_thread::get_id());
  release.set_value();
  check::wait_until_disposed();
  EXPECT_EQ(deleted.load(), check::kMaxPendingContexts + 1);
  for (int k = 0; k < check::kMaxPendingContexts; ++k) EXPECT_NE(by[static_cast<size_t>(k)], std::this_thread::get_id());
}

const char *kCounter = R"(
node main(x: int) returns (y: int);
let
  y = 0 -> pre y + x;
tel
)";

// A budget with nothing left makes no context (a large node's takes tenths of a second,
// which past the deadline only delay the report); one with some left makes one, and its
// context is freed by the reaper once the encoding is done.
TEST(ContextReaper, NoContextForASpentBudget) {
  auto fe = run_frontend("counter.lus", kCounter);
  ASSERT_FALSE(fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  core::Clocks clocks = core::infer_clocks(prog);
  check::Options o;
  o.rlimit = 10;
  check::Budget b(o);
  {
    check::Smt smt(prog, clocks, b);
    z3::solver s = smt.solver();
    smt.unroll(2, true, s);
    EXPECT_FALSE(b.exhausted());
  }
  uint64_t counted = 0;
  b.charge(10, counted);
  ASSERT_TRUE(b.exhausted());
  EXPECT_THROW(check::Smt(prog, clocks, b), check::BudgetExhausted);
  check::wait_until_disposed();
}

}  // namespace reaper_test
