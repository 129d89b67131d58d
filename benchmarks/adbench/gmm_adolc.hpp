// The GMM objective taped with ADOL-C (operator overloading, reverse mode): the
// gmm_objective_loops template with T = adouble is recorded once per data set (the
// points are passive constants on the tape), then ADOL-C's `gradient` driver replays the
// tape forward and backward. The tape is kept in memory (buffers sized to hold it) so
// that no call touches the disk.
#pragma once
#include <cstddef>
#include <vector>

#include "gmm_data.hpp"

namespace rml::adbench {

class GmmAdolc {
 public:
  // Records the tape at in.params(); `tag` must be unique among live tapes.
  GmmAdolc(const GmmInput &in, short tag);
  // Re-records the tape at in.params() (what the benchmarks time as taping).
  void tape();
  // Objective and gradient at p (size num_params) by replaying the tape (zos_forward +
  // fos_reverse inside ADOL-C's gradient driver).
  void gradient(const double *p, double *grad);
  double value(const double *p);  // zos_forward only
  std::size_t operations() const { return ops_; }
  bool in_memory() const { return in_memory_; }

 private:
  const GmmInput &in_;
  short tag_;
  std::size_t ops_ = 0, locs_ = 0, vals_ = 0, tays_ = 0;
  bool in_memory_ = false;
  double taped_value_ = 0;
  void record();
};

}  // namespace rml::adbench
