#include "checker/context_reaper.hpp"

#include <condition_variable>
#include <deque>
#include <mutex>
#include <thread>

namespace rml::check {
namespace {

class Reaper {
 public:
  Reaper() : worker_([this] { run(); }) {}
  // A process that exits normally frees every context first (leak checkers see none),
  // while Z3's own static state still lives: this object is made after Z3 is loaded, so it
  // is destroyed before.
  ~Reaper() {
    {
      std::lock_guard<std::mutex> l(m_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  void give(std::shared_ptr<void> remains) {
    {
      std::lock_guard<std::mutex> l(m_);
      if (static_cast<int>(queue_.size()) < kMaxPendingContexts) {
        queue_.push_back(std::move(remains));
        cv_.notify_all();
        return;
      }
    }
    remains.reset();  // the queue is full: deleted by the caller, outside the lock
  }
  void drain() {
    std::unique_lock<std::mutex> l(m_);
    idle_.wait(l, [this] { return queue_.empty() && !busy_; });
  }

 private:
  void run() {
    std::unique_lock<std::mutex> l(m_);
    for (;;) {
      cv_.wait(l, [this] { return stop_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stop_, and nothing left to delete
      std::shared_ptr<void> next = std::move(queue_.front());
      queue_.pop_front();
      busy_ = true;
      l.unlock();
      next.reset();
      l.lock();
      busy_ = false;
      if (queue_.empty()) idle_.notify_all();
    }
  }
  std::mutex m_;
  std::condition_variable cv_, idle_;
  std::deque<std::shared_ptr<void>> queue_;
  bool stop_ = false, busy_ = false;
  std::thread worker_;  // last: started once the members it reads exist
};

Reaper &reaper() {
  static Reaper r;
  return r;
}

}  // namespace

void dispose_later(std::shared_ptr<void> remains) { reaper().give(std::move(remains)); }

void wait_until_disposed() { reaper().drain(); }

}  // namespace rml::check
