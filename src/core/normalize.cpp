#include "core/normalize.hpp"

#include "ops/scalar_ops.hpp"
#include "core/primitives.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <map>
#include <unordered_map>
#include <unordered_set>

#include "core/clocks.hpp"
#include "core/reset.hpp"
#include "syntax/printer.hpp"

namespace rml::core {

const char *prim_name(Prim p) { return info(p).name; }

std::string Literal::str() const {
  switch (type) {
    case Scalar::Int: return std::to_string(i);
    case Scalar::Bool: return b ? "true" : "false";
    case Scalar::Real: {
      char buf[64];
      std::snprintf(buf, sizeof buf, "%.17g", r);
      std::string s = buf;
      if (s.find_first_of(".enia") == std::string::npos) s += ".0";
      return s;
    }
  }
  return "?";
}

// The property as written. An expression's span leaves out its parentheses, so the text
// of `k = (k -> pre k)` would end at the last `k`, and that of `(a) => (b)` would start
// at `a`: the parentheses the slice closes without opening are taken back from the source
// before it, those it opens without closing from the source after it.
std::string property_text(Span s) {
  const std::string &t = s.file->text;
  std::string out = t.substr(s.begin, s.end - s.begin);
  int open = 0, unopened = 0;
  for (char ch : out) {
    if (ch == '(') ++open;
    else if (ch == ')' && open > 0) --open;
    else if (ch == ')') ++unopened;
  }
  for (size_t i = s.begin; unopened > 0 && i-- > 0;) {
    if (t[i] == '(') {
      out.insert(0, t, i, s.begin - i);
      s.begin = static_cast<uint32_t>(i);
      --unopened;
    } else if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r') {
      break;
    }
  }
  for (size_t i = s.end; open > 0 && i < t.size(); ++i) {
    if (t[i] == ')') {
      out.append(t, s.end, i + 1 - s.end);
      s.end = static_cast<uint32_t>(i + 1);
      --open;
    } else if (t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r') {
      break;
    }
  }
  // Parentheses around the whole property are the property's own (`--%PROPERTY (a);`).
  auto is_blank = [](char ch) { return ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r'; };
  for (;;) {
    size_t b = s.begin, e = s.end;
    while (b > 0 && is_blank(t[b - 1])) --b;
    while (e < t.size() && is_blank(t[e])) ++e;
    if (b == 0 || e >= t.size() || t[b - 1] != '(' || t[e] != ')') break;
    out = t.substr(b - 1, e + 1 - (b - 1));
    s.begin = static_cast<uint32_t>(b - 1), s.end = static_cast<uint32_t>(e + 1);
  }
  // One line, as reports print it: a property written over several lines has its line
  // breaks and indentation as single spaces.
  std::string flat;
  for (char ch : out) {
    bool blank = ch == ' ' || ch == '\t' || ch == '\n' || ch == '\r';
    if (!blank) flat += ch;
    else if (!flat.empty() && flat.back() != ' ') flat += ' ';
  }
  return flat;
}

const CoreProperty *property_at(const Program &p, Span span) {
  for (auto &pp : p.properties)
    if (pp.span.file == span.file && pp.span.begin == span.begin && pp.span.end == span.end) return &pp;
  return nullptr;
}

bool can_be_main(const CheckedProgram &cp, const std::string &node) {
  auto it = cp.sigs.find(node);
  if (it == cp.sigs.end() || !it->second.is_node || !it->second.ok || it->second.imported) return false;
  const Signature &s = it->second;
  for (auto &p : s.inputs)
    if (p.is_const) return false;
  return s.size_vars.empty() && s.shape_vars.empty() && s.tyvars.empty();
}

namespace {

// A lower bound on the equations elaborating a node emits: one per equation of its body
// that calls no node and defines a variable, plus each node instance's own
// bound. Checked before elaborating, so a program whose instances multiply past the limit
// (n(k) = n(k-1) + n(k-1), forty levels deep) is refused at once, not after building a
// million equations. Saturates just past the limit; nodes are not recursive (sema).
struct EquationFloor {
  const CheckedProgram &cp;
  std::map<std::string, uint64_t> memo;

  uint64_t calls(const Expr &e, uint64_t acc) {
    if (acc > kMaxEquations) return acc;
    if (e.kind == ExprKind::Call) {
      auto it = cp.sigs.find(e.name);
      if (it != cp.sigs.end() && it->second.is_node) acc += of(e.name);
    }
    for (auto &a : e.args) acc = calls(*a, acc);
    return acc;
  }
  uint64_t of(const std::string &node) {
    if (auto it = memo.find(node); it != memo.end()) return it->second;
    memo[node] = 0;  // a cycle (reported by sema) counts nothing
    const Decl *d = cp.find(node);
    uint64_t n = 0;
    if (d && std::holds_alternative<NodeDecl>(*d))
      for (auto &eq : std::get<NodeDecl>(*d).equations) {
        uint64_t inner = calls(*eq.rhs, 0);
        bool defines = std::any_of(eq.lhs.begin(), eq.lhs.end(), [](const LhsItem &l) { return l.name != "_"; });
        n += inner > 0 ? inner : defines ? 1 : 0;
        if (n > kMaxEquations) break;
      }
    return memo[node] = std::min<uint64_t>(n, kMaxEquations + 1);
  }
};

// Composition: values of `inner` (in the caller's symbols) mapped through `outer`.
TypeSubst compose(const TypeSubst &inner, const TypeSubst &outer) {
  TypeSubst r;
  for (auto &[k, v] : inner.statics.sizes) r.statics.sizes[k] = outer.statics.apply(v);
  for (auto &[k, v] : inner.statics.shapes) r.statics.shapes[k] = outer.statics.apply(v);
  for (auto &[k, v] : inner.tyvars) r.tyvars[k] = outer.apply(v);
  return r;
}

bool concrete(const Type &t) {
  if (t.kind == Type::Tuple) {
    for (auto &e : t.elems)
      if (!concrete(e)) return false;
    return true;
  }
  return t.kind == Type::Tensor && shape_concrete(t.shape);
}

struct Elaborator {
  const CheckedProgram &cp;
  Program out;
  std::map<std::string, int> instance_count;
  int temp_count = 0;
  int depth = 0;

