// The numeric options of both executables, one validator each (commands.hpp).
#include "tools/commands.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <iomanip>
#include <sstream>

namespace rml {

namespace {
// A count: digits only (no sign, no exponent, no spaces), from 1 to max.
std::optional<uint64_t> parse_count(const std::string &text, uint64_t max) {
  if (text.empty() || text.size() > 13 || !std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; }))
    return std::nullopt;
  uint64_t v = 0;
  for (char ch : text) v = v * 10 + static_cast<uint64_t>(ch - '0');
  if (v < 1 || v > max) return std::nullopt;
  return v;
}
}  // namespace

std::optional<size_t> parse_cycles(const std::string &text, std::string &error) {
  if (auto v = parse_count(text, kMaxCycles)) return static_cast<size_t>(*v);
  error = "--cycles: expected an integer from 1 to " + std::to_string(kMaxCycles) + ", got '" + text + "'";
  return std::nullopt;
}

std::optional<uint64_t> parse_seed(const std::string &text, std::string &error) {
  // Digits only, and at most 2^64 - 1: a sign or a larger number is refused, never wrapped
  // (`-1` and 2^64 would otherwise both be read as 2^64 - 1).
  uint64_t v = 0;
  bool ok = !text.empty() && text.size() <= 20 && std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  for (size_t i = 0; ok && i < text.size(); ++i) {
    uint64_t d = static_cast<uint64_t>(text[i] - '0');
    ok = v <= (UINT64_MAX - d) / 10;
    v = v * 10 + d;
  }
  if (ok) return v;
  error = "--seed: expected an integer from 0 to 18446744073709551615, got '" + text + "'";
  return std::nullopt;
}

std::string timeout_message(const std::string &got) {
  return "--timeout: expected a number of seconds greater than 0 and at most " +
         std::to_string(static_cast<long>(kMaxTimeoutSeconds)) + ", got '" + got + "'";
}

std::optional<double> parse_timeout(const std::string &text, std::string &error) {
  const char *b = text.c_str();
  char *e = nullptr;
  double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? NAN : std::strtod(b, &e);
  if (e && *e == '\0' && std::isfinite(v) && v > 0 && v <= kMaxTimeoutSeconds) return v;
  error = timeout_message(text);
  return std::nullopt;
}

std::optional<uint64_t> parse_rlimit(const std::string &text, std::string &error) {
  if (auto v = parse_count(text, kMaxRlimit)) return v;
  error = "--rlimit: expected a number of Z3 resource units from 1 to " + std::to_string(kMaxRlimit) + ", got '" + text + "'";
  return std::nullopt;
}

namespace {
std::optional<double> parse_tolerance(const std::string &text, std::string &error, const char *name, double max,
                                      const char *range) {
  const char *b = text.c_str();
  char *e = nullptr;
  double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? NAN : std::strtod(b, &e);
  if (e && *e == '\0' && std::isfinite(v) && v >= 0 && v <= max) return v;
  error = std::string(name) + ": expected " + range + ", got '" + text + "'";
  return std::nullopt;
}
}  // namespace

std::optional<double> parse_rel_tol(const std::string &text, std::string &error) {
  return parse_tolerance(text, error, "--rel-tol", 1.0, "a number from 0 to 1");
}

std::optional<double> parse_abs_tol(const std::string &text, std::string &error) {
  return parse_tolerance(text, error, "--abs-tol", HUGE_VAL, "a finite number >= 0");
}

std::optional<uint64_t> parse_memory(const std::string &text, std::string &error) {
  // An integer, optionally followed by K, M, G or T (powers of 1024), optionally "iB" or "B".
  size_t k = 0;
  uint64_t v = 0;
  bool ok = true;
  while (k < text.size() && text[k] >= '0' && text[k] <= '9' && ok) {
    ok = v <= (UINT64_MAX - 9) / 10;
    v = v * 10 + static_cast<uint64_t>(text[k++] - '0');
  }
  ok = ok && k > 0;
  std::string unit = text.substr(k);
  static const std::pair<const char *, int> kUnits[] = {{"", 0},    {"B", 0},    {"K", 10},   {"KB", 10}, {"KiB", 10},
                                                        {"M", 20},   {"MB", 20},  {"MiB", 20}, {"G", 30},  {"GB", 30},
                                                        {"GiB", 30}, {"T", 40},   {"TB", 40},  {"TiB", 40}};
  int shift = -1;
  for (auto &[name, sh] : kUnits)
    if (unit == name) shift = sh;
  ok = ok && shift >= 0 && v <= (kMaxMaxMemory >> shift);
  if (ok) v <<= shift;
  if (ok && v >= kMinMaxMemory && v <= kMaxMaxMemory) return v;
  error = "--max-memory: expected a size from 1M to 1T (an integer, optionally followed by K, M, G or T), got '" + text + "'";
  return std::nullopt;
}

}  // namespace rml

// Under a leak checker, the process exits normally: the reaper then frees every context
// before the checker looks (the tests of both executables run under it).
#if defined(__SANITIZE_ADDRESS__)
#define RML_LEAK_CHECKED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(leak_sanitizer)
#define RML_LEAK_CHECKED 1
#endif
#endif

namespace rml {
void exit_now(int code) {
  std::cout.flush();
  std::cerr.flush();
  std::fflush(nullptr);
#ifdef RML_LEAK_CHECKED
  std::exit(code);
#else
  std::_Exit(code);
#endif
}
}  // namespace rml
