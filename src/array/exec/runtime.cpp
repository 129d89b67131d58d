// Executing a kernel plan (plan.hpp) in float or double. Reals are stored and computed in
// the executable's precision (conversion only at the boundary: arguments, constants,
// results); ints and bools are int64_t. Elementwise semantics are those of the reference
// evaluator (src/array/eval.cpp): wrapping int arithmetic, x div 0 = x mod 0 = 0,
// saturating floor/int, NaN-propagating max/min. Gathers and scatters whose index function
// reads only constants get a table of offsets at compile time (GatherK::table) and then
// run no index code. One file (~840 lines) on purpose: the kernels share the per-element
// loops and the register machine, all instantiated for float and double here.
#include <Eigen/Core>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <limits>
#include <new>
#include <type_traits>

#include "array/exec/exec.hpp"
#include "array/exec/plan.hpp"
#include "array/exec/vector_math.hpp"
#include "ops/scalar_ops.hpp"

namespace rml::exec {

namespace detail {
namespace {

using ir::BinOp;
using ir::UnOp;

// ---- scalar semantics: the operator table's (ops/scalar_ops.hpp), in T = float or double ----
using ops::int_add;
using ops::int_sub;
using ops::int_mul;
using ops::compare;
inline int64_t to_int(UnOp op, double v) { return ops::real_to_int(op, v); }
template <class R>
inline R un_r(UnOp op, R x) {
  return vmath::vectorised(op) ? vmath::apply(op, x) : ops::real_unary(op, x);
}
inline int64_t un_i(UnOp op, int64_t x) { return ops::int_unary(op, x); }
template <class R>
inline R bin_r(BinOp op, R x, R y) {
  return ops::real_binary(op, x, y);
}
template <class A>
inline int64_t cmp(BinOp op, A x, A y) {
  return compare(op, x, y);
}
inline int64_t bin_i(BinOp op, int64_t x, int64_t y) { return ops::int_binary(op, x, y); }

// ---- strided loads ----
constexpr int64_t kBlock = 256;

// dst[0..n) = view elements at linear indices start..start+n of view.shape.
template <class E>
void load_view(const E *base, const View &v, int64_t start, int64_t n, E *dst) {
  if (n <= 0) return;
  const size_t r = v.shape.size();
  if (r == 0) {
    dst[0] = base[v.offset];
    return;
  }
  int64_t idx[16];
  std::vector<int64_t> big;
  int64_t *ix = idx;
  if (r > 16) {
    big.resize(r);
    ix = big.data();
  }
  int64_t off = v.offset, rem = start;
  for (size_t d = r; d-- > 0;) {
    ix[d] = rem % v.shape[d];
    rem /= v.shape[d];
    off += ix[d] * v.strides[d];
  }
  const int64_t inner = v.shape[r - 1], s = v.strides[r - 1];
  int64_t done = 0;
  while (done < n) {
    int64_t len = std::min(n - done, inner - ix[r - 1]);
    E *o = dst + done;
    if (s == 1) std::memcpy(o, base + off, static_cast<size_t>(len) * sizeof(E));
    else if (s == 0) std::fill(o, o + len, base[off]);
    else
      for (int64_t k = 0; k < len; ++k) o[k] = base[off + k * s];
    done += len;
    if (done >= n) break;
    off += len * s;
    ix[r - 1] += len;
    if (ix[r - 1] == inner) {
      off -= inner * s;
      ix[r - 1] = 0;
      for (size_t d = r - 1; d-- > 0;) {
        ++ix[d];
        off += v.strides[d];
        if (ix[d] < v.shape[d]) break;
        off -= v.shape[d] * v.strides[d];
        ix[d] = 0;
      }
    }
  }
}

// ---- fused elementwise programs, evaluated block by block ----
// Scratch shared by all map kernels of an executable (they run one after the other):
// one block of kBlock 8-byte elements per instruction.
struct MapScratch {
  std::vector<std::byte> arena;
  std::vector<const void *> cur;
  std::vector<uint8_t> kind;
  void reserve(size_t insts) {
    if (cur.size() >= insts) return;
    arena.resize(insts * kBlock * 8);
    cur.resize(insts);
    kind.resize(insts);
  }
};

template <class T>
class MapEval {
 public:
  MapEval(const MapProg &p, void *const *ptr, MapScratch &s) : p_(p), ptr_(ptr), s_(s) {
    const size_t n = p.code.size();
    s.reserve(n);
    for (size_t q = 0; q < n; ++q) {
      const MInst &in = p.code[q];
      s_.kind[q] = 0;
      if (in.op != MInst::Leaf) continue;
      const View &v = p.leaves[static_cast<size_t>(in.a)];
      if (is_canonical(v)) s_.kind[q] = 1;
      else if (is_broadcast(v)) {
        s_.kind[q] = 2;  // filled once per run of the kernel
        if (ir::numel(p.shape) > 0) {
          if (in.dt == DT::Real) std::fill_n(rblock(q), kBlock, static_cast<const T *>(ptr[v.buf])[v.offset]);
          else std::fill_n(iblock(q), kBlock, static_cast<const int64_t *>(ptr[v.buf])[v.offset]);
        }
      } else {
        s_.kind[q] = 3;
      }
    }
  }

