#include "syntax/printer.hpp"

#include <cmath>
#include <cstdio>
#include <cstring>

namespace rml {
namespace {

// Precedence levels of grammar.md §5 (1 loosest .. 13 atoms).
int level(const Expr &e) {
  switch (e.kind) {
    case ExprKind::If:
    case ExprKind::Let:
    case ExprKind::Lambda: return 1;
    case ExprKind::Binary:
      switch (e.op) {
        case Op::Arrow: return 2;
        case Op::Fby: return 3;
        case Op::Or:
        case Op::Xor: return 4;
        case Op::And: return 5;
        case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: return 7;
        case Op::Add: case Op::Sub: return 8;
        default: return 9;
      }
    case ExprKind::Unary: return e.op == Op::Not ? 6 : 11;
    case ExprKind::When: return 10;
    case ExprKind::Merge: return 11;
    case ExprKind::Call:
    case ExprKind::Index: return 12;
    case ExprKind::IntLit: return e.ival < 0 ? 11 : 13;
    case ExprKind::RealLit: return std::signbit(e.rval) ? 11 : 13;
    default: return 13;
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

struct Printer {
  std::string out;

  void sub(const Expr &e, int min_level) {
    if (level(e) < min_level) {
      out += '(';
      expr(e);
      out += ')';
    } else {
      expr(e);
    }
  }
  // A merge branch must not read as something else: one starting with '[' would index
  // the previous operand, and a first branch starting with '(true ->' would read as a
  // Lustre clause `merge c (true -> a) (false -> b)`.
  void merge_operand(const Expr &e, bool first_branch) {
    Printer p;
    p.sub(e, 12);
    std::string text = p.out;
    bool wrap = !text.empty() && text[0] == '[';
    if (first_branch && text.size() > 1 && text[0] == '(') {
      size_t k = text.find_first_not_of(' ', 1);
      for (const char *b : {"true", "false"}) {
        size_t len = std::strlen(b);
        if (text.compare(k, len, b) == 0) {
          size_t j = text.find_first_not_of(' ', k + len);
          if (j != std::string::npos && text.compare(j, 2, "->") == 0) wrap = true;
        }
      }
    }
    out += wrap ? "(" + text + ")" : text;
  }

  void list(const std::vector<ExprPtr> &a, size_t from = 0) {
    for (size_t i = from; i < a.size(); ++i) {
      if (i > from) out += ", ";
      expr(*a[i]);
    }
  }
  void expr(const Expr &e) {
    switch (e.kind) {
      case ExprKind::IntLit: out += std::to_string(e.ival); break;
      case ExprKind::RealLit: out += real_text(e.rval); break;
      case ExprKind::BoolLit: out += e.bval ? "true" : "false"; break;
      case ExprKind::Var: out += e.name; break;
      case ExprKind::Unary: {
        out += op_spelling(e.op);
        if (e.op != Op::Neg) out += ' ';
        size_t mark = out.size();
        sub(*e.args[0], e.op == Op::Not ? 6 : 11);
        if (e.op == Op::Neg && mark < out.size() && out[mark] == '-') out.insert(mark, " ");  // never "--"
        break;
      }
      case ExprKind::Binary: {
        int l = level(e);
        int lmin = l, rmin = l + 1;
        if (e.op == Op::Arrow || e.op == Op::Fby) lmin = l + 1, rmin = l;      // right associative
        if (l == 7) lmin = rmin = 8;                                              // non-associative
        sub(*e.args[0], lmin);
        out += ' ';
        out += op_spelling(e.op);
        out += ' ';
        sub(*e.args[1], rmin);
        break;
      }
      case ExprKind::When:
        sub(*e.args[0], 10);
        out += e.positive ? " when " : " when not ";
        sub(*e.args[1], 11);
        break;
      case ExprKind::Merge:
        out += "merge ";
        sub(*e.args[0], 12);
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
        out += e.name + "(";
        list(e.args);
        out += ')';
        break;
      case ExprKind::Index:
        sub(*e.args[0], 12);
        out += '[';
        list(e.args, 1);
        out += ']';
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
  for (auto &c : v.clock) out += std::string(c.positive ? " when " : " when not ") + c.var;
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
    case TypeSyntax::TyVar: return t.tyvar;
    case TypeSyntax::Shape: return "shape";
    case TypeSyntax::Tensor: break;
  }
  std::string s = scalar_name(t.scalar);
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

std::string print_program(const Program &p) {
  std::string out;
  for (size_t i = 0; i < p.decls.size(); ++i) {
    if (i) out += '\n';
    const Decl &d = p.decls[i];
    if (auto *n = std::get_if<NodeDecl>(&d)) {
      out += n->is_function ? "function " : "node ";
      out += n->name + "(";
      print_decls(out, n->inputs);
      out += n->lustre_style ? ") returns (" : ") -> (";
      print_decls(out, n->outputs);
      out += n->lustre_style ? ");\n" : ")\n";
      if (!n->locals.empty()) {
        out += "var\n";
        for (auto &v : n->locals) {
          out += "  ";
          print_decl(out, v);
          out += ";\n";
        }
      }
      if (n->has_let || !n->locals.empty()) out += "let\n";
      for (auto &eq : n->equations) {
        out += "  ";
        for (size_t k = 0; k < eq.lhs.size(); ++k) out += (k ? ", " : "") + eq.lhs[k].name;
        out += " = " + print_expr(*eq.rhs) + ";\n";
      }
      for (auto &a : n->assumptions) {
        out += std::string("  assume always ") + (a.eventually ? "eventually " : "") + print_expr(*a.cond);
        if (a.within >= 0) out += " within " + std::to_string(a.within);
        out += ";\n";
      }
      if (n->has_let || !n->locals.empty()) out += "tel\n";
    } else if (auto *f = std::get_if<FunDecl>(&d)) {
      out += "fun " + f->name + "(";
      print_decls(out, f->params);
      out += ") : " + print_type(f->result) + " =\n  " + print_expr(*f->body) + ";\n";
    } else {
      auto &c = std::get<ConstDecl>(d);
      out += "const " + c.name;
      if (c.type) out += ": " + print_type(*c.type);
      out += " = " + print_expr(*c.value) + ";\n";
    }
  }
  return out;
}

}  // namespace rml
