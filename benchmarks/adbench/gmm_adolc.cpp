#include "gmm_adolc.hpp"

#include <adolc/adolc.h>

#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "gmm_loops.hpp"

namespace rml::adbench {

GmmAdolc::GmmAdolc(const GmmInput &in, short tag) : in_(in), tag_(tag) {
  // ADOL-C spills a tape that outgrows its buffers to files in the working folder. Size
  // the first recording from an upper bound of the operation count (per point and
  // component: d subtractions, d(d+1)/2 products and sums, d squares and sums, a few
  // more; measured: d^2 + 3d + 3), then record again with the measured sizes.
  const size_t n = static_cast<size_t>(in.n), k = static_cast<size_t>(in.k), d = static_cast<size_t>(in.d);
  const size_t ops = 2 * (n * k * (d * d + 4 * d + 16) + n * (4 * k + 16) + k * (d * d + 4 * d + 16)) + 65536;
  ops_ = tays_ = vals_ = ops;
  locs_ = 4 * ops;
  record();
  if (!in_memory_) throw std::runtime_error("ADOL-C tape does not fit in memory buffers (estimate too small)");
  record();
}

void GmmAdolc::tape() { record(); }

void GmmAdolc::record() {
  const std::vector<double> p0 = in_.params();
  const size_t np = p0.size(), k = static_cast<size_t>(in_.k), d = static_cast<size_t>(in_.d);
  // Buffer sizes are element counts; slack over the last recording's sizes.
  auto grow = [](size_t v) { return static_cast<uint>(std::min<size_t>(v + v / 8 + 4096, UINT32_MAX)); };
  trace_on(tag_, 1, grow(ops_), grow(locs_), grow(vals_), grow(tays_));
  {
    std::vector<adouble> ap(np);
    for (size_t i = 0; i < np; ++i) ap[i] <<= p0[i];
    adouble err = gmm_objective_loops<adouble>(in_, ap.data(), ap.data() + k, ap.data() + k + k * d);
    err >>= taped_value_;
  }
  trace_off();
  size_t st[STAT_SIZE];
  tapestats(tag_, st);
  ops_ = st[NUM_OPERATIONS];
  locs_ = st[NUM_LOCATIONS];
  vals_ = st[NUM_VALUES];
  tays_ = st[TAY_STACK_SIZE];
  in_memory_ = st[OP_FILE_ACCESS] == 0 && st[LOC_FILE_ACCESS] == 0 && st[VAL_FILE_ACCESS] == 0;
}

void GmmAdolc::gradient(const double *p, double *grad) {
  const int n = static_cast<int>(in_.num_params());
  if (::gradient(tag_, n, p, grad) < 0) throw std::runtime_error("ADOL-C gradient failed (tag " + std::to_string(tag_) + ")");
}

double GmmAdolc::value(const double *p) {
  double y = 0;
  if (::zos_forward(tag_, 1, static_cast<int>(in_.num_params()), 0, p, &y) < 0)
    throw std::runtime_error("ADOL-C zos_forward failed");
  return y;
}

}  // namespace rml::adbench
