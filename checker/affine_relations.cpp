// The null space of the samples' affine hull by Gaussian elimination modulo the prime
// p = 2^61 - 1 (exact field arithmetic in machine words; rationals grew too slowly:
// 0.8 s for 48 columns and 1024 samples): each sample (1, x1, …, xn) is reduced against
// the echelon basis of those before it and joins it when it is independent; the relations
// are the basis of what is orthogonal to every sample, one per free column. Each
// coefficient is brought back from its residue to a fraction by rational reconstruction,
// and each relation is then checked exactly (in 128 bits) on every sample: one that a residue
// coincidence or a reconstruction beyond the bounds got wrong is dropped, so whatever is
// returned holds on every sample.
#include "checker/affine_relations.hpp"

#include <cstdlib>
#include <limits>
#include <numeric>
#include <optional>
#include <set>

namespace rml::check {

namespace {
// GCC's and Clang's 128-bit integers (__extension__: not ISO C++, said once here).
__extension__ typedef __int128 Int128;
__extension__ typedef unsigned __int128 UInt128;

constexpr uint64_t kP = (uint64_t{1} << 61) - 1;

uint64_t mod_of(int64_t x) {
  int64_t r = x % static_cast<int64_t>(kP);
  return static_cast<uint64_t>(r < 0 ? r + static_cast<int64_t>(kP) : r);
}
uint64_t mul(uint64_t a, uint64_t b) { return static_cast<uint64_t>(static_cast<UInt128>(a) * b % kP); }
uint64_t sub(uint64_t a, uint64_t b) { return a >= b ? a - b : a + kP - b; }
uint64_t inverse(uint64_t a) {  // a^(p-2): Fermat
  uint64_t r = 1, e = kP - 2;
  while (e) {
    if (e & 1) r = mul(r, a);
    a = mul(a, a);
    e >>= 1;
  }
  return r;
}

struct Fraction {
  int64_t num, den;  // den > 0
};

// The fraction a/b with |a|, b < 2^30 (2·(2^30 − 1)² < p, so it is unique) whose residue is u,
// if any (the extended Euclidean algorithm stopped half way).
std::optional<Fraction> reconstruct(uint64_t u) {
  constexpr int64_t kBound = (int64_t{1} << 30) - 1;
  Int128 r0 = kP, r1 = u, t0 = 0, t1 = 1;
  while (r1 > kBound) {
    Int128 q = r0 / r1;
    Int128 r2 = r0 - q * r1, t2 = t0 - q * t1;
    r0 = r1, r1 = r2, t0 = t1, t1 = t2;
  }
  if (t1 == 0 || t1 > kBound || t1 < -kBound) return std::nullopt;
  int64_t a = static_cast<int64_t>(r1), b = static_cast<int64_t>(t1);
  if (b < 0) a = -a, b = -b;
  return Fraction{a, b};
}
}  // namespace

std::vector<AffineRelation> affine_relations(size_t columns, const std::vector<std::vector<int64_t>> &samples,
                                             int64_t max_coeff) {
  // The constant column first: every sample has 1 there, so it is the first pivot and
  // never a free column, and the other entries of the basis are differences of samples
  // (small where the relations are), never values divided by a value (x = MAX would give
  // 1/MAX, beyond any reconstruction). The constant of each relation is computed at the
  // end, exactly, from a sample.
  const size_t width = columns + 1;
  std::set<std::vector<int64_t>> distinct;
  for (auto &x : samples)
    if (x.size() == columns) distinct.insert(x);
  if (distinct.size() < 2) return {};
  std::vector<std::vector<uint64_t>> basis;  // reduced echelon: 1 at its pivot, 0 at every other pivot
  std::vector<size_t> pivot;
  for (auto &x : distinct) {
    std::vector<uint64_t> row(width);
    row[0] = 1;
    for (size_t i = 0; i < columns; ++i) row[i + 1] = mod_of(x[i]);
    for (size_t k = 0; k < basis.size(); ++k)
      if (uint64_t f = row[pivot[k]]; f != 0)
        for (size_t j = 0; j < width; ++j) row[j] = sub(row[j], mul(f, basis[k][j]));
    size_t p = 0;
    while (p < width && row[p] == 0) ++p;
    if (p == width) continue;  // in the span already
    const uint64_t inv = inverse(row[p]);
    for (auto &v : row) v = mul(v, inv);
    for (auto &b : basis)
      if (uint64_t f = b[p]; f != 0)
        for (size_t j = 0; j < width; ++j) b[j] = sub(b[j], mul(f, row[j]));
    basis.push_back(std::move(row));
    pivot.push_back(p);
    if (basis.size() == width) return {};  // the samples span everything: no relation
  }
  std::vector<bool> is_pivot(width, false);
  for (size_t p : pivot) is_pivot[p] = true;
  std::vector<AffineRelation> out;
  for (size_t f = 1; f < width; ++f) {
    if (is_pivot[f]) continue;
    // v[f] = 1, v[pivot k] = -basis[k][f]: orthogonal to every basis row, so to every
    // sample. The constant's entry (pivot 0) is left to the end.
    std::vector<Fraction> v(width, Fraction{0, 1});
    v[f] = Fraction{1, 1};
    bool ok = true;
    for (size_t k = 0; k < basis.size() && ok; ++k) {
      if (pivot[k] == 0) continue;
      auto q = reconstruct(sub(0, basis[k][f]));
      if (q) v[pivot[k]] = *q;
      else ok = false;
    }
    if (!ok) continue;
    // Integer coefficients: times the denominators' lcm.
    int64_t den = 1;
    for (size_t j = 1; j < width && ok; ++j) {
      den = den / std::gcd(den, v[j].den) * v[j].den;
      ok = den <= max_coeff;
    }
    AffineRelation r;
    int64_t g = 0;
    for (size_t j = 1; j < width && ok; ++j) {
      const Int128 c = static_cast<Int128>(v[j].num) * (den / v[j].den);
      ok = c <= max_coeff && c >= -max_coeff;
      r.coeffs.push_back(static_cast<int64_t>(c));
      g = std::gcd(g, static_cast<int64_t>(c));
    }
    if (!ok || g == 0) continue;
    // No common divisor and the first coefficient positive.
    g = std::abs(g);
    for (auto c : r.coeffs)
      if (c != 0) {
        if (c < 0) g = -g;
        break;
      }
    for (auto &c : r.coeffs) c /= g;
    // The constant from one sample, then the relation checked exactly on every sample
    // (values below 2^63, coefficients at most 2^20, a few dozen terms: inside 128 bits).
    auto value = [&](const std::vector<int64_t> &x) {
      Int128 sum = 0;
      for (size_t i = 0; i < columns; ++i) sum += static_cast<Int128>(r.coeffs[i]) * x[i];
      return sum;
    };
    const Int128 constant = value(*distinct.begin());
    if (constant > std::numeric_limits<int64_t>::max() || constant < std::numeric_limits<int64_t>::min()) continue;
    r.constant = static_cast<int64_t>(constant);
    for (auto it = distinct.begin(); ok && it != distinct.end(); ++it) ok = value(*it) == constant;
    if (ok) out.push_back(std::move(r));
  }
  return out;
}

}  // namespace rml::check
