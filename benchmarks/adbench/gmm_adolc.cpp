#include "gmm_adolc.hpp"

#include <adolc/adolc.h>

#include <stdexcept>
#include <string>

#include "gmm_loops.hpp"

namespace rml::adbench {

GmmAdolc::GmmAdolc(const GmmInput &in, short tag) : in_(in), tag_(tag) {
  record(false);  // learn the tape's sizes (may spill to files at default buffer sizes)
  record(true);   // record again with buffers that hold the whole tape
  if (!in_memory_) throw std::runtime_error("ADOL-C tape does not fit in memory buffers");
}

void GmmAdolc::tape() { record(true); }

void GmmAdolc::record(bool sized) {
  const std::vector<double> p0 = in_.params();
  const size_t np = p0.size(), k = static_cast<size_t>(in_.k), d = static_cast<size_t>(in_.d);
  if (sized) {
    // Slack over the measured sizes; ADOL-C takes buffer sizes as element counts.
    auto grow = [](size_t v) { return static_cast<uint>(v + v / 8 + 4096); };
    trace_on(tag_, 1, grow(ops_), grow(locs_), grow(vals_), grow(tays_));
  } else {
    trace_on(tag_, 1);
  }
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
