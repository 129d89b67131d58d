#include "sema/flatten_tuples.hpp"

#include <algorithm>
#include <map>

#include "sema/rewrite.hpp"

namespace rml {
namespace {

// Of kind k over args, with the operator, polarity and name of `like`.
ExprPtr make(ExprKind k, Span s, std::vector<ExprPtr> args, const Expr &like) {
  auto e = make_expr(k, s, std::move(args));
  e->op = like.op;
  e->positive = like.positive;
  e->name = like.name;
  e->op_span = like.op_span;
  return e;
}

struct Flattener {
  std::map<std::string, size_t> outputs;  // node name -> number of declared outputs
  std::vector<Equation> extra;            // equations binding fresh names, for the node
  int fresh = 0;
  bool changed = false;

  size_t arity(const Expr &e) const {
    switch (e.kind) {
      case ExprKind::Tuple: {
        size_t n = 0;
        for (auto &a : e.args) n += arity(*a);
        return n;
      }
      case ExprKind::Call: {
        auto it = outputs.find(e.name);
        return it == outputs.end() ? 1 : std::max<size_t>(it->second, 1);
      }
      case ExprKind::Reset: return arity(*e.args[0]);
      case ExprKind::Unary: return e.op == Op::Pre || e.op == Op::Post ? arity(*e.args[0]) : 1;
      case ExprKind::When: return arity(*e.args[0]);
      case ExprKind::Binary:
        if (e.op != Op::Fby && e.op != Op::Arrow) return 1;
        return same(*e.args[0], *e.args[1]);
      case ExprKind::Merge:
      case ExprKind::If: return same(*e.args[1], *e.args[2]);
      default: return 1;
    }
  }
  // The common arity of two operands; 1 when they differ (left for the type checker).
  size_t same(const Expr &a, const Expr &b) const {
    size_t x = arity(a), y = arity(b);
    return x == y ? x : 1;
  }

  // Binds e to fresh names by an equation of the node; returns the names as variables.
  std::vector<ExprPtr> bind(ExprPtr e, size_t n) {
    changed = true;
    return bind_fresh(std::move(e), n, "tuple", fresh, extra);
  }

  // A condition used by every component: a name or literal as it is, anything else
  // computed once into a fresh variable.
  ExprPtr shared(ExprPtr c) {
    if (c->kind == ExprKind::Var || c->kind == ExprKind::BoolLit) return c;
    return std::move(bind(rewrite(std::move(c)), 1)[0]);
  }

  // The components of an expression of arity > 1.
  std::vector<ExprPtr> components(ExprPtr e) {
    std::vector<ExprPtr> out;
    switch (e->kind) {
      case ExprKind::Tuple:
        for (auto &a : e->args) {
          if (arity(*a) > 1) {
            changed = true;  // a nested tuple, spliced
            for (auto &c : components(std::move(a))) out.push_back(std::move(c));
          } else {
            out.push_back(rewrite(std::move(a)));
          }
        }
        return out;
      case ExprKind::Call:
      case ExprKind::Reset: {
        size_t n = arity(*e);
        return bind(rewrite(std::move(e)), n);
      }
      default: break;
    }
    // A componentwise operator: its tuple operands, its shared conditions.
    changed = true;
    size_t n = arity(*e);
    const Expr &like = *e;
    std::vector<std::vector<ExprPtr>> ops;  // per tuple operand, its components
    ExprPtr cond;
    switch (e->kind) {
      case ExprKind::Unary: ops.push_back(components(std::move(e->args[0]))); break;
      case ExprKind::Binary:
        ops.push_back(components(std::move(e->args[0])));
        ops.push_back(components(std::move(e->args[1])));
        break;
      case ExprKind::When:
        cond = shared(std::move(e->args[1]));
        ops.push_back(components(std::move(e->args[0])));
        break;
      case ExprKind::Merge:
      case ExprKind::If:
        cond = shared(std::move(e->args[0]));
        ops.push_back(components(std::move(e->args[1])));
        ops.push_back(components(std::move(e->args[2])));
        break;
      default: break;
    }
    for (size_t k = 0; k < n; ++k) {
      std::vector<ExprPtr> args;
      if (e->kind == ExprKind::Merge || e->kind == ExprKind::If) args.push_back(cond->clone());
      for (auto &o : ops) args.push_back(std::move(o[k]));
      if (e->kind == ExprKind::When) args.push_back(cond->clone());
      Span s = args.front()->span.valid() ? Span::cover(args.front()->span, args.back()->span) : like.span;
      out.push_back(make(like.kind, s, std::move(args), like));
    }
    return out;
  }