  struct Frame {
    const NodeDecl *node;
    int instance = 0;
    std::string prefix;                        // "" for main, "dense$1." inside an instance
    TypeSubst subst;                           // callee symbols -> concrete values
    std::map<std::string, std::string> rename; // source name -> elaborated name
  };

  explicit Elaborator(const CheckedProgram &c) : cp(c) {}

  std::string fresh(const Frame &f) { return f.prefix + "$" + std::to_string(++temp_count); }

  Type concrete_type(const Expr &e, const Frame &f) {
    auto it = cp.expr_types.find(&e);
    if (it == cp.expr_types.end()) throw ElabError{e.span, "internal: expression has no type"};
    Type t = f.subst.apply(it->second);
    if (!concrete(t)) throw ElabError{e.span, "the type " + type_str(t) + " is not concrete after instantiation"};
    return t;
  }

  std::string emit(Equation eq, const Frame &f, std::optional<std::string> dest) {
    if (out.equations.size() >= kMaxEquations)
      throw ElabError{eq.span, "the elaborated program exceeds " + std::to_string(kMaxEquations) +
                                   " equations (node instances multiply: each instance is a copy of the node's body)"};
    eq.lhs = dest ? *dest : fresh(f);
    eq.instance = f.instance;
    if (!dest) out.locals.push_back(Var{eq.lhs, eq.type});
    std::string name = eq.lhs;
    out.equations.push_back(std::move(eq));
    return name;
  }

  Equation base(const Expr &e, const Frame &f, Prim p) {
    Equation eq;
    eq.prim = p;
    eq.span = e.span;
    if (p != Prim::Apply || e.kind != ExprKind::Tuple) eq.type = concrete_type(e, f);
    return eq;
  }

  StaticValue concrete_static(const Expr &a, const Frame &f) {
    auto it = cp.static_args.find(&a);
    if (it == cp.static_args.end()) throw ElabError{a.span, "internal: static argument was not evaluated"};
    StaticValue v = it->second;
    if (v.kind == StaticValue::Int) v.size = f.subst.statics.apply(v.size);
    else v.shape = f.subst.statics.apply(v.shape);
    return v;
  }

  // Returns the variables holding the expression's value(s).
  std::vector<std::string> expr(const Expr &e, Frame &f, const std::vector<std::optional<std::string>> &dests) {
    auto dest = [&](size_t k) { return k < dests.size() ? dests[k] : std::nullopt; };
    auto one = [&](const Expr &a) { return expr(a, f, {}).at(0); };
    if (auto sv = cp.static_args.find(&e); sv != cp.static_args.end() && sv->second.kind == StaticValue::Int) {
      // A static int used as a value (`rank(s)`, `s[k]`): a constant.
      Poly v = f.subst.statics.apply(sv->second.size);
      if (!v.is_const()) throw ElabError{e.span, "the static value " + v.str() + " is not concrete"};
      Equation eq = base(e, f, Prim::Const);
      eq.lit.type = Scalar::Int;
      eq.lit.i = v.const_value();
      return {emit(std::move(eq), f, dest(0))};
    }
    switch (e.kind) {
      case ExprKind::IntLit:
      case ExprKind::RealLit:
      case ExprKind::BoolLit: {
        Equation eq = base(e, f, Prim::Const);
        eq.lit.type = e.kind == ExprKind::IntLit ? Scalar::Int : e.kind == ExprKind::RealLit ? Scalar::Real : Scalar::Bool;
        eq.lit.i = e.ival;
        eq.lit.r = e.rval;
        eq.lit.b = e.bval;
        return {emit(std::move(eq), f, dest(0))};
      }
      case ExprKind::Var: {
        auto r = f.rename.find(e.name);
        std::string src;
        if (r != f.rename.end()) {
          src = r->second;
        } else {
          // A static name (parameter, implicit size, global constant) used as a value.
          std::optional<Poly> v;
          if (auto it = f.subst.statics.sizes.find(e.name); it != f.subst.statics.sizes.end()) v = it->second;
          else if (auto c = cp.static_consts.find(e.name); c != cp.static_consts.end() && c->second.kind == StaticValue::Int)
            v = c->second.size;
          if (auto c = cp.enum_ctors.find(e.name); !v && c != cp.enum_ctors.end()) {
            // A constructor of an enumeration: its index, of the enumeration's type.
            Equation eq = base(e, f, Prim::Const);
            eq.lit.type = Scalar::Int;
            eq.lit.i = c->second.second;
            return {emit(std::move(eq), f, dest(0))};
          }
          if (!v && cp.value_consts.count(e.name)) {
            // A real or bool constant (`const L: real = 2.5;`): its expression, elaborated
            // where it is used, in a frame of its own (it names constants only: a local of
            // this node with the name of one of them must not capture it).
            const Decl *d = cp.find(e.name);
            if (!d || !std::holds_alternative<ConstDecl>(*d)) throw ElabError{e.span, "internal: no constant '" + e.name + "'"};
            if (++depth > 200) throw ElabError{e.span, "constants defined in terms of each other deeper than 200 levels"};
            Frame g;
            g.node = f.node;
            g.instance = f.instance;
            g.prefix = f.prefix;
            std::vector<std::string> held = expr(*std::get<ConstDecl>(*d).value, g, {dest(0)});
            --depth;
            return held;
          }
          if (!v || !v->is_const()) throw ElabError{e.span, "cannot elaborate the name '" + e.name + "' to a value"};
          Equation eq = base(e, f, Prim::Const);
          eq.lit.type = Scalar::Int;
          eq.lit.i = v->const_value();
          return {emit(std::move(eq), f, dest(0))};
        }
        if (!dest(0)) return {src};
        Equation eq = base(e, f, Prim::Copy);
        eq.args = {src};
        return {emit(std::move(eq), f, dest(0))};
      }
      case ExprKind::Unary: {
        Prim p = e.op == Op::Pre ? Prim::Pre : e.op == Op::Post ? Prim::Post : Prim::Apply;
        std::string a = one(*e.args[0]);
        Equation eq = base(e, f, p);
        if (p == Prim::Apply && eq.type.machine) return {machine_unary(e.op, a, eq.type, e.span, f, dest(0))};
        if (p == Prim::Apply) {
          auto u = ops::find_unary(op_spelling(e.op));
          if (!u) throw ElabError{e.span, std::string("internal: no unary operator '") + op_spelling(e.op) + "'"};
          eq.op = ApplyOp::Unary;
          eq.un = *u;
        }
        eq.args = {a};
        return {emit(std::move(eq), f, dest(0))};
      }
      case ExprKind::Binary: {
        Prim p = e.op == Op::Fby ? Prim::Fby : e.op == Op::Arrow ? Prim::Arrow : Prim::Apply;
        std::string a = one(*e.args[0]), b = one(*e.args[1]);
        Equation eq = base(e, f, p);
        if (p == Prim::Apply && eq.type.machine) return {machine_binary(e.op, a, b, eq.type, e.span, f, dest(0))};
        if (p == Prim::Apply) {
          auto o = ops::find_binary(op_spelling(e.op));
          if (!o) throw ElabError{e.span, std::string("internal: no binary operator '") + op_spelling(e.op) + "'"};
          eq.op = ApplyOp::Binary;
          eq.bin = *o;
        }
        eq.args = {a, b};
        return {emit(std::move(eq), f, dest(0))};
      }
      case ExprKind::When: {
        std::string a = one(*e.args[0]), c = one(*e.args[1]);
        Equation eq = base(e, f, Prim::When);
        eq.args = {a, c};
        eq.positive = e.positive;
        return {emit(std::move(eq), f, dest(0))};
      }
      case ExprKind::Merge: {
        std::string c = one(*e.args[0]), a = one(*e.args[1]), b = one(*e.args[2]);
        Equation eq = base(e, f, Prim::Merge);
        eq.args = {c, a, b};
        return {emit(std::move(eq), f, dest(0))};
      }
      case ExprKind::If:
      case ExprKind::Index:
      case ExprKind::Array: {
        Equation eq = base(e, f, Prim::Apply);
        eq.op = e.kind == ExprKind::If ? ApplyOp::If : e.kind == ExprKind::Index ? ApplyOp::Index : ApplyOp::Array;
        for (auto &a : e.args) eq.args.push_back(one(*a));
        return {emit(std::move(eq), f, dest(0))};
      }
      case ExprKind::Tuple: {
        std::vector<std::string> outs;
        for (size_t k = 0; k < e.args.size(); ++k) outs.push_back(expr(*e.args[k], f, {dest(k)}).at(0));
        return outs;
      }
      case ExprKind::Call: return call(e, f, dests);
      case ExprKind::Reset: {  // the condition first, in the caller; then the restarted instance
        std::string c = one(*e.args[1]);
        return call(*e.args[0], f, dests, Instance{"", -1, {}, c, e.args[1]->span});
      }
      case ExprKind::Let:
      case ExprKind::Lambda: throw ElabError{e.span, "'let' and lambdas belong to 'fun' bodies"};
      case ExprKind::Field:
      case ExprKind::Record:
      case ExprKind::Update: throw ElabError{e.span, "internal: records are flattened before type checking"};
    }
    throw ElabError{e.span, "internal: unknown expression"};
  }

