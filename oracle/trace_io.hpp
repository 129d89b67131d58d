// Input traces and output chronograms.
//   CSV:  header = input names, one row per cycle; `_` absent, `?` unknown; tensors as
//         nested lists `[1, 2]` (quote the field when it holds commas); decimal numbers
//         only; blank lines and lines starting with `#` (rml-check's notes) are skipped.
//   JSON: a list of per-cycle objects {"x": 1, "c": true}; null or "_" absent, "?" unknown;
//         read by json_input (bounds, located errors).
//   A NUL byte, a number a double cannot hold (1e400, or 1e-400: not 0 but read as 0) or
//   an integer beyond 64 bits is an error, never a truncated or rounded-away value.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "oracle/oracle.hpp"

namespace rml::oracle {

// A bad trace file: the message starts with "FILE:LINE:COL:" (or "FILE:" when global).
struct TraceError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// A trace is JSON when its first non-blank character is '[' or '{' (else CSV).
bool is_json_trace(const std::string &text);

// Reads a trace for the inputs of `prog`. `cycles` (0: the trace's length) truncates, or
// extends with unknown (⊥) cells, as the finite-prefix oracle extends inputs by ⊥^ω.
Inputs read_trace(const std::string &path, const std::string &text, const core::Program &prog, size_t cycles);

// Parses one cell of type `t`: `_`, `?`, a bool, a number or a nested list.
Cell parse_cell(const std::string &text, const Type &t, std::string &error);

enum class Format { Table, Csv, Json };
std::string format_result(const Result &r, const std::vector<std::string> &vars, Format f);

}  // namespace rml::oracle
