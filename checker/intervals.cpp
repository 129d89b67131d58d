// Interval analysis in binary64: for every scalar variable, bounds that hold at every cycle
// where it has a value (abstract interpretation, the way floating-point analysers bound a
// program). Rounding to nearest is monotone, so an operation's result over boxes lies
// between the rounded results at the boxes' corners, which the machine computes exactly as
// the oracle does (semantics/real_encoding.md, "Intervals"). Time needs no state here: a
// memory holds its initial value or some earlier value of its source, a post some later
// value of its argument, so every stream primitive joins its operands' bounds. The least
// solution is found by iterating the equations, widening a bound that keeps moving to the
// next constant of the program (then to infinity).
#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include "array/eval.hpp"
#include "checker/engine.hpp"

namespace rml::check {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
using Bounds = Checker::Bounds;

Bounds empty() { return Bounds{kInf, -kInf, false, false, false}; }
// Int bounds are doubles: exact for ints within ±2^53 only.
constexpr double kExactInt = 9007199254740992.0;
bool exact_int(int64_t i) { return i >= -9007199254740992 && i <= 9007199254740992; }
Bounds top(Scalar s) {
  if (s == Scalar::Bool) return Bounds{0, 0, false, true, true};
  return Bounds{-kInf, kInf, s == Scalar::Real, false, false};
}
Bounds point(double v) { return std::isnan(v) ? Bounds{kInf, -kInf, true, false, false} : Bounds{v, v, false, false, false}; }
Bounds boolean(bool t, bool f) { return Bounds{0, 0, false, t, f}; }
bool is_empty(const Bounds &b) { return b.lo > b.hi; }

Bounds join(const Bounds &a, const Bounds &b) {
  return Bounds{std::min(a.lo, b.lo), std::max(a.hi, b.hi), a.nan || b.nan, a.t || b.t, a.f || b.f, std::max(a.nil, b.nil)};
}
bool same(const Bounds &a, const Bounds &b) {
  bool range = (is_empty(a) && is_empty(b)) || (a.lo == b.lo && a.hi == b.hi);
  return range && a.nan == b.nan && a.t == b.t && a.f == b.f && a.nil == b.nil;
}

// A binary operator that is monotone in each operand separately (+, −, ×, ÷ with a divisor
// of one sign): the extremes are among the four corners; a NaN corner (0 × ∞, ∞ − ∞,
// ∞ ÷ ∞) means NaN is possible. Conservative when a corner is NaN: the bound it would
// have given is left open.
Bounds corners(const Bounds &a, const Bounds &b, double (*op)(double, double)) {
  Bounds r = empty();
  r.nan = a.nan || b.nan;
  if (is_empty(a) || is_empty(b)) return r;
  bool nan_corner = false;
  for (double x : {a.lo, a.hi})
    for (double y : {b.lo, b.hi}) {
      double v = op(x, y);
      if (std::isnan(v)) {
        nan_corner = true;
        continue;
      }
      r.lo = std::min(r.lo, v), r.hi = std::max(r.hi, v);
    }
  if (nan_corner) r.nan = true, r.lo = -kInf, r.hi = kInf;
  return r;
}
double add(double x, double y) { return x + y; }
double sub(double x, double y) { return x - y; }
double mul(double x, double y) { return x * y; }
double dvd(double x, double y) { return x / y; }

// Where a comparison of a value with a constant holds (true) or fails (false), NaN failing
// every comparison but ≠.
Bounds refine(const Bounds &x, ops::BinOp op, double c, bool truth, bool integer) {
  // The numbers just below and above c: x < c means x <= below(c).
  double below = integer ? c - 1 : std::nextafter(c, -kInf), above = integer ? c + 1 : std::nextafter(c, kInf);
  if (!truth) {
    Bounds r = x;  // NaN fails every ordered comparison: it stays on the false side
    switch (op) {
      case ops::BinOp::Gt: r.hi = std::min(r.hi, c); break;
      case ops::BinOp::Ge: r.hi = std::min(r.hi, below); break;
      case ops::BinOp::Lt: r.lo = std::max(r.lo, c); break;
      case ops::BinOp::Le: r.lo = std::max(r.lo, above); break;
      default: break;
    }
    return r;
  }
  Bounds r = x;
  r.nan = op == ops::BinOp::Ne && x.nan;
  switch (op) {
    case ops::BinOp::Gt: r.lo = std::max(r.lo, above); break;
    case ops::BinOp::Ge: r.lo = std::max(r.lo, c); break;
    case ops::BinOp::Lt: r.hi = std::min(r.hi, below); break;
    case ops::BinOp::Le: r.hi = std::min(r.hi, c); break;
    case ops::BinOp::Eq: r.lo = std::max(r.lo, c), r.hi = std::min(r.hi, c); break;
    default: break;
  }
  return r;
}

Bounds compare(ops::BinOp op, const Bounds &a, const Bounds &b) {
  if (is_empty(a) && !a.nan) return boolean(false, false);
  if (is_empty(b) && !b.nan) return boolean(false, false);
  bool any_nan = a.nan || b.nan;
  bool t = false, f = any_nan && op != ops::BinOp::Ne;  // NaN: every comparison false, ≠ true
  if (any_nan && op == ops::BinOp::Ne) t = true;
  if (!is_empty(a) && !is_empty(b)) {
    switch (op) {
      case ops::BinOp::Lt: t |= a.lo < b.hi, f |= a.hi >= b.lo; break;
      case ops::BinOp::Le: t |= a.lo <= b.hi, f |= a.hi > b.lo; break;
      case ops::BinOp::Gt: t |= a.hi > b.lo, f |= a.lo <= b.hi; break;
      case ops::BinOp::Ge: t |= a.hi >= b.lo, f |= a.lo < b.hi; break;
      case ops::BinOp::Eq: {
        bool overlap = a.lo <= b.hi && b.lo <= a.hi;
        bool single = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo;
        t |= overlap, f |= !single;
        break;
      }
      case ops::BinOp::Ne: {
        bool overlap = a.lo <= b.hi && b.lo <= a.hi;
        bool single = a.lo == a.hi && b.lo == b.hi && a.lo == b.lo;
        t |= !single, f |= overlap;
        break;
      }
      default: t = f = true;
    }
  }
  return boolean(t, f);
}

Bounds unary(ops::UnOp op, const Bounds &x, Scalar result, Scalar operand) {
  const ops::UnaryRow &row = ops::row(op);
  if (operand == Scalar::Int && (op == ops::UnOp::Neg || op == ops::UnOp::Abs)) return top(Scalar::Int);  // −INT64_MIN wraps
  switch (op) {
    case ops::UnOp::Not: return boolean(x.f, x.t);
    case ops::UnOp::Neg: return Bounds{-x.hi, -x.lo, x.nan, false, false};
    case ops::UnOp::Abs: {
      if (is_empty(x)) return x;
      double lo = x.lo <= 0 && x.hi >= 0 ? 0 : std::min(std::fabs(x.lo), std::fabs(x.hi));
      return Bounds{lo, std::max(std::fabs(x.lo), std::fabs(x.hi)), x.nan, false, false};
    }
    case ops::UnOp::Sqrt: {
      Bounds r{std::sqrt(std::max(x.lo, 0.0)), std::sqrt(x.hi), x.nan || x.lo < 0, false, false};
      if (x.hi < 0) r.lo = kInf, r.hi = -kInf;
      return r;
    }
    case ops::UnOp::ToReal: return Bounds{x.lo, x.hi, false, false, false};  // rounding is monotone
    case ops::UnOp::Floor:
    case ops::UnOp::ToInt: {  // monotone, saturating; NaN → 0
      Bounds r = is_empty(x) ? empty() : Bounds{std::floor(x.lo), std::ceil(x.hi), false, false, false};
      if (x.nan) r = join(r, point(0));
      return Bounds{std::max(r.lo, -9.2233720368547758e18), std::min(r.hi, 9.2233720368547758e18), false, false, false};
    }
    default: break;
  }
  if (row.smt != ops::Smt::Facts || result != Scalar::Real) return top(result);
  // A C library function: its range, its NaN rule and, when increasing, its values at the
  // box's ends (the facts of its row; semantics/real_encoding.md).
  const ops::RealFacts &rf = row.facts;
  Bounds r{rf.lo, rf.hi, x.nan, false, false};
  if (rf.increasing && !is_empty(x)) {
    double flo = ops::real_unary(op, x.lo), fhi = ops::real_unary(op, x.hi);
    if (!std::isnan(flo)) r.lo = std::max(r.lo, flo);
    if (!std::isnan(fhi)) r.hi = std::min(r.hi, fhi);
  }
  switch (rf.nan) {
    case ops::NanWhen::NanArg: break;
    case ops::NanWhen::NanArgOrInfinite: r.nan |= std::isinf(x.lo) || std::isinf(x.hi); break;
    case ops::NanWhen::NanArgOrBelow: r.nan |= x.lo < rf.domain_lo; break;
    case ops::NanWhen::Propagates: r.nan = true; break;
  }
  if (is_empty(x)) r.lo = kInf, r.hi = -kInf;
  return r;
}

Bounds binary(ops::BinOp op, const Bounds &a, const Bounds &b, Scalar operand) {
  if (ops::is_comparison(op)) {
    if (operand == Scalar::Bool) return boolean(true, true);
    return compare(op, a, b);
  }
  switch (op) {
    case ops::BinOp::And: return boolean(a.t && b.t, a.f || b.f);
    case ops::BinOp::Or: return boolean(a.t || b.t, a.f && b.f);
    case ops::BinOp::Implies: return boolean(a.f || b.t, a.t && b.f);
    case ops::BinOp::Xor: return boolean(true, true);
    default: break;
  }
  if (operand == Scalar::Int) {  // exact while every corner stays within ±2^53 (no wrap)
    auto exact = [&](Bounds r) {
      return is_empty(r) || (r.lo >= -kExactInt && r.hi <= kExactInt) ? r : top(Scalar::Int);
    };
    switch (op) {
      case ops::BinOp::Add: return exact(corners(a, b, add));
      case ops::BinOp::Sub: return exact(corners(a, b, sub));
      case ops::BinOp::Mul: return exact(corners(a, b, mul));
      case ops::BinOp::WrapUnsigned:
      case ops::BinOp::WrapSigned: {  // a machine integer's wrap to n bits: its range (x itself when inside)
        if (is_empty(a) || is_empty(b) || b.lo != b.hi || b.lo < 1 || b.lo > 52) return top(operand);
        double half = std::ldexp(1.0, static_cast<int>(b.lo) - 1);
        double lo = op == ops::BinOp::WrapSigned ? -half : 0, hi = op == ops::BinOp::WrapSigned ? half - 1 : 2 * half - 1;
        if (a.lo >= lo && a.hi <= hi) return a;
        return Bounds{lo, hi, false, false, false};
      }
      default: return top(operand);
    }
  }
  if (operand != Scalar::Real) return top(operand);
  switch (op) {
    case ops::BinOp::Add: return corners(a, b, add);
    case ops::BinOp::Sub: return corners(a, b, sub);
    case ops::BinOp::Mul: return corners(a, b, mul);
    case ops::BinOp::Div:
      if (b.lo > 0 || b.hi < 0) return corners(a, b, dvd);
      return Bounds{-kInf, kInf, true, false, false};  // a zero divisor: ±∞, NaN
    case ops::BinOp::Max:
    case ops::BinOp::Min: {  // monotone in both; NaN if either is
      auto f = op == ops::BinOp::Max ? [](double x, double y) { return std::max(x, y); }
                                     : [](double x, double y) { return std::min(x, y); };
      if (is_empty(a) || is_empty(b)) return Bounds{kInf, -kInf, a.nan || b.nan, false, false};
      return Bounds{f(a.lo, b.lo), f(a.hi, b.hi), a.nan || b.nan, false, false};
    }
    default: return top(operand);
  }
}
// A lowered term's bounds (of all its elements when a tensor), its free variables bound
// by `env`. Every construct only moves, selects, combines elementwise or sums elements,
// so the bounds of the elements it reads bound it; a zero fills what an index out of
// range or a gather's missing source gives.
Bounds term_bounds(const ir::Term &t, std::map<std::string, Bounds> &env) {
  auto ev = [&](const ir::Term &k) { return term_bounds(k, env); };
  Scalar elem = t->type.elem;
  switch (t->kind) {
    case ir::Kind::Const: {
      const array::Tensor &v = *t->value;
      Bounds r = empty();
      for (size_t k = 0; k < v.numel(); ++k)
        r = join(r, v.elem == Scalar::Bool ? boolean(v.i[k] != 0, v.i[k] == 0) : point(v.get_real(k)));
      return r;
    }
    case ir::Kind::Var: return env.count(t->name) ? env[t->name] : top(elem);
    case ir::Kind::Let: {
      Bounds u = ev(t->kids[0]);
      auto saved = env.count(t->name) ? std::optional<Bounds>(env[t->name]) : std::nullopt;
      env[t->name] = u;
      Bounds r = ev(t->kids[1]);
      if (saved) env[t->name] = *saved;
      else env.erase(t->name);
      return r;
    }
    case ir::Kind::Cond: {
      Bounds c = ev(t->kids[0]);
      if (!c.t) return ev(t->kids[2]);
      if (!c.f) return ev(t->kids[1]);
      return join(ev(t->kids[1]), ev(t->kids[2]));
    }
    case ir::Kind::Unary: return unary(t->un, ev(t->kids[0]), elem, t->kids[0]->type.elem);
    case ir::Kind::Binary: {
      Bounds r = binary(t->bin, ev(t->kids[0]), ev(t->kids[1]), t->kids[0]->type.elem);
      // e / sumOuter(e) (replicated) with e >= 0, finite, and a positive sum: each rounded
      // partial sum is at least the elements added so far (they are >= 0, rounding is
      // monotone), so the total is at least every element and the share is in [0, 1].
      if (t->bin == ops::BinOp::Div && elem == Scalar::Real) {
        ir::Term d = t->kids[1];
        while (d->kind == ir::Kind::Replicate || d->kind == ir::Kind::Share) d = d->kids[0];
        const ir::Term &num = t->kids[0];
        if (d->kind == ir::Kind::SumOuter && num->kind == ir::Kind::Var && d->kids[0]->kind == ir::Kind::Var &&
            d->kids[0]->name == num->name && num->type.rank() == 1) {
          Bounds e = ev(num);
          if (!e.nan && !is_empty(e) && e.lo > 0 && e.hi < kInf) r.lo = std::max(r.lo, 0.0), r.hi = std::min(r.hi, 1.0), r.nan = false;
        }
      }
      return r;
    }
    case ir::Kind::Index: {
      Bounds r = ev(t->kids[0]);
      return join(r, elem == Scalar::Bool ? boolean(false, true) : point(0));  // out of range: 0
    }
    case ir::Kind::SumOuter: {  // ((0 + a0) + a1) + ...: monotone in each term
      Bounds a = ev(t->kids[0]);
      int64_t n = t->kids[0]->type.shape.at(0);
      if (elem != Scalar::Real) return top(elem);
      if (is_empty(a)) return a.nan ? a : point(0);
      Bounds r = point(0);
      for (int64_t k = 0; k < n && k < 100000; ++k) r = corners(r, a, add);
      if (n >= 100000) r = top(Scalar::Real);
      r.nan = r.nan || a.nan || (a.lo == -kInf && a.hi == kInf && n > 1);
      return r;
    }
    case ir::Kind::Gather: return join(ev(t->kids[0]), elem == Scalar::Bool ? boolean(false, true) : point(0));
    case ir::Kind::FromList: {
      Bounds r = empty();
      for (auto &k : t->kids) r = join(r, ev(k));
      return r;
    }
    case ir::Kind::Replicate:
    case ir::Kind::Transpose:
    case ir::Kind::Reshape:
    case ir::Kind::Share: return ev(t->kids[0]);
    case ir::Kind::Build1: {
      auto saved = env.count(t->name) ? std::optional<Bounds>(env[t->name]) : std::nullopt;
      env[t->name] = Bounds{0, static_cast<double>(std::max<int64_t>(t->k - 1, 0)), false, false, false};
      Bounds r = ev(t->kids[0]);
      if (saved) env[t->name] = *saved;
      else env.erase(t->name);
      return r;
    }
    case ir::Kind::Iota: return Bounds{0, static_cast<double>(std::max<int64_t>(t->k - 1, 0)), false, false, false};
    case ir::Kind::Scatter: break;  // sums an unknown number of elements
  }
  return top(elem);
}
}  // namespace

