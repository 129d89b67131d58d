#include "formats/vcd.hpp"

#include <algorithm>
#include <cerrno>
#include <cstdint>
#include <cstdlib>
#include <optional>
#include <sstream>
#include <vector>

namespace rml::formats {

namespace {

enum class Kind { Bool, Int, Real };

bool is_value(const std::string &c) { return !c.empty() && c != "_" && c != "?" && c != "‖" && c != "nil"; }

// A scalar's kind from its text: T/F, a whole number (rml writes every real with a '.' or
// an exponent, or as nan/inf/-inf), a real; none for anything else (an enumeration's
// constructor).
std::optional<Kind> kind_of(const std::string &s) {
  if (s == "T" || s == "F") return Kind::Bool;
  if (s.empty() || s[0] == ' ' || s[0] == '\t') return std::nullopt;  // strtoll/strtod would skip it
  char *end = nullptr;
  errno = 0;
  (void)std::strtoll(s.c_str(), &end, 10);
  if (*end == '\0' && errno == 0) return Kind::Int;
  (void)std::strtod(s.c_str(), &end);
  if (*end == '\0') return Kind::Real;
  return std::nullopt;
}

// A cell's value: a scalar, or a tensor as rml prints one, nested lists in row-major order
// ("[[1.0, 2.0], [3.0, 4.0]]"): its shape and its elements' text.
struct Value {
  bool tensor = false;
  std::vector<size_t> shape;
  std::vector<std::string> items;
};

class ValueReader {
 public:
  explicit ValueReader(const std::string &s) : s_(s) {}

  // False when the text is no value: unbalanced brackets, ragged lists, an empty element.
  bool read(Value &v) {
    v.tensor = false;
    v.shape.clear();
    v.items.clear();
    skip();
    if (at('[')) {
      v.tensor = true;
      if (!list(v.shape, v.items, 0)) return false;
    } else {
      std::string e = element();
      if (e.empty()) return false;
      v.items.push_back(std::move(e));
    }
    skip();
    return i_ == s_.size();
  }

 private:
  const std::string &s_;
  size_t i_ = 0;

