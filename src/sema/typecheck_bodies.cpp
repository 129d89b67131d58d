// Bodies: a fun's body against its result type; a node's equations, typed in the order
// their uses demand (a silent probe pass first finds the types of locals that a cycle
// leaves unknown), with static locals evaluated on demand and the final zonking of every
// recorded type.
#include "sema/typecheck_internal.hpp"

namespace rml::typecheck {

void TypeChecker::check_fun(const FunDecl &f) {
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
  std::vector<DeferredElementwise> outer;
  outer.swap(deferred_);
  Type body = infer(*f.body, ctx);
  settle_elementwise();
  deferred_.swap(outer);
  if (sig.ok && !unify(body, sig.outputs[0])) mismatch(*f.body, body, sig.outputs[0], "the declared result type of '" + f.name + "'");
}

// Locals are typed in the order their uses demand; a cycle can make a use see an
// unknown type that a later equation determines. So the node is first typed silently,
// up to twice, and the local types found are given to the real pass.
void TypeChecker::check_node(const NodeDecl &n) {
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

void TypeChecker::check_node_pass(const NodeDecl &n, const std::map<std::string, Type> &hints) {
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
        // Lustre declares every local (V6 manual, "var" sections); rml infers them. A
        // Lustre node (`returns` header, `let ... tel`) that declares some and not this
        // one is a Lustre error (Kind 2 rejects it); names of the passes start with `$`.
        if (n.lustre_style && n.has_let && !n.locals.empty() && item.name[0] != '$') {
          d_.error("name.undeclared", item.span,
                   "'" + item.name + "' is not declared: a Lustre node declares its locals in a 'var' section");
          continue;
        }
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
  std::vector<DeferredElementwise> outer;
  outer.swap(deferred_);
  for (size_t k = 0; k < n.equations.size(); ++k) check_equation(st, static_cast<int>(k));
  // Declared clocks `x: t when c`: c is a bool variable of this node; an input's clock
  // uses inputs and an output's inputs and outputs (Lustre: a caller must see the clocks
  // of the interface, so a local cannot be one).
  auto check_clock_ann = [&](const std::vector<VarDecl> &vs, bool inputs, bool outputs = false) {
    for (auto &v : vs)
      for (auto &c : v.clock) {
        // For `when C(k)` the rules are k's (c.var); the condition sampled on is the bool
        // local `k = C` of sema/expand_enum_clocks, whose `=` checks k's type.
        auto it = info.vars.find(c.var);
        if (it == info.vars.end()) {
          d_.error("name.unknown", c.span, "the clock condition '" + c.var + "' is not a variable of '" + n.name + "'");
          continue;
        }
        if (inputs && it->second.kind != VarInfo::Input) {  // Lustre: input clocks mention inputs
          d_.error("name.unknown", c.span, "the clock of input '" + v.name + "' can only use inputs, and '" + c.var + "' is not one");
          continue;
        }
        if (outputs && it->second.kind == VarInfo::Local) {
          d_.error("name.unknown", c.span, "the clock of output '" + v.name + "' can only use inputs and outputs (its callers must see it), and '" +
                                               c.var + "' is a local");
          continue;
        }
        if (!c.ctor.empty()) continue;
        Type t = zonk(it->second.type);
        if (!t.is_error() && t.kind != Type::Meta && !t.is_scalar(Scalar::Bool))
          d_.error("type.not-bool", c.span, "the clock condition '" + c.var + "' must be a bool, but it has type " + type_str(t));
      }
  };
  check_clock_ann(n.inputs, true);
  check_clock_ann(n.outputs, false, true);
  check_clock_ann(n.locals, false);
  // No declared clock may depend on itself (`a: bool when b; b: bool when a`): such a
  // stream has no clock (Lustre V6, Heptagon and Vélus reject it).
  {
    std::map<std::string, const VarDecl *> decl_of;
    for (auto *vs : {&n.inputs, &n.outputs, &n.locals})
      for (auto &v : *vs) decl_of.emplace(v.name, &v);
    std::map<std::string, int> state;  // 1 on the path, 2 done
    std::function<bool(const std::string &)> cyclic = [&](const std::string &x) -> bool {
      auto it = decl_of.find(x);
      if (it == decl_of.end()) return false;
      int &s = state[x];
      if (s == 1) return true;
      if (s == 2) return false;
      s = 1;
      for (auto &c : it->second->clock)
        if (cyclic(c.var)) return true;
      state[x] = 2;
      return false;
    };
    for (auto *vs : {&n.inputs, &n.outputs, &n.locals})
      for (auto &v : *vs)
        if (!v.clock.empty() && state[v.name] == 0 && cyclic(v.name)) {
          d_.error("clock.cycle", v.span, "the clock of '" + v.name + "' depends on itself through the declared clocks");
          break;
        }
  }
  for (auto &a : n.assumptions) {
    Type t = infer(*a.cond, ctx);
    require_bool_scalar(*a.cond, t, a.property ? "a property" : "an assumption");
    if (!a.property && (a.within == 0 || a.within > 1000000))
      d_.error("static.eval", a.span, "the bound of 'within' must be between 1 and 1000000 cycles");
  }
  settle_elementwise();
  deferred_.swap(outer);
  for (auto &v : n.outputs)
    if (!n.imported && info.vars.count(v.name) && info.vars[v.name].kind == VarInfo::Output && info.vars[v.name].def_eq < 0)
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

// Output types of a call that follow from its static arguments alone, so that locals
// defined by it are typed before its value arguments (which may depend on them).
std::optional<std::vector<Type>> TypeChecker::early_outputs(const Expr &r, Ctx &ctx) {
  const Expr &e = r.kind == ExprKind::Reset ? *r.args[0] : r;  // `f(x) every c` has f's outputs
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
    Type t = o;  // an enumeration or a machine integer stays one
    t.shape = std::move(sh);
    outs.push_back(std::move(t));
  }
  return outs;
}

void TypeChecker::check_equation(NodeState &st, int k) {
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

void TypeChecker::zonk_all() {
  for (auto &[e, t] : cp_.expr_types) t = zonk(t);
  for (auto &[e, ci] : cp_.calls)
    for (auto &[n, t] : ci.subst.tyvars) t = zonk(t);
}

}  // namespace rml::typecheck