std::function<std::optional<FunTerm>(const core::Equation &, const std::vector<Scalar> &)> Checker::fun_body() {
  return [this](const core::Equation &eq, const std::vector<Scalar> &types) {
    auto key = std::make_pair(&eq, types);
    auto it = fun_terms_.find(key);
    if (it == fun_terms_.end()) it = fun_terms_.emplace(key, scalar_fun_term(cp, eq, types)).first;
    return it->second;
  };
}

const std::map<std::string, Bounds> &Checker::bounds() {
  if (bounds_) return *bounds_;
  bounds_.emplace();
  std::map<std::string, Bounds> &b = *bounds_;
  // Scalars and tensors of concrete shape (the bounds of a tensor hold for every element).
  std::map<std::string, Scalar> type;
  std::map<std::string, Type> shape;
  auto scalar = [&](const std::string &name, const Type &t) {
    if (t.kind != Type::Tensor) return;
    try {
      array::concrete_shape(t.shape);
    } catch (std::exception &) {
      return;
    }
    type[name] = t.elem;
    shape[name] = t;
  };
  for (auto &v : prog.inputs) scalar(v.name, v.type);
  for (auto &eq : prog.equations) scalar(eq.lhs, eq.type);
  auto at = [&](const std::string &v) {
    auto it = b.find(v);
    if (it != b.end()) return it->second;
    auto t = type.find(v);
    return t == type.end() ? top(Scalar::Real) : empty();
  };
  // Inputs: their assumed bounds, when every assumption stating them binds at every cycle
  // (on the base clock); a bound came from a comparison, which NaN fails.
  std::map<std::string, std::pair<double, double>> ranges;
  bool base_assumptions = true;
  for (auto &a : prog.assumptions)
    base_assumptions &= clocks.terms[static_cast<size_t>(clocks.of(a.var))].kind == core::ClockTerm::Base;
  if (base_assumptions) ranges = assumed_ranges();
  auto range_bounds = [&](const std::string &key, Scalar t) {
    Bounds in = top(t);
    if (auto r = ranges.find(key); r != ranges.end() && t != Scalar::Bool) {
      in.lo = r->second.first, in.hi = r->second.second;
      if (t == Scalar::Int) {  // a bound beyond ±2^53 is not exact as a double: none
        if (in.lo < -kExactInt || in.lo > kExactInt) in.lo = -kInf;
        if (in.hi < -kExactInt || in.hi > kExactInt) in.hi = kInf;
      }
      if (std::isfinite(in.lo) || std::isfinite(in.hi)) in.nan = false;
    }
    return in;
  };
  for (auto &v : prog.inputs) {
    if (!type.count(v.name)) continue;
    if (v.type.shape.empty()) {
      b[v.name] = range_bounds(v.name, type[v.name]);
      continue;
    }
    // A tensor: the join of its elements' bounds (x[k] >= a in the assumptions).
    Bounds in = empty();
    int64_t n = 1;
    for (int64_t d : array::concrete_shape(v.type.shape)) n *= d;
    for (int64_t k = 0; k < n && k < 4096; ++k) in = join(in, range_bounds(v.name + "#" + std::to_string(k), type[v.name]));
    b[v.name] = n > 4096 ? top(type[v.name]) : in;
  }
  // Thresholds of the widening: the program's constants, their negations, 0.
  std::vector<double> marks{0.0};
  for (auto &eq : prog.equations)
    if (eq.prim == core::Prim::Const && eq.lit.type != Scalar::Bool) {
      double c = eq.lit.type == Scalar::Real ? eq.lit.r : static_cast<double>(eq.lit.i);
      if (std::isfinite(c)) marks.push_back(c), marks.push_back(-c);
    }
  std::sort(marks.begin(), marks.end());
  auto fun = fun_body();
  // One equation's bounds from its operands' (its value; when it may be nil below).
  // `refined`: a variable whose bounds are narrower here (inside a branch of an if).
  std::function<Bounds(const core::Equation &, const std::pair<std::string, Bounds> *)> eval_value;
  // Two variables that hold the same value at every cycle: equal, or two `pre` of one
  // variable (elaboration makes one equation per occurrence).
  auto alias = [&](const std::string &u, const std::string &w) {
    if (u == w) return true;
    const core::Equation *x = def_of(u), *y = def_of(w);
    return x && y && x->prim == core::Prim::Pre && y->prim == core::Prim::Pre && x->args == y->args;
  };
  eval_value = [&](const core::Equation &eq, const std::pair<std::string, Bounds> *refined) -> Bounds {
    Scalar rt = type.count(eq.lhs) ? type[eq.lhs] : Scalar::Real;
    auto arg = [&](size_t i) { return refined && alias(eq.args.at(i), refined->first) ? refined->second : at(eq.args.at(i)); };
    switch (eq.prim) {
      case core::Prim::Const:
        if (eq.lit.type == Scalar::Bool) return boolean(eq.lit.b, !eq.lit.b);
        if (eq.lit.type == Scalar::Int && !exact_int(eq.lit.i)) return top(Scalar::Int);  // not a double
        return point(eq.lit.type == Scalar::Real ? eq.lit.r : static_cast<double>(eq.lit.i));
      case core::Prim::Copy:
      case core::Prim::When:
      case core::Prim::Pre:
      case core::Prim::Post: return arg(0);
      case core::Prim::Fby:
      case core::Prim::Arrow: return join(arg(0), arg(1));
      case core::Prim::Merge: return join(arg(1), arg(2));
      case core::Prim::Apply: break;
    }
    if (eq.args.empty()) return top(rt);
    for (auto &a : eq.args)
      if (!type.count(a)) return top(rt);
    switch (eq.op) {
      case core::ApplyOp::Unary: return unary(eq.un, arg(0), rt, type[eq.args[0]]);
      case core::ApplyOp::Binary: {
        Bounds r = binary(eq.bin, arg(0), arg(1), type[eq.args[0]]);
        // A share a / (a + b) with a finite, b ≥ 0 and a sum above 0 is in [0, 1]: the
        // rounded sum is at least a (a is a double, rounding is monotone), so is the rounded
        // quotient at most 1 (the normalisations of softmax and of weights).
        const core::Equation *d = eq.bin == ops::BinOp::Div ? def_of(eq.args[1]) : nullptr;
        if (d && type[eq.args[0]] == Scalar::Real && d->prim == core::Prim::Apply && d->op == core::ApplyOp::Binary &&
            d->bin == ops::BinOp::Add && (d->args[0] == eq.args[0] || d->args[1] == eq.args[0])) {
          Bounds a = arg(0), o = at(d->args[0] == eq.args[0] ? d->args[1] : d->args[0]);
          if (!a.nan && !o.nan && !is_empty(a) && !is_empty(o) && a.lo >= 0 && a.hi < kInf && o.lo >= 0 && (a.lo > 0 || o.lo > 0))
            r.lo = std::max(r.lo, 0.0), r.hi = std::min(r.hi, 1.0), r.nan = false;
        }
        return r;
      }
      case core::ApplyOp::If: {
        Bounds c = arg(0), x = arg(1), y = arg(2);
        // `if v op k then .. v .. else .. v ..`: v refined on each side.
        const core::Equation *ce = def_of(eq.args[0]);
        if (ce && ce->prim == core::Prim::Apply && ce->op == core::ApplyOp::Binary && ops::is_comparison(ce->bin) &&
            type.count(ce->args[0]) && type[ce->args[0]] != Scalar::Bool) {
          auto k = constant_of(ce->args[1]);
          if (k && type[ce->args[0]] == Scalar::Int && std::fabs(*k) >= kExactInt) k.reset();  // maybe rounded
          if (k) {
            const std::string &u = ce->args[0];
            // The branch is v itself, or an operation on v (one level: `pre n + 1`).
            auto branch = [&](const std::string &side, Bounds cur, bool truth) {
              Bounds ru = refine(at(u), ce->bin, *k, truth, type[u] == Scalar::Int);
              if (alias(side, u)) return ru;
              const core::Equation *be = def_of(side);
              if (!be || be->prim != core::Prim::Apply ||
                  std::none_of(be->args.begin(), be->args.end(), [&](const std::string &a) { return alias(a, u); }))
                return cur;
              std::pair<std::string, Bounds> rf{u, ru};
              Bounds r = eval_value(*be, &rf);
              r.nil = cur.nil;
              return r;
            };
            x = branch(eq.args[1], x, true);
            y = branch(eq.args[2], y, false);
          }
        }
        if (!c.t) return y;
        if (!c.f) return x;
        return join(x, y);
      }
      case core::ApplyOp::Call: {
        auto lt = lowered_.find(&eq);
        if (lt == lowered_.end()) {
          std::vector<Type> ts;
          for (auto &a : eq.args) ts.push_back(shape.at(a));
          lt = lowered_.emplace(&eq, lowered_term(cp, eq, ts)).first;
        }
        const std::optional<FunTerm> &ft = lt->second;
        if (!ft) return top(rt);
        std::map<std::string, Bounds> env;
        for (size_t k = 0; k < eq.args.size(); ++k) env[ft->params[k]] = arg(k);
        return term_bounds(ft->body, env);
      }
      case core::ApplyOp::Index: return join(arg(0), rt == Scalar::Bool ? boolean(false, true) : point(0));  // out of range: 0
      case core::ApplyOp::Array: {
        Bounds r = empty();
        for (size_t k = 0; k < eq.args.size(); ++k) r = join(r, arg(k));
        return r;
      }
      case core::ApplyOp::Imported: break;
    }
    return top(rt);
  };
  // Nil (Lustre's uninitialised pre) propagates through operators; `pre x` is nil at its
  // first tick, and `a -> pre x` takes a there (when the arrow and the pre tick together:
  // well-clocked programs).
  const bool well_clocked = clocks.clashes.empty();
  auto eval = [&](const core::Equation &eq) -> Bounds {
    Bounds r = eval_value(eq, nullptr);
    int n = 0;
    for (auto &a : eq.args) n = std::max(n, type.count(a) ? at(a).nil : 2);
    auto nil_of = [&](size_t i) { return type.count(eq.args[i]) ? at(eq.args[i]).nil : 2; };
    switch (eq.prim) {
      case core::Prim::Const: n = 0; break;
      case core::Prim::Pre: n = nil_of(0) == 0 ? 1 : 2; break;
      case core::Prim::Fby: n = std::max(nil_of(0), nil_of(1) == 0 ? 0 : 2); break;
      case core::Prim::Arrow: n = well_clocked ? std::max(nil_of(0), nil_of(1) == 1 ? 0 : nil_of(1)) : n; break;
      case core::Prim::Merge: n = nil_of(1) == 0 && nil_of(2) == 0 && nil_of(0) == 0 ? 0 : 2; break;
      default: break;
    }
    r.nil = well_clocked || n == 0 ? n : 2;  // "only at the first tick" needs operands that tick together
    return r;
  };
  // Chaotic iteration from empty bounds, widening a bound after it has moved 8 times.
  std::map<std::string, int> moves;
  bool stable = false;
  for (int round = 0; round < 10000 && !stable; ++round) {
    bool changed = false;
    for (auto &eq : prog.equations) {
      if (!type.count(eq.lhs)) continue;
      if (budget.exhausted()) budget.fail();
      Bounds old = at(eq.lhs), nw = join(old, eval(eq));
      if (same(old, nw)) continue;
      if (++moves[eq.lhs] > 8 && !is_empty(old)) {
        if (nw.hi > old.hi) {
          auto m = std::lower_bound(marks.begin(), marks.end(), nw.hi);
          nw.hi = m == marks.end() ? kInf : *m;
        }
        if (nw.lo < old.lo) {
          auto m = std::upper_bound(marks.begin(), marks.end(), nw.lo);
          nw.lo = m == marks.begin() ? -kInf : *std::prev(m);
        }
        if (moves[eq.lhs] > 64) nw = join(nw, Bounds{-kInf, kInf, nw.nan, nw.t, nw.f});
      }
      b[eq.lhs] = nw;
      changed = true;
    }
    stable = !changed;
  }
  if (!stable)  // no fixpoint reached: nothing is known
    for (auto &[name, t] : type) b[name] = top(t);
  return b;
}

// The property's variable is true wherever it has a value (its bounds say it cannot be
// false) and can never be nil.
bool Checker::proved_by_bounds(const std::string &var) {
  const auto &b = bounds();
  auto it = b.find(var);
  return it != b.end() && !it->second.f && it->second.nil == 0;
}

}  // namespace rml::check
