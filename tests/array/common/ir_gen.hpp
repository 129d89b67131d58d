// Random typed programs of the core array language (array-ad.md §1, §10.4) for RapidCheck,
// shared by the bot, AD and executor tests.
//
// Terms are typed and statically shaped: rank ≤ 3 and dims 0–4 (configurable). They are
// built top-down from the wanted type, so every generated term is well typed by
// construction. They use nested build1, let, strict cond, index, gather/scatter whose index
// functions go both in and out of bounds, sumOuter, replicate, transpose, reshape, literal
// arrays, iota and constants. Real ops are smooth: sin, cos, tanh, exp of a bounded
// argument, x*x and x/(1+x*x). Int indices come from arithmetic on binders and from floor.
// Binder and let names come from a small pool ("i", "j", "x", and also "a", which is an
// input name), so shadowing and capture happen often.
//
// Usage, inside a property:
//   auto c = *rml::irgen::gen_case();                  // inputs, term, input values
//   auto o = *rml::irgen::gen_case(rml::irgen::Options::bulk());
//   auto f = *rml::irgen::gen_objective();             // real-scalar term for AD / finite differences
// or, inside your own rc::gen::exec, use TermGen directly.
#pragma once
#include <rapidcheck.h>

#include <algorithm>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "array/ir/eval.hpp"
#include "array/ir/ir.hpp"

namespace rml::irgen {

using ir::Elem;
using ir::Shape;
using ir::Tensor;
using ir::Term;
using ir::Type;
using Inputs = std::vector<std::pair<std::string, Type>>;

struct Options {
  bool build1 = true;  // false: bulk terms only (no build1 anywhere)
  // false: int and bool values never depend on reals (no floor, no real comparisons, no
  // min/max/abs/division of reals), so a real objective is smooth in its real inputs.
  bool real_discontinuities = true;
  int depth = 8;  // the term's depth is drawn uniformly from 1..depth (shrinks towards 1)
  int max_rank = 3;
  int max_dim = 4;
  int max_inputs = 3;
  int max_nodes = 120;  // past this many generated nodes, only leaves (bounds the worst case)

  static Options full() { return {}; }
  static Options bulk() {
    Options o;
    o.build1 = false;
    return o;
  }
  // Real-scalar objectives for AD: smooth in the real inputs (finite differences work
  // away from nothing: no discontinuity depends on a real).
  static Options objective() {
    Options o;
    o.real_discontinuities = false;
    return o;
  }
};

// A closed test case: the term's free variables are `inputs`, and `env` gives each a value.
struct Case {
  Inputs inputs;
  Term term;
  ir::Bindings env;
};

inline void showValue(const Case &c, std::ostream &os) {
  os << "inputs:";
  for (size_t q = 0; q < c.inputs.size(); ++q) {
    os << " " << c.inputs[q].first << ":" << c.inputs[q].second.str();
    if (q < c.env.size()) os << "=" << c.env[q].second.str();
  }
  os << "\nterm (" << c.term->type.str() << "):\n" << ir::print(c.term) << "\n";
}

// A uniform draw from [lo, hi). RapidCheck's inRange scales the range by the size
// parameter (size 0 always gives lo), which would make the early cases degenerate; the
// structure's size is controlled by the depth instead. Shrinks towards lo.
template <typename T>
T uniform(T lo, T hi) {
  return *rc::gen::resize(100, rc::gen::inRange<T>(lo, hi));
}

// The generator proper. Its methods draw with `*gen`, so call them only inside a
// generator (rc::gen::exec) or a property.
class TermGen {
 public:
  explicit TermGen(Options o = {}) : opt_(o) {}

  const Options &options() const { return opt_; }

  static int pick(int n) { return uniform(0, n); }
  static bool chance(int percent) { return pick(100) < percent; }

  int64_t dim() { return chance(10) ? 0 : uniform<int64_t>(1, opt_.max_dim + 1); }
  Shape shape(int max_rank) {
    Shape s(static_cast<size_t>(pick(max_rank + 1)));
    for (auto &d : s) d = dim();
    return s;
  }
  Elem elem(bool numeric_only = false) {
    int r = pick(numeric_only ? 8 : 10);
    return r < 5 ? Elem::Real : r < 8 ? Elem::Int : Elem::Bool;
  }
  Type type(int max_rank = -1, bool numeric_only = false) {
    Elem e = elem(numeric_only);
    return Type{e, shape(max_rank < 0 ? opt_.max_rank : max_rank)};
  }

