#include "syntax/contracts.hpp"

#include <algorithm>
#include <functional>
#include <optional>

namespace rml {
namespace {

// Which inputs each node's outputs read at the current cycle: Kind 2 lets a contract pass
// an output to a node that reads it only under `pre`.
class NodeReads {
 public:
  explicit NodeReads(const Program &p) {
    for (auto &d : p.decls)
      if (auto *n = std::get_if<NodeDecl>(&d)) nodes_.emplace(n->name, n);
  }
  // Per input, whether some output reads it at the current cycle; null: every argument
  // counts (an imported node, a fun, a builtin, a node that calls itself).
  const std::vector<bool> *inputs_read(const std::string &name) {
    if (auto m = memo_.find(name); m != memo_.end()) return m->second ? &*m->second : nullptr;
    auto it = nodes_.find(name);
    if (it == nodes_.end() || it->second->imported || !active_.insert(name).second) return nullptr;
    const NodeDecl &n = *it->second;
    std::map<std::string, const Expr *> defs;
    for (auto &eq : n.equations)
      for (auto &l : eq.lhs) defs[l.name] = eq.rhs.get();
    std::map<std::string, size_t> input_at;
    for (size_t k = 0; k < n.inputs.size(); ++k) input_at[n.inputs[k].name] = k;
    std::vector<bool> out(n.inputs.size(), false);
    std::set<std::string> seen;
    std::function<void(const std::string &)> var = [&](const std::string &v) {
      if (auto i = input_at.find(v); i != input_at.end()) out[i->second] = true;
      else if (auto d = defs.find(v); d != defs.end() && seen.insert(v).second) walk(*d->second, var);
    };
    for (auto &o : n.outputs) var(o.name);
    active_.erase(name);
    memo_[name] = out;
    return &*memo_[name];
  }
  // Calls `var` with each variable e reads at the current cycle: not under `pre`, not
  // after the first value of `fby`, a call's arguments its callee reads so.
  void walk(const Expr &e, const std::function<void(const std::string &)> &var) {
    if (e.kind == ExprKind::Var) return var(e.name);
    if (e.kind == ExprKind::Unary && e.op == Op::Pre) return;
    if (e.kind == ExprKind::Binary && e.op == Op::Fby) return walk(*e.args[0], var);
    const std::vector<bool> *read = e.kind == ExprKind::Call ? inputs_read(e.name) : nullptr;
    for (size_t k = 0; k < e.args.size(); ++k) {
      size_t input = k - std::min<size_t>(k, e.statics);
      if (read && k >= e.statics && input < read->size() && !(*read)[input]) continue;
      walk(*e.args[k], var);
    }
  }

 private:
  std::map<std::string, const NodeDecl *> nodes_;
  std::map<std::string, std::optional<std::vector<bool>>> memo_;
  std::set<std::string> active_;
};

// One contract in one node: the node's own, or an import of a contract declaration (nested
// imports are scopes of their own). Names of the contract map to what the node reads.
struct Scope {
  std::string path;                              // "" for the node's own; "C::" for an import of C
  std::map<std::string, std::string> rename;     // a contract input, output or ghost -> a node name
  std::map<std::string, const Expr *> consts;    // a constant -> its value (already in node names)
  std::map<std::string, std::string> modes;      // `m` or `C::m` (as written after `::`) -> the mode's local
  std::vector<ExprPtr> const_values;             // owns the values in `consts`
};

class Expander {
 public:
  Expander(NodeDecl &n, const std::map<std::string, ContractDecl> &decls, std::set<std::string> names, NodeReads &reads,
           Diagnostics &d)
      : n_(n), decls_(decls), names_(std::move(names)), reads_(reads), d_(d) {}

  void expand(const ContractBody &body) {
    Scope top;
    for (auto *vs : {&n_.inputs, &n_.outputs})
      for (auto &v : *vs) names_.insert(v.name);
    std::vector<const ContractDecl *> stack;
    const size_t first = n_.assumptions.size();
    allocate(body, top, stack);
    emit(body, top, stack);
    if (n_.imported) {
      guard_guarantees(first, body.span);
      return;  // no body to check the modes against (Kind 2 checks them on the contract alone)
    }
    if (!mode_locals_.empty()) {  // Kind 2's defensive check: some mode is active
      ExprPtr any;
      for (auto &m : mode_locals_) any = any ? mk_binary(Op::Or, std::move(any), mk_var(m, body.span), body.span) : mk_var(m, body.span);
      Assumption a;
      a.property = true;
      a.keyword = "guarantee";
      a.name = unique_name("one_mode_active");
      a.text = "one mode of the contract is active";
      a.cond = std::move(any);
      a.span = body.span;
      n_.assumptions.push_back(std::move(a));
    }
  }

