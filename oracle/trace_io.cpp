#include "oracle/trace_io.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <unordered_map>

#include "core/normalize.hpp"
#include "oracle/json_input.hpp"

namespace rml::oracle {

using json_input::shown;

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r");
  if (b == std::string::npos) return "";
  size_t e = s.find_last_not_of(" \t\r");
  return s.substr(b, e - b + 1);
}

// A small recursive reader for scalars and nested lists in cells.
struct CellReader {
  const std::string &s;
  size_t p = 0;
  std::string err;
  explicit CellReader(const std::string &t) : s(t) {}
  void ws() {
    while (p < s.size() && (s[p] == ' ' || s[p] == '\t')) ++p;
  }
  bool scalar(Scalar e, array::Tensor &out) {
    ws();
    size_t b = p;
    while (p < s.size() && s[p] != ',' && s[p] != ']' && s[p] != ' ') ++p;
    std::string tok = s.substr(b, p - b);
    if (tok.empty()) return fail("a value is missing");
    switch (e) {
      case Scalar::Bool:
        if (tok == "true" || tok == "T") out.i.push_back(1);
        else if (tok == "false" || tok == "F") out.i.push_back(0);
        else return fail(json_input::quoted(tok) + " is not a bool (true, false, T or F)");
        return true;
      case Scalar::Int: {
        char *end = nullptr;
        errno = 0;
        long long v = std::strtoll(tok.c_str(), &end, 10);
        // The whole token: strtoll stops at a NUL or any other stray byte.
        if (end != tok.c_str() + tok.size() || errno == ERANGE) return fail(json_input::quoted(tok) + " is not a 64-bit integer");
        out.i.push_back(v);
        return true;
      }
      case Scalar::Real: {
        if (tok == "inf" || tok == "-inf" || tok == "nan") {
          out.r.push_back(tok == "nan" ? NAN : tok == "inf" ? INFINITY : -INFINITY);
          return true;
        }
        if (!is_decimal(tok)) return fail(json_input::quoted(tok) + " is not a number");
        double v = std::strtod(tok.c_str(), nullptr);
        if (std::isinf(v)) return fail(json_input::quoted(tok) + " is out of the range of a 64-bit float");
        // strtod gives 0 below half the smallest subnormal: a silent loss, as 1e400 is not.
        if (v == 0 && tok.substr(0, tok.find_first_of("eE")).find_first_of("123456789") != std::string::npos)
          return fail(json_input::quoted(tok) + " is not 0 but is too small for a 64-bit float (the smallest nonzero one is 4.9e-324)");
        out.r.push_back(v);
        return true;
      }
    }
    return false;
  }
  // [+-] digits [. digits] [(e|E) [+-] digits], with a digit before or after the point:
  // what strtod reads of it is all of it (no hex, no "nan(...)", no locale).
  static bool is_decimal(const std::string &t) {
    size_t i = 0, digits = 0;
    auto run = [&] {
      size_t n = 0;
      while (i < t.size() && t[i] >= '0' && t[i] <= '9') ++i, ++n;
      return n;
    };
    if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
    digits += run();
    if (i < t.size() && t[i] == '.') ++i, digits += run();
    if (digits == 0) return false;
    if (i < t.size() && (t[i] == 'e' || t[i] == 'E')) {
      ++i;
      if (i < t.size() && (t[i] == '+' || t[i] == '-')) ++i;
      if (run() == 0) return false;
    }
    return i == t.size();
  }
  bool fail(std::string m) {
    if (err.empty()) err = std::move(m);
    return false;
  }
  // Reads a value of the given shape (dims from index d on).
  bool value(Scalar e, const std::vector<int64_t> &shape, size_t d, array::Tensor &out) {
    if (d == shape.size()) return scalar(e, out);
    ws();
    if (p >= s.size() || s[p] != '[') return fail("expected '[' for a tensor of shape " + shape_text(shape, d));
    ++p;
    for (int64_t k = 0; k < shape[d]; ++k) {
      if (k > 0) {
        ws();
        if (p >= s.size() || s[p] != ',') return fail("expected ',' or a list of length " + std::to_string(shape[d]));
        ++p;
      }
      if (!value(e, shape, d + 1, out)) return false;
    }
    ws();
    if (p >= s.size() || s[p] != ']') return fail("expected ']': a list of length " + std::to_string(shape[d]) + " at depth " + std::to_string(d + 1));
    ++p;
    return true;
  }
  static std::string shape_text(const std::vector<int64_t> &shape, size_t d) {
    std::string t = "[";
    for (size_t k = d; k < shape.size(); ++k) t += (k > d ? ", " : "") + std::to_string(shape[k]);
    return t + "]";
  }
};

