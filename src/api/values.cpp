// Values, cells, chronograms and diagnostics of the library (include/rml/rml.hpp), and
// their conversions from the stages' own (state.hpp).
#include <algorithm>
#include <regex>
#include <sstream>

#include "api/state.hpp"
#include "array/tensor.hpp"
#include "syntax/diag.hpp"

namespace rml::api {

std::string Failure::text() const {
  std::string t;
  for (auto &d : diagnostics) t += d.rendered;
  return summary.empty() ? t : t + summary + "\n";
}

Cell from_oracle(const oracle::Cell &c) {
  switch (c.tag) {
    case oracle::Tag::Bot: return {Cell::Kind::Unknown, {}};
    case oracle::Tag::Abs: return Cell::absent();
    case oracle::Tag::Err: return {Cell::Kind::Error, {}};
    case oracle::Tag::Nil: return {Cell::Kind::Nil, {}};
    case oracle::Tag::Val: break;
  }
  Value v;
  v.type = c.value.elem == Scalar::Bool ? ElementType::Bool : c.value.elem == Scalar::Int ? ElementType::Int : ElementType::Real;
  v.shape.assign(c.value.shape.begin(), c.value.shape.end());
  if (v.type == ElementType::Real) v.reals = c.value.r;
  else v.ints.assign(c.value.i.begin(), c.value.i.end());
  return Cell::of(std::move(v));
}

oracle::Cell to_oracle(const Cell &c) {
  switch (c.kind) {
    case Cell::Kind::Unknown: return oracle::Cell::bot();
    case Cell::Kind::Absent: return oracle::Cell::absent();
    case Cell::Kind::Error: return oracle::Cell::error();
    case Cell::Kind::Nil: return oracle::Cell{oracle::Tag::Nil, {}};
    case Cell::Kind::Value: break;
  }
  array::Tensor t;
  t.elem = c.value.type == ElementType::Bool ? Scalar::Bool : c.value.type == ElementType::Int ? Scalar::Int : Scalar::Real;
  t.shape.assign(c.value.shape.begin(), c.value.shape.end());
  if (t.elem == Scalar::Real) t.r = c.value.reals;
  else t.i.assign(c.value.ints.begin(), c.value.ints.end());
  return oracle::Cell::of(std::move(t));
}

std::string Cell::text() const { return to_oracle(*this).str(); }

const std::vector<Cell> *Chronogram::column(const std::string &name) const {
  auto it = std::find(names.begin(), names.end(), name);
  return it == names.end() ? nullptr : &columns[static_cast<size_t>(it - names.begin())];
}

std::string Chronogram::csv() const {
  // rml run --format csv: a header of names, a row per cycle; a cell with a comma quoted.
  auto field = [](const std::string &s) { return s.find_first_of(",\"") == std::string::npos ? s : "\"" + s + "\""; };
  std::string out;
  for (size_t k = 0; k < names.size(); ++k) out += (k ? "," : "") + field(names[k]);
  out += "\n";
  for (size_t n = 0; n < cycles; ++n) {
    for (size_t k = 0; k < columns.size(); ++k) out += (k ? "," : "") + field(n < columns[k].size() ? columns[k][n].text() : "?");
    out += "\n";
  }
  return out;
}

Diagnostic from_stage(const rml::Diagnostic &d) {
  Diagnostic o;
  o.severity = d.severity == Severity::Error ? Diagnostic::Severity::Error
             : d.severity == Severity::Warning ? Diagnostic::Severity::Warning : Diagnostic::Severity::Note;
  o.rule = d.rule;
  o.message = d.message;
  if (d.span.valid()) {
    o.file = d.span.file->path;
    auto [line, col] = d.span.file->line_col(d.span.begin);
    o.line = line;
    o.column = col;
  }
  o.rendered = render(d);
  return o;
}

std::vector<Diagnostic> from_text(const std::string &printed) {
  // FILE:LINE:COL: severity[rule]: message  |  PREFIX: severity[rule]: message  |  severity[rule]: message
  static const std::regex head(R"(^(?:(.*?):(\d+):(\d+): |([^ :][^:]*): )?(error|warning|note|unknown)(?:\[([A-Za-z0-9_.\-]+)\])?: (.*)$)");
  static const std::regex bare_head(R"(^(error|warning|note|unknown)(?:\[([A-Za-z0-9_.\-]+)\])?(?: [^:]*)?: (.*)$)");
  std::vector<Diagnostic> out;
  std::istringstream in(printed);
  std::string line;
  while (std::getline(in, line)) {
    std::smatch m;
    if (std::regex_match(line, m, head)) {
      Diagnostic d;
      if (m[1].matched) {
        d.file = m[1];
        d.line = static_cast<unsigned>(std::stoul(m[2]));
        d.column = static_cast<unsigned>(std::stoul(m[3]));
      } else if (m[4].matched && m[4] != "rml" && m[4] != "rml-check" && m[4].str().rfind("rml ", 0) != 0) {
        d.file = m[4];  // `FILE: error...`, not `rml: error...` or `rml gen: note...`
      }
      d.severity = m[5] == "warning" ? Diagnostic::Severity::Warning : m[5] == "note" ? Diagnostic::Severity::Note
                                                                     : Diagnostic::Severity::Error;
      d.rule = m[6].matched ? m[6].str() : (m[5] == "unknown" ? "run.unknown" : "");
      d.message = m[7];
      d.rendered = line + "\n";
      out.push_back(std::move(d));
    } else if (std::regex_match(line, m, bare_head)) {
      Diagnostic d;
      d.severity = m[1] == "warning" ? Diagnostic::Severity::Warning : m[1] == "note" ? Diagnostic::Severity::Note
                                                                     : Diagnostic::Severity::Error;
      d.rule = m[2].matched ? m[2].str() : "";
      d.message = m[3];
      d.rendered = line + "\n";
      out.push_back(std::move(d));
    } else if (!out.empty()) {
      out.back().rendered += line + "\n";  // the caret excerpt, a note's lines
    } else if (!line.empty()) {
      Diagnostic d;  // a line of its own (e.g. "3 errors"): kept, unlocated
      d.message = line;
      d.rendered = line + "\n";
      out.push_back(std::move(d));
    }
  }
  return out;
}

Failure failure(int exit_code, const std::string &printed) { return Failure{exit_code, from_text(printed)}; }

}  // namespace rml::api
