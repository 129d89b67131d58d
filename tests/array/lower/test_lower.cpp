// Lowering of `fun` bodies to the IR (src/array/lower): for every prelude fun, every fun
// of the reference corpus and the hand-written funs of hand_funs.rml, lowering then
// ir::evaluate equals array::Evaluator on random arguments (a RapidCheck property per
// fun). The comparison is exact for ints and bools and bitwise for reals everywhere
// (except that any NaN equals any NaN: see test::same_values):
// lowering keeps the evaluator's association of every sum (sum(t) is sumOuter of the
// row-major flattening, sum(#axis) a transpose then sumOuter), so no tolerance is needed.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <filesystem>
#include <functional>
#include <set>

#include "common/test_files.hpp"
#include "lower_util.hpp"
#include "test_util.hpp"

using namespace rml;

namespace {

struct FunRef {
  std::string file;  // relative to the source dir; "" = the prelude
  std::string fun;
};

// gtest prints parameters on failure.
[[maybe_unused]] void PrintTo(const FunRef &f, std::ostream *os) { *os << (f.file.empty() ? "<prelude>" : f.file) << ": " << f.fun; }

std::string file_text(const std::string &rel) {
  if (rel.empty()) return "";
  std::string err;
  auto t = read_file(test::source_dir() + "/" + rel, err);
  return t ? *t : "";
}

const FrontendResult *load(const std::string &rel) {
  return test::checked(rel.empty() ? "empty.rml" : test::source_dir() + "/" + rel, file_text(rel));
}

std::vector<FunRef> all_funs() {
  std::vector<FunRef> out;
  if (auto *r = load(""))
    for (auto &f : test::funs_of(r->checked, true)) out.push_back({"", f});
  std::vector<std::string> files = test::rml_files("reference");
  files.push_back(test::source_dir() + "/tests/array/lower/hand_funs.rml");
  for (auto &path : files) {
    std::string rel = std::filesystem::relative(path, test::source_dir()).string();
    if (auto *r = load(rel))
      for (auto &f : test::funs_of(r->checked, false)) out.push_back({rel, f});
  }
  return out;
}

std::string fun_test_name(const ::testing::TestParamInfo<FunRef> &pi) {
  std::string stem = pi.param.file.empty() ? "prelude" : std::filesystem::path(pi.param.file).stem().string();
  std::string n = stem + "_" + pi.param.fun;
  for (char &ch : n)
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  return n;
}

// Every binder that lowering introduces is fresh ('$' cannot be written in the source),
// so no inlined body can capture a caller's variable.
void expect_fresh_binders(const ir::Term &t, const std::set<std::string> &inputs) {
  std::function<void(const ir::Term &)> go = [&](const ir::Term &n) {
    if (n->kind == ir::Kind::Let || n->kind == ir::Kind::Build1) RC_ASSERT(n->name.find('$') != std::string::npos);
    for (auto &b : n->binders) RC_ASSERT(b.find('$') != std::string::npos);
    if (n->kind == ir::Kind::Var) RC_ASSERT(n->name.find('$') != std::string::npos || inputs.count(n->name) > 0);
    for (auto &k : n->kids) go(k);
    for (auto &k : n->ix) go(k);
  };
  go(t);
}

class LowerMatchesEvaluator : public ::testing::TestWithParam<FunRef> {};

TEST_P(LowerMatchesEvaluator, OnRandomArguments) {
  const FunRef &f = GetParam();
  const FrontendResult *r = load(f.file);
  ASSERT_TRUE(r) << f.file << " does not pass the front end";
  const CheckedProgram &cp = r->checked;
  int values = 0;
  bool ok = rc::check(f.fun + ": lowering then ir::evaluate equals array::Evaluator", [&] {
    test::FunCase c = test::gen_fun_case(cp, f.fun);
    RC_LOG() << "arguments: " << c.str() << "\n";
    std::string why_ref, why_low;
    auto want = test::reference_value(cp, f.fun, c, why_ref);
    ir::Term term;
    auto got = test::lowered_value(cp, f.fun, c, why_low, &term);
    if (!want) {  // the evaluator refuses (a static error of this use): so must lowering
      RC_LOG() << "evaluator: " << why_ref << "\n";
      RC_ASSERT(!got.has_value());
      return;
    }
    RC_LOG() << "lowering: " << why_low << "\n";
    RC_ASSERT(got.has_value());
    std::set<std::string> inputs;
    for (auto &p : lower::fun_params(cp, f.fun).values) inputs.insert(p->name);
    expect_fresh_binders(term, inputs);
    RC_LOG() << "evaluator: " << want->str() << "\nlowered:   " << got->str() << "\nterm: " << ir::print(term) << "\n";
    RC_ASSERT(test::same_values(*got, *want));  // bitwise on reals, any NaN = any NaN
    ++values;
  });
  EXPECT_TRUE(ok);
  EXPECT_GT(values, 0) << "no random use of '" << f.fun << "' could be evaluated: nothing was compared";
}

INSTANTIATE_TEST_SUITE_P(Funs, LowerMatchesEvaluator, ::testing::ValuesIn(all_funs()), fun_test_name);

// The sets above are what the brief names: every prelude fun, the corpus' funs, ours.
TEST(LowerCoverage, PreludeCorpusAndHandWrittenFunsAreAllListed) {
  std::set<std::string> prelude, corpus, hand;
  for (auto &f : all_funs()) (f.file.empty() ? prelude : f.file.find("reference/") == 0 ? corpus : hand).insert(f.fun);
  for (const char *n : {"matmul", "matvec", "dot", "concat", "zeros", "ones", "relu", "sigmoid", "softmax", "logsumexp",
                        "mse", "mse_grad", "glorot_uniform", "orthogonal", "maximum", "outer", "eye", "householder",
                        "rng_uniform", "orth_square"})
    EXPECT_TRUE(prelude.count(n)) << n;
  for (const char *n : {"vecmat", "vanilla_cell", "shift_in", "outer", "slice_head", "slice_tail"}) EXPECT_TRUE(corpus.count(n)) << n;
  EXPECT_GE(hand.size(), 50u);
}

// ---- known values, computed by hand ----

lower::Lowered lower_hand(const std::string &fun, std::vector<StaticValue> statics, std::vector<ir::Type> types) {
  const FrontendResult *r = load("tests/array/lower/hand_funs.rml");
  if (!r) throw std::runtime_error("hand_funs.rml does not pass the front end");
  return lower::lower_fun(r->checked, fun, statics, types);
}
ir::Type real_t(ir::Shape s = {}) { return ir::Type{Scalar::Real, std::move(s)}; }
ir::Type int_t(ir::Shape s = {}) { return ir::Type{Scalar::Int, std::move(s)}; }
array::Tensor reals(ir::Shape s, std::vector<double> v) {
  array::Tensor t = array::Tensor::zeros(Scalar::Real, std::move(s));
  t.r = std::move(v);
  return t;
}
array::Tensor ints(ir::Shape s, std::vector<int64_t> v) {
  array::Tensor t = array::Tensor::zeros(Scalar::Int, std::move(s));
  t.i = std::move(v);
  return t;
}
array::Tensor run(const lower::Lowered &l, std::vector<array::Tensor> args) { return ir::evaluate(l.program(), args).at(0); }

TEST(LowerValues, InliningRenamesParametersWithoutCapture) {
  // swapped(x, y) = sub(y, x) = y - x
  EXPECT_EQ(run(lower_hand("swapped", {}, {real_t(), real_t()}), {array::Tensor::real(1), array::Tensor::real(5)}),
            array::Tensor::real(4));
  // sub(sub(y, x), sub(x, y)) = (5 - 1) - (1 - 5) = 8
  EXPECT_EQ(run(lower_hand("twice_swapped", {}, {real_t(), real_t()}), {array::Tensor::real(1), array::Tensor::real(5)}),
            array::Tensor::real(8));
  // build(n, \a => real(a + i)): the binder a shadows the parameter a
  EXPECT_EQ(run(lower_hand("capture", {}, {real_t({3}), int_t()}), {reals({3}, {7, 7, 7}), array::Tensor::integer(10)}),
            reals({3}, {10, 11, 12}));
  // x1 = 2 + 3 = 5; y1 = 5 * 3 = 15; x2 = 5 - 15 = -10; -10 / 15
  EXPECT_EQ(run(lower_hand("shadow", {}, {real_t(), real_t()}), {array::Tensor::real(2), array::Tensor::real(3)}),
            array::Tensor::real(-10.0 / 15.0));
}

TEST(LowerValues, StaticNamesBecomeIntConstants) {
  // rank([2, 3]) * 100 + prod([2, 3]) * 10 + 2 + rank([4, 5])
  auto l = lower_hand("statics", {StaticValue::of_shape({Poly::constant(2), Poly::constant(3)})}, {real_t({4, 5})});
  EXPECT_EQ(run(l, {array::Tensor::zeros(Scalar::Real, {4, 5})}), array::Tensor::integer(264));
  EXPECT_EQ(l.inputs.size(), 1u);
  // n = 2, m = 3: 20 + 3 + 7
  EXPECT_EQ(run(lower_hand("sizes", {}, {real_t({2, 3})}), {array::Tensor::zeros(Scalar::Real, {2, 3})}),
            array::Tensor::real(30));
  // 2 * 1.5 + 4 + dims[1] = 10
  EXPECT_EQ(run(lower_hand("consts", {}, {real_t()}), {array::Tensor::real(2)}), array::Tensor::real(10));
}

TEST(LowerValues, SumsTransposesScatter) {
  // a : [1, 3, 2] = [[[1, 2], [3, 4], [5, 6]]]; sum over axis 1 = [[9, 12]]; over 2 = [[3, 7, 11]]
  array::Tensor a = reals({1, 3, 2}, {1, 2, 3, 4, 5, 6});
  EXPECT_EQ(run(lower_hand("sum_axis1", {}, {real_t({1, 3, 2})}), {a}), reals({1, 2}, {9, 12}));
  EXPECT_EQ(run(lower_hand("sum_axis2", {}, {real_t({1, 3, 2})}), {a}), reals({1, 3}, {3, 7, 11}));
  EXPECT_EQ(run(lower_hand("sum_all", {}, {real_t({1, 3, 2})}), {a}), array::Tensor::real(21));
  // transpose([2, 0, 1]): out[k, n, m] = a[n, m, k]
  EXPECT_EQ(run(lower_hand("perm3", {}, {real_t({1, 3, 2})}), {a}), reals({2, 1, 3}, {1, 3, 5, 2, 4, 6}));
  // scatter of ones at [0, 3, 3, 7, -1] into 4 cells: 7 and -1 are dropped
  EXPECT_EQ(run(lower_hand("hist", {}, {int_t({5})}), {ints({5}, {0, 3, 3, 7, -1})}), reals({4}, {1, 0, 0, 2}));
  // gather [3] of rows k - i with k = 1: rows 1, 0, -1 (out of bounds: zeros)
  EXPECT_EQ(run(lower_hand("rows", {}, {real_t({2, 2}), int_t()}), {reals({2, 2}, {1, 2, 3, 4}), array::Tensor::integer(1)}),
            reals({3, 2}, {3, 4, 1, 2, 0, 0}));
}

TEST(LowerShape, PreludeLinearAlgebraIsInlinedWithoutLets) {
  const FrontendResult *r = load("");
  ASSERT_TRUE(r);
  // Arguments that are variables are substituted, not let-bound; nothing else appears.
  auto dot = lower::lower_fun(r->checked, "dot", {}, {real_t({3}), real_t({3})});
  EXPECT_EQ(ir::print(dot.body), "sumOuter (a * b)");
  auto mv = lower::lower_fun(r->checked, "matvec", {}, {real_t({2, 3}), real_t({3})});
  EXPECT_EQ(ir::print(mv.body), "sumOuter (tr_{1,0} (a * (replicate 2 x)))");
  // relu at rank 2: the scalar 0.0 is replicated to the argument's shape.
  auto relu = lower::lower_fun(r->checked, "relu", {}, {real_t({2, 3})});
  EXPECT_EQ(ir::print(relu.body), "max x (replicate 2 (replicate 3 0.0))");
}

// ---- diagnostics ----

void expect_error(const std::function<void()> &f, const std::string &rule, const std::string &where) {
  try {
    f();
    ADD_FAILURE() << "no error (expected " << rule << ")";
  } catch (lower::LowerError &e) {
    EXPECT_EQ(e.diag.rule, rule) << e.what();
    std::string text = e.what();
    EXPECT_EQ(text.rfind(where, 0), 0u) << "not at " << where << ":\n" << text;
    EXPECT_NE(text.find(": error[" + rule + "]: "), std::string::npos) << text;
    if (e.diag.span.valid()) {
      EXPECT_NE(text.find('^'), std::string::npos) << "no caret excerpt:\n" << text;
    }
  }
}

TEST(LowerErrors, ArgumentsThatDoNotFitTheSignature) {
  const FrontendResult *r = load("tests/array/lower/hand_funs.rml");
  ASSERT_TRUE(r);
  const CheckedProgram &cp = r->checked;
  std::string hand = test::source_dir() + "/tests/array/lower/hand_funs.rml";
  // icompare(a: int[n], b: int[n]) at int[3] and int[4]: b's n is 3 (fixed by a)
  expect_error([&] { lower::lower_fun(cp, "icompare", {}, {int_t({3}), int_t({4})}); }, "lower.argument-type", hand + ":41:");
  // element type: real given for int
  expect_error([&] { lower::lower_fun(cp, "icompare", {}, {real_t({3}), int_t({3})}); }, "lower.argument-type", hand + ":41:");
  // rank
  expect_error([&] { lower::lower_fun(cp, "sum_all", {}, {real_t({3})}); }, "lower.argument-type", hand + ":8:");
  expect_error([&] { lower::lower_fun(cp, "sum_all", {}, {}); }, "arity.args", hand + ":8:");
  // equal type variables take equal types
  expect_error([&] { lower::lower_fun(cp, "pick", {}, {ir::Type{Scalar::Bool, {}}, real_t(), int_t()}); },
               "lower.argument-type", hand + ":52:");
  // a static int given for a static shape
  expect_error([&] { lower::lower_fun(cp, "shape_arg", {StaticValue::of_int(Poly::constant(3))}, {}); }, "static.kind",
               hand + ":54:");
  // a type beyond the IR's 2^31 elements: a diagnostic, not an exception from the IR
  expect_error([&] { lower::lower_fun(cp, "sum_all", {}, {real_t({65536, 65536, 2})}); }, "lower.ir", hand + ":8:");
  // a node is not a fun (the prelude's param)
  expect_error([&] { lower::lower_fun(cp, "param", {}, {real_t()}); }, "lower.unknown-fun", "<prelude>:");
  try {
    lower::lower_fun(cp, "no_such_fun", {}, {});
    ADD_FAILURE() << "no error";
  } catch (lower::LowerError &e) {
    EXPECT_EQ(e.diag.rule, "lower.unknown-fun");
    EXPECT_NE(std::string(e.what()).find("'no_such_fun'"), std::string::npos);
  }
}

// A static error of one use (s[rank(s) - 1] of a rank-0 shape) is a diagnostic with the
// rule static.eval, as the front end reports static errors.
TEST(LowerErrors, StaticEvaluationErrorOfOneUse) {
  const FrontendResult *r = load("");
  ASSERT_TRUE(r);
  expect_error([&] { lower::lower_fun(r->checked, "orthogonal", {StaticValue::of_shape({})}, {}); }, "static.eval", "<prelude>:");
}

}  // namespace
