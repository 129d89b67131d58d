#include "array/ir/eval.hpp"

#include <cmath>

#include "array/elementwise.hpp"

namespace rml::ir {

namespace {

size_t count(const Shape &s) { return static_cast<size_t>(numel(s)); }

// Offset of the row-major block t[idx] (a prefix index), or -1 when out of bounds.
int64_t block_offset(const Shape &shape, const std::vector<int64_t> &idx) {
  int64_t off = 0;
  for (size_t d = 0; d < idx.size(); ++d) {
    if (idx[d] < 0 || idx[d] >= shape[d]) return -1;
    off = off * shape[d] + idx[d];
  }
  Shape rest(shape.begin() + static_cast<long>(idx.size()), shape.end());
  return off * numel(rest);
}

void copy_block(const Tensor &src, size_t so, Tensor &dst, size_t dof, size_t n, bool add) {
  if (src.elem == Elem::Real) {
    for (size_t q = 0; q < n; ++q) dst.r[dof + q] = add ? dst.r[dof + q] + src.r[so + q] : src.r[so + q];
  } else {
    for (size_t q = 0; q < n; ++q) dst.i[dof + q] = add ? array::int_add(dst.i[dof + q], src.i[so + q]) : src.i[so + q];
  }
}

struct Eval {
  Bindings env;
  std::map<int64_t, Tensor> shared;

  Tensor lookup(const std::string &x) const {
    for (auto it = env.rbegin(); it != env.rend(); ++it)
      if (it->first == x) return it->second;
    throw IrError("ir.var: unbound variable '" + x + "' at evaluation");
  }

  int64_t scalar_int(const Term &t) { return go(t).i.at(0); }

  std::vector<int64_t> index_fn(const Node &n, const std::vector<int64_t> &at) {
    for (size_t d = 0; d < at.size(); ++d) env.emplace_back(n.binders[d], Tensor::integer(at[d]));
    std::vector<int64_t> out;
    for (auto &c : n.ix) out.push_back(scalar_int(c));
    env.resize(env.size() - at.size());
    return out;
  }

