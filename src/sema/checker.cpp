#include "sema/checker.hpp"

#include "sema/suggest.hpp"
#include "ops/ops.hpp"

#include <algorithm>
#include <functional>

namespace rml {

namespace {

// The elementwise builtins come from the operator table (src/ops): kElementwise1 are
// those of one argument whose result has the argument's type (exp, log, ..., abs).
const std::set<std::string> kElementwise1 = [] {
  std::set<std::string> s;
  for (auto &r : ops::kUnary)
    if (r.spelling == ops::Spelling::Builtin && (r.typing == ops::Typing::RealSame || r.typing == ops::Typing::NumericSame))
      s.emplace(r.surface);
  return s;
}();
const std::set<std::string> kBuiltins = [] {
  std::set<std::string> s = {"build", "gather", "scatter", "sumOuter", "sum", "replicate",
                             "tr", "transpose", "reshape", "iota", "rank", "prod"};
  for (auto &r : ops::kUnary)
    if (r.spelling == ops::Spelling::Builtin) s.emplace(r.surface);
  for (auto &r : ops::kBinary)
    if (r.spelling == ops::Spelling::Builtin) s.emplace(r.name);
  return s;
}();

struct NotStatic {
  Span span;
  std::string why;
};
struct StaticEvalError {
  Span span;
  std::string why;
};

// Span of a call's callee name (a call's span starts with its name).
Span callee_span(const Expr &e) {
  Span s = e.span;
  if (s.valid()) s.end = s.begin + static_cast<uint32_t>(e.name.size());
  return s;
}

Span start_span(const Expr &e) {
  // The first token of an expression: for binary expressions, the left operand's start.
  const Expr *p = &e;
  while ((p->kind == ExprKind::Binary || p->kind == ExprKind::When || p->kind == ExprKind::Index) && !p->args.empty())
    p = p->args[0].get();
  if (p->kind == ExprKind::Call) return callee_span(*p);
  return p->span;
}

// Forwards to the real diagnostics, or swallows them during a probe pass.
struct Sink {
  Diagnostics &real;
  bool silent = false;
  void error(const std::string &rule, Span s, std::string m) {
    if (!silent) real.error(rule, s, std::move(m));
  }
  void warning(const std::string &rule, Span s, std::string m) {
    if (!silent) real.warning(rule, s, std::move(m));
  }
  void note(Span s, std::string m) {
    if (!silent) real.note(s, std::move(m));
  }
};

class Checker {
 public:
  Checker(CheckedProgram &cp, Diagnostics &d) : cp_(cp), d_{d} {}

  void run() {
    collect_decls();
    eval_consts();
    for (auto &[name, idx] : cp_.decls) build_signature(name, cp_.program.decls[idx]);
    check_recursion();
    compute_statefulness();
    for (auto &[name, idx] : cp_.decls) {
      const Decl &d = cp_.program.decls[idx];
      if (auto *n = std::get_if<NodeDecl>(&d)) check_node(*n);
      else if (auto *f = std::get_if<FunDecl>(&d)) check_fun(*f);
    }
    zonk_all();
  }

 private:
  CheckedProgram &cp_;
  Sink d_;
  std::vector<std::optional<Type>> metas_;

  // ------------------------------------------------------------------ declarations
  void collect_decls() {
    for (size_t i = 0; i < cp_.program.decls.size(); ++i) {
      const Decl &d = cp_.program.decls[i];
      const std::string &n = decl_name(d);
      auto it = cp_.decls.find(n);
      if (it != cp_.decls.end()) {
        // (A user declaration never meets a prelude one here: isolate_prelude renamed the
        // prelude declarations the user shadows.)
        d_.error("name.duplicate", decl_span(d), "'" + n + "' is already declared");
        d_.note(decl_span(cp_.program.decls[it->second]), "first declared here");
        continue;
      }
      if (is_builtin(n)) {
        d_.error("name.duplicate", decl_span(d), "'" + n + "' is a builtin of the function layer");
        continue;
      }
      cp_.decls[n] = i;
    }
  }
  size_t prelude_count_ = 0;
  size_t prelude_count() const { return prelude_count_; }

  // Scoping of global names (grammar.md §6): a prelude declaration sees only the prelude
  // (and the builtins), never a declaration of the user's file; a user declaration sees
  // both. `in_prelude_` says which kind of declaration is being checked.
  bool in_prelude_ = false;
  bool visible(const std::string &n) const {
    auto it = cp_.decls.find(n);
    return it != cp_.decls.end() && (!in_prelude_ || it->second < prelude_count());
  }
  // Sets in_prelude_ for the declaration at `idx` and restores it on exit.
  struct DeclScope {
    bool &flag;
    bool saved;
    DeclScope(bool &f, bool prelude) : flag(f), saved(f) { flag = prelude; }
    ~DeclScope() { flag = saved; }
    DeclScope(const DeclScope &) = delete;
    DeclScope &operator=(const DeclScope &) = delete;
  };

 public:
  void set_prelude_count(size_t n) { prelude_count_ = n; }

 private:
  // ------------------------------------------------------------------ static evaluation
  struct StaticEnv {
    const std::map<std::string, StaticValue> *params = nullptr;  // static params + implicit vars
    std::function<std::optional<StaticValue>(const std::string &, Span)> local;  // static locals
    const std::vector<std::map<std::string, Type>> *scopes = nullptr;  // dynamic names shadow
    std::map<std::string, StaticValue> *implicit = nullptr;  // signature mode: collects size vars
  };

  std::optional<StaticValue> lookup_static(const std::string &n, Span s, const StaticEnv &env) {
    if (env.scopes)
      for (auto it = env.scopes->rbegin(); it != env.scopes->rend(); ++it)
        if (it->count(n)) return std::nullopt;
    if (env.params) {
      auto it = env.params->find(n);
      if (it != env.params->end()) return it->second;
    }
    if (env.implicit) {
      auto it = env.implicit->find(n);
      if (it != env.implicit->end()) return it->second;
    }
    if (env.local) {
      if (auto v = env.local(n, s)) return v;
    }
    auto it = cp_.static_consts.find(n);
    if (it != cp_.static_consts.end() && visible(n)) return it->second;
    return std::nullopt;
  }

  Poly need_int(const Expr &e, const StaticEnv &env) {
    StaticValue v = eval_static(e, env);
    if (v.kind != StaticValue::Int) throw StaticEvalError{e.span, "expected a static int, found the shape " + v.str()};
    return v.size;
  }

  StaticValue eval_static(const Expr &e, const StaticEnv &env) {
    try {
      return eval_static_inner(e, env);
    } catch (StaticError &err) {
      throw StaticEvalError{e.span, err.what()};
    }
  }

  StaticValue eval_static_inner(const Expr &e, const StaticEnv &env) {
    switch (e.kind) {
      case ExprKind::IntLit: return StaticValue::of_int(Poly::constant(e.ival));
      case ExprKind::Var: {
        if (auto v = lookup_static(e.name, e.span, env)) return *v;
        if (env.implicit && !is_known_dynamic(e.name, env)) {
          // Signature mode: an unknown bare identifier is an implicit size variable.
          StaticValue v = StaticValue::of_int(Poly::symbol(e.name));
          (*env.implicit)[e.name] = v;
          return v;
        }
        throw NotStatic{e.span, "'" + e.name + "' is not a static value"};
      }
      case ExprKind::Unary:
        if (e.op == Op::Neg) return StaticValue::of_int(need_int(*e.args[0], env).negate());
        break;
      case ExprKind::Binary: {
        if (e.op != Op::Add && e.op != Op::Sub && e.op != Op::Mul && e.op != Op::Div && e.op != Op::IntDiv &&
            e.op != Op::Mod)
          break;
        Poly a = need_int(*e.args[0], env), b = need_int(*e.args[1], env);
        switch (e.op) {
          case Op::Add: return StaticValue::of_int(a + b);
          case Op::Sub: return StaticValue::of_int(a - b);
          case Op::Mul: return StaticValue::of_int(a * b);
          default: {
            bool mod = e.op == Op::Mod;
            if (!mod && b.is_const() && b.const_value() == 1) return StaticValue::of_int(a);
            try {
              return StaticValue::of_int(Poly::atom(mod ? "mod" : "div", {a, b}));
            } catch (StaticError &err) {
              throw StaticEvalError{e.span, err.what()};
            }
          }
        }
      }
      case ExprKind::Array: {
        Shape s;
        for (auto &a : e.args) {
          StaticValue v = eval_static(*a, env);
          if (v.kind == StaticValue::Int) s.push_back(v.size);
          else s.insert(s.end(), v.shape.begin(), v.shape.end());
        }
        return StaticValue::of_shape(std::move(s));
      }
      case ExprKind::Index: {
        if (e.args.size() != 2) break;
        StaticValue base = eval_static(*e.args[0], env);
        if (base.kind != StaticValue::ShapeV) throw NotStatic{e.args[0]->span, "only shapes can be indexed statically"};
        Poly k = need_int(*e.args[1], env);
        try {
          return StaticValue::of_int(Poly::atom("index", {k}, &base.shape));
        } catch (StaticError &err) {
          throw StaticEvalError{e.span, err.what()};
        }
      }
      case ExprKind::Call: {
        if ((e.name == "rank" || e.name == "prod") && e.args.size() == 1) {
          StaticValue s = eval_static(*e.args[0], env);
          if (s.kind != StaticValue::ShapeV) throw StaticEvalError{e.args[0]->span, "'" + e.name + "' expects a shape"};
          if (e.name == "prod") return StaticValue::of_int(shape_product(s.shape));
          return StaticValue::of_int(Poly::atom("rank", {}, &s.shape));
        }
        if ((e.name == "min" || e.name == "max") && e.args.size() == 2) {
          Poly a = need_int(*e.args[0], env), b = need_int(*e.args[1], env);
          if (a == b) return StaticValue::of_int(a);
          return StaticValue::of_int(Poly::atom(e.name, {a, b}));
        }
        break;
      }
      default: break;
    }
    throw NotStatic{e.span, "this expression is not static (allowed: integers, shapes, static names, + - * div mod, "
                            "min, max, rank, prod, s[k])"};
  }

  static std::string print_shape_atom(const Shape &s) { return shape_str(s); }
  static std::string print_expr_short(const Expr &e) {
    if (e.kind == ExprKind::IntLit) return std::to_string(e.ival);
    if (e.kind == ExprKind::Var) return "'" + e.name + "'";
    return "expression";
  }

  bool is_known_dynamic(const std::string &, const StaticEnv &) const { return false; }

  // Checks a static size/shape used as dims: non-negative and not huge, when concrete.
  void check_dims(const Shape &s, Span span) {
    int64_t prod = 1;  // each factor <= 2^31 and the product is checked each step: no overflow
    for (auto &d : s) {
      if (auto *p = std::get_if<Poly>(&d)) {
        if (p->is_const()) {
          int64_t v = p->const_value();
          if (v < 0) throw StaticEvalError{span, "negative size " + std::to_string(v)};
          if (v > kMaxStaticSize) throw StaticEvalError{span, "size " + std::to_string(v) + " exceeds the limit 2^31"};
          prod *= v;
          if (prod > kMaxStaticSize)
            throw StaticEvalError{span, "the shape " + shape_str(s) + " has more than 2^31 elements"};
        }
      }
    }
  }

  // Reports a static failure; returns false.
  bool report_static(const NotStatic &ns) {
    d_.error("static.not-static", ns.span, ns.why);
    return false;
  }
  bool report_static(const StaticEvalError &se) {
    d_.error("static.eval", se.span, se.why);
    return false;
  }

