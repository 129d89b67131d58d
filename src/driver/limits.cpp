#include "driver/limits.hpp"

#include <cmath>
#include <iomanip>
#include <sstream>

namespace rml {

std::string format_bytes(uint64_t bytes) {
  const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  std::ostringstream s;
  if (u == 0) s << bytes << " bytes";
  else if (v == std::floor(v)) s << static_cast<uint64_t>(v) << " " << units[u];
  else s << std::fixed << std::setprecision(1) << v << " " << units[u];
  return s.str();
}

}  // namespace rml
