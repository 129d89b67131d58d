#include "array/tensor.hpp"

#include <cmath>
#include <functional>
#include <cstdio>
#include <cstring>
#include <limits>

#include <fmt/format.h>

namespace rml::array {

size_t Tensor::numel() const {
  size_t n = 1;
  for (auto d : shape) n *= static_cast<size_t>(d);
  return n;
}

Tensor Tensor::zeros(Scalar e, std::vector<int64_t> s) {
  Tensor t;
  t.elem = e;
  t.shape = std::move(s);
  if (e == Scalar::Real) t.r.assign(t.numel(), 0.0);
  else t.i.assign(t.numel(), 0);
  return t;
}
Tensor Tensor::real(double v) {
  Tensor t;
  t.elem = Scalar::Real;
  t.r = {v};
  return t;
}
Tensor Tensor::integer(int64_t v) {
  Tensor t;
  t.elem = Scalar::Int;
  t.i = {v};
  return t;
}
Tensor Tensor::boolean(bool v) {
  Tensor t;
  t.elem = Scalar::Bool;
  t.i = {v ? 1 : 0};
  return t;
}

bool Tensor::operator==(const Tensor &o) const {
  if (elem != o.elem || shape != o.shape) return false;
  if (elem == Scalar::Real)
    return r.size() == o.r.size() && (r.empty() || std::memcmp(r.data(), o.r.data(), r.size() * sizeof(double)) == 0);
  return i == o.i;
}

std::string format_real(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  std::string s = fmt::format("{}", v);  // shortest round-trip (Dragonbox)
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

static std::string scalar_str(const Tensor &t, size_t k) {
  switch (t.elem) {
    case Scalar::Bool: return t.i[k] ? "T" : "F";
    case Scalar::Int: return std::to_string(t.i[k]);
    case Scalar::Real: return format_real(t.r[k]);
  }
  return "?";
}

std::string Tensor::str() const {
  if (shape.empty()) return scalar_str(*this, 0);
  std::string out;
  size_t k = 0;
  std::function<void(size_t)> rec = [&](size_t d) {
    out += '[';
    for (int64_t j = 0; j < shape[d]; ++j) {
      if (j) out += ", ";
      if (d + 1 == shape.size()) out += scalar_str(*this, k++);
      else rec(d + 1);
    }
    out += ']';
  };
  rec(0);
  return out;
}

}  // namespace rml::array