  Tensor go(const Term &t) {
    const Node &n = *t;
    switch (n.kind) {
      case Kind::Const: return *n.value;
      case Kind::Var: return lookup(n.name);
      case Kind::Let: {
        Tensor u = go(n.kids[0]);
        env.emplace_back(n.name, std::move(u));
        Tensor v = go(n.kids[1]);
        env.pop_back();
        return v;
      }
      case Kind::Cond: {  // strict: all three evaluated
        Tensor b = go(n.kids[0]), u = go(n.kids[1]), v = go(n.kids[2]);
        return b.i.at(0) ? u : v;
      }
      case Kind::Unary: return apply_unary(n.un, go(n.kids[0]));
      case Kind::Binary: {
        Tensor a = go(n.kids[0]), b = go(n.kids[1]);
        return apply_binary(n.bin, a, b);
      }
      case Kind::Index: {
        Tensor a = go(n.kids[0]);
        std::vector<int64_t> idx;
        for (size_t q = 1; q < n.kids.size(); ++q) idx.push_back(scalar_int(n.kids[q]));
        Tensor out = Tensor::zeros(n.type.elem, n.type.shape);
        int64_t off = block_offset(a.shape, idx);
        if (off >= 0) copy_block(a, static_cast<size_t>(off), out, 0, out.numel(), false);
        return out;
      }
      case Kind::SumOuter: {
        Tensor a = go(n.kids[0]);
        Tensor out = Tensor::zeros(n.type.elem, n.type.shape);
        size_t inner = out.numel();
        for (int64_t j = 0; j < a.shape[0]; ++j) copy_block(a, static_cast<size_t>(j) * inner, out, 0, inner, true);
        return out;
      }
      case Kind::Gather:
      case Kind::Scatter: {
        bool is_gather = n.kind == Kind::Gather;
        Tensor a = go(n.kids[0]);
        Tensor out = Tensor::zeros(n.type.elem, n.type.shape);
        size_t m1 = n.binders.size();
        Shape dom(is_gather ? n.type.shape.begin() : a.shape.begin(),
                  (is_gather ? n.type.shape.begin() : a.shape.begin()) + static_cast<long>(m1));
        size_t inner = is_gather ? count(Shape(n.type.shape.begin() + static_cast<long>(m1), n.type.shape.end()))
                                 : count(Shape(a.shape.begin() + static_cast<long>(m1), a.shape.end()));
        if (numel(dom) == 0) return out;
        std::vector<int64_t> at(m1, 0);
        do {
          std::vector<int64_t> target = index_fn(n, at);
          int64_t so = block_offset(a.shape, is_gather ? target : at);
          int64_t dof = block_offset(out.shape, is_gather ? at : target);
          if (so >= 0 && dof >= 0) copy_block(a, static_cast<size_t>(so), out, static_cast<size_t>(dof), inner, !is_gather);
        } while (next_index(at, dom));
        return out;
      }
      case Kind::FromList: {
        Tensor out = Tensor::zeros(n.type.elem, n.type.shape);
        size_t inner = count(n.kids[0]->type.shape);
        for (size_t q = 0; q < n.kids.size(); ++q) copy_block(go(n.kids[q]), 0, out, q * inner, inner, false);
        return out;
      }
      case Kind::Replicate: {
        Tensor a = go(n.kids[0]);
        Tensor out = Tensor::zeros(n.type.elem, n.type.shape);
        size_t inner = a.numel();
        for (int64_t j = 0; j < n.k; ++j) copy_block(a, 0, out, static_cast<size_t>(j) * inner, inner, false);
        return out;
      }
      case Kind::Transpose: {
        Tensor a = go(n.kids[0]);
        Tensor out = Tensor::zeros(n.type.elem, n.type.shape);
        const Shape &perm = n.shape_arg;
        size_t m = perm.size();
        Shape lead(a.shape.begin(), a.shape.begin() + static_cast<long>(m));
        size_t inner = count(Shape(a.shape.begin() + static_cast<long>(m), a.shape.end()));
        if (numel(lead) == 0) return out;
        std::vector<int64_t> ix(m, 0);  // index into the input's permuted dims
        do {
          std::vector<int64_t> o(m);
          for (size_t p = 0; p < m; ++p) o[p] = ix[static_cast<size_t>(perm[p])];  // out dim p = in dim perm[p]
          copy_block(a, static_cast<size_t>(block_offset(a.shape, ix)), out, static_cast<size_t>(block_offset(out.shape, o)),
                     inner, false);
        } while (next_index(ix, lead));
        return out;
      }
      case Kind::Reshape: {
        Tensor a = go(n.kids[0]);
        a.shape = n.type.shape;
        return a;
      }
      case Kind::Build1: {
        Tensor out = Tensor::zeros(n.type.elem, n.type.shape);
        size_t inner = count(n.kids[0]->type.shape);
        for (int64_t j = 0; j < n.k; ++j) {
          env.emplace_back(n.name, Tensor::integer(j));
          Tensor v = go(n.kids[0]);
          env.pop_back();
          copy_block(v, 0, out, static_cast<size_t>(j) * inner, inner, false);
        }
        return out;
      }
      case Kind::Iota: {
        Tensor out = Tensor::zeros(Elem::Int, n.type.shape);
        for (int64_t j = 0; j < n.k; ++j) out.i[static_cast<size_t>(j)] = j;
        return out;
      }
      case Kind::Share: {
        if (auto it = shared.find(n.k); it != shared.end()) return it->second;
        Tensor v = go(n.kids[0]);
        shared.emplace(n.k, v);
        return v;
      }
    }
    throw IrError("ir.internal: unknown node kind");
  }
};

}  // namespace

bool next_index(std::vector<int64_t> &ix, const Shape &shape) {
  for (size_t d = ix.size(); d-- > 0;) {
    if (++ix[d] < shape[d]) return true;
    ix[d] = 0;
  }
  return false;
}

// The table's meanings, by opcode (no detour through the surface spellings).
Tensor apply_unary(UnOp op, const Tensor &a) { return array::elementwise_unary(op, a); }
Tensor apply_binary(BinOp op, const Tensor &a, const Tensor &b) { return array::elementwise_binary(op, a, b); }

Tensor evaluate(const Term &t, const Bindings &inputs) {
  Eval e;
  e.env = inputs;
  return e.go(t);
}

}  // namespace rml::ir
