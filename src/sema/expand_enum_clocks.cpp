#include "sema/expand_enum_clocks.hpp"

#include <algorithm>
#include <map>
#include <set>

#include "sema/rewrite.hpp"

namespace rml {
namespace {

ExprPtr of_two(ExprKind k, ExprPtr a, ExprPtr b, Span s) {
  std::vector<ExprPtr> v;
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  auto e = make_expr(k, s, std::move(v));
  e->op_span = s;
  return e;
}

ExprPtr binary(Op op, ExprPtr a, ExprPtr b, Span s) {
  auto e = of_two(ExprKind::Binary, std::move(a), std::move(b), s);
  e->op = op;
  return e;
}

struct Expander {
  const CheckedProgram &cp;
  Diagnostics &d;
  NodeDecl &node;
  int &fresh;
  std::vector<Equation> extra;  // the fresh variables' equations
  // The chain of each enumeration variable k of the node that a clock uses:
  // cond[i] = (k(i) = C(i)) for the constructors but the last, k(0) = k and
  // k(i+1) = k(i) when not cond[i].
  std::map<std::string, std::vector<std::string>> chains;

  bool is_ctor(const std::string &n) const { return cp.enum_ctors.count(n) > 0; }
  const std::string &enum_of(const std::string &ctor) const { return cp.enum_ctors.at(ctor).first; }
  const std::vector<std::string> &ctors_of(const std::string &ctor) const { return *cp.enums.at(enum_of(ctor)); }
  size_t index_of(const std::string &ctor) const { return static_cast<size_t>(cp.enum_ctors.at(ctor).second); }

  // `k = C`, located at the clock that said `C(k)`.
  static ExprPtr equals(const Expr &k, const std::string &ctor, Span ctor_span, Span at) {
    return binary(Op::Eq, k.clone(), mk_var(ctor, ctor_span), at);
  }

  std::string fresh_var(ExprPtr e) { return bind_fresh(std::move(e), 1, "enum", fresh, extra)[0]->name; }

  ExprPtr named(ExprPtr k) {
    if (k->kind == ExprKind::Var) return k;
    return mk_var(fresh_var(std::move(k)), Span{});
  }

  const std::vector<std::string> &chain(const std::string &k, const std::string &ctor, Span at) {
    auto it = chains.find(k);
    if (it != chains.end()) return it->second;
    const auto &cs = ctors_of(ctor);
    std::vector<std::string> cond;
    std::string kv = k;
    for (size_t i = 0; i + 1 < cs.size(); ++i) {
      cond.push_back(fresh_var(equals(*mk_var(kv, at), cs[i], at, at)));
      if (i + 2 < cs.size()) kv = fresh_var(mk_when(mk_var(kv, at), mk_var(cond[i], at), false, at));
    }
    return chains.emplace(k, std::move(cond)).first->second;
  }

  // Whether k, if the node declares its type, has C's enumeration; reports otherwise
  // (once, where the chain's equations would each draw the type checker's mismatch).
  bool same_enumeration(const std::string &k, const std::string &ctor, Span at) {
    for (auto *vs : {&node.inputs, &node.outputs, &node.locals})
      for (auto &v : *vs)
        if (v.name == k && v.type) {
          const std::string &en = v.type->enum_name;
          if (en == enum_of(ctor)) return true;
          d.error("type.mismatch", at,
                  "'" + ctor + "' is a value of the enumeration " + enum_of(ctor) + ", and '" + k + "' is " +
                      (en.empty() ? "not of an enumeration" : "of the enumeration " + en));
          return false;
        }
    return true;
  }

  // The clock `C(k)` as `when` steps on the chain of k: not cond[0], ..., not cond[j-1],
  // cond[j] for the j-th constructor (the last one has no cond of its own). The same
  // steps for every use, so the clock calculus sees one clock per constructor.
  std::vector<std::pair<bool, std::string>> steps(const std::string &k, const std::string &ctor, Span at) {
    const auto &cond = chain(k, ctor, at);
    size_t j = index_of(ctor);
    std::vector<std::pair<bool, std::string>> out;
    for (size_t i = 0; i < j && i < cond.size(); ++i) out.emplace_back(false, cond[i]);
    if (j < cond.size()) out.emplace_back(true, cond[j]);
    return out;
  }

