// The step class of a main node (emit_cpp.hpp): one section per equation in the schedule,
// each the clock-directed reading of the oracle's rule for that primitive (semantics.md
// §3-§4) on cells that the checker's proof keeps known (never ⊥) and, on admissible
// inputs, free of clock errors: a case the proof excludes is still checked and makes
// step() return Status::Error rather than a value.
#include "codegen/emit_cpp.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>
#include <unordered_set>

#include "array/eval.hpp"
#include "codegen/apply_term.hpp"
#include "codegen/emit_abi.hpp"
#include "codegen/cpp_text.hpp"
#include "codegen/emit_tagless.hpp"
#include "codegen/reserved_names.hpp"
#include "codegen/emit_term.hpp"
#include "core/primitives.hpp"
#include "ops/ops.hpp"
#include "stream/clock_directed.hpp"
#include "stream/retime.hpp"
#include "stream/window_tables.hpp"

namespace rml::codegen {

extern const std::vector<std::pair<const char *, const char *>> kRuntimeFiles;

namespace {

const std::set<std::string> kKeywords = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "bool", "break", "case", "catch", "char",
    "char8_t", "char16_t", "char32_t", "class", "compl", "concept", "const", "consteval", "constexpr", "constinit",
    "const_cast", "continue", "co_await", "co_return", "co_yield", "decltype", "default", "delete", "do", "double",
    "dynamic_cast", "else", "enum", "explicit", "export", "extern", "false", "float", "for", "friend", "goto", "if",
    "inline", "int", "long", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator", "or",
    "or_eq", "private", "protected", "public", "register", "reinterpret_cast", "requires", "return", "short", "signed",
    "sizeof", "static", "static_assert", "static_cast", "struct", "switch", "template", "this", "thread_local", "throw",
    "true", "try", "typedef", "typeid", "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "wchar_t",
    "while", "xor", "xor_eq",
    // Names the generated code uses unqualified (types, namespaces, the class's members, the
    // window runtime's names): a class or a member spelled so would hide them.
    "int64_t", "uint64_t", "int32_t", "uint32_t", "uint8_t", "size_t", "ptrdiff_t", "nullptr_t", "max_align_t", "std", "rml",
    "rml_generated", "Cell", "Status", "Kind", "Inputs", "Outputs", "State", "Tensors", "Step", "Node", "Runner", "window",
    "ops", "step", "reset", "push", "pop", "finish", "retimed", "tagless", "inputs_on_their_clocks", "error_value_left", "kHorizon", "kWindow", "main"};

// A name of the program as a C++ identifier: the printed spelling, with '_' appended when
// it is a keyword, a macro of the standard or platform headers (reserved_names.cpp) or could
// meet a name of the generated code (those begin with rml_, or are listed above).
// Elaborated names may hold what C++ does not: an array's element `a[1]`, a record's field
// `p.n`, a static instance `scale<<2>>_1_o`, Heptagon's prime `y'`; each such character
// becomes '_' (the Emitter keeps the result unique).
std::string ident(const std::string &printed) {
  std::string s;
  for (size_t i = 0; i < printed.size(); ++i) {
    char ch = printed[i];
    if (std::isalnum(static_cast<unsigned char>(ch)) || ch == '_') s += ch;
    else if (ch == '\'') s += "_prime";
    else if (ch != ']' && ch != '>' && !(ch == '<' && i > 0 && printed[i - 1] == '<') && (s.empty() || s.back() != '_')) s += '_';
  }
  while (!s.empty() && s.back() == '_' && printed.back() != '_') s.pop_back();
  // A leading '_' is the implementation's (`_X`), as is a digit's place.
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) s = "v_" + s;
  else if (s[0] == '_') s = "v" + s;
  if (kKeywords.count(s) || is_predefined_macro(s) || s.rfind("rml_", 0) == 0) s += "_";
  return s;
}

const char *cpp_type(Scalar s) {
  switch (s) {
    case Scalar::Real: return "double";
    case Scalar::Int: return "int64_t";
    case Scalar::Bool: return "bool";
  }
  return "void";
}


// The value of a scalar operator on the operands' values a (and b), as the oracle's
// scalar path computes it (ops/scalar_ops.hpp, the same functions).
std::string op_expression(const core::Equation &eq, Scalar arg, Scalar result, const std::vector<std::string> &v) {
  const std::string ops = "rml::ops::";
  const std::string a = v.at(0), b = v.size() > 1 ? v[1] : "", c = v.size() > 2 ? v[2] : "";
  switch (eq.op) {
    case core::ApplyOp::Unary: {
      std::string op = ops + "UnOp::" + unop_enumerator(eq.un);
      if (arg == Scalar::Real && result == Scalar::Real) return ops + "real_unary(" + op + ", " + a + ")";
      if (arg == Scalar::Real) return ops + "real_to_int(" + op + ", " + a + ")";
      if (result == Scalar::Real) return "static_cast<double>(" + a + ")";
      if (result == Scalar::Bool) return ops + "int_unary(" + op + ", " + a + ") != 0";
      return ops + "int_unary(" + op + ", " + a + ")";
    }
    case core::ApplyOp::Binary: {
      std::string op = ops + "BinOp::" + binop_enumerator(eq.bin);
      if (arg == Scalar::Real) return (ops::is_comparison(eq.bin) ? ops + "compare(" : ops + "real_binary(") + op + ", " + a + ", " + b + ")";
      if (arg == Scalar::Bool || ops::is_comparison(eq.bin)) return ops + "int_binary(" + op + ", " + a + ", " + b + ") != 0";
      return ops + "int_binary(" + op + ", " + a + ", " + b + ")";
    }
    case core::ApplyOp::If: return a + " ? " + b + " : " + c;
    case core::ApplyOp::Index:
    case core::ApplyOp::Array:
    case core::ApplyOp::Call:
    case core::ApplyOp::Imported: break;
  }
  return "";
}

// rml_csv_main.cpp: the step class as a command (`run TRACE.csv`): rml run's CSV trace in,
// the outputs' chronogram as rml run --format csv prints it out. What rml diff's `cpp`
// back end builds and runs; a template with @CLS@ (the class), @NS@, @READ@ (the inputs
// read from their columns), @PRINT@ (the outputs written), @RUN@ (one cycle), @FINISH@.
const char *kCsvMain = R"MAIN(// Generated by rml compile: a command-line run of @NS@::@CLS@ on a CSV trace (a header of
// input names, a row per cycle, `_` absent, T/F, decimal numbers), writing the outputs'
// chronogram as CSV on standard output. Build: c++ -std=c++20 -I. -Iruntime *.cpp
// runtime/ops/special.cpp -o run. Exit 2: a bad trace; 3: a status other than Ok.
#include <array>
#include <charconv>
#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <limits>
#include <memory>
#include <iostream>
#include <string>
#include <type_traits>
#include <vector>

#include "@CLS@.hpp"

namespace {

std::string trim(const std::string &s) {
  size_t b = s.find_first_not_of(" \t\r"), e = s.find_last_not_of(" \t\r");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}
// Cells split at commas outside brackets and quotes: rml run writes a tensor "[1.0, 2.0]".
std::vector<std::string> split(const std::string &line) {
  std::vector<std::string> cells;
  std::string cur;
  int depth = 0;
  bool quoted = false;
  for (char ch : line) {
    if (ch == '"') quoted = !quoted;
    else if (ch == '[' && !quoted) ++depth;
    else if (ch == ']' && !quoted) --depth;
    if (ch == ',' && depth == 0 && !quoted) cells.push_back(trim(cur)), cur.clear();
    else if (ch != '"') cur += ch;
  }
  cells.push_back(trim(cur));
  return cells;
}
bool read(const std::string &s, rml::Cell<double> &c) {
  if (s == "_") return c = {}, true;
  char *end = nullptr;
  double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end) return false;
  return c = rml::Cell<double>::of(v), true;
}
bool read(const std::string &s, rml::Cell<int64_t> &c) {
  if (s == "_") return c = {}, true;
  char *end = nullptr;
  long long v = std::strtoll(s.c_str(), &end, 10);
  if (s.empty() || *end) return false;
  return c = rml::Cell<int64_t>::of(v), true;
}
bool read(const std::string &s, rml::Cell<bool> &c) {
  if (s == "_") return c = {}, true;
  if (s == "T" || s == "true") return c = rml::Cell<bool>::of(true), true;
  if (s == "F" || s == "false") return c = rml::Cell<bool>::of(false), true;
  return false;
}
// A tensor cell: its elements in row-major order, brackets and commas as separators.
template <class T, std::size_t N>
bool read(const std::string &s, rml::Cell<std::array<T, N>> &c) {
  if (s == "_") return c.kind = rml::Kind::Absent, true;
  std::array<T, N> &v = c.value;  // in place: a tensor may be too large for the stack
  std::size_t k = 0;
  std::string tok;
  for (std::size_t at = 0; at <= s.size(); ++at) {
    char ch = at < s.size() ? s[at] : ',';
    if (ch == '[' || ch == ']' || ch == ',' || ch == ' ') {
      if (tok.empty()) continue;
      rml::Cell<T> e;
      if (k >= N || !read(tok, e) || e.kind != rml::Kind::Value) return false;
      v[k++] = e.value;
      tok.clear();
    } else {
      tok += ch;
    }
  }
  if (k != N) return false;
  return c.kind = rml::Kind::Value, true;
}
// A real as rml run prints it (array::format_real, {fmt}'s shortest round trip): nan
// whatever its sign, inf, -inf; the shortest digits that read back, written fixed when the
// decimal exponent is from -5 to 15 and as d.ddde+XX otherwise; ".0" when no point.
std::string real_text(double v) {
  if (v != v) return "nan";
  if (v == std::numeric_limits<double>::infinity()) return "inf";
  if (v == -std::numeric_limits<double>::infinity()) return "-inf";
  char buf[64];
  auto r = std::to_chars(buf, buf + sizeof buf, v, std::chars_format::scientific);  // shortest: -d.ddde+XX
  std::string sci(buf, r.ptr), out;
  if (sci[0] == '-') out = "-", sci.erase(0, 1);
  const size_t e = sci.find('e');
  std::string digits = sci.substr(0, e);
  if (digits.size() > 1) digits.erase(1, 1);  // the point
  const int exp = std::atoi(sci.c_str() + e + 1);
  if (exp < -4 || exp >= 16) return out + sci;
  if (exp < 0) return out + "0." + std::string(static_cast<size_t>(-exp - 1), '0') + digits;
  const size_t whole = static_cast<size_t>(exp) + 1;
  if (digits.size() <= whole) return out + digits + std::string(whole - digits.size(), '0') + ".0";
  return out + digits.substr(0, whole) + "." + digits.substr(whole);
}
// A status in words (rml::Status).
const char *status_text(rml::Status st) {
  switch (st) {
    case rml::Status::Ok: return "Ok";
    case rml::Status::InputClock: return "InputClock (an input present where its clock is false, or absent where it is true)";
    case rml::Status::Error: return "Error (a case rml-check's proof excludes, such as a nil condition)";
    case rml::Status::Unknown: return "Unknown (an input given as unknown)";
    case rml::Status::Window: return "Window (a cell stayed unknown past the window: the inputs break the node's assumptions)";
    case rml::Status::Inexact: return "Inexact (an error value reached a cycle already given out)";
  }
  return "?";
}
template <class T>
std::string text(const rml::Cell<T> &c);
// As rml run writes a tensor: nested brackets by the shape, quoted for CSV.
template <class T, std::size_t N>
std::string text(const rml::Cell<std::array<T, N>> &c, std::initializer_list<std::size_t> shape) {
  if (c.kind != rml::Kind::Value) return text(rml::Cell<T>{c.kind, T{}});
  std::vector<std::size_t> dims(shape);
  std::string out;
  std::size_t k = 0;
  auto go = [&](auto &self, std::size_t d) -> void {
    out += '[';
    for (std::size_t j = 0; j < dims[d]; ++j) {
      if (j) out += ", ";
      if (d + 1 == dims.size()) out += text(rml::Cell<T>::of(c.value[k++]));
      else self(self, d + 1);
    }
    out += ']';
  };
  go(go, 0);
  return "\"" + out + "\"";
}
template <class T>
std::string text(const rml::Cell<T> &c) {
  switch (c.kind) {
    case rml::Kind::Absent: return "_";
    case rml::Kind::Nil: return "nil";
    case rml::Kind::Unknown: return "?";
    case rml::Kind::Error: return "\u2016";
    case rml::Kind::Value: break;
  }
  if constexpr (std::is_same_v<T, bool>) {
    return c.value ? "T" : "F";
  } else if constexpr (std::is_same_v<T, double>) {
    return real_text(c.value);
  } else {
    return std::to_string(c.value);
  }
}

}  // namespace

