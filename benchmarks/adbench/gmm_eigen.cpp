#include "gmm_eigen.hpp"

#include <cmath>

#include "gmm_loops.hpp"

namespace rml::adbench {

using Eigen::Map;
using Eigen::MatrixXd;
using Eigen::VectorXd;

GmmEigen::GmmEigen(const GmmInput &in)
    : in_(in),
      x_(in.x.data(), in.d, in.n),
      q_(MatrixXd::Zero(in.d, in.d)),
      xc_(in.d, in.n),
      qxc_(in.d, in.n),
      main_(in.k, in.n),
      mx_(in.n),
      wishart_c_(wishart_constant(in.d, in.gamma, in.m)) {}

double GmmEigen::objective(const std::vector<double> &p) {
  const size_t k = static_cast<size_t>(in_.k), d = static_cast<size_t>(in_.d);
  return objective(p.data(), p.data() + k, p.data() + k + k * d);
}

double GmmEigen::objective(const double *alphas, const double *means, const double *icf) {
  const int d = in_.d, k = in_.k, n = in_.n, t = in_.icf_size();
  Map<const VectorXd> a(alphas, k);
  Map<const MatrixXd> mu(means, d, k), ic(icf, t, k);
  double prior = 0;
  for (int c = 0; c < k; ++c) {
    const auto q = ic.col(c).head(d);
    for (int r = 0; r < d; ++r) q_(r, r) = std::exp(q(r));
    for (int s = 0, p = d; s < d; ++s)
      for (int r = s + 1; r < d; ++r) q_(r, s) = ic(p++, c);
    xc_ = x_.colwise() - mu.col(c);
    qxc_.noalias() = q_.triangularView<Eigen::Lower>() * xc_;
    const double sum_q = q.sum();
    main_.row(c) = (a(c) + sum_q) - 0.5 * qxc_.colwise().squaredNorm().array();
    // Wishart prior: |exp q|^2 + |l|^2 is the squared Frobenius norm of Q_c
    prior += 0.5 * in_.gamma * in_.gamma * (q.array().exp().square().sum() + ic.col(c).tail(t - d).squaredNorm()) -
             in_.m * sum_q;
  }
  mx_ = main_.colwise().maxCoeff();
  const double slse = ((main_.rowwise() - mx_).array().exp().colwise().sum().log() + mx_.array()).sum();
  const double amx = a.maxCoeff();
  const double lse_alphas = std::log((a.array() - amx).exp().sum()) + amx;
  const double constant = -n * d * 0.5 * std::log(2 * M_PI);
  return constant + slse - n * lse_alphas + prior - k * wishart_c_;
}

}  // namespace rml::adbench
