// The simplifier (array-ad.md §10.2 step 3) and the interval analysis it uses to drop
// out-of-bounds guards. Every rule keeps the reference semantics exactly: gather and index
// read 0 out of bounds, so a fusion that removes a bounds check either proves the check
// from the ranges of the enclosing binders or moves it into an index component.
#include <algorithm>
#include <map>
#include <set>
#include <tuple>

#include "array/bot/bot.hpp"
#include "array/bot/free_vars.hpp"
#include "array/ir/eval.hpp"

namespace rml::bot {

using namespace ir;

const char *simp_rule_name(SimpRule r) {
  static const char *names[] = {"IdentityGather", "GatherOfGather", "GatherOfReplicate", "GatherOfIota",
                                "GatherOfConstant", "DeadLet",        "TrivialLet",        "ConstantFold"};
  return names[static_cast<int>(r)];
}

namespace {

using OptI = std::optional<Interval>;

OptI make(int64_t lo, int64_t hi) { return Interval{lo, hi}; }
OptI unite(OptI a, OptI b) {
  if (!a || !b) return std::nullopt;
  return make(std::min(a->lo, b->lo), std::max(a->hi, b->hi));
}
OptI with_zero(OptI a) { return unite(a, make(0, 0)); }

// Corners of a monotone-in-each-argument operation; nullopt if any corner overflows.
template <typename F>
OptI corners(const Interval &a, const Interval &b, F f) {
  int64_t v[4];
  int64_t xs[2] = {a.lo, a.hi}, ys[2] = {b.lo, b.hi};
  for (int p = 0; p < 4; ++p)
    if (f(xs[p / 2], ys[p % 2], &v[p])) return std::nullopt;
  return make(*std::min_element(v, v + 4), *std::max_element(v, v + 4));
}

struct Ranges {
  RangeEnv env;
  detail::FreeVars *fv = nullptr;  // the simplifier's cache, if any

  bool occurs(const std::string &x, const Term &t) { return fv ? fv->occurs(x, t) : occurs_free(x, t); }

  OptI lookup(const std::string &x) const {
    for (auto it = env.rbegin(); it != env.rend(); ++it)
      if (it->first == x) return it->second;
    return std::nullopt;
  }

  // Whether each component is provably within the leading dims of `shape`.
  bool in_bounds(const std::vector<Term> &ix, const Shape &shape, size_t from = 0) {
    for (size_t d = from; d < ix.size(); ++d) {
      OptI r = range(ix[d]);
      if (!r || r->lo < 0 || r->hi >= shape[d]) return false;
    }
    return true;
  }

  void push_binders(const std::vector<std::string> &bs, const Shape &dims) {
    for (size_t d = 0; d < bs.size(); ++d)
      env.emplace_back(bs[d], dims[d] > 0 ? make(0, dims[d] - 1) : std::nullopt);
  }