  // Evaluates linear indices [start, start+n), n ≤ kBlock; the result goes to out (of the
  // program's result type) if given, else stays in the result's block (returned).
  const void *eval(int64_t start, int64_t n, void *out) {
    const size_t last = p_.code.size() - 1;
    auto &cur = s_.cur;
    for (size_t q = 0; q <= last; ++q) {
      const MInst &in = p_.code[q];
      const bool real = in.dt == DT::Real;
      void *dst = q == last && out ? out : real ? static_cast<void *>(rblock(q)) : static_cast<void *>(iblock(q));
      switch (in.op) {
        case MInst::Leaf: {
          const View &v = p_.leaves[static_cast<size_t>(in.a)];
          const void *base = ptr_[v.buf];
          if (s_.kind[q] == 1) {
            const void *src = real ? static_cast<const void *>(static_cast<const T *>(base) + v.offset + start)
                                   : static_cast<const void *>(static_cast<const int64_t *>(base) + v.offset + start);
            if (q == last && out) std::memcpy(out, src, static_cast<size_t>(n) * (real ? sizeof(T) : sizeof(int64_t)));
            else {
              cur[q] = src;
              continue;
            }
          } else if (s_.kind[q] == 2 && !(q == last && out)) {
            cur[q] = real ? static_cast<const void *>(rblock(q)) : static_cast<const void *>(iblock(q));
            continue;
          } else if (real) {
            load_view(static_cast<const T *>(base), v, start, n, static_cast<T *>(dst));
          } else {
            load_view(static_cast<const int64_t *>(base), v, start, n, static_cast<int64_t *>(dst));
          }
          break;
        }
        case MInst::Un: unary(in, n, cur[static_cast<size_t>(in.a)], dst); break;
        case MInst::Bin: binary(in, n, cur[static_cast<size_t>(in.a)], cur[static_cast<size_t>(in.b)], dst); break;
        case MInst::Sel: {
          const int64_t *c = static_cast<const int64_t *>(cur[static_cast<size_t>(in.a)]);
          if (real) select(n, c, static_cast<const T *>(cur[static_cast<size_t>(in.b)]),
                           static_cast<const T *>(cur[static_cast<size_t>(in.c)]), static_cast<T *>(dst));
          else select(n, c, static_cast<const int64_t *>(cur[static_cast<size_t>(in.b)]),
                      static_cast<const int64_t *>(cur[static_cast<size_t>(in.c)]), static_cast<int64_t *>(dst));
          break;
        }
      }
      cur[q] = dst;
    }
    return cur[last];
  }

 private:
  const MapProg &p_;
  void *const *ptr_;
  MapScratch &s_;

  T *rblock(size_t q) { return reinterpret_cast<T *>(s_.arena.data() + q * kBlock * 8); }
  int64_t *iblock(size_t q) { return reinterpret_cast<int64_t *>(s_.arena.data() + q * kBlock * 8); }

  template <class E>
  static void select(int64_t n, const int64_t *c, const E *a, const E *b, E *o) {
    for (int64_t k = 0; k < n; ++k) o[k] = c[k] ? a[k] : b[k];
  }

  // One loop per operator (the switch is outside), so the compiler vectorises the
  // arithmetic ones.
  static void unary(const MInst &in, int64_t n, const void *a, void *o) {
    if (in.in == DT::Real) {
      const T *x = static_cast<const T *>(a);
      if (ops::row(in.un).typing == ops::Typing::RealToInt) {  // floor, int
        int64_t *y = static_cast<int64_t *>(o);
        if (in.un == UnOp::Floor)
          for (int64_t k = 0; k < n; ++k) y[k] = to_int(UnOp::Floor, static_cast<double>(x[k]));
        else
          for (int64_t k = 0; k < n; ++k) y[k] = to_int(UnOp::ToInt, static_cast<double>(x[k]));
        return;
      }
      T *y = static_cast<T *>(o);
      // The operator is a constant in each loop: the table's switch folds away.
      auto each = [&](auto op) {
        for (int64_t k = 0; k < n; ++k) y[k] = ops::real_unary(decltype(op)::value, x[k]);
      };
      switch (in.un) {
        case UnOp::Neg: return each(std::integral_constant<UnOp, UnOp::Neg>{});
        case UnOp::Abs: return each(std::integral_constant<UnOp, UnOp::Abs>{});
        case UnOp::Sqrt: return each(std::integral_constant<UnOp, UnOp::Sqrt>{});
        case UnOp::Exp:
        case UnOp::Log:
        case UnOp::Tanh: return vmath::apply(in.un, x, y, n);  // SLEEF, 4 or 8 lanes
        default:
          for (int64_t k = 0; k < n; ++k) y[k] = un_r(in.un, x[k]);
          return;
      }
    }
    const int64_t *x = static_cast<const int64_t *>(a);
    if (in.un == UnOp::ToReal) {
      T *y = static_cast<T *>(o);
      for (int64_t k = 0; k < n; ++k) y[k] = static_cast<T>(x[k]);
      return;
    }
    int64_t *y = static_cast<int64_t *>(o);
    switch (in.un) {
      case UnOp::Neg:
        for (int64_t k = 0; k < n; ++k) y[k] = int_sub(0, x[k]);
        return;
      case UnOp::Not:
        for (int64_t k = 0; k < n; ++k) y[k] = !x[k];
        return;
      default:
        for (int64_t k = 0; k < n; ++k) y[k] = un_i(in.un, x[k]);
        return;
    }
  }

