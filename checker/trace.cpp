#include "checker/trace.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>

namespace rml::check::trace {

namespace {
thread_local std::string current;
const auto started = std::chrono::steady_clock::now();
std::mutex printing;
}  // namespace

bool on() {
  static const bool enabled = std::getenv("RML_CHECK_TRACE") != nullptr;
  return enabled;
}

void line(const std::string &text) {
  if (!on()) return;
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::lock_guard<std::mutex> lock(printing);
  std::fprintf(stderr, "[%8.3f s] %s\n", s, text.c_str());
}

Stage::Stage(std::string name) : previous_(current) { current = current.empty() ? std::move(name) : current + " / " + name; }
Stage::~Stage() { current = std::move(previous_); }
const std::string &stage() { return current; }

}  // namespace rml::check::trace
