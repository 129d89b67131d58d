#include "formats/vcd.hpp"

#include <cstdint>
#include <cstdlib>
#include <sstream>

namespace rml::formats {

namespace {

enum class Kind { Bool, Int, Real };

bool is_value(const std::string &c) { return !c.empty() && c != "_" && c != "?" && c != "‖" && c != "nil"; }

Kind kind_of(const ChronogramTable &t, size_t col) {
  for (auto &row : t.rows) {
    const std::string &c = row[col];
    if (!is_value(c)) continue;
    if (c[0] == '[') throw VcdError("'" + t.names[col] + "' is a tensor: a waveform holds scalars (use --format csv or json)");
    if (c == "T" || c == "F") return Kind::Bool;
    if (c.find_first_of(".eEn") != std::string::npos) return Kind::Real;  // 1.0, 1e+16, nan, inf
    return Kind::Int;
  }
  return Kind::Bool;  // never a value: absent or unknown throughout
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
  struct Signal {
    size_t col;
    Kind kind;
    bool presence;  // the companion wire of a real
    std::string id;
  };
  std::vector<Signal> sig;
  std::ostringstream h;
  h << "$comment " << comment << " $end\n$timescale 1 ns $end\n$scope module " << scope << " $end\n";
  size_t next = 0;
  for (size_t c = 0; c < t.names.size(); ++c) {
    Kind k = kind_of(t, c);
    Signal s{c, k, false, code(next++)};
    const char *decl = k == Kind::Bool ? "wire 1" : k == Kind::Int ? "integer 64" : "real 64";
    h << "$var " << decl << " " << s.id << " " << t.names[c] << " $end\n";
    sig.push_back(s);
    if (k == Kind::Real) {
      Signal p{c, k, true, code(next++)};
      h << "$var wire 1 " << p.id << " " << t.names[c] << "_present $end\n";
      sig.push_back(p);
    }
  }
  h << "$upscope $end\n$enddefinitions $end\n";
  // The value of a signal at a cell, as a VCD value change ("" for a real without a value:
  // it keeps the last one).
  auto change = [](const Signal &s, const std::string &cell) -> std::string {
    bool value = is_value(cell);
    char none = cell == "_" ? 'z' : 'x';
    if (s.presence) return std::string(1, value ? '1' : none) + s.id;
    switch (s.kind) {
      case Kind::Bool: return std::string(1, !value ? none : cell == "T" ? '1' : '0') + s.id;
      case Kind::Int: return (value ? "b" + bits(std::strtoll(cell.c_str(), nullptr, 10)) : std::string("b") + none) + " " + s.id;
      case Kind::Real: return value ? "r" + cell + " " + s.id : "";
    }
    return "";
  };
  std::vector<std::string> last(sig.size());
  for (size_t n = 0; n < t.rows.size(); ++n) {
    std::string changes;
    for (size_t i = 0; i < sig.size(); ++i) {
      std::string v = change(sig[i], t.rows[n][sig[i].col]);
      if (v.empty() || v == last[i]) continue;
      last[i] = v;
      changes += v + "\n";
    }
    if (n == 0) h << "#0\n$dumpvars\n" << changes << "$end\n";
    else if (!changes.empty()) h << "#" << n << "\n" << changes;
  }
  h << "#" << t.rows.size() << "\n";  // the end of the last cycle
  return h.str();
}

}  // namespace rml::formats