  void expr(ExprPtr &e) {
    for (auto &a : e->args) expr(a);
    if (e->kind == ExprKind::When) {
      Expr &c = *e->args[1];
      if (c.kind != ExprKind::Call || c.statics != 0 || !is_ctor(c.name)) return;
      if (c.args.size() != 1) {
        d.error("arity.args", c.span,
                "the clock '" + c.name + "(..)' names one variable, the enumeration's value ('when " + c.name + "(k)')");
        return;
      }
      Span at = c.span, name_span = c.span;
      name_span.end = name_span.begin + static_cast<uint32_t>(c.name.size());
      if (!e->positive) {  // `when not C(k)`: the ticks of every other constructor
        e->args[1] = equals(*c.args[0], c.name, name_span, at);
        update_height(*e);
        return;
      }
      std::string ctor = c.name;
      if (c.args[0]->kind == ExprKind::Var && !same_enumeration(c.args[0]->name, ctor, at)) return;
      std::string k = named(std::move(c.args[0]))->name;
      ExprPtr x = std::move(e->args[0]);
      for (auto &[pos, cond] : steps(k, ctor, at)) x = mk_when(std::move(x), mk_var(cond, name_span), pos, e->span);
      if (x->kind != ExprKind::When) {  // an enumeration of one value: every tick of k
        // `x when C(k)` is x on k's clock; x itself when it is on that clock.
        x = mk_when(std::move(x), equals(*mk_var(k, at), ctor, name_span, at), true, e->span);
      }
      e = std::move(x);
    } else if (e->kind == ExprKind::Merge && !e->binders.empty()) {
      merge(e);
    }
  }

  // The paper form `merge c (x -> a) (y -> b)` that looked like clauses (`=>`: an
  // implication).
  void paper_form(Expr &m) {
    for (size_t k = 0; k < 2; ++k) {
      Span s = Span::cover(m.binder_spans[k], m.args[k + 1]->span);
      Op op = k < m.fat_arrows.size() && m.fat_arrows[k] ? Op::Implies : Op::Arrow;
      m.args[k + 1] = binary(op, mk_var(m.binders[k], m.binder_spans[k]), std::move(m.args[k + 1]), s);
    }
    m.binders.clear();
    m.binder_spans.clear();
    m.fat_arrows.clear();
    update_height(m);
  }

  // Whether the clauses name every constructor of one enumeration once; reports otherwise.
  bool clauses_ok(const Expr &m) {
    bool ok = true;
    std::string en;
    std::set<std::string> seen;
    for (size_t i = 0; i < m.binders.size(); ++i) {
      const std::string &c = m.binders[i];
      if (!is_ctor(c)) {
        d.error("clock.merge", m.binder_spans[i],
                "'" + c + "' is not a constructor: each clause of a merge on an enumeration names one of its constructors");
        ok = false;
        continue;
      }
      if (en.empty()) en = enum_of(c);
      else if (enum_of(c) != en) {
        d.error("clock.merge", m.binder_spans[i],
                "'" + c + "' is a constructor of " + enum_of(c) + ", and this merge's first clause one of " + en);
        ok = false;
      }
      if (!seen.insert(c).second) {
        d.error("clock.merge", m.binder_spans[i], "this merge has two clauses for '" + c + "'");
        ok = false;
      }
    }
    if (!ok || en.empty()) return false;
    std::string missing;
    for (auto &c : *cp.enums.at(en))
      if (!seen.count(c)) missing += (missing.empty() ? "'" : ", '") + c + "'";
    if (!missing.empty()) {
      d.error("clock.merge", m.op_span,
              "this merge on the enumeration " + en + " has no clause for " + missing +
                  " (a merge names every constructor once, so that one branch is present at each tick)");
      return false;
    }
    return true;
  }