int main(int argc, char **argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " TRACE.csv\n";
    return 2;
  }
  std::ifstream f(argv[1]);
  if (!f) {
    std::cerr << "cannot read " << argv[1] << "\n";
    return 2;
  }
  std::vector<std::string> header;
  std::string line;
  while (header.empty() && std::getline(f, line))
    if (!trim(line).empty() && trim(line)[0] != '#') header = split(trim(line));
  auto column = [&](const char *name) {
    for (size_t k = 0; k < header.size(); ++k)
      if (header[k] == name) return static_cast<int>(k);
    std::cerr << "the trace has no column '" << name << "'\n";
    std::exit(2);
  };
  (void)column;
  @COLUMNS@
  std::cout << "@HEADER@\n";
  @NS@::@CLS@ m;
  auto out = std::make_unique<@NS@::@CLS@::Outputs>();  // on the heap: tensors may be large
  auto &o = *out;
  auto print = [&] { @PRINT@ };
  long cycle = 0;
  while (std::getline(f, line)) {
    if (trim(line).empty() || trim(line)[0] == '#') continue;
    std::vector<std::string> cells = split(trim(line));
    if (cells.size() != header.size()) {
      std::cerr << "cycle " << cycle << ": " << cells.size() << " cells, the header has " << header.size() << "\n";
      return 2;
    }
    auto in_cells = std::make_unique<@NS@::@CLS@::Inputs>();
    auto &in = *in_cells;
    @READ@
    @RUN@
    ++cycle;
  }
  @FINISH@
  return 0;
}
)MAIN";

struct Emitter {
  const core::Program &prog;
  const core::Clocks &clocks;
  const stream::Plan &plan;
  const CheckedProgram *cp;
  std::unordered_map<std::string, std::string> printed;
  std::unordered_map<std::string, const core::Var *> var_of;
  std::unordered_map<std::string, Scalar> elem_of;
  std::unordered_map<std::string, const Type *> type_of;
  // Applications computed by a generated function (tensors, funs, builtins): the
  // function's name per equation, and the functions' text in order of first use.
  std::unordered_map<const core::Equation *, std::string> fun_of;
  std::vector<std::string> functions;
  std::vector<std::pair<std::string, std::vector<ir::Elem>>> signatures;  // per function: name, operand elements then the result's
  // Per function: the operands its in-place variant NAME_ioJ writes the result over (a
  // window class's runtime calls it when it reuses that operand's block: rml_window.hpp's
  // Step::inplace); only for a window class, whose tensors are blocks.
  std::unordered_map<std::string, std::vector<int>> in_place;
  bool window_class = false;
  // Applications with others fused into them (fuse_applications.hpp), by variable.
  const std::unordered_map<std::string, std::shared_ptr<const FusedApplication>> *fused = nullptr;

  Emitter(const core::Program &p, const core::Clocks &c, const stream::Plan &pl, const CheckedProgram *checked)
      : prog(p), clocks(c), plan(pl), cp(checked), printed(core::printed_names(p)) {
    for (auto *vars : {&prog.inputs, &prog.outputs, &prog.locals})
      for (auto &v : *vars) var_of[v.name] = &v, type_of[v.name] = &v.type;
    for (auto &eq : prog.equations) type_of[eq.lhs] = &eq.type;
    cpp_name = cpp_names(p);
  }

  std::unordered_map<std::string, std::string> cpp_name;  // variable -> its C++ identifier
  std::string name(const std::string &var) const {
    auto it = cpp_name.find(var);
    if (it != cpp_name.end()) return it->second;
    auto p = printed.find(var);
    return ident(p == printed.end() ? var : p->second);
  }
  std::string label(const std::string &var) const {  // as rml run names the column
    auto it = printed.find(var);
    return it == printed.end() ? var : it->second;
  }

