// Affine relations among integer variables that every sample satisfies: the candidates
// c1·x1 + … + cn·xn = c0 that Houdini (invariants.cpp) proposes for int memories, such as
// the conservation laws of the classic protocol models (the counters of a cache protocol
// sum to the number of caches). Exact: no floating point, and every relation checked.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace rml::check {

struct AffineRelation {
  std::vector<int64_t> coeffs;  // one per column; integers with no common divisor, the first non-zero positive
  int64_t constant = 0;         // Σ coeffs[i]·x[i] = constant
};

// A basis of the affine relations every row of `samples` (each `columns` wide) satisfies,
// in reduced echelon form (each relation has a pivot column no other relation uses, so a
// true relation with few terms tends to appear alone). Every relation returned holds on
// every sample (checked exactly). Relations whose coefficients do not fit `max_coeff`
// (at most 2^20) are left out; so are all of them when the samples are fewer than two
// distinct rows (every relation would be a guess).
std::vector<AffineRelation> affine_relations(size_t columns, const std::vector<std::vector<int64_t>> &samples,
                                             int64_t max_coeff = int64_t{1} << 20);

}  // namespace rml::check