  static void binary(const MInst &in, int64_t n, const void *a, const void *b, void *o) {
    if (in.in == DT::Real) {
      const T *x = static_cast<const T *>(a), *y = static_cast<const T *>(b);
      if (in.dt == DT::Int) {
        int64_t *z = static_cast<int64_t *>(o);
        switch (in.bin) {
          case BinOp::Eq:
            for (int64_t k = 0; k < n; ++k) z[k] = x[k] == y[k];
            return;
          case BinOp::Lt:
            for (int64_t k = 0; k < n; ++k) z[k] = x[k] < y[k];
            return;
          default:
            for (int64_t k = 0; k < n; ++k) z[k] = cmp(in.bin, x[k], y[k]);
            return;
        }
      }
      T *z = static_cast<T *>(o);
      switch (in.bin) {
        case BinOp::Add:
          for (int64_t k = 0; k < n; ++k) z[k] = x[k] + y[k];
          return;
        case BinOp::Sub:
          for (int64_t k = 0; k < n; ++k) z[k] = x[k] - y[k];
          return;
        case BinOp::Mul:
          for (int64_t k = 0; k < n; ++k) z[k] = x[k] * y[k];
          return;
        case BinOp::Div:
          for (int64_t k = 0; k < n; ++k) z[k] = x[k] / y[k];
          return;
        default:
          for (int64_t k = 0; k < n; ++k) z[k] = bin_r(in.bin, x[k], y[k]);
          return;
      }
    }
    const int64_t *x = static_cast<const int64_t *>(a), *y = static_cast<const int64_t *>(b);
    int64_t *z = static_cast<int64_t *>(o);
    switch (in.bin) {
      case BinOp::Add:
        for (int64_t k = 0; k < n; ++k) z[k] = int_add(x[k], y[k]);
        return;
      case BinOp::Sub:
        for (int64_t k = 0; k < n; ++k) z[k] = int_sub(x[k], y[k]);
        return;
      case BinOp::Mul:
        for (int64_t k = 0; k < n; ++k) z[k] = int_mul(x[k], y[k]);
        return;
      default:
        for (int64_t k = 0; k < n; ++k) z[k] = bin_i(in.bin, x[k], y[k]);
        return;
    }
  }
};

// ---- the register machine of index functions ----
template <class T>
void vm_exec(const VmProg &p, Reg *R, void *const *ptr, int begin, int end) {
  for (int pc = begin; pc < end; ++pc) {
    const VInst &in = p.code[static_cast<size_t>(pc)];
    switch (in.op) {
      case VInst::ConstI: R[in.dst].i = in.imm; break;
      case VInst::ConstR: R[in.dst].r = in.dimm; break;
      case VInst::Load: {
        const View &v = p.caps[static_cast<size_t>(in.a)];
        int64_t off = v.offset;
        bool ok = true;
        for (int q = 0; q < in.npool; ++q) {
          int64_t x = R[p.pool[static_cast<size_t>(in.pool + q)]].i;
          ok = ok && x >= 0 && x < v.shape[static_cast<size_t>(q)];
          if (ok) off += x * v.strides[static_cast<size_t>(q)];
        }
        const void *base = ptr[v.buf];
        if (in.dt == DT::Real) R[in.dst].r = ok ? static_cast<double>(static_cast<const T *>(base)[off]) : 0.0;
        else R[in.dst].i = ok ? static_cast<const int64_t *>(base)[off] : 0;
        break;
      }
      case VInst::Un:
        if (in.in == DT::Real) {
          double x = R[in.a].r;
          if (ops::row(in.un).typing == ops::Typing::RealToInt) R[in.dst].i = to_int(in.un, x);  // floor, int
          else R[in.dst].r = un_r(in.un, x);
        } else if (in.un == UnOp::ToReal) {
          R[in.dst].r = static_cast<double>(R[in.a].i);
        } else {
          R[in.dst].i = un_i(in.un, R[in.a].i);
        }
        break;
      case VInst::Bin:
        if (in.in == DT::Real) {
          if (in.dt == DT::Int) R[in.dst].i = cmp(in.bin, R[in.a].r, R[in.b].r);
          else R[in.dst].r = bin_r(in.bin, R[in.a].r, R[in.b].r);
        } else {
          R[in.dst].i = bin_i(in.bin, R[in.a].i, R[in.b].i);
        }
        break;
      case VInst::Sel: R[in.dst] = R[in.a].i ? R[in.b] : R[in.c]; break;
      case VInst::InB: R[in.dst].i = R[in.a].i >= 0 && R[in.a].i < in.imm; break;
      case VInst::Loop: {
        const int64_t *dims = p.pool64.data() + in.pool;
        int64_t total = 1;
        for (int q = 0; q < in.npool; ++q) total *= dims[q];
        Reg acc;
        if (in.dt == DT::Real) acc.r = 0.0;
        else acc.i = 0;
        for (int q = 0; q < in.npool; ++q) R[in.a + q].i = 0;
        for (int64_t it = 0; it < total; ++it) {
          vm_exec<T>(p, R, ptr, pc + 1, pc + 1 + in.b);
          if (in.dt == DT::Real) acc.r += R[in.c].r;
          else acc.i = int_add(acc.i, R[in.c].i);
          for (int q = in.npool; q-- > 0;) {  // next index, row-major
            if (++R[in.a + q].i < dims[q]) break;
            R[in.a + q].i = 0;
          }
        }
        R[in.dst] = acc;
        pc += in.b;
        break;
      }
    }
  }
}

// ---- GEMM through Eigen ----
enum class Lay : uint8_t { Row, Col, Copy };
// How to map an r×c matrix with element (i,j) at i*rs + j*cs: one unit stride is needed.
// Negative strides (reversing gathers) are copied: Eigen's kernels assume positive ones.
Lay layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if ((cs == 1 || cols == 1) && (rows <= 1 || rs > 0)) return Lay::Row;
  if ((rs == 1 || rows == 1) && (cols <= 1 || cs > 0)) return Lay::Col;
  return Lay::Copy;
}
int64_t lead(Lay l, int64_t rows, int64_t cols, int64_t rs, int64_t cs) {
  if (l == Lay::Row) return rows <= 1 ? std::max<int64_t>(cols, 1) : rs;
  return cols <= 1 ? std::max<int64_t>(rows, 1) : cs;
}

template <class T, int O>
using CMat = Eigen::Map<const Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, O>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T, int O>
using MMat = Eigen::Map<Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, O>, Eigen::Unaligned, Eigen::OuterStride<>>;

template <class T, int OA, int OB, int OC>
void gemm_call(const T *a, int64_t lda, const T *b, int64_t ldb, T *c, int64_t ldc, int64_t M, int64_t N, int64_t K) {
  CMat<T, OA> A(a, M, K, Eigen::OuterStride<>(lda));
  CMat<T, OB> B(b, K, N, Eigen::OuterStride<>(ldb));
  MMat<T, OC> C(c, M, N, Eigen::OuterStride<>(ldc));
  C.noalias() = A * B;
}
template <class T>
using GemmFn = void (*)(const T *, int64_t, const T *, int64_t, T *, int64_t, int64_t, int64_t, int64_t);

template <class T>
GemmFn<T> gemm_fn(bool a_row, bool b_row, bool c_row) {
  constexpr int R = Eigen::RowMajor, C = Eigen::ColMajor;
  static const GemmFn<T> table[8] = {gemm_call<T, C, C, C>, gemm_call<T, C, C, R>, gemm_call<T, C, R, C>,
                                     gemm_call<T, C, R, R>, gemm_call<T, R, C, C>, gemm_call<T, R, C, R>,
                                     gemm_call<T, R, R, C>, gemm_call<T, R, R, R>};
  return table[(a_row ? 4 : 0) + (b_row ? 2 : 0) + (c_row ? 1 : 0)];
}

template <class T>
struct GemmRun {
  // The problem as handed to Eigen: C col-major. A row-major C = A B is the col-major
  // Cᵀ = Bᵀ Aᵀ over the same memory, and Eigen's GEMM is fastest (up to ~25% on this
  // machine) when all three are col-major, which row-major IR operands then become.
  int a, b;
  int64_t a_off, b_off, M, N, K, a_rs, a_cs, b_rs, b_cs;
  Strides la, lb;
  Strides lc;
  Shape loop;
  Lay lay_a, lay_b;
  int64_t lda, ldb;
  GemmFn<T> fn;
  std::vector<T> sa, sb;  // operands without a unit stride are copied here first