  // kCsvMain with this class's inputs and outputs.
  std::string csv_main(const std::string &cls, const std::string &ns, bool window) const {
    std::string columns, read, header, print = "std::cout";
    for (auto &v : prog.inputs) {
      columns += "const int col_" + name(v.name) + " = column(\"" + label(v.name) + "\");\n  ";
      read += "if (!read(cells[col_" + name(v.name) + "], in." + name(v.name) + ")) {\n      std::cerr << \"cycle \" << cycle << \": '\" << cells[col_" +
              name(v.name) + "] << \"' is not a " + scalar_name(v.type.elem) + " for " + label(v.name) + "\\n\";\n      return 2;\n    }\n    ";
    }
    for (size_t k = 0; k < prog.outputs.size(); ++k) {
      header += (k ? "," : "") + label(prog.outputs[k].name);
      const Type &t = prog.outputs[k].type;
      std::string dims;
      if (is_tensor(t))
        for (int64_t d : ir_type(t).shape) dims += (dims.empty() ? ", {" : ", ") + std::to_string(d);
      if (!dims.empty()) dims += "}";
      print += std::string(k ? " << \",\"" : "") + " << text(o." + name(prog.outputs[k].name) + dims + ")";
    }
    print += " << \"\\n\";";
    std::string run = window ? "if (rml::Status st = m.push(in); st != rml::Status::Ok) {\n      std::cerr << \"cycle \" << cycle << \": status \" << status_text(st) << \"\\n\";\n      return 3;\n    }\n    while (m.pop(o)) print();"
                             : "if (rml::Status st = m.step(in, o); st != rml::Status::Ok) {\n      std::cerr << \"cycle \" << cycle << \": status \" << status_text(st) << \"\\n\";\n      return 3;\n    }\n    print();";
    std::string finish = window ? "if (rml::Status st = m.finish(); st != rml::Status::Ok) {\n    std::cerr << \"finish: status \" << status_text(st) << \"\\n\";\n    return 3;\n  }\n  while (m.pop(o)) print();" : "";
    std::string t = kCsvMain;
    auto put = [&](const std::string &key, const std::string &value) {
      for (size_t at = t.find(key); at != std::string::npos; at = t.find(key, at + value.size())) t.replace(at, key.size(), value);
    };
    put("@COLUMNS@", columns);
    put("@READ@", read);
    put("@HEADER@", header);
    put("@PRINT@", print);
    put("@RUN@", run);
    put("@FINISH@", finish);
    put("@NS@", ns);
    put("@CLS@", cls);
    return t;
  }
  // The class's inputs or outputs as rml_abi.cpp carries them (emit_abi.hpp).
  std::vector<AbiPort> abi_ports(const std::vector<core::Var> &vars) const {
    std::vector<AbiPort> ports;
    for (auto &v : vars) ports.push_back({name(v.name), v.type.elem, is_tensor(v.type) ? ir_type(v.type).shape : std::vector<int64_t>{}});
    return ports;
  }
  Scalar elem(const std::string &var, const Type &t, Span where) const {
    if (t.kind != Type::Tensor)
      throw CodegenError("codegen.tensor", where, "'" + name(var) + "' has no concrete type after elaboration");
    if (!t.shape.empty() && t.elem == Scalar::Bool)
      throw CodegenError("codegen.tensor", where,
                         "'" + name(var) + "' is a tensor of bools: rml compile generates real and int tensors (rml run --backend stream runs it)");
    return t.elem;
  }
  static bool is_tensor(const Type &t) { return !t.shape.empty(); }
  static ir::Type ir_type(const Type &t) { return ir::Type{t.elem, array::concrete_shape(t.shape)}; }
  // The C++ type of a variable: a scalar, or a flat row-major std::array (its shape in a comment).
  static std::string var_type(const Type &t) {
    if (!is_tensor(t)) return cpp_type(t.elem);
    return std::string("std::array<") + (t.elem == Scalar::Real ? "double" : "int64_t") + ", " + std::to_string(ir::numel(ir_type(t).shape)) + ">";
  }
  std::string shape_comment(const Type &t) const { return is_tensor(t) ? "  // " + ir_type(t).str() : ""; }
  // Whether an application goes through a generated function rather than a scalar operator.
  bool by_function(const core::Equation &eq) const {
    return applied_by_function(eq, [&](const std::string &v) { return !type_of.at(v)->shape.empty(); });
  }
  // Lowers the application (with the applications fused into it) and writes its function
  // once per (what, operand types).
  void add_function(const core::Equation &eq, std::unordered_map<std::string, std::string> &by_key) {
    if (!cp) throw CodegenError("codegen.fun", eq.span, "'" + core::apply_name(eq) + "': no checked program to lower it from");
    const FusedApplication *tree = nullptr;
    if (fused)
      if (auto it = fused->find(eq.lhs); it != fused->end()) tree = it->second.get();
    std::vector<ir::Type> types;
    for (auto &a : eq.args) types.push_back(ir_type(*type_of.at(a)));
    size_t leaf = 0;
    std::string key = tree ? tree_key(*tree, types, leaf) : what_key(eq);
    if (!tree)
      for (auto &t : types) key += "|" + t.str();
    auto it = by_key.find(key);
    if (it == by_key.end()) {
      AppliedTerm t = tree ? apply_fused(*cp, *tree, types) : apply_term(*cp, eq, types);
      std::string fname = "rml_fn" + std::to_string(functions.size()) + "_" + (tree ? tree_stem(*tree) : fun_stem(eq));
      std::vector<ir::Elem> sig;
      for (auto &in : t.inputs) sig.push_back(in.second.elem);
      sig.push_back(t.body->type.elem);
      signatures.emplace_back(fname, sig);
      std::string what = tree ? tree_name(*tree) : "'" + core::apply_name(eq) + "'";
      const std::string comment = what + ", first applied at " + (eq.span.valid() ? location(eq.span) : std::string("a generated equation"));
      functions.push_back(emit_term_function(fname, t.inputs, t.body, comment));
      for (size_t j = 0; window_class && !t.body->type.shape.empty() && j < t.inputs.size() && j < 32; ++j) {
        std::string io = emit_term_function(fname + "_io" + std::to_string(j), t.inputs, t.body, comment, static_cast<int>(j));
        if (io.empty()) continue;
        functions.push_back(std::move(io));
        in_place[fname].push_back(static_cast<int>(j));
      }
      it = by_key.emplace(key, fname).first;
    }
    fun_of[&eq] = it->second;
  }
  // What an application computes, apart from its operands' types.
  static std::string what_key(const core::Equation &eq) {
    std::string key = std::to_string(static_cast<int>(eq.op)) + "|" + std::to_string(static_cast<int>(eq.un)) + "|" +
                      std::to_string(static_cast<int>(eq.bin)) + "|" + eq.fn + (eq.builtin ? "!" : "");
    for (auto &v : eq.static_args) key += "|#" + v.str();
    return key;
  }
  static std::string tree_key(const FusedApplication &t, const std::vector<ir::Type> &leaves, size_t &leaf) {
    std::string key = what_key(t.eq) + "(";
    for (size_t k = 0; k < t.eq.args.size(); ++k)
      key += (t.from[k] ? tree_key(*t.from[k], leaves, leaf) : leaves.at(leaf++).str()) + ",";
    return key + ")";
  }
  static std::string tree_stem(const FusedApplication &t) {
    std::string s = fun_stem(t.eq);
    for (auto &f : t.from)
      if (f) s += "_" + tree_stem(*f);
    return s;
  }
  // "'+' of 'outer'" names the applications a fused function computes, reader first.
  static std::string tree_name(const FusedApplication &t) {
    std::string s = "'" + core::apply_name(t.eq) + "'";
    std::string inner;
    for (auto &f : t.from)
      if (f) inner += (inner.empty() ? "" : ", ") + tree_name(*f);
    return inner.empty() ? s : s + " of " + (inner.find(',') == std::string::npos ? inner : "(" + inner + ")");
  }
  static std::string fun_stem(const core::Equation &eq) {
    std::string s;
    switch (eq.op) {
      case core::ApplyOp::Unary: s = unop_enumerator(eq.un); break;
      case core::ApplyOp::Binary: s = binop_enumerator(eq.bin); break;
      case core::ApplyOp::If: s = "if"; break;
      case core::ApplyOp::Index: s = "index"; break;
      case core::ApplyOp::Array: s = "array"; break;
      case core::ApplyOp::Call:
      case core::ApplyOp::Imported: s = eq.fn; break;
    }
    for (char &ch : s)
      if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return s;
  }
  // The call of eq's function on its operands, writing x (`x` its C++ name).
  std::string call_code(const core::Equation &eq, const std::string &x) const {
    std::string pre, args, post;
    for (size_t k = 0; k < eq.args.size(); ++k) {
      const Type &t = *type_of.at(eq.args[k]);
      std::string a = name(eq.args[k]);
      if (is_tensor(t)) args += a + ".data(), ";
      else if (t.elem == Scalar::Bool) {
        std::string tmp = "rml_a" + std::to_string(k);
        pre += "const int64_t " + tmp + " = " + a + "; ";
        args += "&" + tmp + ", ";
      } else args += "&" + a + ", ";
    }
    if (is_tensor(eq.type)) args += x + ".data()";
    else if (eq.type.elem == Scalar::Bool) pre += "int64_t rml_r = 0; ", args += "&rml_r", post = " " + x + " = rml_r != 0;";
    else args += "&" + x;
    if (eq.args.empty()) {  // reads nothing: computed once (glorot_uniform of a parameter's shape, zeros)
      std::string T = var_type(eq.type) == "bool" ? "int64_t" : var_type(eq.type);
      std::string into = is_tensor(eq.type) ? "v.data()" : "&v";
      if (is_tensor(eq.type))  // on the heap: it may be too large for the stack
        return "{ static const auto rml_once = [] { auto v = std::make_unique<" + T + ">(); " + fun_of.at(&eq) + "(v->data()); return v; }(); " + x +
               " = *rml_once; }";
      return "{ static const " + T + " rml_once = [] { " + T + " v{}; " + fun_of.at(&eq) + "(" + into + "); return v; }(); " + x +
             " = rml_once" + (eq.type.elem == Scalar::Bool ? " != 0" : "") + "; }";
    }
    return "{ " + pre + fun_of.at(&eq) + "(" + args + ");" + post + " }";
  }
  std::string ck(int term) const { return "rml_ck[" + std::to_string(term) + "]"; }

  // Refusals first: everything the class cannot compute exactly.
  void check_supported() {
    for (auto &v : prog.inputs) elem(v.name, v.type, Span{});
    std::unordered_map<std::string, std::string> by_key;
    window_class = needs_window();
    for (auto &eq : prog.equations) {
      elem(eq.lhs, eq.type, eq.span);
      if (eq.prim != core::Prim::Apply || !by_function(eq)) continue;
      add_function(eq, by_key);
    }
  }
  // Whether the node needs the window class: `post` (a cell may need the future), or, in a
  // post-free node, an instantaneous cycle through exclusive when/merge branches (a
  // component of the schedule, or clocks and the equations they guard in a cycle), which
  // has no static order: the window runtime's worklist runs it to its fixpoint each cycle,
  // as the stream runner does.
  bool needs_window() const {
    if (plan.has_post) return true;
    for (auto &comp : plan.schedule)
      if (comp.size() > 1) return true;
    return !stream::clock_directed_order(plan, clocks).has_value();
  }