  // ------------------------------------------------------------------ global constants
  void eval_consts() {
    for (auto &[name, idx] : cp_.decls) {
      auto *c = std::get_if<ConstDecl>(&cp_.program.decls[idx]);
      if (!c) continue;
      eval_const(name, *c);
    }
  }
  std::set<std::string> const_in_progress_;
  void eval_const(const std::string &name, const ConstDecl &c) {
    if (cp_.static_consts.count(name) || cp_.value_consts.count(name)) return;
    if (const_in_progress_.count(name)) {
      d_.error("name.redefined", c.name_span, "constant '" + name + "' is defined in terms of itself");
      cp_.value_consts[name] = Type::error();
      return;
    }
    const_in_progress_.insert(name);
    DeclScope decl_scope(in_prelude_, cp_.decls[name] < prelude_count());
    // Constants referring to other constants: evaluate those first.
    std::function<void(const Expr &)> deps = [&](const Expr &e) {
      if (e.kind == ExprKind::Var && visible(e.name)) {
        auto it = cp_.decls.find(e.name);
        if (it != cp_.decls.end())
          if (auto *cc = std::get_if<ConstDecl>(&cp_.program.decls[it->second])) eval_const(e.name, *cc);
      }
      for (auto &a : e.args) deps(*a);
    };
    deps(*c.value);
    StaticEnv env;
    bool is_static = true;
    try {
      StaticValue v = eval_static(*c.value, env);
      if (v.kind == StaticValue::ShapeV) check_dims(v.shape, c.value->span);
      if (c.type && c.type->kind == TypeSyntax::Tensor && c.type->scalar != Scalar::Int && v.kind == StaticValue::Int) {
        is_static = false;
      } else {
        cp_.static_consts[name] = v;
      }
    } catch (NotStatic &) {
      is_static = false;
    } catch (StaticEvalError &se) {
      report_static(se);
      cp_.value_consts[name] = Type::error();
      const_in_progress_.erase(name);
      return;
    }
    if (!is_static) {
      Ctx ctx;
      ctx.const_mode = true;
      Type t = infer(*c.value, ctx);
      if (c.type) {
        Type want = type_from_syntax(*c.type, ctx);
        if (!unify(t, want)) mismatch(*c.value, t, want, "the constant's declared type");
        t = want;
      }
      cp_.value_consts[name] = t;
    }
    const_in_progress_.erase(name);
  }

  // ------------------------------------------------------------------ signatures
  Type sig_type(const TypeSyntax &ts, std::map<std::string, StaticValue> &statics,
                std::map<std::string, StaticValue> *implicit, std::vector<std::string> &shape_vars,
                std::vector<std::string> &tyvars, bool &ok) {
    switch (ts.kind) {
      case TypeSyntax::TyVar:
        if (std::find(tyvars.begin(), tyvars.end(), ts.tyvar) == tyvars.end()) tyvars.push_back(ts.tyvar);
        return Type::var(ts.tyvar);
      case TypeSyntax::Shape: return Type::shape_type();
      case TypeSyntax::Tensor: break;
    }
    Shape shape;
    StaticEnv env;
    env.params = &statics;
    env.implicit = implicit;
    for (auto &dim : ts.dims) {
      if (dim.splice_var) {
        if (std::find(shape_vars.begin(), shape_vars.end(), dim.var) == shape_vars.end()) {
          if (!implicit) {
            d_.error("static.undetermined", dim.span,
                     "shape variable '*" + dim.var + "' must appear in an input type to be determined at each use");
            ok = false;
            continue;
          }
          shape_vars.push_back(dim.var);
        }
        shape.push_back(ShapeSym{dim.var});
        continue;
      }
      try {
        StaticValue v = eval_static(*dim.expr, env);
        if (v.kind == StaticValue::Int) {
          Shape one{v.size};
          check_dims(one, dim.expr->span);
          shape.push_back(v.size);
        } else {
          check_dims(v.shape, dim.expr->span);
          shape.insert(shape.end(), v.shape.begin(), v.shape.end());
        }
      } catch (NotStatic &ns) {
        if (!implicit && dim.expr->kind == ExprKind::Var && !visible(dim.expr->name)) {
          d_.error("static.undetermined", dim.expr->span,
                   "size variable '" + dim.expr->name + "' must appear in an input type to be determined at each use");
          undetermined_.push_back(dim.expr->name);
        } else {
          report_static(ns);
        }
        ok = false;
        return Type::error();
      } catch (StaticEvalError &se) {
        report_static(se);
        ok = false;
        return Type::error();
      }
    }
    try {
      check_dims(shape, ts.span);
    } catch (StaticEvalError &se) {
      report_static(se);
      ok = false;
      return Type::error();
    }
    return Type::tensor(ts.scalar, std::move(shape));
  }

  std::vector<std::string> undetermined_;  // reported size variables, still bound in the body

  void build_signature(const std::string &name, const Decl &d) {
    if (std::holds_alternative<ConstDecl>(d)) return;
    undetermined_.clear();
    Signature sig;
    sig.name = name;
    sig.from_prelude = cp_.decls[name] < prelude_count();
    DeclScope decl_scope(in_prelude_, sig.from_prelude);
    const std::vector<VarDecl> *ins;
    if (auto *n = std::get_if<NodeDecl>(&d)) {
      sig.is_node = true;
      sig.is_function = n->is_function;
      ins = &n->inputs;
    } else {
      sig.is_node = false;
      ins = &std::get<FunDecl>(d).params;
    }
    std::map<std::string, StaticValue> statics, implicit;
    std::set<std::string> seen;
    auto dup = [&](const VarDecl &v) {
      if (!seen.insert(v.name).second) {
        d_.error("name.duplicate", v.span, "'" + v.name + "' is declared twice in this interface");
        sig.ok = false;
        return true;
      }
      return false;
    };
    // Static params first: value types may mention them.
    for (auto &v : *ins) {
      if (!v.is_const) continue;
      if (!v.type) {
        d_.error("type.missing", v.span, "static parameter '" + v.name + "' needs a type ('int' or 'shape')");
        sig.ok = false;
        continue;
      }
      if (v.type->kind == TypeSyntax::Shape) statics[v.name] = StaticValue::of_shape({ShapeSym{v.name}});
      else if (v.type->kind == TypeSyntax::Tensor && v.type->scalar == Scalar::Int && v.type->dims.empty())
        statics[v.name] = StaticValue::of_int(Poly::symbol(v.name));
      else {
        d_.error("static.kind", v.type->span, "a static parameter has type 'int' or 'shape'");
        sig.ok = false;
      }
    }
    for (auto &v : *ins) {
      dup(v);
      Param p;
      p.name = v.name;
      p.span = v.span;
      p.is_const = v.is_const;
      if (v.is_const) {
        auto it = statics.find(v.name);
        p.static_kind = it != statics.end() ? it->second.kind : StaticValue::Int;
        p.type = Type::error();
      } else if (!v.type) {
        d_.error("type.missing", v.span, "input '" + v.name + "' needs a type");
        sig.ok = false;
        p.type = Type::error();
      } else {
        if (v.type->kind == TypeSyntax::Shape) {
          d_.error("static.kind", v.type->span, "only 'const' parameters may have type 'shape'");
          sig.ok = false;
        }
        p.type = sig_type(*v.type, statics, &implicit, sig.shape_vars, sig.tyvars, sig.ok);
      }
      sig.inputs.push_back(std::move(p));
    }
    // Implicit size variables must occur as a whole dim of some input type.
    std::set<std::string> plain;
    for (auto &p : sig.inputs)
      if (!p.is_const && p.type.kind == Type::Tensor)
        for (auto &dim : p.type.shape)
          if (auto *q = std::get_if<Poly>(&dim))
            if (auto s = q->as_symbol()) plain.insert(*s);
    for (auto &[n, v] : implicit) {
      sig.size_vars.push_back(n);
      if (!plain.count(n)) {
        Span where = find_dim_use(*ins, n);
        d_.error("static.undetermined", where,
                 "size variable '" + n + "' is only used inside a size expression; it must also be a whole dimension of an input");
        sig.ok = false;
      }
    }
    std::vector<std::string> in_tyvars = sig.tyvars;
    std::map<std::string, StaticValue> all = statics;
    for (auto &[n, v] : implicit) all[n] = v;
    auto out_type = [&](const TypeSyntax &ts) {
      size_t before = sig.tyvars.size();
      Type t = sig_type(ts, all, nullptr, sig.shape_vars, sig.tyvars, sig.ok);
      for (size_t k = before; k < sig.tyvars.size(); ++k) {
        d_.error("static.undetermined", ts.span, "type variable " + sig.tyvars[k] + " must appear in an input type");
        sig.ok = false;
      }
      return t;
    };
    if (auto *n = std::get_if<NodeDecl>(&d)) {
      for (auto &v : n->outputs) {
        dup(v);
        if (v.is_const) {
          d_.error("static.kind", v.span, "outputs cannot be static ('const')");
          sig.ok = false;
        }
        sig.output_names.push_back(v.name);
        if (!v.type) {
          d_.error("type.missing", v.span, "output '" + v.name + "' needs a type");
          sig.ok = false;
          sig.outputs.push_back(Type::error());
        } else {
          sig.outputs.push_back(out_type(*v.type));
        }
      }
    } else {
      auto &f = std::get<FunDecl>(d);
      sig.output_names.push_back("result");
      sig.outputs.push_back(out_type(f.result));
    }
    for (auto &u : undetermined_)
      if (std::find(sig.size_vars.begin(), sig.size_vars.end(), u) == sig.size_vars.end()) sig.size_vars.push_back(u);
    cp_.sigs[name] = std::move(sig);
  }

  static Span find_dim_use(const std::vector<VarDecl> &ins, const std::string &n) {
    for (auto &v : ins)
      if (v.type)
        for (auto &dim : v.type->dims) {
          if (!dim.expr) continue;
          Span found;
          std::function<void(const Expr &)> walk = [&](const Expr &e) {
            if (!found.valid() && e.kind == ExprKind::Var && e.name == n) found = e.span;
            for (auto &a : e.args) walk(*a);
          };
          walk(*dim.expr);
          if (found.valid()) return found;
        }
    return ins.empty() ? Span{} : ins[0].span;
  }

  // ------------------------------------------------------------------ recursion, state
  void calls_in(const Expr &e, std::vector<const Expr *> &out) {
    if (e.kind == ExprKind::Call && cp_.decls.count(e.name)) out.push_back(&e);
    for (auto &a : e.args) calls_in(*a, out);
  }
  std::vector<const Expr *> decl_calls(const Decl &d) {
    std::vector<const Expr *> out;
    if (auto *n = std::get_if<NodeDecl>(&d))
      for (auto &eq : n->equations) calls_in(*eq.rhs, out);
    if (auto *f = std::get_if<FunDecl>(&d)) calls_in(*f->body, out);
    return out;
  }
  std::set<std::string> recursive_;
  void check_recursion() {
    std::map<std::string, int> color;  // 0 white, 1 grey, 2 black
    std::function<void(const std::string &)> dfs = [&](const std::string &n) {
      color[n] = 1;
      const Decl &d = cp_.program.decls[cp_.decls[n]];
      for (const Expr *c : decl_calls(d)) {
        if (std::holds_alternative<ConstDecl>(cp_.program.decls[cp_.decls[c->name]])) continue;
        int col = color[c->name];
        if (col == 1) {
          bool is_fun = std::holds_alternative<FunDecl>(d);
          d_.error(is_fun ? "fun.recursive" : "node.recursive", callee_span(*c),
                   "recursive call to '" + c->name + "': " + (is_fun ? "functions" : "nodes") +
                       " cannot be recursive (the language has no general recursion)");
          recursive_.insert(c->name);
        } else if (col == 0) {
          dfs(c->name);
        }
      }
      color[n] = 2;
    };
    for (auto &[n, idx] : cp_.decls)
      if (!std::holds_alternative<ConstDecl>(cp_.program.decls[idx]) && color[n] == 0) dfs(n);
  }

