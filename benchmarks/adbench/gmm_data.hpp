// ADBench GMM inputs (data/adbench/FORMAT.md) and the comparison metric of
// ADBench (docs/design/anchors-ad.md §2), shared by the GMM tests and benchmarks.
#pragma once
#include <string>
#include <vector>

namespace rml::adbench {

// One GMM instance, arrays row-major as in the file: alphas[k], means[k][d], icf[k][t]
// with t = d(d+1)/2, x[n][d]; Wishart prior (gamma, m).
struct GmmInput {
  int d = 0, k = 0, n = 0;
  std::vector<double> alphas, means, icf, x;
  double gamma = 0;
  int m = 0;

  int icf_size() const { return d * (d + 1) / 2; }
  // The differentiated parameters (alphas, means, icf) as one vector, ADBench's order.
  std::vector<double> params() const;
  size_t num_params() const { return alphas.size() + means.size() + icf.size(); }
};

// Reads an ADBench GMM file; a file with a single point line after icf is the
// replicate-point form of the 2.5M set. Throws std::runtime_error naming the file and
// what is wrong (missing, truncated, bad number, bad sizes, trailing data).
GmmInput read_gmm(const std::string &path);

// The folder holding gmm/: RML_ADBENCH_DIR if set in the environment, else the
// compile-time default, the repository's own <source>/data/adbench.
std::string data_dir();

// ADBench's relative difference |x - y| / max(1, |x| + |y|).
double rho(double x, double y);

}  // namespace rml::adbench