  OptI range(const Term &t) {
    if (t->type.elem != Elem::Int) return std::nullopt;
    switch (t->kind) {
      case Kind::Const: {
        const auto &v = t->value->i;
        if (v.empty()) return make(0, 0);  // never read; any interval is sound
        return make(*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
      }
      case Kind::Var: return lookup(t->name);
      case Kind::Iota: return make(0, std::max<int64_t>(t->k - 1, 0));
      case Kind::Let: {
        env.emplace_back(t->name, range(t->kids[0]));
        OptI r = range(t->kids[1]);
        env.pop_back();
        return r;
      }
      case Kind::Cond: {
        auto b = truth(t->kids[0]);
        if (b) return range(t->kids[*b ? 1 : 2]);
        return unite(range(t->kids[1]), range(t->kids[2]));
      }
      case Kind::Unary: {
        OptI a = range(t->kids[0]);
        if (!a) return std::nullopt;
        if (a->lo == INT64_MIN) return std::nullopt;
        if (t->un == UnOp::Neg) return make(-a->hi, -a->lo);
        if (t->un == UnOp::Abs) {
          if (a->lo >= 0) return a;
          if (a->hi <= 0) return make(-a->hi, -a->lo);
          return make(0, std::max(-a->lo, a->hi));
        }
        return std::nullopt;
      }
      case Kind::Binary: {
        OptI a = range(t->kids[0]), b = range(t->kids[1]);
        if (!a || !b) return std::nullopt;
        if (a->lo == a->hi && b->lo == b->hi) {  // exact, with the evaluator's wrapping and x div 0
          Tensor v = apply_binary(t->bin, Tensor::integer(a->lo), Tensor::integer(b->lo));
          if (v.elem == Elem::Int) return make(v.i[0], v.i[0]);
        }
        switch (t->bin) {
          case BinOp::Add:
            return corners(*a, *b, [](int64_t x, int64_t y, int64_t *o) { return __builtin_add_overflow(x, y, o); });
          case BinOp::Sub:
            return corners(*a, *b, [](int64_t x, int64_t y, int64_t *o) { return __builtin_sub_overflow(x, y, o); });
          case BinOp::Mul:
            return corners(*a, *b, [](int64_t x, int64_t y, int64_t *o) { return __builtin_mul_overflow(x, y, o); });
          case BinOp::IDiv:  // truncating; monotone in each argument for a positive divisor
          case BinOp::Div:
            if (b->lo < 1) return std::nullopt;
            return corners(*a, *b, [](int64_t x, int64_t y, int64_t *o) {
              *o = x / y;
              return false;
            });
          case BinOp::Mod: {  // C remainder: sign of the dividend, |r| < divisor
            if (b->lo < 1) return std::nullopt;
            int64_t m = b->hi - 1;
            return make(std::max(std::min<int64_t>(a->lo, 0), -m), std::min(std::max<int64_t>(a->hi, 0), m));
          }
          case BinOp::Max: return make(std::max(a->lo, b->lo), std::max(a->hi, b->hi));
          case BinOp::Min: return make(std::min(a->lo, b->lo), std::min(a->hi, b->hi));
          default: return std::nullopt;
        }
      }
      case Kind::Index: {
        std::vector<Term> ix(t->kids.begin() + 1, t->kids.end());
        OptI r = range(t->kids[0]);
        return in_bounds(ix, t->kids[0]->type.shape) ? r : with_zero(r);
      }
      case Kind::Gather: return with_zero(range(t->kids[0]));
      case Kind::Scatter:  // one write per point when there are no binders
        return t->binders.empty() ? with_zero(range(t->kids[0])) : std::nullopt;
      case Kind::SumOuter: {
        OptI a = range(t->kids[0]);
        int64_t n = t->kids[0]->type.shape[0];
        if (!a) return std::nullopt;
        int64_t lo, hi;
        if (__builtin_mul_overflow(a->lo, n, &lo) || __builtin_mul_overflow(a->hi, n, &hi)) return std::nullopt;
        return make(std::min<int64_t>(lo, 0), std::max<int64_t>(hi, 0));
      }
      case Kind::FromList: {
        OptI r = range(t->kids[0]);
        for (auto &k : t->kids) r = unite(r, range(k));
        return r;
      }
      case Kind::Replicate:
      case Kind::Transpose:
      case Kind::Reshape:
      case Kind::Share: return range(t->kids[0]);
      case Kind::Build1: {
        env.emplace_back(t->name, t->k > 0 ? make(0, t->k - 1) : std::nullopt);
        OptI r = range(t->kids[0]);
        env.pop_back();
        return r;
      }
    }
    return std::nullopt;
  }

  std::optional<bool> truth(const Term &t) {
    if (t->type.elem != Elem::Bool) return std::nullopt;
    switch (t->kind) {
      case Kind::Const: {
        const auto &v = t->value->i;
        if (v.empty()) return std::nullopt;
        for (auto x : v)
          if ((x != 0) != (v[0] != 0)) return std::nullopt;
        return v[0] != 0;
      }
      case Kind::Unary: {
        auto a = truth(t->kids[0]);
        if (a && t->un == UnOp::Not) return !*a;
        return std::nullopt;
      }
      case Kind::Let: {
        env.emplace_back(t->name, range(t->kids[0]));
        auto r = truth(t->kids[1]);
        env.pop_back();
        return r;
      }
      case Kind::Cond: {
        auto b = truth(t->kids[0]);
        if (b) return truth(t->kids[*b ? 1 : 2]);
        auto u = truth(t->kids[1]), v = truth(t->kids[2]);
        if (u && v && *u == *v) return u;
        return std::nullopt;
      }
      case Kind::Binary: {
        if (t->kids[0]->type.elem == Elem::Bool) {
          auto a = truth(t->kids[0]), b = truth(t->kids[1]);
          switch (t->bin) {
            case BinOp::And:
              if ((a && !*a) || (b && !*b)) return false;
              if (a && b) return true;
              return std::nullopt;
            case BinOp::Or:
              if ((a && *a) || (b && *b)) return true;
              if (a && b) return false;
              return std::nullopt;
            case BinOp::Implies:
              if ((a && !*a) || (b && *b)) return true;
              if (a && b) return false;
              return std::nullopt;
            case BinOp::Xor:
            case BinOp::Ne:
              if (a && b) return *a != *b;
              return std::nullopt;
            case BinOp::Eq:
              if (a && b) return *a == *b;
              return std::nullopt;
            default: return std::nullopt;
          }
        }
        OptI a = range(t->kids[0]), b = range(t->kids[1]);
        if (!a || !b) return std::nullopt;
        switch (t->bin) {
          case BinOp::Lt:
            if (a->hi < b->lo) return true;
            if (a->lo >= b->hi) return false;
            return std::nullopt;
          case BinOp::Le:
            if (a->hi <= b->lo) return true;
            if (a->lo > b->hi) return false;
            return std::nullopt;
          case BinOp::Gt:
            if (a->lo > b->hi) return true;
            if (a->hi <= b->lo) return false;
            return std::nullopt;
          case BinOp::Ge:
            if (a->lo >= b->hi) return true;
            if (a->hi < b->lo) return false;
            return std::nullopt;
          case BinOp::Eq:
          case BinOp::Ne: {
            std::optional<bool> eq;
            if (a->lo == a->hi && b->lo == b->hi && a->lo == b->lo) eq = true;
            if (a->hi < b->lo || b->hi < a->lo) eq = false;
            if (!eq) return std::nullopt;
            return t->bin == BinOp::Eq ? *eq : !*eq;
          }
          default: return std::nullopt;
        }
      }
      default: return std::nullopt;
    }
  }
};

Term ivar(const std::string &x) { return var(x, Type{Elem::Int, {}}); }

bool distinct(const std::vector<std::string> &bs) { return std::set<std::string>(bs.begin(), bs.end()).size() == bs.size(); }

// An array of the given shape filled with the scalar term s (a replicate chain).
Term filled(const Shape &sh, Term s) {
  for (size_t d = sh.size(); d-- > 0;) s = replicate(sh[d], s);
  return s;
}

// The scalar an array is filled with, if it is a constant-filled array (a constant with
// equal elements, or replicates of a scalar constant).
std::optional<Tensor> fill_value(const Term &t) {
  const Node *n = t.get();
  while (n->kind == Kind::Replicate) n = n->kids[0].get();
  if (n->kind != Kind::Const) return std::nullopt;
  const Tensor &v = *n->value;
  if (v.numel() == 0) return std::nullopt;
  Tensor s = Tensor::zeros(v.elem, {});
  if (v.elem == Elem::Real) {
    s.r[0] = v.r[0];
    for (size_t q = 1; q < v.r.size(); ++q)
      if (!(Tensor::real(v.r[q]) == s)) return std::nullopt;
  } else {
    s.i[0] = v.i[0];
    for (auto x : v.i)
      if (x != s.i[0]) return std::nullopt;
  }
  return s;
}

bool is_zero(const Tensor &s) { return s == Tensor::zeros(s.elem, {}); }

Term cond_oob(const Term &ok, const Term &c) { return cond(ok, c, int_scalar(-1)); }

Term conj_in_bounds(const std::vector<Term> &ix, const Shape &shape, size_t n) {
  Term acc;
  for (size_t d = 0; d < n; ++d) {
    Term b = binary(BinOp::And, binary(BinOp::Le, int_scalar(0), ix[d]), binary(BinOp::Lt, ix[d], int_scalar(shape[d])));
    acc = acc ? binary(BinOp::And, acc, b) : b;
  }
  return acc;
}

std::optional<Term> identity_gather(const Term &t) {
  if (t->kind != Kind::Gather || t->shape_arg != t->kids[0]->type.shape) return std::nullopt;
  if (t->binders.size() != t->ix.size() || !distinct(t->binders)) return std::nullopt;
  for (size_t d = 0; d < t->ix.size(); ++d)
    if (t->ix[d]->kind != Kind::Var || t->ix[d]->name != t->binders[d]) return std::nullopt;
  return t->kids[0];
}

// tr_perm a as the gather it is: gather (shape (tr a)) a (\[o..]. [x..]), x_{perm[p]} = o_p.
Term transpose_as_gather(const Term &t) {
  const Shape &perm = t->shape_arg;
  std::vector<std::string> os;
  std::vector<Term> comps(perm.size());
  for (size_t p = 0; p < perm.size(); ++p) {
    os.push_back(fresh_name("i"));
    comps[static_cast<size_t>(perm[p])] = ivar(os[p]);
  }
  return gather(t->type.shape, t->kids[0], os, comps);
}

std::optional<Term> gather_of_gather(const Term &t, Ranges &rg) {
  if (t->kind != Kind::Gather) return std::nullopt;
  if (t->kids[0]->kind == Kind::Transpose && !t->ix.empty())  // a transpose is a gather too
    return gather_of_gather(gather(t->shape_arg, transpose_as_gather(t->kids[0]), t->binders, t->ix), rg);
  if (t->kids[0]->kind != Kind::Gather) return std::nullopt;
  const Term &inner = t->kids[0];
  if (!distinct(t->binders) || !distinct(inner->binders)) return std::nullopt;
  const size_t m1i = inner->binders.size(), m2 = t->ix.size(), p = std::min(m2, m1i);
  std::vector<Term> g = t->ix;
  std::vector<std::string> is = t->binders;
  // Is g[0..p) in bounds of the inner gather's binder dims?
  rg.push_binders(is, t->shape_arg);
  bool proved = rg.in_bounds(std::vector<Term>(g.begin(), g.begin() + static_cast<long>(p)), inner->shape_arg);
  rg.env.resize(rg.env.size() - is.size());
  if (!proved && inner->ix.empty()) return std::nullopt;
  // f with its binders renamed apart, then outer binders renamed away from f's free vars.
  std::vector<Term> f = inner->ix;
  std::vector<std::string> js;
  for (auto &b : inner->binders) {
    std::string nb = fresh_name(b);
    for (auto &c : f) c = substitute(c, b, ivar(nb));
    js.push_back(nb);
  }
  std::set<std::string> fv_f;
  for (auto &c : f)
    for (auto &x : free_vars(c)) fv_f.insert(x);
  for (auto &b : is)
    if (fv_f.count(b)) {
      std::string nb = fresh_name(b);
      for (auto &c : g) c = substitute(c, b, ivar(nb));
      b = nb;
    }
  std::vector<std::string> binders = is;
  for (size_t q = 0; q < m1i; ++q) {
    Term by;
    if (q < p) {
      by = g[q];
    } else {  // inner binder dims the outer index leaves alone become outer binders
      std::string k = fresh_name("i");
      binders.push_back(k);
      by = ivar(k);
    }
    for (auto &c : f) c = substitute(c, js[q], by);
  }
  std::vector<Term> comps = f;
  comps.insert(comps.end(), g.begin() + static_cast<long>(p), g.end());
  if (!proved) comps[0] = cond_oob(conj_in_bounds(g, inner->shape_arg, p), comps[0]);
  return gather(t->shape_arg, inner->kids[0], binders, comps);
}

std::optional<Term> gather_of_replicate(const Term &t, Ranges &rg) {
  if (t->kind != Kind::Gather || t->kids[0]->kind != Kind::Replicate || t->ix.empty()) return std::nullopt;
  const Term &rep = t->kids[0];
  std::vector<Term> rest(t->ix.begin() + 1, t->ix.end());
  rg.push_binders(t->binders, t->shape_arg);
  bool proved = rg.in_bounds({t->ix[0]}, rep->type.shape);
  rg.env.resize(rg.env.size() - t->binders.size());
  if (!proved) {
    if (rest.empty()) return std::nullopt;
    rest[0] = cond_oob(conj_in_bounds(t->ix, rep->type.shape, 1), rest[0]);
  }
  return gather(t->shape_arg, rep->kids[0], t->binders, rest);
}

std::optional<Term> gather_of_iota(const Term &t, Ranges &rg) {
  if (t->kind == Kind::Index && t->kids.size() == 2 && t->kids[0]->kind == Kind::Iota) {
    if (rg.in_bounds({t->kids[1]}, t->kids[0]->type.shape)) return t->kids[1];
    return std::nullopt;
  }
  if (t->kind != Kind::Gather || t->kids[0]->kind != Kind::Iota || t->ix.size() != 1 || !distinct(t->binders))
    return std::nullopt;
  const int64_t k = t->kids[0]->k;
  const Term &e = t->ix[0];
  const auto &bs = t->binders;
  const Shape &sh = t->shape_arg;
  if (!bs.empty() && e->kind == Kind::Var && e->name == bs.back() && sh.back() <= k)
    return filled(Shape(sh.begin(), sh.end() - 1), iota(sh.back()));
  for (auto &b : bs)
    if (rg.occurs(b, e)) return std::nullopt;
  if (!rg.in_bounds({e}, {k})) return std::nullopt;
  return filled(sh, e);
}

std::optional<Term> gather_of_constant(const Term &t, Ranges &rg) {
  bool is_index = t->kind == Kind::Index;
  if (!is_index && t->kind != Kind::Gather) return std::nullopt;
  auto v = fill_value(t->kids[0]);
  if (!v) return std::nullopt;
  if (!is_zero(*v)) {
    std::vector<Term> ix = is_index ? std::vector<Term>(t->kids.begin() + 1, t->kids.end()) : t->ix;
    if (!is_index) rg.push_binders(t->binders, t->shape_arg);
    bool proved = rg.in_bounds(ix, t->kids[0]->type.shape);
    if (!is_index) rg.env.resize(rg.env.size() - t->binders.size());
    if (!proved) return std::nullopt;
  }
  return filled(t->type.shape, constant(*v));
}

std::optional<Term> dead_let(const Term &t, Ranges &rg) {
  if (t->kind != Kind::Let || rg.occurs(t->name, t->kids[1])) return std::nullopt;
  return t->kids[1];
}

std::optional<Term> trivial_let(const Term &t) {
  if (t->kind != Kind::Let) return std::nullopt;
  Kind k = t->kids[0]->kind;
  if (k != Kind::Var && k != Kind::Const && k != Kind::Iota) return std::nullopt;
  return substitute(t->kids[1], t->name, t->kids[0]);
}

std::optional<Term> constant_fold(const Term &t, Ranges &rg) {
  auto is_const = [](const Term &x) { return x->kind == Kind::Const; };
  switch (t->kind) {
    case Kind::Unary:
      if (is_const(t->kids[0])) return constant(apply_unary(t->un, *t->kids[0]->value));
      break;
    case Kind::Binary: {
      const Term &a = t->kids[0], &b = t->kids[1];
      if (is_const(a) && is_const(b)) return constant(apply_binary(t->bin, *a->value, *b->value));
      if (t->bin == BinOp::And || t->bin == BinOp::Or) {
        bool absorbing = t->bin == BinOp::Or;  // or: true absorbs; and: false absorbs
        for (int side = 0; side < 2; ++side) {
          auto v = rg.truth(t->kids[static_cast<size_t>(side)]);
          if (!v) continue;
          if (*v == absorbing) return filled(t->type.shape, constant(Tensor::boolean(absorbing)));
          return t->kids[static_cast<size_t>(1 - side)];
        }
      }
      if (a->type.elem == Elem::Int) {  // int identities (exact; reals have -0 and NaN)
        auto zero = [&](const Term &x) { return fill_value(x) && is_zero(*fill_value(x)); };
        auto one = [&](const Term &x) { return fill_value(x) && *fill_value(x) == Tensor::integer(1); };
        if ((t->bin == BinOp::Add || t->bin == BinOp::Sub) && zero(b)) return a;
        if (t->bin == BinOp::Add && zero(a)) return b;
        if (t->bin == BinOp::Mul && one(b)) return a;
        if (t->bin == BinOp::Mul && one(a)) return b;
        if (t->bin == BinOp::Mul && zero(b)) return b;
        if (t->bin == BinOp::Mul && zero(a)) return a;
      }
      break;
    }
    case Kind::Cond: {
      if (auto v = rg.truth(t->kids[0])) return t->kids[*v ? 1 : 2];
      if (t->kids[1] == t->kids[2]) return t->kids[1];
      break;
    }
    case Kind::Index: {
      const Term &h = t->kids[0];
      std::vector<Term> ix(t->kids.begin() + 1, t->kids.end());
      bool all_const = std::all_of(ix.begin(), ix.end(), is_const);
      if (all_const && !ix.empty() && (h->kind == Kind::Const || h->kind == Kind::Iota))
        return constant(evaluate(t, {}));
      if (h->kind == Kind::FromList && ix.size() >= 1) {
        OptI r = rg.range(ix[0]);
        if (r && r->lo == r->hi) {
          int64_t c = r->lo;
          if (c >= 0 && c < static_cast<int64_t>(h->kids.size()))
            return ix.size() == 1 ? h->kids[static_cast<size_t>(c)]
                                  : index(h->kids[static_cast<size_t>(c)], std::vector<Term>(ix.begin() + 1, ix.end()));
          return filled(t->type.shape, constant(Tensor::zeros(t->type.elem, {})));
        }
      }
      break;
    }
    case Kind::Gather: {  // a literal array read at one (provably) constant element
      const Term &h = t->kids[0];
      if (h->kind != Kind::FromList || t->ix.empty()) break;
      rg.push_binders(t->binders, t->shape_arg);
      OptI r = rg.range(t->ix[0]);
      rg.env.resize(rg.env.size() - t->binders.size());
      if (!r || r->lo != r->hi) break;
      if (r->lo < 0 || r->lo >= static_cast<int64_t>(h->kids.size()))
        return filled(t->type.shape, constant(Tensor::zeros(t->type.elem, {})));
      return gather(t->shape_arg, h->kids[static_cast<size_t>(r->lo)], t->binders,
                    std::vector<Term>(t->ix.begin() + 1, t->ix.end()));
    }
    default: break;
  }
  // An int or bool scalar the ranges decide.
  if (t->kind != Kind::Const && t->type.shape.empty()) {
    if (t->type.elem == Elem::Int) {
      OptI r = rg.range(t);
      if (r && r->lo == r->hi) return int_scalar(r->lo);
    } else if (t->type.elem == Elem::Bool) {
      if (auto v = rg.truth(t)) return constant(Tensor::boolean(*v));
    }
  }
  return std::nullopt;
}

std::optional<Term> apply(SimpRule r, const Term &t, Ranges &rg) {
  switch (r) {
    case SimpRule::IdentityGather: return identity_gather(t);
    case SimpRule::GatherOfGather: return gather_of_gather(t, rg);
    case SimpRule::GatherOfReplicate: return gather_of_replicate(t, rg);
    case SimpRule::GatherOfIota: return gather_of_iota(t, rg);
    case SimpRule::GatherOfConstant: return gather_of_constant(t, rg);
    case SimpRule::DeadLet: return dead_let(t, rg);
    case SimpRule::TrivialLet: return trivial_let(t);
    case SimpRule::ConstantFold: return constant_fold(t, rg);
  }
  return std::nullopt;
}

constexpr SimpRule kOrder[] = {SimpRule::DeadLet,          SimpRule::TrivialLet,   SimpRule::ConstantFold,
                               SimpRule::IdentityGather,   SimpRule::GatherOfConstant, SimpRule::GatherOfIota,
                               SimpRule::GatherOfReplicate, SimpRule::GatherOfGather};

// Bottom-up with the ranges of the enclosing binders; rules at the root until none
// applies. Memoised per (node, scope): a scope id changes at every binder.
struct Simplifier {
  detail::FreeVars fv;
  Ranges rg{{}, &fv};
  // A scope is the chain of binder entries pushed on rg.env; equal chains get equal ids,
  // so a subterm revisited under the same binders hits the memo.
  uint64_t scope = 0;
  std::map<std::tuple<uint64_t, std::string, int64_t, int64_t>, uint64_t> scopes;
  std::map<std::pair<const Node *, uint64_t>, std::pair<Term, Term>> memo;