  static bool has_state_op(const Expr &e) {
    if (e.kind == ExprKind::Binary && (e.op == Op::Fby || e.op == Op::Arrow)) return true;
    if (e.kind == ExprKind::Unary && (e.op == Op::Pre || e.op == Op::Post)) return true;
    for (auto &a : e.args)
      if (has_state_op(*a)) return true;
    return false;
  }
  void compute_statefulness() {
    bool changed = true;
    for (auto &[n, idx] : cp_.decls)
      if (auto *nd = std::get_if<NodeDecl>(&cp_.program.decls[idx]))
        for (auto &eq : nd->equations)
          if (has_state_op(*eq.rhs)) cp_.sigs[n].stateful = true;
    while (changed) {
      changed = false;
      for (auto &[n, idx] : cp_.decls) {
        auto *nd = std::get_if<NodeDecl>(&cp_.program.decls[idx]);
        if (!nd || cp_.sigs[n].stateful) continue;
        for (const Expr *c : decl_calls(cp_.program.decls[idx])) {
          auto it = cp_.sigs.find(c->name);
          if (it != cp_.sigs.end() && it->second.is_node && it->second.stateful) {
            cp_.sigs[n].stateful = true;
            changed = true;
            break;
          }
        }
      }
    }
  }

  // ------------------------------------------------------------------ unification
  Type fresh_meta() {
    Type t;
    t.kind = Type::Meta;
    t.meta = static_cast<int>(metas_.size());
    metas_.emplace_back();
    return t;
  }
  Type resolve(const Type &t) {
    Type r = t;
    while (r.kind == Type::Meta && metas_[r.meta]) r = *metas_[r.meta];
    return r;
  }
  Type zonk(const Type &t) {
    Type r = resolve(t);
    if (r.kind == Type::Tuple)
      for (auto &e : r.elems) e = zonk(e);
    return r;
  }
  bool unify(const Type &a0, const Type &b0) {
    Type a = resolve(a0), b = resolve(b0);
    // An error unifies with anything; an unknown local takes it, so no follow-on errors.
    if (a.is_error() && b.kind == Type::Meta) metas_[b.meta] = a;
    if (b.is_error() && a.kind == Type::Meta) metas_[a.meta] = b;
    if (a.is_error() || b.is_error()) return true;
    if (a.kind == Type::Meta) {
      if (!(b.kind == Type::Meta && b.meta == a.meta)) metas_[a.meta] = b;
      return true;
    }
    if (b.kind == Type::Meta) {
      metas_[b.meta] = a;
      return true;
    }
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case Type::Tensor: return a.elem == b.elem && shape_equal(a.shape, b.shape);
      case Type::TyVar: return a.tyvar == b.tyvar;
      case Type::ShapeT: return true;
      case Type::Tuple:
        if (a.elems.size() != b.elems.size()) return false;
        for (size_t i = 0; i < a.elems.size(); ++i)
          if (!unify(a.elems[i], b.elems[i])) return false;
        return true;
      default: return false;
    }
  }

  // Reports "this expression has type A but B is expected" with the right rule.
  void mismatch(const Expr &at, const Type &got0, const Type &want0, const std::string &context) {
    Type got = zonk(got0), want = zonk(want0);
    bool shape_only = got.kind == Type::Tensor && want.kind == Type::Tensor && got.elem == want.elem;
    auto fixed_rank = [](const Shape &sh) {
      return std::all_of(sh.begin(), sh.end(), [](auto &d) { return std::holds_alternative<Poly>(d); });
    };
    bool rank_differs = shape_only && fixed_rank(got.shape) && fixed_rank(want.shape) && got.shape.size() != want.shape.size();
    d_.error(!shape_only ? "type.mismatch" : rank_differs ? "shape.rank" : "shape.mismatch", start_span(at),
             "this expression has type " + type_str(got) + ", but " + context + " is " + type_str(want));
  }

  // ------------------------------------------------------------------ expression typing
  struct NodeState;
  struct Ctx {
    bool in_fun = false;
    bool const_mode = false;
    bool is_function = false;  // Lustre `function` body
    std::string decl;
    std::vector<std::map<std::string, Type>> scopes;
    std::map<std::string, StaticValue> statics;  // static params + implicit vars
    NodeState *node = nullptr;
    StaticEnv env() {
      StaticEnv e;
      e.params = &statics;
      e.scopes = &scopes;
      if (node) e.local = node->static_lookup;
      return e;
    }
  };

  struct NodeState {
    const NodeDecl *decl = nullptr;
    NodeInfo *info = nullptr;
    std::vector<int> eq_state;  // 0 unchecked, 1 in progress, 2 done
    std::set<std::string> static_in_progress;
    std::function<std::optional<StaticValue>(const std::string &, Span)> static_lookup;
    Ctx *ctx = nullptr;
    int depth = 0;
  };

  Type record(const Expr &e, Type t) {
    cp_.expr_types[&e] = t;
    return t;
  }

  Type type_from_syntax(const TypeSyntax &ts, Ctx &ctx) {
    if (ts.kind == TypeSyntax::TyVar) return Type::var(ts.tyvar);
    if (ts.kind == TypeSyntax::Shape) return Type::shape_type();
    Shape shape;
    StaticEnv env = ctx.env();
    for (auto &dim : ts.dims) {
      if (dim.splice_var) {
        shape.push_back(ShapeSym{dim.var});
        continue;
      }
      try {
        StaticValue v = eval_static(*dim.expr, env);
        if (v.kind == StaticValue::Int) shape.push_back(v.size);
        else shape.insert(shape.end(), v.shape.begin(), v.shape.end());
      } catch (NotStatic &ns) {
        report_static(ns);
        return Type::error();
      } catch (StaticEvalError &se) {
        report_static(se);
        return Type::error();
      }
    }
    try {
      check_dims(shape, ts.span);
    } catch (StaticEvalError &se) {
      report_static(se);
      return Type::error();
    }
    return Type::tensor(ts.scalar, std::move(shape));
  }

  // The variables, parameters and statics visible in `ctx` (the user's own names).
  std::vector<std::string> variables_in_scope(const Ctx &ctx) const {
    std::vector<std::string> out;
    for (auto it = ctx.scopes.rbegin(); it != ctx.scopes.rend(); ++it)
      for (auto &[k, v] : *it) out.push_back(k);
    if (ctx.node)
      for (auto &[k, v] : ctx.node->info->vars) out.push_back(k);
    for (auto &[k, v] : ctx.statics) out.push_back(k);
    return out;
  }

  // " (did you mean 'x'?)": `own` (variables in scope) and the user's declarations first,
  // then the prelude's (constants when `values`, else nodes and funs).
  std::string did_you_mean(const std::string &n, std::vector<std::string> own, bool values) const {
    std::vector<std::string> prelude;
    for (auto &[name, idx] : cp_.decls) {
      const Decl &d = cp_.program.decls[idx];
      if (values != std::holds_alternative<ConstDecl>(d)) continue;
      if (!visible(name)) continue;
      (idx < prelude_count() ? prelude : own).push_back(name);
    }
    std::string s = suggest_name(n, own, prelude);
    return s.empty() ? "" : " (did you mean '" + s + "'?)";
  }

  Type var_type(const Expr &e, Ctx &ctx) {
    const std::string &n = e.name;
    if (n == "_") {
      d_.error("name.unknown", e.span, "'_' can only appear on the left of an equation");
      return Type::error();
    }
    for (auto it = ctx.scopes.rbegin(); it != ctx.scopes.rend(); ++it) {
      auto f = it->find(n);
      if (f != it->end()) return f->second;
    }
    if (ctx.node) {
      auto &vars = ctx.node->info->vars;
      auto f = vars.find(n);
      if (f != vars.end()) {
        if (f->second.def_eq >= 0 && ctx.node->eq_state[f->second.def_eq] == 0 && ctx.node->depth < 200) {
          ++ctx.node->depth;
          check_equation(*ctx.node, f->second.def_eq);
          --ctx.node->depth;
        }
        return ctx.node->info->vars[n].type;
      }
    }
    auto st = ctx.statics.find(n);
    if (st != ctx.statics.end()) return static_as_value(st->second, e);
    if (visible(n)) {
      if (auto c = cp_.static_consts.find(n); c != cp_.static_consts.end()) return static_as_value(c->second, e);
      if (auto c = cp_.value_consts.find(n); c != cp_.value_consts.end()) return c->second;
    }
    if (visible(n)) {
      d_.error("name.unknown", e.span, "'" + n + "' is a node or function, not a variable; call it with arguments");
      return Type::error();
    }
    d_.error("name.unknown", e.span, "unknown variable '" + n + "'" + did_you_mean(n, variables_in_scope(ctx), true));
    return Type::error();
  }

  Type static_as_value(const StaticValue &v, const Expr &e) {
    if (v.kind == StaticValue::Int) return Type::scalar(Scalar::Int);
    if (shape_concrete(v.shape))
      return Type::tensor(Scalar::Int, {Poly::constant(static_cast<int64_t>(v.shape.size()))});
    d_.error("static.kind", e.span, "the shape '" + e.name + "' can only be used in static positions");
    return Type::error();
  }

  bool require_bool_scalar(const Expr &e, const Type &t0, const char *what) {
    Type t = resolve(t0);
    if (t.is_error()) return true;
    if (t.kind == Type::Meta) return unify(t, Type::scalar(Scalar::Bool));
    if (!t.is_scalar(Scalar::Bool)) {
      d_.error("type.not-bool", start_span(e), std::string(what) + " must be a bool, but it has type " + type_str(zonk(t)));
      return false;
    }
    return true;
  }

  void stream_op_in_fun(const Expr &e, Ctx &ctx, const char *what) {
    if (ctx.in_fun)
      d_.error("fun.stream-op", e.op_span.valid() ? e.op_span : e.span,
               std::string("'") + what + "' is a stream operator; it cannot be used in a 'fun' body (the function layer is pure)");
    else if (ctx.is_function)
      d_.error("node.function-stateful", e.op_span.valid() ? e.op_span : e.span,
               std::string("'") + what + "' keeps state; a Lustre 'function' must be stateless (declare it as a 'node')");
    else if (ctx.const_mode)
      d_.error("static.not-static", e.span, std::string("'") + what + "' cannot be used in a constant");
  }

  // Elementwise binary typing with scalar broadcast.
  Type broadcast(const Expr &e, const Type &l0, const Type &r0, const char *opname) {
    Type l = resolve(l0), r = resolve(r0);
    if (l.is_error() || r.is_error()) return Type::error();
    if (l.kind == Type::Meta || r.kind == Type::Meta) {
      unify(l, r);
      return resolve(l);
    }
    if (l.kind == Type::Tuple || r.kind == Type::Tuple) {
      d_.error("type.tuple", start_span(l.kind == Type::Tuple ? *e.args[0] : *e.args[1]),
               "a call with several outputs cannot be an operand; bind its outputs with 'a, b = f(...)'");
      return Type::error();
    }
    if (l.kind != Type::Tensor || r.kind != Type::Tensor) {
      // A rigid type variable supports no operator: the body must be valid at every type.
      const Expr &bad = l.kind != Type::Tensor ? *e.args[0] : *e.args[1];
      d_.error("type.not-numeric", start_span(bad),
               std::string("'") + opname + "' needs tensors of int, real or bool; this operand has the generic type " +
                   type_str(l.kind != Type::Tensor ? l : r));
      return Type::error();
    }
    if (l.elem != r.elem) {
      d_.error("type.mismatch", start_span(*e.args[1]),
               std::string("the operands of '") + opname + "' have different types: " + type_str(l) + " and " +
                   type_str(r) + " (there is no implicit conversion; use real(...) or int(...))");
      return Type::error();
    }
    if (shape_equal(l.shape, r.shape)) return l;
    if (l.shape.empty()) return r;
    if (r.shape.empty()) return l;
    d_.error("shape.mismatch", start_span(*e.args[1]),
             std::string("the operands of '") + opname + "' have different shapes: " + type_str(l) + " and " + type_str(r));
    return Type::error();
  }

