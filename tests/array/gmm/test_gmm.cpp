// The ADBench GMM objective (reference/adbench/gmm.rml) against ADBench's golden values,
// against each other (reference evaluator, scalar loops, Eigen), and its gradients
// (ADOL-C, our compiled path) against ADBench's golden gradient and central differences.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "gmm_adolc.hpp"
#include "gmm_eigen.hpp"
#include "gmm_loops.hpp"
#include "gmm_util.hpp"

using namespace rml;
using gmmtest::expect_close;

namespace {
double loops_objective(const adbench::GmmInput &in, const std::vector<double> &p) {
  const size_t k = static_cast<size_t>(in.k), d = static_cast<size_t>(in.d);
  return adbench::gmm_objective_loops<double>(in, p.data(), p.data() + k, p.data() + k + k * d);
}
}  // namespace

// ---------------------------------------------------------------- the data reader

TEST(GmmData, ReadsTestFile) {
  RML_LOAD_GMM(in, "test.txt");
  EXPECT_EQ(in.d, 2);
  EXPECT_EQ(in.k, 3);
  EXPECT_EQ(in.n, 1);
  EXPECT_EQ(in.num_params(), 18u);
  EXPECT_EQ(in.icf[0], 0.586443);  // line 8 of the file: icf of component 0
  EXPECT_EQ(in.icf[3], -1.509405);  // line 9: icf of component 1
  EXPECT_EQ(in.x[1], 2.029160);
  EXPECT_EQ(in.gamma, 1.0);
  EXPECT_EQ(in.m, 0);
}

TEST(GmmData, RejectsBadFiles) {
  const std::string dir = ::testing::TempDir();
  auto write = [&](const std::string &name, const std::string &text) {
    std::ofstream(dir + name) << text;
    return dir + name;
  };
  auto message = [](const std::string &path) -> std::string {
    try {
      adbench::read_gmm(path);
    } catch (const std::runtime_error &e) {
      return e.what();
    }
    return "accepted";
  };
  EXPECT_NE(message(dir + "no_such_file.txt").find("cannot open"), std::string::npos);
  EXPECT_NE(message(write("gmm_short.txt", "2 3 1\n1 2 3\n")).find("expected 25 numbers"), std::string::npos);
  EXPECT_NE(message(write("gmm_nan.txt", "1 1 1\nx 0 0 0 1 0\n")).find("'x' is not a finite number"), std::string::npos);
  EXPECT_NE(message(write("gmm_size.txt", "0 1 1\n")).find("out of range"), std::string::npos);
  EXPECT_NE(message(write("gmm_m.txt", "1 1 1\n0 0 0 0 1 0.5\n")).find("'0.5' is not an integer"), std::string::npos);
  EXPECT_EQ(message(write("gmm_ok.txt", "1 1 1\n0 0 0 0 1 0\n")), "accepted");
}

// ------------------------------------------------------------------ the objective

TEST(GmmObjective, ReferenceEvaluatorMatchesAdbenchOnTestTxt) {
  RML_LOAD_GMM(in, "test.txt");
  const double v = gmmtest::eval_fun("gmm_objective", in, in.params());
  EXPECT_LE(adbench::rho(v, gmmtest::kTestObjective), 1e-8) << "value " << v;
  const double vp = gmmtest::eval_fun("gmm_objective_pointwise", in, in.params());
  EXPECT_LE(adbench::rho(vp, gmmtest::kTestObjective), 1e-8) << "value " << vp;
}

TEST(GmmObjective, BaselinesMatchAdbenchOnTestTxt) {
  RML_LOAD_GMM(in, "test.txt");
  EXPECT_LE(adbench::rho(loops_objective(in, in.params()), gmmtest::kTestObjective), 1e-8);
  adbench::GmmEigen eig(in);
  EXPECT_LE(adbench::rho(eig.objective(in.params()), gmmtest::kTestObjective), 1e-8);
}

// The rml funs, the scalar loops and Eigen are three independent codings of the formula.
TEST(GmmObjective, AllCodingsAgreeOn1kD2K5) {
  RML_LOAD_GMM(in, "1k/gmm_d2_K5.txt");
  const auto p = in.params();
  const double loops = loops_objective(in, p);
  adbench::GmmEigen eig(in);
  EXPECT_LE(adbench::rho(eig.objective(p), loops), 1e-12);
  EXPECT_LE(adbench::rho(gmmtest::eval_fun("gmm_objective", in, p), loops), 1e-12);
  EXPECT_LE(adbench::rho(gmmtest::eval_fun("gmm_objective_pointwise", in, p), loops), 1e-12);
}