 private:
  NodeDecl &n_;
  const std::map<std::string, ContractDecl> &decls_;
  std::set<std::string> names_;  // every name the node or the file uses: generated names avoid them
  NodeReads &reads_;
  Diagnostics &d_;
  std::vector<std::string> mode_locals_;
  std::set<std::string> property_names_;
  // The scopes of imports, in the order allocate() made them (emit() walks the same order).
  std::vector<std::unique_ptr<Scope>> imports_;
  size_t next_import_ = 0;

  std::string fresh(const std::string &base) {
    std::string s = base;
    for (int k = 1; names_.count(s); ++k) s = base + "_" + std::to_string(k);
    names_.insert(s);
    return s;
  }
  std::string unique_name(const std::string &base) {
    std::string s = base;
    for (int k = 2; property_names_.count(s); ++k) s = base + "." + std::to_string(k);
    property_names_.insert(s);
    return s;
  }
  static std::string local_base(const std::string &path, const std::string &name) {
    std::string s;
    for (char c : path) s += c == ':' ? '_' : c;
    // "C::" -> "C__": one underscore between the scope's names reads better.
    std::string out;
    for (char c : s) {
      if (c == '_' && !out.empty() && out.back() == '_') continue;
      out += c;
    }
    return out + name;
  }

  // The names of the contract's ghosts and modes, and those of its imports (recursively):
  // mode references may point forward, so every name exists before any expression is read.
  void allocate(const ContractBody &body, Scope &sc, std::vector<const ContractDecl *> &stack) {
    for (auto &it : body.items) {
      switch (it.kind) {
        case ContractItem::Ghost:
          // The node's own ghosts keep their names (counterexamples show them so); an import's
          // are renamed apart.
          if (sc.path.empty()) {
            sc.rename[it.name] = it.name;
            names_.insert(it.name);
          } else {
            sc.rename[it.name] = fresh(local_base(sc.path, it.name));
          }
          break;
        case ContractItem::Mode: {
          if (sc.modes.count(it.name)) {
            d_.error("name.duplicate", it.name_span, "two modes of this contract are named '" + it.name + "'");
            break;
          }
          sc.modes[it.name] = fresh(local_base(sc.path, it.name));
          break;
        }
        case ContractItem::Import: {
          auto dit = decls_.find(it.name);
          if (dit == decls_.end()) {
            d_.error("name.unknown", it.name_span, "no contract named '" + it.name + "' is declared ('contract " + it.name + " (...) returns (...); let ... tel')");
            imports_.push_back(nullptr);
            break;
          }
          const ContractDecl &cd = dit->second;
          if (std::find(stack.begin(), stack.end(), &cd) != stack.end()) {
            d_.error("contract.cycle", it.name_span, "contract '" + it.name + "' imports itself");
            imports_.push_back(nullptr);
            break;
          }
          auto child = std::make_unique<Scope>();
          child->path = sc.path + it.name + "::";
          Scope *c = child.get();
          imports_.push_back(std::move(child));
          stack.push_back(&cd);
          allocate(cd.body, *c, stack);
          stack.pop_back();
          for (auto &[m, local] : c->modes) sc.modes[it.name + "::" + m] = local;
          break;
        }
        default: break;
      }
    }
  }