  // ---- a node with `post`: the window class (rml_window.hpp) and the node as tables ----
  // Retimed where it can be (stream/retime.hpp): the runtime's fast sweep computes each
  // cell once, a lag after its cycle, without the worklist.
  std::optional<stream::Retiming> retiming;
  std::optional<stream::WindowTables> tables;  // the node as the runtime's tables
  bool tagless = false;  // retimed, with the tagless sweep (emit_tagless.hpp)
  TaglessCode tagless_code;  // its functions: inline in the header, and in the source
  int64_t window_size(int64_t horizon) const {
    int64_t w = 2 * horizon + 2;
    if (retiming) w = std::max<int64_t>(w, retiming->max_lag + horizon + 1);
    return w;
  }
  static const char *elem_code(Scalar e) { return e == Scalar::Real ? "E::Real" : e == Scalar::Int ? "E::Int" : "E::Bool"; }
  std::string window_header(const std::string &cls, const std::string &source, const std::string &ns, int64_t horizon) {
    std::ostringstream h;
    h << "// Generated by rml compile from " << source << ", node " << prog.main << ". Do not edit.\n"
      << (plan.has_post ? "// The node reads the future (`post`): push() one cycle's inputs, then pop() the outputs of\n"
                        : "// The node has an instantaneous cycle through exclusive when/merge branches (no static\n"
                          "// order: each cycle runs to its fixpoint). push() one cycle's inputs, then pop() the outputs of\n")
      << "// every cycle that is final, in order. rml-check proved every cell known once kHorizon more\n"
      << "// cycles are in; a cycle is given out after kHorizon more are known too, so outputs come\n"
      << (retiming ? "// at most max(2 * kHorizon + 1, kMaxLag + kHorizon) cycles after their inputs, and at most\n"
                     "// kWindow cycles are held.\n"
                   : "// at most 2 * kHorizon + 1 cycles after their inputs, and at most kWindow cycles are held.\n")
      << "// finish() ends the trace: the cycles still held come out, their cells that need inputs\n"
      << "// beyond it unknown (Kind::Unknown), exactly where the oracle's are.\n";
    if (retiming)
      h << "// Retimed: while the base clock ticks (some input is present at every cycle), a push\n"
        << "// computes each cell once, kMaxLag cycles after its own at most, in a fixed order (no\n"
        << "// worklist), and a cycle comes out kMaxLag + kHorizon cycles after its inputs; a cycle\n"
        << "// where it does not tick, or finish(), hands over to the worklist (the same cells).\n";
    if (tagless)
      h << "// While every input is present, a push stores no tags: presence is read from the clocks\n"
        << "// (src/codegen/README.md, \"Tagless sweep\"); tagless() says whether every push so far did.\n";
    h << "// Tensors are flat row-major std::arrays (their shapes in comments).\n"
      << "#pragma once\n#include <array>\n" << (tagless ? "#include <bit>\n" : "") << "#include <cstdint>\n#include <cstring>\n\n#include \"rml_cell.hpp\"\n#include \"rml_window.hpp\"\n"
      << (tagless ? "#include \"ops/scalar_ops.hpp\"\n" : "") << "\nnamespace " << ns << " {\n\n"
      << "class " << cls << " {\n public:\n"
      << "  static constexpr int kHorizon = " << horizon << ";  // rml-check's proved horizon\n"
      << "  static constexpr int kWindow = " << window_size(horizon) << ";   // cycles held at most\n";
    if (retiming) h << "  static constexpr int kMaxLag = " << retiming->max_lag << ";   // of a cell's computation after its cycle\n";
    h
      << "  struct Inputs {\n";
    for (auto &v : prog.inputs) h << "    rml::Cell<" << var_type(v.type) << "> " << name(v.name) << ";" << shape_comment(v.type) << "\n";
    h << "  };\n  struct Outputs {\n";
    for (auto &v : prog.outputs) h << "    rml::Cell<" << var_type(v.type) << "> " << name(v.name) << ";" << shape_comment(v.type) << "\n";
    h << "  };\n"
      << "  " << cls << "();\n"
      << "  void reset();\n"
      << "  // Status::Window: a cell stayed unknown past kWindow cycles (the inputs break the node's\n"
      << "  // assumptions); Status::Inexact: an error value reached a cycle already given out.\n"
      << "  rml::Status push(const Inputs &in);\n"
      << "  bool pop(Outputs &out);  // the next final cycle's outputs; false when none is\n"
      << "  rml::Status finish();\n"
      << "  bool inputs_on_their_clocks() const { return rml_clocks_ok_; }  // so far\n"
      << "  bool error_value_left() const { return rml_runner_.error_left(); }  // a cycle popped so far held one, in any cell\n"
      << "  bool retimed() const { return rml_runner_.fast(); }  // the pushes so far took the fast sweep\n"
      << "  bool tagless() const { return " << (tagless ? "rml_tagless_" : "false") << "; }  // and all without tags (until finish())\n\n"
      << " private:\n  rml::window::Runner rml_runner_;\n  bool rml_finished_ = false, rml_clocks_ok_ = true;\n"
      << "  // A cell of the oldest frame: its tag and its value's words (double, or int64_t for ints\n"
      << "  // and bools). (Written in place: a tensor's cell may be too large for the stack.)\n"
      << "  template <class T>\n  static void rml_cell_into(rml::Cell<T> &c, rml::window::Tag t, const void *p) {\n"
      << "    using namespace rml::window;\n"
      << "    c.kind = t == Bot ? rml::Kind::Unknown : t == Abs ? rml::Kind::Absent : t == Err ? rml::Kind::Error : t == Nil ? rml::Kind::Nil : rml::Kind::Value;\n"
      << "    if (t != Val) return;\n    if constexpr (sizeof(T) == 1) {\n      int64_t i;\n      std::memcpy(&i, p, 8);\n      c.value = i != 0;\n"
      << "    } else {\n      std::memcpy(&c.value, p, sizeof c.value);  // double, int64_t or a std::array of them\n    }\n  }\n"
      << (tagless ? tagless_members(plan) : "") << "};\n\n";
    if (tagless)
      h << tagless_code.inline_functions
        << "inline rml::Status " << cls << "::push(const Inputs &in) {\n  if (rml_tagless_) [[likely]] {\n    rml::Status status;\n"
        << "    if (rml_tagless_push(in, status)) return status;\n  }\n  return rml_push_tagged(in);\n}\n\n"
        << "inline bool " << cls << "::pop(Outputs &out) {\n  if (rml_tagless_) [[likely]] return rml_tagless_pop(out);\n  return rml_pop_tagged(out);\n}\n\n";
    h << "}  // namespace " << ns << "\n";
    return h.str();
  }
  // The retimed node's fast sweep written out (Node::sweep): the cells of pushed cycle t in
  // the retiming's order, the cell of step k at cycle t - lag[k]; each rule's common case
  // inline on the frame's tags and words (what rml_window.hpp's rule gives on those tags),
  // anything else through Runner::sweep_cell, the rule itself. A cell's checks after it.
  std::string window_sweep(const std::vector<size_t> &offset) const {
    const stream::Retiming &rt = *retiming;
    std::ostringstream s;
    // The frames the inline cases touch: each cell's own (its lag L), the cycle before for a
    // fby (L + 1) and the next for a post (L - 1); only those are named (a post on a sampled
    // clock lags by the horizon, so the lags in between are often none).
    std::set<int> own, used;
    for (size_t k = 0; k < plan.steps.size(); ++k) {
      const int L = rt.lag[k];
      own.insert(L), used.insert(L);
      if (plan.steps[k].kind == stream::StepKind::Fby) used.insert(L + 1);
      if (plan.steps[k].kind == stream::StepKind::Post && L >= 1) used.insert(L - 1);
    }
    s << "// The fast sweep of pushed cycle t (src/stream/retime.hpp): each cell at its lag, in the\n"
      << "// retiming's order; the rule's common case inline, the rest by the runtime's rule.\n"
      << "Status rml_sweep(Runner &R, size_t t) {\n  const size_t front = R.front();\n"
      << "  // Frame L holds cycle t - L (if it is still held).\n";
    for (int L : used) {
      std::string l = std::to_string(L), has = L == 0 ? "true" : "t >= " + l + " && t - " + l + " >= front";
      std::string n = L == 0 ? "t" : "t - " + l;
      s << "  const bool h" << l << " = " << has << ";\n"
        << "  [[maybe_unused]] uint8_t *T" << l << " = h" << l << " ? R.sweep_tags(" << n << ") : nullptr;\n"
        << "  [[maybe_unused]] double *F" << l << " = h" << l << " ? R.sweep_reals(" << n << ") : nullptr;\n"
        << "  [[maybe_unused]] int64_t *I" << l << " = h" << l << " ? R.sweep_ints(" << n << ") : nullptr;\n"
        << "  [[maybe_unused]] uint32_t *U" << l << " = h" << l << " ? &R.sweep_unknown(" << n << ") : nullptr;\n";
      if (own.count(L)) s << "  [[maybe_unused]] uint32_t d" << l << " = 0;\n";
    }
    s << "  (void)front;\n";
    // The cells found are counted in locals (d0, d1, ...), given to the frames' counts of
    // unknown cells before the runtime runs anything and at the end: a decrement through *U
    // on every cell was a load and a store of the same word the length of the sweep (a
    // tag's byte store may alias it).
    std::string flush;
    for (int L : own) flush += "if (d" + std::to_string(L) + ") { *U" + std::to_string(L) + " -= d" + std::to_string(L) + "; d" + std::to_string(L) + " = 0; } ";
    if (!flush.empty()) flush.pop_back();
    auto shared = [&](int c) { return !plan.slots[static_cast<size_t>(c)].clock && !plan.slots[static_cast<size_t>(c)].shape.empty(); };
    auto is_real = [&](int c) { return !plan.slots[static_cast<size_t>(c)].clock && plan.slots[static_cast<size_t>(c)].elem == Scalar::Real; };
    // A scalar cell computed in this push is also kept in a local, which the cells after it
    // in the push read instead of its frame's word: a chain of cells through the frame paid
    // a store and a reload (a store-to-load forward, about five cycles) on every link.
    std::vector<int> lag_of(plan.slots.size(), -1);
    for (size_t k = 0; k < plan.steps.size(); ++k)
      if (!shared(plan.steps[k].out)) lag_of[static_cast<size_t>(plan.steps[k].out)] = rt.lag[k];
    for (size_t c = 0; c < plan.slots.size(); ++c)
      if (lag_of[c] >= 0) s << "  [[maybe_unused]] " << (is_real(static_cast<int>(c)) ? "double" : "int64_t") << " v" << c << " = 0;\n";
    // So is every cell's tag, once the push has computed it (`done`): the tests of the
    // cells after it read the local, not the frame's byte just stored.
    std::vector<int> tag_lag(plan.slots.size(), -1);
    std::vector<bool> done(plan.slots.size(), false);
    for (size_t k = 0; k < plan.steps.size(); ++k) tag_lag[static_cast<size_t>(plan.steps[k].out)] = rt.lag[k];
    for (size_t c = 0; c < plan.slots.size(); ++c)
      if (tag_lag[c] >= 0) s << "  [[maybe_unused]] uint8_t g" << c << " = Bot;\n";
    for (int k : rt.order) {
      const stream::Step &st = plan.steps[static_cast<size_t>(k)];
      const int L = rt.lag[static_cast<size_t>(k)];
      const std::string l = std::to_string(L), n = L == 0 ? "t" : "t - " + l;
      auto frame_tag = [&](int c, int lag) { return "T" + std::to_string(lag) + "[" + std::to_string(c) + "]"; };
      auto T = [&](int c, int lag) {  // a cell's tag: its local where this push computed it
        return done[static_cast<size_t>(c)] && tag_lag[static_cast<size_t>(c)] == lag ? "g" + std::to_string(c) : frame_tag(c, lag);
      };
      auto M = [&](int c, int lag) {  // a scalar's word in the frame
        return std::string(is_real(c) ? "F" : "I") + std::to_string(lag) + "[" + std::to_string(offset[static_cast<size_t>(c)]) + "]";
      };
      auto W = [&](int c, int lag) {  // a scalar's value: its local where this push computed it
        return lag_of[static_cast<size_t>(c)] == lag ? "v" + std::to_string(c) : M(c, lag);
      };
      const int out = st.out;
      std::string generic = flush + "\n      if (Status st = R.sweep_cell(" + std::to_string(k) + ", " + n + "); st != Status::Ok || !R.fast()) return st;";
      if (!shared(out)) generic += "\n      v" + std::to_string(out) + " = " + M(out, L) + ";";
      generic += "\n      g" + std::to_string(out) + " = " + frame_tag(out, L) + ";";
      // The checks inline (Runner::checks): the reader re-run unless the cell is as expected.
      std::string checks;
      for (auto &ch : rt.checks[static_cast<size_t>(k)]) {
        std::string c = T(st.out, L), r = T(plan.steps[static_cast<size_t>(ch.reader)].out, L);
        std::string expected = ch.expect == stream::Retiming::Expect::SameClock
                                   ? "((" + c + " == Val || " + c + " == Nil) && (" + r + " == Val || " + r + " == Nil)) || (" + c + " == Abs && " + r + " == Abs)"
                               : ch.expect == stream::Retiming::Expect::Present ? c + " == Val || " + c + " == Nil"
                                                                                : c + " == Abs";
        checks += "\n      if (!(" + r + " == Err || " + expected + ")) { " + flush + "R.sweep_recheck(" + std::to_string(ch.reader) + ", " + n + "); }";
      }
      const std::string g = "g" + std::to_string(out);
      auto set_val = [&](const std::string &value) {
        return frame_tag(out, L) + " = " + g + " = Val, " + M(out, L) + " = v" + std::to_string(out) + " = " + value + ", ++d" + l + ";" + checks;
      };
      auto set_tag = [&](const std::string &tag) { return frame_tag(out, L) + " = " + g + " = " + tag + ", ++d" + l + ";" + checks; };
      std::vector<std::pair<std::string, std::string>> cases;  // (condition, body), else the rule
      bool scalars = !shared(out);
      for (int c : st.in) scalars = scalars && !shared(c);
      const std::string fresh = T(out, L) + " == Bot";
      if (scalars) switch (st.kind) {
        case stream::StepKind::ClockBase: cases.push_back({fresh, set_val("1")}); break;  // some input is present
        case stream::StepKind::ClockNever: cases.push_back({fresh + " && " + T(st.in[0], L) + " == Val", set_val("0")}); break;
        case stream::StepKind::ClockOn: {
          int kc = st.in[0], x = st.in[1];
          if (plan.slots[static_cast<size_t>(x)].clock || plan.slots[static_cast<size_t>(x)].elem != Scalar::Bool) break;
          cases.push_back({fresh + " && " + T(kc, L) + " == Val && !" + W(kc, L), set_val("0")});
          cases.push_back({fresh + " && " + T(kc, L) + " == Val && " + T(x, L) + " == Val",
                           set_val("(" + W(x, L) + " != 0) == " + (st.positive ? "true" : "false"))});
          break;
        }
        case stream::StepKind::Const: {
          const core::Literal &lit = st.eq->lit;
          std::string v = lit.type == Scalar::Real ? real_literal(lit.r) : lit.type == Scalar::Bool ? (lit.b ? "1" : "0") : literal(lit);
          cases.push_back({fresh + " && " + T(st.clock, L) + " == Val && " + W(st.clock, L), set_val(v)});
          cases.push_back({fresh + " && " + T(st.clock, L) + " == Val", set_tag("Abs")});
          break;
        }
        case stream::StepKind::Copy:
          cases.push_back({fresh + " && " + T(st.in[0], L) + " == Val", set_val(W(st.in[0], L))});
          cases.push_back({fresh + " && " + T(st.in[0], L) + " == Abs", set_tag("Abs")});
          break;
        case stream::StepKind::Apply: {
          if (fun_of.count(st.eq) || st.in.empty() || st.scalar == stream::ScalarOp::None) break;
          std::string all_val, all_abs;
          for (size_t j = 0; j < st.in.size(); ++j) {
            all_val += " && " + T(st.in[j], L) + " == Val";
            all_abs += " && " + T(st.in[j], L) + " == Abs";
          }
          std::vector<std::string> operands;
          for (int c : st.in) operands.push_back(W(c, L));
          std::string v = window_apply_expression(plan, st, operands);
          cases.push_back({fresh + all_val, set_val(v)});
          cases.push_back({fresh + all_abs, set_tag("Abs")});
          break;
        }
        case stream::StepKind::When: {
          int x = st.in[0], c = st.in[1];
          std::string on = "(" + W(c, L) + " != 0) == " + (st.positive ? "true" : "false");
          cases.push_back({fresh + " && " + T(c, L) + " == Val && " + on + " && " + T(x, L) + " == Val", set_val(W(x, L))});
          cases.push_back({fresh + " && " + T(c, L) + " == Val && !(" + on + ") && (" + T(x, L) + " == Val || " + T(x, L) + " == Nil || " +
                               T(x, L) + " == Bot)",
                           set_tag("Abs")});
          break;
        }
        case stream::StepKind::Merge: {
          int c = st.in[0], a = st.in[1], b = st.in[2];
          auto absentish = [&](int x) { return "(" + T(x, L) + " == Abs || " + T(x, L) + " == Bot)"; };
          cases.push_back({fresh + " && " + T(c, L) + " == Val && " + W(c, L) + " && " + T(a, L) + " == Val && " + absentish(b), set_val(W(a, L))});
          cases.push_back({fresh + " && " + T(c, L) + " == Val && !" + W(c, L) + " && " + T(b, L) + " == Val && " + absentish(a), set_val(W(b, L))});
          break;
        }
        case stream::StepKind::Fby: {
          // The previous tick of its first operand is the cycle before, still held: the
          // second operand's value there (a frame that left: its memory, by the rule).
          int i = st.in[0], e = st.in[1], P = L + 1;
          cases.push_back({fresh + " && h" + std::to_string(P) + " && " + T(i, L) + " == Val && (" + T(e, L) + " == Val || " + T(e, L) +
                               " == Nil || " + T(e, L) + " == Bot) && " + T(i, P) + " == Val && " + T(e, P) + " == Val",
                           set_val(W(e, P))});
          break;
        }
        case stream::StepKind::Post: {
          if (L < 1) break;
          int kc = st.clock, x = st.in[0], N = L - 1;  // the next cycle's frame
          cases.push_back({fresh + " && " + T(kc, L) + " == Val && " + W(kc, L) + " && (" + T(x, L) + " == Val || " + T(x, L) + " == Nil) && " +
                               T(kc, N) + " == Val && " + W(kc, N) + " && " + T(x, N) + " == Val",
                           set_val(W(x, N))});
          break;
        }
        case stream::StepKind::Pre:
        case stream::StepKind::Arrow: break;
      }
      s << "  // " << (st.eq ? name(st.eq->lhs) : plan.slots[static_cast<size_t>(out)].name) << " (step " << k << ", lag " << L << ")\n  ";
      if (L > 0) s << "if (t >= " << L << ") ";
      s << "{\n";
      for (size_t q = 0; q < cases.size(); ++q) s << "    " << (q ? "} else if (" : "if (") << cases[q].first << ") {\n      " << cases[q].second << "\n";
      s << (cases.empty() ? "    " : "    } else {\n      ") << generic << (cases.empty() ? "\n" : "\n    }\n") << "  }\n";
      done[static_cast<size_t>(out)] = true;
    }
    s << "  " << flush << "\n  return Status::Ok;\n}\n\n";
    return s.str();
  }