  // Nested in the enumeration's order along the chain of k: the merge on cond[i] takes the
  // branch of C(i) or the merge of the constructors after it.
  void merge(ExprPtr &e) {
    Expr &m = *e;
    bool any_ctor = std::any_of(m.binders.begin(), m.binders.end(), [&](const std::string &c) { return is_ctor(c); });
    if (!any_ctor && m.binders.size() == 2) return paper_form(m);
    if (!clauses_ok(m)) return;  // the error stops the front end (sema/frontend.cpp)
    size_t n = m.binders.size();
    std::vector<ExprPtr> branch(n);
    for (size_t i = 0; i < n; ++i) branch[index_of(m.binders[i])] = std::move(m.args[i + 1]);
    if (n == 1) {  // an enumeration of one value: its branch is on the clock of k
      e = std::move(branch[0]);
      return;
    }
    if (m.args[0]->kind == ExprKind::Var && !same_enumeration(m.args[0]->name, m.binders[0], m.args[0]->span)) return;
    std::string k = named(std::move(m.args[0]))->name;
    const auto cond = chain(k, m.binders[0], m.op_span);
    ExprPtr out = std::move(branch[n - 1]);
    for (size_t i = n - 1; i-- > 0;) {
      std::vector<ExprPtr> v;
      v.push_back(mk_var(cond[i], m.op_span));
      v.push_back(std::move(branch[i]));
      v.push_back(std::move(out));
      out = make_expr(ExprKind::Merge, m.span, std::move(v));
      out->op_span = m.op_span;
    }
    e = std::move(out);
  }

  // Declared clocks `x: t when C(k)`: the clock becomes its steps on the chain of k (the
  // type checker applies Lustre's interface rules to k, ClockSyntax::var).
  void declared_clocks() {
    std::set<std::string> vars;  // declared, or defined by an equation (an inferred local)
    for (auto *vs : {&node.inputs, &node.outputs, &node.locals})
      for (auto &v : *vs) vars.insert(v.name);
    for (auto &eq : node.equations)
      for (auto &l : eq.lhs) vars.insert(l.name);
    auto visit = [&](std::vector<VarDecl> &vs) {
      for (auto &v : vs) {
        std::vector<ClockSyntax> out;
        for (auto &c : v.clock) {
          if (c.ctor.empty()) {
            out.push_back(c);
            continue;
          }
          if (!is_ctor(c.ctor)) {
            d.error("name.unknown", c.span, "'" + c.ctor + "' is not a constructor of an enumeration");
            continue;
          }
          if (!vars.count(c.var)) {  // the type checker reports it, as for a bool clock
            out.push_back(c);
            continue;
          }
          if (!same_enumeration(c.var, c.ctor, c.span)) continue;
          if (!c.positive) {  // `when not C(k)`: on the local k = C
            ClockSyntax s = c;
            s.cond = fresh_var(equals(*mk_var(c.var, c.span), c.ctor, c.span, c.span));
            out.push_back(std::move(s));
            continue;
          }
          auto st = steps(c.var, c.ctor, c.span);
          if (st.empty()) st.emplace_back(true, fresh_var(equals(*mk_var(c.var, c.span), c.ctor, c.span, c.span)));
          for (auto &[pos, cond] : st) {
            ClockSyntax s = c;
            s.positive = pos;
            s.cond = cond;
            out.push_back(std::move(s));
          }
        }
        v.clock = std::move(out);
      }
    };
    visit(node.inputs);
    visit(node.outputs);
    visit(node.locals);
  }
};

}  // namespace

void expand_enum_clocks(CheckedProgram &cp, Diagnostics &diags) {
  int fresh = 0;
  for (size_t i = cp.prelude_decls; i < cp.program.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&cp.program.decls[i]);
    if (!n) continue;
    Expander x{cp, diags, *n, fresh, {}, {}};
    x.declared_clocks();
    for (auto &eq : n->equations) x.expr(eq.rhs);
    for (auto &a : n->assumptions) x.expr(a.cond);
    for (auto &b : n->resets) x.expr(b.cond);
    for (auto &eq : x.extra) n->equations.push_back(std::move(eq));
  }
}

}  // namespace rml