Cell cell_from_json(const nlohmann::json &j, const Type &t, std::string &err, json_input::Path &at);

}  // namespace

Cell parse_cell(const std::string &text0, const Type &t, std::string &error) {
  std::string text = trim(text0);
  if (size_t z = text.find('\0'); z != std::string::npos) {
    error = "a NUL byte in the value (byte " + std::to_string(z + 1) + "): a trace is text";
    return Cell::bot();
  }
  if (text == "_") return Cell::absent();
  if (text == "?") return Cell::bot();
  if (text == "nil") return Cell{Tag::Nil, {}};
  if (text == "\u2016" || text == "error") return Cell::error();
  if (t.ctors && t.shape.empty()) {
    // An enumeration: a constructor's name, or its index 0..n-1.
    for (size_t k = 0; k < t.ctors->size(); ++k)
      if ((*t.ctors)[k] == text) return Cell::of(array::Tensor::integer(static_cast<int64_t>(k)));
    std::string names;
    for (size_t k = 0; k < t.ctors->size(); ++k) names += (k ? ", " : "") + (*t.ctors)[k];
    std::string err;
    Cell c = parse_cell(text, Type::scalar(Scalar::Int), err);
    if (err.empty() && c.tag == Tag::Val && c.value.i[0] >= 0 && c.value.i[0] < static_cast<int64_t>(t.ctors->size())) return c;
    error = json_input::quoted(text) + " is not a value of the enumeration " + t.enum_name + " (" + names +
            ", or their indices 0.." + std::to_string(t.ctors->size() - 1) + ")";
    return Cell::bot();
  }
  std::vector<int64_t> shape = array::concrete_shape(t.shape);
  array::Tensor v;
  v.elem = t.elem;
  v.shape = shape;
  CellReader rd(text);
  if (!rd.value(t.elem, shape, 0, v)) {
    error = rd.err;
    return Cell::bot();
  }
  rd.ws();
  if (rd.p != text.size()) {
    error = "unexpected text after the value: " + json_input::quoted(text.substr(rd.p));
    return Cell::bot();
  }
  return Cell::of(std::move(v));
}

