// Kind 2's quantifiers over finite domains (quantifiers.hpp).
#include "syntax/quantifiers.hpp"

#include <map>
#include <optional>
#include <set>

namespace rml {

namespace quantifier_expansion {  // (named: the syntax stage builds as one unity file)

struct Refused {};  // said (Diagnostics), the quantifier left as it was

ExprPtr make(ExprKind k, Span s) { return std::make_unique<Expr>(k, s); }

ExprPtr combine(Op op, ExprPtr a, ExprPtr b, Span s) {
  auto e = make(ExprKind::Binary, s);
  e->op = op;
  e->op_span = s;
  e->height = std::max(a->height, b->height) + 1;
  e->args.push_back(std::move(a));
  e->args.push_back(std::move(b));
  return e;
}

// parts[lo, hi) joined by op as a balanced tree (its height grows as log2 of the count).
ExprPtr balanced(std::vector<ExprPtr> &parts, size_t lo, size_t hi, Op op, Span s) {
  if (hi - lo == 1) return std::move(parts[lo]);
  size_t mid = lo + (hi - lo) / 2;
  ExprPtr a = balanced(parts, lo, mid, op, s);
  return combine(op, std::move(a), balanced(parts, mid, hi, op, s), s);
}

void flatten_and(const Expr &e, std::vector<const Expr *> &out) {
  if (e.kind == ExprKind::Binary && e.op == Op::And) {
    flatten_and(*e.args[0], out);
    flatten_and(*e.args[1], out);
  } else {
    out.push_back(&e);
  }
}

struct Expander {
  std::vector<Quantifier> &qs;
  Diagnostics &d;
  std::map<std::string, const ConstDecl *> consts;
  std::map<std::string, const TypeDecl *> types;
  std::set<std::string> locals;  // the node's variables: names no constant (they hide one)
  int64_t instances = 0;
  int64_t nodes = 0;  // written by the file's expansions so far
  mutable std::vector<std::string> bound_;

  static int64_t size(const Expr &e) {
    int64_t n = 1;
    for (auto &a : e.args) n += size(*a);
    return n;
  }

  [[noreturn]] void refuse(Span s, const std::string &why) {
    d.error("syntax.unsupported", s, why);
    throw Refused{};
  }

  // A static int (quantifiers.hpp), or nothing.
  std::optional<int64_t> static_int(const Expr &e, int depth = 0) const {
    if (depth > 64) return std::nullopt;
    switch (e.kind) {
      case ExprKind::IntLit: return e.ival;
      case ExprKind::Var: {
        auto it = consts.find(e.name);
        if (locals.count(e.name) || it == consts.end() || !it->second->value) return std::nullopt;
        return static_int(*it->second->value, depth + 1);
      }
      case ExprKind::Unary: {
        auto a = e.op == Op::Neg ? static_int(*e.args[0], depth + 1) : std::nullopt;
        if (!a || *a == INT64_MIN) return std::nullopt;
        return -*a;
      }
      case ExprKind::Binary: {
        auto a = static_int(*e.args[0], depth + 1), b = static_int(*e.args[1], depth + 1);
        if (!a || !b) return std::nullopt;
        int64_t r;
        switch (e.op) {
          case Op::Add: return __builtin_add_overflow(*a, *b, &r) ? std::nullopt : std::optional<int64_t>(r);
          case Op::Sub: return __builtin_sub_overflow(*a, *b, &r) ? std::nullopt : std::optional<int64_t>(r);
          case Op::Mul: return __builtin_mul_overflow(*a, *b, &r) ? std::nullopt : std::optional<int64_t>(r);
          case Op::IntDiv:  // (where Lustre's and Kind 2's division agree: nothing negative)
            return *a >= 0 && *b > 0 ? std::optional<int64_t>(*a / *b) : std::nullopt;
          case Op::Mod: return *a >= 0 && *b > 0 ? std::optional<int64_t>(*a % *b) : std::nullopt;
          default: return std::nullopt;
        }
      }
      default: return std::nullopt;
    }
  }

  // The conjuncts that bound the quantifier's first variable: its guard's (the concise
  // form's G, or the body's `G => e` under forall and `G and e` under exists), looked for
  // through quantifiers of the same kind nested in the body that do not bind the name.
  void guards(const Quantifier &q, const Expr &call, std::vector<const Expr *> &out) const {
    const std::string &x = q.vars[0].name;
    const Expr *body = call.args.back().get();
    if (q.guarded) return flatten_and(*call.args[0], out);
    for (size_t k = 1; k < q.vars.size(); ++k)
      if (q.vars[k].name == x) return;  // the guard's x is the later one
    while (body->kind == ExprKind::Call && body->name == kQuantifierCall) {
      const Quantifier &inner = qs[static_cast<size_t>(body->ival)];
      if (inner.forall != q.forall) return;
      for (auto &v : inner.vars)
        if (v.name == x) return;
      if (inner.guarded) return flatten_and(*body->args[0], out);
      body = body->args.back().get();
    }
    if (q.forall && body->kind == ExprKind::Binary && body->op == Op::Implies) flatten_and(*body->args[0], out);
    if (!q.forall) flatten_and(*body, out);
  }