  // Random values: reals in [-2, 2] off any simple grid (floor is rarely at a jump), ints
  // in [-2, 5] (mostly valid indices for dims ≤ 4, sometimes not), bools.
  static Tensor tensor(const Type &ty) {
    Tensor t = Tensor::zeros(ty.elem, ty.shape);
    if (ty.elem == Elem::Real)
      for (auto &v : t.r) v = uniform(-20000, 20001) / 10000.0 + 1e-7;
    else if (ty.elem == Elem::Int)
      for (auto &v : t.i) v = uniform(-2, 6);
    else
      for (auto &v : t.i) v = uniform(0, 2);
    return t;
  }
  // Literal constants: reals are quarters in [-2, 2] (exact arithmetic in sums).
  static Tensor literal(const Type &ty) {
    Tensor t = Tensor::zeros(ty.elem, ty.shape);
    if (ty.elem == Elem::Real)
      for (auto &v : t.r) v = uniform(-8, 9) / 4.0;
    else if (ty.elem == Elem::Int)
      for (auto &v : t.i) v = uniform(-2, 6);
    else
      for (auto &v : t.i) v = uniform(0, 2);
    return t;
  }

  // A term of type `ty` whose free variables are among `scope` (innermost last).
  Term term(const Type &ty, Inputs &scope, int depth) {
    if (depth <= 0 || nodes_ >= opt_.max_nodes || chance(3)) return leaf(ty, scope);
    ++nodes_;
    const size_t rank = ty.rank();
    const bool numeric = ty.elem != Elem::Bool;
    const bool room = rank < static_cast<size_t>(opt_.max_rank);
    enum P { Leaf, Let, Cond, Op, Index, SumOuter, Gather, Scatter, FromList, Replicate, Transpose, Reshape, Build1 };
    std::vector<P> ps;
    auto add = [&](P p, int w) { ps.insert(ps.end(), static_cast<size_t>(w), p); };
    add(Leaf, 1);
    add(Let, 2);
    add(Cond, 1);
    add(Op, 6);
    if (room) add(Index, 5);
    if (room && numeric) add(SumOuter, 2);
    add(Gather, 3);
    if (numeric) add(Scatter, 2);
    if (rank >= 1 && ty.shape[0] >= 1) add(FromList, 1);
    if (rank >= 1) add(Replicate, 2);
    if (rank >= 2) add(Transpose, 2);
    add(Reshape, 1);
    if (rank >= 1 && opt_.build1) add(Build1, 6);
    Type tail{ty.elem, Shape(ty.shape.begin() + (rank ? 1 : 0), ty.shape.end())};
    switch (ps[static_cast<size_t>(pick(static_cast<int>(ps.size())))]) {
      case Leaf: return leaf(ty, scope);
      case Let: {
        Type ut = type(2);
        Term u = term(ut, scope, depth - 1);
        std::string x = name({"x", "y", "i", "a"});
        scope.emplace_back(x, ut);
        Term body = term(ty, scope, depth - 1);
        scope.pop_back();
        return ir::let(x, u, body);
      }
      case Cond: {
        Term b = term(Type{Elem::Bool, {}}, scope, depth - 1);
        return ir::cond(b, term(ty, scope, depth - 1), term(ty, scope, depth - 1));
      }
      case Op: return op(ty, scope, depth);
      case Index: {
        int p = chance(5) ? 0 : uniform(1, opt_.max_rank - static_cast<int>(rank) + 1);
        Shape lead(static_cast<size_t>(p));
        for (auto &d : lead) d = dim();
        Term src = chance(60) ? var_ending_with(scope, ty.elem, ty.shape, 1, 3) : nullptr;
        if (src) {
          lead.assign(src->type.shape.begin(), src->type.shape.end() - static_cast<long>(rank));
        } else {
          Shape src_shape = lead;
          src_shape.insert(src_shape.end(), ty.shape.begin(), ty.shape.end());
          src = term(Type{ty.elem, src_shape}, scope, depth - 1);
        }
        std::vector<Term> ix;
        for (auto d : lead) ix.push_back(index_term(d, scope, depth - 1));
        return ir::index(src, ix);
      }
      case SumOuter: {
        if (chance(40))
          if (Term v = var_ending_with(scope, ty.elem, ty.shape, 1, 1)) return ir::sum_outer(v);
        Shape s{dim()};
        s.insert(s.end(), ty.shape.begin(), ty.shape.end());
        return ir::sum_outer(term(Type{ty.elem, s}, scope, depth - 1));
      }
      case Gather: {
        size_t m1 = static_cast<size_t>(pick(static_cast<int>(rank) + 1));
        Shape rest(ty.shape.begin() + static_cast<long>(m1), ty.shape.end());
        int max_m2 = std::max(0, std::min<int>(2, opt_.max_rank - static_cast<int>(rest.size())));
        Shape lead(static_cast<size_t>(pick(max_m2 + 1)));
        for (auto &d : lead) d = dim();
        Term src = chance(50) ? var_ending_with(scope, ty.elem, rest, 0, 2) : nullptr;
        if (src) {
          lead.assign(src->type.shape.begin(), src->type.shape.end() - static_cast<long>(rest.size()));
        } else {
          Shape src_shape = lead;
          src_shape.insert(src_shape.end(), rest.begin(), rest.end());
          src = term(Type{ty.elem, src_shape}, scope, depth - 1);
        }
        auto binders = distinct_names(m1);
        for (auto &b : binders) scope.emplace_back(b, Type{Elem::Int, {}});
        std::vector<Term> ix;
        for (auto d : lead) ix.push_back(index_term(d, scope, std::min(depth - 1, 2)));
        scope.resize(scope.size() - m1);
        return ir::gather(ty.shape, src, binders, ix);
      }
      case Scatter: {
        size_t m2 = static_cast<size_t>(pick(static_cast<int>(rank) + 1));
        Shape rest(ty.shape.begin() + static_cast<long>(m2), ty.shape.end());
        int max_m1 = std::max(0, std::min<int>(2, opt_.max_rank - static_cast<int>(rest.size())));
        Shape lead(static_cast<size_t>(pick(max_m1 + 1)));
        for (auto &d : lead) d = dim();
        Shape src_shape = lead;
        src_shape.insert(src_shape.end(), rest.begin(), rest.end());
        Term src = term(Type{ty.elem, src_shape}, scope, depth - 1);
        auto binders = distinct_names(lead.size());
        for (auto &b : binders) scope.emplace_back(b, Type{Elem::Int, {}});
        std::vector<Term> ix;
        for (size_t d = 0; d < m2; ++d) ix.push_back(index_term(ty.shape[d], scope, std::min(depth - 1, 2)));
        scope.resize(scope.size() - lead.size());
        return ir::scatter(ty.shape, src, binders, ix);
      }
      case FromList: {
        std::vector<Term> ts;
        for (int64_t q = 0; q < ty.shape[0]; ++q) ts.push_back(term(tail, scope, depth - 1));
        return ir::from_list(ts);
      }
      case Replicate: return ir::replicate(ty.shape[0], term(tail, scope, depth - 1));
      case Transpose: {
        size_t m = static_cast<size_t>(uniform<int>(2, static_cast<int>(rank) + 1));
        Shape perm(m);
        for (size_t q = 0; q < m; ++q) perm[q] = static_cast<int64_t>(q);
        for (size_t q = m; q-- > 1;) std::swap(perm[q], perm[static_cast<size_t>(pick(static_cast<int>(q) + 1))]);
        Shape src_shape = ty.shape;  // src dim perm[p] is output dim p
        for (size_t p = 0; p < m; ++p) src_shape[static_cast<size_t>(perm[p])] = ty.shape[p];
        return ir::transpose(perm, term(Type{ty.elem, src_shape}, scope, depth - 1));
      }
      case Reshape: {
        auto shapes = shapes_with(ir::numel(ty.shape));
        if (shapes.empty()) shapes.push_back(ty.shape);  // a wanted type beyond max_rank/max_dim
        Shape s = shapes[static_cast<size_t>(pick(static_cast<int>(shapes.size())))];
        return ir::reshape(ty.shape, term(Type{ty.elem, s}, scope, depth - 1));
      }
      case Build1: {
        std::string i = name({"i", "j", "k", "x"});
        scope.emplace_back(i, Type{Elem::Int, {}});
        // A body that ignores its binder is only a replicate: retry a few times for one
        // that uses it (what the build-elimination rules are about).
        Term body = term(tail, scope, depth - 1);
        for (int retry = 0; retry < 3 && !ir::occurs_free(i, body); ++retry) body = term(tail, scope, depth - 1);
        scope.pop_back();
        return ir::build1(ty.shape[0], i, body);
      }
    }
    return leaf(ty, scope);
  }

