// The reference evaluator of the function layer on known values (array-ad.md §1, §9) and
// on the prelude.
#include "oracle_util.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "array/elementwise.hpp"

using namespace rml;

namespace {
// Evaluates node `f` (no inputs) on one cycle and returns its output `o` as text.
std::string eval1(const std::string &body, const std::string &type) {
  auto r = rml::test::run_both("node f() -> (o: " + type + ") o = " + body + ";\n", "f", {}, 1);
  return r.worklist.at("o", 0).str();
}
array::Tensor value1(const std::string &decls, const std::string &body, const std::string &type) {
  auto r = rml::test::run_both(decls + "node f() -> (o: " + type + ") o = " + body + ";\n", "f", {}, 1);
  return r.worklist.at("o", 0).value;
}
}  // namespace

TEST(ArrayEval, ScatterExampleOfSeed004) {
  // scatter [6] [1..9] (\[i]. [i div 2]) = [3, 7, 11, 15, 9, 0]; the index 4 of 9 writes
  // to 4, while 10 div 2 ... every index < 9 lands in [0, 4].
  EXPECT_EQ(value1("fun s(a: int[9]) : int[6] = scatter([6], a, \\(i) => [i div 2]);\n",
                   "s([1, 2, 3, 4, 5, 6, 7, 8, 9])", "int[6]")
                .str(),
            "[3, 7, 11, 15, 9, 0]");
}

// `index` and `array` are not builtins, so a user may name a fun so; indexing and array
// literals are operators of elaboration, never looked up by name (the oracle once called
// the user's `index` for `[a, a][0]` and failed on the result's size).
TEST(ArrayEval, FunsNamedIndexOrArrayDoNotCaptureIndexingOrArrayLiterals) {
  for (const char *name : {"index", "array"}) {
    std::string decls = std::string("fun ") + name + "(x: real) : real = x + 10.0;\n";
    EXPECT_EQ(value1(decls, std::string(name) + "(1.0) + [2.0, 3.0][1] + [[4.0]][0][0]", "real").str(), "18.0") << name;
  }
}

TEST(ArrayEval, OutOfBoundsIndexAndGatherReadZeroScatterDrops) {
  EXPECT_EQ(value1("fun g(a: real[3]) : real[5] = gather([5], a, \\(i) => [i - 1]);\n", "g([1.0, 2.0, 3.0])", "real[5]").str(),
            "[0.0, 1.0, 2.0, 3.0, 0.0]");
  EXPECT_EQ(value1("fun s(a: real[3]) : real[2] = scatter([2], a, \\(i) => [i + 1]);\n", "s([1.0, 2.0, 3.0])", "real[2]").str(),
            "[0.0, 1.0]");
  EXPECT_EQ(value1("fun ix(a: real[2, 2], i: int) : real[2] = a[i];\n", "ix([[1.0, 2.0], [3.0, 4.0]], 7)", "real[2]").str(),
            "[0.0, 0.0]");
  // build20 computes a ++ a through out-of-bounds reads with a strict if (array-ad.md §1).
  EXPECT_EQ(value1("fun twice(a: real[3]) : real[6] = build(6, \\i => if i < 3 then a[i] else a[i - 3]);\n",
                   "twice([1.0, 2.0, 3.0])", "real[6]")
                .str(),
            "[1.0, 2.0, 3.0, 1.0, 2.0, 3.0]");
}

TEST(ArrayEval, PreludeLinearAlgebra) {
  EXPECT_EQ(eval1("matmul([[1.0, 2.0], [3.0, 4.0]], [[5.0, 6.0], [7.0, 8.0]])", "real[2, 2]"), "[[19.0, 22.0], [43.0, 50.0]]");
  EXPECT_EQ(eval1("matvec([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]], [1.0, -1.0])", "real[3]"), "[-1.0, -1.0, -1.0]");
  EXPECT_EQ(eval1("dot([1.0, 2.0, 3.0], [4.0, 5.0, 6.0])", "real"), "32.0");
  EXPECT_EQ(eval1("concat([1.0], [2.0, 3.0])", "real[3]"), "[1.0, 2.0, 3.0]");
  EXPECT_EQ(eval1("transpose([1, 0], [[1, 2, 3], [4, 5, 6]])", "int[3, 2]"), "[[1, 4], [2, 5], [3, 6]]");
  EXPECT_EQ(eval1("sum(1, [[1, 2, 3], [4, 5, 6]])", "int[2]"), "[6, 15]");
  EXPECT_EQ(eval1("sum(0, [[1, 2, 3], [4, 5, 6]])", "int[3]"), "[5, 7, 9]");
  EXPECT_EQ(eval1("reshape([3, 2], [[1, 2, 3], [4, 5, 6]])", "int[3, 2]"), "[[1, 2], [3, 4], [5, 6]]");
  EXPECT_EQ(eval1("zeros([2, 1])", "real[2, 1]"), "[[0.0], [0.0]]");
}

