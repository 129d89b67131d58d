// A chronogram as text cells, the way `rml run --format csv` prints it: what the VCD and
// SVG writers draw, from `rml run`, rml-check's counterexamples and `rml diff`.
#pragma once
#include <string>
#include <vector>

namespace rml::formats {

struct ChronogramTable {
  std::vector<std::string> names;              // a variable per column
  std::vector<std::vector<std::string>> rows;  // a row per cycle, a cell per name:
                                               // `_` absent, `?` unknown, `‖` error, `nil`,
                                               // T/F, ints, reals, `[...]` tensors
};

// The CSV text of `rml run --format csv` read back (cells trimmed, tensors kept whole);
// false with `error` when it is not one.
bool read_csv_chronogram(const std::string &csv, ChronogramTable &t, std::string &error);

}  // namespace rml::formats