  void push(const std::string &x, std::optional<Interval> r) {
    rg.env.emplace_back(x, r);
    // an unknown range is keyed as the empty interval [1, 0], which no known range is
    auto key = std::make_tuple(scope, x, r ? r->lo : 1, r ? r->hi : 0);
    auto it = scopes.find(key);
    if (it == scopes.end()) it = scopes.emplace(key, scopes.size() + 1).first;
    scope = it->second;
  }

  template <typename F>
  auto within(F f) {
    uint64_t saved = scope;
    auto out = f();
    scope = saved;
    return out;
  }

  Term simp(const Term &t) {
    auto key = std::make_pair(t.get(), scope);
    if (auto it = memo.find(key); it != memo.end()) return it->second.second;
    std::vector<Term> kids = t->kids, ix = t->ix;
    switch (t->kind) {
      case Kind::Let:
        kids[0] = simp(t->kids[0]);
        kids[1] = within([&] {
          push(t->name, rg.range(kids[0]));
          return simp(t->kids[1]);
        });
        rg.env.pop_back();
        break;
      case Kind::Build1:
        kids[0] = within([&] {
          push(t->name, t->k > 0 ? std::optional<Interval>(Interval{0, t->k - 1}) : std::nullopt);
          return simp(t->kids[0]);
        });
        rg.env.pop_back();
        break;
      case Kind::Gather:
      case Kind::Scatter: {
        kids[0] = simp(t->kids[0]);
        const Shape &dims = t->kind == Kind::Gather ? t->shape_arg : kids[0]->type.shape;
        within([&] {
          for (size_t d = 0; d < t->binders.size(); ++d)
            push(t->binders[d], dims[d] > 0 ? std::optional<Interval>(Interval{0, dims[d] - 1}) : std::nullopt);
          for (auto &c : ix) c = simp(c);
          return 0;
        });
        rg.env.resize(rg.env.size() - t->binders.size());
        break;
      }
      default:
        for (auto &k : kids) k = simp(k);
    }
    bool changed = kids != t->kids || ix != t->ix;
    Term cur = changed ? with_kids(t, kids, ix) : t;
    Term out = cur;
    for (SimpRule r : kOrder)
      if (auto res = apply(r, cur, rg)) {
        out = simp(*res);
        break;
      }
    memo.emplace(key, std::make_pair(t, out));
    memo.emplace(std::make_pair(out.get(), scope), std::make_pair(out, out));
    return out;
  }
};

}  // namespace

std::optional<Interval> int_range(const Term &t, const RangeEnv &env) { return Ranges{env}.range(t); }
std::optional<bool> truth(const Term &t, const RangeEnv &env) { return Ranges{env}.truth(t); }

std::optional<Term> apply_simp_rule(SimpRule r, const Term &t, const RangeEnv &env) {
  Ranges rg{env};
  return apply(r, t, rg);
}
std::optional<Term> apply_simp_rule(SimpRule r, const Term &t) { return apply_simp_rule(r, t, {}); }

Term simplify(const Term &t) { return Simplifier{}.simp(t); }

}  // namespace rml::bot