TEST(ArrayEval, PreludeActivations) {
  array::Tensor s = value1("", "softmax([1.0, 2.0, 3.0])", "real[3]");
  double total = s.r[0] + s.r[1] + s.r[2];
  EXPECT_NEAR(total, 1.0, 1e-15);
  EXPECT_NEAR(s.r[2] / s.r[1], std::exp(1.0), 1e-12);
  array::Tensor big = value1("", "softmax([1000.0, 1000.0])", "real[2]");  // stable: no inf/inf
  EXPECT_NEAR(big.r[0], 0.5, 1e-15);
  EXPECT_NEAR(value1("", "logsumexp([0.0, 0.0])", "real").r[0], std::log(2.0), 1e-15);
  EXPECT_NEAR(value1("", "sigmoid(0.5)", "real").r[0], 1.0 / (1.0 + std::exp(-0.5)), 1e-15);
  EXPECT_EQ(eval1("relu([-1.0, 2.0])", "real[2]"), "[0.0, 2.0]");
  EXPECT_NEAR(value1("", "mse([1.0, 2.0], [3.0, 2.0])", "real").r[0], 2.0, 1e-15);
}

TEST(ArrayEval, InitialisersAreDeterministicAndHaveTheirProperties) {
  array::Tensor q = value1("", "orthogonal([4, 4])", "real[4, 4]");
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) {
      double d = 0;
      for (int k = 0; k < 4; ++k) d += q.r[static_cast<size_t>(i * 4 + k)] * q.r[static_cast<size_t>(j * 4 + k)];
      EXPECT_NEAR(d, i == j ? 1.0 : 0.0, 1e-12);
    }
  array::Tensor g = value1("", "glorot_uniform([3, 5])", "real[3, 5]");
  double limit = std::sqrt(6.0 / 8.0);
  for (double v : g.r) {
    EXPECT_LT(std::abs(v), limit);
  }
  EXPECT_EQ(g, value1("", "glorot_uniform([3, 5])", "real[3, 5]"));  // deterministic
  EXPECT_FALSE(g == value1("", "glorot_uniform_seeded([3, 5], 1)", "real[3, 5]"));
  array::Tensor u = value1("", "orthogonal([5])", "real[5]");  // rank 1 (Figure 8): a unit vector
  double norm = 0;
  for (double v : u.r) norm += v * v;
  EXPECT_NEAR(norm, 1.0, 1e-12);
}

TEST(ArrayEval, IntegerArithmeticIsTotal) {
  EXPECT_EQ(eval1("7 div 0", "int"), "0");
  EXPECT_EQ(eval1("7 mod 0", "int"), "0");
  EXPECT_EQ(eval1("9223372036854775807 + 1", "int"), "-9223372036854775808");
  EXPECT_EQ(eval1("-7 div 2", "int"), "-3");
  EXPECT_EQ(eval1("-7 mod 2", "int"), "-1");
  EXPECT_EQ(eval1("1.0 / 0.0", "real"), "inf");
}