  // The values of the first variable of q, as expressions.
  std::vector<ExprPtr> domain(const Quantifier &q, const Expr &call) {
    const QuantifiedVar &x = q.vars[0];
    TypeSyntax t = x.type->clone();
    for (int depth = 0; t.kind == TypeSyntax::Named; ++depth) {
      auto it = types.find(t.name);
      if (it == types.end() || depth > 32) refuse(x.span, "the type of '" + x.name + "' ('" + t.name + "') is not one rml quantifies over");
      const TypeDecl &td = *it->second;
      if (td.is_enum) {
        std::vector<ExprPtr> vs;
        for (auto &c : td.ctors) {
          auto v = make(ExprKind::Var, call.span);
          v->name = c;
          vs.push_back(std::move(v));
        }
        return vs;
      }
      if (!td.alias) refuse(x.span, "a quantifier over a record ('" + x.name + ": " + t.name + "') is not read by rml");
      t = td.alias->clone();
    }
    if (t.kind != TypeSyntax::Tensor || !t.dims.empty() || t.machine || (t.scalar != Scalar::Bool && t.scalar != Scalar::Int))
      refuse(x.span, "a quantifier over '" + x.name + "' of this type is not read by rml: it reads bool, enumerations and int with static bounds");
    if (t.scalar == Scalar::Bool) {
      std::vector<ExprPtr> vs;
      for (bool b : {false, true}) {
        auto v = make(ExprKind::BoolLit, call.span);
        v->bval = b;
        vs.push_back(std::move(v));
      }
      return vs;
    }
    std::optional<int64_t> lo, hi;
    auto at_least = [&](int64_t v) { lo = lo ? std::max(*lo, v) : v; };
    auto at_most = [&](int64_t v) { hi = hi ? std::min(*hi, v) : v; };
    if (t.subrange && t.range_lo) {
      auto v = static_int(*t.range_lo);
      if (!v) refuse(x.span, "the subrange of '" + x.name + "' has a bound that is not a static int");
      at_least(*v);
    }
    if (t.subrange && t.range_hi) {
      auto v = static_int(*t.range_hi);
      if (!v) refuse(x.span, "the subrange of '" + x.name + "' has a bound that is not a static int");
      at_most(*v);
    }
    std::vector<const Expr *> conj;
    guards(q, call, conj);
    for (const Expr *c : conj) {
      if (c->kind != ExprKind::Binary) continue;
      Op op = c->op;
      const Expr *var = c->args[0].get(), *other = c->args[1].get();
      if (!(var->kind == ExprKind::Var && var->name == x.name)) {
        std::swap(var, other);  // `c op x` is `x op' c`
        op = op == Op::Lt ? Op::Gt : op == Op::Le ? Op::Ge : op == Op::Gt ? Op::Lt : op == Op::Ge ? Op::Le : op;
      }
      if (!(var->kind == ExprKind::Var && var->name == x.name)) continue;
      auto v = static_int(*other);
      if (!v) continue;
      if (op == Op::Ge || op == Op::Eq) at_least(*v);
      if (op == Op::Le || op == Op::Eq) at_most(*v);
      if (op == Op::Gt && *v < INT64_MAX) at_least(*v + 1);
      if (op == Op::Lt && *v > INT64_MIN) at_most(*v - 1);
    }
    if (!lo || !hi)
      refuse(x.span, "a quantifier over '" + x.name + "' without static bounds is not read by rml: bound it in its guard (`" + x.name +
                         " >= 0 and " + x.name + " < n => ...` under forall, `... and ...` under exists) or give it a finite type");
    std::vector<ExprPtr> vs;
    if (*lo > *hi) return vs;
    if (int64_t span; __builtin_sub_overflow(*hi, *lo, &span) || span >= kMaxValues)
      refuse(x.span, "'" + x.name + "' takes more than " + std::to_string(kMaxValues) + " values (" + std::to_string(*lo) + " .. " +
                         std::to_string(*hi) + "): rml expands a quantifier over at most " + std::to_string(kMaxValues));
    for (int64_t v = *lo;; ++v) {
      auto e = make(ExprKind::IntLit, call.span);
      e->ival = v;
      vs.push_back(std::move(e));
      if (v == *hi) break;
    }
    return vs;
  }