  explicit GemmRun(const GemmK &g) : lc(g.lc), loop(g.loop), c(g.c) {
    if (g.c_row) {
      a = g.b, b = g.a, a_off = g.b_off, b_off = g.a_off, M = g.N, N = g.M, K = g.K;
      a_rs = g.b_cs, a_cs = g.b_rs, b_rs = g.a_cs, b_cs = g.a_rs, la = g.lb, lb = g.la;
    } else {
      a = g.a, b = g.b, a_off = g.a_off, b_off = g.b_off, M = g.M, N = g.N, K = g.K;
      a_rs = g.a_rs, a_cs = g.a_cs, b_rs = g.b_rs, b_cs = g.b_cs, la = g.la, lb = g.lb;
    }
    lay_a = layout(M, K, a_rs, a_cs);
    lay_b = layout(K, N, b_rs, b_cs);
    if (lay_a == Lay::Copy) sa.resize(static_cast<size_t>(M * K));
    if (lay_b == Lay::Copy) sb.resize(static_cast<size_t>(K * N));
    lda = lay_a == Lay::Copy ? std::max<int64_t>(K, 1) : lead(lay_a, M, K, a_rs, a_cs);
    ldb = lay_b == Lay::Copy ? std::max<int64_t>(N, 1) : lead(lay_b, K, N, b_rs, b_cs);
    fn = gemm_fn<T>(lay_a != Lay::Col, lay_b != Lay::Col, false);
  }