  // e with the scope's names replaced: contract names by node names, constants by their
  // values, mode references `::m` by the mode's local.
  ExprPtr subst(const Expr &e, const Scope &sc, const std::set<std::string> &bound) {
    if (e.kind == ExprKind::Var && !bound.count(e.name)) {
      if (e.name.rfind("::", 0) == 0) {
        auto it = sc.modes.find(e.name.substr(2));
        if (it == sc.modes.end()) {
          d_.error("name.unknown", e.span, "no mode '" + e.name.substr(2) + "' in this contract (a mode reference is '::m', or '::C::m' for a mode of an imported contract C)");
          return e.clone();
        }
        return mk_var(it->second, e.span);
      }
      if (auto c = sc.consts.find(e.name); c != sc.consts.end()) {
        ExprPtr v = c->second->clone();
        v->span = e.span;
        return v;
      }
      if (auto r = sc.rename.find(e.name); r != sc.rename.end()) return mk_var(r->second, e.span);
      return e.clone();
    }
    auto out = std::make_unique<Expr>(e.kind, e.span);
    out->op = e.op;
    out->positive = e.positive;
    out->bval = e.bval;
    out->ival = e.ival;
    out->rval = e.rval;
    out->name = e.name;
    out->binders = e.binders;
    out->binder_spans = e.binder_spans;
    out->fat_arrows = e.fat_arrows;
    out->op_span = e.op_span;
    out->statics = e.statics;
    std::set<std::string> inner = bound;
    for (size_t k = 0; k < e.args.size(); ++k) {
      // `let x = a in b`: x is bound in b; a lambda binds its binders in its body.
      if (e.kind == ExprKind::Let && k == 1) inner.insert(e.name);
      if (e.kind == ExprKind::Lambda) inner.insert(e.binders.begin(), e.binders.end());
      out->args.push_back(subst(*e.args[k], sc, inner));
    }
    uint32_t h = 0;
    for (auto &a : out->args) h = std::max(h, a->height);
    out->height = h + 1;
    return out;
  }
  ExprPtr subst(const Expr &e, const Scope &sc) { return subst(e, sc, {}); }

  void add_local(const std::string &name, const TypeSyntax &t, Span span, ExprPtr value) {
    VarDecl v;
    v.name = name;
    v.span = span;
    v.type = t.clone();
    n_.locals.push_back(std::move(v));
    Equation eq;
    eq.lhs.push_back(LhsItem{name, span});
    eq.rhs = std::move(value);
    eq.span = span;
    n_.equations.push_back(std::move(eq));
  }
  static TypeSyntax bool_type(Span s) {
    TypeSyntax t;
    t.scalar = Scalar::Bool;
    t.span = s;
    return t;
  }

 public:
  // What an expression reads at the current cycle (NodeReads::walk); a ghost of the scope
  // reads what its definition reads.
  void current_reads(const Expr &e, const std::map<std::string, const Expr *> &ghosts, std::set<std::string> &out,
                     std::set<std::string> &seen) {
    std::function<void(const std::string &)> var = [&](const std::string &v) {
      out.insert(v);
      if (auto g = ghosts.find(v); g != ghosts.end() && seen.insert(v).second) reads_.walk(*g->second, var);
    };
    reads_.walk(e, var);
  }

  // (public: also run on each contract declaration, imported or not)
  // Kind 2's well-formedness of a contract, in its own names: it reads the inputs, the
  // outputs and its own ghosts (never the node's locals), and what a caller must make hold
  // (assumptions, mode requires) does not read an output at the current cycle: the
  // caller has no hold on it (under `pre` it may).
  void check_scope(const ContractBody &body, const std::vector<VarDecl> &outputs, const std::set<std::string> &locals) {
    std::map<std::string, const Expr *> ghosts;
    for (auto &it : body.items)
      if (it.kind == ContractItem::Ghost || it.kind == ContractItem::Const) ghosts[it.name] = it.expr.get();
    std::set<std::string> outs;
    for (auto &v : outputs) outs.insert(v.name);
    auto no_locals = [&](const Expr &e) {
      std::function<void(const Expr &)> walk = [&](const Expr &x) {
        if (x.kind == ExprKind::Var && locals.count(x.name) && !ghosts.count(x.name))
          d_.error("name.unknown", x.span, "a contract reads its node's inputs and outputs and its own ghosts: '" + x.name +
                                               "' is a local of the node (declare a ghost 'var " + x.name + ": t = ...;' in the contract)");
        for (auto &a : x.args) walk(*a);
      };
      walk(e);
    };
    auto no_current_output = [&](const Expr &e, const char *what) {
      std::set<std::string> reads, seen;
      current_reads(e, ghosts, reads, seen);
      for (auto &r : reads)
        if (outs.count(r)) {
          d_.error("contract.assume", e.span, std::string(what) + " reads the output '" + r +
                                                  "' at the current cycle, which a caller cannot make hold (it may read 'pre " + r + "')");
          return;
        }
    };
    for (auto &[g, e] : ghosts) {  // ghosts defined through each other at the same cycle
      std::set<std::string> reads, seen;
      current_reads(*e, ghosts, reads, seen);
      if (reads.count(g)) {
        d_.error("contract.cycle", e->span, "the ghost '" + g + "' reads itself at the current cycle (through 'pre' it may)");
        break;
      }
    }
    for (auto &it : body.items) {
      if (it.expr && !it.refinement) no_locals(*it.expr);
      for (auto *cs : {&it.requires_, &it.ensures})
        for (auto &c : *cs) no_locals(*c.cond);
      for (auto &a : it.args) no_locals(*a);
      if (it.kind == ContractItem::Assume) no_current_output(*it.expr, "an assumption");
      for (auto &r : it.requires_) no_current_output(*r.cond, "a mode's require");
      for (auto &a : it.args) no_current_output(*a, "an imported contract's input");
    }
  }

