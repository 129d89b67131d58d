#include "gmm_data.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#ifndef RML_ADBENCH_DEFAULT_DIR
#error "RML_ADBENCH_DEFAULT_DIR must be defined by the build"
#endif

namespace rml::adbench {

std::vector<double> GmmInput::params() const {
  std::vector<double> p(alphas);
  p.insert(p.end(), means.begin(), means.end());
  p.insert(p.end(), icf.begin(), icf.end());
  return p;
}

namespace {

[[noreturn]] void fail(const std::string &path, const std::string &what) {
  throw std::runtime_error(path + ": not an ADBench GMM file: " + what);
}

long long parse_int(const std::string &path, const std::string &tok, const char *what) {
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(tok.c_str(), &end, 10);
  if (tok.empty() || *end != '\0' || errno == ERANGE) fail(path, std::string(what) + " '" + tok + "' is not an integer");
  return v;
}

double parse_real(const std::string &path, const std::string &tok, const char *what) {
  errno = 0;
  char *end = nullptr;
  double v = std::strtod(tok.c_str(), &end);
  if (tok.empty() || *end != '\0' || !std::isfinite(v)) fail(path, std::string(what) + " '" + tok + "' is not a finite number");
  return v;
}

}  // namespace

GmmInput read_gmm(const std::string &path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(path + ": cannot open");
  std::vector<std::string> toks;
  for (std::string t; in >> t;) toks.push_back(std::move(t));
  if (toks.size() < 3) fail(path, "no 'd k n' header");
  GmmInput g;
  long long d = parse_int(path, toks[0], "d"), k = parse_int(path, toks[1], "k"), n = parse_int(path, toks[2], "n");
  // Bounded so that the counts below cannot overflow; the real files stay far below.
  if (d < 1 || k < 1 || n < 1 || d > 100000 || k > 100000 || n > 100000000)
    fail(path, "header sizes d=" + toks[0] + " k=" + toks[1] + " n=" + toks[2] + " out of range");
  const long long t = d * (d + 1) / 2;
  const long long before_x = 3 + k + k * d + k * t;
  const long long full = before_x + n * d + 2, replicated = before_x + d + 2;
  const long long have = static_cast<long long>(toks.size());
  if (have != full && have != replicated) {
    std::ostringstream msg;
    msg << "expected " << full << " numbers for d=" << d << " k=" << k << " n=" << n;
    if (replicated != full) msg << " (or " << replicated << " with one replicated point)";
    msg << ", found " << have;
    fail(path, msg.str());
  }
  g.d = static_cast<int>(d);
  g.k = static_cast<int>(k);
  g.n = static_cast<int>(n);
  size_t p = 3;
  auto reals = [&](std::vector<double> &out, long long count, const char *what) {
    out.resize(static_cast<size_t>(count));
    for (auto &v : out) v = parse_real(path, toks[p++], what);
  };
  reals(g.alphas, k, "alpha");
  reals(g.means, k * d, "mean");
  reals(g.icf, k * t, "icf entry");
  if (have == full) {
    reals(g.x, n * d, "point coordinate");
  } else {  // ADBench's replicate_point mode: one point, n copies
    std::vector<double> one;
    reals(one, d, "point coordinate");
    g.x.resize(static_cast<size_t>(n * d));
    for (long long i = 0; i < n; ++i) std::copy(one.begin(), one.end(), g.x.begin() + i * d);
  }
  g.gamma = parse_real(path, toks[p++], "Wishart gamma");
  long long m = parse_int(path, toks[p++], "Wishart m");
  if (m < 0 || m > 1000000000) fail(path, "Wishart m = " + std::to_string(m) + " out of range");
  g.m = static_cast<int>(m);
  return g;
}

std::string data_dir() {
  if (const char *e = std::getenv("RML_ADBENCH_DIR"); e && *e) return e;
  return RML_ADBENCH_DEFAULT_DIR;
}

double rho(double x, double y) { return std::abs(x - y) / std::max(1.0, std::abs(x) + std::abs(y)); }

}  // namespace rml::adbench