  static const T *gathered(const T *p, int64_t rows, int64_t cols, int64_t rs, int64_t cs, std::vector<T> &tmp) {
    for (int64_t i = 0; i < rows; ++i)
      for (int64_t j = 0; j < cols; ++j) tmp[static_cast<size_t>(i * cols + j)] = p[i * rs + j * cs];
    return tmp.data();
  }

  void run(void *const *ptr) {
    const T *A = static_cast<const T *>(ptr[a]), *B = static_cast<const T *>(ptr[b]);
    T *C = static_cast<T *>(ptr[c]);
    const int64_t csize = M * N;
    int64_t calls = 1;
    for (auto d : loop) calls *= d;
    if (csize == 0 || calls == 0) return;
    std::vector<int64_t> ix(loop.size(), 0);
    int64_t oa = a_off, ob = b_off, oc = 0;
    for (int64_t it = 0; it < calls; ++it) {
      T *cp = C + oc;
      if (K == 0) {
        std::fill_n(cp, csize, T(0));  // each call owns a whole block of C (batch dims lead)
      } else {
        const T *ap = lay_a == Lay::Copy ? gathered(A + oa, M, K, a_rs, a_cs, sa) : A + oa;
        const T *bp = lay_b == Lay::Copy ? gathered(B + ob, K, N, b_rs, b_cs, sb) : B + ob;
        fn(ap, lda, bp, ldb, cp, std::max<int64_t>(M, 1), M, N, K);
      }
      for (size_t q = loop.size(); q-- > 0;) {
        ++ix[q];
        oa += la[q];
        ob += lb[q];
        oc += lc[q];
        if (ix[q] < loop[q]) break;
        oa -= loop[q] * la[q];
        ob -= loop[q] * lb[q];
        oc -= loop[q] * lc[q];
        ix[q] = 0;
      }
    }
  }
  int c;
};

template <class E>
inline E add(E a, E b) {
  if constexpr (std::is_same_v<E, int64_t>) return int_add(a, b);
  else return a + b;
}

// ---- gather / scatter / index ----
// The domain of the index function: the first m1 dims of the output (gather) or of the
// source (scatter).
inline Shape gather_domain(const GatherK &k) {
  const Shape &s = k.scatter ? k.src.shape : k.out_shape;
  return Shape(s.begin(), s.begin() + static_cast<long>(k.m1));
}

// Runs k.ix over the domain in row-major order, calling f(lin, src_lead, off) per point:
// lin its number, src_lead the source offset of its slice (scatter), off the offset of the
// element it addresses (gather: in src, src.offset included; scatter: in out, times the
// slice size), -1 out of bounds.
template <class T, class F>
void run_index(const GatherK &k, void *const *ptr, std::vector<Reg> &R, F &&f) {
  const Shape dom = gather_domain(k);
  const int64_t count = ir::numel(dom);
  if (count == 0) return;
  if (R.size() < static_cast<size_t>(k.ix.nregs)) R.resize(static_cast<size_t>(k.ix.nregs));
  const int nc = static_cast<int>(k.ix.code.size());
  Strides out_rm = row_major(Shape(k.out_shape.begin(), k.out_shape.begin() + static_cast<long>(k.scatter ? k.m2 : k.m1)));
  for (size_t b = 0; b < k.m1; ++b) R[b].i = 0;
  int64_t src_lead = k.src.offset;
  for (int64_t lin = 0; lin < count; ++lin) {
    vm_exec<T>(k.ix, R.data(), ptr, 0, nc);
    bool ok = true;
    int64_t off = 0;
    if (k.scatter) {
      for (size_t q = 0; q < k.m2; ++q) {
        int64_t x = R[static_cast<size_t>(k.ix.results[q])].i;
        ok = ok && x >= 0 && x < k.out_shape[q];
        if (ok) off += x * out_rm[q];  // an index out of bounds may be huge: never multiply it
      }
      off *= k.inner;
    } else {
      off = k.src.offset;
      for (size_t q = 0; q < k.m2; ++q) {
        int64_t x = R[static_cast<size_t>(k.ix.results[q])].i;
        ok = ok && x >= 0 && x < k.src.shape[q];
        if (ok) off += x * k.src.strides[q];
      }
    }
    f(lin, src_lead, ok ? off : int64_t{-1});
    for (size_t b = k.m1; b-- > 0;) {  // next domain point (binders in registers 0..m1-1)
      ++R[b].i;
      if (k.scatter) src_lead += k.src.strides[b];
      if (R[b].i < dom[b]) break;
      if (k.scatter) src_lead -= dom[b] * k.src.strides[b];
      R[b].i = 0;
    }
  }
}

template <class E>
inline void add_slice(E *o, const E *s, int64_t n) {
  for (int64_t q = 0; q < n; ++q) o[q] = add(o[q], s[q]);
}

// Whether k.ix reads only constant buffers (so compile can tabulate it).
inline bool data_independent(const GatherK &k, const Plan &p) {
  for (const View &c : k.ix.caps)
    if (p.bufs[static_cast<size_t>(c.buf)].storage != Buffer::Storage::Const) return false;
  return true;
}

template <class T>
std::shared_ptr<const std::vector<int64_t>> index_table(const GatherK &k, void *const *ptr) {
  auto t = std::make_shared<std::vector<int64_t>>(static_cast<size_t>(ir::numel(gather_domain(k))));
  std::vector<Reg> R;
  int64_t *d = t->data();
  run_index<T>(k, ptr, R, [d](int64_t lin, int64_t, int64_t off) { d[lin] = off; });
  return t;
}

template <class T, class E>
void gather_scatter(const GatherK &k, void *const *ptr, std::vector<Reg> &R) {
  E *out = static_cast<E *>(ptr[k.out]);
  const E *src = static_cast<const E *>(ptr[k.src.buf]);
  const int64_t total_out = ir::numel(k.out_shape);
  if (k.scatter) std::fill_n(out, total_out, E(0));
  if (total_out == 0) return;
  const int64_t inner = k.inner;
  if (k.table) {  // precomputed offsets: the same slice copies / adds in the same order
    const int64_t *tab = k.table->data();
    const int64_t count = static_cast<int64_t>(k.table->size());
    if (!k.scatter) {
      if (inner == 1)
        for (int64_t lin = 0; lin < count; ++lin) out[lin] = tab[lin] >= 0 ? src[tab[lin]] : E(0);
      else
        for (int64_t lin = 0; lin < count; ++lin) {
          E *o = out + lin * inner;
          if (tab[lin] >= 0) std::memcpy(o, src + tab[lin], static_cast<size_t>(inner) * sizeof(E));
          else std::fill_n(o, inner, E(0));
        }
      return;
    }
    const Shape dom = gather_domain(k);
    const size_t m1 = k.m1;
    if (m1 == 0) {
      if (tab[0] >= 0) add_slice(out + tab[0], src + k.src.offset, inner);
      return;
    }
    // Source slices in row-major domain order: the innermost binder by its stride, the
    // others by an odometer.
    const int64_t n_in = dom[m1 - 1], s_in = k.src.strides[m1 - 1];
    int64_t ix_buf[16];
    std::vector<int64_t> ix_big;
    int64_t *ix = ix_buf;
    if (m1 > 16) {
      ix_big.resize(m1);
      ix = ix_big.data();
    }
    std::fill_n(ix, m1, int64_t{0});
    int64_t lead = k.src.offset;
    for (int64_t lin = 0; lin < count; lin += n_in) {
      const int64_t *t = tab + lin;
      if (inner == 1) {
        for (int64_t j = 0; j < n_in; ++j)
          if (t[j] >= 0) out[t[j]] = add(out[t[j]], src[lead + j * s_in]);
      } else {
        for (int64_t j = 0; j < n_in; ++j)
          if (t[j] >= 0) add_slice(out + t[j], src + lead + j * s_in, inner);
      }
      for (size_t b = m1 - 1; b-- > 0;) {
        ++ix[b];
        lead += k.src.strides[b];
        if (ix[b] < dom[b]) break;
        lead -= dom[b] * k.src.strides[b];
        ix[b] = 0;
      }
    }
    return;
  }
  run_index<T>(k, ptr, R, [&](int64_t lin, int64_t src_lead, int64_t off) {
    if (k.scatter) {
      if (off >= 0) add_slice(out + off, src + src_lead, inner);
    } else {
      E *o = out + lin * inner;
      if (off >= 0) std::memcpy(o, src + off, static_cast<size_t>(inner) * sizeof(E));
      else std::fill_n(o, inner, E(0));
    }
  });
}

// ---- reductions ----

template <class T, class E>
void reduce(const ReduceK &k, MapEval<T> &ev, void *const *ptr) {
  E *out = static_cast<E *>(ptr[k.out]);
  const Shape &xs = k.prog.shape;
  const int64_t K = k.rows ? xs.back() : xs[0];
  const int64_t R = K == 0 ? ir::numel(xs) : ir::numel(xs) / K;
  std::fill_n(out, K == 0 ? ir::numel(Shape(k.rows ? xs.begin() : xs.begin() + 1, k.rows ? xs.end() - 1 : xs.end())) : R, E(0));
  const int64_t total = ir::numel(xs);
  for (int64_t start = 0; start < total; start += kBlock) {
    const int64_t n = std::min(kBlock, total - start);
    const E *v = static_cast<const E *>(ev.eval(start, n, nullptr));
    if (k.rows) {  // runs of one out[r], j ascending
      int64_t r = start / K, j = start % K, done = 0;
      while (done < n) {
        int64_t len = std::min(n - done, K - j);
        E acc = out[r];
        for (int64_t q = 0; q < len; ++q) acc = add(acc, v[done + q]);
        out[r] = acc;
        done += len;
        ++r;
        j = 0;
      }
    } else {  // row segments of x, each added into out (vectorised over r)
      int64_t r = start % R, done = 0;
      while (done < n) {
        int64_t len = std::min(n - done, R - r);
        E *o = out + r;
        const E *s = v + done;
        for (int64_t q = 0; q < len; ++q) o[q] = add(o[q], s[q]);
        done += len;
        r = 0;
      }
    }
  }
}

// ---- the executable ----
struct AlignedFree {
  void operator()(std::byte *p) const { ::operator delete[](p, std::align_val_t(64)); }
};
using Slot = std::unique_ptr<std::byte[], AlignedFree>;

template <class T>
class ExecImpl final : public Executable {
 public:
  explicit ExecImpl(Plan p) : plan_(std::move(p)) {
    for (auto by : plan_.slot_bytes)
      slots_.emplace_back(static_cast<std::byte *>(::operator new[](static_cast<size_t>(by), std::align_val_t(64))));
    ptr_.assign(plan_.bufs.size(), nullptr);
    const_r_.resize(plan_.consts.size());
    for (size_t b = 0; b < plan_.bufs.size(); ++b) {
      const Buffer &buf = plan_.bufs[b];
      if (buf.storage == Buffer::Storage::Temp) ptr_[b] = slots_[static_cast<size_t>(buf.slot)].get();
      else if (buf.storage == Buffer::Storage::Const) {
        const ir::Tensor &t = *plan_.consts[static_cast<size_t>(buf.index)];
        if (buf.dt == DT::Int) ptr_[b] = const_cast<int64_t *>(t.i.data());
        else if constexpr (std::is_same_v<T, double>) ptr_[b] = const_cast<double *>(t.r.data());
        else {
          auto &c = const_r_[static_cast<size_t>(buf.index)];
          c.assign(t.r.begin(), t.r.end());
          ptr_[b] = c.data();
        }
      }
    }
    conv_.resize(plan_.inputs.size());
    for (auto &k : plan_.kernels) {
      if (auto *g = std::get_if<GemmK>(&k.body)) gemms_.emplace_back(std::make_unique<GemmRun<T>>(*g));
      if (auto *g = std::get_if<GatherK>(&k.body)) {
        const int64_t count = ir::numel(gather_domain(*g));
        if (count > 0 && count <= GatherK::kMaxTable && ir::numel(g->out_shape) > 0 && data_independent(*g, plan_))
          g->table = index_table<T>(*g, ptr_.data());  // constant buffers are bound by now
      }
    }
  }

