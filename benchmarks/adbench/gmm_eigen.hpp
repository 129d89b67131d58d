// Hand-written Eigen GMM objective (the baseline our compiled objective is timed
// against). Per component c: Q_c as a lower-triangular matrix, Q_c (X - mu_c) for all
// points as one triangular matrix product, squared column norms; then the max-shifted
// logsumexp over components for every point. Buffers are allocated once per instance.
#pragma once
#include <Eigen/Dense>

#include "gmm_data.hpp"

namespace rml::adbench {

class GmmEigen {
 public:
  explicit GmmEigen(const GmmInput &in);
  // The objective at parameters (alphas[k], means[k][d], icf[k][t]), row-major.
  double objective(const double *alphas, const double *means, const double *icf);
  double objective(const std::vector<double> &params);  // alphas ++ means ++ icf

 private:
  const GmmInput &in_;
  Eigen::Map<const Eigen::MatrixXd> x_;  // d x n: column i is point i
  Eigen::MatrixXd q_, xc_, qxc_, main_;  // d x d, d x n, d x n, k x n
  Eigen::RowVectorXd mx_;
  double wishart_c_;
};

}  // namespace rml::adbench