// gmm.rml's log Gamma is the builtin lgamma: over the arguments ADBench can produce
// (half-integers from 1) and a few others, the evaluator's lgamma (as gmm.rml's funs call
// it) is the C library's, and so is gmm_log_gamma_distrib's sum of them.
TEST(GmmObjective, LgammaMatchesTheCLibrary) {
  const auto &fe = gmmtest::gmm_program();
  array::Evaluator ev(fe.checked);
  std::vector<double> zs;
  for (int h = 1; h <= 400; ++h) zs.push_back(0.5 * h);
  for (double z : {0.01, 0.1, 0.3, 1.7, 3.14159, 7.9, 123.456, 1e4, 1e7}) zs.push_back(z);
  array::Tensor arg = array::Tensor::zeros(Scalar::Real, {static_cast<int64_t>(zs.size())});
  arg.r = zs;
  array::Tensor got = ev.apply("lgamma", {}, {arg});
  ASSERT_EQ(got.r.size(), zs.size());
  for (size_t j = 0; j < zs.size(); ++j) EXPECT_EQ(got.r[j], std::lgamma(zs[j])) << "lgamma(" << zs[j] << ")";
  // log Gamma_d(a) for d = 3, a = 3.5: 3 * 2 / 4 log(pi) + lgamma(3.5) + lgamma(3) + lgamma(2.5).
  array::Tensor means = array::Tensor::zeros(Scalar::Real, {2, 3});
  double want = 0.25 * 6.0 * std::log(3.14159265358979323846) + (std::lgamma(3.5) + std::lgamma(3.0) + std::lgamma(2.5));
  EXPECT_NEAR(ev.apply("gmm_log_gamma_distrib", {}, {array::Tensor::real(3.5), means}).r.at(0), want, 1e-14 * want);
}

// gmm_max_cols is the largest element of each column for every height up to 256 and
// every position of the maximum (two columns with their maxima at mirrored rows).
TEST(GmmObjective, TreeMaximumIsExact) {
  const auto &fe = gmmtest::gmm_program();
  array::Evaluator ev(fe.checked);
  for (int64_t len : {1, 2, 3, 5, 7, 8, 25, 200, 255, 256}) {
    for (int64_t at : {int64_t{0}, len / 2, len - 1}) {
      array::Tensor x = array::Tensor::zeros(Scalar::Real, {len, 2});
      for (int64_t j = 0; j < len; ++j)
        for (int64_t c = 0; c < 2; ++c) x.r[static_cast<size_t>(2 * j + c)] = -1.0 - static_cast<double>((j * 37 + c) % 11);
      x.r[static_cast<size_t>(2 * at)] = -0.5;
      x.r[static_cast<size_t>(2 * (len - 1 - at) + 1)] = -0.25;
      array::Tensor mx = ev.apply("gmm_max_cols", {}, {x});
      EXPECT_EQ(mx.r.at(0), -0.5) << "height " << len << ", max at " << at;
      EXPECT_EQ(mx.r.at(1), -0.25) << "height " << len << ", max at " << len - 1 - at;
    }
  }
}

// ------------------------------------------------------------------- the gradient

TEST(GmmGradient, AdolcMatchesAdbenchGoldenOnTestTxt) {
  RML_LOAD_GMM(in, "test.txt");
  adbench::GmmAdolc ad(in, 11);
  std::vector<double> g(in.num_params());
  ad.gradient(in.params().data(), g.data());
  expect_close(g, gmmtest::kTestGradient, 1e-8, "ADOL-C gradient vs ADBench golden");
  EXPECT_LE(adbench::rho(ad.value(in.params().data()), gmmtest::kTestObjective), 1e-8);
}

// Central differences of the rml fun (reference evaluator): independent of every gradient.
TEST(GmmGradient, FiniteDifferencesOfTheFunMatchAdbenchGoldenOnTestTxt) {
  RML_LOAD_GMM(in, "test.txt");
  auto fd = gmmtest::central_fd([&](const std::vector<double> &p) { return gmmtest::eval_fun("gmm_objective", in, p); },
                                in.params());
  expect_close(fd, gmmtest::kTestGradient, 1e-6, "FD of gmm_objective vs ADBench golden");
}

TEST(GmmGradient, AdolcMatchesFiniteDifferencesOn1kD2K5) {
  RML_LOAD_GMM(in, "1k/gmm_d2_K5.txt");
  adbench::GmmEigen eig(in);
  auto fd = gmmtest::central_fd([&](const std::vector<double> &p) { return eig.objective(p); }, in.params());
  adbench::GmmAdolc ad(in, 12);
  std::vector<double> g(in.num_params());
  ad.gradient(in.params().data(), g.data());
  expect_close(g, fd, 1e-6, "ADOL-C gradient vs FD of the Eigen objective");
}