  Type infer(const Expr &e, Ctx &ctx, bool allow_tuple = false) {
    Type t = infer_inner(e, ctx, allow_tuple);
    return record(e, t);
  }

  Type infer_inner(const Expr &e, Ctx &ctx, bool allow_tuple) {
    switch (e.kind) {
      case ExprKind::IntLit: return Type::scalar(Scalar::Int);
      case ExprKind::RealLit: return Type::scalar(Scalar::Real);
      case ExprKind::BoolLit: return Type::scalar(Scalar::Bool);
      case ExprKind::Var: return var_type(e, ctx);
      case ExprKind::Unary: {
        Type a = infer(*e.args[0], ctx);
        Type r = resolve(a);
        switch (e.op) {
          case Op::Neg:
            if (r.kind == Type::Tensor && r.elem == Scalar::Bool) {
              d_.error("type.not-numeric", start_span(*e.args[0]), "unary '-' needs an int or real operand, not bool");
              return Type::error();
            }
            if (r.kind == Type::TyVar) {
              d_.error("type.not-numeric", start_span(*e.args[0]), "unary '-' needs an int or real operand, not " + r.tyvar);
              return Type::error();
            }
            return a;
          case Op::Not:
            if (r.kind == Type::Meta) {
              unify(r, Type::scalar(Scalar::Bool));
              return a;
            }
            if (!r.is_error() && !(r.kind == Type::Tensor && r.elem == Scalar::Bool)) {
              d_.error("type.not-bool", start_span(*e.args[0]), "'not' needs a bool operand, found " + type_str(zonk(r)));
              return Type::error();
            }
            return a;
          case Op::Pre: stream_op_in_fun(e, ctx, "pre"); return a;
          case Op::Post: stream_op_in_fun(e, ctx, "post"); return a;
          default: return Type::error();
        }
      }
      case ExprKind::Binary: {
        if (e.op == Op::Fby || e.op == Op::Arrow) stream_op_in_fun(e, ctx, e.op == Op::Fby ? "fby" : "->");
        Type l = infer(*e.args[0], ctx);
        if (hint_expr_ == &e) unify(hint_type_, l);  // type a recurrence from its initial value first
        Type r = infer(*e.args[1], ctx);
        switch (e.op) {
          case Op::Fby:
          case Op::Arrow:
            if (!unify(l, r)) {
              mismatch(*e.args[1], r, l, std::string("the other operand of '") + op_spelling(e.op) + "'");
              return Type::error();
            }
            return resolve(l).is_error() ? r : l;
          case Op::Add: case Op::Sub: case Op::Mul: case Op::Div: {
            Type t = broadcast(e, l, r, op_spelling(e.op));
            Type rt = resolve(t);
            if (rt.kind == Type::Tensor && rt.elem == Scalar::Bool) {
              d_.error("type.not-numeric", start_span(*e.args[0]),
                       std::string("'") + op_spelling(e.op) + "' needs int or real operands, not bool");
              return Type::error();
            }
            return t;
          }
          case Op::IntDiv: case Op::Mod: {
            Type t = broadcast(e, l, r, op_spelling(e.op));
            Type rt = resolve(t);
            if (rt.kind == Type::Tensor && rt.elem != Scalar::Int) {
              d_.error("type.mismatch", start_span(*e.args[0]),
                       std::string("'") + op_spelling(e.op) + "' needs int operands, found " + type_str(rt));
              return Type::error();
            }
            return t;
          }
          case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: {
            Type t = broadcast(e, l, r, op_spelling(e.op));
            Type rt = resolve(t);
            if (rt.kind != Type::Tensor) return rt.is_error() ? rt : Type::scalar(Scalar::Bool);
            if (rt.elem == Scalar::Bool && e.op != Op::Eq && e.op != Op::Ne) {
              d_.error("type.not-numeric", start_span(*e.args[0]),
                       std::string("'") + op_spelling(e.op) + "' compares numbers, not bools");
              return Type::error();
            }
            return Type::tensor(Scalar::Bool, rt.shape);
          }
          case Op::And: case Op::Or: case Op::Xor: {
            for (int k = 0; k < 2; ++k) {
              Type x = resolve(k ? r : l);
              if (x.kind == Type::Tensor && x.elem != Scalar::Bool) {
                d_.error("type.not-bool", start_span(*e.args[k]),
                         std::string("'") + op_spelling(e.op) + "' needs bool operands, found " + type_str(x));
                return Type::error();
              }
            }
            return broadcast(e, l, r, op_spelling(e.op));
          }
          default: return Type::error();
        }
      }
      case ExprKind::When: {
        stream_op_in_fun(e, ctx, "when");
        Type a = infer(*e.args[0], ctx);
        Type c = infer(*e.args[1], ctx);
        require_bool_scalar(*e.args[1], c, "the condition of 'when'");
        return a;
      }
      case ExprKind::Merge: {
        stream_op_in_fun(e, ctx, "merge");
        Type c = infer(*e.args[0], ctx);
        require_bool_scalar(*e.args[0], c, "the condition of 'merge'");
        Type a = infer(*e.args[1], ctx), b = infer(*e.args[2], ctx);
        if (!unify(a, b)) {
          mismatch(*e.args[2], b, a, "the other branch of the merge");
          return Type::error();
        }
        return resolve(a).is_error() ? b : a;
      }
      case ExprKind::If: {
        Type c = infer(*e.args[0], ctx);
        require_bool_scalar(*e.args[0], c, "the condition of 'if'");
        Type a = infer(*e.args[1], ctx), b = infer(*e.args[2], ctx);
        if (!unify(a, b)) {
          mismatch(*e.args[2], b, a, "the 'then' branch");
          return Type::error();
        }
        return resolve(a).is_error() ? b : a;
      }
      case ExprKind::Let: {
        if (!ctx.in_fun) {
          d_.error("syntax.unsupported", e.op_span, "'let ... in' is only available in 'fun' bodies; in a node, write an equation");
          return Type::error();
        }
        Type v = infer(*e.args[0], ctx);
        ctx.scopes.push_back({{e.name, v}});
        Type b = infer(*e.args[1], ctx);
        ctx.scopes.pop_back();
        return b;
      }
      case ExprKind::Tuple: {
        std::vector<Type> ts;
        for (auto &a : e.args) ts.push_back(infer(*a, ctx));
        if (!allow_tuple) {
          d_.error("type.tuple", e.span, "a tuple can only be the right side of an equation with several variables");
          return Type::error();
        }
        return Type::tuple(std::move(ts));
      }
      case ExprKind::Array: {
        if (e.args.empty()) {
          d_.error("type.missing", e.span, "an empty array literal has no element type (as a shape, '[]' is only valid in static positions)");
          return Type::error();
        }
        Type first = infer(*e.args[0], ctx);
        for (size_t i = 1; i < e.args.size(); ++i) {
          Type t = infer(*e.args[i], ctx);
          if (!unify(first, t)) {
            mismatch(*e.args[i], t, first, "the first element of the array");
            return Type::error();
          }
        }
        Type f = resolve(first);
        if (f.is_error()) return f;
        if (f.kind != Type::Tensor) {
          d_.error("type.not-numeric", e.span, "array literals hold tensors, not " + type_str(f));
          return Type::error();
        }
        Shape s{Poly::constant(static_cast<int64_t>(e.args.size()))};
        s.insert(s.end(), f.shape.begin(), f.shape.end());
        return Type::tensor(f.elem, std::move(s));
      }
      case ExprKind::Index: {
        if (e.args[0]->kind == ExprKind::Var && e.args.size() == 2) {
          auto sv = lookup_static(e.args[0]->name, e.args[0]->span, ctx.env());
          if (sv && sv->kind == StaticValue::ShapeV) {  // `s[k]` of a static shape: a static int
            auto v = static_arg(e, ctx, StaticValue::Int, "indexing the shape '" + e.args[0]->name + "'");
            return v ? Type::scalar(Scalar::Int) : Type::error();
          }
        }
        Type base = resolve(infer(*e.args[0], ctx));
        for (size_t i = 1; i < e.args.size(); ++i) {
          Type it = resolve(infer(*e.args[i], ctx));
          if (it.kind == Type::Meta) unify(it, Type::scalar(Scalar::Int));
          else if (!it.is_error() && !it.is_scalar(Scalar::Int))
            d_.error("type.mismatch", start_span(*e.args[i]), "an index must be an int, found " + type_str(it));
        }
        if (base.is_error()) return base;
        if (base.kind == Type::Meta) {
          d_.error("type.missing", start_span(*e.args[0]),
                   "the type of this expression is not known here (it depends on itself through a cycle); declare the "
                   "variable's type in a 'var' section");
          return Type::error();
        }
        if (base.kind != Type::Tensor) {
          d_.error("type.mismatch", start_span(*e.args[0]), "only tensors can be indexed, found " + type_str(base));
          return Type::error();
        }
        size_t m = e.args.size() - 1;
        for (size_t i = 0; i < m; ++i) {
          if (i >= base.shape.size()) {
            d_.error("shape.index", start_span(*e.args[i + 1]),
                     "too many indices: " + std::to_string(m) + " for a tensor of type " + type_str(base));
            return Type::error();
          }
          if (!std::holds_alternative<Poly>(base.shape[i])) {
            d_.error("shape.rank", start_span(*e.args[i + 1]),
                     "cannot index a tensor of type " + type_str(base) + ": its rank is not known here");
            return Type::error();
          }
        }
        return Type::tensor(base.elem, Shape(base.shape.begin() + static_cast<long>(m), base.shape.end()));
      }
      case ExprKind::Lambda:
        d_.error("fun.lambda-position", e.span, "a lambda can only be the last argument of build, gather or scatter in a 'fun' body");
        return Type::error();
      case ExprKind::Call: return infer_call(e, ctx, allow_tuple);
    }
    return Type::error();
  }

  // ------------------------------------------------------------------ calls
  std::optional<StaticValue> static_arg(const Expr &a, Ctx &ctx, StaticValue::Kind want, const std::string &what) {
    try {
      StaticValue v = eval_static(a, ctx.env());
      if (v.kind != want) {
        d_.error("static.kind", start_span(a),
                 what + " expects a static " + (want == StaticValue::Int ? "int" : "shape") + ", found " +
                     (v.kind == StaticValue::Int ? "the int " : "the shape ") + v.str());
        return std::nullopt;
      }
      if (v.kind == StaticValue::ShapeV) {
        // Point at the offending element of a literal shape `[a, b]` when possible.
        if (a.kind == ExprKind::Array && a.args.size() == v.shape.size()) {
          for (size_t i = 0; i < v.shape.size(); ++i) check_dims({v.shape[i]}, a.args[i]->span);
        }
        check_dims(v.shape, a.span);
      }
      cp_.static_args[&a] = v;
      record(a, v.kind == StaticValue::Int ? Type::scalar(Scalar::Int) : Type::shape_type());
      return v;
    } catch (NotStatic &ns) {
      d_.error("static.not-static", start_span(a), what + " must be static: " + ns.why);
    } catch (StaticEvalError &se) {
      report_static(se);
    }
    return std::nullopt;
  }