  // An int scalar meant as an index into a dimension of size `bound`: mostly in bounds,
  // sometimes out (negative or ≥ bound). Uses the binders in scope.
  Term index_term(int64_t bound, Inputs &scope, int depth) {
    Type is{Elem::Int, {}};
    auto vars = visible(scope, is);
    auto c = [](int64_t v) { return ir::int_scalar(v); };
    auto v = [&]() { return ir::var(vars[static_cast<size_t>(pick(static_cast<int>(vars.size())))], is); };
    int r = pick(depth > 0 ? 12 : 9);
    if (vars.empty() && r < 7) r = 7;
    switch (r) {
      case 0:
      case 1:
      case 2: return v();
      case 3: return ir::binary(ir::BinOp::Add, v(), c(uniform<int64_t>(-1, 3)));
      case 4: return ir::binary(ir::BinOp::Sub, c(bound - 1), v());  // reversal
      case 5: return ir::binary(pick(2) ? ir::BinOp::IDiv : ir::BinOp::Mul, v(), c(2));
      case 6: return ir::binary(ir::BinOp::Add, v(), v());
      case 7:
      case 8: return c(uniform<int64_t>(-1, bound + 1));
      case 9:
        if (opt_.real_discontinuities) {
          Term x = term(Type{Elem::Real, {}}, scope, depth - 1);
          return ir::unary(ir::UnOp::Floor, ir::binary(ir::BinOp::Mul, x, ir::real_scalar(2)));
        }
        [[fallthrough]];
      default: return term(is, scope, depth - 1);
    }
  }