  std::string window_source(const std::string &cls, const std::string &ns, int64_t horizon) {
    std::ostringstream s;
    const size_t S = plan.slots.size(), N = plan.steps.size();
    s << "// Generated by rml compile (node " << prog.main << "): the node as the tables of rml_window.hpp. Do not edit.\n"
      << "#include \"" << cls << ".hpp\"\n\n#include <algorithm>\n#include <bit>\n#include <cstring>\n#include <limits>\n#include <vector>\n\n"
      << "#include \"ops/scalar_ops.hpp\"\n" << (functions.empty() ? "" : "#include \"ops/lanes.hpp\"\n")
      << "\nnamespace " << ns << " {\n\nnamespace {\n\nusing namespace rml::window;\n\n";
    if (!functions.empty()) {
      s << "// The node's applications on tensors and of funs, each the lowered term (array IR) as\n"
        << "// loops, in the reference evaluator's order (src/codegen/emit_term.hpp), and its entry\n"
        << "// for the runtime (K::Fun: the operands' and the result's words).\n\n";
      for (auto &f : functions) s << f << "\n";
      for (auto &[fname, sig] : signatures) {
        s << "void " << fname << "_entry(void *, [[maybe_unused]] const void *const *a, void *out) {\n";
        auto call = [&s, &types = sig](const std::string &f, int io) {  // (clang before 16 cannot capture a structured binding)
          s << f << "(";
          for (size_t k = 0; k + 1 < types.size(); ++k)
            if (static_cast<int>(k) != io) s << "static_cast<const " << ir_elem_type(types[k]) << " *>(a[" << k << "]), ";
          s << "static_cast<" << ir_elem_type(types.back()) << " *>(out));\n";
        };
        if (auto it = in_place.find(fname); it != in_place.end())
          for (int j : it->second) {  // the runtime reuses operand j's block for the result
            s << "  if (a[" << j << "] == out) return ";
            call(fname + "_io" + std::to_string(j), j);
          }
        s << "  ";
        call(fname, -1);
        s << "}\n";
      }
      s << "\n";
      for (size_t k = 0; k < N; ++k) {
        const stream::Step &st = plan.steps[k];
        if (!st.eq || !fun_of.count(st.eq) || st.in.empty()) continue;
        s << "const int kArgs" << k << "[] = {";
        for (size_t j = 0; j < st.in.size(); ++j) s << (j ? ", " : "") << st.in[j];
        s << "};\n";
      }
    }
    // The tables (stream/window_tables.hpp: the ones the stream backend runs in process),
    // printed; the steps' comments and literals from the plan's equations.
    const stream::WindowTables &t = *tables;
    auto list = [&](const auto &v, auto item) {
      std::string out;
      for (size_t j = 0; j < v.size(); ++j) out += (j ? ", " : "") + item(v[j]);
      return out;
    };
    auto num = [](auto x) { return std::to_string(x); };
    auto e_code = [](window::E e) { return std::string(e == window::E::Real ? "E::Real" : e == window::E::Int ? "E::Int" : "E::Bool"); };
    s << "// Slots: clock terms, then variables.\nconst E kElem[] = {" << list(t.elem, e_code);
    s << "};\nconst uint8_t kIsClock[] = {" << list(t.is_clock, num);
    // A frame's layout: a tensor's cell is a block handle (an int word), a scalar's its value.
    std::vector<size_t> offset(t.offset.begin(), t.offset.end());
    s << "};\nconst int kNumel[] = {" << list(t.numel, num);
    s << "};\nconst uint8_t kShared[] = {" << list(t.shared, num);
    s << "};\nconst int kOffset[] = {" << list(t.offset, num);
    s << "};\n// Steps: one per clock term and equation (kind, out, in[3], nin, clock, positive, ticks, op, arg, res, constant, fn, fargs, and where set add and the operands fn may write over).\n"
      << "const Step kSteps[] = {\n";
    static const char *kKind[] = {"K::ClockBase", "K::ClockOn", "K::ClockNever", "K::Const", "K::Copy", "K::Unary", "K::Binary", "K::If",
                                  "K::When", "K::Merge", "K::Fby", "K::Pre", "K::Arrow", "K::Post", "K::Fun"};
    for (size_t k = 0; k < N; ++k) {
      const stream::Step &st = plan.steps[k];
      const window::Step &w = t.steps[k];
      std::string op = "0", constant = "Word{0}", fn = "nullptr", fargs = "nullptr";
      if (w.k == window::K::Const) {
        const core::Literal &l = st.eq->lit;
        constant = l.type == Scalar::Real ? "Word{.r = " + real_literal(l.r) + "}"
                                           : "Word{.i = " + (l.type == Scalar::Bool ? std::string(l.b ? "1" : "0") : literal(l)) + "}";
      } else if (w.k == window::K::Fun) {
        fn = fun_of.at(st.eq) + "_entry";
        if (!st.in.empty()) fargs = "kArgs" + std::to_string(k);
      } else if (w.k == window::K::Unary) {
        op = std::to_string(static_cast<int>(st.eq->un)) + " /* " + unop_enumerator(st.eq->un) + " */";
      } else if (w.k == window::K::Binary) {
        op = std::to_string(static_cast<int>(st.eq->bin)) + " /* " + binop_enumerator(st.eq->bin) + " */";
      }
      const bool add = w.add && !(fused && fused->count(st.eq->lhs));
      uint32_t mask = 0;
      if (w.k == window::K::Fun)
        if (auto it = in_place.find(fun_of.at(st.eq)); it != in_place.end())
          for (int j : it->second) mask |= 1u << j;
      s << "    {" << kKind[static_cast<int>(w.k)] << ", " << w.out << ", {" << w.in[0] << ", " << w.in[1] << ", " << w.in[2] << "}, " << w.nin << ", "
        << w.clock << ", " << (w.positive ? "true" : "false") << ", " << w.ticks << ", " << op << ", " << e_code(w.arg) << ", "
        << e_code(w.res) << ", " << constant << ", " << fn << ", " << fargs << (add || mask ? add ? ", true" : ", false" : "")
        << (mask ? ", " + std::to_string(mask) + "u" : "") << "},"
        << "  // " << (st.eq ? name(st.eq->lhs) : plan.slots[static_cast<size_t>(st.out)].name) << "\n";
    }
    s << "};\nconst int kReaderBegin[] = {" << list(t.reader_begin, num);
    auto travel = [](window::Travel r) { return std::string(r == window::Travel::Instant ? "Instant" : r == window::Travel::Forward ? "Forward" : "Backward"); };
    s << "};\nconst Reader kReaders[] = {"
      << (t.readers.empty() ? "{0, Travel::Instant, -1}"
                            : list(t.readers, [&](const window::Reader &r) { return "{" + num(r.step) + ", Travel::" + travel(r.travel) + ", " + num(r.ticks) + "}"; }));
    s << "};\nconst int kOrder[] = {" << list(t.order, num);
    s << "};\nconst int kComp[] = {" << list(t.comp, num);
    s << "};\nconst int kInputs[] = {" << (t.inputs.empty() ? "-1" : list(t.inputs, num));
    s << "};\nconst int kInputClocks[] = {" << (t.input_clocks.empty() ? "-1" : list(t.input_clocks, num));
    s << "};\n";
    if (retiming) {
      const stream::Retiming &rt = *retiming;
      s << "// Retimed (src/stream/retime.hpp): per step the lag of its cell after the pushed cycle, the\n"
        << "// order of a push, and per step the readers computed before it, re-run unless its cell is as\n"
        << "// expected (the same presence, present, absent).\nconst int kLag[] = {" << list(rt.lag, num);
      s << "};\nconst int kFastOrder[] = {" << list(rt.order, num);
      s << "};\nconst int kCheckBegin[] = {" << list(t.check_begin, num);
      auto expect = [](window::Expect e) { return std::string(e == window::Expect::SameClock ? "SameClock" : e == window::Expect::Present ? "Present" : "Absent"); };
      s << "};\nconst Check kChecks[] = {"
        << (t.checks.empty() ? "{0, Expect::SameClock}" : list(t.checks, [&](const window::Check &c) { return "{" + num(c.reader) + ", Expect::" + expect(c.expect) + "}"; }));
      s << "};\n";
      s << window_sweep(offset);
    }
    // What the class reads of a frame: its outputs (pop), whose cells are never overwritten.
    std::vector<int> observed(S, 0);
    for (auto &v : prog.outputs) observed[static_cast<size_t>(plan.slot(v.name))] = 1;
    s << "// Per slot: read by pop() (an output): never written over.\nconst uint8_t kObserved[] = {" << list(observed, num) << "};\n";
    s << "const Node kNode{" << S << ", " << N << ", kElem, kIsClock, kNumel, kShared, kOffset, " << t.real_words << ", " << t.int_words
      << ", kSteps, kReaderBegin, kReaders, kOrder, kComp, " << plan.input_slots.size() << ", kInputs, kInputClocks"
      << (retiming ? ", kLag, kFastOrder, kCheckBegin, kChecks, rml_sweep" : ", nullptr, nullptr, nullptr, nullptr, nullptr") << ", kObserved};\n\n";
    s << "}  // namespace\n\n";
    if (tagless) s << tagless_code.source_functions;
    s << cls << "::" << cls << "() : rml_runner_(kNode, " << horizon << ", " << window_size(horizon) << ") {}\n\n"
      << "void " << cls << "::reset() {\n  rml_runner_.reset();\n  rml_finished_ = false, rml_clocks_ok_ = true;\n"
      << (tagless ? "#ifdef RML_NO_TAGLESS  // the tagged sweep only (tests compare the two)\n  rml_tagless_ = false;\n#else\n  rml_tagless_ = true;\n#endif\n  rml_tl_ = {};\n" : "") << "}\n\n"
      << "rml::Status " << cls << (tagless ? "::rml_push_tagged" : "::push") << "(const Inputs &in) {\n"
      << "  Tag tags[" << std::max<size_t>(1, prog.inputs.size()) << "] = {};\n"
      << "  const void *values[" << std::max<size_t>(1, prog.inputs.size()) << "] = {};\n"
      << "  [[maybe_unused]] int64_t bools[" << std::max<size_t>(1, prog.inputs.size()) << "] = {};  // a bool's word\n";
    for (size_t j = 0; j < prog.inputs.size(); ++j) {
      const core::Var &v = prog.inputs[j];
      std::string x = "in." + name(v.name);
      s << "  tags[" << j << "] = " << x << ".kind == rml::Kind::Absent ? Abs : " << x << ".kind == rml::Kind::Value ? Val : Bot;\n";
      if (is_tensor(v.type)) s << "  values[" << j << "] = " << x << ".value.data();\n";
      else if (v.type.elem == Scalar::Bool) s << "  bools[" << j << "] = " << x << ".value, values[" << j << "] = &bools[" << j << "];\n";
      else s << "  values[" << j << "] = &" << x << ".value;\n";
    }
    s << "  return static_cast<rml::Status>(rml_runner_.push(tags, values));  // the same enumerators\n}\n\n"
      << "bool " << cls << (tagless ? "::rml_pop_tagged" : "::pop") << "([[maybe_unused]] Outputs &out) {\n" << "  if (!(rml_finished_ ? rml_runner_.held() : rml_runner_.ready())) return false;\n";
    for (auto &v : prog.outputs)
      s << "  rml_cell_into(out." << name(v.name) << ", rml_runner_.tag(" << plan.slot(v.name) << "), rml_runner_.value(" << plan.slot(v.name) << "));\n";
    s << "  rml_clocks_ok_ = rml_runner_.leave() && rml_clocks_ok_;\n  return true;\n}\n\n"
      << "rml::Status " << cls << "::finish() {\n  rml_finished_ = true;\n" << (tagless ? "  if (rml_tagless_) rml_to_tags();\n" : "") << "  return static_cast<rml::Status>(rml_runner_.finish());\n}\n\n}  // namespace " << ns << "\n";
    return s.str();
  }

