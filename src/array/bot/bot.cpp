// The bulk-operation transform: the 30 rules of Figs. 9–11 (array-ad.md §4), the
// bottom-up normaliser and the Theorem 5.1 normal-form check.
//
// Deviations from the figures, each needed for the reference semantics (out-of-bounds
// index/gather read 0) or for unique normal forms; bot.hpp lists them too:
// - B3–B13 and G1–G4 fire only when the binder occurs in the body: B2 has priority, or
//   `build1 k (\i. x + y)` would have two normal forms.
// - I3–I13 fire only on a non-empty index (I1 has priority, same reason).
// - I5/I6: `index (op t u) ix` is 0 out of bounds, `op (index t ix) (index u ix)` is
//   op(0,0). Where op(0,0) is not bitwise 0 (exp, cos, not, =, /, real neg, ...) the
//   result is guarded: `index [op ..] [cond inb 0 (-1)]` reads 0 when ix is out of bounds.
// - I9 and I12 drop a dimension whose index could be out of bounds; the dropped index is
//   kept as a guard: an out-of-bounds first component turns the next index component
//   into -1 (so the read is out of bounds), or, with no component left, a one-element
//   literal guard as above.
// - I12 substitutes u into each component (the figure's `let i=u in ix` is not an index).
// - I4, I5, I8 bind only non-atomic index components to lets (atoms are not duplicated
//   work).
#include "array/bot/bot.hpp"

#include <algorithm>
#include <unordered_map>

#include "array/bot/free_vars.hpp"
#include "array/ir/eval.hpp"

