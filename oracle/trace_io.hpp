// Input traces and output chronograms.
//   CSV:  header = input names, one row per cycle; `_` absent, `?` unknown; tensors as
//         nested lists `[1, 2]` (quote the field when it holds commas); decimal numbers
//         only; blank lines and lines starting with `#` (rml-check's notes) are skipped.
//   JSON: a list of per-cycle objects {"x": 1, "c": true}; null or "_" absent, "?" unknown;
//         read by json_input (bounds, located errors).
//   A NUL byte, a number a double cannot hold (1e400, or 1e-400: not 0 but read as 0) or
//   an integer beyond 64 bits is an error, never a truncated or rounded-away value.
#pragma once
#include <istream>
#include <stdexcept>
#include <string>
#include <vector>

#include "oracle/oracle.hpp"

namespace rml::oracle {

// A bad trace file: what() is "FILE:LINE:COL: MESSAGE" (or "FILE: MESSAGE" when the
// error has no place, line 0). `rule` names what failed, as a diagnostic's rule does:
// trace.syntax (CSV quoting, a NUL byte, JSON syntax), trace.header (the inputs named:
// unknown, twice, missing; an empty trace), trace.row (a row's shape: fields, objects),
// trace.cell (a value that is not of its input's type).
struct TraceError : std::runtime_error {
  std::string path, rule, message;
  size_t line = 0, col = 0;
  std::string line_text;  // CsvTraceReader: the text of that line (it keeps no file)
  TraceError(std::string path, size_t line, size_t col, std::string rule, std::string message);
  // From "FILE:LINE:COL" or "FILE" as json_input::where writes it.
  TraceError(const std::string &where, std::string rule, std::string message);
};

// A trace is JSON when its first non-blank character is '[' or '{' (else CSV).
bool is_json_trace(const std::string &text);

// The outputs of imported calls a trace may give besides the inputs (Inputs): each under
// the name rml parse --normalized prints (core::printed_names), in the program's order.
struct ImportedOutput {
  std::string printed;  // the column's name
  std::string var;      // the elaborated output variable (Inputs::streams' key)
  std::string fn;       // the imported node or function
  const Type *type;
  Span span;            // the call
};
std::vector<ImportedOutput> imported_outputs(const core::Program &prog);

// Reads a trace for the inputs of `prog`, and for the outputs of its imported calls that
// it names (ImportedOutput). `cycles` (0: the trace's length) truncates, or extends with
// unknown (⊥) cells, as the finite-prefix oracle extends inputs by ⊥^ω.
Inputs read_trace(const std::string &path, const std::string &text, const core::Program &prog, size_t cycles);

// A CSV trace read row by row, for runs whose memory must not grow with the trace (rml run
// --backend stream); read_trace reads CSV through it. The constructor reads the header.
// Errors are TraceErrors as read_trace's.
class CsvTraceReader {
 public:
  // `lines_before`: lines the caller already consumed (blank ones), for the line numbers.
  // With `imported`, the header may also name outputs of imported calls (ImportedOutput):
  // their cells follow the inputs' in each row, in the order of imported_fields().
  CsvTraceReader(std::string path, std::istream &in, const core::Program &prog, size_t lines_before = 0,
                 const std::vector<ImportedOutput> *imported = nullptr);
  // A line longer than this is an error (trace.syntax), never an unbounded read.
  static constexpr size_t kMaxLine = 16u << 20;
  // The next row's cells, one per input of `prog` in its order (then one per imported
  // output the header names); false at the end.
  bool next(std::vector<Cell> &cells);
  size_t line() const { return line_; }
  const std::vector<const ImportedOutput *> &imported_fields() const { return imported_fields_; }

 private:
  bool read_fields(std::vector<std::pair<std::string, size_t>> &fields);
  TraceError located_error(size_t line, size_t col, std::string rule, std::string message) const;
  std::string path_;
  std::istream &in_;
  const core::Program &prog_;
  std::vector<size_t> input_of_field_;  // the input of each header field (past the inputs: an imported output)
  std::vector<const ImportedOutput *> imported_fields_;
  size_t line_ = 0;
  std::string text_;  // the line last read
};

// Parses one cell of type `t`: `_`, `?`, a bool, a number or a nested list.
Cell parse_cell(const std::string &text, const Type &t, std::string &error);

enum class Format { Table, Csv, Json };
std::string format_result(const Result &r, const std::vector<std::string> &vars, Format f);

}  // namespace rml::oracle