  // The callee's implicit variables renamed apart from every caller name: a fresh name
  // starts with '?', which no identifier (and so no caller size, shape or type variable,
  // nor any atom built from them) contains. Binding works on the renamed formals, so a
  // caller value that mentions a name the callee also uses (the caller's `n` bound to the
  // callee's `k` of `matmul(a: real[m, k], b: real[k, n])`) is never taken for the callee's
  // variable.
  struct Renaming {
    TypeSubst to_fresh;  // callee name -> fresh name
    std::vector<std::string> size_vars, shape_vars, tyvars;  // the fresh names
  };
  static constexpr char kFreshMark = '?';
  static Renaming rename_implicit(const Signature &sig) {
    Renaming r;
    for (auto &v : sig.size_vars) {
      r.size_vars.push_back(kFreshMark + v);
      r.to_fresh.statics.sizes[v] = Poly::symbol(r.size_vars.back());
    }
    for (auto &v : sig.shape_vars) {
      r.shape_vars.push_back(kFreshMark + v);
      r.to_fresh.statics.shapes[v] = Shape{ShapeSym{r.shape_vars.back()}};
    }
    for (auto &v : sig.tyvars) {
      r.tyvars.push_back(kFreshMark + v);
      r.to_fresh.tyvars[v] = Type::var(r.tyvars.back());
    }
    return r;
  }
  // Whether a renamed type still mentions a fresh (unbound) name, also inside an atom.
  static bool mentions_fresh(const Shape &sh) {
    for (auto &d : sh) {
      if (auto *p = std::get_if<Poly>(&d)) {
        for (auto &sym : p->symbols())
          if (sym.find(kFreshMark) != std::string::npos) return true;
      } else if (std::get<ShapeSym>(d).name.find(kFreshMark) != std::string::npos) {
        return true;
      }
    }
    return false;
  }

  // Binds implicit variables of `formal` (renamed apart, see Renaming) from `actual` (no
  // errors here: mismatches are reported by the unification that follows).
  void bind_implicit(const Type &formal, const Type &actual0, const Renaming &rn, TypeSubst &s) {
    Type actual = resolve(actual0);
    if (formal.kind == Type::TyVar) {
      if (std::count(rn.tyvars.begin(), rn.tyvars.end(), formal.tyvar) && !s.tyvars.count(formal.tyvar))
        s.tyvars[formal.tyvar] = actual;
      return;
    }
    if (formal.kind != Type::Tensor || actual.kind != Type::Tensor) return;
    const Shape &f = formal.shape;
    const Shape &a = actual.shape;
    int splice = -1;
    for (size_t i = 0; i < f.size(); ++i)
      if (auto *ss = std::get_if<ShapeSym>(&f[i]))
        if (std::count(rn.shape_vars.begin(), rn.shape_vars.end(), ss->name)) splice = static_cast<int>(i);
    auto bind_item = [&](const DimItem &fi, const DimItem &ai) {
      if (auto *p = std::get_if<Poly>(&fi))
        if (auto sym = p->as_symbol())
          if (std::count(rn.size_vars.begin(), rn.size_vars.end(), *sym) && !s.statics.sizes.count(*sym))
            if (auto *q = std::get_if<Poly>(&ai)) s.statics.sizes[*sym] = *q;
    };
    if (splice < 0) {
      for (size_t i = 0; i < f.size() && i < a.size(); ++i) bind_item(f[i], a[i]);
      return;
    }
    size_t pre = static_cast<size_t>(splice), post = f.size() - pre - 1;
    if (a.size() < pre + post) return;
    for (size_t i = 0; i < pre; ++i) bind_item(f[i], a[i]);
    for (size_t i = 0; i < post; ++i) bind_item(f[f.size() - 1 - i], a[a.size() - 1 - i]);
    const std::string &nm = std::get<ShapeSym>(f[pre]).name;
    if (!s.statics.shapes.count(nm))
      s.statics.shapes[nm] = Shape(a.begin() + static_cast<long>(pre), a.end() - static_cast<long>(post));
  }

  Type infer_call(const Expr &e, Ctx &ctx, bool allow_tuple) {
    if (e.name == "real" || e.name == "int") return infer_conversion(e, ctx);
    if (is_builtin(e.name)) return infer_builtin(e, ctx);
    auto it = visible(e.name) ? cp_.sigs.find(e.name) : cp_.sigs.end();
    if (it == cp_.sigs.end() && (e.name == "condact" || e.name == "current")) {
      d_.error("syntax.unsupported", callee_span(e), "Lustre '" + e.name + "' is not supported by rml; use 'when' and 'merge'");
      return Type::error();
    }
    if (it == cp_.sigs.end()) {
      for (auto a = ctx.scopes.rbegin(); a != ctx.scopes.rend(); ++a)
        if (a->count(e.name)) {
          d_.error("name.unknown", callee_span(e), "'" + e.name + "' is a variable, not a node or function");
          return Type::error();
        }
      d_.error("name.unknown", callee_span(e), "unknown node or function '" + e.name + "'" + did_you_mean(e.name, {}, false));
      for (auto &a : e.args) infer(*a, ctx);
      return Type::error();
    }
    const Signature &sig = it->second;
    if (sig.is_node && ctx.in_fun) {
      d_.error("fun.stream-op", callee_span(e), "'" + e.name + "' is a node; a 'fun' body can only call functions");
      return Type::error();
    }
    if (sig.is_node && ctx.const_mode) {
      d_.error("static.not-static", callee_span(e), "a constant cannot instantiate a node");
      return Type::error();
    }
    if (sig.is_node && ctx.is_function && sig.stateful) {
      d_.error("node.function-stateful", callee_span(e),
               "'" + e.name + "' keeps state; a Lustre 'function' must be stateless (declare it as a 'node')");
    }
    if (e.args.size() != sig.inputs.size()) {
      d_.error("arity.args", callee_span(e),
               "'" + e.name + "' takes " + std::to_string(sig.inputs.size()) + " argument" +
                   (sig.inputs.size() == 1 ? "" : "s") + ", but " + std::to_string(e.args.size()) +
                   (e.args.size() == 1 ? " is" : " are") + " given");
      for (auto &a : e.args) infer(*a, ctx);
      return error_outputs(sig, allow_tuple);
    }
    CallInfo ci;
    ci.kind = sig.is_node ? CallInfo::Node : CallInfo::Fun;
    ci.callee = e.name;
    TypeSubst &s = ci.subst;
    bool ok = sig.ok;
    bool any_error_arg = false;
    std::vector<Type> actual(e.args.size());
    for (size_t i = 0; i < e.args.size(); ++i) {
      const Param &p = sig.inputs[i];
      if (p.is_const) {
        auto v = static_arg(*e.args[i], ctx, p.static_kind,
                            "argument " + std::to_string(i + 1) + " of '" + e.name + "' ('const " + p.name + "')");
        if (!v) {
          ok = false;
          continue;
        }
        if (v->kind == StaticValue::Int) s.statics.sizes[p.name] = v->size;
        else s.statics.shapes[p.name] = v->shape;
      } else {
        actual[i] = infer(*e.args[i], ctx);
        if (resolve(actual[i]).is_error()) any_error_arg = true;  // already reported
      }
    }
    if (!ok) return error_outputs(sig, allow_tuple);
    // Pass 1: bind implicit variables; pass 2: unify every argument. Pass 1 binds the
    // renamed-apart variables in `fresh` (which also holds the static arguments), then
    // hands the bindings back under the callee's own names.
    {
      Renaming rn = rename_implicit(sig);
      TypeSubst fresh = s;
      for (size_t i = 0; i < e.args.size(); ++i)
        if (!sig.inputs[i].is_const) {
          Type partial = fresh.apply(rn.to_fresh.apply(sig.inputs[i].type));
          bind_implicit(partial, actual[i], rn, fresh);
        }
      for (size_t k = 0; k < sig.size_vars.size(); ++k)
        if (auto b = fresh.statics.sizes.find(rn.size_vars[k]); b != fresh.statics.sizes.end())
          s.statics.sizes[sig.size_vars[k]] = b->second;
      for (size_t k = 0; k < sig.shape_vars.size(); ++k)
        if (auto b = fresh.statics.shapes.find(rn.shape_vars[k]); b != fresh.statics.shapes.end())
          s.statics.shapes[sig.shape_vars[k]] = b->second;
      for (size_t k = 0; k < sig.tyvars.size(); ++k)
        if (auto b = fresh.tyvars.find(rn.tyvars[k]); b != fresh.tyvars.end()) s.tyvars[sig.tyvars[k]] = b->second;
    }
    // An argument whose type is still unknown (a cycle through this call) may leave the
    // callee's implicit variables unbound: the outputs are then unknown too. The silent
    // probe pass moves on (its hints type the argument for the real pass); the real pass
    // asks for a declaration.
    if (ok && !any_error_arg && leaves_unbound(sig, s)) {
      for (size_t i = 0; i < e.args.size(); ++i)
        if (!sig.inputs[i].is_const && resolve(actual[i]).kind == Type::Meta) {
          if (d_.silent) return tuple_or_one_impl(fresh_outputs(sig.outputs.size()), allow_tuple);
          d_.error("type.missing", start_span(*e.args[i]),
                   "the type of this argument is not known here (it depends on itself through a cycle); declare the "
                   "variable's type in a 'var' section");
          return error_outputs(sig, allow_tuple);
        }
    }
    for (size_t i = 0; i < e.args.size(); ++i) {
      const Param &p = sig.inputs[i];
      if (p.is_const) continue;
      Type want = s.apply(p.type);
      Type got = resolve(actual[i]);
      if (got.kind == Type::Tuple) {
        d_.error("type.tuple", start_span(*e.args[i]), "a call with several outputs cannot be an argument");
        ok = false;
        continue;
      }
      if (!unify(got, want)) {
        mismatch(*e.args[i], got, want,
                 "argument " + std::to_string(i + 1) + " ('" + p.name + "') of '" + e.name + "'");
        ok = false;
      }
    }
    if (!ok || any_error_arg) {
      // Outputs fixed by the static arguments alone are still known: keep checking with them.
      if (auto early = early_outputs(e, ctx)) {
        if (early->size() == 1) return (*early)[0];
        if (allow_tuple) return Type::tuple(*early);
      }
      return error_outputs(sig, allow_tuple);
    }
    cp_.calls[&e] = ci;
    std::vector<Type> outs;
    for (auto &o : sig.outputs) outs.push_back(s.apply(o));
    if (outs.size() == 1) return outs[0];
    if (!allow_tuple) {
      d_.error(outs.empty() ? "arity.outputs" : "type.tuple", callee_span(e),
               "'" + e.name + "' has " + std::to_string(outs.size()) +
                   " outputs; bind them with an equation 'a, b = " + e.name + "(...)'");
      return Type::error();
    }
    return Type::tuple(std::move(outs));
  }

  // Whether the signature's outputs mention an implicit variable the substitution lacks.
  static bool leaves_unbound(const Signature &sig, const TypeSubst &s) {
    for (auto &o : sig.outputs) {
      if (o.kind == Type::TyVar && !s.tyvars.count(o.tyvar)) return true;
      if (o.kind != Type::Tensor) continue;
      for (auto &d : o.shape) {
        if (auto *p = std::get_if<Poly>(&d)) {
          for (auto &sym : p->symbols())
            if (std::count(sig.size_vars.begin(), sig.size_vars.end(), sym) && !s.statics.sizes.count(sym)) return true;
        } else {
          const std::string &nm = std::get<ShapeSym>(d).name;
          if (std::count(sig.shape_vars.begin(), sig.shape_vars.end(), nm) && !s.statics.shapes.count(nm)) return true;
        }
      }
    }
    return false;
  }
  std::vector<Type> fresh_outputs(size_t n) {
    std::vector<Type> v;
    for (size_t k = 0; k < n; ++k) v.push_back(fresh_meta());
    return v;
  }