  std::vector<std::string> call(const Expr &e, Frame &f, const std::vector<std::optional<std::string>> &dests,
                                const Instance &reset = {}) {
    auto ci = cp.calls.find(&e);
    if (ci == cp.calls.end()) throw ElabError{e.span, "internal: unresolved call to '" + e.name + "'"};
    const Signature *sig = ci->second.kind == CallInfo::Builtin ? nullptr : &cp.sigs.at(e.name);
    if (!reset.reset.empty() && (!sig || !sig->is_node))
      throw ElabError{e.span, "internal: 'every' on a call that is not a node instance"};
    if (!sig && e.args.size() == 1) {  // conversions to and from machine integers, their abs
      const Type &from = concrete_type(*e.args[0], f);
      std::optional<std::string> d = dests.empty() ? std::nullopt : dests[0];
      if (auto m = MachineInt::of_cast(e.name)) {
        std::string a = expr(*e.args[0], f, {}).at(0);
        Type to = concrete_type(e, f);
        // Kept as it is when every value of the operand's type fits (a wider width, the same
        // signedness); wrapped otherwise.
        if (from.machine && from.machine->bits <= m->bits) return {copy_to(a, to, e.span, f, d)};
        return {wrapped(a, to, e.span, f, d)};
      }
      if (from.machine && e.name == "int") return {copy_to(expr(*e.args[0], f, {}).at(0), concrete_type(e, f), e.span, f, d)};
      if (from.machine && e.name == "abs") {  // |int8 -128| wraps to -128, as 0 - x does
        std::string a = expr(*e.args[0], f, {}).at(0);
        return {machine_unary(Op::Neg, a, from, e.span, f, d, /*abs=*/true)};
      }
    }
    if (!sig || !sig->is_node) {
      // Pointwise application of a fun or builtin.
      Equation eq = base(e, f, Prim::Apply);
      eq.fn = e.name;
      eq.builtin = !sig;
      for (size_t k = 0; k < e.args.size(); ++k) {
        bool is_static = sig ? sig->inputs[k].is_const : builtin_static_arg(e.name, k, e.args.size());
        if (is_static) eq.static_args.push_back(concrete_static(*e.args[k], f));
        else eq.args.push_back(expr(*e.args[k], f, {}).at(0));
      }
      // A builtin of the operator table (`exp(x)`, `max(a, b)`) is its operator; a user
      // or prelude fun is called by name even where it shares a builtin's spelling.
      if (!sig && eq.static_args.empty()) {
        auto u = eq.args.size() == 1 ? ops::find_unary(e.name) : std::nullopt;
        auto o = eq.args.size() == 2 ? ops::find_binary(e.name) : std::nullopt;
        if (u) eq.op = ApplyOp::Unary, eq.un = *u;
        if (o) eq.op = ApplyOp::Binary, eq.bin = *o;
        if (u || o) eq.fn.clear();
      }
      return {emit(std::move(eq), f, dests.empty() ? std::nullopt : dests[0])};
    }
    if (sig->imported) {
      // An imported node: one application per output, on the arguments' variables.
      std::vector<std::string> args;
      for (auto &a : e.args) args.push_back(expr(*a, f, {}).at(0));
      TypeSubst subst = compose(ci->second.subst, f.subst);
      std::vector<std::string> outs;
      for (size_t k = 0; k < sig->outputs.size(); ++k) {
        Equation eq;
        eq.prim = Prim::Apply;
        eq.span = e.span;
        eq.op = ApplyOp::Imported;
        eq.fn = e.name;
        eq.output = static_cast<int>(k);
        eq.imported_node = !sig->is_function;
        eq.args = args;
        eq.type = subst.apply(sig->outputs[k]);
        if (!concrete(eq.type)) throw ElabError{e.span, "the type " + type_str(eq.type) + " is not concrete after instantiation"};
        outs.push_back(emit(std::move(eq), f, k < dests.size() ? dests[k] : std::nullopt));
      }
      // A contract abstracts the imported node: its ghosts and modes are computed on the
      // call's values, its assumptions are the caller's obligations and its guarantees
      // (each already guarded by the assumptions having held: syntax/contracts.cpp) are
      // assumed of the outputs.
      std::map<std::string, std::string> arg_of;
      for (size_t k = 0, a = 0; k < sig->inputs.size(); ++k)
        if (!sig->inputs[k].is_const) arg_of[sig->inputs[k].name] = args.at(a++);
      check_input_ranges(e, *sig, arg_of, subst, f);
      const NodeDecl &callee = std::get<NodeDecl>(*cp.find(e.name));
      if (!callee.assumptions.empty()) {
        Frame g;
        g.node = &callee;
        g.prefix = f.prefix + e.name + "$" + std::to_string(++instance_count[e.name]) + ".";
        g.instance = static_cast<int>(out.instances.size());
        out.instances.push_back(Instance{g.prefix, f.instance, e.span, {}, {}});
        g.subst = subst;
        g.rename = arg_of;
        for (size_t k = 0; k < sig->output_names.size(); ++k) g.rename[sig->output_names[k]] = outs[k];
        body(g);
        bind_callee_assumptions(callee, g, e, true);
      }
      return outs;
    }
    // Node instance: inline its body.
    if (++depth > 200) throw ElabError{e.span, "node instances nested deeper than 200 levels"};
    const NodeDecl &callee = std::get<NodeDecl>(*cp.find(e.name));
    Frame g;
    g.node = &callee;
    g.prefix = f.prefix + e.name + "$" + std::to_string(++instance_count[e.name]) + ".";
    g.instance = static_cast<int>(out.instances.size());
    out.instances.push_back(Instance{g.prefix, f.instance, e.span, reset.reset, reset.reset_span});
    g.subst = compose(ci->second.subst, f.subst);
    for (size_t k = 0; k < e.args.size(); ++k) {
      const Param &p = sig->inputs[k];
      if (p.is_const) continue;
      g.rename[p.name] = expr(*e.args[k], f, {}).at(0);
    }
    std::vector<std::string> outs;
    for (size_t k = 0; k < sig->output_names.size(); ++k) {
      std::optional<std::string> d = k < dests.size() ? dests[k] : std::nullopt;
      std::string name = d ? *d : g.prefix + sig->output_names[k];
      if (!d) out.locals.push_back(Var{name, g.subst.apply(sig->outputs[k])});
      g.rename[sig->output_names[k]] = name;
      outs.push_back(name);
    }
    body(g);
    bind_callee_assumptions(callee, g, e, false);
    check_input_ranges(e, *sig, g.rename, g.subst, g);
    declare_clocks(g);
    --depth;
    return outs;
  }

