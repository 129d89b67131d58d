#include "diff/compare.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "formats/chronogram_table.hpp"

namespace rml::diff {

int Chronogram::column(const std::string &name) const {
  for (size_t i = 0; i < columns.size(); ++i)
    if (columns[i] == name) return static_cast<int>(i);
  return -1;
}

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

std::optional<double> real_of(const std::string &s) {
  if (s.empty()) return std::nullopt;
  const char *b = s.c_str();
  char *end = nullptr;
  double v = std::strtod(b, &end);
  if (end != b + s.size()) return std::nullopt;
  return v;
}
std::optional<long long> int_of(const std::string &s) {
  if (s.empty()) return std::nullopt;
  errno = 0;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (errno || end != s.c_str() + s.size()) return std::nullopt;
  return v;
}
bool is_real_text(const std::string &s) {
  return s.find_first_of(".eE") != std::string::npos || s == "inf" || s == "-inf" || s == "nan" || s == "-nan";
}
std::optional<bool> bool_of(const std::string &s) {
  if (s == "T" || s == "true" || s == "TRUE" || s == "True") return true;
  if (s == "F" || s == "false" || s == "FALSE" || s == "False") return false;
  return std::nullopt;
}
std::vector<std::string> elements(const std::string &s) {  // "[1, [2, 3]]" -> leaves
  std::vector<std::string> r;
  std::string cur;
  for (char ch : s) {
    if (ch == '[' || ch == ']' || ch == ',') {
      if (!trim(cur).empty()) r.push_back(trim(cur));
      cur.clear();
      if (ch != ',') r.push_back(std::string(1, ch));
    } else {
      cur += ch;
    }
  }
  if (!trim(cur).empty()) r.push_back(trim(cur));
  return r;
}

bool scalar_equal(const std::string &o, const std::string &b, const Tolerance &t) {
  if (o == b) return true;
  if (auto ob = bool_of(o)) return bool_of(b) == ob;
  if (o == "_" || o == "nil" || o == "‖") return false;
  if (is_real_text(o)) {
    auto x = real_of(o), y = real_of(b);
    return x && y && reals_equal(*x, *y, t);
  }
  auto x = int_of(o), y = int_of(b);
  return x && y && *x == *y;
}

}  // namespace

std::optional<Chronogram> read_chronogram(const std::string &text, std::string &error) {
  formats::ChronogramTable t;
  if (!formats::read_csv_chronogram(text, t, error)) return std::nullopt;
  return Chronogram{std::move(t.names), std::move(t.rows)};
}

bool reals_equal(double a, double b, const Tolerance &t) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  if (a == b) return true;
  if (std::isinf(a) || std::isinf(b)) return false;
  if (t.rel > 0 && std::fabs(a - b) <= t.rel * std::fmax(std::fabs(a), std::fabs(b))) return true;
  if (t.abs > 0 && std::fabs(a - b) <= t.abs) return true;
  // Distance in representable doubles: the bit patterns ordered as integers.
  auto key = [](double x) {
    int64_t i;
    std::memcpy(&i, &x, sizeof i);
    return i < 0 ? INT64_MIN - i : i;
  };
  int64_t ka = key(a), kb = key(b);
  uint64_t dist = ka > kb ? static_cast<uint64_t>(ka) - static_cast<uint64_t>(kb) : static_cast<uint64_t>(kb) - static_cast<uint64_t>(ka);
  return t.ulps > 0 && dist <= static_cast<uint64_t>(t.ulps);
}

bool cells_equal(const std::string &oracle, const std::string &backend, const Tolerance &t) {
  if (oracle == "?") return true;
  if (!oracle.empty() && oracle[0] == '[') {
    auto a = elements(oracle), b = elements(backend);
    if (a.size() != b.size()) return false;
    for (size_t i = 0; i < a.size(); ++i)
      if (!scalar_equal(a[i], b[i], t)) return false;
    return true;
  }
  return scalar_equal(oracle, backend, t);
}

std::string Difference::describe() const {
  switch (kind) {
    case None: return "equal";
    case Cell: return "'" + var + "' at cycle " + std::to_string(cycle) + ": the oracle says " + oracle + ", the back end " + backend;
    case MissingColumn: return "the back end's output has no column '" + var + "'";
    case MissingCycles:
      return "the back end's output stops after " + std::to_string(cycle) + " cycle" + (cycle == 1 ? "" : "s") + " of " + oracle;
    case ExtraCycles: return "the back end's output has " + backend + " cycles, the trace " + oracle;
  }
  return "";
}

Difference compare(const Chronogram &oracle, const Chronogram &backend, const std::vector<std::string> &vars,
                   const Tolerance &t) {
  Difference d;
  std::vector<std::pair<int, int>> cols;
  for (auto &v : vars) {
    int o = oracle.column(v), b = backend.column(v);
    if (o < 0) continue;  // not shown by the oracle: nothing to compare
    if (b < 0) {
      d.kind = Difference::MissingColumn;
      d.var = v;
      return d;
    }
    cols.push_back({o, b});
  }
  size_t n = std::min(oracle.rows.size(), backend.rows.size());
  for (size_t k = 0; k < n; ++k)
    for (size_t j = 0; j < cols.size(); ++j) {
      const std::string &o = oracle.rows[k][static_cast<size_t>(cols[j].first)];
      const std::string &b = backend.rows[k][static_cast<size_t>(cols[j].second)];
      if (!cells_equal(o, b, t)) {
        d.kind = Difference::Cell;
        d.var = oracle.columns[static_cast<size_t>(cols[j].first)];
        d.cycle = k;
        d.oracle = o;
        d.backend = b;
        return d;
      }
    }
  if (backend.rows.size() < oracle.rows.size()) {
    d.kind = Difference::MissingCycles;
    d.cycle = backend.rows.size();
    d.oracle = std::to_string(oracle.rows.size());
  } else if (backend.rows.size() > oracle.rows.size()) {
    d.kind = Difference::ExtraCycles;
    d.oracle = std::to_string(oracle.rows.size());
    d.backend = std::to_string(backend.rows.size());
  }
  return d;
}

}  // namespace rml::diff
