#include "array/ad/d_transform.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

#include "array/ir/eval.hpp"
#include "ops/derivative.hpp"

namespace rml::ad {

using ir::BinOp;
using ir::Elem;
using ir::IrError;
using ir::Kind;
using ir::Shape;
using ir::Term;
using ir::Type;
using ir::UnOp;

namespace {

bool atomic(const Term &t) { return t->kind == Kind::Var || t->kind == Kind::Const; }

// A real constant of the given shape, as a replicate chain over a scalar (a filled
// tensor would be materialised in the term).
Term filled(const Shape &shape, double v) {
  Term r = ir::real_scalar(v);
  for (size_t d = shape.size(); d-- > 0;) r = ir::replicate(shape[d], r);
  return r;
}

Term strip_shares(const Term &t, std::unordered_map<const ir::Node *, Term> &memo) {
  if (auto it = memo.find(t.get()); it != memo.end()) return it->second;
  Term out = t;
  if (t->kind == Kind::Share) {
    out = strip_shares(t->kids[0], memo);
  } else {
    std::vector<Term> kids, ix;
    bool changed = false;
    for (auto &k : t->kids) {
      kids.push_back(strip_shares(k, memo));
      changed = changed || kids.back() != k;
    }
    for (auto &k : t->ix) {
      ix.push_back(strip_shares(k, memo));
      changed = changed || ix.back() != k;
    }
    if (changed) out = ir::with_kids(t, std::move(kids), std::move(ix));
  }
  memo.emplace(t.get(), out);
  return out;
}
Term strip_shares(const Term &t) {
  std::unordered_map<const ir::Node *, Term> memo;
  return strip_shares(t, memo);
}

// A dual value: the primal is atomic (a variable of the lets, a constant, or an input);
// d is its Delta when the primal is real, -1 otherwise.
struct Value {
  Term p;
  DeltaId d = -1;
};

class DTransform {
 public:
  DTransform(Extracted &ex, bool concrete) : ex_(ex), concrete_(concrete) {}

  void bind_input(const std::string &name, Value v) { env_.emplace_back(name, std::move(v)); }

