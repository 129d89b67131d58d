// The ADBench GMM objective as scalar loops over a generic number type T (double, or
// ADOL-C's adouble for taping). It follows ADBench's gmm_objective term by term
// (anchors-ad.md §2): precompute exp(q) and sum(q) per component, then for each point
// and component Q_c (x_i - mu_c) with Q_c = diag(exp q_c) + L(l_c), then max-shifted
// logsumexp, the alpha normaliser and the Wishart prior.
#pragma once
#include <cmath>
#include <vector>

#include "gmm_data.hpp"

namespace rml::adbench {

// log Gamma_d(a) = d (d - 1) / 4 log(pi) + sum_{j=1..d} lgamma(a + (1 - j) / 2), from the
// C library's lgamma: the constant of the Wishart prior (it depends only on d and m).
inline double log_gamma_distrib(double a, int d) {
  double out = 0.25 * d * (d - 1) * std::log(M_PI);
  for (int j = 1; j <= d; ++j) out += std::lgamma(a + 0.5 * (1 - j));
  return out;
}

// C = n' d (log gamma - log(2) / 2) - log Gamma_d(n' / 2), n' = d + m + 1.
inline double wishart_constant(int d, double gamma, int m) {
  const int np = d + m + 1;
  return np * d * (std::log(gamma) - 0.5 * std::log(2.0)) - log_gamma_distrib(0.5 * np, d);
}

template <class T>
T logsumexp_loops(int len, const T *v) {
  using std::exp;
  using std::fmax;
  using std::log;
  T mx = v[0];
  for (int i = 1; i < len; ++i) mx = fmax(mx, v[i]);
  T s = 0.0;
  for (int i = 0; i < len; ++i) s = s + exp(v[i] - mx);
  return log(s) + mx;
}

// The objective at parameters (alphas[k], means[k][d], icf[k][t]); the points, gamma and m
// come from `in` (passive: they are not differentiated).
template <class T>
T gmm_objective_loops(const GmmInput &in, const T *alphas, const T *means, const T *icf) {
  using std::exp;
  const int d = in.d, k = in.k, n = in.n, t = in.icf_size();
  std::vector<T> qdiag(static_cast<size_t>(d * k)), sum_q(static_cast<size_t>(k)), xc(static_cast<size_t>(d)),
      qxc(static_cast<size_t>(d)), main_term(static_cast<size_t>(k));
  for (int c = 0; c < k; ++c) {
    sum_q[c] = 0.0;
    for (int r = 0; r < d; ++r) {
      sum_q[c] = sum_q[c] + icf[c * t + r];
      qdiag[c * d + r] = exp(icf[c * t + r]);
    }
  }
  T slse = 0.0;
  for (int i = 0; i < n; ++i) {
    for (int c = 0; c < k; ++c) {
      const T *l = &icf[c * t + d];  // strict lower triangle, column by column
      for (int r = 0; r < d; ++r) xc[r] = in.x[static_cast<size_t>(i * d + r)] - means[c * d + r];
      for (int r = 0; r < d; ++r) qxc[r] = qdiag[c * d + r] * xc[r];
      for (int s = 0, p = 0; s < d; ++s)
        for (int r = s + 1; r < d; ++r, ++p) qxc[r] = qxc[r] + l[p] * xc[s];
      T sq = 0.0;
      for (int r = 0; r < d; ++r) sq = sq + qxc[r] * qxc[r];
      main_term[c] = alphas[c] + sum_q[c] - 0.5 * sq;
    }
    slse = slse + logsumexp_loops(k, main_term.data());
  }
  const double constant = -n * d * 0.5 * std::log(2 * M_PI);
  T err = constant + slse - static_cast<double>(n) * logsumexp_loops(k, alphas);
  // Wishart prior
  T prior = 0.0;
  for (int c = 0; c < k; ++c) {
    T frob = 0.0;
    for (int r = 0; r < d; ++r) frob = frob + qdiag[c * d + r] * qdiag[c * d + r];
    for (int p = d; p < t; ++p) frob = frob + icf[c * t + p] * icf[c * t + p];
    prior = prior + 0.5 * in.gamma * in.gamma * frob - static_cast<double>(in.m) * sum_q[c];
  }
  return err + prior - static_cast<double>(k) * wishart_constant(d, in.gamma, in.m);
}

}  // namespace rml::adbench