  // After an error in a call: error values, but as many as the callee has outputs, so
  // that an equation binding the wrong number of them is still reported.
  static Type tuple_or_one_impl(std::vector<Type> ts, bool allow_tuple) {
    if (ts.size() == 1) return ts[0];
    if (!allow_tuple) return Type::error();
    return Type::tuple(std::move(ts));
  }
  static Type error_outputs(const Signature &sig, bool allow_tuple) {
    if (sig.outputs.size() <= 1 || !allow_tuple) return Type::error();
    return Type::tuple(std::vector<Type>(sig.outputs.size(), Type::error()));
  }

  Type infer_conversion(const Expr &e, Ctx &ctx) {
    if (e.args.size() != 1) {
      d_.error("arity.args", callee_span(e), "'" + e.name + "' takes 1 argument");
      return Type::error();
    }
    Type a = resolve(infer(*e.args[0], ctx));
    if (a.is_error()) return a;
    Scalar from = e.name == "real" ? Scalar::Int : Scalar::Real;
    Scalar to = e.name == "real" ? Scalar::Real : Scalar::Int;
    if (a.kind != Type::Tensor || a.elem != from) {
      d_.error("type.mismatch", start_span(*e.args[0]),
               "'" + e.name + "' converts " + scalar_name(from) + " to " + scalar_name(to) + ", found " + type_str(a));
      return Type::error();
    }
    cp_.calls[&e] = CallInfo{CallInfo::Builtin, e.name, {}};
    return Type::tensor(to, a.shape);
  }

  bool arity(const Expr &e, size_t lo, size_t hi) {
    if (e.args.size() < lo || e.args.size() > hi) {
      d_.error("arity.args", callee_span(e),
               "'" + e.name + "' takes " + (lo == hi ? std::to_string(lo) : std::to_string(lo) + " or " + std::to_string(hi)) +
                   " arguments, but " + std::to_string(e.args.size()) + " are given");
      return false;
    }
    return true;
  }

  Type need_tensor(const Expr &a, Ctx &ctx, const std::string &what) {
    Type t = resolve(infer(a, ctx));
    if (t.is_error()) return t;
    if (t.kind != Type::Tensor) {
      d_.error("type.mismatch", start_span(a), what + " must be a tensor, found " + type_str(t));
      return Type::error();
    }
    return t;
  }

  // Known leading dims (before any abstract shape) of a type.
  static size_t known_prefix(const Shape &s) {
    size_t k = 0;
    while (k < s.size() && std::holds_alternative<Poly>(s[k])) ++k;
    return k;
  }

  Type lambda_body(const Expr &lam, size_t n_binders, Ctx &ctx, const std::string &what) {
    if (lam.kind != ExprKind::Lambda) {
      d_.error("fun.lambda-position", start_span(lam), what + " needs a lambda '\\(i, ...) => e' as its last argument");
      return Type::error();
    }
    if (lam.binders.size() != n_binders) {
      d_.error("arity.args", lam.span,
               what + ": the lambda binds " + std::to_string(lam.binders.size()) + " index variable(s), " +
                   std::to_string(n_binders) + " expected");
      return Type::error();
    }
    std::map<std::string, Type> scope;
    for (auto &b : lam.binders) scope[b] = Type::scalar(Scalar::Int);
    ctx.scopes.push_back(scope);
    Type t = infer(*lam.args[0], ctx, false);
    ctx.scopes.pop_back();
    record(lam, t);
    return t;
  }

  // Index list of gather/scatter lambdas: `[e1, .., ep]` of int scalars.
  std::optional<size_t> index_list(const Expr &lam, size_t n_binders, Ctx &ctx, const std::string &what) {
    if (lam.kind != ExprKind::Lambda) {
      d_.error("fun.lambda-position", start_span(lam), what + " needs a lambda '\\(i, ...) => [ix, ...]' as its last argument");
      return std::nullopt;
    }
    if (lam.binders.size() != n_binders) {
      d_.error("arity.args", lam.span,
               what + ": the lambda binds " + std::to_string(lam.binders.size()) + " index variable(s), " +
                   std::to_string(n_binders) + " expected");
      return std::nullopt;
    }
    const Expr &body = *lam.args[0];
    if (body.kind != ExprKind::Array) {
      d_.error("type.mismatch", start_span(body), what + ": the lambda must return an index list '[i1, ...]'");
      return std::nullopt;
    }
    std::map<std::string, Type> scope;
    for (auto &b : lam.binders) scope[b] = Type::scalar(Scalar::Int);
    ctx.scopes.push_back(scope);
    bool ok = true;
    for (auto &ix : body.args) {
      Type t = resolve(infer(*ix, ctx));
      if (!t.is_error() && !t.is_scalar(Scalar::Int)) {
        d_.error("type.mismatch", start_span(*ix), what + ": index components must be int scalars, found " + type_str(t));
        ok = false;
      }
    }
    ctx.scopes.pop_back();
    if (!ok) return std::nullopt;
    return body.args.size();
  }

  Type infer_builtin(const Expr &e, Ctx &ctx) {
    const std::string &n = e.name;
    cp_.calls[&e] = CallInfo{CallInfo::Builtin, n, {}};
    bool lambda_builtin = n == "build" || n == "gather" || n == "scatter";
    if (lambda_builtin && !ctx.in_fun) {
      d_.error("fun.lambda-position", callee_span(e), "'" + n + "' takes a lambda: it can only be used in a 'fun' body");
      return Type::error();
    }
    if (kElementwise1.count(n)) {
      if (!arity(e, 1, 1)) return Type::error();
      Type t = need_tensor(*e.args[0], ctx, "the argument of '" + n + "'");
      if (t.is_error()) return t;
      if (!ops::result_type(ops::row(*ops::find_unary(n)).typing, t.elem)) {
        d_.error("type.mismatch", start_span(*e.args[0]), "'" + n + "' needs a real argument, found " + type_str(t));
        return Type::error();
      }
      return t;
    }
    if (n == "max" || n == "min") {
      if (!arity(e, 2, 2)) return Type::error();
      Type l = infer(*e.args[0], ctx), r = infer(*e.args[1], ctx);
      Type t = resolve(broadcast(e, l, r, n.c_str()));
      if (t.kind == Type::Tensor && t.elem == Scalar::Bool) {
        d_.error("type.not-numeric", start_span(*e.args[0]), "'" + n + "' needs int or real operands");
        return Type::error();
      }
      return t;
    }
    if (n == "floor") {
      if (!arity(e, 1, 1)) return Type::error();
      Type t = need_tensor(*e.args[0], ctx, "the argument of 'floor'");
      if (t.is_error()) return t;
      if (t.elem != Scalar::Real) {
        d_.error("type.mismatch", start_span(*e.args[0]), "'floor' needs a real argument, found " + type_str(t));
        return Type::error();
      }
      return Type::tensor(Scalar::Int, t.shape);
    }
    if (n == "rank" || n == "prod") {  // static values used as int values
      if (!arity(e, 1, 1)) return Type::error();
      auto v = static_arg(e, ctx, StaticValue::Int, "'" + n + "'");
      return v ? Type::scalar(Scalar::Int) : Type::error();
    }
    if (n == "iota") {
      if (!arity(e, 1, 1)) return Type::error();
      auto k = static_arg(*e.args[0], ctx, StaticValue::Int, "the size of 'iota'");
      if (!k) return Type::error();
      return Type::tensor(Scalar::Int, {k->size});
    }
    if (n == "replicate") {
      if (!arity(e, 2, 2)) return Type::error();
      auto k = static_arg(*e.args[0], ctx, StaticValue::Int, "the count of 'replicate'");
      Type t = need_tensor(*e.args[1], ctx, "the argument of 'replicate'");
      if (!k || t.is_error()) return Type::error();
      try {
        check_dims({k->size}, e.args[0]->span);
      } catch (StaticEvalError &se) {
        report_static(se);
        return Type::error();
      }
      Shape s{k->size};
      s.insert(s.end(), t.shape.begin(), t.shape.end());
      return Type::tensor(t.elem, s);
    }
    if (n == "sumOuter") {
      if (!arity(e, 1, 1)) return Type::error();
      Type t = need_tensor(*e.args[0], ctx, "the argument of 'sumOuter'");
      if (t.is_error()) return t;
      if (t.elem == Scalar::Bool) {
        d_.error("type.not-numeric", start_span(*e.args[0]), "'sumOuter' sums numbers, not bools");
        return Type::error();
      }
      if (known_prefix(t.shape) < 1) {
        d_.error("shape.rank", start_span(*e.args[0]), "'sumOuter' needs a tensor with an outer dimension, found " + type_str(t));
        return Type::error();
      }
      return Type::tensor(t.elem, Shape(t.shape.begin() + 1, t.shape.end()));
    }
    if (n == "sum") {
      if (!arity(e, 1, 2)) return Type::error();
      const Expr &arg = *e.args.back();
      Type t = need_tensor(arg, ctx, "the argument of 'sum'");
      std::optional<StaticValue> axis;
      if (e.args.size() == 2) axis = static_arg(*e.args[0], ctx, StaticValue::Int, "the axis of 'sum'");
      if (t.is_error() || (e.args.size() == 2 && !axis)) return Type::error();
      if (t.elem == Scalar::Bool) {
        d_.error("type.not-numeric", start_span(arg), "'sum' sums numbers, not bools");
        return Type::error();
      }
      if (!axis) return Type::scalar(t.elem);
      if (!axis->size.is_const() || axis->size.const_value() < 0 ||
          static_cast<size_t>(axis->size.const_value()) >= known_prefix(t.shape)) {
        d_.error("shape.rank", start_span(*e.args[0]), "axis " + axis->str() + " is not a dimension of " + type_str(t));
        return Type::error();
      }
      Shape s = t.shape;
      s.erase(s.begin() + axis->size.const_value());
      return Type::tensor(t.elem, s);
    }
    if (n == "tr") {
      if (!arity(e, 1, 1)) return Type::error();
      Type t = need_tensor(*e.args[0], ctx, "the argument of 'tr'");
      if (t.is_error()) return t;
      if (known_prefix(t.shape) < 2) {
        d_.error("shape.rank", start_span(*e.args[0]), "'tr' swaps the two outer dimensions: it needs rank >= 2, found " + type_str(t));
        return Type::error();
      }
      Shape s = t.shape;
      std::swap(s[0], s[1]);
      return Type::tensor(t.elem, s);
    }
    if (n == "transpose") {
      if (!arity(e, 2, 2)) return Type::error();
      auto perm = static_arg(*e.args[0], ctx, StaticValue::ShapeV, "the permutation of 'transpose'");
      Type t = need_tensor(*e.args[1], ctx, "the argument of 'transpose'");
      if (!perm || t.is_error()) return Type::error();
      size_t m = perm->shape.size();
      std::vector<int64_t> p;
      for (auto &d : perm->shape) {
        auto *q = std::get_if<Poly>(&d);
        if (!q || !q->is_const()) {
          d_.error("static.eval", start_span(*e.args[0]), "the permutation must be a list of constants");
          return Type::error();
        }
        p.push_back(q->const_value());
      }
      std::vector<int64_t> sorted = p;
      std::sort(sorted.begin(), sorted.end());
      for (size_t i = 0; i < m; ++i)
        if (sorted[i] != static_cast<int64_t>(i)) {
          d_.error("static.eval", start_span(*e.args[0]), "not a permutation of 0.." + std::to_string(m) + "-1: " + perm->str());
          return Type::error();
        }
      if (known_prefix(t.shape) < m) {
        d_.error("shape.rank", start_span(*e.args[1]), "'transpose' by " + perm->str() + " needs rank >= " + std::to_string(m) + ", found " + type_str(t));
        return Type::error();
      }
      Shape s;
      for (size_t i = 0; i < m; ++i) s.push_back(t.shape[static_cast<size_t>(p[i])]);
      s.insert(s.end(), t.shape.begin() + static_cast<long>(m), t.shape.end());
      return Type::tensor(t.elem, s);
    }
    if (n == "reshape") {
      if (!arity(e, 2, 2)) return Type::error();
      auto sh = static_arg(*e.args[0], ctx, StaticValue::ShapeV, "the shape of 'reshape'");
      Type t = need_tensor(*e.args[1], ctx, "the argument of 'reshape'");
      if (!sh || t.is_error()) return Type::error();
      if (shape_product(sh->shape) != shape_product(t.shape)) {
        d_.error("shape.mismatch", callee_span(e),
                 "'reshape' to " + sh->str() + " (" + shape_product(sh->shape).str() + " elements) from " + type_str(t) +
                     " (" + shape_product(t.shape).str() + " elements): the element counts differ");
        return Type::error();
      }
      return Type::tensor(t.elem, sh->shape);
    }
    if (n == "build") {
      if (!arity(e, 2, 2)) return Type::error();
      auto k = eval_loose(*e.args[0], ctx, "the size of 'build'");
      if (!k) return Type::error();
      Shape outer = k->kind == StaticValue::Int ? Shape{k->size} : k->shape;
      Type b = resolve(lambda_body(*e.args[1], outer.size(), ctx, "'build'"));
      if (b.is_error()) return b;
      if (b.kind != Type::Tensor) {
        d_.error("type.mismatch", start_span(*e.args[1]), "'build' bodies produce tensors, found " + type_str(b));
        return Type::error();
      }
      outer.insert(outer.end(), b.shape.begin(), b.shape.end());
      return Type::tensor(b.elem, outer);
    }
    if (n == "gather" || n == "scatter") {
      if (!arity(e, 3, 3)) return Type::error();
      auto sh = static_arg(*e.args[0], ctx, StaticValue::ShapeV, "the shape of '" + n + "'");
      Type t = need_tensor(*e.args[1], ctx, "the argument of '" + n + "'");
      if (!sh || t.is_error()) return Type::error();
      const Expr &lam = *e.args[2];
      size_t binders = lam.kind == ExprKind::Lambda ? lam.binders.size() : 0;
      auto m2 = index_list(lam, binders, ctx, "'" + n + "'");
      if (!m2) return Type::error();
      size_t m1 = binders;
      // gather: out = sh = [k'1..k'm1] ++ rest, t = [k1..km2] ++ rest.
      // scatter: t = [k1..km1] ++ rest, out = sh = [k'1..k'm2] ++ rest.
      size_t t_lead = n == "gather" ? *m2 : m1, out_lead = n == "gather" ? m1 : *m2;
      if (known_prefix(t.shape) < t_lead || sh->shape.size() < out_lead) {
        d_.error("shape.rank", callee_span(e), "'" + n + "': the ranks of " + type_str(t) + " and " + sh->str() +
                                                    " do not fit the lambda's " + std::to_string(m1) + " -> " +
                                                    std::to_string(*m2) + " indices");
        return Type::error();
      }
      Shape rest_t(t.shape.begin() + static_cast<long>(t_lead), t.shape.end());
      Shape rest_o(sh->shape.begin() + static_cast<long>(out_lead), sh->shape.end());
      if (!shape_equal(rest_t, rest_o)) {
        d_.error("shape.mismatch", callee_span(e), "'" + n + "': the trailing dimensions " + shape_str(rest_o) +
                                                        " of the result differ from " + shape_str(rest_t) + " of the argument");
        return Type::error();
      }
      if (n == "scatter" && t.elem == Scalar::Bool) {
        d_.error("type.not-numeric", start_span(*e.args[1]), "'scatter' adds values: it needs int or real, not bool");
        return Type::error();
      }
      return Type::tensor(t.elem, sh->shape);
    }
    d_.error("name.unknown", callee_span(e), "unknown builtin '" + n + "'");
    return Type::error();
  }