namespace rml::bot {

using namespace ir;

const char *rule_name(Rule r) {
  static const char *names[] = {"B1", "B2", "B3", "B4", "B5", "B6", "B7", "B8", "B9", "B10", "B11", "B12", "B13", "I1", "I2",
                                "I3", "I4", "I5", "I6", "I7", "I8", "I9", "I10", "I11", "I12", "I13", "G1", "G2", "G3", "G4"};
  return names[static_cast<int>(r)];
}

namespace detail {

Term ivar(const std::string &x) { return var(x, Type{Elem::Int, {}}); }

// Components cheap enough to duplicate instead of let-binding: variables, constants, and
// a variable indexed by variables or constants. The last is what B3 substitutes for a
// let-bound variable, so I5 treats a component alike before and after B3 (otherwise the
// order of B3 and I5 would show in the normal form).
bool atomic(const Term &t) {
  if (t->kind == Kind::Var || t->kind == Kind::Const) return true;
  if (t->kind != Kind::Index || t->kids[0]->kind != Kind::Var) return false;
  for (size_t q = 1; q < t->kids.size(); ++q)
    if (t->kids[q]->kind != Kind::Var && t->kids[q]->kind != Kind::Const) return false;
  return true;
}
bool constant_like(const Term &t) { return t->kind == Kind::Const || t->kind == Kind::Iota; }

std::optional<int64_t> const_int(const Term &t) {
  if (t->kind == Kind::Const && is_int_scalar(t->type)) return t->value->i[0];
  return std::nullopt;
}

// 0 <= u < k, folded when u is a constant.
Term in_bounds(const Term &u, int64_t k) {
  if (auto c = const_int(u)) return constant(Tensor::boolean(*c >= 0 && *c < k));
  return binary(BinOp::And, binary(BinOp::Le, int_scalar(0), u), binary(BinOp::Lt, u, int_scalar(k)));
}

// Whether every component is a constant within the leading dims of `shape`.
bool statically_in_bounds(const std::vector<Term> &ix, const Shape &shape) {
  for (size_t d = 0; d < ix.size(); ++d) {
    auto c = const_int(ix[d]);
    if (!c || *c < 0 || *c >= shape[d]) return false;
  }
  return true;
}

Term all_in_bounds(const std::vector<Term> &ix, const Shape &shape) {
  Term acc;
  for (size_t d = 0; d < ix.size(); ++d) {
    Term b = in_bounds(ix[d], shape[d]);
    acc = acc ? binary(BinOp::And, acc, b) : b;
  }
  return acc ? acc : constant(Tensor::boolean(true));
}

// `index [e] [cond ok 0 (-1)]`: e when ok, else 0 (the one-element literal read out of
// bounds). Every guard bot adds is a `cond ok c (-1)` (B4's conds are `cond b 0 1`).
Term guard(const Term &ok, const Term &e) {
  return index(from_list({e}), {cond(ok, int_scalar(0), int_scalar(-1))});
}

// Whether op maps zeros to (bitwise) zeros: then op commutes with an out-of-bounds read.
bool zero_preserving(UnOp op, Elem e) {
  Tensor out = apply_unary(op, Tensor::zeros(e, {}));
  return out == Tensor::zeros(out.elem, {});
}
bool zero_preserving(BinOp op, Elem e) {
  Tensor z = Tensor::zeros(e, {});
  Tensor out = apply_binary(op, z, z);
  return out == Tensor::zeros(out.elem, {});
}

// The lets of I4/I5/I8: non-atomic components bound to fresh names, outermost first.
struct Bound {
  std::vector<Term> comps;
  std::vector<std::pair<std::string, Term>> lets;
  Term wrap(Term body) const {
    for (size_t q = lets.size(); q-- > 0;) body = let(lets[q].first, lets[q].second, body);
    return body;
  }
};
Bound bind_components(const std::vector<Term> &ix) {
  Bound b;
  for (auto &c : ix) {
    if (atomic(c)) {
      b.comps.push_back(c);
    } else {
      std::string x = fresh_name("ix");
      b.lets.emplace_back(x, c);
      b.comps.push_back(ivar(x));
    }
  }
  return b;
}

Shape cons(int64_t k, const Shape &s) {
  Shape out{k};
  out.insert(out.end(), s.begin(), s.end());
  return out;
}

// ---- Fig. 9: build1 over every head but index ----
// uses_i: whether the binder occurs free in the body, if the caller knows.
std::optional<Term> build_rule(Rule r, const Term &t, std::optional<bool> uses_i_known = std::nullopt) {
  if (t->kind != Kind::Build1) return std::nullopt;
  const int64_t k = t->k;
  const std::string &i = t->name;
  const Term &body = t->kids[0];
  auto b1 = [&](const Term &u) { return build1(k, i, u); };
  if (r == Rule::B1) {
    if (body->kind == Kind::Var && body->name == i) return iota(k);
    return std::nullopt;
  }
  const bool uses_i = uses_i_known ? *uses_i_known : occurs_free(i, body);
  if (r == Rule::B2) {
    if (uses_i) return std::nullopt;
    return replicate(k, body);
  }
  if (!uses_i) return std::nullopt;  // B2 has priority
  switch (r) {
    case Rule::B3: {
      if (body->kind != Kind::Let) return std::nullopt;
      const Term &v = body->kids[0];
      std::string x = fresh_name(body->name);
      Term xs = b1(v);
      Term u = substitute(body->kids[1], body->name, index(var(x, xs->type), {ivar(i)}));
      return let(x, xs, b1(u));
    }
    case Rule::B4:
      if (body->kind != Kind::Cond) return std::nullopt;
      return b1(index(from_list({body->kids[1], body->kids[2]}), {cond(body->kids[0], int_scalar(0), int_scalar(1))}));
    case Rule::B5:
      if (body->kind != Kind::Binary) return std::nullopt;
      return binary(body->bin, b1(body->kids[0]), b1(body->kids[1]));
    case Rule::B6:
      if (body->kind != Kind::Unary) return std::nullopt;
      return unary(body->un, b1(body->kids[0]));
    case Rule::B7:
      if (body->kind != Kind::SumOuter) return std::nullopt;
      return sum_outer(tr(b1(body->kids[0])));
    case Rule::B8:
    case Rule::B9: {
      if (body->kind != (r == Rule::B8 ? Kind::Gather : Kind::Scatter)) return std::nullopt;
      // The new outer binder is i itself unless a binder of the lambda shadows i (then the
      // components cannot mention the build's i, and any fresh name will do).
      const auto &bs = body->binders;
      std::string nb = std::find(bs.begin(), bs.end(), i) == bs.end() ? i : fresh_name(i);
      std::vector<std::string> binders{nb};
      binders.insert(binders.end(), bs.begin(), bs.end());
      std::vector<Term> ix{ivar(nb)};
      ix.insert(ix.end(), body->ix.begin(), body->ix.end());
      Shape sh = cons(k, body->shape_arg);
      return r == Rule::B8 ? gather(sh, b1(body->kids[0]), binders, ix) : scatter(sh, b1(body->kids[0]), binders, ix);
    }
    case Rule::B10: {
      if (body->kind != Kind::FromList) return std::nullopt;
      std::vector<Term> ts;
      for (auto &e : body->kids) ts.push_back(b1(e));
      return tr(from_list(ts));
    }
    case Rule::B11:
      if (body->kind != Kind::Replicate) return std::nullopt;
      return tr(replicate(body->k, b1(body->kids[0])));
    case Rule::B12: {
      if (body->kind != Kind::Transpose) return std::nullopt;
      Shape perm{0};
      for (auto p : body->shape_arg) perm.push_back(p + 1);
      return transpose(perm, b1(body->kids[0]));
    }
    case Rule::B13:
      if (body->kind != Kind::Reshape) return std::nullopt;
      return reshape(cons(k, body->shape_arg), b1(body->kids[0]));
    default: break;
  }
  // ---- Fig. 11: build1 over the index normal forms ----
  if (body->kind != Kind::Index || body->kids.size() < 2) return std::nullopt;
  const Term &head = body->kids[0];
  std::vector<Term> ix(body->kids.begin() + 1, body->kids.end());
  Shape sh = cons(k, body->type.shape);
  switch (r) {
    case Rule::G1:
      if (head->kind != Kind::Var) return std::nullopt;
      return gather(sh, head, {i}, ix);
    case Rule::G2:
      if (!constant_like(head)) return std::nullopt;
      return gather(sh, head, {i}, ix);
    case Rule::G3:
    case Rule::G4: {
      if (head->kind != (r == Rule::G3 ? Kind::FromList : Kind::Scatter)) return std::nullopt;
      if (r == Rule::G3 && ix.size() != 1) return std::nullopt;
      std::vector<Term> comps{ivar(i)};
      comps.insert(comps.end(), ix.begin(), ix.end());
      return gather(sh, b1(head), {i}, comps);
    }
    default: return std::nullopt;
  }
}

// ---- Fig. 10: push index down ----
std::optional<Term> index_rule(Rule r, const Term &t) {
  if (t->kind != Kind::Index) return std::nullopt;
  const Term &head = t->kids[0];
  std::vector<Term> ix(t->kids.begin() + 1, t->kids.end());
  if (r == Rule::I1) {
    if (!ix.empty()) return std::nullopt;
    return head;
  }
  if (r == Rule::I2) {
    if (head->kind != Kind::Index) return std::nullopt;
    std::vector<Term> all(head->kids.begin() + 1, head->kids.end());
    all.insert(all.end(), ix.begin(), ix.end());
    return index(head->kids[0], all);
  }
  if (ix.empty()) return std::nullopt;  // I1 has priority
  const Shape &hs = head->type.shape;
  switch (r) {
    case Rule::I3: {
      if (head->kind != Kind::Let) return std::nullopt;
      bool captured = false;
      for (auto &c : ix) captured = captured || occurs_free(head->name, c);
      if (!captured) return let(head->name, head->kids[0], index(head->kids[1], ix));
      std::string x = fresh_name(head->name);
      Term body = substitute(head->kids[1], head->name, var(x, head->kids[0]->type));
      return let(x, head->kids[0], index(body, ix));
    }
    case Rule::I4: {
      if (head->kind != Kind::Cond) return std::nullopt;
      Bound b = bind_components(ix);
      return b.wrap(cond(head->kids[0], index(head->kids[1], b.comps), index(head->kids[2], b.comps)));
    }
    case Rule::I5: {
      if (head->kind != Kind::Binary) return std::nullopt;
      Bound b = bind_components(ix);
      Term e = binary(head->bin, index(head->kids[0], b.comps), index(head->kids[1], b.comps));
      if (!zero_preserving(head->bin, head->kids[0]->type.elem) && !statically_in_bounds(ix, hs))
        e = guard(all_in_bounds(b.comps, hs), e);
      return b.wrap(e);
    }
    case Rule::I6: {
      if (head->kind != Kind::Unary) return std::nullopt;
      if (zero_preserving(head->un, head->kids[0]->type.elem) || statically_in_bounds(ix, hs))
        return unary(head->un, index(head->kids[0], ix));
      Bound b = bind_components(ix);
      return b.wrap(guard(all_in_bounds(b.comps, hs), unary(head->un, index(head->kids[0], b.comps))));
    }
    case Rule::I7: {
      if (head->kind != Kind::SumOuter) return std::nullopt;
      // tr_{1,..,n,0}: dim 0 moves to position n = |ix|, behind the indexed dims.
      Shape perm;
      for (size_t p = 1; p <= ix.size(); ++p) perm.push_back(static_cast<int64_t>(p));
      perm.push_back(0);
      return sum_outer(index(transpose(perm, head->kids[0]), ix));
    }
    case Rule::I8: {
      if (head->kind != Kind::FromList || ix.size() < 2) return std::nullopt;
      Bound b = bind_components(std::vector<Term>(ix.begin() + 1, ix.end()));
      std::vector<Term> ts;
      for (auto &e : head->kids) ts.push_back(index(e, b.comps));
      return b.wrap(index(from_list(ts), {ix[0]}));
    }
    case Rule::I9: {
      if (head->kind != Kind::Replicate) return std::nullopt;
      std::vector<Term> rest(ix.begin() + 1, ix.end());
      if (statically_in_bounds({ix[0]}, hs)) return index(head->kids[0], rest);
      Term ok = in_bounds(ix[0], head->k);
      if (rest.empty()) return guard(ok, head->kids[0]);
      rest[0] = cond(ok, rest[0], int_scalar(-1));
      return index(head->kids[0], rest);
    }
    case Rule::I10: {
      if (head->kind != Kind::Transpose) return std::nullopt;
      const Shape &perm = head->shape_arg;
      // gather sh t (\[o_0..o_{m-1}]. [x_0..x_{m-1}]) with x_{perm[p]} = o_p
      std::vector<std::string> os;
      for (size_t p = 0; p < perm.size(); ++p) os.push_back(fresh_name("i"));
      std::vector<Term> comps(perm.size());
      for (size_t p = 0; p < perm.size(); ++p) comps[static_cast<size_t>(perm[p])] = ivar(os[p]);
      return index(gather(hs, head->kids[0], os, comps), ix);
    }
    case Rule::I11: {
      if (head->kind != Kind::Reshape) return std::nullopt;
      const Shape &src = head->kids[0]->type.shape;
      std::vector<std::string> bs;
      for (size_t d = 0; d < hs.size(); ++d) bs.push_back(fresh_name("i"));
      // toLinearIdx hs bs, row-major
      Term lin;
      for (size_t d = 0; d < hs.size(); ++d) {
        Term b = ivar(bs[d]);
        lin = !lin ? b : binary(BinOp::Add, binary(BinOp::Mul, lin, int_scalar(hs[d])), b);
      }
      if (!lin) lin = int_scalar(0);
      // fromLinearIdx src lin: component d = (lin div stride_d) mod src_d; the first needs no
      // mod and a unit stride no div, since lin < numel for every point of the domain.
      std::vector<Term> comps;
      for (size_t d = 0; d < src.size(); ++d) {
        int64_t stride = numel(Shape(src.begin() + static_cast<long>(d) + 1, src.end()));
        Term c = stride == 1 ? lin : binary(BinOp::IDiv, lin, int_scalar(stride));
        if (d > 0) c = binary(BinOp::Mod, c, int_scalar(src[d]));
        comps.push_back(c);
      }
      return index(gather(hs, head->kids[0], bs, comps), ix);
    }
    case Rule::I12: {
      if (head->kind != Kind::Gather || head->binders.empty()) return std::nullopt;
      const Term &u = ix[0];
      const std::string &b0 = head->binders[0];
      std::vector<std::string> bs(head->binders.begin() + 1, head->binders.end());
      std::vector<Term> comps = head->ix;
      // Rename the remaining binders that would capture a free variable of u.
      auto fv_u = free_vars(u);
      for (auto &b : bs)
        if (std::binary_search(fv_u.begin(), fv_u.end(), b)) {
          std::string nb = fresh_name(b);
          for (auto &c : comps) c = substitute(c, b, ivar(nb));
          b = nb;
        }
      if (std::find(bs.begin(), bs.end(), b0) == bs.end())  // else b0 is shadowed in comps
        for (auto &c : comps) c = substitute(c, b0, u);
      Shape sh(head->shape_arg.begin() + 1, head->shape_arg.end());
      std::vector<Term> rest(ix.begin() + 1, ix.end());
      if (statically_in_bounds({u}, head->shape_arg)) return index(gather(sh, head->kids[0], bs, comps), rest);
      Term ok = in_bounds(u, head->shape_arg[0]);
      if (comps.empty()) return guard(ok, index(gather(sh, head->kids[0], bs, comps), rest));
      comps[0] = cond(ok, comps[0], int_scalar(-1));
      return index(gather(sh, head->kids[0], bs, comps), rest);
    }
    case Rule::I13:
      if (head->kind != Kind::Gather || !head->binders.empty()) return std::nullopt;
      return index(index(head->kids[0], head->ix), ix);
    default: return std::nullopt;
  }
}

}  // namespace detail

std::optional<Term> apply_rule(Rule r, const Term &t) {
  if (r <= Rule::B13 || r >= Rule::G1) return detail::build_rule(r, t);
  return detail::index_rule(r, t);
}

namespace {

// The rules that can match t, in the Rule enum's order (each rule checks its pattern; this
// only saves trying the others, and the repeated free-variable test of B3–G4).
std::vector<Rule> candidates(const Term &t, detail::FreeVars &fv) {
  if (t->kind == Kind::Build1) {
    const Term &body = t->kids[0];
    if (body->kind == Kind::Var && body->name == t->name) return {Rule::B1};
    if (!fv.occurs(t->name, body)) return {Rule::B2};
    switch (body->kind) {
      case Kind::Let: return {Rule::B3};
      case Kind::Cond: return {Rule::B4};
      case Kind::Binary: return {Rule::B5};
      case Kind::Unary: return {Rule::B6};
      case Kind::SumOuter: return {Rule::B7};
      case Kind::Gather: return {Rule::B8};
      case Kind::Scatter: return {Rule::B9};
      case Kind::FromList: return {Rule::B10};
      case Kind::Replicate: return {Rule::B11};
      case Kind::Transpose: return {Rule::B12};
      case Kind::Reshape: return {Rule::B13};
      case Kind::Index: return {Rule::G1, Rule::G2, Rule::G3, Rule::G4};
      default: return {};
    }
  }
  if (t->kind != Kind::Index) return {};
  if (t->kids.size() == 1) return {Rule::I1};
  switch (t->kids[0]->kind) {
    case Kind::Index: return {Rule::I2};
    case Kind::Let: return {Rule::I3};
    case Kind::Cond: return {Rule::I4};
    case Kind::Binary: return {Rule::I5};
    case Kind::Unary: return {Rule::I6};
    case Kind::SumOuter: return {Rule::I7};
    case Kind::FromList: return {Rule::I8};
    case Kind::Replicate: return {Rule::I9};
    case Kind::Transpose: return {Rule::I10};
    case Kind::Reshape: return {Rule::I11};
    case Kind::Gather: return {Rule::I12, Rule::I13};
    default: return {};
  }
}

// Bottom-up: children first, then rules at the root until none applies; a reduct is
// normalised again (its new nodes may be redexes; its old ones hit the memo).
struct Normaliser {
  // Keyed by node address; the key is kept alive so an address is never reused.
  std::unordered_map<const Node *, std::pair<Term, Term>> memo;
  detail::FreeVars fv;