  // ---- Kind 2's machine integers (semantics/machine_ints.md) ----
  // An operation on machine integers of n bits is computed on rml's 64-bit ints and its
  // result wrapped to n bits. Exact: 2^n divides 2^64, so a sum's or a product's own wrap at
  // 64 bits leaves its low n bits as they are. Division and remainder are SMT-LIB's
  // bit-vector operations (Kind 2's): x div 0 has every bit set, x mod 0 = x.
  std::string int_equation(Equation eq, const Type &type, Span span, const Frame &f, std::optional<std::string> d) {
    eq.span = span;
    eq.type = type;
    eq.wraps = machine_arithmetic_ && eq.prim == Prim::Apply;
    return emit(std::move(eq), f, d);
  }
  std::string int_const(int64_t v, Span span, const Frame &f) {
    Equation eq;
    eq.prim = Prim::Const;
    eq.lit.type = Scalar::Int;
    eq.lit.i = v;
    return int_equation(std::move(eq), Type::scalar(Scalar::Int), span, f, std::nullopt);
  }
  std::string int_binary(ops::BinOp op, std::string a, std::string b, const Type &type, Span span, const Frame &f,
                         std::optional<std::string> d = std::nullopt) {
    Equation eq;
    eq.prim = Prim::Apply;
    eq.op = ApplyOp::Binary;
    eq.bin = op;
    eq.args = {std::move(a), std::move(b)};
    return int_equation(std::move(eq), type, span, f, d);
  }
  std::string if_then_else(std::string c, std::string a, std::string b, const Type &type, Span span, const Frame &f,
                           std::optional<std::string> d) {
    Equation eq;
    eq.prim = Prim::Apply;
    eq.op = ApplyOp::If;
    eq.args = {std::move(c), std::move(a), std::move(b)};
    return int_equation(std::move(eq), type, span, f, d);
  }
  std::string copy_to(std::string a, const Type &type, Span span, const Frame &f, std::optional<std::string> d) {
    if (!d) return a;
    Equation eq;
    eq.prim = Prim::Copy;
    eq.args = {std::move(a)};
    eq.span = span;
    eq.type = type;
    return emit(std::move(eq), f, d);
  }
  // The plain int type of a raw result, before its wrap (its values need not be in range).
  static Type unwrapped(const Type &t) { return Type::tensor(Scalar::Int, t.shape); }
  // x wrapped to the machine type `type` (64-bit signed: x itself).
  std::string wrapped(std::string x, const Type &type, Span span, const Frame &f, std::optional<std::string> d) {
    const MachineInt &m = *type.machine;
    if (m.bits >= 64 && m.is_signed) return copy_to(std::move(x), type, span, f, d);
    return int_binary(m.is_signed ? ops::BinOp::WrapSigned : ops::BinOp::WrapUnsigned, std::move(x), int_const(m.bits, span, f),
                      type, span, f, d);
  }
  // -x, !x (every bit flipped: -1 - x) and, with `abs`, |x|, wrapped.
  // While a machine integer's operation is written: its equations wrap by definition
  // (Equation::wraps).
  bool machine_arithmetic_ = false;
  struct MachineArithmetic {
    bool &on, was;
    explicit MachineArithmetic(bool &b) : on(b), was(b) { on = true; }
    ~MachineArithmetic() { on = was; }
  };
  std::string machine_unary(Op op, const std::string &a, const Type &type, Span span, const Frame &f, std::optional<std::string> d,
                            bool abs = false) {
    MachineArithmetic machine(machine_arithmetic_);
    if (op != Op::Neg && op != Op::BitNot) throw ElabError{span, std::string("internal: no machine operator '") + op_spelling(op) + "'"};
    Type raw = unwrapped(type);
    if (op == Op::BitNot) return wrapped(int_binary(ops::BinOp::Sub, int_const(-1, span, f), a, raw, span, f), type, span, f, d);
    Equation eq;
    eq.prim = Prim::Apply;
    eq.op = ApplyOp::Unary;
    eq.un = abs ? ops::UnOp::Abs : ops::UnOp::Neg;
    eq.args = {a};
    return wrapped(int_equation(std::move(eq), raw, span, f, std::nullopt), type, span, f, d);
  }
  std::string machine_binary(Op op, const std::string &a, const std::string &b, const Type &type, Span span, const Frame &f,
                             std::optional<std::string> d) {
    MachineArithmetic machine(machine_arithmetic_);
    const MachineInt &m = *type.machine;
    Type raw = unwrapped(type), boolean = Type::tensor(Scalar::Bool, type.shape);
    auto is_zero = [&] { return int_binary(ops::BinOp::Eq, b, int_const(0, span, f), boolean, span, f); };
    switch (op) {
      case Op::Add: return wrapped(int_binary(ops::BinOp::Add, a, b, raw, span, f), type, span, f, d);
      case Op::Sub: return wrapped(int_binary(ops::BinOp::Sub, a, b, raw, span, f), type, span, f, d);
      case Op::Mul: return wrapped(int_binary(ops::BinOp::Mul, a, b, raw, span, f), type, span, f, d);
      case Op::Div:
      case Op::IntDiv: {  // bvudiv: x div 0 = 2^n - 1; bvsdiv: x div 0 = 1 for x < 0, -1 otherwise
        std::string q = m.is_signed ? wrapped(int_binary(ops::BinOp::IDiv, a, b, raw, span, f), type, span, f, std::nullopt)
                                    : int_binary(ops::BinOp::IDiv, a, b, type, span, f);
        std::string by_zero =
            m.is_signed ? if_then_else(int_binary(ops::BinOp::Lt, a, int_const(0, span, f), boolean, span, f), int_const(1, span, f),
                                       int_const(-1, span, f), type, span, f, std::nullopt)
                        : int_const(m.hi(), span, f);
        return if_then_else(is_zero(), by_zero, q, type, span, f, d);
      }
      case Op::Mod:  // bvurem, bvsrem: the sign of x (C's %), x mod 0 = x
        return if_then_else(is_zero(), a, int_binary(ops::BinOp::Mod, a, b, type, span, f), type, span, f, d);
      case Op::BitAnd: return int_binary(ops::BinOp::BitAnd, a, b, type, span, f, d);  // in range as they are
      case Op::BitOr: return int_binary(ops::BinOp::BitOr, a, b, type, span, f, d);
      case Op::Lsh:  // a shift of n bits or more leaves no bit of the n-bit value
        return wrapped(int_binary(ops::BinOp::ShiftLeft, a, b, raw, span, f), type, span, f, d);
      case Op::Rsh:  // arithmetic on the signed, logical on the unsigned (never negative)
        return int_binary(ops::BinOp::ShiftRight, a, b, type, span, f, d);
      default: break;  // comparisons and the stream operators are not elaborated here
    }
    throw ElabError{span, std::string("internal: no machine operator '") + op_spelling(op) + "'"};
  }