  // e with v for the free occurrences of x; a quantifier binds its variables in its
  // guard and body.
  void substitute(ExprPtr &e, const std::string &x, const Expr &v) const {
    std::map<std::string, ExprPtr> value;
    value.emplace(x, v.clone());
    substitute_vars(e, value, false, [this](const Expr &n) -> const std::vector<std::string> * {
      if (n.kind != ExprKind::Call || n.name != kQuantifierCall) return nullptr;
      bound_.clear();  // (copied into the hidden names before the walk goes on)
      for (auto &b : qs[static_cast<size_t>(n.ival)].vars) bound_.push_back(b.name);
      return &bound_;
    });
  }

  // The quantifier `call` over its first variable's values: the instances, each its body
  // (or `G => e`, `G and e`) with the value put in, or a quantifier over the other variables.
  ExprPtr instantiate(const Expr &call) {
    const Quantifier q = qs[static_cast<size_t>(call.ival)];  // (a copy: qs grows below)
    std::vector<ExprPtr> values = domain(q, call), parts;
    // (counted before copying: an expansion too large is said, not attempted)
    if ((nodes += size(call) * static_cast<int64_t>(values.size())) > kMaxExpandedNodes)
      refuse(q.span, "the quantifiers of this file expand to more than " + std::to_string(kMaxExpandedNodes) + " expression nodes");
    for (auto &v : values) {
      if (++instances > kMaxInstances)
        refuse(q.span, "the quantifiers of this node expand to more than " + std::to_string(kMaxInstances) + " instances");
      std::vector<ExprPtr> args;
      for (auto &a : call.args) {
        args.push_back(a->clone());
        substitute(args.back(), q.vars[0].name, *v);
      }
      if (q.vars.size() > 1) {
        Quantifier rest = q;
        rest.vars.erase(rest.vars.begin());
        qs.push_back(std::move(rest));
        auto c = make(ExprKind::Call, call.span);
        c->name = kQuantifierCall;
        c->ival = static_cast<int64_t>(qs.size() - 1);
        for (auto &a : args) c->height = std::max(c->height, a->height + 1);
        c->args = std::move(args);
        parts.push_back(std::move(c));
      } else if (q.guarded) {
        parts.push_back(combine(q.forall ? Op::Implies : Op::And, std::move(args[0]), std::move(args[1]), call.span));
      } else {
        parts.push_back(std::move(args[0]));
      }
    }
    if (parts.empty()) {  // no value: forall is true, exists false
      auto b = make(ExprKind::BoolLit, call.span);
      b->bval = q.forall;
      return b;
    }
    ExprPtr all = balanced(parts, 0, parts.size(), q.forall ? Op::And : Op::Or, call.span);
    all->span = call.span;  // (a property is named by its text: the quantifier's, even for one instance)
    return all;
  }

  void expand(ExprPtr &e) {
    if (e->kind == ExprKind::Call && e->name == kQuantifierCall) {
      e = instantiate(*e);
      return expand(e);  // the instances' own quantifiers (bounds may name the values put in)
    }
    uint32_t h = 0;
    for (auto &a : e->args) {
      expand(a);
      h = std::max(h, a->height);
    }
    if (!e->args.empty()) e->height = h + 1;
  }

  void expand_here(ExprPtr &e) {
    try {
      expand(e);
    } catch (Refused &) {
    }
  }
};

bool has_quantifier(const Expr &e) {
  if (e.kind == ExprKind::Call && e.name == kQuantifierCall) return true;
  for (auto &a : e.args)
    if (has_quantifier(*a)) return true;
  return false;
}

}  // namespace quantifier_expansion

void expand_quantifiers(Program &p, std::vector<Quantifier> &quantifiers, Diagnostics &d) {
  quantifier_expansion::Expander x{quantifiers, d, {}, {}, {}, 0, 0, {}};
  for (auto &decl : p.decls) {
    if (auto *c = std::get_if<ConstDecl>(&decl)) x.consts[c->name] = c;
    if (auto *t = std::get_if<TypeDecl>(&decl)) x.types[t->name] = t;
  }
  for (auto &decl : p.decls) {
    auto *n = std::get_if<NodeDecl>(&decl);
    if (!n) {
      if (auto *c = std::get_if<ConstDecl>(&decl); c && c->value && quantifier_expansion::has_quantifier(*c->value))
        d.error("syntax.unsupported", c->value->span, "a quantifier is read in a node's equations and properties, not in a constant");
      if (auto *f = std::get_if<FunDecl>(&decl); f && f->body && quantifier_expansion::has_quantifier(*f->body))
        d.error("syntax.unsupported", f->body->span, "a quantifier is read in a node's equations and properties, not in a 'fun'");
      continue;
    }
    x.locals.clear();
    for (auto *list : {&n->inputs, &n->outputs, &n->locals, &n->statics})
      for (auto &v : *list) x.locals.insert(v.name);
    x.instances = 0;
    for (auto &eq : n->equations) x.expand_here(eq.rhs);
    for (auto &a : n->assumptions) x.expand_here(a.cond);
    for (auto &r : n->resets) x.expand_here(r.cond);
  }
}

}  // namespace rml
