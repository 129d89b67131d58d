// The chronogram `rml run` prints (--format table|csv|json), with one number format: every
// real is array::format_real (round-trip exact, "1.0" for a real one, "1" for an int).
#pragma once
#include <ostream>
#include <optional>
#include <string>
#include <vector>

#include "core/normalize.hpp"
#include "driver/show_names.hpp"
#include "oracle/trace_io.hpp"

namespace rml {

// A chronogram written cycle by cycle (rml run --backend stream): CSV and JSON rows go out
// as they come; a table, whose columns are cycles, is kept until finish(). One layout with
// format_chronogram, which writes through it.
class ChronogramWriter {
 public:
  ChronogramWriter(std::ostream &out, oracle::Format f, std::vector<std::string> labels);
  void row(const std::vector<oracle::Cell> &cells);  // the next cycle: a cell per label
  void finish();
  // Labels whose values are an enumeration's (per label, its constructors or null): their
  // values print as constructor names (strings in JSON), as traces may write them.
  void name_values(std::vector<std::shared_ptr<const std::vector<std::string>>> enums) { enums_ = std::move(enums); }
  size_t rows() const { return rows_; }

 private:
  std::ostream &out_;
  oracle::Format format_;
  std::vector<std::string> labels_;
  std::vector<std::vector<std::string>> table_;  // Table: a row per label (and "cycle"), a column per cycle
  std::vector<std::shared_ptr<const std::vector<std::string>>> enums_;
  std::string text(size_t k, const oracle::Cell &c, bool json) const;
  size_t rows_ = 0;
};

// `labels[k]` names vars[k] in the output (rml run prints core::printed_names, the
// spelling `rml parse --normalized` uses); empty: the variables' own names.
// `prog`, when given, names enumeration values (ChronogramWriter::name_values).
std::string format_chronogram(const oracle::Result &r, const std::vector<std::string> &vars, oracle::Format f,
                              const std::vector<std::string> &labels = {}, const core::Program *prog = nullptr);

// Per variable of `prog`, its enumeration's constructors (null for other types).
std::vector<std::shared_ptr<const std::vector<std::string>>> enum_values_of(const core::Program &prog,
                                                                            const std::vector<std::string> &vars);

// One cell as JSON text: null absent, "?" unknown, "error" (‖), "nil", true/false, numbers
// (reals through array::format_real; "nan", "inf", "-inf" as strings), nested lists.
std::string cell_json_text(const oracle::Cell &c, const char *sep = ", ");  // sep: between list elements

}  // namespace rml