  // A visible variable of element type e whose shape is `lead ++ rest` with
  // min_lead ≤ |lead| ≤ max_lead (random among those), or null.
  static Term var_ending_with(const Inputs &scope, Elem e, const Shape &rest, size_t min_lead, size_t max_lead) {
    std::vector<Term> found;
    std::vector<std::string> seen;
    for (auto it = scope.rbegin(); it != scope.rend(); ++it) {
      if (std::find(seen.begin(), seen.end(), it->first) != seen.end()) continue;
      seen.push_back(it->first);
      const Shape &s = it->second.shape;
      if (it->second.elem != e || s.size() < rest.size() + min_lead || s.size() > rest.size() + max_lead) continue;
      if (!std::equal(rest.begin(), rest.end(), s.end() - static_cast<long>(rest.size()))) continue;
      found.push_back(ir::var(it->first, it->second));
    }
    if (found.empty()) return nullptr;
    return found[static_cast<size_t>(pick(static_cast<int>(found.size())))];
  }

  // Names whose innermost binding in `scope` has type `ty`.
  static std::vector<std::string> visible(const Inputs &scope, const Type &ty) {
    std::vector<std::string> seen, out;
    for (auto it = scope.rbegin(); it != scope.rend(); ++it) {
      if (std::find(seen.begin(), seen.end(), it->first) != seen.end()) continue;
      seen.push_back(it->first);
      if (it->second == ty) out.push_back(it->first);
    }
    return out;
  }

 private:
  Options opt_;
  int nodes_ = 0;

  static std::string name(std::initializer_list<const char *> pool) {
    std::vector<std::string> p(pool.begin(), pool.end());
    return p[static_cast<size_t>(pick(static_cast<int>(p.size())))];
  }
  static std::vector<std::string> distinct_names(size_t n) {
    std::vector<std::string> pool{"i", "j", "k", "x"};
    for (size_t q = pool.size(); q-- > 1;) std::swap(pool[q], pool[static_cast<size_t>(pick(static_cast<int>(q) + 1))]);
    return std::vector<std::string>(pool.begin(), pool.begin() + static_cast<long>(n));
  }

