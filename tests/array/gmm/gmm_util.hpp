// Helpers of the GMM tests: the ADBench files, the gmm.rml funs through the reference
// evaluator, central finite differences and the golden values of ADBench.
#pragma once
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "array/eval.hpp"
#include "gmm_data.hpp"
#include "sema/frontend.hpp"

namespace rml::gmmtest {

// ADBench's test/cpp/modules/common/GmmTests.cpp (microsoft/ADBench, commit 6c252509):
// the objective and the 18-entry gradient (alphas, means, icf) on data/gmm/test.txt.
inline constexpr double kTestObjective = 8.07380408004975791e+00;
inline const std::vector<double> kTestGradient = {
    1.08662855508652456e-01,  -7.41270039523898472e-01, 6.32607184015246071e-01,  1.11692576532787013e+00,
    1.63333013551455269e-01,  -2.19989824071193142e-02, 2.27778292254236098e-01,  1.20963025612832187e+00,
    -6.06375920733956339e-02, 2.58529994051162237e+00,  1.12632694524213789e-01,  3.85744309849611777e-01,
    7.35180573182305508e-02,  5.41836362715595232e+00,  -3.21494409677446469e-01, 1.71892309775004937e+00,
    8.60091090790866875e-01,  -9.94640930466322848e-01};

inline std::string gmm_file(const std::string &rel) { return adbench::data_dir() + "/gmm/" + rel; }

// Loads an instance. The data are in the repository (data/adbench), so a missing file
// fails the test (with the path): it never skips.
#define RML_LOAD_GMM(var, rel)                                                            \
  adbench::GmmInput var;                                                                  \
  do {                                                                                    \
    const std::string path_ = rml::gmmtest::gmm_file(rel);                                \
    ASSERT_TRUE(std::ifstream(path_).good()) << "ADBench data missing: " << path_;        \
    var = adbench::read_gmm(path_);                                                       \
  } while (0)

// reference/adbench/gmm.rml checked once (with the prelude).
const FrontendResult &gmm_program();

// The fun `name` of gmm.rml at (params = alphas ++ means ++ icf, in.x, in.gamma, in.m),
// through the reference evaluator.
double eval_fun(const std::string &name, const adbench::GmmInput &in, const std::vector<double> &params);

// The fun's value arguments as tensors, in parameter order.
std::vector<array::Tensor> fun_args(const adbench::GmmInput &in, const std::vector<double> &params);

// Central differences with ADBench's step cbrt(eps) max(1, |x_j|), one coordinate at a time.
std::vector<double> central_fd(const std::function<double(const std::vector<double> &)> &f, std::vector<double> x);

// Every entry within rho <= tol (ADBench's metric), reporting the worst.
void expect_close(const std::vector<double> &got, const std::vector<double> &want, double tol, const std::string &what);

}  // namespace rml::gmmtest
