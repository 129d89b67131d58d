// Symbolic evaluation of the IR in Z3, for proving that a rewrite preserves the
// reference semantics (src/array/ir/eval.cpp) on every input of a small static shape.
//
// Encoding, chosen so that a proof covers IEEE reals exactly:
// - reals are an uninterpreted sort D; every real operation (+, *, exp, <, floor, ...) is
//   an uninterpreted function, and the constant 0.0 is one D constant. The only fact
//   kept is each operator's value at (+0, +0) where that is again bitwise 0, computed
//   by running the evaluator's operator on zeros (so 0 + 0 = 0 and 0 * 0 = 0, but not
//   exp 0 = 0 or -0 = 0). Rewrites of bot and
//   the simplifier never use real algebra, so "equal as terms over uninterpreted
//   functions" implies "equal for every interpretation", in particular IEEE-754 with its
//   non-associative + and NaN ≠ NaN (the real `=` is uninterpreted too). Sums are folded
//   in the evaluator's order: out = (((0 + t0) + t1) + ...).
// - ints are 64-bit bit-vectors with the evaluator's total semantics (wrapping + - *,
//   x div 0 = x mod 0 = 0, div truncates, mod has the dividend's sign);
// - bools are Z3 bools;
// - index components are symbolic: `index`/`gather` read through an if-then-else chain
//   over the in-bounds positions (no match: 0), `scatter` adds at every position whose
//   symbolic target matches, in row-major source order (the evaluator's order).
#pragma once
#include <z3++.h>

#include <cmath>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "array/ir/eval.hpp"
#include "array/ir/ir.hpp"

namespace rml::proofs {

using ir::Elem;
using ir::Kind;
using ir::Shape;
using ir::Term;

struct SymVal {
  Elem elem = Elem::Real;
  Shape shape;
  std::vector<z3::expr> v;  // row-major
};

class SymEval {
 public:
  explicit SymEval(z3::context &c)
      : c_(c), D_(c.uninterpreted_sort("D")), zero_(c.constant("r_zero", D_)) {}

  z3::context &ctx() { return c_; }
  z3::sort real_sort() const { return D_; }

  // A fresh symbolic tensor for a free variable (every element a fresh constant).
  SymVal fresh(const std::string &name, const ir::Type &t) {
    SymVal s{t.elem, t.shape, {}};
    for (int64_t k = 0; k < ir::numel(t.shape); ++k) {
      std::string n = name + "_" + std::to_string(k);
      s.v.push_back(t.elem == Elem::Real ? c_.constant(n.c_str(), D_)
                    : t.elem == Elem::Int ? c_.bv_const(n.c_str(), 64)
                                          : c_.bool_const(n.c_str()));
    }
    return s;
  }

  SymVal eval(const Term &t, std::vector<std::pair<std::string, SymVal>> env) {
    env_ = std::move(env);
    shared_.clear();
    return go(t);
  }

  // The zero facts of the operators met so far (add them to the solver).
  const std::vector<z3::expr> &facts() const { return facts_; }

  // Some element where a and b differ (as a formula): unsat ⇔ equal everywhere.
  z3::expr differ(const SymVal &a, const SymVal &b) {
    if (a.elem != b.elem || a.shape != b.shape) return c_.bool_val(true);
    z3::expr_vector ds(c_);
    for (size_t k = 0; k < a.v.size(); ++k) ds.push_back(a.v[k] != b.v[k]);
    return ds.empty() ? c_.bool_val(false) : z3::mk_or(ds);
  }

 private:
  z3::context &c_;
  z3::sort D_;
  z3::expr zero_;
  std::vector<std::pair<std::string, SymVal>> env_;
  std::map<int64_t, SymVal> shared_;
  std::vector<z3::expr> facts_;

  z3::func_decl fn(const std::string &name, std::vector<z3::sort> dom, z3::sort range) {
    z3::sort_vector sv(c_);
    for (auto &s : dom) sv.push_back(s);
    return c_.function(name.c_str(), sv, range);
  }