  // Shapes of rank ≤ max_rank with dims ≤ max_dim and `n` elements.
  std::vector<Shape> shapes_with(int64_t n) const {
    std::vector<Shape> out;
    std::vector<Shape> frontier{{}};
    for (int r = 0; r <= opt_.max_rank; ++r) {
      std::vector<Shape> next;
      for (auto &s : frontier) {
        if (ir::numel(s) == n) out.push_back(s);
        if (r < opt_.max_rank)
          for (int64_t d = 0; d <= opt_.max_dim; ++d) {
            Shape t = s;
            t.push_back(d);
            next.push_back(t);
          }
      }
      frontier = std::move(next);
    }
    return out;
  }

  Term constant_of(const Type &ty) {
    if (ty.rank() >= 1 && chance(30)) {  // a constant-filled array, as replicates
      Term t = ir::constant(literal(Type{ty.elem, {}}));
      for (size_t d = ty.rank(); d-- > 0;) t = ir::replicate(ty.shape[d], t);
      return t;
    }
    return ir::constant(literal(ty));
  }

  Term leaf(const Type &ty, Inputs &scope) {
    auto vars = visible(scope, ty);
    if (!vars.empty() && chance(75)) return ir::var(vars[static_cast<size_t>(pick(static_cast<int>(vars.size())))], ty);
    // real i: makes build1 bodies depend on their binder
    auto ints = visible(scope, Type{Elem::Int, {}});
    if (ty == Type{Elem::Real, {}} && !ints.empty() && chance(30))
      return ir::unary(ir::UnOp::ToReal, ir::var(ints[static_cast<size_t>(pick(static_cast<int>(ints.size())))], Type{Elem::Int, {}}));
    if (ty.elem == Elem::Int && ty.rank() == 1 && chance(40)) return ir::iota(ty.shape[0]);
    return constant_of(ty);
  }

  Term ones(const Type &ty) {
    Tensor t = Tensor::zeros(Elem::Real, ty.shape);
    for (auto &v : t.r) v = 1;
    return ir::constant(t);
  }