  // `lo <= x and x <= hi` for a variable of a subrange or enumeration type (its range,
  // INT64_MIN / INT64_MAX standing for an unbounded side `*`); nothing for any other type.
  std::optional<std::string> range_condition(const std::string &name, const Type &type, Span span, const Frame &f) {
    if (!type.range) return std::nullopt;
    auto konst = [&](int64_t v) {
      Equation eq;
      eq.prim = Prim::Const;
      eq.span = span;
      eq.type = Type::scalar(Scalar::Int);
      eq.lit.type = Scalar::Int;
      eq.lit.i = v;
      return emit(std::move(eq), f, std::nullopt);
    };
    auto apply = [&](ops::BinOp op, std::string a, std::string b) {
      Equation eq;
      eq.prim = Prim::Apply;
      eq.op = ApplyOp::Binary;
      eq.bin = op;
      eq.span = span;
      eq.type = Type::scalar(Scalar::Bool);
      eq.args = {std::move(a), std::move(b)};
      return emit(std::move(eq), f, std::nullopt);
    };
    auto [lo, hi] = *type.range;
    std::vector<std::string> conds;
    if (lo != INT64_MIN) conds.push_back(apply(ops::BinOp::Le, konst(lo), name));
    if (hi != INT64_MAX) conds.push_back(apply(ops::BinOp::Le, name, konst(hi)));
    if (conds.empty()) return std::nullopt;
    return conds.size() == 1 ? conds[0] : apply(ops::BinOp::And, conds[0], conds[1]);
  }