  Term norm(const Term &t) {
    if (auto it = memo.find(t.get()); it != memo.end()) return it->second.second;
    std::vector<Term> kids, ix;
    bool changed = false;
    for (auto &k : t->kids) {
      kids.push_back(norm(k));
      changed = changed || kids.back() != k;
    }
    for (auto &c : t->ix) {
      ix.push_back(norm(c));
      changed = changed || ix.back() != c;
    }
    Term cur = changed ? with_kids(t, std::move(kids), std::move(ix)) : t;
    Term out = root(cur);
    memo.emplace(t.get(), std::make_pair(t, out));
    memo.emplace(out.get(), std::make_pair(out, out));
    return out;
  }

  Term root(const Term &t) {
    for (Rule r : candidates(t, fv)) {
      std::optional<Term> out;
      try {
        // candidates() has checked that the binder occurs in the body (else only B2 is tried)
        bool is_build = r <= Rule::B13 || r >= Rule::G1;
        out = is_build ? detail::build_rule(r, t, r != Rule::B2) : apply_rule(r, t);
      } catch (const IrError &e) {  // e.g. G3/G4 materialising k copies beyond kMaxElements
        throw IrError(std::string("bot.") + rule_name(r) + ": " + e.what());
      }
      if (out) return norm(*out);
    }
    // A build1 over a normal body always has a rule, except over a share using the binder.
    if (t->kind == Kind::Build1) throw IrError("bot: no rule applies to " + print(t));
    return t;
  }
};

}  // namespace

Term bot(const Term &t) {
  Term out = Normaliser{}.norm(t);
  // Theorem 5.1 as an assertion: a violation here is a bug in the rules above.
  if (auto v = normal_form_violation(out)) throw IrError("bot: internal error, result not in normal form: " + *v);
  return out;
}

std::optional<std::string> normal_form_violation(const Term &t) {
  std::vector<const Term *> stack{&t};
  while (!stack.empty()) {
    const Term &n = *stack.back();
    stack.pop_back();
    if (n->kind == Kind::Build1) return "build1 remains: " + print(n);
    if (n->kind == Kind::Index) {
      const Term &head = n->kids[0];
      size_t m = n->kids.size() - 1;
      bool ok = m >= 1 && (head->kind == Kind::Var || detail::constant_like(head) || head->kind == Kind::Scatter ||
                           (head->kind == Kind::FromList && m == 1));
      if (!ok) return "index not in normal form: " + print(n);
    }
    for (auto &k : n->kids) stack.push_back(&k);
    for (auto &c : n->ix) stack.push_back(&c);
  }
  return std::nullopt;
}

}  // namespace rml::bot