  std::string header(const std::string &cls, const std::string &source, const std::string &ns) {
    std::ostringstream h;
    h << "// Generated by rml compile from " << source << ", node " << prog.main << ". Do not edit.\n"
      << "// One step() is one cycle; the outputs of a cycle are known at that cycle (output delay 0:\n"
      << "// the node is post-free). step() returns Status::InputClock when an input is present where its\n"
      << "// clock is false or absent where it is true (the trace is outside what rml-check assumed), and\n"
      << "// Status::Error for a case the proof excludes; then the state is unchanged.\n"
      << "// Tensors are flat row-major std::arrays (their shapes in comments).\n"
      << "#pragma once\n#include <array>\n#include <cstdint>\n#include <memory>\n\n#include \"rml_cell.hpp\"\n\nnamespace " << ns << " {\n\n"
      << "class " << cls << " {\n public:\n"
      << "  static constexpr int kOutputDelay = 0;  // cycles between an input and the outputs it determines\n"
      << "  struct Inputs {\n";
    for (auto &v : prog.inputs) h << "    rml::Cell<" << var_type(v.type) << "> " << name(v.name) << ";" << shape_comment(v.type) << "\n";
    h << "  };\n  struct Outputs {\n";
    for (auto &v : prog.outputs) h << "    rml::Cell<" << var_type(v.type) << "> " << name(v.name) << ";" << shape_comment(v.type) << "\n";
    h << "  };\n"
      << "  void reset() { rml_state_ = std::make_unique<State>(); }\n"
      << "  rml::Status step(const Inputs &rml_in, Outputs &rml_out);\n\n private:\n"
      << "  // The state and the tensors of a cycle live on the heap, allocated once: a tensor may be\n"
      << "  // too large for the stack. (Inputs and Outputs hold tensors too: allocate large ones.)\n"
      << "  struct State {\n";
    const std::set<std::string> &nil = may_nil();
    h << "    bool ticked[" << clocks.terms.size() << "] = {};  // per clock term: it has ticked before\n";
    for (auto &eq : prog.equations) {
      if (eq.prim != core::Prim::Fby && eq.prim != core::Prim::Pre) continue;
      h << "    " << var_type(eq.type) << " " << name(eq.lhs) << "_last{};  // " << core::prim_name(eq.prim) << ": its operand at the previous tick\n";
      if (nil.count(eq.lhs)) h << "    bool " << name(eq.lhs) << "_last_nil = false;\n";
    }
    h << "  };\n  struct Tensors {\n";
    for (auto &eq : prog.equations)
      if (is_tensor(eq.type)) h << "    " << var_type(eq.type) << " " << name(eq.lhs) << "{};" << shape_comment(eq.type) << "\n";
    h << "  };\n  std::unique_ptr<State> rml_state_ = std::make_unique<State>();\n"
      << "  std::unique_ptr<Tensors> rml_tensors_ = std::make_unique<Tensors>();\n};\n\n}  // namespace " << ns << "\n";
    return h.str();
  }