  Value go(const Term &t) {
    switch (t->kind) {
      case Kind::Const: return {t, real(t) ? ex_.tape.zero(t->type.shape) : -1};
      case Kind::Var: return lookup(t->name);
      case Kind::Let: {
        // tlet of App. D: the dual value is bound as is; its Delta is a Share (or an
        // Input or Zero), so every use refers to the same tape node ("global sharing").
        Value u = go(t->kids[0]);
        env_.emplace_back(t->name, u);
        Value v = go(t->kids[1]);
        env_.pop_back();
        return v;
      }
      case Kind::Cond: {
        Value b = go(t->kids[0]), u = go(t->kids[1]), v = go(t->kids[2]);
        Term p = emit(ir::cond(b.p, u.p, v.p));
        if (!real(t)) return {p};
        // §6.2 [REC]: the Delta of index [u,v] [cond b 0 1].
        DeltaId lit = ex_.tape.share(ex_.tape.lit_array({u.d, v.d}));
        if (ex_.tape.is_zero(lit)) return {p, ex_.tape.zero(t->type.shape)};
        Term which = emit(ir::cond(b.p, ir::int_scalar(0), ir::int_scalar(1)));
        return {p, ex_.tape.share(ex_.tape.index(lit, {which}))};
      }
      case Kind::Unary: return unary(t);
      case Kind::Binary: return binary(t);
      case Kind::Index: {
        Value a = go(t->kids[0]);
        std::vector<Term> ix;
        for (size_t q = 1; q < t->kids.size(); ++q) ix.push_back(emit(dprime(t->kids[q], {})));
        Term p = emit(ir::index(a.p, ix));
        if (!real(t)) return {p};
        return {p, ex_.tape.share(ex_.tape.index(a.d, ix))};
      }
      case Kind::SumOuter: {
        Value a = go(t->kids[0]);
        Term p = emit(ir::sum_outer(a.p));
        if (!real(t)) return {p};
        return {p, ex_.tape.share(ex_.tape.sum_outer(a.d))};
      }
      case Kind::Gather:
      case Kind::Scatter: {
        Value a = go(t->kids[0]);
        std::vector<Term> ix;
        for (auto &c : t->ix) ix.push_back(dprime(c, t->binders));
        bool g = t->kind == Kind::Gather;
        Term p = emit(g ? ir::gather(t->shape_arg, a.p, t->binders, ix) : ir::scatter(t->shape_arg, a.p, t->binders, ix));
        if (!real(t)) return {p};
        return {p, ex_.tape.share(g ? ex_.tape.gather(t->shape_arg, a.d, t->binders, ix)
                                    : ex_.tape.scatter(t->shape_arg, a.d, t->binders, ix))};
      }
      case Kind::FromList: {
        std::vector<Term> ps;
        std::vector<DeltaId> ds;
        for (auto &k : t->kids) {
          Value v = go(k);
          ps.push_back(v.p);
          ds.push_back(v.d);
        }
        Term p = emit(ir::from_list(ps));
        if (!real(t)) return {p};
        return {p, ex_.tape.share(ex_.tape.lit_array(ds))};
      }
      case Kind::Replicate: {
        Value a = go(t->kids[0]);
        Term p = emit(ir::replicate(t->k, a.p));
        if (!real(t)) return {p};
        return {p, ex_.tape.share(ex_.tape.replicate(t->k, a.d))};
      }
      case Kind::Transpose: {
        Value a = go(t->kids[0]);
        Term p = emit(ir::transpose(t->shape_arg, a.p));
        if (!real(t)) return {p};
        return {p, ex_.tape.share(ex_.tape.transpose(t->shape_arg, a.d))};
      }
      case Kind::Reshape: {
        Value a = go(t->kids[0]);
        Term p = emit(ir::reshape(t->shape_arg, a.p));
        if (!real(t)) return {p};
        return {p, ex_.tape.share(ex_.tape.reshape(t->shape_arg, a.d))};
      }
      case Kind::Iota: return {emit(t)};
      case Kind::Share: {
        // A primal `share` (App. C's tshare): one computation per id, wherever it occurs.
        if (auto it = shared_.find(t->k); it != shared_.end()) return it->second;
        Value v = go(t->kids[0]);
        shared_.emplace(t->k, v);
        return v;
      }
      case Kind::Build1: throw IrError("ad.D: build1 in the input of D (vectorise the term first)");
    }
    throw IrError("ad.D: unknown node kind");
  }

 private:
  static bool real(const Term &t) { return t->type.elem == Elem::Real; }

  Value lookup(const std::string &x) const {
    for (auto it = env_.rbegin(); it != env_.rend(); ++it)
      if (it->first == x) return it->second;
    throw IrError("ad.D: unbound variable '" + x + "'");
  }

  // An ANF let for a non-atomic primal (symbolic), or its value (concrete).
  Term emit(const Term &t) {
    if (atomic(t)) return t;
    if (concrete_) return ir::constant(ir::evaluate(t, {}));
    std::string x = ir::fresh_name("x");
    ex_.binds.emplace_back(x, t);
    return ir::var(x, t->type);
  }

  // A let-bound constant of a shape (used as a Scale factor), one per shape and value.
  Term constant(const Shape &shape, double v) {
    auto key = std::make_pair(shape, v);
    if (auto it = consts_.find(key); it != consts_.end()) return it->second;
    Term c = emit(filled(shape, v));
    consts_.emplace(key, c);
    return c;
  }

