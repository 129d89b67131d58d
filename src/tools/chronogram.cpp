#include "tools/chronogram.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>
#include <unordered_map>

#include "sema/suggest.hpp"

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

std::optional<std::vector<std::string>> resolve_shown(const core::Program &prog, const std::vector<std::string> &show,
                                                      std::string &error) {
  auto printed = core::printed_names(prog);
  std::unordered_map<std::string, std::string> internal;  // printed spelling -> name
  std::vector<std::string> spellings;
  for (auto &[name, spelt] : printed) internal[spelt] = name, spellings.push_back(spelt);
  std::sort(spellings.begin(), spellings.end());
  std::vector<std::string> out;
  for (auto &v : show) {
    if (printed.count(v)) out.push_back(v);
    else if (auto it = internal.find(v); it != internal.end()) out.push_back(it->second);
    else {
      std::vector<std::string> near = near_names(v, spellings);
      error = "--show " + v + ": no variable '" + v + "' in the elaborated '" + prog.main + "'" +
              (near.empty() ? std::string() : "; near names: " + [&] {
                std::string s;
                for (auto &n : near) s += (s.empty() ? "" : ", ") + n;
                return s;
              }()) +
              " (rml run --all shows every variable; rml parse --normalized prints the program)";
      return std::nullopt;
    }
  }
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

std::string format_chronogram(const oracle::Result &r, const std::vector<std::string> &vars, oracle::Format f,
                              const std::vector<std::string> &labels) {
  // The layout of oracle::format_result (rml-check's counterexamples print with it), with
  // labels, and JSON numbers spelt by array::format_real: nlohmann's serializer spells
  // some doubles differently (Grisu2 is not always shortest; 1e15 becomes 1e+15).
  auto label = [&](size_t k) { return k < labels.size() ? labels[k] : vars[k]; };
  std::string out;
  if (f == oracle::Format::Table) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head{"cycle"};
    for (size_t n = 0; n < r.cycles; ++n) head.push_back(std::to_string(n));
    rows.push_back(head);
    for (size_t k = 0; k < vars.size(); ++k) {
      std::vector<std::string> row{label(k)};
      for (size_t n = 0; n < r.cycles; ++n) row.push_back(r.at(vars[k], n).str());
      rows.push_back(std::move(row));
    }
    std::vector<size_t> w(head.size(), 0);
    for (auto &row : rows)
      for (size_t k = 0; k < row.size(); ++k) w[k] = std::max(w[k], display_width(row[k]));
    for (auto &row : rows) {
      for (size_t k = 0; k < row.size(); ++k) {
        out += row[k];
        if (k + 1 < row.size()) out += std::string(w[k] - display_width(row[k]) + 2, ' ');
      }
      out += "\n";
    }
    return out;
  }
  if (f == oracle::Format::Csv) {
    auto quote = [](const std::string &s) { return s.find_first_of(",\"") == std::string::npos ? s : "\"" + s + "\""; };
    for (size_t k = 0; k < vars.size(); ++k) out += (k ? "," : "") + label(k);
    out += "\n";
    for (size_t n = 0; n < r.cycles; ++n) {
      for (size_t k = 0; k < vars.size(); ++k) out += (k ? "," : "") + quote(r.at(vars[k], n).str());
      out += "\n";
    }
    return out;
  }
  out = "[\n";
  for (size_t n = 0; n < r.cycles; ++n) {
    out += " {";
    for (size_t k = 0; k < vars.size(); ++k)
      out += (k ? ", " : "") + nlohmann::json(label(k)).dump() + ": " + cell_json_text(r.at(vars[k], n));
    out += n + 1 < r.cycles ? "},\n" : "}\n";
  }
  return out + "]\n";
}

}  // namespace rml
