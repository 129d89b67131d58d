// Values of the plan: affine index maps on strided views (a transpose, a replicate, a
// constant index cost nothing until a kernel reads them), buffers and constants, and the
// pending fused elementwise programs (MapProg) that a value stays until it is used more
// than once or read by a non-elementwise consumer, when one map kernel materialises it.
#include "array/exec/plan_internal.hpp"

namespace rml::exec::detail {

View apply_affine(const View &v, const Affine &f) {
  View r;
  r.buf = v.buf;
  r.offset = v.offset;
  r.shape = f.out;
  r.strides.assign(f.out.size(), 0);
  for (size_t d = 0; d < v.strides.size(); ++d) {
    r.offset += f.c[d] * v.strides[d];
    for (size_t e = 0; e < f.out.size(); ++e) r.strides[e] += f.A[d][e] * v.strides[d];
  }
  return r;
}

Affine transpose_map(const Shape &perm, const Shape &in) {
  Affine f;
  size_t r = in.size(), m = perm.size();
  f.A.assign(r, std::vector<int64_t>(r, 0));
  f.c.assign(r, 0);
  f.out.resize(r);
  for (size_t p = 0; p < r; ++p) {
    size_t src = p < m ? static_cast<size_t>(perm[p]) : p;
    f.out[p] = in[src];
    f.A[src][p] = 1;
  }
  return f;
}

Affine replicate_map(int64_t k, const Shape &in) {
  Affine f;
  f.out = {k};
  f.out.insert(f.out.end(), in.begin(), in.end());
  f.A.assign(in.size(), std::vector<int64_t>(f.out.size(), 0));
  f.c.assign(in.size(), 0);
  for (size_t d = 0; d < in.size(); ++d) f.A[d][d + 1] = 1;
  return f;
}

// ---- buffers and values ----
int Lowerer::new_buf(DT dt, int64_t size, Buffer::Storage s, int index) {
  Buffer b;
  b.dt = dt;
  b.size = size;
  b.storage = s;
  b.index = index;
  plan.bufs.push_back(b);
  return static_cast<int>(plan.bufs.size()) - 1;
}

int Lowerer::const_buf(const std::shared_ptr<const ir::Tensor> &t) {
  if (auto it = const_buf_.find(t.get()); it != const_buf_.end()) return it->second;
  plan.consts.push_back(t);
  int b = new_buf(dt_of(t->elem), static_cast<int64_t>(t->numel()), Buffer::Storage::Const,
                  static_cast<int>(plan.consts.size()) - 1);
  const_buf_.emplace(t.get(), b);
  return b;
}

View Lowerer::zeros(DT dt, const Shape &s) {
  int &b = dt == DT::Real ? zero_r_ : zero_i_;
  if (b < 0) b = const_buf(std::make_shared<const ir::Tensor>(dt == DT::Real ? ir::Tensor::real(0) : ir::Tensor::integer(0)));
  return View{b, 0, s, Strides(s.size(), 0)};
}

MapProg Lowerer::leaf_prog(const View &v, DT dt) {
  MapProg p;
  p.shape = v.shape;
  p.leaves = {v};
  p.leaf_dt = {dt};
  MInst l;
  l.op = MInst::Leaf;
  l.dt = dt;
  l.a = 0;
  p.code = {l};
  return p;
}

// Appends y's code to x (leaves deduplicated); returns the index of y's result in x.
int Lowerer::append(MapProg &x, const MapProg &y) {
  std::vector<int> inst_map(y.code.size());
  for (size_t q = 0; q < y.code.size(); ++q) {
    MInst in = y.code[q];
    if (in.op == MInst::Leaf) {
      const View &v = y.leaves[static_cast<size_t>(in.a)];
      int leaf = -1;
      for (size_t l = 0; l < x.leaves.size(); ++l)
        if (x.leaves[l] == v) leaf = static_cast<int>(l);
      if (leaf < 0) {
        x.leaves.push_back(v);
        x.leaf_dt.push_back(in.dt);
        leaf = static_cast<int>(x.leaves.size()) - 1;
      }
      int found = -1;
      for (size_t k = 0; k < x.code.size(); ++k)
        if (x.code[k].op == MInst::Leaf && x.code[k].a == leaf) found = static_cast<int>(k);
      if (found >= 0) {
        inst_map[q] = found;
        continue;
      }
      in.a = leaf;
    } else {
      if (in.a >= 0) in.a = inst_map[static_cast<size_t>(in.a)];
      if (in.b >= 0) in.b = inst_map[static_cast<size_t>(in.b)];
      if (in.c >= 0) in.c = inst_map[static_cast<size_t>(in.c)];
    }
    x.code.push_back(in);
    inst_map[q] = static_cast<int>(x.code.size()) - 1;
  }
  return inst_map.back();
}

View Lowerer::materialise(Val &v, const std::string &note) {
  if (!v.expr) return v.view;
  int b = new_buf(v.prog.dt(), ir::numel(v.prog.shape));
  View out = canonical_view(b, v.prog.shape);
  emit(MapK{std::move(v.prog), b, 0}, note);
  v.expr = false;
  v.view = out;
  v.prog = MapProg{};
  return out;
}

View Lowerer::contiguous(const Val &v, const std::string &note) {
  if (!v.expr && is_canonical(v.view)) return v.view;
  Val copy = v;
  if (!copy.expr) {
    copy.prog = leaf_prog(v.view, dt_of(v.elem));
    copy.expr = true;
  }
  return materialise(copy, note);
}

// A view whose dims from `lead` on are contiguous (whole trailing slices can be copied).
View Lowerer::slice_contiguous(const Val &v, size_t lead, const std::string &note) {
  if (!v.expr) {
    Shape rest(v.view.shape.begin() + static_cast<long>(lead), v.view.shape.end());
    Strides rm = row_major(rest);
    bool ok = true;
    for (size_t d = 0; d < rest.size(); ++d) ok = ok && (rest[d] == 1 || v.view.strides[lead + d] == rm[d]);
    if (ok || ir::numel(v.view.shape) == 0) return v.view;
  }
  return contiguous(v, note);
}

// Applies an affine index map to a value: a view stays a view; a pending program has
// the map pushed into its leaves unless that would recompute elements.
Val Lowerer::map_affine(Val v, const Affine &f, const std::string &note) {
  if (v.expr && ir::numel(f.out) > ir::numel(v.prog.shape)) materialise(v, note);
  if (!v.expr) {
    v.view = apply_affine(v.view, f);
    return v;
  }
  for (auto &l : v.prog.leaves) l = apply_affine(l, f);
  v.prog.shape = f.out;
  return v;
}

Val Lowerer::finish_expr(Val v, int id) {
  constexpr int kMaxFused = 48;  // keeps register blocks in cache and compile linear
  if (!opt_.fuse || uses_[static_cast<size_t>(id)] > 1 || v.prog.ops() > kMaxFused)
    materialise(v, opt_.fuse ? "shared" : "unfused");
  return v;
}

}  // namespace rml::exec::detail