  std::vector<ir::Tensor> run(const std::vector<ir::Tensor> &args) override {
    bind(args);
    execute(nullptr);
    return results();
  }

  std::vector<double> kernel_times(const std::vector<ir::Tensor> &args) override {
    bind(args);
    std::vector<double> t;
    execute(&t);
    return t;
  }

  void bind(const std::vector<ir::Tensor> &args) {
    if (args.size() != plan_.inputs.size())
      throw ExecError("exec: " + std::to_string(args.size()) + " arguments for " + std::to_string(plan_.inputs.size()) +
                      " inputs");
    for (size_t k = 0; k < args.size(); ++k) {
      const ir::Type &ty = plan_.inputs[k].second;
      if (args[k].elem != ty.elem || args[k].shape != ty.shape ||
          (ty.elem == ir::Elem::Real ? args[k].r.size() : args[k].i.size()) != static_cast<size_t>(ir::numel(ty.shape)))
        throw ExecError("exec: argument '" + plan_.inputs[k].first + "' has type " +
                        ir::Type{args[k].elem, args[k].shape}.str() + ", expected " + ty.str());
      int b = plan_.input_buf[k];
      if (ty.elem != ir::Elem::Real) ptr_[static_cast<size_t>(b)] = const_cast<int64_t *>(args[k].i.data());
      else if constexpr (std::is_same_v<T, double>) ptr_[static_cast<size_t>(b)] = const_cast<double *>(args[k].r.data());
      else {
        conv_[k].assign(args[k].r.begin(), args[k].r.end());
        ptr_[static_cast<size_t>(b)] = conv_[k].data();
      }
    }
  }