namespace {

// Splits a CSV line into fields (double quotes group commas; "" is a quote).
std::vector<std::pair<std::string, size_t>> csv_fields(const std::string &line, std::string &err) {
  std::vector<std::pair<std::string, size_t>> out;
  size_t i = 0;
  for (;;) {
    size_t col = i + 1;
    std::string f;
    if (i < line.size() && line[i] == '"') {
      ++i;
      for (;;) {
        if (i >= line.size()) {
          err = "unterminated quoted field";
          return out;
        }
        if (line[i] == '"') {
          if (i + 1 < line.size() && line[i + 1] == '"') {
            f += '"';
            i += 2;
            continue;
          }
          ++i;
          break;
        }
        f += line[i++];
      }
      while (i < line.size() && line[i] != ',') {
        if (line[i] != ' ' && line[i] != '\r') {
          err = "text after a quoted field";
          return out;
        }
        ++i;
      }
    } else {
      int depth = 0;  // a tensor `[1, 2]` may be written unquoted: its commas do not split
      while (i < line.size() && (line[i] != ',' || depth > 0)) {
        if (line[i] == '[') ++depth;
        if (line[i] == ']' && depth > 0) --depth;
        f += line[i++];
      }
    }
    out.emplace_back(trim(f), col);
    if (i >= line.size()) break;
    ++i;  // ','
  }
  return out;
}

// A cell from JSON; on an error, `err` says what and `at` is the path of the offending
// element inside `j`.
Cell cell_from_json(const nlohmann::json &j, const Type &t, std::string &err, json_input::Path &at) {
  if (j.is_null()) return Cell::absent();
  if (j.is_string()) {
    if (j == "_") return Cell::absent();
    if (j == "?") return Cell::bot();
    if (t.ctors && t.shape.empty()) return parse_cell(j.get<std::string>(), t, err);  // a constructor's name
    err = "the string " + shown(j) + " is not a value (use null or \"_\" for absent, \"?\" for unknown)";
    return Cell::bot();
  }
  if (t.ctors && t.shape.empty() && j.is_number_integer()) return parse_cell(j.dump(), t, err);  // an index
  std::vector<int64_t> shape = array::concrete_shape(t.shape);
  array::Tensor v;
  v.elem = t.elem;
  v.shape = shape;
  // Depth is bounded by the type's rank (and the document's by the parser).
  std::function<bool(const nlohmann::json &, size_t)> rec = [&](const nlohmann::json &x, size_t d) -> bool {
    if (d < shape.size()) {
      if (!x.is_array() || x.size() != static_cast<size_t>(shape[d])) {
        err = "expected a list of length " + std::to_string(shape[d]) + " at depth " + std::to_string(d + 1) + ", found " + shown(x);
        return false;
      }
      for (size_t k = 0; k < x.size(); ++k) {
        at.push_back(std::to_string(k));
        if (!rec(x[k], d + 1)) return false;
        at.pop_back();
      }
      return true;
    }
    switch (t.elem) {
      case Scalar::Bool:
        if (!x.is_boolean()) return err = "expected a bool, found " + shown(x), false;
        v.i.push_back(x.get<bool>());
        return true;
      case Scalar::Int:
        if (!x.is_number_integer()) return err = "expected an integer, found " + shown(x), false;
        if (x.is_number_unsigned() && x.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
          return err = "the integer " + x.dump() + " does not fit in 64 bits", false;
        v.i.push_back(x.get<int64_t>());
        return true;
      case Scalar::Real:
        if (!x.is_number()) return err = "expected a number, found " + shown(x), false;
        v.r.push_back(x.get<double>());
        return true;
    }
    return false;
  };
  if (!rec(j, 0)) return Cell::bot();
  return Cell::of(std::move(v));
}

}  // namespace

bool is_json_trace(const std::string &text) {
  size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string::npos && (text[first] == '[' || text[first] == '{');
}

namespace {
std::string located(const std::string &path, size_t line, size_t col) {
  return line ? path + ":" + std::to_string(line) + ":" + std::to_string(col) : path;
}
}  // namespace

TraceError::TraceError(std::string p, size_t l, size_t c, std::string r, std::string m)
    : std::runtime_error(located(p, l, c) + ": " + m), path(std::move(p)), rule(std::move(r)), message(std::move(m)), line(l), col(c) {}

// Splits "FILE:LINE:COL" at its last two colons when both parts are numbers.
TraceError::TraceError(const std::string &where, std::string r, std::string m)
    : std::runtime_error(where + ": " + m), path(where), rule(std::move(r)), message(std::move(m)) {
  auto number_after = [&](size_t colon) -> std::optional<size_t> {
    std::string d = where.substr(colon + 1, where.find(':', colon + 1) == std::string::npos ? std::string::npos : where.find(':', colon + 1) - colon - 1);
    if (d.empty() || d.size() > 9 || !std::all_of(d.begin(), d.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) return std::nullopt;
    return static_cast<size_t>(std::stoul(d));
  };
  size_t c2 = where.rfind(':');
  if (c2 == std::string::npos || c2 == 0) return;
  size_t c1 = where.rfind(':', c2 - 1);
  if (c1 == std::string::npos) return;
  auto l = number_after(c1), c = number_after(c2);
  if (!l || !c) return;
  path = where.substr(0, c1), line = *l, col = *c;
}

TraceError CsvTraceReader::located_error(size_t line, size_t col, std::string rule, std::string message) const {
  TraceError e(path_, line, col, std::move(rule), std::move(message));
  e.line_text = text_;
  return e;
}

std::vector<ImportedOutput> imported_outputs(const core::Program &prog) {
  std::vector<ImportedOutput> out;
  std::unordered_map<std::string, std::string> printed;
  for (auto &eq : prog.equations) {
    if (eq.prim != core::Prim::Apply || eq.op != core::ApplyOp::Imported) continue;
    if (printed.empty()) printed = core::printed_names(prog);
    out.push_back(ImportedOutput{printed.at(eq.lhs), eq.lhs, eq.fn, &eq.type, eq.span});
  }
  return out;
}

CsvTraceReader::CsvTraceReader(std::string path, std::istream &in, const core::Program &prog, size_t lines_before,
                               const std::vector<ImportedOutput> *imported)
    : path_(std::move(path)), in_(in), prog_(prog), line_(lines_before) {
  std::vector<std::pair<std::string, size_t>> fields;
  if (!read_fields(fields)) {
    if (!prog.inputs.empty()) throw located_error(0, 0, "trace.header", "the trace is empty (it needs a header naming the inputs)");
    return;
  }
  auto fail = [&](size_t col, const std::string &m) { throw located_error(line_, col, "trace.header", m); };
  std::vector<std::string> header;
  for (auto &[field, col] : fields) {
    const std::string &f = field;  // a structured binding cannot be captured (C++17)
    auto it = std::find_if(prog.inputs.begin(), prog.inputs.end(), [&](auto &v) { return v.name == f; });
    const ImportedOutput *out = nullptr;
    if (it == prog.inputs.end() && imported)
      for (auto &io : *imported)
        if (io.printed == f) out = &io;
    if (it == prog.inputs.end() && !out) fail(col, json_input::quoted(f) + " is not an input of '" + prog.main + "'");
    if (std::find(header.begin(), header.end(), f) != header.end()) fail(col, json_input::quoted(f) + " appears twice in the header");
    header.push_back(f);
    if (out) {
      input_of_field_.push_back(prog.inputs.size() + imported_fields_.size());
      imported_fields_.push_back(out);
    } else {
      input_of_field_.push_back(static_cast<size_t>(it - prog.inputs.begin()));
    }
  }
  for (auto &v : prog.inputs)
    if (std::find(header.begin(), header.end(), v.name) == header.end()) fail(1, "the header lacks the input '" + v.name + "'");
}

// The fields of the next line that is not blank or a comment; false at the end.
bool CsvTraceReader::read_fields(std::vector<std::pair<std::string, size_t>> &fields) {
  std::string &line = text_;
  auto get_line = [&] {  // std::getline, bounded
    line.clear();
    int ch = std::char_traits<char>::eof();
    std::streambuf *buf = in_.rdbuf();
    while ((ch = buf->sbumpc()) != std::char_traits<char>::eof() && ch != '\n') {
      if (line.size() == kMaxLine)
        throw located_error(line_ + 1, 1, "trace.syntax", "a line longer than 16 MiB (a trace has one cycle per line)");
      line.push_back(static_cast<char>(ch));
    }
    return ch == '\n' || !line.empty();
  };
  while (get_line()) {
    ++line_;
    if (line_ == 1 && line.compare(0, 3, "\xEF\xBB\xBF") == 0) line.erase(0, 3);  // a UTF-8 BOM is not text
    // Every C-string step (strtod, strtoll) would stop at a NUL and drop the rest.
    if (size_t z = line.find('\0'); z != std::string::npos)
      throw located_error(line_, z + 1, "trace.syntax", "a NUL byte: a trace is text (NUL bytes are not allowed)");
    std::string t = trim(line);
    if (t.empty() || t[0] == '#') continue;
    std::string err;
    fields = csv_fields(line, err);
    if (!err.empty()) throw located_error(line_, 1, "trace.syntax", err);
    return true;
  }
  return false;
}

bool CsvTraceReader::next(std::vector<Cell> &cells) {
  std::vector<std::pair<std::string, size_t>> fields;
  if (input_of_field_.empty() || !read_fields(fields)) return false;
  if (fields.size() != input_of_field_.size())
    throw located_error(line_, 1, "trace.row",
                     "this row has " + std::to_string(fields.size()) + " fields, the header has " + std::to_string(input_of_field_.size()));
  cells.assign(prog_.inputs.size() + imported_fields_.size(), Cell{});
  for (size_t k = 0; k < fields.size(); ++k) {
    const size_t at = input_of_field_[k];
    const bool input = at < prog_.inputs.size();
    const Type &type = input ? prog_.inputs[at].type : *imported_fields_[at - prog_.inputs.size()]->type;
    std::string cerr;
    cells[at] = parse_cell(fields[k].first, type, cerr);
    if (!cerr.empty())
      throw located_error(line_, fields[k].second, "trace.cell",
                          (input ? "input '" + prog_.inputs[at].name + "'"
                                 : "output '" + imported_fields_[at - prog_.inputs.size()]->printed + "' of the imported '" +
                                       imported_fields_[at - prog_.inputs.size()]->fn + "'") +
                              " (" + type_str(type) + "): " + cerr);
  }
  return true;
}

Inputs read_trace(const std::string &path, const std::string &text0, const core::Program &prog, size_t cycles) {
  // A UTF-8 BOM is not part of the text (read_file drops it already).
  const bool bom = text0.compare(0, 3, "\xEF\xBB\xBF") == 0;
  const std::string stripped = bom ? text0.substr(3) : std::string();
  const std::string &text = bom ? stripped : text0;
  Inputs in;
  std::map<std::string, const core::Var *> want;
  for (auto &v : prog.inputs) want[v.name] = &v;
  const std::vector<ImportedOutput> imported = imported_outputs(prog);
  if (is_json_trace(text)) {
    nlohmann::json j;
    try {
      j = json_input::parse(path, text);
    } catch (json_input::Error &e) {
      throw TraceError(e.where, "trace.syntax", e.message);
    }
    auto at = [&](const json_input::Path &p, bool key = false) { return json_input::where(path, text, p, key); };
    if (!j.is_array()) throw TraceError(at({}), "trace.row", "a JSON trace is a list of per-cycle objects, found " + shown(j));
    for (auto &[name, v] : want) in.streams[name];
    size_t n = 0;
    for (auto &row : j) {
      const std::string cycle = "cycle " + std::to_string(n);
      json_input::Path p{std::to_string(n)};
      if (!row.is_object()) throw TraceError(at(p), "trace.row", cycle + " is not an object: " + shown(row));
      for (auto &[key, val] : row.items()) {
        const std::string &k = key;  // a structured binding cannot be captured (C++17)
        if (want.count(k)) continue;
        auto io = std::find_if(imported.begin(), imported.end(), [&](auto &o) { return o.printed == k; });
        if (io == imported.end())
          throw TraceError(at({p[0], k}, true), "trace.header", cycle + ": " + json_input::quoted(k) + " is not an input of '" + prog.main + "'");
        // An imported call's output: absent (null) where the row leaves it out.
        std::string err;
        json_input::Path inside{p[0], k};
        Cell c = cell_from_json(val, *io->type, err, inside);
        if (!err.empty())
          throw TraceError(at(inside), "trace.cell",
                           cycle + ", output '" + k + "' of the imported '" + io->fn + "' (" + type_str(*io->type) + "): " + err);
        auto &cells = in.streams[io->var];
        cells.resize(n, Cell::absent());
        cells.push_back(std::move(c));
      }
      for (auto &[name, v] : want) {
        if (!row.contains(name)) throw TraceError(at(p), "trace.header", cycle + ": the input '" + name + "' is missing (use null for absent)");
        std::string err;
        json_input::Path inside{p[0], name};
        Cell c = cell_from_json(row[name], v->type, err, inside);
        if (!err.empty())
          throw TraceError(at(inside), "trace.cell", cycle + ", input '" + name + "' (" + type_str(v->type) + "): " + err);
        in.streams[name].push_back(std::move(c));
      }
      ++n;
    }
    in.cycles = n;
    for (auto &io : imported)
      if (auto it = in.streams.find(io.var); it != in.streams.end()) it->second.resize(n, Cell::absent());
  } else {
    std::istringstream ss(text);
    CsvTraceReader reader(path, ss, prog, 0, &imported);
    for (auto &v : prog.inputs) in.streams[v.name];
    for (auto *io : reader.imported_fields()) in.streams[io->var];
    std::vector<Cell> row;
    while (reader.next(row)) {
      for (size_t k = 0; k < row.size(); ++k) {
        const std::string &var = k < prog.inputs.size() ? prog.inputs[k].name : reader.imported_fields()[k - prog.inputs.size()]->var;
        in.streams[var].push_back(std::move(row[k]));
      }
      ++in.cycles;
    }
  }
  if (cycles) {
    for (auto &[name, cells] : in.streams) cells.resize(cycles, Cell::bot());
    in.cycles = cycles;
  }
  return in;
}

namespace {
size_t display_width(const std::string &s) {
  size_t w = 0;
  for (unsigned char c : s)
    if ((c & 0xC0) != 0x80) ++w;  // count UTF-8 code points
  return w;
}
nlohmann::json cell_json(const Cell &c) {
  switch (c.tag) {
    case Tag::Bot: return "?";
    case Tag::Abs: return nullptr;
    case Tag::Err: return "error";
    case Tag::Nil: return "nil";
    case Tag::Val: break;
  }
  const array::Tensor &t = c.value;
  size_t k = 0;
  std::function<nlohmann::json(size_t)> rec = [&](size_t d) -> nlohmann::json {
    if (d == t.shape.size()) {
      size_t i = k++;
      if (t.elem == Scalar::Real) {
        double v = t.r[i];
        if (std::isfinite(v)) return v;
        return std::isnan(v) ? "nan" : v > 0 ? "inf" : "-inf";
      }
      if (t.elem == Scalar::Bool) return t.i[i] != 0;
      return t.i[i];
    }
    nlohmann::json a = nlohmann::json::array();
    for (int64_t j = 0; j < t.shape[d]; ++j) a.push_back(rec(d + 1));
    return a;
  };
  return rec(0);
}
}  // namespace

std::string format_result(const Result &r, const std::vector<std::string> &vars, Format f) {
  std::string out;
  if (f == Format::Table) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> head{"cycle"};
    for (size_t n = 0; n < r.cycles; ++n) head.push_back(std::to_string(n));
    rows.push_back(head);
    for (auto &v : vars) {
      std::vector<std::string> row{v};
      for (size_t n = 0; n < r.cycles; ++n) row.push_back(r.at(v, n).str());
      rows.push_back(row);
    }
    std::vector<size_t> w(head.size(), 0);
    for (auto &row : rows)
      for (size_t k = 0; k < row.size(); ++k) w[k] = std::max(w[k], display_width(row[k]));
    for (auto &row : rows) {
      std::string line;
      for (size_t k = 0; k < row.size(); ++k) {
        line += row[k];
        if (k + 1 < row.size()) line += std::string(w[k] - display_width(row[k]) + 2, ' ');
      }
      out += line + "\n";
    }
    return out;
  }
  if (f == Format::Csv) {
    auto quote = [](const std::string &s) { return s.find_first_of(",\"") == std::string::npos ? s : "\"" + s + "\""; };
    for (size_t k = 0; k < vars.size(); ++k) out += (k ? "," : "") + vars[k];
    out += "\n";
    for (size_t n = 0; n < r.cycles; ++n) {
      for (size_t k = 0; k < vars.size(); ++k) out += (k ? "," : "") + quote(r.at(vars[k], n).str());
      out += "\n";
    }
    return out;
  }
  nlohmann::json j = nlohmann::json::array();
  for (size_t n = 0; n < r.cycles; ++n) {
    nlohmann::json o = nlohmann::json::object();
    for (auto &v : vars) o[v] = cell_json(r.at(v, n));
    j.push_back(o);
  }
  return j.dump(1) + "\n";
}

}  // namespace rml::oracle