  // D′ (Fig. 13): free variables become their primals; `locals` (index-function
  // binders) and variables bound inside t stay. A primal `share` inside is dropped (it
  // is the identity): the result is copied into the Delta and the gradient program,
  // which must not contain share.
  Term dprime(const Term &t, const std::vector<std::string> &locals) {
    Term out = strip_shares(t);
    for (auto &x : ir::free_vars(t)) {
      if (std::find(locals.begin(), locals.end(), x) != locals.end()) continue;
      out = ir::substitute(out, x, lookup(x).p);
    }
    return out;
  }

  // Scale by a factor computed only when the Delta is non-zero (no dead primal lets).
  DeltaId scaled(const std::function<Term()> &factor, DeltaId d) {
    if (ex_.tape.is_zero(d)) return d;
    return ex_.tape.scale(factor(), d);
  }

  // 1 where x ≥ 0 (also for NaN), 0 elsewhere, as a real array. The IR has no
  // bool-to-number conversion, so the step is computed in Int: clamp(floor x, -1, 0) + 1
  // (clamping first: floor saturates at ±2^63, where adding 1 would wrap).
  Term step(const Term &x) {
    Shape s = x->type.shape;
    auto ifill = [&](int64_t v) {
      Term r = ir::int_scalar(v);
      for (size_t d = s.size(); d-- > 0;) r = ir::replicate(s[d], r);
      return r;
    };
    Term clamped = ir::binary(BinOp::Max, ir::binary(BinOp::Min, ir::unary(UnOp::Floor, x), ifill(0)), ifill(-1));
    return ir::unary(UnOp::ToReal, ir::binary(BinOp::Add, clamped, ifill(1)));
  }

  Value unary(const Term &t) {
    Value a = go(t->kids[0]);
    Term p = emit(ir::unary(t->un, a.p));
    if (!real(t)) return {p};
    const Shape &s = t->type.shape;
    if (t->un == UnOp::ToReal || ex_.tape.is_zero(a.d)) return {p, ex_.tape.zero(s)};
    // The table's derivative recipe (ops/derivative.hpp) over IR builders: factors are
    // emitted as lets of the derivative program, computed only for a non-zero Delta.
    struct Builders {
      DTransform &dt;
      const Shape &s;
      Term constant(double c) { return dt.constant(s, c); }
      Term filled(double c) { return rml::ad::filled(s, c); }
      Term add(const Term &x, const Term &y) { return ir::binary(BinOp::Add, x, y); }
      Term sub(const Term &x, const Term &y) { return ir::binary(BinOp::Sub, x, y); }
      Term mul(const Term &x, const Term &y) { return ir::binary(BinOp::Mul, x, y); }
      Term div(const Term &x, const Term &y) { return ir::binary(BinOp::Div, x, y); }
      Term neg(const Term &x) { return ir::unary(UnOp::Neg, x); }
      Term apply(UnOp g, const Term &x) { return ir::unary(g, x); }
      Term step(const Term &x) { return dt.step(x); }
      Term emit(const Term &x) { return dt.emit(x); }
      [[noreturn]] void missing(const ops::UnaryRow &r) {
        throw IrError(std::string("ad.D: no derivative for ") + std::string(r.name) +
                      (r.missing_why.empty() ? "" : " (" + std::string(r.missing_why) + ")"));
      }
    };
    const Term x = a.p;
    const UnOp op = t->un;
    std::function<Term()> f = [this, &s, op, x, p] {
      Builders b{*this, s};
      return ops::derivative(b, op, x, p);
    };
    return {p, ex_.tape.share(scaled(f, a.d))};
  }