  // The one IEEE fact the encoding keeps: what each operator gives on (+0, +0), taken
  // from the evaluator itself (rules such as I5/I6 rely on op(0,0) = 0 out of bounds).
  void zero_fact_unary(ir::UnOp op, const z3::func_decl &f) {
    ir::Tensor out = ir::apply_unary(op, ir::Tensor::zeros(Elem::Real, {}));
    if (out == ir::Tensor::zeros(out.elem, {})) facts_.push_back(f(zero_) == zero(out.elem));
  }
  void zero_fact_binary(ir::BinOp op, const z3::func_decl &f) {
    ir::Tensor z = ir::Tensor::zeros(Elem::Real, {});
    ir::Tensor out = ir::apply_binary(op, z, z);
    if (out == ir::Tensor::zeros(out.elem, {})) facts_.push_back(f(zero_, zero_) == zero(out.elem));
  }
  z3::expr zero(Elem e) {
    return e == Elem::Real ? zero_ : e == Elem::Int ? c_.bv_val(0, 64) : c_.bool_val(false);
  }
  z3::expr add(Elem e, const z3::expr &a, const z3::expr &b) {
    if (e != Elem::Real) return a + b;  // bv + wraps
    z3::func_decl f = fn("radd", {D_, D_}, D_);
    zero_fact_binary(ir::BinOp::Add, f);
    return f(a, b);
  }
  z3::expr bv(int64_t v) { return c_.bv_val(static_cast<int64_t>(v), 64); }

  z3::expr real_const(double v) {
    if (v == 0.0 && !std::signbit(v)) return zero_;
    uint64_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    return c_.constant(("r_" + std::to_string(bits)).c_str(), D_);
  }

  SymVal lookup(const std::string &x) {
    for (auto it = env_.rbegin(); it != env_.rend(); ++it)
      if (it->first == x) return it->second;
    throw std::runtime_error("symbolic evaluation: unbound '" + x + "'");
  }

  // Element q of the block a[idx] (symbolic prefix index), 0 when out of bounds.
  z3::expr read(const SymVal &a, const std::vector<z3::expr> &idx, size_t q) {
    size_t m = idx.size();
    Shape lead(a.shape.begin(), a.shape.begin() + static_cast<long>(m));
    size_t inner = static_cast<size_t>(ir::numel(Shape(a.shape.begin() + static_cast<long>(m), a.shape.end())));
    z3::expr out = zero(a.elem);
    if (ir::numel(lead) == 0) return out;
    std::vector<int64_t> p(m, 0);
    size_t block = 0;
    do {
      z3::expr_vector eqs(c_);
      for (size_t d = 0; d < m; ++d) eqs.push_back(idx[d] == bv(p[d]));
      z3::expr hit = m == 0 ? c_.bool_val(true) : z3::mk_and(eqs);
      out = z3::ite(hit, a.v[block * inner + q], out);
      ++block;
    } while (ir::next_index(p, lead));
    return out;
  }

  std::vector<z3::expr> index_fn(const ir::Node &n, const std::vector<int64_t> &at) {
    for (size_t d = 0; d < at.size(); ++d) env_.emplace_back(n.binders[d], SymVal{Elem::Int, {}, {bv(at[d])}});
    std::vector<z3::expr> out;
    for (auto &c : n.ix) out.push_back(go(c).v.at(0));
    env_.resize(env_.size() - at.size());
    return out;
  }

  SymVal unary(ir::UnOp op, const SymVal &a) {
    SymVal out{a.elem, a.shape, {}};
    using ir::UnOp;
    for (auto &x : a.v) {
      switch (op) {
        case UnOp::Neg:
        case UnOp::Abs:
          if (a.elem != Elem::Real) {
            out.v.push_back(op == UnOp::Neg ? -x : z3::ite(x < bv(0), -x, x));
            break;
          }
          {
            z3::func_decl f = fn(op == UnOp::Neg ? "rneg" : "rabs", {D_}, D_);
            zero_fact_unary(op, f);
            out.v.push_back(f(x));
          }
          break;
        case UnOp::Not: out.v.push_back(!x); break;
        case UnOp::Floor:
        case UnOp::ToInt: {
          out.elem = Elem::Int;
          z3::func_decl f = fn(std::string("r") + ir::op_name(op), {D_}, c_.bv_sort(64));
          zero_fact_unary(op, f);
          out.v.push_back(f(x));
          break;
        }
        case UnOp::ToReal: {
          out.elem = Elem::Real;
          z3::func_decl f = fn("rofint", {c_.bv_sort(64)}, D_);
          if (ir::apply_unary(op, ir::Tensor::zeros(Elem::Int, {})) == ir::Tensor::zeros(Elem::Real, {}))
            facts_.push_back(f(bv(0)) == zero_);
          out.v.push_back(f(x));
          break;
        }
        default: {
          z3::func_decl f = fn(std::string("r") + ir::op_name(op), {D_}, D_);
          zero_fact_unary(op, f);
          out.v.push_back(f(x));
          break;
        }
      }
    }
    return out;
  }

