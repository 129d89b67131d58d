// Deleting a Z3 context frees every term it made. For a large node that takes up to
// seconds (Z3 4.8 frees a term in time that grows with its depth), and no interrupt
// shortens it: done where the check runs, it put checks past their `--timeout` after the
// last query had stopped in time. A finished encoding (a context with what lives in it) is
// handed here instead, and one background thread deletes what it is given, in order.
#pragma once
#include <memory>

namespace rml::check {

// Deletes `remains` on the reaper thread. When `kMaxPendingContexts` are already waiting,
// deletes it here instead, so that memory stays bounded when contexts are made faster than
// they are freed.
void dispose_later(std::shared_ptr<void> remains);
inline constexpr int kMaxPendingContexts = 3;

// Returns once everything handed over so far is deleted (what a process exiting normally
// does too: the reaper's static destructor drains the queue). The command-line tools do
// not wait: they end with std::_Exit once their output is written (except under a leak
// checker, src/tools/options.cpp).
void wait_until_disposed();

}  // namespace rml::check