  // "a + 1" for "(a + 1)" (an argument's text may come with the call's parentheses), and
  // the text as it is when its first parenthesis does not close at its end.
  static std::string without_outer_parens(std::string t) {
    while (t.size() >= 2 && t.front() == '(' && t.back() == ')') {
      int depth = 0;
      size_t closes = 0;
      for (size_t i = 0; i < t.size(); ++i) {
        depth += t[i] == '(' ? 1 : t[i] == ')' ? -1 : 0;
        if (depth == 0) { closes = i; break; }
      }
      if (closes != t.size() - 1) break;
      t = t.substr(1, t.size() - 2);
      t.erase(0, t.find_first_not_of(" \t\r\n"));
      t.erase(t.find_last_not_of(" \t\r\n") + 1);
    }
    return t;
  }

  // "lo <= TEXT <= hi", a side left out where the range is unbounded.
  static std::string range_text(const std::pair<int64_t, int64_t> &range, const std::string &text) {
    auto [lo, hi] = range;
    return (lo != INT64_MIN ? std::to_string(lo) + " <= " : std::string()) + text +
           (hi != INT64_MAX ? " <= " + std::to_string(hi) : std::string());
  }

  void bind_callee_assumptions(const NodeDecl &callee, Frame &g, const Expr &e, bool abstract) {
    // A Lustre `assert` binds wherever its node runs (Kind 2, Lustre V6): an assumption
    // on the instance's values, on the instance's clock. An `assume always e` (a contract's
    // `assume`) is the caller's obligation (Kind 2's compositional reading): a property
    // of the main node at this call, named after the call's place. Properties of the
    // callee are checked in the callee's own context, and `always eventually` ones are
    // not safety properties: neither binds here (grammar.md §2). An imported node's
    // contract (`abstract`) is what is known of it: its guarantees are assumed here.
    for (auto &a : callee.assumptions) {
      if (a.property && abstract) {  // a guarantee of an imported node's contract
        CoreAssumption ca;
        ca.span = a.span;
        ca.var = expr(*a.cond, g, {}).at(0);
        out.assumptions.push_back(std::move(ca));
        continue;
      }
      if (a.keyword != "assert" && !a.property && !a.eventually) {
        CoreProperty cp_;
        cp_.span = e.span;
        cp_.text = a.cond->span.valid() ? property_text(a.cond->span) : std::string("assumption");
        cp_.name = e.name + place(e.span) + "." + (a.name.empty() ? "assume" + place(a.span) : a.name);
        cp_.var = expr(*a.cond, g, {}).at(0);
        out.properties.push_back(std::move(cp_));
        continue;
      }
      if (a.keyword != "assert") continue;
      CoreAssumption ca;
      ca.span = a.span;
      ca.var = expr(*a.cond, g, {}).at(0);
      out.assumptions.push_back(std::move(ca));
    }
  }

  // An input of a subrange type is the caller's obligation as well (Kind 2 checks an
  // input's type at each call): the argument in the range, a property named
  // `f[l13c7].x:range`. An enumeration's values are kept by typing. `arg_of` maps the
  // callee's inputs to the variables holding the arguments; `at` is the frame they live in.
  void check_input_ranges(const Expr &e, const Signature &sig, const std::map<std::string, std::string> &arg_of,
                          const TypeSubst &subst, const Frame &at) {
    for (size_t k = 0; k < sig.inputs.size(); ++k) {
      const Param &p = sig.inputs[k];
      Type t = subst.apply(p.type);
      if (p.is_const || !t.range || t.ctors || t.machine) continue;  // a machine integer is in range by its wraps
      auto cond = range_condition(arg_of.at(p.name), t, e.span, at);
      if (!cond) continue;
      CoreProperty cp_;
      cp_.span = e.span;
      const bool spelled = k < e.args.size() && e.args[k] && e.args[k]->span.valid();
      cp_.text = range_text(*t.range, spelled ? without_outer_parens(property_text(e.args[k]->span)) : p.name) +
                 " (the range of " + e.name +
                 "'s input " + p.name + ")";
      cp_.name = e.name + place(e.span) + "." + p.name + ":range";
      cp_.var = *cond;
      out.properties.push_back(std::move(cp_));
    }
  }

  // Kind 2's way of naming a place in names: "[l12c5]".
  static std::string place(Span s) {
    if (!s.valid()) return "";
    auto [line, col] = s.file->line_col(s.begin);
    return "[l" + std::to_string(line) + "c" + std::to_string(col) + "]";
  }

  static bool heptagon_source(Span s) {
    const std::string &p = s.valid() ? s.file->path : std::string();
    return p.size() >= 4 && p.compare(p.size() - 4, 4, ".ept") == 0;
  }

  // Records the clocks the node declares on its interface and locals, in elaborated names.
  void declare_clocks(const Frame &f) {
    auto add = [&](const std::vector<VarDecl> &vs) {
      for (auto &v : vs) {
        if (v.is_const) continue;
        auto it = f.rename.find(v.name);
        if (it == f.rename.end()) continue;
        DeclaredClock dc;
        dc.var = it->second;
        dc.instance = f.instance;
        dc.span = v.span;
        dc.inferred = v.clock.empty() && heptagon_source(v.span);
        for (auto &c : v.clock) {
          auto cv = f.rename.find(c.condition());
          if (cv == f.rename.end()) throw ElabError{c.span, "the clock condition '" + c.var + "' is not a variable of this node"};
          dc.on.emplace_back(c.positive, cv->second);
        }
        out.declared.push_back(std::move(dc));
      }
    };
    add(f.node->inputs);
    add(f.node->outputs);
    add(f.node->locals);
  }