  Value binary(const Term &t) {
    Value a = go(t->kids[0]), b = go(t->kids[1]);
    Term p = emit(ir::binary(t->bin, a.p, b.p));
    if (!real(t)) return {p};  // Int arithmetic, and comparisons of reals
    const Shape &s = t->type.shape;
    Tape &tp = ex_.tape;
    DeltaId d = -1;  // set by every case below (the others throw)
    switch (t->bin) {
      case BinOp::Add: d = tp.add(a.d, b.d); break;
      case BinOp::Sub: d = tp.add(a.d, scaled([&] { return constant(s, -1.0); }, b.d)); break;
      case BinOp::Mul: d = tp.add(scaled([&] { return b.p; }, a.d), scaled([&] { return a.p; }, b.d)); break;
      case BinOp::Div: {
        // d(a/b) = da/b - (a/b)·db/b
        Term r;
        auto recip = [&] { return r ? r : (r = emit(ir::binary(BinOp::Div, filled(s, 1.0), b.p))); };
        DeltaId da = scaled(recip, a.d);
        DeltaId db = scaled([&] { return emit(ir::unary(UnOp::Neg, ir::binary(BinOp::Mul, p, recip()))); }, b.d);
        d = tp.add(da, db);
        break;
      }
      case BinOp::Max:
      case BinOp::Min: {
        // The first operand takes the derivative on ties (max: a ≥ b; min: a ≤ b).
        Term m;
        auto mask = [&] {
          return m ? m : (m = emit(step(t->bin == BinOp::Max ? ir::binary(BinOp::Sub, a.p, b.p) : ir::binary(BinOp::Sub, b.p, a.p))));
        };
        DeltaId da = scaled(mask, a.d);
        DeltaId db = scaled([&] { return emit(ir::binary(BinOp::Sub, filled(s, 1.0), mask())); }, b.d);
        d = tp.add(da, db);
        break;
      }
      case BinOp::IDiv:
      case BinOp::Mod:
      case BinOp::Eq:
      case BinOp::Ne:
      case BinOp::Lt:
      case BinOp::Le:
      case BinOp::Gt:
      case BinOp::Ge:
      case BinOp::And:
      case BinOp::Or:
      case BinOp::Xor:
      case BinOp::Implies:
      case BinOp::WrapUnsigned:
      case BinOp::WrapSigned:
      case BinOp::BitAnd:
      case BinOp::BitOr:
      case BinOp::ShiftLeft:
      case BinOp::ShiftRight: throw IrError(std::string("ad.D: no derivative for ") + ir::op_name(t->bin));  // results not real
    }
    return {p, tp.share(d)};
  }