// `tr` of a matrix runs by tiles of 32 (the general permutation computed every element's
// index, a quarter of `rml run --backend stream`'s time on Figure 20). Law: it equals
// `transpose([1, 0], .)`, which takes the general path, on shapes across the tiles' edges
// (empty, one row or column, 32, 33, 65), reals and ints; pinned: a 2 × 3.
TEST(ArrayEval, TrByTilesEqualsTheGeneralTransposition) {
  EXPECT_EQ(eval1("tr([[1, 2, 3], [4, 5, 6]])", "int[3, 2]"), "[[1, 4], [2, 5], [3, 6]]");
  auto fe = run_frontend("t.rml", "");
  array::Evaluator ev(fe->checked);
  const std::vector<StaticValue> perm = {StaticValue::of_shape({Poly::constant(1), Poly::constant(0)})};
  size_t checked = 0;
  for (int64_t rows : {0, 1, 2, 31, 32, 33, 65}) {
    for (int64_t cols : {1, 3, 32, 33, 70}) {
      for (Scalar e : {Scalar::Real, Scalar::Int}) {
        array::Tensor t = array::Tensor::zeros(e, {rows, cols});
        for (size_t k = 0; k < t.numel(); ++k) {
          if (e == Scalar::Real) t.r[k] = static_cast<double>(k) * 0.5 - 7.0;
          else t.i[k] = static_cast<int64_t>(k * 3) - 11;
        }
        array::Tensor fast = ev.builtin_call("tr", {}, {t}), general = ev.builtin_call("transpose", perm, {t});
        ASSERT_EQ(fast.shape, (std::vector<int64_t>{cols, rows}));
        EXPECT_EQ(fast.shape, general.shape);
        EXPECT_EQ(fast.r, general.r) << rows << " x " << cols;
        EXPECT_EQ(fast.i, general.i) << rows << " x " << cols;
        if (rows > 1 && e == Scalar::Int) {
          EXPECT_EQ(fast.i[1], t.i[static_cast<size_t>(cols)]);  // out[0][1] = t[1][0]
        }
        ++checked;
      }
    }
  }
  EXPECT_EQ(checked, 70u);
}

// elementwise_binary runs a loop per arithmetic operator (vectorised) and the table's
// switch for the rest. Law: every real operator's result is, element by element, the
// table's scalar meaning (ops::real_binary / ops::compare) of the operands' elements, with
// either operand a broadcast scalar, on values with signed zeros, infinities and NaN; the
// count of operators checked is pinned so that a new one is not skipped silently.
TEST(ArrayEval, ElementwiseBinaryIsTheTablesMeaningPerElement) {
  const std::vector<double> vals = {0.0, -0.0, 1.5, -2.25, 1e308, -1e308, std::numeric_limits<double>::infinity(),
                                    -std::numeric_limits<double>::infinity(), std::nan(""), 3e-320, 7.0};
  array::Tensor a = array::Tensor::zeros(Scalar::Real, {static_cast<int64_t>(vals.size() * vals.size())});
  array::Tensor b = a;
  for (size_t i = 0; i < vals.size(); ++i)
    for (size_t j = 0; j < vals.size(); ++j) a.r[i * vals.size() + j] = vals[i], b.r[i * vals.size() + j] = vals[j];
  auto same = [](double x, double y) { return std::memcmp(&x, &y, 8) == 0 || (std::isnan(x) && std::isnan(y)); };
  size_t ops_checked = 0;
  for (int o = 0; o < static_cast<int>(ops::BinOp::Implies) + 1; ++o) {
    auto op = static_cast<ops::BinOp>(o);
    const bool cmp = ops::is_comparison(op);
    if (ops::result_type(ops::row(op).typing, Scalar::Real) == std::nullopt) continue;  // not an operator on reals
    ++ops_checked;
    for (int shape = 0; shape < 3; ++shape) {  // both tensors, a scalar on the left, on the right
      array::Tensor x = a, y = b;
      if (shape == 1) x = array::Tensor::real(-0.0);
      if (shape == 2) y = array::Tensor::real(2.5);
      array::Tensor r = array::elementwise_binary(op, x, y);
      for (size_t k = 0; k < a.numel(); ++k) {
        double xv = x.shape.empty() ? x.r[0] : x.r[k], yv = y.shape.empty() ? y.r[0] : y.r[k];
        if (cmp) ASSERT_EQ(r.i[k], ops::compare(op, xv, yv)) << ops::op_name(op) << " " << xv << " " << yv;
        else ASSERT_TRUE(same(r.r[k], ops::real_binary(op, xv, yv))) << ops::op_name(op) << " " << xv << " " << yv;
      }
    }
  }
  EXPECT_EQ(ops_checked, 12u);  // + - * / max min and the six comparisons
}