  // An expression in a one-value position (or a whole right side): its calls' arguments
  // spliced, its sub-expressions rewritten.
  ExprPtr rewrite(ExprPtr e) {
    if (e->kind == ExprKind::Binary && (e->op == Op::Eq || e->op == Op::Ne) && arity(*e->args[0]) > 1 &&
        arity(*e->args[0]) == arity(*e->args[1])) {
      // Tuples compare componentwise: `(a, b) = (c, d)` is `a = c and b = d`, `<>` its negation.
      changed = true;
      const Expr &like = *e;
      auto l = components(std::move(e->args[0])), r = components(std::move(e->args[1]));
      Expr joiner(ExprKind::Binary, like.span);
      joiner.op = like.op == Op::Eq ? Op::And : Op::Or;
      joiner.op_span = like.op_span;
      ExprPtr acc;
      for (size_t k = 0; k < l.size(); ++k) {
        std::vector<ExprPtr> two;
        two.push_back(std::move(l[k]));
        two.push_back(std::move(r[k]));
        ExprPtr c = make(ExprKind::Binary, like.span, std::move(two), like);
        if (!acc) {
          acc = std::move(c);
          continue;
        }
        std::vector<ExprPtr> both;
        both.push_back(std::move(acc));
        both.push_back(std::move(c));
        acc = make(ExprKind::Binary, like.span, std::move(both), joiner);
      }
      return acc;
    }
    if (e->kind == ExprKind::Call) {
      std::vector<ExprPtr> args;
      for (auto &a : e->args) {
        if (arity(*a) > 1) {
          changed = true;
          for (auto &c : components(std::move(a))) args.push_back(std::move(c));
        } else {
          args.push_back(rewrite(std::move(a)));
        }
      }
      e->args = std::move(args);
    } else {
      for (auto &a : e->args) a = rewrite(std::move(a));
    }
    update_height(*e);
    return e;
  }

  ExprPtr right_side(ExprPtr e) {
    if (e->kind == ExprKind::Call || e->kind == ExprKind::Reset || arity(*e) <= 1) return rewrite(std::move(e));
    Span s = e->span;
    Expr like(ExprKind::Tuple, s);
    return make(ExprKind::Tuple, s, components(std::move(e)), like);
  }
};

}  // namespace

bool flatten_tuples(Program &p, size_t first) {
  Flattener fl;
  for (size_t i = 0; i < p.decls.size(); ++i)
    if (auto *n = std::get_if<NodeDecl>(&p.decls[i]))
      if (i >= first || !fl.outputs.count(n->name)) fl.outputs[n->name] = n->outputs.size();
  bool any = false;
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (!n) continue;
    // Rewrite a copy; keep it only when something changed, so that programs without
    // tuples reach the type checker exactly as written.
    fl.extra.clear();
    fl.changed = false;
    std::vector<Equation> eqs;
    for (auto &eq : n->equations) {
      Equation c = eq.clone();
      c.rhs = fl.right_side(std::move(c.rhs));
      eqs.push_back(std::move(c));
    }
    std::vector<Assumption> asms;
    for (auto &a : n->assumptions) {
      Assumption c = a.clone();
      c.cond = fl.rewrite(std::move(c.cond));
      asms.push_back(std::move(c));
    }
    if (!fl.changed) continue;
    for (auto &e : fl.extra) eqs.push_back(std::move(e));
    n->equations = std::move(eqs);
    n->assumptions = std::move(asms);
    any = true;
  }
  return any;
}

}  // namespace rml