  z3::expr int_binary(ir::BinOp op, const z3::expr &x, const z3::expr &y) {
    using ir::BinOp;
    switch (op) {
      case BinOp::Add: return x + y;
      case BinOp::Sub: return x - y;
      case BinOp::Mul: return x * y;
      case BinOp::Div:
      case BinOp::IDiv: return z3::ite(y == bv(0), bv(0), x / y);
      case BinOp::Mod: return z3::ite(y == bv(0), bv(0), z3::srem(x, y));
      case BinOp::Max: return z3::ite(x >= y, x, y);
      case BinOp::Min: return z3::ite(x <= y, x, y);
      case BinOp::Eq: return x == y;
      case BinOp::Ne: return x != y;
      case BinOp::Lt: return x < y;  // signed for bit-vectors in z3++
      case BinOp::Le: return x <= y;
      case BinOp::Gt: return x > y;
      case BinOp::Ge: return x >= y;
      default: throw std::runtime_error("int operator");
    }
  }

  SymVal binary(ir::BinOp op, const SymVal &a, const SymVal &b) {
    using ir::BinOp;
    SymVal out{ir::is_comparison(op) ? Elem::Bool : a.elem, a.shape, {}};
    for (size_t k = 0; k < a.v.size(); ++k) {
      const z3::expr &x = a.v[k], &y = b.v[k];
      if (a.elem == Elem::Bool) {
        switch (op) {
          case BinOp::And: out.v.push_back(x && y); break;
          case BinOp::Or: out.v.push_back(x || y); break;
          case BinOp::Implies: out.v.push_back(z3::implies(x, y)); break;
          case BinOp::Xor:
          case BinOp::Ne: out.v.push_back(x != y); break;
          case BinOp::Eq: out.v.push_back(x == y); break;
          default: throw std::runtime_error("bool operator");
        }
      } else if (a.elem == Elem::Int) {
        out.v.push_back(int_binary(op, x, y));
      } else {
        z3::sort r = ir::is_comparison(op) ? c_.bool_sort() : D_;
        z3::func_decl f = fn(std::string("r") + ir::op_name(op), {D_, D_}, r);
        zero_fact_binary(op, f);
        out.v.push_back(f(x, y));
      }
    }
    return out;
  }

