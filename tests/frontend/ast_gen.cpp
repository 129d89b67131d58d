#include "frontend/ast_gen.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "syntax/diag.hpp"
#include "syntax/lexer.hpp"
#include "syntax/printer.hpp"
#include "syntax/source.hpp"

namespace rml::testgen {
namespace {

using rml::Expr;
using rml::ExprKind;
using rml::ExprPtr;
using rml::Op;

// grammar.md §1 keywords, plus the lexer's reserved words for unsupported Lustre
// constructs (`type`, `current`) and the type alias `float`.
const std::set<std::string> &keywords() {
  static const std::set<std::string> kw = {
      "node", "function", "fun",  "returns", "var",  "let",  "tel",  "const", "when", "whenot",
      "merge", "fby",     "post", "pre",     "if",   "then", "else", "not",   "and",  "or",
      "xor",  "mod",      "div",  "true",    "false", "int", "bool", "real",
      "in",   "float",    "type", "current"};
  return kw;
}

bool is_keyword(const std::string &s) { return keywords().count(s) > 0; }

// A hand-picked pool: ordinary names, the paper's non-keyword names (`do`, `end`, `init`,
// `param`, `shape`), names with a keyword as a prefix or suffix (lexer maximal munch), and
// Kind 2's words that are names to rml but for their place (`uint<8>`, `x lsh n`).
const std::vector<std::string> &name_pool() {
  static const std::vector<std::string> pool = {
      "x",     "y",      "z",     "a",      "b",     "c",      "i",      "j",       "k",
      "n",     "m",      "s",     "o",      "t",     "bp",     "do",     "end",     "init",
      "param", "shape",  "units", "sizex",  "x1",    "y_2",    "_t",     "Foo",     "camelCase",
      "int8x", "reals",  "iffy",  "whenever", "note", "prev",  "letx",   "tel2",    "real_x",
      "mergeAll", "fbyx", "notx", "pre_x",  "posts", "in_",    "ifx",    "thenx",   "true1",
      "falsey", "andy",  "orx",   "xor1",   "mode",  "divx",   "node1",  "funk",    "constant",
      "var_",  "typed",  "currently", "floaty", "boolean", "shaped", "__", "_0", "uint", "sint", "lsh", "rsh"};
  return pool;
}

// Picking helpers (only valid inside rc::gen::exec). rc::gen::inRange and elementOf scale
// their range with RapidCheck's size parameter (small sizes pick near the start); the
// tree's size is already bounded by `depth`, so choices here are uniform at every size.
template <typename T>
T uni(rc::Gen<T> g) { return *rc::gen::resize(rc::kNominalSize, std::move(g)); }
int pick(int lo, int hi_inclusive) { return uni(rc::gen::inRange(lo, hi_inclusive + 1)); }
template <typename T>
T pick_of(const std::vector<T> &v) { return v[static_cast<size_t>(pick(0, static_cast<int>(v.size()) - 1))]; }
char pick_char(const std::string &s) { return s[static_cast<size_t>(pick(0, static_cast<int>(s.size()) - 1))]; }
bool chance(int percent) { return pick(1, 100) <= percent; }

std::string ident() {
  if (chance(85)) return pick_of(name_pool());
  // Random identifiers of length 1..8.
  const std::string first = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
  const std::string rest = first + "0123456789";
  for (;;) {
    std::string s(1, pick_char(first));
    int len = pick(0, 7);
    for (int q = 0; q < len; ++q) s += pick_char(rest);
    if (s != "_" && !is_keyword(s)) return s;
  }
}

// A type name: any identifier but the two the type grammar reads specially.
std::string type_name() {
  for (;;) {
    std::string s = ident();
    if (s != "shape" && s != "subrange") return s;
  }
}

// A variable name: sometimes `in`, a keyword of `let ... in` that Lustre programs use
// as a name (grammar.md §2); never for declarations, let or lambda binders.
std::string var_ident() { return chance(4) ? std::string("in") : ident(); }

int64_t int_literal() {
  switch (pick(0, 3)) {
    case 0: return pick(0, 9);
    case 1: return uni(rc::gen::inRange<int64_t>(0, 1000000));
    case 2:
      return pick_of<int64_t>({0, 1, 10, 1000000000, int64_t{1} << 31, int64_t{1} << 53,
                                        std::numeric_limits<int64_t>::max()});
    default: return uni(rc::gen::inRange<int64_t>(0, std::numeric_limits<int64_t>::max()));
  }
}

double real_literal() {
  switch (pick(0, 3)) {
    case 0:
      return pick_of<double>({0.0, 0.5, 1.0, 2.0, 0.1, 0.2, 0.30000000000000004, 1e300, 5e-324,
                                       1e-300, 2.2250738585072014e-308, 1.7976931348623157e308, 1e15, 1e16,
                                       1e17, 123456789.125, 3.141592653589793, 1e-7, 100.0, 1e21});
    case 1: {  // short decimals: m / 10^k
      auto m = uni(rc::gen::inRange<int64_t>(0, 100000));
      int k = pick(0, 6);
      return static_cast<double>(m) / std::pow(10.0, k);
    }
    case 2: return static_cast<double>(pick(0, 1000));
    default: {  // any finite non-negative double (not -0.0)
      auto bits = uni(rc::gen::arbitrary<uint64_t>());
      bits &= ~(uint64_t{1} << 63);
      double d = std::bit_cast<double>(bits);
      if (!std::isfinite(d)) d = 1.5;
      return d;
    }
  }
}

ExprPtr node(ExprKind k, std::vector<ExprPtr> args, Op op = Op::None) {
  auto e = std::make_unique<Expr>(k);
  e->op = op;
  e->args = std::move(args);
  uint32_t h = 0;
  for (auto &a : e->args) h = std::max(h, a->height);
  e->height = h + 1;
  return e;
}

ExprPtr leaf(Layer layer) {
  (void)layer;
  switch (pick(0, 5)) {
    case 0: return rml::mk_int(int_literal());
    case 1: return rml::mk_real(real_literal());
    case 2: return rml::mk_bool(chance(50));
    default: return rml::mk_var(var_ident());
  }
}

ExprPtr expr(Layer layer, int depth);

// A clock / merge condition: usually a name (as in real programs), sometimes anything.
ExprPtr condition(Layer layer, int depth) {
  if (depth <= 0 || chance(70)) return rml::mk_var(var_ident());
  return expr(layer, depth - 1);
}

std::vector<ExprPtr> exprs(Layer layer, int depth, int lo, int hi) {
  std::vector<ExprPtr> v;
  int n = pick(lo, hi);
  for (int q = 0; q < n; ++q) v.push_back(expr(layer, depth));
  return v;
}

ExprPtr merge_branch(Layer layer, int depth, bool /*first*/) { return expr(layer, depth); }

enum class Form {
  Leaf, Unary, Binary, When, Merge, If, Let, Call, LambdaCall, Index, Array, Reset, Field, Record, Update,
};

ExprPtr expr(Layer layer, int depth) {
  if (depth <= 0) return leaf(layer);
  bool stream = layer != Layer::Fun;
  bool fun = layer != Layer::Stream;
  // Leaves first so that shrinking moves towards them.
  std::vector<std::pair<int, Form>> forms = {
      {3, Form::Leaf}, {4, Form::Binary}, {2, Form::Unary}, {2, Form::Call}, {1, Form::If},
      {1, Form::Index}, {1, Form::Array},
  };
  if (stream)
    forms.insert(forms.end(), {{2, Form::When}, {2, Form::Merge}, {1, Form::Reset}, {1, Form::Field}, {1, Form::Record},
                               {1, Form::Update}});
  if (fun) forms.insert(forms.end(), {{1, Form::Let}, {1, Form::LambdaCall}});
  int total = 0;
  for (auto &f : forms) total += f.first;
  int r = pick(1, total);
  Form form = Form::Leaf;
  for (auto &f : forms) {
    if (r <= f.first) {
      form = f.second;
      break;
    }
    r -= f.first;
  }
  const int d = depth - 1;
  switch (form) {
    case Form::Leaf: return leaf(layer);
    case Form::Unary: {
      std::vector<Op> ops = {Op::Neg, Op::Not};
      if (stream) ops.insert(ops.end(), {Op::Pre, Op::Post});
      Op op = pick_of(ops);
      std::vector<ExprPtr> a;
      a.push_back(expr(layer, d));
      return node(ExprKind::Unary, std::move(a), op);
    }
    case Form::Binary: {
      std::vector<Op> ops = {Op::Add, Op::Sub, Op::Mul, Op::Div, Op::IntDiv, Op::Mod, Op::Eq, Op::Ne,
                             Op::Lt,  Op::Le,  Op::Gt,  Op::Ge,  Op::And,    Op::Or,  Op::Xor, Op::Implies,
                             Op::Caret};  // Lustre's e ^ n
      if (stream) ops.insert(ops.end(), {Op::Fby, Op::Arrow});
      Op op = pick_of(ops);
      std::vector<ExprPtr> a;
      a.push_back(expr(layer, d));
      a.push_back(expr(layer, d));
      return node(ExprKind::Binary, std::move(a), op);
    }
    case Form::When: {
      std::vector<ExprPtr> a;
      a.push_back(expr(layer, d));
      a.push_back(condition(layer, d));
      auto e = node(ExprKind::When, std::move(a));
      e->positive = chance(50);
      return e;
    }
    case Form::Merge: {
      std::vector<ExprPtr> a;
      a.push_back(condition(layer, d));
      if (chance(25)) {  // over an enumeration: `merge k (A -> a) (B -> b) ...`
        std::vector<std::string> ctors;
        std::vector<bool> fat;  // Vélus's `(A => a)`
        for (int q = pick(2, 4); q > 0; --q) {
          ctors.push_back(var_ident());
          fat.push_back(chance(30));
          a.push_back(expr(layer, d));
        }
        auto e = node(ExprKind::Merge, std::move(a));
        e->binders = std::move(ctors);
        e->fat_arrows = std::move(fat);
        return e;
      }
      a.push_back(merge_branch(layer, d, true));
      a.push_back(merge_branch(layer, d, false));
      return node(ExprKind::Merge, std::move(a));
    }
    case Form::If: return node(ExprKind::If, exprs(layer, d, 3, 3));
    case Form::Let: {
      std::vector<ExprPtr> a;
      a.push_back(expr(layer, d));
      a.push_back(expr(layer, d));
      auto e = node(ExprKind::Let, std::move(a));
      e->name = ident();
      return e;
    }
    case Form::Call: {
      static const std::vector<std::string> callees = {
          "f", "g", "zeros", "ones", "real", "int", "max", "min", "sum", "rank", "prod", "iota", "reshape",
          "relu", "matmul", "exp", "sumOuter", "tr", "transpose", "replicate", "param", "shape", "dense1", "#",
          "map", "red", "fill", "fillred", "current"};  // Lustre V6's iterators with static arguments: map<<f, n>>(a)
      auto e = node(ExprKind::Call, exprs(layer, d, 0, 3));
      e->name = chance(80) ? pick_of(callees) : ident();
      if (e->name != "real" && e->name != "int" && e->name != "#" && e->name != "current" && chance(15)) {  // static arguments f<<a, b>>(...); not on conversions or keywords
        auto st = exprs(layer, d, 1, 2);
        e->statics = static_cast<uint32_t>(st.size());
        for (auto &x : e->args) st.push_back(std::move(x));
        e->args = std::move(st);
        if (chance(40)) {  // Heptagon's iterator: map<<n>> f (a), fold<<n>> (+) (a, 0)
          e->name = pick_of<std::string>({"map", "mapi", "fold", "foldi", "mapfold"});
          e->binders = {chance(60) ? ident() : pick_of<std::string>({"+", "-", "*", "/", "<", "<=", ">", ">=", "<>", "=", "and", "or", "xor", "mod"})};
        }
      }
      return e;
    }
    case Form::Reset: {  // f(args) every c
      auto call = node(ExprKind::Call, exprs(layer, d, 0, 3));
      call->name = chance(50) ? "f" : ident();
      std::vector<ExprPtr> a;
      a.push_back(std::move(call));
      a.push_back(condition(layer, d));
      auto e = node(ExprKind::Reset, std::move(a));
      if (chance(50)) e->name = "restart";
      return e;
    }
    case Form::LambdaCall: {  // build/gather/scatter(..., \binders => body)
      auto lam = std::make_unique<Expr>(ExprKind::Lambda);
      int nb = pick(1, 3);
      static const std::vector<std::string> binders = {"i", "j", "k", "l", "p", "q", "do", "shape", "i2"};
      std::vector<std::string> pool = binders;
      for (int q = 0; q < nb; ++q) {
        std::string b = chance(80) ? pick_of(pool) : ident();
        if (std::find(lam->binders.begin(), lam->binders.end(), b) == lam->binders.end()) lam->binders.push_back(b);
      }
      lam->args.push_back(expr(layer, d));
      lam->height = lam->args[0]->height + 1;
      std::string callee = pick_of<std::string>({"build", "gather", "scatter"});
      std::vector<ExprPtr> a = exprs(layer, d, callee == "build" ? 1 : 2, 2);
      a.push_back(std::move(lam));
      auto e = node(ExprKind::Call, std::move(a));
      e->name = callee;
      return e;
    }
    case Form::Index: {
      std::vector<ExprPtr> a;
      a.push_back(expr(layer, d));
      for (auto &ix : exprs(layer, d, 1, 3)) a.push_back(std::move(ix));
      return node(ExprKind::Index, std::move(a));
    }
    case Form::Array: return node(ExprKind::Array, exprs(layer, d, 0, 4));
    case Form::Field: {  // e.x (Lustre records)
      std::vector<ExprPtr> a;
      a.push_back(expr(layer, d));
      auto e = node(ExprKind::Field, std::move(a));
      e->name = ident();
      return e;
    }
    case Form::Record: {  // R { x = e; y = e }
      auto e = node(ExprKind::Record, exprs(layer, d, 0, 3));
      e->name = e->args.empty() || chance(75) ? type_name() : "";  // "": Heptagon's { x = e }
      for (size_t k = 0; k < e->args.size(); ++k) e->binders.push_back(ident());
      e->binder_spans.resize(e->binders.size());
      return e;
    }
    case Form::Update: {  // e[x := v] (Kind 2)
      std::vector<ExprPtr> a;
      a.push_back(expr(layer, d));
      a.push_back(expr(layer, d));
      auto e = node(ExprKind::Update, std::move(a));
      e->binders.push_back(ident());
      e->binder_spans.resize(1);
      return e;
    }
  }
  return leaf(layer);
}

// Static expressions (dims, constants): grammar.md §4.
ExprPtr static_expr(int depth) {
  if (depth <= 0 || chance(40)) {
    if (chance(50)) return rml::mk_int(chance(80) ? pick(0, 64) : int_literal());
    return rml::mk_var(ident());
  }
  const int d = depth - 1;
  switch (pick(0, 5)) {
    case 0: {
      Op op = pick_of<Op>({Op::Add, Op::Sub, Op::Mul, Op::Div, Op::IntDiv, Op::Mod});
      std::vector<ExprPtr> a;
      a.push_back(static_expr(d));
      a.push_back(static_expr(d));
      return node(ExprKind::Binary, std::move(a), op);
    }
    case 1: {
      std::vector<ExprPtr> a;
      a.push_back(static_expr(d));
      return node(ExprKind::Unary, std::move(a), Op::Neg);
    }
    case 2: {
      std::string callee = pick_of<std::string>({"min", "max", "rank", "prod"});
      std::vector<ExprPtr> a;
      a.push_back(static_expr(d));
      if (callee == "min" || callee == "max") a.push_back(static_expr(d));
      auto e = node(ExprKind::Call, std::move(a));
      e->name = callee;
      return e;
    }
    case 3: {  // shape literal
      std::vector<ExprPtr> a;
      int n = pick(0, 3);
      for (int q = 0; q < n; ++q) a.push_back(static_expr(d));
      return node(ExprKind::Array, std::move(a));
    }
    case 4: {  // s[k]
      std::vector<ExprPtr> a;
      a.push_back(rml::mk_var(ident()));
      a.push_back(static_expr(d));
      return node(ExprKind::Index, std::move(a));
    }
    default: return rml::mk_int(pick(0, 64));
  }
}

// Lustre arrays T^n^m around a type, sometimes (sizes of any static form: the printer
// parenthesises what a prefix expression would not read).
rml::TypeSyntax lustre_arrays(rml::TypeSyntax t) {
  int n = chance(80) ? 0 : pick(1, 2);
  for (int q = 0; q < n; ++q) {
    rml::TypeSyntax a;
    a.kind = rml::TypeSyntax::Array;
    rml::DimSyntax dim;
    dim.expr = static_expr(2);
    a.dims.push_back(std::move(dim));
    a.elem.push_back(std::move(t));
    t = std::move(a);
  }
  return t;
}

rml::TypeSyntax type_syntax(bool allow_tyvar = true) {
  rml::TypeSyntax t;
  int k = pick(0, 9);
  if (allow_tyvar && k == 0) {
    t.kind = rml::TypeSyntax::TyVar;
    t.tyvar = "'" + pick_of<std::string>({"a", "b", "elem", "t1", "shape", "do"});
    return t;
  }
  if (k == 1) {
    t.kind = rml::TypeSyntax::Shape;
    return t;
  }
  if (k == 2 && chance(50)) {  // a declared type's name (Lustre `type T = ...`)
    t.kind = rml::TypeSyntax::Named;
    t.name = type_name();
    return lustre_arrays(std::move(t));
  }
  if (k == 4 && chance(30)) {  // Kind 2's group type [T1, T2]
    t.kind = rml::TypeSyntax::Group;
    int n = pick(1, 3);
    for (int q = 0; q < n; ++q) t.elem.push_back(type_syntax(false));
    return lustre_arrays(std::move(t));
  }
  if (k == 3 && chance(30)) {  // subrange [lo, hi] of int
    t.kind = rml::TypeSyntax::Tensor;
    t.scalar = rml::Scalar::Int;
    t.subrange = true;
    if (chance(80)) t.range_lo = static_expr(1);  // else `*` (Kind 2: unbounded)
    if (chance(80)) t.range_hi = static_expr(1);
    return t;
  }
  t.kind = rml::TypeSyntax::Tensor;
  t.scalar = pick_of<rml::Scalar>({rml::Scalar::Int, rml::Scalar::Bool, rml::Scalar::Real});
  int ndims = chance(50) ? 0 : pick(1, 3);
  for (int q = 0; q < ndims; ++q) {
    rml::DimSyntax dim;
    if (chance(25)) {
      dim.splice_var = true;
      dim.var = ident();
    } else {
      dim.expr = static_expr(2);
    }
    t.dims.push_back(std::move(dim));
  }
  return lustre_arrays(std::move(t));
}

std::vector<rml::ClockSyntax> clocks() {
  std::vector<rml::ClockSyntax> ck;
  int n = chance(70) ? 0 : pick(1, 2);
  for (int q = 0; q < n; ++q) {
    rml::ClockSyntax c;
    c.positive = chance(50);
    c.var = var_ident();
    if (chance(20)) c.ctor = var_ident();  // `when C(k)`, on a value of an enumeration
    ck.push_back(std::move(c));
  }
  return ck;
}

// A parameter (node input/output, fun parameter). Untyped names are allowed (the parser
// keeps a name untyped when a ';' ends its group); static parameters are `const` and of
// type int or shape (or untyped).
rml::VarDecl param(bool allow_const, int untyped_percent) {
  rml::VarDecl v;
  v.name = var_ident();
  if (allow_const && chance(15)) {
    v.is_const = true;
    if (!chance(untyped_percent)) {
      rml::TypeSyntax t;
      if (chance(50)) {
        t.kind = rml::TypeSyntax::Shape;
      } else {
        t.kind = rml::TypeSyntax::Tensor;
        t.scalar = rml::Scalar::Int;
      }
      v.type = std::move(t);
    }
    return v;
  }
  if (!chance(untyped_percent)) {
    v.type = type_syntax();
    v.clock = clocks();
  }
  return v;
}

rml::VarDecl local() {  // `var` declarations always carry a type
  rml::VarDecl v;
  v.name = var_ident();
  v.type = type_syntax();
  v.clock = clocks();
  return v;
}

rml::NodeDecl node_decl(int depth) {
  rml::NodeDecl n;
  n.name = ident();
  n.is_function = chance(25);
  n.lustre_style = chance(50);
  n.has_let = chance(50);
  n.fun_keyword = n.is_function && n.lustre_style && chance(30);  // Heptagon's `fun ... returns`
  int ni = pick(0, 4), no = pick(0, 3), nl = chance(50) ? 0 : pick(1, 3);
  for (int q = 0; q < ni; ++q) n.inputs.push_back(param(true, 10));
  if (chance(15)) {  // Lustre static parameters <<const n: int; b: bool>>
    int ns = pick(1, 2);
    for (int q = 0; q < ns; ++q) {
      rml::VarDecl v;
      v.name = var_ident();
      v.is_const = chance(50);
      rml::TypeSyntax t;
      t.scalar = pick_of<rml::Scalar>({rml::Scalar::Int, rml::Scalar::Bool, rml::Scalar::Real});
      v.type = std::move(t);
      n.statics.push_back(std::move(v));
    }
  }
  for (int q = 0; q < no; ++q) n.outputs.push_back(param(false, 10));
  for (int q = 0; q < nl; ++q) n.locals.push_back(local());
  std::vector<std::string> defined;
  for (auto &v : n.outputs) defined.push_back(v.name);
  for (auto &v : n.locals) defined.push_back(v.name);
  int ne = pick(0, 4);
  for (int q = 0; q < ne; ++q) {
    rml::Equation eq;
    int nlhs = chance(60) ? 1 : pick(2, 3);
    for (int w = 0; w < nlhs; ++w) {
      std::string name;
      if (chance(15)) name = "_";
      else if (!defined.empty() && chance(70)) name = pick_of(defined);
      else name = var_ident();
      eq.lhs.push_back(rml::LhsItem{name, {}});
    }
    if (nlhs > 1 && chance(50)) {  // a tuple: only ever the whole right-hand side
      std::vector<ExprPtr> a;
      for (int w = 0; w < nlhs; ++w) a.push_back(expr(Layer::Stream, depth - 1));
      eq.rhs = node(ExprKind::Tuple, std::move(a));
    } else {
      eq.rhs = expr(Layer::Stream, depth);
    }
    n.equations.push_back(std::move(eq));
  }
  if (!n.equations.empty() && chance(15)) {  // Vélus/Heptagon `reset eq; ... every c;` around some of them
    size_t a = static_cast<size_t>(pick(0, static_cast<int>(n.equations.size()) - 1));
    size_t b = static_cast<size_t>(pick(static_cast<int>(a), static_cast<int>(n.equations.size()) - 1));
    for (size_t k = a; k <= b; ++k) n.equations[k].block = 0;
    rml::ResetBlock blk;
    blk.cond = expr(Layer::Stream, depth - 1);
    n.resets.push_back(std::move(blk));
  }
  if (n.statics.empty() && chance(8)) {  // an imported node: its header alone
    n.imported = true;
    n.import_keyword = pick_of<std::string>({"", "imported", "extern", "unsafe extern", "val"});
    if (n.import_keyword.empty()) n.lustre_style = true;  // rml's `->` header alone is an empty node
    n.has_let = false;
    n.locals.clear();
    n.equations.clear();
    n.resets.clear();
    return n;
  }
  // Statements that are not equations: Lustre's `assert e;`, properties, assumptions.
  int ns = chance(70) ? 0 : pick(1, 2);
  for (int q = 0; q < ns; ++q) {
    rml::Assumption a;
    a.cond = expr(Layer::Stream, depth - 1);
    switch (pick(0, 3)) {
      case 0: a.keyword = "assert"; break;
      case 1:
        a.property = true;
        a.keyword = chance(50) ? "check" : "guarantee";
        if (chance(50))  // a name, unique in the node: text that looks like code or comments, non-ASCII
          a.name = pick_of<std::string>({"P", "a b", "x/y", "it's", "-- c", "(* *)", "\xc3\xa9t\xc3\xa9", ";", "check"}) +
                   std::to_string(q);
        break;
      case 2: break;
      default:
        a.eventually = true;
        if (chance(70)) a.within = pick(1, 50);
    }
    n.assumptions.push_back(std::move(a));
  }
  return n;
}

rml::FunDecl fun_decl(int depth) {
  rml::FunDecl f;
  f.name = ident();
  int np = pick(0, 3);
  for (int q = 0; q < np; ++q) f.params.push_back(param(true, 10));
  f.result = type_syntax();
  f.body = expr(Layer::Fun, depth);
  return f;
}

rml::ConstDecl const_decl() {
  rml::ConstDecl c;
  c.name = ident();
  if (chance(60)) c.type = type_syntax(false);
  if (c.type && chance(15)) return c;  // a free constant `const c: t;`
  c.value = chance(70) ? static_expr(3) : expr(Layer::Fun, 2);
  return c;
}

// Effective depth: grows with RapidCheck's size parameter (0..100 by default), so early
// cases are small and later ones reach the requested depth.
rc::Gen<int> scaledDepth(int depth) {
  return rc::gen::withSize([depth](int size) {
    int cap = std::clamp(1 + size / 12, 1, std::max(depth, 1));
    return rc::gen::resize(rc::kNominalSize, rc::gen::inRange(cap / 2, cap + 1));
  });
}


// ---- structural shrinking ----
// RapidCheck's own shrinking of rc::gen::exec replays the recorded picks, which does not
// follow the tree well. These extra shrinks hoist a subtree into its parent's place (root
// first, so big reductions come first) and simplify leaves, always keeping the AST
// well-formed: a Lambda is never hoisted out of its build/gather/scatter call.

bool hoistable(const Expr &e) { return e.kind != ExprKind::Lambda && e.kind != ExprKind::Tuple; }

ExprPtr simple_leaf(const Expr &e) {
  switch (e.kind) {
    case ExprKind::IntLit: return e.ival != 0 ? rml::mk_int(0) : nullptr;
    case ExprKind::RealLit: return e.rval != 0.0 ? rml::mk_real(0.0) : nullptr;
    case ExprKind::BoolLit: return e.bval ? rml::mk_bool(false) : nullptr;
    case ExprKind::Var: return e.name != "x" ? rml::mk_var("x") : nullptr;
    default: return nullptr;
  }
}

// Copies of `e` with the subtree at pre-order position `target` replaced; the returned
// vector holds every such single-step reduction of the whole tree.
void reductions_at(const Expr &root, std::vector<ExprPtr> &out) {
  // Collect nodes in pre-order with their replacement candidates.
  std::vector<const Expr *> nodes;
  std::vector<const Expr *> stack = {&root};
  while (!stack.empty()) {
    const Expr *n = stack.back();
    stack.pop_back();
    nodes.push_back(n);
    for (auto it = n->args.rbegin(); it != n->args.rend(); ++it) stack.push_back(it->get());
  }
  struct Rebuild {
    const Expr *target;
    const Expr *repl;  // may be null: use `leaf`
    const ExprPtr *leaf;
    ExprPtr go(const Expr &e) const {
      if (&e == target) return repl ? rebuild_copy(*repl) : (*leaf)->clone();
      auto c = std::make_unique<Expr>(e.kind);
      c->op = e.op;
      c->positive = e.positive;
      c->bval = e.bval;
      c->ival = e.ival;
      c->rval = e.rval;
      c->name = e.name;
      c->binders = e.binders;
      c->statics = e.statics;
      uint32_t h = 0;
      for (auto &a : e.args) {
        c->args.push_back(go(*a));
        h = std::max(h, c->args.back()->height);
      }
      c->height = h + 1;
      return c;
    }
    static ExprPtr rebuild_copy(const Expr &e) { return e.clone(); }
  };
  for (const Expr *n : nodes) {
    // Removing elements of variable-length lists (calls, arrays, index lists).
    bool lambda_call = n->kind == ExprKind::Call && !n->args.empty() && n->args.back()->kind == ExprKind::Lambda;
    if ((n->kind == ExprKind::Call && !lambda_call) || n->kind == ExprKind::Array ||
        (n->kind == ExprKind::Index && n->args.size() > 2)) {
      size_t first = n->kind == ExprKind::Index ? 1 : 0;
      for (size_t k = first; k < n->args.size(); ++k) {
        auto copy = n->clone();
        copy->args.erase(copy->args.begin() + static_cast<std::ptrdiff_t>(k));
        if (k < copy->statics && --copy->statics == 0) copy->binders.clear();  // a static argument removed
        Rebuild rb{n, nullptr, &copy};
        out.push_back(rb.go(root));
      }
    }
    for (auto &a : n->args) {
      if (!hoistable(*a)) {
        if (a->kind == ExprKind::Lambda && hoistable(*a->args[0])) {
          Rebuild rb{n, a->args[0].get(), nullptr};
          out.push_back(rb.go(root));
        }
        continue;
      }
      Rebuild rb{n, a.get(), nullptr};
      out.push_back(rb.go(root));
    }
    if (auto l = simple_leaf(*n)) {
      Rebuild rb{n, nullptr, &l};
      out.push_back(rb.go(root));
    }
  }
}

// All single-step reductions.
void reductions(const Expr &root, std::vector<ExprPtr> &out) { reductions_at(root, out); }

rc::Seq<GenExpr> shrink_expr(const GenExpr &g) {
  std::vector<ExprPtr> cands;
  reductions(*g.e, cands);
  std::vector<GenExpr> v;
  for (auto &c : cands) v.push_back(GenExpr{std::shared_ptr<const Expr>(std::move(c))});
  return rc::seq::fromContainer(std::move(v));
}

rc::Seq<GenProgram> shrink_program(const GenProgram &g) {
  const rml::Program &p = *g.p;
  std::vector<GenProgram> v;
  auto emit = [&](rml::Program q) { v.push_back(GenProgram{std::make_shared<const rml::Program>(std::move(q))}); };
  // Drop a whole declaration.
  for (size_t i = 0; i < p.decls.size(); ++i) {
    auto q = program_clone(p);
    q.decls.erase(q.decls.begin() + static_cast<std::ptrdiff_t>(i));
    emit(std::move(q));
  }
  for (size_t i = 0; i < p.decls.size(); ++i) {
    if (auto *n = std::get_if<rml::NodeDecl>(&p.decls[i])) {
      auto drop = [&](std::vector<rml::VarDecl> rml::NodeDecl::*field) {
        for (size_t k = 0; k < (n->*field).size(); ++k) {
          auto q = program_clone(p);
          auto &m = std::get<rml::NodeDecl>(q.decls[i]);
          (m.*field).erase((m.*field).begin() + static_cast<std::ptrdiff_t>(k));
          emit(std::move(q));
        }
      };
      for (size_t k = 0; k < n->equations.size(); ++k) {
        auto q = program_clone(p);
        auto &m = std::get<rml::NodeDecl>(q.decls[i]);
        m.equations.erase(m.equations.begin() + static_cast<std::ptrdiff_t>(k));
        emit(std::move(q));
      }
      drop(&rml::NodeDecl::inputs);
      drop(&rml::NodeDecl::outputs);
      drop(&rml::NodeDecl::locals);
      for (size_t k = 0; k < n->equations.size(); ++k) {
        const Expr &rhs = *n->equations[k].rhs;
        std::vector<ExprPtr> cands;
        if (rhs.kind == ExprKind::Tuple) {
          for (auto &a : rhs.args) cands.push_back(a->clone());
          // Shrink inside one tuple element at a time.
          for (size_t w = 0; w < rhs.args.size(); ++w) {
            std::vector<ExprPtr> sub;
            reductions(*rhs.args[w], sub);
            for (auto &s : sub) {
              auto t = rhs.clone();
              t->args[w] = std::move(s);
              cands.push_back(std::move(t));
            }
          }
        } else {
          reductions(rhs, cands);
        }
        for (auto &c : cands) {
          auto q = program_clone(p);
          std::get<rml::NodeDecl>(q.decls[i]).equations[k].rhs = std::move(c);
          emit(std::move(q));
        }
      }
    } else if (auto *f = std::get_if<rml::FunDecl>(&p.decls[i])) {
      for (size_t k = 0; k < f->params.size(); ++k) {
        auto q = program_clone(p);
        auto &m = std::get<rml::FunDecl>(q.decls[i]);
        m.params.erase(m.params.begin() + static_cast<std::ptrdiff_t>(k));
        emit(std::move(q));
      }
      std::vector<ExprPtr> cands;
      reductions(*f->body, cands);
      for (auto &c : cands) {
        auto q = program_clone(p);
        std::get<rml::FunDecl>(q.decls[i]).body = std::move(c);
        emit(std::move(q));
      }
    } else if (std::holds_alternative<rml::TypeDecl>(p.decls[i])) {
      // removed whole, above
    } else {
      auto &c = std::get<rml::ConstDecl>(p.decls[i]);
      std::vector<ExprPtr> cands;
      if (c.value) reductions(*c.value, cands);
      for (auto &e : cands) {
        auto q = program_clone(p);
        std::get<rml::ConstDecl>(q.decls[i]).value = std::move(e);
        emit(std::move(q));
      }
    }
  }
  return rc::seq::fromContainer(std::move(v));
}

}  // namespace

rml::Program program_clone(const rml::Program &p) {
  rml::Program q;
  for (auto &d : p.decls) q.decls.push_back(rml::clone_decl(d));
  return q;
}

rc::Gen<std::string> genIdent() {
  return rc::gen::exec([] { return ident(); });
}

rc::Gen<GenExpr> genExpr(int depth) { return genExpr(Layer::Any, depth); }

rc::Gen<GenExpr> genExpr(Layer layer, int depth) {
  return rc::gen::shrink(rc::gen::exec([layer, depth] {
                           int d = *scaledDepth(depth);
                           return GenExpr{std::shared_ptr<const Expr>(expr(layer, d))};
                         }),
                         [](const GenExpr &g) { return shrink_expr(g); });
}

rc::Gen<GenExpr> genStaticExpr(int depth) {
  return rc::gen::exec([depth] { return GenExpr{std::shared_ptr<const Expr>(static_expr(depth))}; });
}

rc::Gen<std::shared_ptr<const rml::TypeSyntax>> genType() {
  return rc::gen::exec([] { return std::make_shared<const rml::TypeSyntax>(type_syntax()); });
}

// `type T = t;`, `type T = enum { A, B };`, Heptagon's `type T = A | B;`.
rml::TypeDecl type_decl() {
  rml::TypeDecl t;
  t.name = type_name();
  switch (pick(0, 2)) {
    case 0: t.alias = type_syntax(false); break;
    default: {
      t.is_enum = true;
      t.bar_syntax = chance(50);
      int n = t.bar_syntax ? pick(2, 4) : pick(1, 4);
      for (int q = 0; q < n; ++q) t.ctors.push_back(ident());
      t.ctor_spans.resize(t.ctors.size());
    }
  }
  return t;
}

rc::Gen<GenProgram> genProgram() {
  auto gen = rc::gen::exec([] {
    int depth = *scaledDepth(5);
    auto p = std::make_shared<rml::Program>();
    int nd = pick(0, 6);
    for (int q = 0; q < nd; ++q) {
      int k = pick(0, 10);
      if (k == 10) p->decls.emplace_back(type_decl());
      else if (k < 2) p->decls.emplace_back(const_decl());
      else if (k < 7) p->decls.emplace_back(node_decl(depth));
      else p->decls.emplace_back(fun_decl(depth));
    }
    return GenProgram{std::shared_ptr<const rml::Program>(std::move(p))};
  });
  return rc::gen::shrink(std::move(gen), [](const GenProgram &g) { return shrink_program(g); });
}

rc::Gen<GenCommented> genCommentedProgram() {
  // Not shrunk: shrinking the program and the insertions together explores too many
  // candidates (minutes); a counterexample is shown whole, with the formatter's output.
  return rc::gen::noShrink(rc::gen::mapcat(genProgram(), [](GenProgram g) {
    return rc::gen::exec([g] {
      const std::string printed = rml::print_program(*g.p);
      rml::SourceFile file("<gen>", printed);
      rml::Diagnostics diags;
      const std::vector<rml::Token> toks = rml::lex(file, diags);
      // Comment bodies: headers the tools read, text that looks like code, comment
      // delimiters of the other styles, non-ASCII.
      static const std::vector<std::string> bodies = {
          "main: f", "expect: ok", "x = 1; tel", "node g() -> ()", "*", "/ * -- //", "(* *)",
          "'a", "\xc3\xa9t\xc3\xa9", "", "  spaced  ", "a -> b", "TODO: check"};
      int next_tag = 0;
      auto body = [&] { return "c" + std::to_string(++next_tag) + " " + pick_of(bodies); };
      auto block_body = [&] {  // no "*/" inside /* */
        std::string b = body();
        for (size_t k; (k = b.find("*/")) != std::string::npos;) b.replace(k, 2, "* /");
        return b;
      };
      int percent = pick(0, 40);  // density of insertions
      std::string out;
      uint32_t copied = 0;
      auto boundary = [&](uint32_t at) {  // `at` is at the start of white space (or the end)
        out.append(printed, copied, at - copied);
        copied = at;
        while (chance(percent)) {
          switch (pick(0, 7)) {
            case 0: out += " // " + body() + "\n"; break;
            case 1: out += " -- " + body() + "\n"; break;
            case 2: out += " /* " + block_body() + " */"; break;
            case 3: out += " (* " + body() + " (* nested *) *)"; break;
            case 4: out += "\n/* " + block_body() + "\n   second line */\n"; break;
            case 5: out += "\n// " + body() + "\n"; break;
            case 6: out += "\n\n"; break;
            default: out += "\n\n\n  "; break;
          }
        }
      };
      boundary(0);
      for (size_t k = 0; k + 1 < toks.size(); ++k)
        if (toks[k].span.end < toks[k + 1].span.begin) boundary(toks[k].span.end);
      out.append(printed, copied, std::string::npos);
      if (chance(percent)) out += "// " + body() + "\n";
      if (chance(percent)) out += "/* " + block_body() + " */";
      return GenCommented{g, out, next_tag};
    });
  }));
}

void showValue(const GenCommented &g, std::ostream &os) { os << "\n" << g.text; }

void showValue(const GenExpr &g, std::ostream &os) { os << rml::print_expr(*g.e); }
void showValue(const GenProgram &g, std::ostream &os) { os << "\n" << rml::print_program(*g.p); }

}  // namespace rml::testgen
