#include "syntax/printer.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "syntax/lexer.hpp"

namespace rml {
namespace {

// Precedence levels of grammar.md §5 (1 loosest .. 18 atoms).
enum Level : int {
  kIf = 1, kArrow, kFby, kImplies, kOr, kAnd, kNot, kCompare, kAdd, kMul, kBitOr, kBitAnd, kShift, kCaret, kWhen, kPrefix,
  kPostfix, kAtom
};
int level(const Expr &e) {
  switch (e.kind) {
    case ExprKind::If:
    case ExprKind::Let:
    case ExprKind::Lambda: return kIf;
    case ExprKind::Binary:
      switch (e.op) {
        case Op::Arrow: return kArrow;
        case Op::Fby: return kFby;
        case Op::Implies: return kImplies;
        case Op::Or:
        case Op::Xor: return kOr;
        case Op::And: return kAnd;
        case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: return kCompare;
        case Op::Add: case Op::Sub: return kAdd;
        case Op::Caret: return kCaret;
        case Op::BitOr: return kBitOr;
        case Op::BitAnd: return kBitAnd;
        case Op::Lsh:
        case Op::Rsh: return kShift;
        default: return kMul;
      }
    case ExprKind::Unary: return e.op == Op::Not ? kNot : kPrefix;
    case ExprKind::When: return kWhen;
    case ExprKind::Merge:
    case ExprKind::Reset: return kPrefix;
    case ExprKind::Call:
    case ExprKind::Index:
    case ExprKind::Field:
    case ExprKind::Update: return kPostfix;
    case ExprKind::IntLit: return e.ival < 0 ? kPrefix : kAtom;
    case ExprKind::RealLit: return std::signbit(e.rval) ? kPrefix : kAtom;
    default: return kAtom;
  }
}

std::string real_text(double v) {
  if (std::isnan(v)) return "(0.0 / 0.0)";
  if (std::isinf(v)) return v > 0 ? "(1.0 / 0.0)" : "(-1.0 / 0.0)";
  char buf[64];
  for (int prec = 15; prec <= 17; ++prec) {  // shortest of these that reads back exactly
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

using KeepSet = std::unordered_set<const Expr *>;

struct Printer {
  std::string out;
  const KeepSet *keep = nullptr;  // rml fmt: expressions the source parenthesised

  bool kept(const Expr &e) const { return keep && keep->count(&e) > 0; }
  void sub(const Expr &e, int min_level) {
    if (level(e) < min_level && !kept(e)) {
      out += '(';
      expr(e);
      out += ')';
    } else {
      expr(e);
    }
  }
  // An operand of a binary operator. A sampled operand keeps its parentheses although
  // `when` binds tighter: `x + (x when c)`, `0 fby (x when c)` read as written, where
  // `x + x when c` reads like `(x + x) when c` to a person.
  void operand(const Expr &e, int min_level) {
    if (e.kind == ExprKind::When && !kept(e)) {
      out += '(';
      expr(e);
      out += ')';
    } else {
      sub(e, min_level);
    }
  }
  // A merge branch must not read as something else: one starting with '[' would index
  // the previous operand, one starting with '{' would make it a record's type name, and a first branch starting with '(true ->' or '(true =>' would
  // read as a Lustre clause `merge c (true -> a) (false -> b)` (Vélus: `=>`).
  void merge_operand(const Expr &e, bool first_branch) {
    Printer p;
    p.keep = keep;
    p.sub(e, kPostfix);
    std::string text = p.out;
    bool wrap = !text.empty() && (text[0] == '[' || text[0] == '{');  // `merge c { x = e } ..` reads `c {` as a record
    // A first operand `(x -> e)` (x a name, `true` or `false`) would read as a merge clause.
    if (first_branch && text.size() > 1 && text[0] == '(') {
      size_t k = text.find_first_not_of(' ', 1), j = k;
      while (j < text.size() && (std::isalnum(static_cast<unsigned char>(text[j])) || text[j] == '_')) ++j;
      j = j > k ? text.find_first_not_of(' ', j) : std::string::npos;
      if (j != std::string::npos && (text.compare(j, 2, "->") == 0 || text.compare(j, 2, "=>") == 0)) wrap = true;
    }
    out += wrap ? "(" + text + ")" : text;
  }

  // The record of `r.x` or `r[x := v]`: a number there would read as a real (`1.x`).
  void record_operand(const Expr &e) {
    bool number = (e.kind == ExprKind::IntLit || e.kind == ExprKind::RealLit) && !kept(e);
    if (number) out += '(';
    sub(e, kPostfix);
    if (number) out += ')';
  }
  void list(const std::vector<ExprPtr> &a, size_t from = 0) {
    for (size_t i = from; i < a.size(); ++i) {
      if (i > from) out += ", ";
      expr(*a[i]);
    }
  }
  void expr(const Expr &e) {
    if (kept(e)) {
      out += '(';
      bare(e);
      out += ')';
    } else {
      bare(e);
    }
  }
  void bare(const Expr &e) {
    switch (e.kind) {
      case ExprKind::IntLit: out += std::to_string(e.ival); break;
      case ExprKind::RealLit: out += real_text(e.rval); break;
      case ExprKind::BoolLit: out += e.bval ? "true" : "false"; break;
      case ExprKind::Var: out += e.name; break;
      case ExprKind::Unary: {
        out += op_spelling(e.op);
        if (e.op != Op::Neg && e.op != Op::BitNot) out += ' ';
        size_t mark = out.size();
        sub(*e.args[0], e.op == Op::Not ? kNot : kPrefix);
        if (e.op == Op::Neg && mark < out.size() && out[mark] == '-') out.insert(mark, " ");  // never "--"
        break;
      }
      case ExprKind::Binary: {
        int l = level(e);
        int lmin = l, rmin = l + 1;
        if (e.op == Op::Arrow || e.op == Op::Fby || e.op == Op::Implies) lmin = l + 1, rmin = l;  // right associative
        if (l == kCompare) lmin = rmin = kAdd;                                                  // non-associative
        if (l == kShift) lmin = rmin = kCaret;
        operand(*e.args[0], lmin);
        out += ' ';
        out += op_spelling(e.op);
        out += ' ';
        operand(*e.args[1], rmin);
        break;
      }
      case ExprKind::When:
        sub(*e.args[0], kWhen);
        out += e.positive ? " when " : " when not ";
        sub(*e.args[1], kPrefix);
        break;
      case ExprKind::Merge:
        out += "merge ";
        sub(*e.args[0], kPostfix);
        if (!e.binders.empty()) {  // over an enumeration: `merge k (A -> a) (B -> b)`
          for (size_t k = 0; k < e.binders.size(); ++k) {
            bool fat = k < e.fat_arrows.size() && e.fat_arrows[k];
            out += " (" + e.binders[k] + (fat ? " => " : " -> ");
            expr(*e.args[k + 1]);
            out += ')';
          }
          break;
        }
        for (int k = 1; k <= 2; ++k) {
          out += ' ';
          merge_operand(*e.args[k], k == 1);
        }
        break;
      case ExprKind::If:
        out += "if ";
        expr(*e.args[0]);
        out += " then ";
        expr(*e.args[1]);
        out += " else ";
        expr(*e.args[2]);
        break;
      case ExprKind::Let:
        out += "let " + e.name + " = ";
        expr(*e.args[0]);
        out += " in ";
        expr(*e.args[1]);
        break;
      case ExprKind::Call:
        if (e.args.size() == 1 && MachineInt::of_cast(e.name)) {  // `(uint8 e)`: its operand reaches right
          out += "(" + e.name + " ";
          expr(*e.args[0]);
          out += ")";
          break;
        }
        out += e.name;
        if (!e.type_args.empty()) {  // Kind 2's `N@<int>(x)`, `any@<T>` (no arguments)
          out += "@<";
          for (size_t i = 0; i < e.type_args.size(); ++i) out += (i ? ", " : "") + print_type(*e.type_args[i]);
          out += '>';
          if (e.name == "any" && e.args.empty()) break;
        }
        if (e.statics > 0) {
          out += "<<";
          for (size_t i = 0; i < e.statics; ++i) {  // read back at the additive level
            if (i) out += ", ";
            sub(*e.args[i], kAdd);
          }
          out += ">>";
        }
        if (!e.binders.empty()) {  // Heptagon's iterator: `map<<n>> f (a)`, `fold<<n>> (+) (a, 0)`
          const std::string &f = e.binders[0];
          bool op = !f.empty() && !std::isalpha(static_cast<unsigned char>(f[0])) && f[0] != '_';
          op |= f == "and" || f == "or" || f == "xor" || f == "mod";
          // `(*` opens a comment: the product is written `( * )`.
          out += !op ? " " + f + " " : f == "*" ? " ( * ) " : " (" + f + ") ";
        }
        out += '(';
        list(e.args, e.statics);
        out += ')';
        break;
      case ExprKind::Index:
        sub(*e.args[0], kPostfix);
        out += '[';
        list(e.args, 1);
        out += ']';
        break;
      case ExprKind::Field:
        record_operand(*e.args[0]);
        out += "." + e.name;
        break;
      case ExprKind::Update:
        record_operand(*e.args[0]);
        out += "[" + e.binders[0] + " := ";
        expr(*e.args[1]);
        out += ']';
        break;
      case ExprKind::Record:
        out += e.name.empty() ? "{" : e.name + " {";  // "": Heptagon's record value without its type
        for (size_t k = 0; k < e.args.size(); ++k) {
          out += (k ? "; " : " ") + e.binders[k] + " = ";
          expr(*e.args[k]);
        }
        out += e.args.empty() ? "}" : " }";
        break;
      case ExprKind::Tuple:
        out += '(';
        list(e.args);
        out += ')';
        break;
      case ExprKind::Array:
        out += '[';
        list(e.args);
        out += ']';
        break;
      case ExprKind::Reset:
        if (e.name == "restart") {  // Lustre V6's spelling, kept as written
          const Expr &call = *e.args[0];
          out += "(restart " + call.name + " every ";
          expr(*e.args[1]);
          out += ")(";
          list(call.args);
          out += ')';
          break;
        }
        expr(*e.args[0]);
        out += " every ";
        sub(*e.args[1], kPostfix);
        break;
      case ExprKind::Lambda:
        out += '\\';
        if (e.binders.size() == 1) {
          out += e.binders[0];
        } else {
          out += '(';
          for (size_t i = 0; i < e.binders.size(); ++i) out += (i ? ", " : "") + e.binders[i];
          out += ')';
        }
        out += " => ";
        expr(*e.args[0]);
        break;
    }
  }
};

void print_decl(std::string &out, const VarDecl &v) {
  if (v.is_const) out += "const ";
  out += v.name;
  if (v.type) out += ": " + print_type(*v.type);
  for (auto &c : v.clock)
    out += std::string(c.positive ? " when " : " when not ") + (c.ctor.empty() ? c.var : c.ctor + "(" + c.var + ")");
}

void print_decls(std::string &out, const std::vector<VarDecl> &vs) {
  for (size_t i = 0; i < vs.size(); ++i) {
    if (i > 0) out += vs[i - 1].type ? ", " : "; ";  // ';' keeps an untyped name untyped
    print_decl(out, vs[i]);
  }
}

}  // namespace

std::string print_expr(const Expr &e) {
  Printer p;
  p.expr(e);
  return p.out;
}

std::string print_type(const TypeSyntax &t) {
  switch (t.kind) {
    case TypeSyntax::TyVar: return t.name.empty() ? t.tyvar : t.name;  // a type parameter `T` as written
    case TypeSyntax::Shape: return "shape";
    case TypeSyntax::Named: {  // with type arguments: Kind 2's instance of a datatype
      if (t.elem.empty()) return t.name;
      std::string s = t.name + "<";
      for (size_t i = 0; i < t.elem.size(); ++i) s += (i ? ", " : "") + print_type(t.elem[i]);
      return s + ">";
    }
    case TypeSyntax::Array: {  // the size is read as a prefix expression (grammar.md §3)
      const Expr &n = *t.dims[0].expr;
      bool wrap = level(n) < kPrefix || (n.kind == ExprKind::Binary && n.op == Op::Caret);
      return print_type(t.elem[0]) + "^" + (wrap ? "(" + print_expr(n) + ")" : print_expr(n));
    }
    case TypeSyntax::Group: {
      std::string s = "[";
      for (size_t i = 0; i < t.elem.size(); ++i) s += (i ? ", " : "") + print_type(t.elem[i]);
      return s + "]";
    }
    case TypeSyntax::Tensor: break;
  }
  if (t.subrange) {
    auto bound = [](const ExprPtr &b) { return b ? print_expr(*b) : std::string("*"); };
    return "subrange [" + bound(t.range_lo) + ", " + bound(t.range_hi) + "] of int";
  }
  std::string s = t.machine ? t.machine->name() : std::string(scalar_name(t.scalar));
  if (!t.dims.empty()) {
    s += '[';
    for (size_t i = 0; i < t.dims.size(); ++i) {
      if (i) s += ", ";
      s += t.dims[i].splice_var ? "*" + t.dims[i].var : print_expr(*t.dims[i].expr);
    }
    s += ']';
  }
  return s;
}

namespace {

// The lines print_program and format_source share (no indentation, no newline).
// An imported node with statements: the expansion of its contract (syntax/contracts.hpp).
bool imported_with_statements(const NodeDecl &n) {
  return n.imported && (!n.equations.empty() || !n.assumptions.empty() || !n.locals.empty());
}
std::string node_header(const NodeDecl &n) {
  // A header alone reads as imported; one followed by statements needs the word.
  std::string out = n.modifier.empty() ? "" : n.modifier + " ";
  out += !n.import_keyword.empty() ? n.import_keyword + " " : imported_with_statements(n) ? "imported " : "";
  out += n.fun_keyword ? "fun " : n.is_function ? "function " : "node ";
  out += n.name;
  if (!n.type_params.empty()) {  // Kind 2's `node N<T, U>`; in the types each is the variable 'T
    out += "<";
    for (size_t i = 0; i < n.type_params.size(); ++i) out += (i ? ", " : "") + n.type_params[i];
    out += ">";
  }
  if (!n.statics.empty()) {
    out += "<<";
    print_decls(out, n.statics);
    out += ">>";
  }
  out += "(";
  print_decls(out, n.inputs);
  out += n.lustre_style ? ") returns (" : ") -> (";
  print_decls(out, n.outputs);
  out += n.lustre_style || n.imported ? ");" : ")";  // an imported node's header ends its declaration
  return out;
}
std::string local_line(const VarDecl &v) {
  std::string out;
  print_decl(out, v);
  return out + ";";
}
std::string expr_text(const Expr &e, const KeepSet *keep) {
  Printer p;
  p.keep = keep;
  p.expr(e);
  return p.out;
}
std::string equation_line(const Equation &eq, const KeepSet *keep = nullptr) {
  std::string out;
  for (size_t k = 0; k < eq.lhs.size(); ++k) out += (k ? ", " : "") + eq.lhs[k].name;
  for (auto &i : eq.index_vars) out += "[" + i + "]";  // Kind 2's definition by index `A[i] = e`
  return out + " = " + expr_text(*eq.rhs, keep) + ";";
}
std::string every_line(const ResetBlock &b, const KeepSet *keep = nullptr) { return "every " + expr_text(*b.cond, keep) + ";"; }
std::string assumption_line(const Assumption &a, const KeepSet *keep = nullptr) {
  if (a.property)
    return (a.keyword.empty() ? std::string("check") : a.keyword) + (a.name.empty() ? "" : " \"" + a.name + "\"") + " " +
           expr_text(*a.cond, keep) + ";";
  if (a.keyword == "assert") return "assert " + expr_text(*a.cond, keep) + ";";
  std::string out = std::string("assume ") + (a.name.empty() ? "" : "\"" + a.name + "\" ") + "always " + (a.eventually ? "eventually " : "") + expr_text(*a.cond, keep);
  if (a.within >= 0) out += " within " + std::to_string(a.within);
  return out + ";";
}
// A Lustre header alone declares an imported node, so a node with a `returns` header and
// an empty body prints `let tel`.
bool prints_let(const NodeDecl &n) {
  bool empty = n.equations.empty() && n.assumptions.empty() && n.resets.empty();
  return n.has_let || !n.locals.empty() || (n.lustre_style && !n.imported && n.statics.empty() && empty) ||
         imported_with_statements(n);
}
std::string fun_header(const FunDecl &f) {
  std::string out = "fun " + f.name + "(";
  print_decls(out, f.params);
  return out + ") : " + print_type(f.result) + " =";
}
std::string fun_body(const FunDecl &f, const KeepSet *keep = nullptr) { return expr_text(*f.body, keep) + ";"; }
std::string type_line(const TypeDecl &t) {
  if (t.is_abstract) return "type " + t.name + ";";
  std::string out = "type " + t.name + " = ";
  if (t.is_record) {
    out += "struct {";
    for (size_t k = 0; k < t.fields.size(); ++k)
      out += (k ? "; " : " ") + t.fields[k].name + ": " + print_type(*t.fields[k].type);
    return out + (t.fields.empty() ? "};" : " };");
  }
  if (!t.is_enum) return out + print_type(*t.alias) + ";";
  std::string sep = t.bar_syntax ? " | " : ", ";
  std::string ctors;
  for (size_t k = 0; k < t.ctors.size(); ++k) ctors += (k ? sep : "") + t.ctors[k];
  return out + (t.bar_syntax ? ctors : "enum { " + ctors + " }") + ";";
}
std::string const_line(const ConstDecl &c, const KeepSet *keep = nullptr) {
  std::string out = "const " + c.name;
  if (c.type) out += ": " + print_type(*c.type);
  if (!c.value) return out + ";";  // a free constant
  return out + " = " + expr_text(*c.value, keep) + ";";
}

}  // namespace

std::string print_program(const Program &p) {
  std::string out;
  for (size_t i = 0; i < p.decls.size(); ++i) {
    if (i) out += '\n';
    const Decl &d = p.decls[i];
    if (auto *n = std::get_if<NodeDecl>(&d)) {
      out += node_header(*n) + "\n";
      if (!n->locals.empty()) {
        out += "var\n";
        for (auto &v : n->locals) out += "  " + local_line(v) + "\n";
      }
      if (prints_let(*n)) out += "let\n";
      for (size_t k = 0; k < n->equations.size(); ++k) {
        const Equation &eq = n->equations[k];
        bool opens = eq.block >= 0 && (k == 0 || n->equations[k - 1].block != eq.block);
        bool closes = eq.block >= 0 && (k + 1 == n->equations.size() || n->equations[k + 1].block != eq.block);
        if (opens) out += "  reset\n";
        out += (eq.block >= 0 ? "    " : "  ") + equation_line(eq) + "\n";
        if (closes) out += "  " + every_line(n->resets[static_cast<size_t>(eq.block)]) + "\n";
      }
      for (auto &a : n->assumptions) out += "  " + assumption_line(a) + "\n";
      if (prints_let(*n)) out += "tel\n";
    } else if (auto *f = std::get_if<FunDecl>(&d)) {
      out += fun_header(*f) + "\n  " + fun_body(*f) + "\n";
    } else if (auto *t = std::get_if<TypeDecl>(&d)) {
      out += type_line(*t) + "\n";
    } else {
      out += const_line(std::get<ConstDecl>(d)) + "\n";
    }
  }
  return out;
}

// ---- rml fmt: the canonical print, with the file's comments kept in place ----
namespace {

// One output line of the formatted file: a node header, `var`, a local, `let`, an
// equation or assumption, `tel`, a fun header or body, a const, or the end of the file.
struct Unit {
  uint32_t begin = 0;        // offset of its first token (synthetic: where it would be)
  uint32_t end = 0;          // end of the last token it owns
  std::string text;          // the line, indented, without newline
  int comment_indent = 0;    // indentation of the comments placed above it
  bool synthetic = false;    // a `let`/`tel` the source does not have: owns nothing
  bool decl_start = false;   // first line of a declaration (or the end of the file)
  bool eof = false;
  std::vector<size_t> leading, trailing;  // indices of the comments above / after it
};

bool is_blank_char(char c) { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }

// Does [a, b) hold an empty line (two newlines with only blanks between)?
bool blank_line_in(const std::string &t, uint32_t a, uint32_t b) {
  bool after_nl = false;
  for (uint32_t i = a; i < b && i < t.size(); ++i) {
    if (t[i] == '\n') {
      if (after_nl) return true;
      after_nl = true;
    } else if (!is_blank_char(t[i])) {
      after_nl = false;
    }
  }
  return false;
}

bool newline_in(const std::string &t, uint32_t a, uint32_t b) {
  for (uint32_t i = a; i < b && i < t.size(); ++i)
    if (t[i] == '\n') return true;
  return false;
}

// First token whose begin is >= off (the Eof token at worst).
size_t token_at(const std::vector<Token> &toks, uint32_t off) {
  auto it = std::lower_bound(toks.begin(), toks.end(), off,
                             [](const Token &t, uint32_t o) { return t.span.begin < o; });
  return std::min(static_cast<size_t>(it - toks.begin()), toks.size() - 1);
}

bool opens(Tok k) { return k == Tok::LParen || k == Tok::LBracket; }
bool closes(Tok k) { return k == Tok::RParen || k == Tok::RBracket; }

// The expressions the source wrote in parentheses (beyond a call's own): rml fmt keeps
// them, `(s[0] = smin) and z`, `if (true fby end) then ...`. An expression's extent is the
// tokens from its first to its last, its own parentheses included; spans of operators
// start at their left operand's span, so extents are computed bottom-up.
struct SourceParens {
  const std::vector<Token> &toks;
  std::vector<size_t> match;  // index of the matching parenthesis, or npos
  KeepSet keep;

  explicit SourceParens(const std::vector<Token> &t) : toks(t), match(t.size(), std::string::npos) {
    std::vector<size_t> open;
    for (size_t i = 0; i < toks.size(); ++i) {
      if (toks[i].kind == Tok::LParen) open.push_back(i);
      if (toks[i].kind == Tok::RParen && !open.empty()) {
        match[open.back()] = i;
        match[i] = open.back();
        open.pop_back();
      }
    }
  }
  size_t first(uint32_t begin) const { return token_at(toks, begin); }
  size_t last(uint32_t end) const {
    size_t k = token_at(toks, end);
    return k > 0 ? k - 1 : 0;
  }
  std::pair<size_t, size_t> visit(const Expr &e, bool sole_call_arg = false) {
    std::vector<std::pair<size_t, size_t>> ext;
    for (size_t k = 0; k < e.args.size(); ++k)  // the one argument in f(x) or f<<n>>(x)
      ext.push_back(visit(*e.args[k], e.kind == ExprKind::Call && k >= e.statics && e.args.size() == e.statics + 1));
    if (!e.span.valid()) return {0, 0};
    size_t f, l;
    switch (e.kind) {
      case ExprKind::Binary:
      case ExprKind::When: f = ext.front().first, l = ext.back().second; break;
      case ExprKind::Unary:
      case ExprKind::Lambda: f = first(e.span.begin), l = ext.back().second; break;
      case ExprKind::Index:
      case ExprKind::Field:
      case ExprKind::Update: f = ext.front().first, l = last(e.span.end); break;
      default: f = first(e.span.begin), l = last(e.span.end); break;
    }
    int pairs = sole_call_arg ? -1 : 0;  // f(x): those parentheses are the call's
    while (f > 0 && l + 1 < toks.size() && toks[f - 1].kind == Tok::LParen && match[f - 1] == l + 1) {
      ++pairs;
      --f;
      ++l;
    }
    if (pairs > 0) keep.insert(&e);
    return {f, l};
  }
};

}  // namespace

std::string comment_text(const SourceFile &file, const Comment &c) {
  std::string s = file.text.substr(c.span.begin, c.span.end - c.span.begin);
  if (c.kind == Comment::Line)
    while (!s.empty() && is_blank_char(s.back())) s.pop_back();
  return s;
}

std::string format_source(const Program &p, const SourceFile &file) {
  Diagnostics ignored;  // the caller parsed `file` without errors
  std::vector<Comment> comments;
  const std::vector<Token> toks = lex(file, ignored, &comments);
  const std::string &text = file.text;
  const uint32_t size = static_cast<uint32_t>(text.size());

  SourceParens parens(toks);
  for (const Decl &d : p.decls) {
    if (auto *n = std::get_if<NodeDecl>(&d)) {
      for (auto &eq : n->equations) parens.visit(*eq.rhs);
      for (auto &b : n->resets) parens.visit(*b.cond);
      for (auto &a : n->assumptions) parens.visit(*a.cond);
    } else if (auto *f = std::get_if<FunDecl>(&d)) {
      parens.visit(*f->body);
    } else if (std::holds_alternative<TypeDecl>(d)) {
    } else if (auto &c = std::get<ConstDecl>(d); c.value) {
      parens.visit(*c.value);
    }
  }
  const KeepSet *keep = &parens.keep;

  std::vector<Unit> units;
  auto add = [&](uint32_t begin, std::string line, int indent, bool synthetic = false, bool decl_start = false) {
    Unit u;
    u.begin = begin;
    u.text = std::move(line);
    u.comment_indent = indent;
    u.synthetic = synthetic;
    u.decl_start = decl_start;
    units.push_back(std::move(u));
  };
  // The keyword before a declaration's name (`fun`, `const`).
  auto keyword_before = [&](Span name) {
    size_t k = token_at(toks, name.begin);
    return k > 0 ? toks[k - 1].span.begin : name.begin;
  };
  auto decl_begin = [&](const Decl &d) {
    if (auto *n = std::get_if<NodeDecl>(&d)) return n->keyword_span.begin;
    if (std::holds_alternative<TypeDecl>(d)) {  // in a section `type A = ...; B = ...;` B has no keyword
      size_t k = token_at(toks, decl_span(d).begin);
      return k > 0 && toks[k - 1].kind == Tok::KwType ? toks[k - 1].span.begin : decl_span(d).begin;
    }
    return keyword_before(decl_span(d));
  };

  for (size_t di = 0; di < p.decls.size(); ++di) {
    const Decl &d = p.decls[di];
    const uint32_t here = decl_begin(d);
    const uint32_t next = di + 1 < p.decls.size() ? decl_begin(p.decls[di + 1]) : size;
    if (auto *n = std::get_if<NodeDecl>(&d)) {
      add(here, node_header(*n), 0, false, true);
      // Skip the header's two parenthesised groups, then find `var`, the body's `let`
      // (outside brackets: a dimension may hold a let expression) and `tel`.
      size_t j = token_at(toks, here);
      for (int depth = 0, groups = 0; toks[j].kind != Tok::Eof && toks[j].span.begin < next; ++j) {
        if (opens(toks[j].kind)) ++depth;
        if (closes(toks[j].kind) && --depth == 0 && toks[j].kind == Tok::RParen && ++groups == 2) {
          ++j;
          break;
        }
      }
      std::optional<uint32_t> var_at, let_at, tel_at;
      for (int depth = 0; toks[j].kind != Tok::Eof && toks[j].span.begin < next; ++j) {
        Tok k = toks[j].kind;
        if (opens(k)) ++depth;
        if (closes(k)) --depth;
        if (k == Tok::KwVar && !var_at) var_at = toks[j].span.begin;
        if (k == Tok::KwLet && depth == 0 && !let_at) let_at = toks[j].span.begin;
        if (k == Tok::KwTel) tel_at = toks[j].span.begin;
      }
      if (!n->locals.empty()) {
        if (var_at) add(*var_at, "var", 0);
        else add(n->locals[0].span.begin, "var", 0, true);
        for (auto &v : n->locals) add(v.span.begin, "  " + local_line(v), 2);
      }
      std::vector<std::pair<uint32_t, std::string>> stmts;  // in source order
      for (auto &eq : n->equations) stmts.emplace_back(eq.span.begin, (eq.block >= 0 ? "    " : "  ") + equation_line(eq, keep));
      for (auto &b : n->resets) {
        stmts.emplace_back(b.span.begin, "  reset");
        stmts.emplace_back(b.every_span.begin, "  " + every_line(b, keep));
      }
      for (auto &a : n->assumptions) stmts.emplace_back(a.span.begin, "  " + assumption_line(a, keep));
      std::stable_sort(stmts.begin(), stmts.end(), [](auto &a, auto &b) { return a.first < b.first; });
      bool wrapped = prints_let(*n);
      uint32_t after_locals = units.back().begin;
      if (wrapped) {
        if (n->has_let && let_at) add(*let_at, "let", 0);
        else add(stmts.empty() ? after_locals : stmts[0].first, "let", 0, true);
      }
      for (auto &s : stmts) add(s.first, std::move(s.second), 2);
      if (wrapped) {
        if (n->has_let && tel_at) add(*tel_at, "tel", 2);
        else add(units.back().begin, "tel", 2, true);
      }
    } else if (auto *f = std::get_if<FunDecl>(&d)) {
      add(here, fun_header(*f), 0, false, true);
      size_t j = token_at(toks, here);
      for (int depth = 0; toks[j].kind != Tok::Eof; ++j) {
        if (opens(toks[j].kind)) ++depth;
        if (closes(toks[j].kind)) --depth;
        if (toks[j].kind == Tok::Eq && depth == 0) {
          ++j;
          break;
        }
      }
      bool found = toks[j].span.begin < next && toks[j].kind != Tok::Eof;
      add(found ? toks[j].span.begin : units.back().begin, "  " + fun_body(*f, keep), 2, !found);
    } else if (auto *t = std::get_if<TypeDecl>(&d)) {
      add(here, type_line(*t), 0, false, true);
    } else {
      add(here, const_line(std::get<ConstDecl>(d), keep), 0, false, true);
    }
  }
  add(size, "", 0, false, true);
  units.back().eof = true;

  // Owner of an offset: the last real unit starting at or before it.
  std::vector<size_t> real;
  for (size_t u = 0; u < units.size(); ++u)
    if (!units[u].synthetic) real.push_back(u);
  auto owner = [&](uint32_t off) -> std::optional<size_t> {
    auto it = std::upper_bound(real.begin(), real.end(), off,
                               [&](uint32_t o, size_t u) { return o < units[u].begin; });
    if (it == real.begin()) return std::nullopt;
    return *(it - 1);
  };
  for (auto &u : units) u.end = u.begin;
  for (const Token &t : toks)
    if (t.kind != Tok::Eof)
      if (auto o = owner(t.span.begin)) units[*o].end = std::max(units[*o].end, t.span.end);

  // A comment after the last token of a line's unit, on that line, stays after it; any
  // other comment goes above the line of the token that follows it (a comment inside a
  // line's code cannot stay there: it moves above that line).
  for (size_t ci = 0; ci < comments.size(); ++ci) {
    const Comment &c = comments[ci];
    size_t k = token_at(toks, c.span.end);  // the token after the comment (maybe Eof)
    std::optional<size_t> after = owner(toks[k].span.begin);
    if (!after) after = units.size() - 1;  // defensive: owner(Eof) is the end unit
    if (k > 0 && !newline_in(text, toks[k - 1].span.end, c.span.begin)) {
      std::optional<size_t> before = owner(toks[k - 1].span.begin);
      if (before && *before != *after) {
        units[*before].trailing.push_back(ci);
        continue;
      }
    }
    units[*after].leading.push_back(ci);
  }

  // Emit. Declarations are separated by one empty line; elsewhere an empty line of the
  // source (between two lines or comments) is kept, several count as one.
  std::string out;
  uint32_t prev_end = 0;
  auto blank_before = [&](uint32_t begin, bool force) {
    if (!out.empty() && (force || blank_line_in(text, prev_end, begin))) out += '\n';
  };
  for (const Unit &u : units) {
    bool force = u.decl_start;
    for (size_t ci : u.leading) {
      const Comment &c = comments[ci];
      blank_before(c.span.begin, force);
      force = false;
      out += std::string(static_cast<size_t>(u.comment_indent), ' ') + comment_text(file, c) + '\n';
      prev_end = std::max(prev_end, c.span.end);
    }
    if (u.eof) break;
    if (!u.synthetic) {
      blank_before(u.begin, force);
      prev_end = std::max(prev_end, u.end);
    }
    out += u.text;
    for (size_t ci : u.trailing) {
      out += ' ' + comment_text(file, comments[ci]);
      prev_end = std::max(prev_end, comments[ci].span.end);
    }
    out += '\n';
  }
  return out;
}

}  // namespace rml