  void body(Frame &f) {
    const NodeInfo &info = cp.nodes.at(f.node->name);
    for (auto &[name, vi] : info.vars) {
      if (vi.kind != VarInfo::Local || f.rename.count(name)) continue;
      std::string n = f.prefix + name;
      f.rename[name] = n;
      Type t = f.subst.apply(vi.type);
      if (!concrete(t)) throw ElabError{vi.span, "the type of '" + name + "' is not concrete: " + type_str(t)};
      out.locals.push_back(Var{n, t});
    }
    for (auto &eq : f.node->equations) {
      std::vector<std::optional<std::string>> dests;
      for (auto &item : eq.lhs) {
        if (item.name == "_") dests.push_back(std::nullopt);
        else dests.push_back(f.rename.at(item.name));
      }
      expr(*eq.rhs, f, dests);
    }
  }
};

}  // namespace

Program elaborate(const CheckedProgram &cp, const std::string &main) {
  const Decl *d = cp.find(main);
  if (!d || !std::holds_alternative<NodeDecl>(*d)) throw ElabError{{}, "no node named '" + main + "'"};
  const NodeDecl &n = std::get<NodeDecl>(*d);
  if (n.imported)
    throw ElabError{n.name_span, "'" + main + "' is imported (declared without a body); it cannot be the main node "
                                 "(write a node that calls it)"};
  if (!can_be_main(cp, main))
    throw ElabError{n.name_span, "'" + main + "' has static parameters or type variables; it cannot be the main node "
                                 "(write a node that instantiates it with concrete values)"};
  if (EquationFloor{cp, {}}.of(main) > kMaxEquations)
    throw ElabError{n.name_span, "the elaborated program exceeds " + std::to_string(kMaxEquations) +
                                     " equations (node instances multiply: each instance is a copy of the node's body)"};
  Elaborator el(cp);
  el.out.main = main;
  el.out.instances.push_back(Instance{"", -1, n.name_span, "", {}});
  const Signature &sig = cp.sigs.at(main);
  Elaborator::Frame f;
  f.node = &n;
  for (auto &p : sig.inputs) {
    el.out.inputs.push_back(Var{p.name, p.type});
    f.rename[p.name] = p.name;
  }
  for (size_t k = 0; k < sig.output_names.size(); ++k) {
    el.out.outputs.push_back(Var{sig.output_names[k], sig.outputs[k]});
    f.rename[sig.output_names[k]] = sig.output_names[k];
  }
  el.body(f);
  el.declare_clocks(f);
  // A variable of a subrange or enumeration type keeps its range: for an input, an
  // assumption `lo <= x and x <= hi` (Kind 2 reads subrange inputs so; an enumeration's
  // values are its constructors' indices); for an output of a subrange type, a property
  // of the same form, which the checker must prove (as Kind 2 does).
  auto in_range = [&](const std::string &name, const Type &type, Span span) { return el.range_condition(name, type, span, f); };
  for (size_t k = 0; k < sig.inputs.size() && k < n.inputs.size(); ++k) {
    const Param &p = sig.inputs[k];
    Span span = n.inputs[k].type ? Span::cover(n.inputs[k].span, n.inputs[k].type->span) : n.inputs[k].span;
    auto cond = in_range(p.name, p.type, n.inputs[k].span);
    if (!cond) continue;
    CoreAssumption ca;
    ca.span = span;
    ca.var = *cond;
    el.out.assumptions.push_back(std::move(ca));
  }
  for (size_t k = 0; k < sig.output_names.size() && k < n.outputs.size(); ++k) {
    const Type &t = sig.outputs[k];
    if (t.ctors || t.machine) continue;  // an enumeration, a machine integer: every value it can hold is in range
    auto cond = in_range(sig.output_names[k], t, n.outputs[k].span);
    if (!cond) continue;
    CoreProperty cp_;
    cp_.span = n.outputs[k].type ? Span::cover(n.outputs[k].span, n.outputs[k].type->span) : n.outputs[k].span;
    cp_.text = Elaborator::range_text(*t.range, sig.output_names[k]) + " (the range of its type)";
    cp_.var = *cond;
    el.out.properties.push_back(std::move(cp_));
  }
  for (auto &a : n.assumptions) {
    if (a.property) {
      CoreProperty cp_;
      cp_.span = a.span;
      cp_.text = !a.text.empty() ? a.text : a.cond->span.valid() ? property_text(a.cond->span) : std::string("property");
      cp_.name = a.name;
      cp_.var = el.expr(*a.cond, f, {}).at(0);
      el.out.properties.push_back(std::move(cp_));
      continue;
    }
    CoreAssumption ca;
    ca.eventually = a.eventually;
    ca.within = a.within;
    ca.span = a.span;
    ca.var = el.expr(*a.cond, f, {}).at(0);
    el.out.assumptions.push_back(std::move(ca));
  }
  expand_resets(el.out, el.temp_count);
  return std::move(el.out);
}

std::unordered_map<std::string, std::string> printed_names(const Program &p) {
  std::vector<std::string> all;
  for (auto *vs : {&p.inputs, &p.outputs, &p.locals})
    for (auto &v : *vs) all.push_back(v.name);
  for (auto &eq : p.equations) all.push_back(eq.lhs);
  auto generated = [](const std::string &n) { return n.find_first_of("$.") != std::string::npos; };
  // The user's own names keep their spelling and are taken first.
  std::unordered_set<std::string> taken;
  std::unordered_map<std::string, std::string> out;
  for (auto &n : all)
    if (!generated(n)) taken.insert(n), out[n] = n;
  for (auto &n : all) {
    if (out.count(n)) continue;
    // "movavg$2.x1" -> "movavg_2_x1", "movavg$2.$1" -> "movavg_2_t1", "$4" -> "t4".
    std::string s;
    for (size_t k = 0; k < n.size(); ++k) {
      char ch = n[k];
      if (ch == '.') s += '_';
      else if (ch == '$') s += (k == 0 || n[k - 1] == '.') ? "t" : "_";
      else s += ch;
    }
    while (taken.count(s)) s += '_';
    taken.insert(s);
    out[n] = s;
  }
  return out;
}

bool may_overflow(const Equation &eq) {
  if (eq.prim != Prim::Apply || eq.wraps || eq.type.elem != Scalar::Int) return false;
  return (eq.op == ApplyOp::Unary && ops::may_overflow(eq.un)) || (eq.op == ApplyOp::Binary && ops::may_overflow(eq.bin));
}

std::string apply_name(const Equation &eq) {
  switch (eq.op) {
    case ApplyOp::Unary: {
      const ops::UnaryRow &r = ops::row(eq.un);
      return std::string(r.surface.empty() ? r.name : r.surface);
    }
    case ApplyOp::Binary: return std::string(ops::row(eq.bin).name);
    case ApplyOp::If: return "if";
    case ApplyOp::Index: return "index";
    case ApplyOp::Array: return "array";
    case ApplyOp::Call: return eq.fn;
    case ApplyOp::Imported: return eq.fn;
  }
  return eq.fn;
}

std::string print_rhs(const Equation &eq, const std::function<std::string(const std::string &)> &name) {
  std::string out;
  auto a = [&](size_t k) { return name(eq.args.at(k)); };
  switch (eq.prim) {
    case Prim::Const: out += eq.lit.str(); break;
    case Prim::Copy: out += a(0); break;
    case Prim::When: out += a(0) + (eq.positive ? " when " : " when not ") + a(1); break;
    case Prim::Merge: out += "merge " + a(0) + " " + a(1) + " " + a(2); break;
    case Prim::Fby: out += a(0) + " fby " + a(1); break;
    case Prim::Pre: out += "pre " + a(0); break;
    case Prim::Arrow: out += a(0) + " -> " + a(1); break;
    case Prim::Post: out += "post " + a(0); break;
    case Prim::Apply:
      switch (eq.op) {
        case ApplyOp::Unary:
          if (eq.un == ops::UnOp::Not) out += "not " + a(0);
          else if (eq.un == ops::UnOp::Neg) out += "-" + a(0);
          else out += apply_name(eq) + "(" + a(0) + ")";
          break;
        case ApplyOp::Binary:
          if (ops::row(eq.bin).spelling == ops::Spelling::Operator) out += a(0) + " " + apply_name(eq) + " " + a(1);
          else out += apply_name(eq) + "(" + a(0) + ", " + a(1) + ")";
          break;
        case ApplyOp::If: out += "if " + a(0) + " then " + a(1) + " else " + a(2); break;
        case ApplyOp::Index:
          out += a(0) + "[";
          for (size_t k = 1; k < eq.args.size(); ++k) out += (k > 1 ? ", " : "") + a(k);
          out += "]";
          break;
        case ApplyOp::Array:
          out += "[";
          for (size_t k = 0; k < eq.args.size(); ++k) out += (k ? ", " : "") + a(k);
          out += "]";
          break;
        case ApplyOp::Imported:
          // The first output reads back as the call; a later one as `f(..)#k`, which is not
          // source (a multi-output imported call has no one-value spelling).
          out += eq.fn + "(";
          for (size_t j = 0; j < eq.args.size(); ++j) out += (j ? ", " : "") + a(j);
          out += ")";
          if (eq.output > 0) out += "#" + std::to_string(eq.output);
          break;
        case ApplyOp::Call: {
          out += eq.fn + "(";
          size_t k = 0;
          for (auto &st : eq.static_args) out += (k++ ? ", " : "") + st.str();
          for (size_t j = 0; j < eq.args.size(); ++j) out += (k++ ? ", " : "") + a(j);
          out += ")";
          break;
        }
      }
      break;
  }
  return out;
}

std::string print_core(const Program &p) {
  auto names = printed_names(p);
  auto name = [&](const std::string &n) {
    auto it = names.find(n);
    return it == names.end() ? n : it->second;
  };
  // Clock annotations from clock inference: `x: real when c when not d` (conditions
  // sampled on the base clock are written outermost first).
  Clocks clocks = infer_clocks(p);
  auto clock_ann = [&](const std::string &v) {
    auto it = clocks.of_var.find(v);
    if (it == clocks.of_var.end()) return std::string();
    std::vector<std::string> on;
    for (int t = it->second; t >= 0 && clocks.terms[t].kind == ClockTerm::On; t = clocks.terms[t].parent)
      on.push_back((clocks.terms[t].positive ? " when " : " when not ") + name(clocks.terms[t].cond));
    std::string s;
    for (auto k = on.rbegin(); k != on.rend(); ++k) s += *k;
    return s;
  };
  auto decl = [&](const Var &v) { return name(v.name) + ": " + type_str(v.type) + clock_ann(v.name); };
  std::string out = "node " + p.main + "(";
  auto vars = [&](const std::vector<Var> &vs, const char *sep) {
    std::string s;
    for (size_t i = 0; i < vs.size(); ++i) s += (i ? sep : "") + decl(vs[i]);
    return s;
  };
  out += vars(p.inputs, ", ") + ") -> (" + vars(p.outputs, ", ") + ")\n";
  if (!p.locals.empty()) {
    out += "var\n";
    // In the order of their printed names: the order elaborating the printed node gives
    // (a node's locals come sorted), so that printing is a fixpoint.
    // Each printed name looked up once (not twice per comparison).
    std::vector<std::pair<const std::string *, const Var *>> locals;
    locals.reserve(p.locals.size());
    for (auto &v : p.locals) {
      auto it = names.find(v.name);
      locals.emplace_back(it == names.end() ? &v.name : &it->second, &v);
    }
    std::sort(locals.begin(), locals.end(), [](auto &x, auto &y) { return *x.first < *y.first; });
    for (auto &[printed, v] : locals) out += "  " + decl(*v) + ";\n";
  }
  out += "let\n";
  for (auto &eq : p.equations) out += "  " + name(eq.lhs) + " = " + print_rhs(eq, name) + ";\n";
  out += "tel\n";
  return out;
}

}  // namespace rml::core
