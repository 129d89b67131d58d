#include "syntax/ast.hpp"

#include <set>

#include <algorithm>
#include <cstring>

namespace rml {

const char *op_spelling(Op op) {
  switch (op) {
    case Op::None: return "?";
    case Op::Neg: return "-";
    case Op::Not: return "not";
    case Op::Pre: return "pre";
    case Op::Post: return "post";
    case Op::Add: return "+";
    case Op::Sub: return "-";
    case Op::Mul: return "*";
    case Op::Div: return "/";
    case Op::IntDiv: return "div";
    case Op::Mod: return "mod";
    case Op::Eq: return "=";
    case Op::Ne: return "<>";
    case Op::Lt: return "<";
    case Op::Le: return "<=";
    case Op::Gt: return ">";
    case Op::Ge: return ">=";
    case Op::And: return "and";
    case Op::Or: return "or";
    case Op::Xor: return "xor";
    case Op::Fby: return "fby";
    case Op::Arrow: return "->";
    case Op::Implies: return "=>";
    case Op::Caret: return "^";
    case Op::BitAnd: return "&&";
    case Op::BitOr: return "||";
    case Op::BitNot: return "!";
    case Op::Lsh: return "lsh";
    case Op::Rsh: return "rsh";
  }
  return "?";
}

namespace {
void substitute_in(ExprPtr &e, const std::map<std::string, ExprPtr> &values, bool keep_span,
                   const std::function<const std::vector<std::string> *(const Expr &)> &binding, std::set<std::string> &hidden) {
  if (e->kind == ExprKind::Var) {
    if (auto it = values.find(e->name); it != values.end() && !hidden.count(e->name)) {
      Span s = e->span;
      e = it->second->clone();
      if (keep_span) e->span = s;
    }
    return;
  }
  const std::vector<std::string> *everywhere = binding ? binding(*e) : nullptr;
  std::vector<std::string> added;
  auto hide = [&](const std::vector<std::string> &names) {
    for (auto &b : names)
      if (hidden.insert(b).second) added.push_back(b);
  };
  if (everywhere) hide(*everywhere);
  if (e->kind == ExprKind::Lambda) hide(e->binders);
  for (size_t k = 0; k < e->args.size(); ++k) {
    if (e->kind == ExprKind::Let && k == 1) hide({e->name});
    substitute_in(e->args[k], values, keep_span, binding, hidden);
  }
  for (auto &b : added) hidden.erase(b);
  uint32_t h = 0;
  for (auto &a : e->args) h = std::max(h, a->height);
  if (!e->args.empty()) e->height = h + 1;
}
}  // namespace

void substitute_vars(ExprPtr &e, const std::map<std::string, ExprPtr> &values, bool keep_span,
                     const std::function<const std::vector<std::string> *(const Expr &)> &binding) {
  std::set<std::string> hidden;
  substitute_in(e, values, keep_span, binding, hidden);
}

ExprPtr Expr::clone() const {
  auto e = std::make_unique<Expr>(kind, span);
  e->op = op;
  e->positive = positive;
  e->bval = bval;
  e->ival = ival;
  e->rval = rval;
  e->name = name;
  e->binders = binders;
  e->binder_spans = binder_spans;
  e->fat_arrows = fat_arrows;
  e->op_span = op_span;
  e->height = height;
  e->statics = statics;
  e->type_args = type_args;
  for (auto &a : args) e->args.push_back(a->clone());
  return e;
}

DimSyntax DimSyntax::clone() const {
  DimSyntax d;
  d.splice_var = splice_var;
  d.var = var;
  d.expr = expr ? expr->clone() : nullptr;
  d.span = span;
  return d;
}

int64_t MachineInt::lo() const { return is_signed ? (bits >= 64 ? INT64_MIN : -(int64_t{1} << (bits - 1))) : 0; }
int64_t MachineInt::hi() const {
  if (bits >= 64) return INT64_MAX;
  return is_signed ? (int64_t{1} << (bits - 1)) - 1 : (int64_t{1} << bits) - 1;
}

static bool concise_width(int bits) { return bits == 8 || bits == 16 || bits == 32 || bits == 64; }

std::string MachineInt::name() const {
  std::string n = std::to_string(bits);
  if (concise_width(bits)) return (is_signed ? "int" : "uint") + n;
  return (is_signed ? "sint<" : "uint<") + n + ">";
}

std::string MachineInt::cast_name() const {
  std::string n = std::to_string(bits);
  if (concise_width(bits)) return (is_signed ? "int" : "uint") + n;
  return (is_signed ? "sint@<" : "uint@<") + n + ">";
}

std::optional<MachineInt> MachineInt::concise(std::string_view name) {
  bool u = name.substr(0, 1) == "u";
  std::string_view rest = name.substr(u ? 1 : 0);
  for (int bits : {8, 16, 32, 64})
    if (rest == "int" + std::to_string(bits)) return MachineInt{static_cast<uint8_t>(bits), !u};
  return std::nullopt;
}

std::optional<MachineInt> MachineInt::of_cast(std::string_view call_name) {
  if (auto m = concise(call_name)) return m->bits == 64 && !m->is_signed ? std::nullopt : m;
  for (std::string_view head : {"sint@<", "uint@<"}) {
    if (call_name.substr(0, head.size()) != head || call_name.back() != '>') continue;
    std::string_view digits = call_name.substr(head.size(), call_name.size() - head.size() - 1);
    if (digits.empty() || digits.size() > 2 || digits.find_first_not_of("0123456789") != std::string_view::npos) return std::nullopt;
    int bits = std::stoi(std::string(digits));
    bool is_signed = head[0] == 's';
    if (bits < 1 || bits > (is_signed ? 64 : 63)) return std::nullopt;
    return MachineInt{static_cast<uint8_t>(bits), is_signed};
  }
  return std::nullopt;
}

TypeSyntax TypeSyntax::clone() const {
  TypeSyntax t;
  t.kind = kind;
  t.scalar = scalar;
  t.tyvar = tyvar;
  t.name = name;
  t.subrange = subrange;
  t.machine = machine;
  if (range_lo) t.range_lo = range_lo->clone();
  if (range_hi) t.range_hi = range_hi->clone();
  t.enum_name = enum_name;
  t.refinements = refinements;
  t.span = span;
  for (auto &d : dims) t.dims.push_back(d.clone());
  for (auto &e : elem) t.elem.push_back(e.clone());
  return t;
}

VarDecl VarDecl::clone() const {
  VarDecl v;
  v.is_const = is_const;
  v.name = name;
  v.span = span;
  if (type) v.type = type->clone();
  v.clock = clock;
  return v;
}

Equation Equation::clone() const { return Equation{lhs, rhs->clone(), span, block, index_vars, index_spans}; }

ResetBlock ResetBlock::clone() const { return ResetBlock{cond->clone(), span, every_span}; }

Assumption Assumption::clone() const {
  return Assumption{eventually, within, cond->clone(), span, property, keyword, name, name_span, text};
}

const std::string &decl_name(const Decl &d) {
  return std::visit([](auto &x) -> const std::string & { return x.name; }, d);
}
Decl clone_decl(const Decl &d) {
  if (auto *n = std::get_if<NodeDecl>(&d)) {
    NodeDecl m;
    m.name = n->name;
    m.name_span = n->name_span;
    m.keyword_span = n->keyword_span;
    m.is_function = n->is_function;
    m.lustre_style = n->lustre_style;
    m.has_let = n->has_let;
    m.fun_keyword = n->fun_keyword;
    m.imported = n->imported;
    m.import_keyword = n->import_keyword;
    m.modifier = n->modifier;
    for (auto &v : n->inputs) m.inputs.push_back(v.clone());
    for (auto &v : n->statics) m.statics.push_back(v.clone());
    m.type_params = n->type_params;
    m.type_param_spans = n->type_param_spans;
    for (auto &v : n->outputs) m.outputs.push_back(v.clone());
    for (auto &v : n->locals) m.locals.push_back(v.clone());
    for (auto &e : n->equations) m.equations.push_back(e.clone());
    for (auto &b : n->resets) m.resets.push_back(b.clone());
    for (auto &a : n->assumptions) m.assumptions.push_back(a.clone());
    return m;
  }
  if (auto *f = std::get_if<FunDecl>(&d)) {
    FunDecl g;
    g.name = f->name;
    g.name_span = f->name_span;
    for (auto &v : f->params) g.params.push_back(v.clone());
    g.result = f->result.clone();
    g.body = f->body->clone();
    return g;
  }
  if (auto *t = std::get_if<TypeDecl>(&d)) {
    TypeDecl u;
    u.name = t->name;
    u.name_span = t->name_span;
    u.is_enum = t->is_enum;
    u.is_record = t->is_record;
    for (auto &f : t->fields) u.fields.push_back(f.clone());
    u.bar_syntax = t->bar_syntax;
    u.is_abstract = t->is_abstract;
    u.ctors = t->ctors;
    u.ctor_spans = t->ctor_spans;
    if (t->alias) u.alias = t->alias->clone();
    return u;
  }
  auto &c = std::get<ConstDecl>(d);
  ConstDecl k;
  k.name = c.name;
  k.name_span = c.name_span;
  if (c.type) k.type = c.type->clone();
  if (c.value) k.value = c.value->clone();
  return k;
}

Span decl_span(const Decl &d) {
  return std::visit([](auto &x) { return x.name_span; }, d);
}

bool ast_equal(const Expr &a, const Expr &b) {
  if (a.kind != b.kind || a.op != b.op || a.args.size() != b.args.size()) return false;
  switch (a.kind) {
    case ExprKind::IntLit: if (a.ival != b.ival) return false; break;
    case ExprKind::RealLit: if (std::memcmp(&a.rval, &b.rval, sizeof(double)) != 0) return false; break;
    case ExprKind::BoolLit: if (a.bval != b.bval) return false; break;
    case ExprKind::When: if (a.positive != b.positive) return false; break;
    case ExprKind::Var: case ExprKind::Let: case ExprKind::Field:
      if (a.name != b.name) return false;
      break;
    case ExprKind::Call:
      if (a.name != b.name || a.statics != b.statics || a.binders != b.binders || a.type_args.size() != b.type_args.size())
        return false;
      for (size_t i = 0; i < a.type_args.size(); ++i)
        if (!ast_equal(*a.type_args[i], *b.type_args[i])) return false;
      break;
    case ExprKind::Record: if (a.name != b.name || a.binders != b.binders) return false; break;
    case ExprKind::Update: if (a.binders != b.binders) return false; break;
    case ExprKind::Merge: if (a.binders != b.binders || a.fat_arrows != b.fat_arrows) return false; break;
    case ExprKind::Lambda: if (a.binders != b.binders) return false; break;
    default: break;
  }
  for (size_t i = 0; i < a.args.size(); ++i)
    if (!ast_equal(*a.args[i], *b.args[i])) return false;
  return true;
}

static bool dims_equal(const DimSyntax &a, const DimSyntax &b) {
  if (a.splice_var != b.splice_var) return false;
  if (a.splice_var) return a.var == b.var;
  return ast_equal(*a.expr, *b.expr);
}

bool ast_equal(const TypeSyntax &a, const TypeSyntax &b) {
  if (a.kind != b.kind) return false;
  if (a.kind == TypeSyntax::TyVar) return a.tyvar == b.tyvar;
  if (a.kind == TypeSyntax::Shape) return true;
  if (a.kind == TypeSyntax::Named) return a.name == b.name;
  if (a.kind == TypeSyntax::Array) return ast_equal(a.elem[0], b.elem[0]) && dims_equal(a.dims[0], b.dims[0]);
  if (a.kind == TypeSyntax::Group) {
    if (a.elem.size() != b.elem.size()) return false;
    for (size_t i = 0; i < a.elem.size(); ++i)
      if (!ast_equal(a.elem[i], b.elem[i])) return false;
    return true;
  }
  auto same_bound = [](const ExprPtr &x, const ExprPtr &y) { return !x ? !y : (y && ast_equal(*x, *y)); };
  if (a.subrange != b.subrange || !same_bound(a.range_lo, b.range_lo) || !same_bound(a.range_hi, b.range_hi)) return false;
  if (a.scalar != b.scalar || a.machine != b.machine || a.dims.size() != b.dims.size()) return false;
  for (size_t i = 0; i < a.dims.size(); ++i)
    if (!dims_equal(a.dims[i], b.dims[i])) return false;
  return true;
}

static bool decls_equal(const std::vector<VarDecl> &a, const std::vector<VarDecl> &b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    const VarDecl &x = a[i], &y = b[i];
    if (x.is_const != y.is_const || x.name != y.name || x.type.has_value() != y.type.has_value()) return false;
    if (x.type && !ast_equal(*x.type, *y.type)) return false;
    if (x.clock.size() != y.clock.size()) return false;
    for (size_t k = 0; k < x.clock.size(); ++k)
      if (x.clock[k].positive != y.clock[k].positive || x.clock[k].var != y.clock[k].var || x.clock[k].ctor != y.clock[k].ctor)
        return false;
  }
  return true;
}

