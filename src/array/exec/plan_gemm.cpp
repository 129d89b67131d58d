// GEMM matching: a sumOuter of the product of two strided views that contracts like a
// matrix product becomes one Eigen GEMM kernel (GemmK), possibly looped over batch dims,
// instead of a fused reduction.
#include <algorithm>

#include "array/exec/plan_internal.hpp"

namespace rml::exec::detail {

// sumOuter (x * y) with x, y views over [K] ++ R: dims of R that only x strides are M
// (rows of A), those only y strides are N (columns of B), those both stride are batch
// dims (a loop), and dims neither strides are broadcasts of the result (stride 0 in the
// result view). Runs of M (N) dims that are affine in x (y) merge into one dimension.
bool Lowerer::try_gemm(const Val &t, const Shape &out_shape, Val &result) {
  if (!t.expr || t.elem != Elem::Real) return false;
  const MapProg &p = t.prog;
  const MInst &root = p.code.back();
  if (root.op != MInst::Bin || root.bin != BinOp::Mul) return false;
  if (p.code[static_cast<size_t>(root.a)].op != MInst::Leaf || p.code[static_cast<size_t>(root.b)].op != MInst::Leaf)
    return false;
  if (p.ops() != 1) return false;
  const View &X = p.leaves[static_cast<size_t>(p.code[static_cast<size_t>(root.a)].a)];
  const View &Y = p.leaves[static_cast<size_t>(p.code[static_cast<size_t>(root.b)].a)];
  const Shape &S = p.shape;
  const size_t P = S.size();
  const int64_t K = S[0];
  if (K > 1 && (X.strides[0] == 0 || Y.strides[0] == 0)) return false;
  enum Cls { M, N, B, Z };
  std::vector<Cls> cls(P, Z);
  for (size_t d = 1; d < P; ++d) {
    bool sx = X.strides[d] != 0, sy = Y.strides[d] != 0;
    cls[d] = S[d] == 1 ? Z : sx && !sy ? M : !sx && sy ? N : sx && sy ? B : Z;
  }
  auto runs = [&](Cls c, const Strides &s) {
    std::vector<std::vector<size_t>> rs;
    for (size_t d = 1; d < P; ++d) {
      if (cls[d] != c) continue;
      if (!rs.empty() && s[rs.back().back()] == s[d] * S[d]) rs.back().push_back(d);
      else rs.push_back({d});
    }
    std::vector<size_t> best;
    int64_t best_n = 0;
    for (auto &r : rs) {
      int64_t n = 1;
      for (auto d : r) n *= S[d];
      if (n > best_n) best = r, best_n = n;
    }
    return best;
  };
  std::vector<size_t> mrun = runs(M, X.strides), nrun = runs(N, Y.strides);
  std::vector<size_t> loops;
  for (size_t d = 1; d < P; ++d) {
    bool in_run = std::find(mrun.begin(), mrun.end(), d) != mrun.end() || std::find(nrun.begin(), nrun.end(), d) != nrun.end();
    if (cls[d] != Z && !in_run) loops.push_back(d);
  }
  int64_t Mt = 1, Nt = 1, L = 1;
  for (auto d : mrun) Mt *= S[d];
  for (auto d : nrun) Nt *= S[d];
  for (auto d : loops) L *= S[d];
  int64_t W = Mt * Nt * K;
  // Small or mostly-batched contractions are cheaper (and exact) as fused reductions.
  if (W < 64 || (L > 1 && W < 512)) return false;
  // C's layout: batch dims, then the M and N runs in the order they appear in the output.
  bool m_first = !mrun.empty() && (nrun.empty() || mrun[0] < nrun[0]);
  std::vector<size_t> lay = loops;
  const auto &first = m_first ? mrun : nrun, &second = m_first ? nrun : mrun;
  lay.insert(lay.end(), first.begin(), first.end());
  lay.insert(lay.end(), second.begin(), second.end());
  std::vector<int64_t> cstride(P, 0);
  int64_t acc = 1;
  for (size_t q = lay.size(); q-- > 0;) {
    cstride[lay[q]] = acc;
    acc *= S[lay[q]];
  }
  GemmK g;
  g.a = X.buf;
  g.b = Y.buf;
  g.a_off = X.offset;
  g.b_off = Y.offset;
  g.M = Mt;
  g.N = Nt;
  g.K = K;
  g.a_rs = mrun.empty() ? 0 : X.strides[mrun.back()];
  g.a_cs = X.strides[0];
  g.b_rs = Y.strides[0];
  g.b_cs = nrun.empty() ? 0 : Y.strides[nrun.back()];
  g.c_row = m_first || mrun.empty();
  for (auto d : loops) {
    g.loop.push_back(S[d]);
    g.la.push_back(X.strides[d]);
    g.lb.push_back(Y.strides[d]);
    g.lc.push_back(cstride[d]);
  }
  g.c = new_buf(DT::Real, acc);
  result.expr = false;
  result.view = View{g.c, 0, out_shape, Strides(out_shape.size(), 0)};
  for (size_t d = 1; d < P; ++d) result.view.strides[d - 1] = cls[d] == Z ? 0 : cstride[d];
  emit(std::move(g), "sumOuter of a product");
  return true;
}

}  // namespace rml::exec::detail