// ---------------------------------------------------------------------- to_json

namespace {
struct Output {
  int status = -1;
  std::string out;
};
Output run(const std::string &cmd) {
  Output o;
  FILE *p = popen(cmd.c_str(), "r");
  if (!p) return o;
  char buf[65536];
  for (size_t got; (got = fread(buf, 1, sizeof buf, p)) > 0;) o.out.append(buf, got);
  const int st = pclose(p);
  o.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
  return o;
}
const std::string kToJson = std::string(RML_SOURCE_DIR) + "/benchmarks/adbench/to_json";

array::Tensor from_json(const nlohmann::json &j, Scalar elem) {
  std::vector<int64_t> shape;
  for (const nlohmann::json *p = &j; p->is_array(); p = &(*p)[0]) shape.push_back(static_cast<int64_t>(p->size()));
  array::Tensor t = array::Tensor::zeros(elem, shape);
  size_t k = 0;
  std::function<void(const nlohmann::json &)> walk = [&](const nlohmann::json &v) {
    if (v.is_array()) {
      for (auto &e : v) walk(e);
    } else if (elem == Scalar::Real) {
      t.r.at(k++) = v.get<double>();
    } else {
      t.i.at(k++) = v.get<int64_t>();
    }
  };
  walk(j);
  return t;
}
}  // namespace

// The script's JSON has exactly gmm_objective's parameter names as keys, and evaluating
// the fun on it gives ADBench's value (so shapes, order and exactness are right).
TEST(GmmToJson, TestTxtGivesTheFunsArgumentsAndAdbenchsValue) {
  const std::string path = gmmtest::gmm_file("test.txt");
  ASSERT_TRUE(std::ifstream(path).good()) << "ADBench data missing: " << path;
  Output o = run(kToJson + " gmm '" + path + "'");
  ASSERT_EQ(o.status, 0) << o.out;
  const nlohmann::json j = nlohmann::json::parse(o.out);
  const auto &sig = gmmtest::gmm_program().checked.sigs.at("gmm_objective");
  ASSERT_EQ(j.size(), sig.inputs.size());
  std::vector<array::Tensor> args;
  for (const auto &p : sig.inputs) {
    ASSERT_TRUE(j.contains(p.name)) << "no key " << p.name;
    args.push_back(from_json(j[p.name], p.type.elem));
  }
  EXPECT_TRUE(j["wishart_m"].is_number_integer());
  EXPECT_TRUE(j["wishart_gamma"].is_number_float());
  array::Evaluator ev(gmmtest::gmm_program().checked);
  const double v = ev.apply("gmm_objective", {}, args).r.at(0);
  EXPECT_LE(adbench::rho(v, gmmtest::kTestObjective), 1e-8) << v;
}

TEST(GmmToJson, Exact1kD10K5) {
  RML_LOAD_GMM(in, "1k/gmm_d10_K5.txt");
  Output o = run(kToJson + " gmm '" + gmmtest::gmm_file("1k/gmm_d10_K5.txt") + "'");
  ASSERT_EQ(o.status, 0);
  const nlohmann::json j = nlohmann::json::parse(o.out);
  const auto want = gmmtest::fun_args(in, in.params());
  const char *names[] = {"alphas", "means", "icf", "x"};
  for (size_t a = 0; a < 4; ++a) EXPECT_EQ(from_json(j[names[a]], Scalar::Real), want[a]) << names[a];  // bitwise
  EXPECT_EQ(j["wishart_gamma"].get<double>(), in.gamma);
  EXPECT_EQ(j["wishart_m"].get<int64_t>(), in.m);
}

TEST(GmmToJson, BadInputIsAClearErrorWithNonzeroStatus) {
  const std::string dir = ::testing::TempDir();
  std::ofstream(dir + "to_json_short.txt") << "2 3 1\n1 2 3\n";
  Output o = run(kToJson + " gmm '" + dir + "to_json_short.txt' 2>&1");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.out.find("expected 25 numbers for d=2 k=3 n=1, found 6"), std::string::npos) << o.out;
  o = run(kToJson + " gmm '" + dir + "no_such_file.txt' 2>&1");
  EXPECT_EQ(o.status, 1);
  EXPECT_NE(o.out.find("cannot open"), std::string::npos) << o.out;
  o = run(kToJson + " 2>&1");
  EXPECT_EQ(o.status, 2);
  EXPECT_NE(o.out.find("usage: to_json gmm FILE"), std::string::npos) << o.out;
}