bool ast_equal(const Program &a, const Program &b) {
  if (a.decls.size() != b.decls.size()) return false;
  for (size_t i = 0; i < a.decls.size(); ++i) {
    const Decl &x = a.decls[i], &y = b.decls[i];
    if (x.index() != y.index()) return false;
    if (auto *n = std::get_if<NodeDecl>(&x)) {
      auto &m = std::get<NodeDecl>(y);
      if (n->name != m.name || n->is_function != m.is_function || n->imported != m.imported || !decls_equal(n->inputs, m.inputs) ||
          !decls_equal(n->statics, m.statics) || n->type_params != m.type_params ||
          !decls_equal(n->outputs, m.outputs) || !decls_equal(n->locals, m.locals) ||
          n->equations.size() != m.equations.size())
        return false;
      for (size_t k = 0; k < n->equations.size(); ++k) {
        auto &e = n->equations[k], &f = m.equations[k];
        if (e.lhs.size() != f.lhs.size() || e.block != f.block || e.index_vars != f.index_vars) return false;
        for (size_t j = 0; j < e.lhs.size(); ++j)
          if (e.lhs[j].name != f.lhs[j].name) return false;
        if (!ast_equal(*e.rhs, *f.rhs)) return false;
      }
      if (n->resets.size() != m.resets.size()) return false;
      for (size_t k = 0; k < n->resets.size(); ++k)
        if (!ast_equal(*n->resets[k].cond, *m.resets[k].cond)) return false;
      if (n->assumptions.size() != m.assumptions.size()) return false;
      for (size_t k = 0; k < n->assumptions.size(); ++k) {
        auto &pa = n->assumptions[k], &qa = m.assumptions[k];
        if (pa.eventually != qa.eventually || pa.within != qa.within || pa.property != qa.property ||
            (pa.keyword == "assert") != (qa.keyword == "assert") || pa.name != qa.name ||
            !ast_equal(*pa.cond, *qa.cond))
          return false;
      }
    } else if (auto *fn = std::get_if<FunDecl>(&x)) {
      auto &g = std::get<FunDecl>(y);
      if (fn->name != g.name || !decls_equal(fn->params, g.params) || !ast_equal(fn->result, g.result) ||
          !ast_equal(*fn->body, *g.body))
        return false;
    } else if (auto *t = std::get_if<TypeDecl>(&x)) {
      auto &u = std::get<TypeDecl>(y);
      if (t->name != u.name || t->is_enum != u.is_enum || t->is_abstract != u.is_abstract || t->ctors != u.ctors ||
          t->alias.has_value() != u.alias.has_value() ||
          t->is_record != u.is_record || !decls_equal(t->fields, u.fields))
        return false;
      if (t->alias && !ast_equal(*t->alias, *u.alias)) return false;
    } else {
      auto &c = std::get<ConstDecl>(x), &d = std::get<ConstDecl>(y);
      if (c.name != d.name || c.type.has_value() != d.type.has_value() || !c.value != !d.value) return false;
      if (c.value && !ast_equal(*c.value, *d.value)) return false;
      if (c.type && !ast_equal(*c.type, *d.type)) return false;
    }
  }
  return true;
}

ExprPtr mk_int(int64_t v, Span s) { auto e = std::make_unique<Expr>(ExprKind::IntLit, s); e->ival = v; return e; }
ExprPtr mk_real(double v, Span s) { auto e = std::make_unique<Expr>(ExprKind::RealLit, s); e->rval = v; return e; }
ExprPtr mk_bool(bool v, Span s) { auto e = std::make_unique<Expr>(ExprKind::BoolLit, s); e->bval = v; return e; }
ExprPtr mk_var(std::string n, Span s) { auto e = std::make_unique<Expr>(ExprKind::Var, s); e->name = std::move(n); return e; }
ExprPtr mk_unary(Op op, ExprPtr a, Span s) {
  auto e = std::make_unique<Expr>(ExprKind::Unary, s);
  e->op = op;
  e->height = a->height + 1;  // the parser's bound reads heights (Expr::height)
  e->args.push_back(std::move(a));
  return e;
}
ExprPtr mk_binary(Op op, ExprPtr a, ExprPtr b, Span s) {
  auto e = std::make_unique<Expr>(ExprKind::Binary, s);
  e->op = op;
  e->height = std::max(a->height, b->height) + 1;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

}  // namespace rml
