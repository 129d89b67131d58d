#include "driver/chronogram.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>
#include <unordered_map>


namespace rml {

std::string cell_json_text(const oracle::Cell &c, const char *sep) {
  switch (c.tag) {
    case oracle::Tag::Bot: return "\"?\"";
    case oracle::Tag::Abs: return "null";
    case oracle::Tag::Err: return "\"error\"";
    case oracle::Tag::Nil: return "\"nil\"";
    case oracle::Tag::Val: break;
  }
  const array::Tensor &t = c.value;
  std::string out;
  size_t k = 0;
  std::function<void(size_t)> rec = [&](size_t d) {
    if (d == t.shape.size()) {
      size_t q = k++;
      if (t.elem == Scalar::Real) {
        std::string s = array::format_real(t.r[q]);
        out += std::isfinite(t.r[q]) ? s : "\"" + s + "\"";  // JSON has no nan or inf
      } else if (t.elem == Scalar::Bool) out += t.i[q] ? "true" : "false";
      else out += std::to_string(t.i[q]);
      return;
    }
    out += '[';
    for (int64_t j = 0; j < t.shape[d]; ++j) {
      if (j) out += sep;
      rec(d + 1);
    }
    out += ']';
  };
  rec(0);
  return out;
}

namespace {
size_t display_width(const std::string &s) {
  size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;  // UTF-8 code points: '‖' is one column
  return w;
}
}  // namespace

// The layout of oracle::format_result (rml-check's counterexamples print with it), with
// labels, and JSON numbers spelt by array::format_real: nlohmann's serializer spells some
// doubles differently (Grisu2 is not always shortest; 1e15 becomes 1e+15).
ChronogramWriter::ChronogramWriter(std::ostream &out, oracle::Format f, std::vector<std::string> labels)
    : out_(out), format_(f), labels_(std::move(labels)) {
  if (format_ == oracle::Format::Table) {
    table_.assign(labels_.size() + 1, {});
    table_[0].push_back("cycle");
    for (size_t k = 0; k < labels_.size(); ++k) table_[k + 1].push_back(labels_[k]);
  } else if (format_ == oracle::Format::Csv) {
    for (size_t k = 0; k < labels_.size(); ++k) out_ << (k ? "," : "") << labels_[k];
    out_ << "\n";
  } else {
    out_ << "[\n";
  }
}

std::string ChronogramWriter::text(size_t k, const oracle::Cell &c, bool json) const {
  if (k < enums_.size() && enums_[k] && c.tag == oracle::Tag::Val && c.value.i.size() == 1 && c.value.shape.empty()) {
    int64_t i = c.value.i[0];
    if (i >= 0 && static_cast<size_t>(i) < enums_[k]->size())
      return json ? nlohmann::json((*enums_[k])[static_cast<size_t>(i)]).dump() : (*enums_[k])[static_cast<size_t>(i)];
  }
  return json ? cell_json_text(c) : c.str();
}

std::vector<std::shared_ptr<const std::vector<std::string>>> enum_values_of(const core::Program &prog,
                                                                            const std::vector<std::string> &vars) {
  std::map<std::string, std::shared_ptr<const std::vector<std::string>>> of;
  for (auto *vs : {&prog.inputs, &prog.outputs, &prog.locals})
    for (auto &v : *vs)
      if (v.type.ctors) of[v.name] = v.type.ctors;
  for (auto &eq : prog.equations)
    if (eq.type.ctors) of[eq.lhs] = eq.type.ctors;
  std::vector<std::shared_ptr<const std::vector<std::string>>> out;
  for (auto &v : vars) out.push_back(of.count(v) ? of.at(v) : nullptr);
  return out;
}

void ChronogramWriter::row(const std::vector<oracle::Cell> &cells) {
  size_t n = rows_++;
  if (format_ == oracle::Format::Table) {
    table_[0].push_back(std::to_string(n));
    for (size_t k = 0; k < cells.size(); ++k) table_[k + 1].push_back(text(k, cells[k], false));
  } else if (format_ == oracle::Format::Csv) {
    auto quote = [](const std::string &s) { return s.find_first_of(",\"") == std::string::npos ? s : "\"" + s + "\""; };
    for (size_t k = 0; k < cells.size(); ++k) out_ << (k ? "," : "") << quote(text(k, cells[k], false));
    out_ << "\n";
  } else {
    out_ << (n ? ",\n" : "") << " {";
    for (size_t k = 0; k < cells.size(); ++k)
      out_ << (k ? ", " : "") << nlohmann::json(labels_[k]).dump() << ": " << text(k, cells[k], true);
    out_ << "}";
  }
}

void ChronogramWriter::finish() {
  if (format_ == oracle::Format::Json) {
    out_ << (rows_ ? "\n]\n" : "]\n");
    return;
  }
  if (format_ != oracle::Format::Table) return;
  std::vector<size_t> w(table_[0].size(), 0);
  for (auto &row : table_)
    for (size_t k = 0; k < row.size(); ++k) w[k] = std::max(w[k], display_width(row[k]));
  for (auto &row : table_) {
    std::string line;
    for (size_t k = 0; k < row.size(); ++k) {
      line += row[k];
      if (k + 1 < row.size()) line += std::string(w[k] - display_width(row[k]) + 2, ' ');
    }
    out_ << line << "\n";
  }
}

std::string format_chronogram(const oracle::Result &r, const std::vector<std::string> &vars, oracle::Format f,
                              const std::vector<std::string> &labels, const core::Program *prog) {
  std::vector<std::string> names;
  for (size_t k = 0; k < vars.size(); ++k) names.push_back(k < labels.size() ? labels[k] : vars[k]);
  std::ostringstream out;
  ChronogramWriter w(out, f, names);
  if (prog) w.name_values(enum_values_of(*prog, vars));
  std::vector<oracle::Cell> cells(vars.size());
  for (size_t n = 0; n < r.cycles; ++n) {
    for (size_t k = 0; k < vars.size(); ++k) cells[k] = r.at(vars[k], n);
    w.row(cells);
  }
  w.finish();
  return out.str();
}

}  // namespace rml