  std::string arg(const core::Equation &eq, size_t k) const { return name(eq.args.at(k)); }

  // The order of the step (stream/clock_directed.hpp, shared with the in-process machine).
  std::vector<int> clock_directed_order() const {
    std::optional<std::vector<int>> order = stream::clock_directed_order(plan, clocks);
    if (!order) throw CodegenError("codegen.cycle", Span{}, "the clocks and the equations they guard form a cycle: no static order");
    return *order;
  }
  // Computed once (a fixpoint over the whole node: once per application was quadratic).
  const std::set<std::string> &may_nil() const {
    if (!may_nil_) may_nil_ = stream::may_nil(prog);
    return *may_nil_;
  }
  mutable std::optional<std::set<std::string>> may_nil_;

  // The step, clock-directed: a variable is computed where its clock ticks (the clock
  // calculus rml-check proved makes its operands present there), as a plain value, with a
  // nil flag where it may be nil.
  std::string source(const std::string &cls, const std::string &ns) {
    const std::set<std::string> &nil = may_nil();
    auto nil_of = [&](const std::string &v) { return nil.count(v) ? name(v) + "_nil" : std::string("false"); };
    std::ostringstream s, update;
    std::set<int> ticking;  // the clocks of state primitives
    s << "// Generated by rml compile (node " << prog.main << "). Do not edit.\n#include \"" << cls << ".hpp\"\n\n"
      << "#include <algorithm>\n#include <limits>\n#include <vector>\n\n"
      << "#include \"ops/scalar_ops.hpp\"\n" << (functions.empty() ? "" : "#include \"ops/lanes.hpp\"\n")
      << "\nnamespace " << ns << " {\n\n"
      << "using rml::Cell;\nusing rml::Kind;\n\n";
    if (!functions.empty()) {
      s << "namespace {\n\n// The node's applications on tensors and of funs, each the lowered term (array IR) as\n"
        << "// loops, in the reference evaluator's order (src/codegen/emit_term.hpp).\n\n";
      for (auto &f : functions) s << f << "\n";
      s << "}  // namespace\n\n";
    }
    s
      << "rml::Status " << cls << "::step(const Inputs &rml_in, Outputs &rml_out) {\n"
      << "  bool rml_ok = true;  // false: a nil condition (excluded by rml-check's clocks)\n"
      << "  bool rml_ck[" << clocks.terms.size() << "] = {};  // the clock terms, computed once\n";
    for (auto &v : prog.inputs)
      s << "  const " << var_type(v.type) << (is_tensor(v.type) ? " &" : " ") << name(v.name) << " = rml_in." << name(v.name) << ".value;\n";
    for (auto &eq : prog.equations) {
      if (is_tensor(eq.type)) s << "  " << var_type(eq.type) << " &" << name(eq.lhs) << " = rml_tensors_->" << name(eq.lhs) << ";";
      else s << "  " << var_type(eq.type) << " " << name(eq.lhs) << "{};";
      if (nil.count(eq.lhs)) s << " bool " << name(eq.lhs) << "_nil = false;";
      s << "\n";
    }
    for (int step : clock_directed_order()) {
      const stream::Step &st = plan.steps[static_cast<size_t>(step)];
      if (!st.eq) {  // a clock term
        int t = static_cast<int>(std::find(plan.clock_slots.begin(), plan.clock_slots.end(), st.out) - plan.clock_slots.begin());
        const core::ClockTerm &ct = clocks.terms[static_cast<size_t>(t)];
        s << "  // clock " << clocks.str(t) << "\n";
        switch (ct.kind) {
          case core::ClockTerm::Base: {
            std::string any;
            for (auto &v : prog.inputs) any += (any.empty() ? "" : " || ") + ("rml_in." + name(v.name)) + ".kind != Kind::Absent";
            s << "  " << ck(t) << " = " << (any.empty() ? "true" : any) << ";\n";
            break;
          }
          case core::ClockTerm::Never: s << "  " << ck(t) << " = false;\n"; break;
          case core::ClockTerm::On: {
            std::string c = name(ct.cond);
            if (nil.count(ct.cond)) s << "  if (" << ck(ct.parent) << " && " << c << "_nil) rml_ok = false;\n";
            s << "  " << ck(t) << " = " << ck(ct.parent) << " && " << (ct.positive ? "" : "!") << c << ";\n";
            break;
          }
        }
        continue;
      }
      const core::Equation &eq = *st.eq;
      std::string x = name(eq.lhs), ckx = ck(clocks.of(eq.lhs));
      std::string value, nilv = "false";
      auto a = [&](size_t k) { return arg(eq, k); };
      auto any_nil = [&](std::initializer_list<size_t> ks) {
        std::string e;
        for (size_t k : ks)
          if (nil.count(eq.args[k])) e += (e.empty() ? "" : " || ") + nil_of(eq.args[k]);
        return e.empty() ? std::string("false") : e;
      };
      // A state primitive has started when its clock has ticked before (its operands are on
      // that clock): one flag per clock term, not per equation.
      std::string last = "rml_state_->" + x + "_last", started = "rml_state_->ticked[" + std::to_string(clocks.of(eq.lhs)) + "]";
      if (eq.prim == core::Prim::Fby || eq.prim == core::Prim::Pre || eq.prim == core::Prim::Arrow) ticking.insert(clocks.of(eq.lhs));
      switch (eq.prim) {
        case core::Prim::Const: value = literal(eq.lit); break;
        case core::Prim::Copy: value = a(0), nilv = nil_of(eq.args[0]); break;
        case core::Prim::Apply: {
          if (fun_of.count(&eq)) break;  // below: a call of its generated function
          std::vector<std::string> names;
          std::vector<size_t> ks;
          for (size_t k = 0; k < eq.args.size(); ++k) names.push_back(a(k)), ks.push_back(k);
          value = op_expression(eq, var_elem(eq.args.at(0)), eq.type.elem, names);
          std::string e;
          for (size_t k : ks)
            if (nil.count(eq.args[k])) e += (e.empty() ? "" : " || ") + nil_of(eq.args[k]);
          nilv = e.empty() ? "false" : e;
          break;
        }
        case core::Prim::When: value = a(0), nilv = nil_of(eq.args[0]); break;
        case core::Prim::Merge:
          if (nil.count(eq.args[0])) s << "  if (" << ckx << " && " << nil_of(eq.args[0]) << ") rml_ok = false;\n";
          value = a(0) + " ? " + a(1) + " : " + a(2);
          nilv = any_nil({1, 2}) == "false" ? "false" : a(0) + " ? " + nil_of(eq.args[1]) + " : " + nil_of(eq.args[2]);
          break;
        case core::Prim::Fby:  // i at the first tick, then e at the previous tick
          value = started + " ? " + last + " : " + a(0);
          if (nil.count(eq.lhs)) nilv = started + " ? " + last + "_nil : " + nil_of(eq.args[0]);
          update << "  if (" << ckx << ") " << last << " = " << a(1) << (nil.count(eq.lhs) ? ", " + last + "_nil = " + nil_of(eq.args[1]) : "") << ";\n";
          break;
        case core::Prim::Pre:  // nil at the first tick, then x at the previous tick
          value = is_tensor(eq.type) ? started + " ? " + last + " : " + x  // nil: the value is not read
                                     : started + " ? " + last + " : " + var_type(eq.type) + "{}";
          nilv = started + " ? " + last + "_nil : true";
          update << "  if (" << ckx << ") " << last << " = " << a(0) << ", " << last << "_nil = " << nil_of(eq.args[0]) << ";\n";
          break;
        case core::Prim::Arrow:  // a at the first tick, then b
          value = started + " ? " + a(1) + " : " + a(0);
          if (nil.count(eq.lhs)) nilv = started + " ? " + nil_of(eq.args[1]) + " : " + nil_of(eq.args[0]);
          break;
        case core::Prim::Post: break;  // the window class (window_source)
      }
      s << "  // " << x << " (" << core::prim_name(eq.prim) << ", " << (eq.span.valid() ? location(eq.span) : std::string("generated")) << ")\n";
      if (fun_of.count(&eq)) {
        std::string call = call_code(eq, x), nils = any_nil_of(eq);
        if (nil.count(eq.lhs)) s << "  if (" << ckx << ") {\n    " << x << "_nil = " << nils << ";\n    if (!" << x << "_nil) " << call << "\n  }\n";
        else s << "  if (" << ckx << ") " << call << "\n";
        continue;
      }
      s << "  if (" << ckx << ") ";
      if (nil.count(eq.lhs)) s << "{\n    " << x << "_nil = " << nilv << ";\n    " << x << " = " << value << ";\n  }\n";
      else s << x << " = " << value << ";\n";
    }
    s << "  // the inputs on their clocks\n";
    for (auto &v : prog.inputs)
      s << "  if ((rml_in." << name(v.name) << ".kind != Kind::Absent) != " << ck(clocks.of(v.name)) << ") return rml::Status::InputClock;\n";
    s << "  if (!rml_ok) return rml::Status::Error;  // the state is left as it was\n";
    s << "  // the state for the next cycle (every read of this cycle is done)\n" << update.str();
    for (int t : ticking) s << "  rml_state_->ticked[" << t << "] |= " << ck(t) << ";\n";
    for (auto &v : prog.outputs) {
      std::string o = name(v.name), T = var_type(v.type);
      if (is_tensor(v.type)) {  // in place: no tensor-sized temporary
        s << "  rml_out." << o << ".kind = !" << ck(clocks.of(v.name)) << " ? Kind::Absent : "
          << (nil.count(v.name) ? o + "_nil ? Kind::Nil : " : std::string()) << "Kind::Value;\n";
        s << "  if (rml_out." << o << ".kind == Kind::Value) rml_out." << o << ".value = " << o << ";\n";
        continue;
      }
      s << "  rml_out." << o << " = !" << ck(clocks.of(v.name)) << " ? Cell<" << T << ">{} : "
        << (nil.count(v.name) ? o + "_nil ? Cell<" + T + ">::nil() : " : std::string()) << "Cell<" << T << ">::of(" << o << ");\n";
    }
    s << "  return rml::Status::Ok;\n}\n\n}  // namespace " << ns << "\n";
    return s.str();
  }
  std::string any_nil_of(const core::Equation &eq) const {
    const std::set<std::string> &nil = may_nil();
    std::string e;
    for (auto &a : eq.args)
      if (nil.count(a)) e += (e.empty() ? "" : " || ") + name(a) + "_nil";
    return e.empty() ? "false" : e;
  }
  Scalar var_elem(const std::string &v) const { return type_of.at(v)->elem; }  // an equation's type, else the variable's
};