  Term op(const Type &ty, Inputs &scope, int depth) {
    using ir::BinOp;
    using ir::UnOp;
    auto sub = [&](const Type &t) { return term(t, scope, depth - 1); };
    Type same_real{Elem::Real, ty.shape}, same_int{Elem::Int, ty.shape};
    const bool disc = opt_.real_discontinuities;
    switch (ty.elem) {
      case Elem::Real:
        switch (pick(12)) {
          case 0: return ir::unary(UnOp::Sin, sub(ty));
          case 1: return ir::unary(UnOp::Tanh, sub(ty));
          case 2: return ir::unary(UnOp::Exp, ir::unary(pick(2) ? UnOp::Sin : UnOp::Tanh, sub(ty)));
          case 3: return ir::unary(pick(2) ? UnOp::Cos : UnOp::Neg, sub(ty));
          case 4: {
            Term x = sub(ty);
            return ir::binary(BinOp::Mul, x, x);
          }
          case 5: {
            Term x = sub(ty);
            return ir::binary(BinOp::Div, x, ir::binary(BinOp::Add, ones(ty), ir::binary(BinOp::Mul, x, x)));
          }
          case 6: return ir::unary(UnOp::ToReal, sub(same_int));
          case 7:
            if (disc) {
              BinOp o = std::vector<BinOp>{BinOp::Div, BinOp::Max, BinOp::Min}[static_cast<size_t>(pick(3))];
              return ir::binary(o, sub(ty), sub(ty));
            }
            [[fallthrough]];
          case 8: return ir::binary(BinOp::Sub, sub(ty), sub(ty));
          case 9: return ir::binary(BinOp::Mul, sub(ty), sub(ty));
          default: return ir::binary(BinOp::Add, sub(ty), sub(ty));
        }
      case Elem::Int:
        switch (pick(9)) {
          case 0: return ir::unary(pick(2) ? UnOp::Neg : UnOp::Abs, sub(ty));
          case 1:
            if (disc) return ir::unary(pick(2) ? UnOp::Floor : UnOp::ToInt, sub(same_real));
            [[fallthrough]];
          case 2: {
            BinOp o = std::vector<BinOp>{BinOp::IDiv, BinOp::Mod, BinOp::Max, BinOp::Min}[static_cast<size_t>(pick(4))];
            return ir::binary(o, sub(ty), sub(ty));
          }
          case 3: return ir::binary(BinOp::Mul, sub(ty), sub(ty));
          case 4: return ir::binary(BinOp::Sub, sub(ty), sub(ty));
          default: return ir::binary(BinOp::Add, sub(ty), sub(ty));
        }
      case Elem::Bool:
        switch (pick(6)) {
          case 0: return ir::unary(UnOp::Not, sub(ty));
          case 1: {
            BinOp o = std::vector<BinOp>{BinOp::And, BinOp::Or, BinOp::Xor}[static_cast<size_t>(pick(3))];
            return ir::binary(o, sub(ty), sub(ty));
          }
          default: {
            BinOp o = std::vector<BinOp>{BinOp::Eq, BinOp::Ne, BinOp::Lt, BinOp::Le, BinOp::Gt,
                                         BinOp::Ge}[static_cast<size_t>(pick(6))];
            Type operand = disc && pick(2) ? same_real : same_int;
            return ir::binary(o, sub(operand), sub(operand));
          }
        }
    }
    return leaf(ty, scope);
  }
};

// Random free variables: 1..max_inputs of "a", "b", "c" (mostly real arrays) and
// sometimes an int scalar "n". With want_real, at least one is real.
inline Inputs random_inputs(TermGen &g, bool want_real) {
  Inputs in;
  int n = uniform(1, g.options().max_inputs + 1);
  const char *names[] = {"a", "b", "c"};
  for (int q = 0; q < n && q < 3; ++q) {
    Type t = g.type(-1, false);
    if (TermGen::chance(40) || (want_real && q == 0)) t.elem = Elem::Real;
    in.emplace_back(names[q], t);
  }
  if (TermGen::chance(30)) in.emplace_back("n", Type{Elem::Int, {}});
  return in;
}

inline ir::Bindings random_bindings(const Inputs &inputs) {
  ir::Bindings env;
  for (auto &[x, t] : inputs) env.emplace_back(x, TermGen::tensor(t));
  return env;
}

// A term of the given type over the given free variables.
inline rc::Gen<Term> gen_term(Type ty, Inputs inputs, Options o = {}) {
  return rc::gen::exec([=] {
    TermGen g(o);
    int depth = uniform(1, o.depth + 1);
    Inputs scope = inputs;
    return g.term(ty, scope, depth);
  });
}

inline rc::Gen<Tensor> gen_tensor(Type ty) {
  return rc::gen::exec([=] { return TermGen::tensor(ty); });
}
inline rc::Gen<ir::Bindings> gen_bindings(Inputs inputs) {
  return rc::gen::exec([=] { return random_bindings(inputs); });
}

// A random case: random inputs, a term of a random type over them, and input values.
inline rc::Gen<Case> gen_case(Options o = {}) {
  return rc::gen::exec([=] {
    TermGen g(o);
    Case c;
    c.inputs = random_inputs(g, false);
    // Half the time the result has an input's element type and a suffix of its shape, so
    // the term is likelier to be built from that input.
    Type ty = g.type();
    if (TermGen::chance(50)) {
      auto &in = c.inputs[static_cast<size_t>(TermGen::pick(static_cast<int>(c.inputs.size())))].second;
      ty = Type{in.elem, Shape(in.shape.begin() + TermGen::pick(static_cast<int>(in.rank()) + 1), in.shape.end())};
    }
    int depth = uniform(1, o.depth + 1);
    Inputs scope = c.inputs;
    c.term = g.term(ty, scope, depth);
    c.env = random_bindings(c.inputs);
    return c;
  });
}

// A real-scalar objective (for AD and finite differences): a real term of random rank r
// summed to a scalar by r sumOuters, or a real-scalar term directly. Default options are
// Options::objective() (smooth in the real inputs).
inline rc::Gen<Case> gen_objective(Options o = Options::objective()) {
  return rc::gen::exec([=] {
    TermGen g(o);
    Case c;
    c.inputs = random_inputs(g, true);
    int depth = uniform(1, o.depth + 1);
    Inputs scope = c.inputs;
    Type ty{Elem::Real, TermGen::chance(25) ? Shape{} : g.shape(o.max_rank)};
    Term t = g.term(ty, scope, depth);
    while (t->type.rank() > 0) t = ir::sum_outer(t);
    c.term = t;
    c.env = random_bindings(c.inputs);
    return c;
  });
}

}  // namespace rml::irgen
