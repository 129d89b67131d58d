// Distance in units in the last place between two floating-point values: how many
// representable values lie between them (0: the same bits; NaN and NaN: 0; a NaN and a
// number, or infinities of opposite signs: the maximum).
#pragma once
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

namespace rml::test {

template <class F>
uint64_t ulp_distance(F a, F b) {
  using I = std::conditional_t<sizeof(F) == 8, int64_t, int32_t>;
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b) ? 0 : std::numeric_limits<uint64_t>::max();
  if (a == b) return 0;  // also +0 and -0
  I ia, ib;
  std::memcpy(&ia, &a, sizeof(F));
  std::memcpy(&ib, &b, sizeof(F));
  // Sign-magnitude to a monotone integer line.
  auto line = [](I v) -> int64_t { return v < 0 ? -static_cast<int64_t>(v & std::numeric_limits<I>::max()) : static_cast<int64_t>(v); };
  int64_t d = line(ia) - line(ib);
  return static_cast<uint64_t>(d < 0 ? -d : d);
}

}  // namespace rml::test