const char *kCellHeader = R"CELL(// Generated by rml compile: the cells of a step class's inputs and outputs. Do not edit.
#ifndef RML_GENERATED_CELL_HPP
#define RML_GENERATED_CELL_HPP
#include <cstdint>

namespace rml {

enum class Kind : uint8_t { Absent, Nil, Value, Unknown, Error };
// A stream's value at one cycle: absent, nil (the first value of a `pre` that no `->`
// guards) or a value; for a node with `post`, also unknown (a cell at the end of a finished
// trace that needs inputs beyond it) or an error value (never, on a trace inside the
// node's clocks and assumptions).
template <class T>
struct Cell {
  Kind kind = Kind::Absent;
  T value{};
  static Cell of(T v) { return Cell{Kind::Value, v}; }
  static Cell nil() { return Cell{Kind::Nil, T{}}; }
  bool operator==(const Cell &o) const { return kind == o.kind && (kind != Kind::Value || value == o.value); }
};

enum class Status : uint8_t {
  Ok,
  InputClock,  // an input present where its clock is false, or absent where it is true
  Error,       // a case rml-check's proof excludes (a nil condition)
  Unknown,     // an input given as unknown
  Window,      // a cell stayed unknown past the window (the inputs break the node's assumptions)
  Inexact,     // an error value reached a cycle already given out
};

}  // namespace rml

#endif
)CELL";

}  // namespace

std::string class_name(const std::string &main) { return ident(main); }

std::unordered_map<std::string, std::string> cpp_names(const core::Program &p) {
  // `a[1]` and a variable `a_1` both become a_1 by ident(): the later one gets a suffix.
  auto printed = core::printed_names(p);
  std::unordered_map<std::string, std::string> out;
  std::unordered_set<std::string> taken;
  auto give = [&](const std::string &var) {
    if (out.count(var)) return;
    auto it = printed.find(var);
    std::string base = ident(it == printed.end() ? var : it->second), n = base;
    for (int k = 2; taken.count(n); ++k) n = base + "_" + std::to_string(k);
    taken.insert(n);
    out.emplace(var, n);
  };
  for (auto *vars : {&p.inputs, &p.outputs, &p.locals})
    for (auto &v : *vars) give(v.name);
  for (auto &eq : p.equations) give(eq.lhs);
  return out;
}

std::vector<GeneratedFile> emit_cpp(const core::Program &prog, const core::Clocks &clocks, const stream::Plan &plan,
                                    const std::string &source, const std::string &ns, int64_t horizon, const CheckedProgram *cp,
                                    EmitInfo *info) {
  // Applications read once by another are computed inside it (fuse_applications.hpp): the
  // class runs the fused program, with its own plan.
  std::optional<FusedProgram> fusion;
  std::optional<stream::Plan> fused_plan;
  if (cp) {  // (without a checked program nothing is lowered: no function, nothing to fuse)
    fusion = fuse_applications(prog);
    if (!fusion->tree_of.empty()) fused_plan = stream::build_plan(fusion->prog, clocks);
  }
  const bool fusing = fused_plan.has_value();
  Emitter e(fusing ? fusion->prog : prog, clocks, fusing ? *fused_plan : plan, cp);
  if (fusing) e.fused = &fusion->tree_of;
  e.check_supported();
  const bool window = e.needs_window();
  std::string cls = class_name(prog.main);
  std::vector<GeneratedFile> out;
  if (window) {
    std::string why;
    e.tables = stream::window_tables(e.plan, [&](const core::Equation &eq) { return e.fun_of.count(&eq) > 0; }, true, &why,
                                     stream::post_lookahead(horizon));
    e.retiming = e.tables->retiming;
    std::string not_tagless;
    if (e.retiming) {
      not_tagless = tagless_refusal(e.plan, *e.retiming, clocks, [&](const core::Equation &eq) { return e.fun_of.count(&eq) > 0; });
      e.tagless = not_tagless.empty();
    }
    if (e.tagless) {
      TaglessClass tc{cls, {}, {}, std::vector<size_t>(e.tables->offset.begin(), e.tables->offset.end())};
      for (auto &v : e.prog.inputs) tc.inputs.push_back(e.name(v.name));
      for (auto &v : e.prog.outputs) tc.outputs.push_back({e.name(v.name), e.plan.slot(v.name)});
      e.tagless_code = tagless_functions(e.plan, *e.retiming, tc);
    }
    if (info) *info = {true, e.retiming.has_value(), e.retiming ? e.retiming->max_lag : 0, why, e.tagless, not_tagless};
    out.push_back({cls + ".hpp", e.window_header(cls, source, ns, horizon)});
    out.push_back({cls + ".cpp", e.window_source(cls, ns, horizon)});
  } else {
    out.push_back({cls + ".hpp", e.header(cls, source, ns)});
    out.push_back({cls + ".cpp", e.source(cls, ns)});
  }
  out.push_back({"rml_cell.hpp", kCellHeader});
  out.push_back({"rml_csv_main.cpp", e.csv_main(cls, ns, window)});
  out.push_back({"rml_abi.cpp", abi_source(cls, ns, window, e.abi_ports(e.prog.inputs), e.abi_ports(e.prog.outputs))});
  for (auto &[path, text] : kRuntimeFiles) {
    std::string p = path;
    if (p.rfind("stream/", 0) == 0) p = p.substr(7);  // rml_window.hpp
    out.push_back({"runtime/" + p, text});
  }
  out.push_back({"CMakeLists.txt",
                 "# Generated by rml compile (node " + prog.main + "): a static library of the step class.\n"
                 "cmake_minimum_required(VERSION 3.20)\nproject(" + cls + "_step CXX)\nset(CMAKE_CXX_STANDARD 20)\nset(CMAKE_CXX_EXTENSIONS OFF)\n"
                 "# The oracle's reals bit for bit: no contraction of a * b + c into one rounding, and the C\n"
                 "# library's transcendentals at run time, not folded by the compiler (src/codegen/README.md).\n"
                 "if(CMAKE_CXX_COMPILER_ID MATCHES \"GNU|Clang\")\n  add_compile_options(" + std::string(kExactFlags) + ")\nendif()\n"
                 "add_library(" + cls + "_step STATIC " + cls + ".cpp runtime/ops/special.cpp)\n"
                 "target_include_directories(" + cls + "_step PUBLIC ${CMAKE_CURRENT_SOURCE_DIR} ${CMAKE_CURRENT_SOURCE_DIR}/runtime)\n"
                 "# The class as a command: run TRACE.csv prints the outputs' chronogram (rml run's CSV).\n"
                 "add_executable(" + cls + "_csv rml_csv_main.cpp)\ntarget_link_libraries(" + cls + "_csv PRIVATE " + cls + "_step)\n"});
  return out;
}

}  // namespace rml::codegen