 private:
  void emit(const ContractBody &body, Scope &sc, std::vector<const ContractDecl *> &stack) {
    if (stack.empty()) {  // (a contract declaration is checked once, on its own: check_contract_decl)
      std::set<std::string> locals;
      for (auto &v : n_.locals) locals.insert(v.name);
      for (auto &eq : n_.equations)
        for (auto &l : eq.lhs) locals.insert(l.name);
      for (auto *vs : {&n_.inputs, &n_.outputs})
        for (auto &v : *vs) locals.erase(v.name);
      check_scope(body, n_.outputs, locals);
    }
    for (auto &it : body.items) {
      switch (it.kind) {
        case ContractItem::Const: {
          ExprPtr v = subst(*it.expr, sc);
          sc.consts[it.name] = v.get();
          sc.const_values.push_back(std::move(v));
          break;
        }
        case ContractItem::Ghost:
          add_local(sc.rename[it.name], *it.type, it.name_span, subst(*it.expr, sc));
          break;
        case ContractItem::Assume:
        case ContractItem::Guarantee: {
          Assumption a;
          a.property = it.kind == ContractItem::Guarantee;
          a.keyword = a.property ? "guarantee" : "";
          a.cond = subst(*it.expr, sc);
          a.span = it.span;
          if (!it.name.empty()) {
            a.name = unique_name(sc.path + it.name);
            a.name_span = it.name_span;
          }
          n_.assumptions.push_back(std::move(a));
          break;
        }
        case ContractItem::Mode: {
          auto mit = sc.modes.find(it.name);
          if (mit == sc.modes.end()) break;
          const std::string local = mit->second;
          // A mode does not refer to itself (Kind 2): its requires read the other modes only.
          ExprPtr all;
          for (auto &r : it.requires_) {
            if (refers_to(*r.cond, it.name)) {
              d_.error("contract.mode", r.cond->span, "mode '" + it.name + "' refers to itself in its own require");
              continue;
            }
            ExprPtr c = subst(*r.cond, sc);
            all = all ? mk_binary(Op::And, std::move(all), std::move(c), r.span) : std::move(c);
          }
          if (!all) all = mk_bool(true, it.name_span);
          add_local(local, bool_type(it.name_span), it.name_span, std::move(all));
          mode_locals_.push_back(local);
          for (size_t k = 0; k < it.ensures.size(); ++k) {
            auto &en = it.ensures[k];
            Assumption a;
            a.property = true;
            a.keyword = "guarantee";
            std::string name = sc.path + it.name;
            if (!en.name.empty()) name += "." + en.name;
            else if (it.ensures.size() > 1) name += ".ensure" + std::to_string(k + 1);
            a.name = unique_name(name);
            a.name_span = en.name.empty() ? it.name_span : en.span;
            ExprPtr cond = subst(*en.cond, sc);
            Span s = cond->span;
            a.cond = mk_binary(Op::Implies, mk_var(local, it.name_span), std::move(cond), s);
            a.span = en.span;
            n_.assumptions.push_back(std::move(a));
          }
          break;
        }
        case ContractItem::Import: {
          Scope *child = imports_[next_import_++].get();
          if (!child) break;
          const ContractDecl &cd = decls_.at(it.name);
          if (it.args.size() != cd.inputs.size() || it.returns.size() != cd.outputs.size()) {
            d_.error("arity.args", it.span,
                     "contract '" + cd.name + "' has " + std::to_string(cd.inputs.size()) + " input(s) and " + std::to_string(cd.outputs.size()) +
                         " output(s); this import gives " + std::to_string(it.args.size()) + " and " + std::to_string(it.returns.size()));
            skip_imports(cd.body);
            break;
          }
          for (size_t k = 0; k < cd.inputs.size(); ++k) {
            ExprPtr a = subst(*it.args[k], sc);
            if (a->kind == ExprKind::Var) {  // read the actual stream itself
              child->rename[cd.inputs[k].name] = a->name;
              continue;
            }
            if (!cd.inputs[k].type) {
              d_.error("type.missing", cd.inputs[k].span, "contract input '" + cd.inputs[k].name + "' needs a type");
              continue;
            }
            std::string local = fresh(local_base(child->path, cd.inputs[k].name));
            child->rename[cd.inputs[k].name] = local;
            add_local(local, *cd.inputs[k].type, it.args[k]->span, std::move(a));
          }
          for (size_t k = 0; k < cd.outputs.size(); ++k) {
            auto r = sc.rename.find(it.returns[k].name);
            child->rename[cd.outputs[k].name] = r != sc.rename.end() ? r->second : it.returns[k].name;
          }
          stack.push_back(&cd);
          emit(cd.body, *child, stack);
          stack.pop_back();
          break;
        }
      }
    }
  }
  // An imported node's contract is all that is known of it: a caller assumes its guarantees
  // (core/normalize), but only while its assumptions have held (Kind 2: []A => []G), so a
  // call that breaks an assumption is falsified at that assumption, not excused by a
  // guarantee that no longer binds. A function has no state: its guarantees hold where its
  // assumptions hold at the same cycle.
  void guard_guarantees(size_t first, Span span) {
    std::vector<const Expr *> assumed;
    for (size_t k = first; k < n_.assumptions.size(); ++k)
      if (!n_.assumptions[k].property) assumed.push_back(n_.assumptions[k].cond.get());
    if (assumed.empty()) return;
    auto all = [&] {
      ExprPtr c;
      for (auto *a : assumed) c = c ? mk_binary(Op::And, std::move(c), a->clone(), span) : a->clone();
      return c;
    };
    std::string held;
    if (!n_.is_function) {
      held = fresh("assumptions_held");
      ExprPtr rec = mk_binary(Op::Arrow, mk_bool(true, span), mk_unary(Op::Pre, mk_var(held, span), span), span);
      add_local(held, bool_type(span), span, mk_binary(Op::And, all(), std::move(rec), span));
    }
    for (size_t k = first; k < n_.assumptions.size(); ++k) {
      Assumption &a = n_.assumptions[k];
      if (!a.property) continue;
      Span s = a.cond->span;
      a.cond = mk_binary(Op::Implies, held.empty() ? all() : mk_var(held, span), std::move(a.cond), s);
    }
  }

