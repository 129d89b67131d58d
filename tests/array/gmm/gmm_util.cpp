#include "gmm_util.hpp"

#include "gmm_compiled.hpp"

#include <fstream>

namespace rml::gmmtest {

const FrontendResult &gmm_program() { return adbench::gmm_frontend(); }

namespace {
array::Tensor real_tensor(std::vector<int64_t> shape, const double *data) {
  array::Tensor t = array::Tensor::zeros(Scalar::Real, std::move(shape));
  std::copy(data, data + t.numel(), t.r.begin());
  return t;
}
}  // namespace

std::vector<array::Tensor> fun_args(const adbench::GmmInput &in, const std::vector<double> &p) {
  const int64_t k = in.k, d = in.d, n = in.n, t = in.icf_size();
  if (p.size() != in.num_params()) throw std::runtime_error("fun_args: wrong parameter count");
  return {real_tensor({k}, p.data()), real_tensor({k, d}, p.data() + k), real_tensor({k, t}, p.data() + k + k * d),
          real_tensor({n, d}, in.x.data()), array::Tensor::real(in.gamma), array::Tensor::integer(in.m)};
}

double eval_fun(const std::string &name, const adbench::GmmInput &in, const std::vector<double> &params) {
  array::Evaluator ev(gmm_program().checked);
  array::Tensor v = ev.apply(name, {}, fun_args(in, params));
  if (v.elem != Scalar::Real || !v.shape.empty()) throw std::runtime_error(name + " did not return a real scalar");
  return v.r.at(0);
}

std::vector<double> central_fd(const std::function<double(const std::vector<double> &)> &f, std::vector<double> x) {
  const double base = std::cbrt(std::numeric_limits<double>::epsilon());
  std::vector<double> g(x.size());
  for (size_t j = 0; j < x.size(); ++j) {
    const double xj = x[j], h = base * std::max(1.0, std::abs(xj));
    x[j] = xj + h;
    const double fp = f(x);
    x[j] = xj - h;
    const double fm = f(x);
    x[j] = xj;
    g[j] = (fp - fm) / (2 * h);
  }
  return g;
}

void expect_close(const std::vector<double> &got, const std::vector<double> &want, double tol, const std::string &what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  double worst = 0;
  for (size_t j = 0; j < got.size(); ++j) {
    const double r = adbench::rho(got[j], want[j]);
    if (!(r <= worst)) worst = r;  // NaN counts as worst
    EXPECT_LE(r, tol) << what << " entry " << j << ": got " << got[j] << ", want " << want[j];
  }
  ::testing::Test::RecordProperty(what + " max rho", std::to_string(worst));
}

}  // namespace rml::gmmtest
