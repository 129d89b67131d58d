// Four doubles as one value, for the sums rml compile writes (src/codegen/emit_term.cpp):
// four elements of a sum's result are added at once, one per lane. Each lane is still its
// own chain of additions from +0.0 in the reference evaluator's order, and every lane
// operation rounds as the scalar one does (IEEE-754 binary64; -ffp-contract=off keeps a
// product and a sum two roundings), so the result is the scalar loop's bit for bit.
//
// GCC and Clang vector extensions: a V4 is one AVX register where the target has AVX, else
// two 16-byte vectors (SSE2, NEON).
#pragma once
#include <cstdint>
#include <cstring>

namespace rml::lanes {

// Lanes (a[i], b[j], ...) of the lanes of a and b together, as the indices name them.
#if defined(__clang__) || (defined(__GNUC__) && __GNUC__ >= 12)
#define RML_LANES_SHUFFLE4(a, b, i, j, k, l) __builtin_shufflevector(a, b, i, j, k, l)
#define RML_LANES_SHUFFLE2(a, b, i, j) __builtin_shufflevector(a, b, i, j)
#else
#define RML_LANES_SHUFFLE4(a, b, i, j, k, l) __builtin_shuffle(a, b, Mask4{i, j, k, l})
#define RML_LANES_SHUFFLE2(a, b, i, j) __builtin_shuffle(a, b, Mask2{i, j})
#endif

#if defined(__AVX__)

typedef double V4 __attribute__((vector_size(32)));
typedef int64_t Mask4 __attribute__((vector_size(32)));

inline V4 load4(const double *p) {
  V4 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline void store4(double *p, V4 v) { std::memcpy(p, &v, sizeof v); }

// A 4 x 4 block transposed in registers: the rows start at p, p + stride, p + 2 stride and
// p + 3 stride, and c[k] gets the four rows' elements k. A sum along a row-major matrix's
// rows (matvec(a, x): a's element (i, j) for j ascending) so reads four rows' elements with
// four contiguous loads instead of sixteen.
inline void columns4(const double *p, int64_t stride, V4 (&c)[4]) {
  const V4 r0 = load4(p), r1 = load4(p + stride), r2 = load4(p + 2 * stride), r3 = load4(p + 3 * stride);
  const V4 e01 = RML_LANES_SHUFFLE4(r0, r1, 0, 4, 2, 6), o01 = RML_LANES_SHUFFLE4(r0, r1, 1, 5, 3, 7);  // (a0 b0 a2 b2), (a1 b1 a3 b3)
  const V4 e23 = RML_LANES_SHUFFLE4(r2, r3, 0, 4, 2, 6), o23 = RML_LANES_SHUFFLE4(r2, r3, 1, 5, 3, 7);
  c[0] = RML_LANES_SHUFFLE4(e01, e23, 0, 1, 4, 5);
  c[1] = RML_LANES_SHUFFLE4(o01, o23, 0, 1, 4, 5);
  c[2] = RML_LANES_SHUFFLE4(e01, e23, 2, 3, 6, 7);
  c[3] = RML_LANES_SHUFFLE4(o01, o23, 2, 3, 6, 7);
}

#else

// Without AVX (SSE2, NEON), where a 32-byte vector is lowered badly: two 16-byte halves,
// the same lane operations.
typedef double V2 __attribute__((vector_size(16)));
typedef int64_t Mask2 __attribute__((vector_size(16)));

struct V4 {
  V2 lo, hi;
  V4() : lo{0, 0}, hi{0, 0} {}
  V4(V2 l, V2 h) : lo(l), hi(h) {}
  V4(double a, double b, double c, double d) : lo{a, b}, hi{c, d} {}
};
#define RML_LANES_OP(op)                                                                               \
  inline V4 operator op(V4 x, V4 y) { return {x.lo op y.lo, x.hi op y.hi}; }                          \
  inline V4 operator op(V4 x, double y) { return {x.lo op y, x.hi op y}; }                            \
  inline V4 operator op(double x, V4 y) { return {x op y.lo, x op y.hi}; }
RML_LANES_OP(+)
RML_LANES_OP(-)
RML_LANES_OP(*)
RML_LANES_OP(/)
#undef RML_LANES_OP
inline V4 operator-(V4 x) { return {-x.lo, -x.hi}; }

inline V2 load2(const double *p) {
  V2 v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
inline V4 load4(const double *p) { return {load2(p), load2(p + 2)}; }
inline void store4(double *p, V4 v) {
  std::memcpy(p, &v.lo, sizeof v.lo);
  std::memcpy(p + 2, &v.hi, sizeof v.hi);
}
// As above: c[k] gets the four rows' elements k, by 2 x 2 blocks.
inline void columns4(const double *p, int64_t stride, V4 (&c)[4]) {
  for (int h = 0; h < 4; h += 2) {
    const V2 a = load2(p + h), b = load2(p + stride + h), x = load2(p + 2 * stride + h), y = load2(p + 3 * stride + h);
    c[h].lo = RML_LANES_SHUFFLE2(a, b, 0, 2), c[h + 1].lo = RML_LANES_SHUFFLE2(a, b, 1, 3);
    c[h].hi = RML_LANES_SHUFFLE2(x, y, 0, 2), c[h + 1].hi = RML_LANES_SHUFFLE2(x, y, 1, 3);
  }
}

#endif

#undef RML_LANES_SHUFFLE4
#undef RML_LANES_SHUFFLE2

}  // namespace rml::lanes
