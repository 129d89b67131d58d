// Kernel selection: Lowerer::lower_op gives each reachable operation of the graph its
// value, by extending a fused elementwise program, by a view, or by emitting a kernel
// (map, column or row reduction, GEMM via plan_gemm.cpp, gather or scatter, the parts
// of an array literal).
#include <algorithm>

#include "array/exec/plan_internal.hpp"

namespace rml::exec::detail {

void Lowerer::lower_op(int id) {
  const SOp &o = op(id);
  Val &out = vals_[static_cast<size_t>(id)];
  out.elem = o.type.elem;
  const Shape &shape = o.type.shape;
  DT dt = dt_of(o.type.elem);
  auto arg = [&](size_t k) -> const Val & { return val(o.args[k]); };
  switch (o.kind) {
    case Kind::Var:
      out.view = canonical_view(input_buf_of_op_.at(id), shape);
      return;
    case Kind::Const: out.view = canonical_view(const_buf(o.value), shape); return;
    case Kind::Iota: {
      auto t = std::make_shared<ir::Tensor>(ir::Tensor::zeros(Elem::Int, shape));
      for (int64_t j = 0; j < o.node->k; ++j) t->i[static_cast<size_t>(j)] = j;
      out.view = canonical_view(const_buf(t), shape);
      return;
    }
    case Kind::Unary:
    case Kind::Binary:
    case Kind::Cond: {
      Val v;
      v.elem = o.type.elem;
      v.expr = true;
      MInst in;
      in.dt = dt;
      if (o.kind == Kind::Cond) {
        View b = materialise(val_mut(o.args[0]), "condition");
        v.prog = prog_of(arg(1));
        int u = static_cast<int>(v.prog.code.size()) - 1;
        int w = append(v.prog, prog_of(arg(2)));
        int c = append(v.prog, leaf_prog(View{b.buf, b.offset, shape, Strides(shape.size(), 0)}, DT::Int));
        in.op = MInst::Sel;
        in.in = dt;
        in.a = c;
        in.b = u;
        in.c = w;
      } else {
        v.prog = prog_of(arg(0));
        in.a = static_cast<int>(v.prog.code.size()) - 1;
        in.in = dt_of(op(o.args[0]).type.elem);
        if (o.kind == Kind::Unary) {
          in.op = MInst::Un;
          in.un = o.node->un;
        } else {
          in.op = MInst::Bin;
          in.bin = o.node->bin;
          in.b = append(v.prog, prog_of(arg(1)));
        }
      }
      v.prog.code.push_back(in);
      out = finish_expr(std::move(v), id);
      return;
    }
    case Kind::Replicate: {
      Val v = arg(0);
      if (v.expr && o.node->k > 1) materialise(v, "replicated");
      out = map_affine(std::move(v), replicate_map(o.node->k, arg(0).shape()), "replicated");
      if (out.expr) out = finish_expr(std::move(out), id);
      return;
    }
    case Kind::Transpose: {
      out = map_affine(arg(0), transpose_map(o.node->shape_arg, arg(0).shape()), "transposed");
      if (out.expr) out = finish_expr(std::move(out), id);
      return;
    }
    case Kind::Reshape: {
      Val v = arg(0);
      auto reshape_view = [&](const View &x) {
        if (is_broadcast(x)) return View{x.buf, x.offset, shape, Strides(shape.size(), 0)};
        return canonical_view(x.buf, shape, x.offset);
      };
      if (v.expr) {
        bool agnostic = true;  // elementwise over contiguous or broadcast leaves: any shape
        for (auto &l : v.prog.leaves) agnostic = agnostic && (is_canonical(l) || is_broadcast(l));
        if (agnostic) {
          for (auto &l : v.prog.leaves) l = reshape_view(l);
          v.prog.shape = shape;
          out = finish_expr(std::move(v), id);
          return;
        }
      }
      View x = v.expr ? materialise(v, "reshaped") : v.view;
      if (!is_canonical(x) && !is_broadcast(x)) x = contiguous(v, "reshaped (copy)");
      out.view = reshape_view(x);
      return;
    }
    case Kind::Index: {
      const Val &t = arg(0);
      const Shape &ts = t.shape();
      size_t n = o.args.size() - 1;
      bool all_const = true;
      for (size_t k = 1; k <= n; ++k) all_const = all_const && op(o.args[k]).kind == Kind::Const;
      if (all_const) {
        Affine f;
        f.out = shape;
        f.A.assign(ts.size(), std::vector<int64_t>(shape.size(), 0));
        f.c.assign(ts.size(), 0);
        bool inb = true;
        for (size_t k = 0; k < n; ++k) {
          f.c[k] = op(o.args[k + 1]).value->i.at(0);
          inb = inb && f.c[k] >= 0 && f.c[k] < ts[k];
        }
        for (size_t r = 0; r < shape.size(); ++r) f.A[n + r][r] = 1;
        if (!inb) out.view = zeros(dt, shape);
        else {
          out = map_affine(t, f, "indexed");
          if (out.expr) out = finish_expr(std::move(out), id);
        }
        return;
      }
      GatherK k;
      k.src = slice_contiguous(t, n, "indexed (copy)");
      k.out_shape = shape;
      k.m1 = 0;
      k.m2 = n;
      k.inner = ir::numel(shape);
      VmCompiler vc(*this, {});
      for (size_t q = 1; q <= n; ++q) {
        View c = materialise(val_mut(o.args[q]), "index component");
        vc.prog.caps.push_back(c);
        vc.prog.cap_dt.push_back(DT::Int);
        vc.prog.results.push_back(vc.load(static_cast<int>(q - 1), {}));
      }
      k.ix = std::move(vc.prog);
      k.out = new_buf(dt, ir::numel(shape));
      out.view = canonical_view(k.out, shape);
      emit(std::move(k), "index");
      return;
    }
    case Kind::Gather:
    case Kind::Scatter: {
      bool is_gather = o.kind == Kind::Gather;
      const Node &n = *o.node;
      const Val &t = arg(0);
      size_t m1 = n.binders.size(), m2 = n.ix.size();
      if (ir::numel(shape) == 0) {
        out.view = zeros(dt, shape);
        return;
      }
      if (is_gather) {
        std::vector<AffForm> forms;
        for (auto &c : n.ix)
          if (auto f = affine(c, n.binders, o)) forms.push_back(*f);
        if (forms.size() == m2) {
          const Shape &ts = t.shape();
          bool inb = true;
          for (size_t k = 0; k < m2; ++k) {
            int64_t lo = forms[k].c, hi = forms[k].c;
            for (size_t b = 0; b < m1; ++b) {
              int64_t span = forms[k].coef[b] * (shape[b] - 1);
              (span < 0 ? lo : hi) += span;
            }
            inb = inb && lo >= 0 && hi < ts[k];
          }
          if (inb) {  // a strided view: transposes, diagonals, slices, replicates
            Affine f;
            f.out = shape;
            f.A.assign(ts.size(), std::vector<int64_t>(shape.size(), 0));
            f.c.assign(ts.size(), 0);
            for (size_t k = 0; k < m2; ++k) {
              f.c[k] = forms[k].c;
              for (size_t b = 0; b < m1; ++b) f.A[k][b] = forms[k].coef[b];
            }
            for (size_t r = 0; r + m2 < ts.size(); ++r) f.A[m2 + r][m1 + r] = 1;
            out = map_affine(t, f, "gathered");
            if (out.expr) out = finish_expr(std::move(out), id);
            return;
          }
        }
      }
      if (!is_gather && m1 == m2) {
        // scatter (\is. [is_{π0}, .., is_{πm}]) is a transpose (the gather transpose of a
        // transpose, common in AD output): no collisions, nothing out of bounds.
        Shape perm;
        for (auto &c : n.ix) {
          auto f = affine(c, n.binders, o);
          if (!f || f->c != 0) break;
          int one = -1;
          bool unit = true;
          for (size_t b = 0; b < m1; ++b) {
            if (f->coef[b] == 1 && one < 0) one = static_cast<int>(b);
            else if (f->coef[b] != 0) unit = false;
          }
          if (!unit || one < 0 || std::find(perm.begin(), perm.end(), one) != perm.end() ||
              t.shape()[static_cast<size_t>(one)] != shape[perm.size()])
            break;
          perm.push_back(one);
        }
        if (perm.size() == m2) {
          out = map_affine(t, transpose_map(perm, t.shape()), "scattered");
          if (out.expr) out = finish_expr(std::move(out), id);
          return;
        }
      }
      GatherK k;
      k.scatter = !is_gather;
      k.src = slice_contiguous(t, is_gather ? m2 : m1, is_gather ? "gathered (copy)" : "scattered (copy)");
      k.out_shape = shape;
      k.m1 = m1;
      k.m2 = m2;
      k.inner = ir::numel(Shape(shape.begin() + static_cast<long>(is_gather ? m1 : m2), shape.end()));
      VmCompiler vc(*this, o.caps);
      vc.prog.nbind = static_cast<int>(m1);
      vc.prog.nregs = static_cast<int>(m1);
      std::vector<VmCompiler::LEnv> frames(m1);
      const VmCompiler::LEnv *env = nullptr;
      for (size_t b = 0; b < m1; ++b) {
        frames[b].name = n.binders[b];
        frames[b].reg = static_cast<int>(b);
        frames[b].next = env;
        env = &frames[b];
      }
      for (auto &c : n.ix) vc.prog.results.push_back(vc.at(c, {}, env));
      k.ix = std::move(vc.prog);
      k.out = new_buf(dt, ir::numel(shape));
      out.view = canonical_view(k.out, shape);
      emit(std::move(k), is_gather ? "gather" : "scatter");
      return;
    }
    case Kind::SumOuter: {
      const Val &t = arg(0);
      if (opt_.gemm && try_gemm(t, shape, out)) return;
      int b = new_buf(dt, ir::numel(shape));
      MapProg x = prog_of(t);
      // Row order reads the summed axis innermost: better when that makes more leaves
      // contiguous, and for full sums (column order would add one element at a time).
      Shape rot(x.shape.begin() + 1, x.shape.end());
      rot.push_back(x.shape[0]);
      auto rotate = [&](const View &v) {
        View r{v.buf, v.offset, rot, Strides(v.strides.begin() + 1, v.strides.end())};
        r.strides.push_back(v.strides[0]);
        return r;
      };
      int col = 0, row = 0;
      for (auto &l : x.leaves)
        if (!is_broadcast(l)) {
          col += is_canonical(l);
          row += is_canonical(rotate(l));
        }
      bool rows = ir::numel(shape) == 1 || row > col;
      if (rows) {
        for (auto &l : x.leaves) l = rotate(l);
        x.shape = rot;
      }
      emit(ReduceK{std::move(x), b, rows}, "sumOuter");
      out.view = canonical_view(b, shape);
      return;
    }
    case Kind::FromList: {
      int b = new_buf(dt, ir::numel(shape));
      int64_t inner = ir::numel(op(o.args[0]).type.shape);
      for (size_t q = 0; q < o.args.size(); ++q)
        emit(MapK{prog_of(arg(q)), b, static_cast<int64_t>(q) * inner}, "array part " + std::to_string(q));
      out.view = canonical_view(b, shape);
      return;
    }
    default: fail(std::string("unexpected node kind in lowering"));
  }
}

}  // namespace rml::exec::detail
