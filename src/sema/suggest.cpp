#include "sema/suggest.hpp"

#include <algorithm>

namespace rml {

size_t edit_distance(const std::string &a, const std::string &b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

namespace {
// Fewer edits than the name has characters (no 'o' for a one-letter 'y'), and at most
// 1 up to 3 characters, 2 up to 6, then 3.
size_t max_distance(const std::string &name) {
  size_t cap = name.size() <= 3 ? 1 : name.size() <= 6 ? 2 : 3;
  return std::min(cap, name.empty() ? 0 : name.size() - 1);
}
}  // namespace

std::string closest_name(const std::string &name, const std::vector<std::string> &candidates) {
  std::string best;
  size_t best_d = max_distance(name) + 1;
  for (auto &c : candidates)
    if (c != name)
      if (size_t d = edit_distance(name, c); d < best_d) best_d = d, best = c;
  return best;
}

std::string suggest_name(const std::string &name, const std::vector<std::string> &own,
                         const std::vector<std::string> &prelude) {
  std::string s = closest_name(name, own);
  return s.empty() ? closest_name(name, prelude) : s;
}

std::vector<std::string> near_names(const std::string &name, const std::vector<std::string> &candidates, size_t max) {
  std::vector<std::pair<size_t, std::string>> scored;
  for (auto &c : candidates)
    if (size_t d = edit_distance(name, c); d <= max_distance(name) && c != name) scored.emplace_back(d, c);
  std::stable_sort(scored.begin(), scored.end(), [](auto &x, auto &y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (auto &[d, c] : scored)
    if (out.size() < max && std::find(out.begin(), out.end(), c) == out.end()) out.push_back(c);
  return out;
}

}  // namespace rml
