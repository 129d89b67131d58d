// The rules of semantics/semantics.md §4, one function each (rule_const, rule_apply,
// rule_when, rule_merge, rule_fby, rule_pre, rule_arrow, rule_post, rule_clock_base,
// rule_clock_on, rule_clock_never); both solvers call the same rules, through Store views
// of the current (or previous) iterate.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>

#include "core/normalize.hpp"
#include "core/primitives.hpp"
#include "oracle/impl.hpp"
#include "ops/scalar_ops.hpp"

namespace rml::oracle {

// Each rule computes the cell (node.out, n) from the store, per semantics.md §3-§4.
// §3 base clock of the main node (Vélus clocks_of): tt if some input is present,
// ff if all are absent, ⊥ otherwise; tt when there are no inputs.
void Oracle::Impl::rule_clock_base(const Node &nd, size_t n, const Store &s, Out &o) {
  if (nd.in.empty()) return o.boolean(true);
  bool all_abs = true, any_err = false;
  for (int c : nd.in) {
    if (s.present(c, n)) return o.boolean(true);
    if (s.tag(c, n) != Tag::Abs) all_abs = false;
    any_err |= s.tag(c, n) == Tag::Err;
  }
  if (all_abs) return o.boolean(false);
  // No input present and one is ‖: ‖ is above both readings, ff (if it were □) and tt.
  if (any_err) return o.propagate_error();
  o.set(Tag::Bot);
}

// §3 ⟦κ on^b x⟧.
void Oracle::Impl::rule_clock_on(const Node &nd, size_t n, const Store &s, Out &o) {
  int k = nd.in[0], x = nd.in[1];
  Tag kt = s.tag(k, n);
  if (kt == Tag::Bot) return o.set(Tag::Bot);
  if (kt == Tag::Err) return o.propagate_error();
  if (!s.bval(k, n)) return o.boolean(false);
  Tag xt = s.tag(x, n);
  if (xt == Tag::Bot) return o.set(Tag::Bot);
  if (xt == Tag::Val && s.cols[x].elem == Scalar::Bool) return o.boolean(s.bval(x, n) == nd.positive);
  if (xt == Tag::Err) return o.propagate_error();
  o.error("clock", "the clock's condition '" + s.cols[x].name + "' is " + (xt == Tag::Abs ? "absent" : "not a bool") +
                       " where its parent clock ticks");
}

// §3 ⟦never⟧: ff wherever the base clock is known.
void Oracle::Impl::rule_clock_never(const Node &nd, size_t n, const Store &s, Out &o) {
  Tag bt = s.tag(nd.in[0], n);
  if (bt == Tag::Val) return o.boolean(false);
  if (bt == Tag::Err) return o.propagate_error();
  o.set(Tag::Bot);
}

// §4.1 c^κ: c where κ ticks, □ where it does not.
void Oracle::Impl::rule_const(const Node &nd, size_t n, const Store &s, Out &o) {
  Tag kt = s.tag(nd.clock, n);
  if (kt == Tag::Bot) return o.set(Tag::Bot);
  if (kt == Tag::Err) return o.propagate_error();
  if (!s.bval(nd.clock, n)) return o.set(Tag::Abs);
  o.value(nd.constant);
}

// §4.3's tags of a pointwise application: ⊥ first, then all-□, then all present (a nil
// operand gives nil: Lustre's nil propagates; `->` never reads it). True when every
// operand holds a value, which the caller computes on; otherwise `o` holds the result.
bool Oracle::Impl::operands_hold_values(const Node &nd, size_t n, const Store &s, Out &o) {
  bool all_abs = true, all_present = true, any_err = false, any_nil = false;
  for (int c : nd.in) {
    Tag t = s.tag(c, n);
    if (t == Tag::Bot) {
      o.set(Tag::Bot);
      return false;
    }
    all_abs &= t == Tag::Abs;
    all_present &= t == Tag::Val || t == Tag::Nil;
    any_err |= t == Tag::Err;
    any_nil |= t == Tag::Nil;
  }
  if (all_abs) o.set(Tag::Abs);
  else if (!all_present && any_err) o.propagate_error();
  else if (!all_present) o.error("op", "the operands of '" + core::apply_name(*nd.eq) + "' are not all present or all absent");
  else if (any_nil) o.set(Tag::Nil);
  return all_present && !any_nil;
}

// §4.3 pointwise application (also eager `if`).
void Oracle::Impl::rule_apply(const Node &nd, size_t n, const Store &s, Out &o) {
  if (nd.eq->op == core::ApplyOp::Imported) return rule_imported(nd, n, s, o);
  if (nd.in.empty()) return rule_const(nd, n, s, o);
  if (opts.lazy_if && nd.eq->fn == "if") return rule_lazy_if(nd, n, s, o);
  if (!operands_hold_values(nd, n, s, o)) return;
  if (opts.int_overflow_error && overflow(nd, n, s, o)) return;
  if (nd.fast != Fast::None) return scalar_apply(nd, n, s, o);
  std::vector<array::Tensor> args;
  for (int c : nd.in) args.push_back(s.tensor(c, n));
  o.value(apply(*nd.eq, args));
}

// An imported node or function has no body: §4.3's tags (a free constant's: §4.1's), and
// where the call computes a value, the one the inputs give for its output (Inputs). An
// imported function returns equal outputs for equal arguments over the whole run, so a
// given value that contradicts an earlier one of the same arguments is refused.
void Oracle::Impl::rule_imported(const Node &nd, size_t n, const Store &s, Out &o) {
  if (nd.in.empty()) {
    Tag kt = s.tag(nd.clock, n);
    if (kt == Tag::Bot) return o.set(Tag::Bot);
    if (kt == Tag::Err) return o.propagate_error();
    if (!s.bval(nd.clock, n)) return o.set(Tag::Abs);
  } else if (!operands_hold_values(nd, n, s, o)) {
    return;
  }
  const std::vector<Cell> *g = given[static_cast<size_t>(nd.out)];
  if (!g) throw ImportedError(nd.eq->fn, nd.eq->span);
  const Cell &c = (*g)[n];
  const bool chosen = opts.free_imported && c.tag == Tag::Bot;
  auto printed = [&] { return core::printed_names(prog).at(nd.eq->lhs); };  // as traces name it (only for a message)
  if (c.tag != Tag::Val && !chosen)
    throw ImportedError(nd.eq->fn, nd.eq->span,
                        "its output '" + printed() + "' is given no value at cycle " + std::to_string(n) + ", where its call computes one");
  array::Tensor v = chosen ? array::Tensor::zeros(nd.eq->type.elem, array::concrete_shape(nd.eq->type.shape)) : c.value;
  if (!nd.eq->imported_node) {  // a function: its arguments' bytes are the key
    std::string key = nd.eq->fn + '\0' + std::to_string(nd.eq->output);
    for (int a : nd.in) {
      array::Tensor t = s.tensor(a, n);
      key += '\0';
      key.append(reinterpret_cast<const char *>(t.r.data()), t.r.size() * sizeof(double));
      key.append(reinterpret_cast<const char *>(t.i.data()), t.i.size() * sizeof(int64_t));
    }
    if (chosen) {
      if (auto it = given_returns.find(key); it != given_returns.end()) v = it->second;
    }
    if (!(chosen && choosing)) {
      auto [it, fresh] = imported_returns.emplace(std::move(key), v);
      if (!fresh && !(it->second.r == v.r && it->second.i == v.i))
        throw ImportedError(nd.eq->fn, nd.eq->span,
                            "a function, given two different outputs '" + printed() + "' for equal arguments (at cycle " +
                                std::to_string(n) + ")");
    }
  }
  o.value(std::move(v));
}

// --int-overflow error (Options::int_overflow_error): an int operation whose exact result
// leaves the 64-bit range, where the operator would wrap, is ‖ of its own (rule
// `overflow`; ops::int_*_overflows say which), element by element on tensors with a
// scalar operand broadcast. A `fun`'s body and the builtins compute as always.
bool Oracle::Impl::overflow(const Node &nd, size_t n, const Store &s, Out &o) const {
  const core::Equation &eq = *nd.eq;
  if (!core::may_overflow(eq)) return false;
  const bool unary = eq.op == core::ApplyOp::Unary;
  const Column &a = s.cols[nd.in[0]];
  const size_t numel = s.cols[nd.out].numel;
  auto element = [&](size_t k) { return numel > 1 ? " (element " + std::to_string(k) + ")" : std::string(); };
  const char *range = " leaves the 64-bit int range (--int-overflow error)";
  if (unary && a.elem == Scalar::Real && (eq.un == ops::UnOp::Floor || eq.un == ops::UnOp::ToInt)) {
    for (size_t k = 0; k < numel; ++k) {
      double x = s.reals(nd.in[0], n)[k];
      if (!ops::real_to_int_overflows(eq.un, x)) continue;
      o.error("overflow", core::apply_name(eq) + " " + array::format_real(x) + range + element(k));
      return true;
    }
    return false;
  }
  if (a.elem != Scalar::Int) return false;
  if (unary) {
    for (size_t k = 0; k < numel; ++k) {
      int64_t x = s.ints(nd.in[0], n)[k];
      if (!ops::int_unary_overflows(eq.un, x)) continue;
      o.error("overflow", (eq.un == ops::UnOp::Abs ? "abs " : "-") + std::to_string(x) + range + element(k));
      return true;
    }
    return false;
  }
  const Column &b = s.cols[nd.in[1]];
  if (b.elem != Scalar::Int) return false;
  for (size_t k = 0; k < numel; ++k) {
    int64_t x = s.ints(nd.in[0], n)[a.numel == 1 ? 0 : k], y = s.ints(nd.in[1], n)[b.numel == 1 ? 0 : k];
    if (!ops::int_binary_overflows(eq.bin, x, y)) continue;
    o.error("overflow", std::to_string(x) + " " + std::string(ops::row(eq.bin).name) + " " + std::to_string(y) + range + element(k));
    return true;
  }
  return false;
}

// The reference evaluator, unless Options::apply_fun takes the `fun` applications.
array::Tensor Oracle::Impl::apply(const core::Equation &eq, const std::vector<array::Tensor> &args) {
  switch (eq.op) {
    case core::ApplyOp::Unary: return array::Evaluator::unary(eq.un, args.at(0));
    case core::ApplyOp::Binary: return array::Evaluator::binary(eq.bin, args.at(0), args.at(1));
    case core::ApplyOp::If: return args.at(0).i.at(0) ? args.at(1) : args.at(2);  // eager: all three present
    case core::ApplyOp::Index: return array::Evaluator::index(args);
    case core::ApplyOp::Array: return array::Evaluator::array_literal(args);
    case core::ApplyOp::Call: {
      const Decl *d = opts.apply_fun && !eq.builtin ? cp.find(eq.fn) : nullptr;
      if (d && std::holds_alternative<FunDecl>(*d)) return opts.apply_fun(eq.fn, eq.static_args, args);
      return eq.builtin ? eval.builtin_call(eq.fn, eq.static_args, args) : eval.apply(eq.fn, eq.static_args, args);
    }
    case core::ApplyOp::Imported:
      throw ImportedError(eq.fn, eq.span);
  }
  throw OracleError("internal: unknown operator of '" + eq.lhs + "'");
}

void Oracle::Impl::scalar_apply(const Node &nd, size_t n, const Store &s, Out &o) {
  int a = nd.in[0];
  o.tag = Tag::Val;
  o.rule = nullptr;
  bool real = s.cols[a].elem == Scalar::Real;
  switch (nd.fast) {
    case Fast::None: return;
    case Fast::If: return o.copy(s, s.bval(a, n) ? nd.in[1] : nd.in[2], n);
    case Fast::Unary: {
      Scalar re = *ops::result_type(ops::row(nd.un).typing, s.cols[a].elem);
      if (real && re == Scalar::Real) o.r.assign(1, ops::real_unary(nd.un, s.rval(a, n)));
      else if (real) o.i.assign(1, ops::real_to_int(nd.un, s.rval(a, n)));  // floor, int
      else if (re == Scalar::Real) o.r.assign(1, static_cast<double>(s.ival(a, n)));  // real
      else if (re == Scalar::Bool) o.boolean(ops::int_unary(nd.un, s.bval(a, n)) != 0);  // not
      else o.i.assign(1, ops::int_unary(nd.un, s.ival(a, n)));
      return;
    }
    case Fast::Binary: {
      int b = nd.in[1];
      bool cmp = ops::is_comparison(nd.bin);
      if (real) {
        double x = s.rval(a, n), y = s.rval(b, n);
        if (cmp) return o.boolean(ops::compare(nd.bin, x, y));
        o.r.assign(1, ops::real_binary(nd.bin, x, y));
        return;
      }
      if (s.cols[a].elem == Scalar::Bool) return o.boolean(ops::int_binary(nd.bin, s.bval(a, n), s.bval(b, n)) != 0);
      int64_t v = ops::int_binary(nd.bin, s.ival(a, n), s.ival(b, n));
      if (cmp) return o.boolean(v != 0);
      o.i.assign(1, v);
      return;
    }
  }
}

// --lazy-if (an alternative, not the reference): the unselected branch is not needed.
void Oracle::Impl::rule_lazy_if(const Node &nd, size_t n, const Store &s, Out &o) {
  int c = nd.in[0];
  Tag ct = s.tag(c, n);
  if (ct == Tag::Bot) return o.set(Tag::Bot);
  if (ct == Tag::Err) return o.propagate_error();
  if (ct == Tag::Abs) {
    for (int k = 1; k <= 2; ++k) {
      Tag t = s.tag(nd.in[k], n);
      if (t != Tag::Abs && t != Tag::Bot) return o.error("op", "branch present where the condition is absent");
    }
    return o.set(Tag::Abs);
  }
  if (ct == Tag::Nil) return o.error("op", "'if' reads the uninitialised first value of a 'pre'");
  int sel = s.bval(c, n) ? nd.in[1] : nd.in[2], oth = s.bval(c, n) ? nd.in[2] : nd.in[1];
  Tag ot = s.tag(oth, n);
  if (ot == Tag::Abs) return o.error("op", "branch absent where the condition is present");
  if (ot == Tag::Err) return o.propagate_error();
  Tag st = s.tag(sel, n);
  if (st == Tag::Bot) return o.set(Tag::Bot);
  if (st == Tag::Abs) return o.error("op", "branch absent where the condition is present");
  o.copy(s, sel, n);
}

// §4.4 s when^b c (non-strict in the discarded data).
void Oracle::Impl::rule_when(const Node &nd, size_t n, const Store &s, Out &o) {
  int x = nd.in[0], c = nd.in[1];
  Tag ct = s.tag(c, n), xt = s.tag(x, n);
  if (opts.strict_when_merge && (ct == Tag::Bot || xt == Tag::Bot)) return o.set(Tag::Bot);
  if (ct == Tag::Bot) return o.set(Tag::Bot);
  if (ct == Tag::Err) return o.propagate_error();
  if (ct == Tag::Abs) {
    if (xt == Tag::Bot || xt == Tag::Abs) return o.set(Tag::Abs);
    if (xt == Tag::Err) return o.propagate_error();
    return o.error("when", "'" + s.cols[x].name + "' is present but the condition '" + s.cols[c].name + "' is absent");
  }
  if (ct == Tag::Nil) return o.error("when", "the condition is the uninitialised first value of a 'pre'");
  bool selected = s.bval(c, n) == nd.positive;
  if (selected) {
    if (xt == Tag::Val || xt == Tag::Nil) return o.copy(s, x, n);
    if (xt == Tag::Bot) return o.set(Tag::Bot);
    if (xt == Tag::Err) return o.propagate_error();
    return o.error("when", "'" + s.cols[x].name + "' is absent but the condition '" + s.cols[c].name + "' is present");
  }
  if (xt == Tag::Val || xt == Tag::Nil || xt == Tag::Bot) return o.set(Tag::Abs);
  if (xt == Tag::Err) return o.propagate_error();
  o.error("when", "'" + s.cols[x].name + "' is absent but the condition '" + s.cols[c].name + "' is present");
}

// §4.5 merge c s t (non-strict in the discarded branch, which must still be absent).
void Oracle::Impl::rule_merge(const Node &nd, size_t n, const Store &s, Out &o) {
  int c = nd.in[0], a = nd.in[1], b = nd.in[2];
  Tag ct = s.tag(c, n), at = s.tag(a, n), bt = s.tag(b, n);
  if (opts.strict_when_merge && (ct == Tag::Bot || at == Tag::Bot || bt == Tag::Bot)) return o.set(Tag::Bot);
  if (ct == Tag::Bot) return o.set(Tag::Bot);
  if (ct == Tag::Err) return o.propagate_error();
  if (ct == Tag::Nil) return o.error("merge", "the condition is the uninitialised first value of a 'pre'");
  auto absentish = [](Tag t) { return t == Tag::Bot || t == Tag::Abs; };
  if (ct == Tag::Abs) {
    if (absentish(at) && absentish(bt)) return o.set(Tag::Abs);
    if (at == Tag::Err || bt == Tag::Err) return o.propagate_error();
    return o.error("merge", "a branch is present but the condition '" + s.cols[c].name + "' is absent");
  }
  bool cv = s.bval(c, n);
  int sel = cv ? a : b, oth = cv ? b : a;
  Tag st = cv ? at : bt, ot = cv ? bt : at;
  if (!absentish(ot)) {
    if (ot == Tag::Err) return o.propagate_error();
    return o.error("merge", "the branch '" + s.cols[oth].name + "' is present but the condition selects the other one");
  }
  if (st == Tag::Val || st == Tag::Nil) return o.copy(s, sel, n);
  if (st == Tag::Bot) return o.set(Tag::Bot);
  if (st == Tag::Err) return o.propagate_error();
  o.error("merge", "the selected branch '" + s.cols[sel].name + "' is absent");
}

// Index of the previous non-absent cell of column c before n, or -1; scans are bounded
// by the prefix.
long Oracle::Impl::prev_tick(const Store &s, int c, size_t n) {
  for (long m = static_cast<long>(n) - 1; m >= 0; --m)
    if (!skip(s, c, static_cast<size_t>(m))) return m;
  return -1;
}

// §4.6 i fby e, in the index-wise form (equivalent to fby#/pre#: semantics.md §4.6).
void Oracle::Impl::rule_fby(const Node &nd, size_t n, const Store &s, Out &o) {
  int i = nd.in[0], e = nd.in[1];
  Tag it = s.tag(i, n), et = s.tag(e, n);
  if (it == Tag::Bot) return o.set(Tag::Bot);                      // F1/P1
  if (it == Tag::Abs) {
    if (et == Tag::Abs || et == Tag::Bot) return o.set(Tag::Abs);  // F2/P2
    if (et == Tag::Err) return o.propagate_error();
    return o.error("fby", "'" + s.cols[e].name + "' is present but '" + s.cols[i].name + "' is absent");  // F4/P4
  }
  if (it == Tag::Err) return o.propagate_error();                  // F5/P5
  if (et == Tag::Abs) return o.error("fby", "'" + s.cols[e].name + "' is absent but '" + s.cols[i].name + "' is present");
  if (et == Tag::Err) return o.propagate_error();
  long k = prev_tick(s, i, n);
  if (k < 0) return o.copy(s, i, n);                               // F3: first tick
  Tag ik = s.tag(i, static_cast<size_t>(k));
  if (ik == Tag::Bot) return o.set(Tag::Bot);
  if (ik == Tag::Err) return o.propagate_error();
  Tag ek = s.tag(e, static_cast<size_t>(k));                       // P3: the state
  if (ek == Tag::Val || ek == Tag::Nil) return o.copy(s, e, static_cast<size_t>(k));
  if (ek == Tag::Bot) return o.set(Tag::Bot);
  if (ek == Tag::Abs)  // F4 at the previous tick
    return o.error_at(static_cast<size_t>(k), "fby", "'" + s.cols[e].name + "' is absent but '" + s.cols[i].name + "' is present");
  o.propagate_error();  // the state is ‖ (reported where it was produced)
}

// Lustre `a -> b`: a at the first tick, then b; non-strict in the unselected operand.
void Oracle::Impl::rule_arrow(const Node &nd, size_t n, const Store &s, Out &o) {
  int a = nd.in[0], b = nd.in[1];
  Tag at = s.tag(a, n), bt = s.tag(b, n);
  if (at == Tag::Bot) return o.set(Tag::Bot);
  if (at == Tag::Abs) {
    if (bt == Tag::Abs || bt == Tag::Bot) return o.set(Tag::Abs);
    if (bt == Tag::Err) return o.propagate_error();
    return o.error("arrow", "the right operand is present but the left one is absent");
  }
  if (at == Tag::Err) return o.propagate_error();
  if (bt == Tag::Abs) return o.error("arrow", "the right operand is absent but the left one is present");
  if (bt == Tag::Err) return o.propagate_error();
  long k = prev_tick(s, a, n);
  if (k < 0) return o.copy(s, a, n);
  Tag ak = s.tag(a, static_cast<size_t>(k));
  if (ak == Tag::Bot) return o.set(Tag::Bot);
  // An earlier ‖ may have been □ in an earlier iterate (□ ⊑ ‖), when this cell was the
  // first tick: only ‖ is above both readings (monotonicity, as in fby).
  if (ak == Tag::Err) return o.propagate_error();
  if (bt == Tag::Bot) return o.set(Tag::Bot);
  o.copy(s, b, n);
}

// Lustre `pre x` on its clock κ: nil at the first tick of κ, then x at the previous tick.
void Oracle::Impl::rule_pre(const Node &nd, size_t n, const Store &s, Out &o) {
  int x = nd.in[0], k = nd.clock;
  Tag kt = s.tag(k, n), xt = s.tag(x, n);
  if (kt == Tag::Bot) return o.set(Tag::Bot);
  if (kt == Tag::Err) return o.propagate_error();
  if (!s.bval(k, n)) {
    if (xt == Tag::Abs || xt == Tag::Bot) return o.set(Tag::Abs);
    if (xt == Tag::Err) return o.propagate_error();
    return o.error("pre", "'" + s.cols[x].name + "' is present where its clock does not tick");
  }
  if (xt == Tag::Abs) return o.error("pre", "'" + s.cols[x].name + "' is absent where its clock ticks");
  if (xt == Tag::Err) return o.propagate_error();
  long m = prev_tick(s, k, n);
  if (m < 0) return o.set(Tag::Nil);
  size_t p = static_cast<size_t>(m);
  Tag km = s.tag(k, p);
  if (km == Tag::Bot) return o.set(Tag::Bot);
  if (km == Tag::Err) return o.propagate_error();
  Tag xm = s.tag(x, p);
  if (xm == Tag::Val || xm == Tag::Nil) return o.copy(s, x, p);
  if (xm == Tag::Bot) return o.set(Tag::Bot);
  if (xm == Tag::Abs) return o.error_at(p, "pre", "'" + s.cols[x].name + "' is absent where its clock ticks");
  o.propagate_error();  // ‖ at its own tick: reported where it was produced
}

// §4.7 post^κ x: x at the next tick of κ (look scans forward, ⊥ past the prefix).
void Oracle::Impl::rule_post(const Node &nd, size_t n, const Store &s, Out &o) {
  if (opts.post_clock_data) return rule_post_data(nd, n, s, o);
  int x = nd.in[0], k = nd.clock;
  Tag kt = s.tag(k, n), xt = s.tag(x, n);
  if (kt == Tag::Bot) return o.set(Tag::Bot);
  if (kt == Tag::Err) return o.propagate_error();
  if (!s.bval(k, n)) {
    if (xt == Tag::Abs || xt == Tag::Bot) return o.set(Tag::Abs);
    if (xt == Tag::Err) return o.propagate_error();
    return o.error("post", "'" + s.cols[x].name + "' is present where its clock does not tick");
  }
  if (xt == Tag::Abs) return o.error("post", "'" + s.cols[x].name + "' is absent where its clock ticks");
  if (xt == Tag::Err) return o.propagate_error();
  for (size_t m = n + 1; m < s.N; ++m) {  // look(m)
    Tag km = s.tag(k, m);
    if (km == Tag::Bot) return o.set(Tag::Bot);
    if (km == Tag::Err) return o.propagate_error();
    if (!s.bval(k, m)) continue;
    Tag xm = s.tag(x, m);
    if (xm == Tag::Val || xm == Tag::Nil) return o.copy(s, x, m);
    if (xm == Tag::Bot) return o.set(Tag::Bot);
    if (xm == Tag::Abs) return o.error_at(m, "post", "'" + s.cols[x].name + "' is absent where its clock ticks");
    return o.propagate_error();  // ‖ at its own tick: reported where it was produced
  }
  o.set(Tag::Bot);  // the next tick is beyond the prefix
}

// --post-clock data (refuted, semantics.md §2.3): presence from the argument itself.
void Oracle::Impl::rule_post_data(const Node &nd, size_t n, const Store &s, Out &o) {
  int x = nd.in[0];
  Tag xt = s.tag(x, n);
  if (xt == Tag::Bot) return o.set(Tag::Bot);
  if (xt == Tag::Abs) return o.set(Tag::Abs);
  if (xt == Tag::Err) return o.propagate_error();
  for (size_t m = n + 1; m < s.N; ++m) {
    Tag xm = s.tag(x, m);
    if (xm == Tag::Abs) continue;
    if (xm == Tag::Val || xm == Tag::Nil) return o.copy(s, x, m);
    if (xm == Tag::Bot) return o.set(Tag::Bot);
    return o.propagate_error();
  }
  o.set(Tag::Bot);
}

void Oracle::Impl::apply_rule(const Node &nd, size_t n, const Store &s, Out &o) {
  ++evaluations;
  switch (nd.k) {
    case K::ClockBase: return rule_clock_base(nd, n, s, o);
    case K::ClockOn: return rule_clock_on(nd, n, s, o);
    case K::ClockNever: return rule_clock_never(nd, n, s, o);
    case K::Const: return rule_const(nd, n, s, o);
    case K::Copy: return o.copy(s, nd.in[0], n);
    case K::Apply: return rule_apply(nd, n, s, o);
    case K::When: return rule_when(nd, n, s, o);
    case K::Merge: return rule_merge(nd, n, s, o);
    case K::Fby: return rule_fby(nd, n, s, o);
    case K::Pre: return rule_pre(nd, n, s, o);
    case K::Arrow: return rule_arrow(nd, n, s, o);
    case K::Post: return rule_post(nd, n, s, o);
  }
}

}  // namespace rml::oracle