  // `build`'s first argument: a static int or a static shape.
  std::optional<StaticValue> eval_loose(const Expr &a, Ctx &ctx, const std::string &what) {
    try {
      StaticValue v = eval_static(a, ctx.env());
      check_dims(v.kind == StaticValue::Int ? Shape{v.size} : v.shape, a.span);
      cp_.static_args[&a] = v;
      record(a, v.kind == StaticValue::Int ? Type::scalar(Scalar::Int) : Type::shape_type());
      return v;
    } catch (NotStatic &ns) {
      d_.error("static.not-static", start_span(a), what + " must be static: " + ns.why);
    } catch (StaticEvalError &se) {
      report_static(se);
    }
    return std::nullopt;
  }

  // ------------------------------------------------------------------ bodies
  void check_fun(const FunDecl &f) {
    const Signature &sig = cp_.sigs[f.name];
    DeclScope decl_scope(in_prelude_, sig.from_prelude);
    Ctx ctx;
    ctx.in_fun = true;
    ctx.decl = f.name;
    std::map<std::string, Type> scope;
    for (auto &p : sig.inputs) {
      if (p.is_const) {
        ctx.statics[p.name] = p.static_kind == StaticValue::Int ? StaticValue::of_int(Poly::symbol(p.name))
                                                                : StaticValue::of_shape({ShapeSym{p.name}});
      } else {
        scope[p.name] = p.type;
      }
    }
    for (auto &v : sig.size_vars) ctx.statics[v] = StaticValue::of_int(Poly::symbol(v));
    for (auto &v : sig.shape_vars) ctx.statics[v] = StaticValue::of_shape({ShapeSym{v}});
    ctx.scopes.push_back(scope);
    Type body = infer(*f.body, ctx);
    if (sig.ok && !unify(body, sig.outputs[0])) mismatch(*f.body, body, sig.outputs[0], "the declared result type of '" + f.name + "'");
  }

  // Locals are typed in the order their uses demand; a cycle can make a use see an
  // unknown type that a later equation determines. So the node is first typed silently,
  // up to twice, and the local types found are given to the real pass.
  void check_node(const NodeDecl &n) {
    DeclScope decl_scope(in_prelude_, cp_.sigs[n.name].from_prelude);
    std::map<std::string, Type> hints;
    for (int probe = 0; probe < 2; ++probe) {
      d_.silent = true;
      size_t before = hints.size();
      check_node_pass(n, hints);
      d_.silent = false;
      for (auto &[name, vi] : cp_.nodes[n.name].vars) {
        Type t = zonk(vi.type);
        if (vi.kind == VarInfo::Local && !vi.declared && t.kind == Type::Tensor) hints[name] = t;
      }
      if (hints.size() == before) break;
    }
    check_node_pass(n, hints);
  }

  void check_node_pass(const NodeDecl &n, const std::map<std::string, Type> &hints) {
    const Signature &sig = cp_.sigs[n.name];
    cp_.nodes[n.name] = NodeInfo{};
    NodeInfo &info = cp_.nodes[n.name];
    NodeState st;
    st.decl = &n;
    st.info = &info;
    st.eq_state.assign(n.equations.size(), 0);
    Ctx ctx;
    ctx.decl = n.name;
    ctx.node = &st;
    ctx.is_function = n.is_function;
    st.ctx = &ctx;
    for (auto &p : sig.inputs) {
      if (p.is_const) {
        StaticValue v = p.static_kind == StaticValue::Int ? StaticValue::of_int(Poly::symbol(p.name))
                                                          : StaticValue::of_shape({ShapeSym{p.name}});
        ctx.statics[p.name] = v;
        info.statics[p.name] = v;
      } else {
        info.vars[p.name] = VarInfo{VarInfo::Input, p.type, p.span, true, -1};
      }
    }
    for (auto &v : sig.size_vars) ctx.statics[v] = StaticValue::of_int(Poly::symbol(v));
    for (auto &v : sig.shape_vars) ctx.statics[v] = StaticValue::of_shape({ShapeSym{v}});
    for (size_t i = 0; i < n.outputs.size(); ++i) {
      const VarDecl &v = n.outputs[i];
      if (info.vars.count(v.name) || ctx.statics.count(v.name)) continue;  // duplicate: reported with the signature
      info.vars[v.name] = VarInfo{VarInfo::Output, i < sig.outputs.size() ? sig.outputs[i] : Type::error(), v.span, true, -1};
    }
    // Static locals: `shape = [units, sizex];` used where a static value is needed.
    st.static_lookup = [this, &st](const std::string &name, Span) -> std::optional<StaticValue> {
      auto it = st.info->vars.find(name);
      if (it == st.info->vars.end() || it->second.def_eq < 0) return std::nullopt;
      const Equation &eq = st.decl->equations[it->second.def_eq];
      if (eq.lhs.size() != 1 || st.static_in_progress.count(name)) return std::nullopt;
      st.static_in_progress.insert(name);
      std::optional<StaticValue> out;
      try {
        out = eval_static(*eq.rhs, st.ctx->env());
        st.info->statics[name] = *out;
      } catch (NotStatic &) {
      } catch (StaticEvalError &) {
      }
      st.static_in_progress.erase(name);
      return out;
    };
    for (auto &v : n.locals) {
      if (info.vars.count(v.name) || ctx.statics.count(v.name)) {
        d_.error("name.duplicate", v.span, "'" + v.name + "' is already declared in this node");
        continue;
      }
      if (v.is_const) {
        d_.error("static.kind", v.span, "local variables cannot be static ('const')");
        continue;
      }
      info.vars[v.name] = VarInfo{VarInfo::Local, Type::error(), v.span, true, -1};
    }
    // Local types may mention static locals, so they are evaluated after all definitions are known.
    // Definitions.
    for (size_t k = 0; k < n.equations.size(); ++k) {
      for (auto &item : n.equations[k].lhs) {
        if (item.name == "_") continue;
        auto it = info.vars.find(item.name);
        if (ctx.statics.count(item.name) || (it != info.vars.end() && it->second.kind == VarInfo::Input)) {
          d_.error("name.input-defined", item.span, "'" + item.name + "' is an input of '" + n.name + "'; it cannot be defined by an equation");
          continue;
        }
        if (it == info.vars.end()) {
          Type t = fresh_meta();
          if (auto h = hints.find(item.name); h != hints.end()) unify(t, h->second);
          info.vars[item.name] = VarInfo{VarInfo::Local, t, item.span, false, static_cast<int>(k)};
          continue;
        }
        if (it->second.def_eq >= 0) {
          d_.error("name.redefined", item.span, "'" + item.name + "' is defined by two equations");
          d_.note(n.equations[it->second.def_eq].span, "first defined here");
          continue;
        }
        it->second.def_eq = static_cast<int>(k);
      }
    }
    for (auto &v : n.locals) {
      auto it = info.vars.find(v.name);
      if (it == info.vars.end() || it->second.kind != VarInfo::Local || !it->second.declared) continue;
      if (!v.type) continue;
      it->second.type = type_from_syntax(*v.type, ctx);
    }
    for (size_t k = 0; k < n.equations.size(); ++k) check_equation(st, static_cast<int>(k));
    // Declared clocks `x: t when c`: c is a bool variable of this node.
    auto check_clock_ann = [&](const std::vector<VarDecl> &vs, bool inputs) {
      for (auto &v : vs)
        for (auto &c : v.clock) {
          auto it = info.vars.find(c.var);
          if (it == info.vars.end()) {
            d_.error("name.unknown", c.span, "the clock condition '" + c.var + "' is not a variable of '" + n.name + "'");
            continue;
          }
          if (inputs && it->second.kind != VarInfo::Input) {  // Lustre: input clocks mention inputs
            d_.error("name.unknown", c.span, "the clock of input '" + v.name + "' can only use inputs, and '" + c.var + "' is not one");
            continue;
          }
          Type t = zonk(it->second.type);
          if (!t.is_error() && t.kind != Type::Meta && !t.is_scalar(Scalar::Bool))
            d_.error("type.not-bool", c.span, "the clock condition '" + c.var + "' must be a bool, but it has type " + type_str(t));
        }
    };
    check_clock_ann(n.inputs, true);
    check_clock_ann(n.outputs, false);
    check_clock_ann(n.locals, false);
    for (auto &a : n.assumptions) {
      Type t = infer(*a.cond, ctx);
      require_bool_scalar(*a.cond, t, a.property ? "a property" : "an assumption");
      if (!a.property && (a.within == 0 || a.within > 1000000))
        d_.error("static.eval", a.span, "the bound of 'within' must be between 1 and 1000000 cycles");
    }
    for (auto &v : n.outputs)
      if (info.vars.count(v.name) && info.vars[v.name].kind == VarInfo::Output && info.vars[v.name].def_eq < 0)
        d_.error("name.undefined", v.span, "output '" + v.name + "' of '" + n.name + "' is never defined");
    for (auto &v : n.locals)
      if (info.vars.count(v.name) && info.vars[v.name].kind == VarInfo::Local && info.vars[v.name].def_eq < 0)
        d_.error("name.undefined", v.span, "local '" + v.name + "' of '" + n.name + "' is never defined");
    for (auto &[name, vi] : info.vars) {
      vi.type = zonk(vi.type);
      if (vi.type.kind == Type::Meta)
        d_.error("type.missing", vi.span, "cannot infer the type of '" + name + "'; declare it in a 'var' section");
    }
  }

