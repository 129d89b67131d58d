// Chronograms as CSV (rml run --format csv: a header of variable names, a row per cycle)
// and their comparison cell by cell: presence, booleans and integers exactly, reals within
// a tolerance, the oracle's unknown cells (`?`) excluded.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace rml::diff {

struct Chronogram {
  std::vector<std::string> columns;
  std::vector<std::vector<std::string>> rows;  // a cell per column
  int column(const std::string &name) const;   // -1 when absent
};

// nullopt with `error` ("line 3: 2 cells, the header has 3") when the text is not a
// chronogram. Cells are trimmed; `[1, 2]` is one cell; blank and `#` lines are skipped.
std::optional<Chronogram> read_chronogram(const std::string &text, std::string &error);

// Two reals are equal when they are the same double (every NaN equal to every NaN), at
// most `ulps` representable doubles apart, within `rel` of the larger magnitude, or at
// most `abs` apart (for values near zero after a cancellation, where two libms' last bits
// differ by more than any relative bound: 5.6e-17 against 0.0 from sigmoid's 0.5 * tanh + 0.5).
struct Tolerance {
  int64_t ulps = 4;
  double rel = 0;
  double abs = 0;
};
bool reals_equal(double a, double b, const Tolerance &t);

// The oracle's cell against the back end's: `_` absent, `nil`, `‖` and booleans (T/F; the
// back end may write true/false) by name, integers exactly, reals with `t`, tensors
// element by element. An unknown oracle cell (`?`) equals anything.
bool cells_equal(const std::string &oracle, const std::string &backend, const Tolerance &t);

struct Difference {
  enum Kind { None, Cell, MissingColumn, MissingCycles, ExtraCycles } kind = None;
  std::string var;      // Cell, MissingColumn
  size_t cycle = 0;     // Cell: the first differing cycle; MissingCycles: the first missing
  std::string oracle, backend;
  std::string describe() const;
};

// The first difference on `vars` (cycle by cycle, then in the order of `vars`).
Difference compare(const Chronogram &oracle, const Chronogram &backend, const std::vector<std::string> &vars,
                   const Tolerance &t);

}  // namespace rml::diff