  std::vector<ir::Tensor> results() const {
    std::vector<ir::Tensor> out;
    for (auto &o : plan_.outputs) {
      ir::Tensor t = ir::Tensor::zeros(o.elem, o.view.shape);
      const int64_t n = ir::numel(o.view.shape);
      if (o.elem != ir::Elem::Real) load_view(static_cast<const int64_t *>(ptr_[static_cast<size_t>(o.view.buf)]), o.view, 0, n, t.i.data());
      else if constexpr (std::is_same_v<T, double>)
        load_view(static_cast<const double *>(ptr_[static_cast<size_t>(o.view.buf)]), o.view, 0, n, t.r.data());
      else {
        std::vector<T> tmp(static_cast<size_t>(n));
        load_view(static_cast<const T *>(ptr_[static_cast<size_t>(o.view.buf)]), o.view, 0, n, tmp.data());
        std::copy(tmp.begin(), tmp.end(), t.r.begin());
      }
      out.push_back(std::move(t));
    }
    return out;
  }

  void run_raw(const std::vector<const void *> &args, const std::vector<void *> &outs) override {
    if (args.size() != plan_.inputs.size() || outs.size() != plan_.outputs.size())
      throw ExecError("exec: run_raw with " + std::to_string(args.size()) + " arguments and " + std::to_string(outs.size()) +
                      " results for " + std::to_string(plan_.inputs.size()) + " inputs and " +
                      std::to_string(plan_.outputs.size()) + " outputs");
    for (size_t k = 0; k < args.size(); ++k) ptr_[static_cast<size_t>(plan_.input_buf[k])] = const_cast<void *>(args[k]);
    execute(nullptr);
    for (size_t k = 0; k < outs.size(); ++k) {
      const OutputSpec &o = plan_.outputs[k];
      const int64_t n = ir::numel(o.view.shape);
      if (o.elem != ir::Elem::Real)
        load_view(static_cast<const int64_t *>(ptr_[static_cast<size_t>(o.view.buf)]), o.view, 0, n, static_cast<int64_t *>(outs[k]));
      else
        load_view(static_cast<const T *>(ptr_[static_cast<size_t>(o.view.buf)]), o.view, 0, n, static_cast<T *>(outs[k]));
    }
  }