  const Expr *hint_expr_ = nullptr;
  Type hint_type_;

  // Output types of a call that follow from its static arguments alone, so that locals
  // defined by it are typed before its value arguments (which may depend on them).
  std::optional<std::vector<Type>> early_outputs(const Expr &e, Ctx &ctx) {
    if (e.kind != ExprKind::Call || !visible(e.name)) return std::nullopt;
    auto it = cp_.sigs.find(e.name);
    if (it == cp_.sigs.end() || !it->second.ok || it->second.inputs.size() != e.args.size()) return std::nullopt;
    const Signature &sig = it->second;
    StaticSubst ss;
    for (size_t i = 0; i < e.args.size(); ++i) {
      if (!sig.inputs[i].is_const) continue;
      try {
        StaticValue v = eval_static(*e.args[i], ctx.env());
        if (v.kind != sig.inputs[i].static_kind) return std::nullopt;
        if (v.kind == StaticValue::Int) ss.sizes[sig.inputs[i].name] = v.size;
        else ss.shapes[sig.inputs[i].name] = v.shape;
      } catch (...) {
        return std::nullopt;
      }
    }
    // Implicit variables renamed apart first, so that a static argument mentioning a
    // caller name equal to one of them is not mistaken for it.
    Renaming rn = rename_implicit(sig);
    std::vector<Type> outs;
    for (auto &o : sig.outputs) {
      if (o.kind != Type::Tensor) return std::nullopt;
      Shape sh = ss.apply(rn.to_fresh.statics.apply(o.shape));
      if (mentions_fresh(sh)) return std::nullopt;
      outs.push_back(Type::tensor(o.elem, sh));
    }
    return outs;
  }

  void check_equation(NodeState &st, int k) {
    if (st.eq_state[k] != 0) return;
    st.eq_state[k] = 1;
    const Equation &eq = st.decl->equations[k];
    Ctx &ctx = *st.ctx;
    bool multi = eq.lhs.size() > 1;
    if (auto early = early_outputs(*eq.rhs, ctx); early && early->size() == eq.lhs.size()) {
      for (size_t i = 0; i < eq.lhs.size(); ++i) {
        auto it = st.info->vars.find(eq.lhs[i].name);
        if (it != st.info->vars.end() && it->second.def_eq == k && !it->second.declared) unify(it->second.type, (*early)[i]);
      }
    }
    if (!multi && eq.rhs->kind == ExprKind::Binary && (eq.rhs->op == Op::Fby || eq.rhs->op == Op::Arrow)) {
      auto it = st.info->vars.find(eq.lhs[0].name);
      if (it != st.info->vars.end() && it->second.def_eq == k) {
        hint_expr_ = eq.rhs.get();
        hint_type_ = it->second.type;
      }
    }
    Type rhs = resolve(infer(*eq.rhs, ctx, true));
    std::vector<Type> parts;
    if (multi) {
      if (rhs.is_error()) {
        parts.assign(eq.lhs.size(), Type::error());
      } else if (rhs.kind != Type::Tuple || rhs.elems.size() != eq.lhs.size()) {
        size_t got = rhs.kind == Type::Tuple ? rhs.elems.size() : 1;
        d_.error("arity.outputs", start_span(*eq.rhs),
                 "the left side defines " + std::to_string(eq.lhs.size()) + " variables, but the right side has " +
                     std::to_string(got) + " value" + (got == 1 ? "" : "s"));
        parts.assign(eq.lhs.size(), Type::error());
      } else {
        parts = rhs.elems;
      }
    } else {
      if (rhs.kind == Type::Tuple) {
        d_.error("arity.outputs", start_span(*eq.rhs),
                 "the left side defines 1 variable, but the right side has " + std::to_string(rhs.elems.size()) + " values");
        rhs = Type::error();
      }
      parts.push_back(rhs);
    }
    for (size_t i = 0; i < eq.lhs.size(); ++i) {
      const std::string &n = eq.lhs[i].name;
      if (n == "_") continue;
      auto it = st.info->vars.find(n);
      if (it == st.info->vars.end() || it->second.def_eq != k) continue;
      if (!unify(it->second.type, parts[i])) {
        if (multi)
          d_.error(zonk(it->second.type).kind == Type::Tensor && zonk(parts[i]).kind == Type::Tensor &&
                           zonk(it->second.type).elem == zonk(parts[i]).elem
                       ? "shape.mismatch"
                       : "type.mismatch",
                   eq.lhs[i].span,
                   "'" + n + "' has type " + type_str(zonk(it->second.type)) + ", but the value bound to it has type " +
                       type_str(zonk(parts[i])));
        else
          mismatch(*eq.rhs, parts[i], it->second.type, "the type of '" + n + "'");
      }
    }
    st.eq_state[k] = 2;
  }

  void zonk_all() {
    for (auto &[e, t] : cp_.expr_types) t = zonk(t);
    for (auto &[e, ci] : cp_.calls)
      for (auto &[n, t] : ci.subst.tyvars) t = zonk(t);
  }
};

}  // namespace

bool is_builtin(const std::string &name) { return kBuiltins.count(name) > 0; }

bool builtin_static_arg(const std::string &name, size_t k, size_t nargs) {
  if (k != 0) return false;
  return name == "build" || name == "gather" || name == "scatter" || name == "replicate" || name == "reshape" ||
         name == "iota" || name == "transpose" || (name == "sum" && nargs == 2);
}

namespace {

// Renames, in one prelude declaration, the references to prelude declarations that the
// user shadows. `bound` holds the names bound locally where `e` is (parameters, node
// variables, let and lambda binders): they are not global references.
void rename_refs(Expr &e, const std::map<std::string, std::string> &renamed, std::set<std::string> &bound) {
  if (e.kind == ExprKind::Call || (e.kind == ExprKind::Var && !bound.count(e.name))) {
    if (auto it = renamed.find(e.name); it != renamed.end()) e.name = it->second;
  }
  if (e.kind == ExprKind::Let && e.args.size() == 2) {
    rename_refs(*e.args[0], renamed, bound);
    bool fresh = bound.insert(e.name).second;
    rename_refs(*e.args[1], renamed, bound);
    if (fresh) bound.erase(e.name);
    return;
  }
  std::vector<std::string> added;
  if (e.kind == ExprKind::Lambda)
    for (auto &b : e.binders)
      if (bound.insert(b).second) added.push_back(b);
  for (auto &a : e.args) rename_refs(*a, renamed, bound);
  for (auto &b : added) bound.erase(b);
}

void rename_type_refs(TypeSyntax &t, const std::map<std::string, std::string> &renamed, std::set<std::string> &bound) {
  for (auto &d : t.dims)
    if (d.expr) rename_refs(*d.expr, renamed, bound);
}

void rename_decl_refs(Decl &d, const std::map<std::string, std::string> &renamed) {
  std::set<std::string> bound;
  auto params = [&](std::vector<VarDecl> &vs) {
    for (auto &v : vs) bound.insert(v.name);
  };
  auto types = [&](std::vector<VarDecl> &vs) {
    for (auto &v : vs)
      if (v.type) rename_type_refs(*v.type, renamed, bound);
  };
  if (auto *n = std::get_if<NodeDecl>(&d)) {
    params(n->inputs);
    params(n->outputs);
    params(n->locals);
    for (auto &eq : n->equations)
      for (auto &l : eq.lhs) bound.insert(l.name);
    types(n->inputs);
    types(n->outputs);
    types(n->locals);
    for (auto &eq : n->equations) rename_refs(*eq.rhs, renamed, bound);
    for (auto &a : n->assumptions) rename_refs(*a.cond, renamed, bound);
  } else if (auto *f = std::get_if<FunDecl>(&d)) {
    params(f->params);
    types(f->params);
    rename_type_refs(f->result, renamed, bound);
    rename_refs(*f->body, renamed, bound);
  } else if (auto *c = std::get_if<ConstDecl>(&d)) {
    if (c->type) rename_type_refs(*c->type, renamed, bound);
    rename_refs(*c->value, renamed, bound);
  }
}

std::string &decl_name_ref(Decl &d) {
  return std::visit([](auto &x) -> std::string & { return x.name; }, d);
}

// A user declaration with a prelude declaration's name shadows it in the user's file
// (warning name.shadows-prelude), while the prelude keeps its own: the shadowed prelude
// declaration gets the name "prelude::NAME", which is not an identifier (so no user name
// can meet it), and every reference to it inside the prelude follows. Everything after
// the checker (elaboration, evaluator, lowering) resolves names through cp.decls and
// cp.sigs, so it sees the same two declarations.
void isolate_prelude(CheckedProgram &cp, Diagnostics &diags) {
  std::map<std::string, size_t> prelude;  // name -> the prelude's declaration
  for (size_t i = 0; i < cp.prelude_decls; ++i) prelude.emplace(decl_name(cp.program.decls[i]), i);
  std::map<std::string, std::string> renamed;
  for (size_t i = cp.prelude_decls; i < cp.program.decls.size(); ++i) {  // in the user's source order
    const std::string &n = decl_name(cp.program.decls[i]);
    auto p = prelude.find(n);
    if (p == prelude.end() || renamed.count(n)) continue;  // a second user 'n' is a name.duplicate
    diags.warning("name.shadows-prelude", decl_span(cp.program.decls[i]),
                  "'" + n + "' shadows the prelude's declaration of the same name; in this file '" + n +
                      "' is this declaration, while the prelude keeps using its own");
    diags.note(decl_span(cp.program.decls[p->second]), "the prelude's '" + n + "' is declared here");
    renamed[n] = "prelude::" + n;
  }
  if (renamed.empty()) return;
  for (size_t i = 0; i < cp.prelude_decls; ++i) {
    Decl &d = cp.program.decls[i];
    rename_decl_refs(d, renamed);
    std::string &n = decl_name_ref(d);
    if (auto it = renamed.find(n); it != renamed.end()) {
      n = it->second;
      cp.prelude_names.insert(n);
    }
  }
}

}  // namespace

void check_program(CheckedProgram &cp, Diagnostics &diags) {
  isolate_prelude(cp, diags);
  Checker c(cp, diags);
  c.set_prelude_count(cp.prelude_decls);
  c.run();
}

}  // namespace rml
