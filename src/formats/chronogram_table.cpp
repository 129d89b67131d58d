#include "formats/chronogram_table.hpp"

#include <sstream>

namespace rml::formats {

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// Cells split at commas outside brackets and outside CSV quotes ("[1, 2]" as rml run
// writes a tensor; "" inside quotes is one quote).
std::vector<std::string> split_row(const std::string &line) {
  std::vector<std::string> cells;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char ch = line[i];
    if (quoted) {
      if (ch == '"' && i + 1 < line.size() && line[i + 1] == '"') cur += '"', ++i;
      else if (ch == '"') quoted = false;
      else cur += ch;
      continue;
    }
    if (ch == '"') {
      quoted = true;
      continue;
    }
    if (ch == '[') ++depth;
    if (ch == ']') --depth;
    if (ch == ',' && depth <= 0) {
      cells.push_back(trim(cur));
      cur.clear();
    } else {
      cur += ch;
    }
  }
  cells.push_back(trim(cur));
  return cells;
}

}  // namespace

bool read_csv_chronogram(const std::string &csv, ChronogramTable &t, std::string &error) {
  t = {};
  std::istringstream in(csv);
  std::string line;
  size_t n = 0;
  bool header = false;
  while (std::getline(in, line)) {
    ++n;
    std::string s = trim(line);
    if (s.empty() || s[0] == '#') continue;
    auto cells = split_row(s);
    if (!header) {
      for (auto &c : cells)
        if (c.empty()) {
          error = "line " + std::to_string(n) + ": an empty column name in the header";
          return false;
        }
      t.names = std::move(cells);
      header = true;
      continue;
    }
    if (cells.size() != t.names.size()) {
      error = "line " + std::to_string(n) + ": " + std::to_string(cells.size()) + " cells, but the header names " +
              std::to_string(t.names.size()) + " columns";
      return false;
    }
    t.rows.push_back(std::move(cells));
  }
  if (!header) {
    error = "no header line (expected the names of the columns, then a row per cycle)";
    return false;
  }
  return true;
}

}  // namespace rml::formats