  // An import whose arguments did not match: its nested imports' scopes are passed over.
  void skip_imports(const ContractBody &body) {
    for (auto &it : body.items)
      if (it.kind == ContractItem::Import) {
        bool made = imports_[next_import_++] != nullptr;
        if (made) skip_imports(decls_.at(it.name).body);
      }
  }
  static bool refers_to(const Expr &e, const std::string &mode) {
    if (e.kind == ExprKind::Var && e.name == "::" + mode) return true;
    for (auto &a : e.args)
      if (refers_to(*a, mode)) return true;
    return false;
  }
};

}  // namespace

void check_contract_decl(const Program &p, const ContractDecl &c, Diagnostics &diags) {
  NodeDecl none;
  std::map<std::string, ContractDecl> no_decls;
  NodeReads reads(p);
  Expander(none, no_decls, {}, reads, diags).check_scope(c.body, c.outputs, {});
}

void expand_contracts(Program &p, std::map<size_t, ContractBody> &bodies, const std::map<std::string, ContractDecl> &decls,
                      const std::set<std::string> &names, Diagnostics &diags) {
  NodeReads reads(p);  // (before any expansion: the nodes' own equations)
  for (auto &[k, body] : bodies) {
    auto *n = std::get_if<NodeDecl>(&p.decls[k]);
    if (!n) continue;
    Expander(*n, decls, names, reads, diags).expand(body);
  }
}

}  // namespace rml