  std::string plan() const override { return print_plan(plan_); }

 private:
  Plan plan_;
  std::vector<Slot> slots_;
  std::vector<void *> ptr_;
  std::vector<std::vector<T>> const_r_, conv_;
  std::vector<std::unique_ptr<GemmRun<T>>> gemms_;
  std::vector<Reg> regs_;
  MapScratch scratch_;

  void execute(std::vector<double> *times) {
    void *const *ptr = ptr_.data();
    size_t gi = 0;
    for (auto &k : plan_.kernels) {
      auto t0 = times ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
      std::visit(
          [&](const auto &b) {
            using B = std::decay_t<decltype(b)>;
            if constexpr (std::is_same_v<B, MapK>) {
              const int64_t total = ir::numel(b.prog.shape);
              if (total == 0) return;
              MapEval<T> ev(b.prog, ptr, scratch_);
              const bool real = b.prog.dt() == DT::Real;
              for (int64_t s = 0; s < total; s += kBlock) {
                int64_t n = std::min(kBlock, total - s);
                void *o = real ? static_cast<void *>(static_cast<T *>(ptr[b.out]) + b.out_off + s)
                               : static_cast<void *>(static_cast<int64_t *>(ptr[b.out]) + b.out_off + s);
                ev.eval(s, n, o);
              }
            } else if constexpr (std::is_same_v<B, ReduceK>) {
              MapEval<T> ev(b.prog, ptr, scratch_);
              if (b.prog.dt() == DT::Real) reduce<T, T>(b, ev, ptr);
              else reduce<T, int64_t>(b, ev, ptr);
            } else if constexpr (std::is_same_v<B, GemmK>) {
              gemms_[gi++]->run(ptr);
            } else {
              if (plan_.bufs[static_cast<size_t>(b.out)].dt == DT::Real) gather_scatter<T, T>(b, ptr, regs_);
              else gather_scatter<T, int64_t>(b, ptr, regs_);
            }
          },
          k.body);
      if (times) times->push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    }
  }
};

}  // namespace
}  // namespace detail

std::unique_ptr<Executable> compile(const ir::Program &p, Options options) {
  detail::LowerOptions lo;
  lo.gemm = options.gemm;
  lo.fuse = options.fuse;
  lo.real_bytes = options.precision == Precision::F32 ? sizeof(float) : sizeof(double);
  detail::Plan plan = detail::lower(p, lo);
  if (options.precision == Precision::F32) return std::make_unique<detail::ExecImpl<float>>(std::move(plan));
  return std::make_unique<detail::ExecImpl<double>>(std::move(plan));
}

}  // namespace rml::exec
