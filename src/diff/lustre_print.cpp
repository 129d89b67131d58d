#include "diff/lustre_print.hpp"

#include "syntax/printer.hpp"

namespace rml::diff {

namespace {

struct Unsupported {
  std::string what;
};

std::string expr(const Expr &e) {
  auto a = [&](size_t i) { return expr(*e.args[i]); };
  switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::RealLit:
    case ExprKind::BoolLit: return print_expr(e);
    case ExprKind::Var: return e.name;
    case ExprKind::Unary:
      if (e.op == Op::Neg) return "(- " + a(0) + ")";
      if (e.op == Op::Not) return "(not " + a(0) + ")";
      if (e.op == Op::Pre) return "(pre " + a(0) + ")";
      throw Unsupported{"post"};
    case ExprKind::Binary:
      if (e.op == Op::Fby) return "(" + a(0) + " -> pre " + a(1) + ")";
      if (e.op == Op::Xor) return "(" + a(0) + " <> " + a(1) + ")";
      if (e.op == Op::Caret) throw Unsupported{"'^'"};
      return "(" + a(0) + " " + op_spelling(e.op) + " " + a(1) + ")";
    case ExprKind::When:
      if (e.args[1]->kind != ExprKind::Var) throw Unsupported{"a clock that is not a variable"};
      return "(" + a(0) + (e.positive ? " when " : " when not ") + e.args[1]->name + ")";
    case ExprKind::Merge:
      if (!e.binders.empty()) throw Unsupported{"a merge over an enumeration"};
      if (e.args[0]->kind != ExprKind::Var) throw Unsupported{"a merge on an expression"};
      return "(merge " + e.args[0]->name + " (true -> " + a(1) + ") (false -> " + a(2) + "))";
    case ExprKind::If: return "(if " + a(0) + " then " + a(1) + " else " + a(2) + ")";
    case ExprKind::Call: {
      if (e.statics) throw Unsupported{"static arguments"};
      std::string s = e.name + "(";
      for (size_t i = 0; i < e.args.size(); ++i) s += (i ? ", " : "") + a(i);
      return s + ")";
    }
    default: throw Unsupported{"'" + print_expr(e) + "'"};
  }
}

std::string decl(const VarDecl &v) {
  if (!v.type || v.type->kind != TypeSyntax::Tensor || !v.type->dims.empty()) throw Unsupported{"the type of '" + v.name + "'"};
  std::string s = v.name + ": " + print_type(*v.type);
  for (auto &c : v.clock) {
    if (!c.ctor.empty()) throw Unsupported{"an enumeration clock"};
    s += (c.positive ? " when " : " when not ") + c.var;
  }
  return s;
}

std::string decls(const std::vector<VarDecl> &vs) {
  std::string s;
  for (size_t i = 0; i < vs.size(); ++i) s += (i ? "; " : "") + decl(vs[i]);
  return s;
}

}  // namespace

std::optional<std::string> print_lustre(const Program &p, std::string &why) {
  try {
    std::string out;
    for (auto &d : p.decls) {
      const NodeDecl *n = std::get_if<NodeDecl>(&d);
      if (!n) throw Unsupported{"the declaration '" + decl_name(d) + "' (only nodes)"};
      if (!n->statics.empty() || !n->resets.empty()) throw Unsupported{"node '" + n->name + "''s static parameters or reset blocks"};
      for (auto &a : n->assumptions)
        if (a.eventually || a.property) throw Unsupported{"an assumption of '" + n->name + "'"};
      // Paper-syntax locals are not declared: Lustre needs them.
      for (auto &eq : n->equations)
        for (auto &l : eq.lhs) {
          bool declared = false;
          for (auto *vs : {&n->outputs, &n->locals})
            for (auto &v : *vs) declared = declared || v.name == l.name;
          if (!declared) throw Unsupported{"the undeclared local '" + l.name + "'"};
        }
      out += (out.empty() ? "" : "\n") + std::string(n->is_function ? "function " : "node ") + n->name + "(" + decls(n->inputs) +
             ") returns (" + decls(n->outputs) + ");\n";
      if (!n->locals.empty()) {
        out += "var\n";
        for (auto &v : n->locals) out += "  " + decl(v) + ";\n";
      }
      out += "let\n";
      for (auto &a : n->assumptions) out += "  assert " + expr(*a.cond) + ";\n";
      for (auto &eq : n->equations) {
        std::string lhs;
        for (size_t i = 0; i < eq.lhs.size(); ++i) lhs += (i ? ", " : "") + eq.lhs[i].name;
        out += "  " + (eq.lhs.size() > 1 ? "(" + lhs + ")" : lhs) + " = " + expr(*eq.rhs) + ";\n";
      }
      out += "tel\n";
    }
    return out;
  } catch (Unsupported &u) {
    why = u.what + " cannot be written in the Lustre dialect";
    return std::nullopt;
  }
}

}  // namespace rml::diff