  Extracted &ex_;
  bool concrete_;
  std::vector<std::pair<std::string, Value>> env_;
  std::map<int64_t, Value> shared_;
  std::map<std::pair<Shape, double>, Term> consts_;
};

// Occurrences of the binds' variables: where, how often, and whether any is inside an
// index function (evaluated once per point, so not a place to inline a let into).
struct Uses {
  std::map<std::string, int> count;
  std::set<std::string> pinned;
};

void count_uses(const Term &t, bool in_ixfun, const std::set<std::string> &names, Uses &u) {
  if (t->kind == Kind::Var) {
    if (names.count(t->name)) {
      ++u.count[t->name];
      if (in_ixfun) u.pinned.insert(t->name);
    }
    return;
  }
  for (auto &k : t->kids) count_uses(k, in_ixfun, names, u);
  for (auto &k : t->ix) count_uses(k, true, names, u);
}

// Inlines each primal let used exactly once, outside index functions and the Delta,
// into its user (the primal result or a later let). Names are fresh, so no capture.
void inline_single_use(Extracted &ex) {
  size_t n = ex.binds.size();
  std::set<std::string> names;
  for (auto &[x, t] : ex.binds) names.insert(x);
  // user[x]: the bind (its index), the primal (n) or the Delta (n+1) where x occurs;
  // only meaningful when x occurs once.
  Uses total;
  std::map<std::string, size_t> user;
  auto scan = [&](const Term &t, size_t who, bool pin) {
    Uses u;
    count_uses(t, pin, names, u);
    for (auto &[x, c] : u.count) {
      total.count[x] += c;
      user[x] = who;
    }
    for (auto &x : u.pinned) total.pinned.insert(x);
  };
  for (size_t k = 0; k < n; ++k) scan(ex.binds[k].second, k, false);
  scan(ex.primal, n, false);
  for (size_t d = 0; d < ex.tape.size(); ++d) {
    const DNode &nd = ex.tape[static_cast<DeltaId>(d)];
    if (nd.term) scan(nd.term, n + 1, true);
    for (auto &c : nd.ix) scan(c, n + 1, true);
  }
  std::vector<bool> removed(n, false);
  std::vector<size_t> moved_to(n + 1);
  for (size_t k = 0; k <= n; ++k) moved_to[k] = k;
  auto where = [&](size_t k) {
    while (k < n && removed[k]) k = moved_to[k];
    return k;
  };
  for (size_t k = n; k-- > 0;) {
    const std::string &x = ex.binds[k].first;
    if (total.count[x] != 1 || total.pinned.count(x) || user[x] > n) continue;
    size_t u = where(user[x]);
    Term &target = u == n ? ex.primal : ex.binds[u].second;
    target = ir::substitute(target, x, ex.binds[k].second);
    removed[k] = true;
    moved_to[k] = u;
  }
  std::vector<std::pair<std::string, Term>> kept;
  for (size_t k = 0; k < n; ++k)
    if (!removed[k]) kept.push_back(std::move(ex.binds[k]));
  ex.binds = std::move(kept);
}

void check_inputs(const Inputs &inputs) {
  std::set<std::string> seen;
  for (auto &[x, ty] : inputs)
    if (!seen.insert(x).second) throw IrError("ad: input '" + x + "' declared twice");
}

}  // namespace

Extracted differentiate(const Term &t, const Inputs &inputs, bool inline_lets) {
  check_inputs(inputs);
  ir::typecheck(t, inputs);
  Extracted ex;
  ex.inputs = inputs;
  DTransform d(ex, false);
  for (size_t k = 0; k < inputs.size(); ++k) {
    auto &[x, ty] = inputs[k];
    DeltaId id = ty.elem == Elem::Real ? ex.tape.input(static_cast<int>(k), ty.shape) : -1;
    ex.input_deltas.push_back(id);
    d.bind_input(x, {ir::var(x, ty), id});
  }
  Value v = d.go(t);
  ex.primal = v.p;
  ex.delta = v.d;
  if (inline_lets) inline_single_use(ex);
  return ex;
}

Extracted differentiate_at(const Term &t, const Inputs &inputs, const std::vector<ir::Tensor> &args) {
  check_inputs(inputs);
  ir::typecheck(t, inputs);
  if (args.size() != inputs.size()) throw IrError("ad: " + std::to_string(args.size()) + " arguments for " + std::to_string(inputs.size()) + " inputs");
  Extracted ex;
  ex.inputs = inputs;
  DTransform d(ex, true);
  for (size_t k = 0; k < inputs.size(); ++k) {
    auto &[x, ty] = inputs[k];
    if (Type{args[k].elem, args[k].shape} != ty)
      throw IrError("ad: argument '" + x + "' has type " + Type{args[k].elem, args[k].shape}.str() + ", expected " + ty.str());
    DeltaId id = ty.elem == Elem::Real ? ex.tape.input(static_cast<int>(k), ty.shape) : -1;
    ex.input_deltas.push_back(id);
    d.bind_input(x, {ir::constant(args[k]), id});
  }
  Value v = d.go(t);
  ex.primal = v.p;
  ex.delta = v.d;
  return ex;
}

std::string print(const Extracted &e) {
  std::ostringstream out;
  for (auto &[x, t] : e.binds) out << "let " << x << " = " << ir::print(t) << " in\n";
  std::vector<std::string> names;
  for (auto &[x, ty] : e.inputs) names.push_back(x);
  out << "(" << ir::print(e.primal) << ", " << (e.delta >= 0 ? print(e.tape, e.delta, names) : "-") << ")";
  return out.str();
}

}  // namespace rml::ad