  bool at(char c) const { return i_ < s_.size() && s_[i_] == c; }
  void skip() {
    while (at(' ') || at('\t')) ++i_;
  }
  std::string element() {
    size_t b = i_;
    while (i_ < s_.size() && s_[i_] != ',' && s_[i_] != '[' && s_[i_] != ']') ++i_;
    size_t e = i_;
    while (e > b && (s_[e - 1] == ' ' || s_[e - 1] == '\t')) --e;
    return s_.substr(b, e - b);
  }
  // The list at '[': its shape, its elements appended to items. A tensor is rectangular:
  // every element of a list has the first one's shape.
  bool list(std::vector<size_t> &shape, std::vector<std::string> &items, int depth) {
    if (depth > 64) return false;  // far deeper than any tensor's rank: not one
    ++i_;
    skip();
    shape.assign(1, 0);
    if (at(']')) {
      ++i_;
      return true;
    }
    std::vector<size_t> first, sub;
    for (;;) {
      skip();
      sub.clear();
      if (at('[')) {
        if (!list(sub, items, depth + 1)) return false;
      } else {
        std::string e = element();
        if (e.empty()) return false;
        items.push_back(std::move(e));
      }
      if (shape[0] == 0) first = sub;
      else if (sub != first) return false;
      ++shape[0];
      skip();
      if (at(',')) {
        ++i_;
        continue;
      }
      if (!at(']')) return false;
      ++i_;
      break;
    }
    shape.insert(shape.end(), first.begin(), first.end());
    return true;
  }
};

// A cell in a message: long tensors cut short.
std::string quoted(const std::string &cell) { return "'" + (cell.size() > 40 ? cell.substr(0, 37) + "..." : cell) + "'"; }

std::string shape_text(const std::vector<size_t> &shape) {
  std::string s = "[";
  for (size_t d = 0; d < shape.size(); ++d) s += (d ? ", " : "") + std::to_string(shape[d]);
  return s + "]";
}

// Element k (row-major) of a tensor of that shape, named as simulators name array words.
std::string element_name(const std::string &name, const std::vector<size_t> &shape, size_t k) {
  std::string index;
  for (size_t d = shape.size(); d-- > 0;) {
    index = "[" + std::to_string(k % shape[d]) + "]" + index;
    k /= shape[d];
  }
  return name + index;
}

// Identifier codes: printable ASCII from '!' (IEEE 1364 §18.2.1).
std::string code(size_t k) {
  std::string s;
  do {
    s += static_cast<char>('!' + k % 94);
    k /= 94;
  } while (k);
  return s;
}

std::string bits(int64_t v) {
  uint64_t u = static_cast<uint64_t>(v);
  std::string s;
  for (int b = 63; b >= 0; --b) s += (u >> b) & 1 ? '1' : '0';
  size_t first = s.find('1');
  // Keep the sign bit for negatives (two's complement over 64 bits); drop leading zeros.
  return v < 0 ? s : first == std::string::npos ? "0" : s.substr(first);
}

}  // namespace

std::string write_vcd(const ChronogramTable &t, const std::string &scope, const std::string &comment) {
  // Each column's form, from all its values: a scalar or a tensor of one shape, and the
  // kind its elements share (ints among reals are reals).
  struct Column {
    bool tensor = false, seen = false;
    std::vector<size_t> shape;
    size_t size = 1;  // elements
    Kind kind = Kind::Bool;
  };
  std::vector<Column> cols(t.names.size());
  Value v;
  for (size_t c = 0; c < t.names.size(); ++c) {
    Column &col = cols[c];
    const std::string &name = t.names[c];
    bool bools = false, ints = false, reals = false;
    for (auto &row : t.rows) {
      const std::string &cell = row[c];
      if (!is_value(cell)) continue;
      if (!ValueReader(cell).read(v))
        throw VcdError("'" + name + "' holds " + quoted(cell) + ", which is neither a scalar nor a tensor");
      if (!col.seen) {
        col.seen = true;
        col.tensor = v.tensor;
        col.shape = v.shape;
        col.size = v.items.size();
      } else if (v.tensor != col.tensor || v.shape != col.shape) {
        throw VcdError("'" + name + "' changes shape, from " + (col.tensor ? shape_text(col.shape) : "a scalar") + " to " +
                       (v.tensor ? shape_text(v.shape) : "a scalar") + ": a waveform has a signal per element");
      }
      for (auto &e : v.items) {
        std::optional<Kind> k = kind_of(e);
        if (!k)
          throw VcdError("'" + name + "' holds " + quoted(e) + ": a waveform holds bools, ints, reals and tensors of them");
        if (*k == Kind::Bool) bools = true;
        else if (*k == Kind::Int) ints = true;
        else reals = true;
      }
    }
    if (bools && (ints || reals)) throw VcdError("'" + name + "' holds both bools and numbers");
    col.kind = reals ? Kind::Real : ints ? Kind::Int : Kind::Bool;  // never a value: a wire of z and x
  }

  struct Signal {
    size_t col, elem;  // elem: a tensor's element, row-major
    Kind kind;
    bool presence;  // the companion wire of a real or of an empty tensor
    std::string id;
  };
  std::vector<Signal> sig;
  std::ostringstream h;
  // The comment holds user text (a file's path, a property's name): a '$' in it could
  // spell the `$end` that closes it, so it is written '_'.
  std::string said = comment;
  std::replace(said.begin(), said.end(), '$', '_');
  h << "$comment " << said << " $end\n$timescale 1 ns $end\n$scope module " << scope << " $end\n";
  size_t next = 0;
  for (size_t c = 0; c < t.names.size(); ++c) {
    const Column &col = cols[c];
    const char *decl = col.kind == Kind::Bool ? "wire 1" : col.kind == Kind::Int ? "integer 64" : "real 64";
    for (size_t k = 0; k < col.size; ++k) {
      sig.push_back({c, k, col.kind, false, code(next++)});
      h << "$var " << decl << " " << sig.back().id << " " << (col.tensor ? element_name(t.names[c], col.shape, k) : t.names[c])
        << " $end\n";
    }
    // A real holds no z or x, an empty tensor nothing: the presence is a wire of its own
    // (one for a whole tensor, present or absent as a whole).
    if (col.kind == Kind::Real || col.size == 0) {
      sig.push_back({c, 0, col.kind, true, code(next++)});
      h << "$var wire 1 " << sig.back().id << " " << t.names[c] << "_present $end\n";
    }
  }
  h << "$upscope $end\n$enddefinitions $end\n";
  // The value of a signal at a cell (`text` its element's text when the cell has a value),
  // as a VCD value change ("" for a real without a value: it keeps the last one).
  auto change = [](const Signal &s, const std::string &cell, bool value, const std::string &text) -> std::string {
    char none = cell == "_" ? 'z' : 'x';
    if (s.presence) return std::string(1, value ? '1' : none) + s.id;
    switch (s.kind) {
      case Kind::Bool: return std::string(1, !value ? none : text == "T" ? '1' : '0') + s.id;
      case Kind::Int: return (value ? "b" + bits(std::strtoll(text.c_str(), nullptr, 10)) : std::string("b") + none) + " " + s.id;
      case Kind::Real: return value ? "r" + text + " " + s.id : "";
    }
    return "";
  };
  std::vector<std::string> last(sig.size());
  for (size_t n = 0; n < t.rows.size(); ++n) {
    std::string changes;
    size_t i = 0;  // signals are in column order
    for (size_t c = 0; c < cols.size(); ++c) {
      const std::string &cell = t.rows[n][c];
      bool value = is_value(cell);
      if (value && cols[c].tensor) ValueReader(cell).read(v);  // read once already: it is one
      for (; i < sig.size() && sig[i].col == c; ++i) {
        const std::string &text = value && cols[c].tensor && !sig[i].presence ? v.items[sig[i].elem] : cell;
        std::string ch = change(sig[i], cell, value, text);
        if (ch.empty() || ch == last[i]) continue;
        last[i] = ch;
        changes += ch + "\n";
      }
    }
    if (n == 0) h << "#0\n$dumpvars\n" << changes << "$end\n";
    else if (!changes.empty()) h << "#" << n << "\n" << changes;
  }
  h << "#" << t.rows.size() << "\n";  // the end of the last cycle
  return h.str();
}

}  // namespace rml::formats