  SymVal go(const Term &t) {
    const ir::Node &n = *t;
    SymVal out{n.type.elem, n.type.shape, {}};
    size_t count = static_cast<size_t>(ir::numel(n.type.shape));
    switch (n.kind) {
      case Kind::Const: {
        const ir::Tensor &v = *n.value;
        for (size_t k = 0; k < count; ++k)
          out.v.push_back(v.elem == Elem::Real ? real_const(v.r[k]) : v.elem == Elem::Int ? bv(v.i[k]) : c_.bool_val(v.i[k] != 0));
        return out;
      }
      case Kind::Var: return lookup(n.name);
      case Kind::Let: {
        SymVal u = go(n.kids[0]);
        env_.emplace_back(n.name, std::move(u));
        SymVal v = go(n.kids[1]);
        env_.pop_back();
        return v;
      }
      case Kind::Cond: {
        SymVal b = go(n.kids[0]), u = go(n.kids[1]), v = go(n.kids[2]);
        for (size_t k = 0; k < count; ++k) out.v.push_back(z3::ite(b.v[0], u.v[k], v.v[k]));
        return out;
      }
      case Kind::Unary: return unary(n.un, go(n.kids[0]));
      case Kind::Binary: {
        SymVal a = go(n.kids[0]), b = go(n.kids[1]);
        return binary(n.bin, a, b);
      }
      case Kind::Index: {
        SymVal a = go(n.kids[0]);
        std::vector<z3::expr> idx;
        for (size_t q = 1; q < n.kids.size(); ++q) idx.push_back(go(n.kids[q]).v.at(0));
        for (size_t q = 0; q < count; ++q) out.v.push_back(read(a, idx, q));
        return out;
      }
      case Kind::SumOuter: {
        SymVal a = go(n.kids[0]);
        for (size_t q = 0; q < count; ++q) {
          z3::expr s = zero(n.type.elem);
          for (int64_t j = 0; j < a.shape[0]; ++j) s = add(n.type.elem, s, a.v[static_cast<size_t>(j) * count + q]);
          out.v.push_back(s);
        }
        return out;
      }
      case Kind::Gather: {
        SymVal a = go(n.kids[0]);
        size_t m1 = n.binders.size();
        Shape dom(n.type.shape.begin(), n.type.shape.begin() + static_cast<long>(m1));
        size_t inner = static_cast<size_t>(ir::numel(Shape(n.type.shape.begin() + static_cast<long>(m1), n.type.shape.end())));
        if (ir::numel(dom) == 0) return out;
        std::vector<int64_t> at(m1, 0);
        do {
          std::vector<z3::expr> target = index_fn(n, at);
          for (size_t q = 0; q < inner; ++q) out.v.push_back(read(a, target, q));
        } while (ir::next_index(at, dom));
        return out;
      }
      case Kind::Scatter: {
        SymVal a = go(n.kids[0]);
        size_t m1 = n.binders.size(), m2 = n.ix.size();
        Shape dom(a.shape.begin(), a.shape.begin() + static_cast<long>(m1));
        Shape lead(n.type.shape.begin(), n.type.shape.begin() + static_cast<long>(m2));
        size_t inner = static_cast<size_t>(ir::numel(Shape(a.shape.begin() + static_cast<long>(m1), a.shape.end())));
        for (size_t k = 0; k < count; ++k) out.v.push_back(zero(n.type.elem));
        if (ir::numel(dom) == 0 || ir::numel(lead) == 0) return out;
        std::vector<int64_t> at(m1, 0);
        size_t src_block = 0;
        do {
          std::vector<z3::expr> target = index_fn(n, at);
          std::vector<int64_t> p(m2, 0);
          size_t dst_block = 0;
          do {
            z3::expr_vector eqs(c_);
            for (size_t d = 0; d < m2; ++d) eqs.push_back(target[d] == bv(p[d]));
            z3::expr hit = m2 == 0 ? c_.bool_val(true) : z3::mk_and(eqs);
            for (size_t q = 0; q < inner; ++q) {
              z3::expr &cell = out.v[dst_block * inner + q];
              cell = z3::ite(hit, add(n.type.elem, cell, a.v[src_block * inner + q]), cell);
            }
            ++dst_block;
          } while (ir::next_index(p, lead));
          ++src_block;
        } while (ir::next_index(at, dom));
        return out;
      }
      case Kind::FromList:
        for (auto &k : n.kids) {
          SymVal v = go(k);
          out.v.insert(out.v.end(), v.v.begin(), v.v.end());
        }
        return out;
      case Kind::Replicate: {
        SymVal a = go(n.kids[0]);
        for (int64_t j = 0; j < n.k; ++j) out.v.insert(out.v.end(), a.v.begin(), a.v.end());
        return out;
      }
      case Kind::Transpose: {
        SymVal a = go(n.kids[0]);
        const Shape &perm = n.shape_arg;
        size_t m = perm.size();
        Shape lead(a.shape.begin(), a.shape.begin() + static_cast<long>(m));
        size_t inner = static_cast<size_t>(ir::numel(Shape(a.shape.begin() + static_cast<long>(m), a.shape.end())));
        out.v.assign(count, zero(n.type.elem));
        if (ir::numel(lead) == 0) return out;
        std::vector<int64_t> ix(m, 0);
        do {
          size_t src = 0, dst = 0;
          for (size_t d = 0; d < m; ++d) src = src * static_cast<size_t>(lead[d]) + static_cast<size_t>(ix[d]);
          for (size_t p = 0; p < m; ++p)
            dst = dst * static_cast<size_t>(n.type.shape[p]) + static_cast<size_t>(ix[static_cast<size_t>(perm[p])]);
          for (size_t q = 0; q < inner; ++q) out.v[dst * inner + q] = a.v[src * inner + q];
        } while (ir::next_index(ix, lead));
        return out;
      }
      case Kind::Reshape: {
        SymVal a = go(n.kids[0]);
        a.shape = n.type.shape;
        return a;
      }
      case Kind::Build1:
        for (int64_t j = 0; j < n.k; ++j) {
          env_.emplace_back(n.name, SymVal{Elem::Int, {}, {bv(j)}});
          SymVal v = go(n.kids[0]);
          env_.pop_back();
          out.v.insert(out.v.end(), v.v.begin(), v.v.end());
        }
        return out;
      case Kind::Iota:
        for (int64_t j = 0; j < n.k; ++j) out.v.push_back(bv(j));
        return out;
      case Kind::Share: {
        if (auto it = shared_.find(n.k); it != shared_.end()) return it->second;
        SymVal v = go(n.kids[0]);
        shared_.emplace(n.k, v);
        return v;
      }
    }
    throw std::runtime_error("symbolic evaluation: unknown node");
  }
};

}  // namespace rml::proofs
