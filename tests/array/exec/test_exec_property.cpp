// Properties: executor = reference evaluator on random bulk programs (the shared generator
// of tests/array/common/ir_gen.hpp without build1), exactly for ints and bools and up to
// reassociation for reals (1e-12 relative in float64, 1e-5 in float32), and on random
// matrix-product shapes that the executor sends to GEMM.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>

#include "array/common/ir_gen.hpp"
#include "array/exec/exec_util.hpp"

using namespace rml::exectest;
namespace irgen = rml::irgen;

namespace {

// A program with a bind, read by two outputs (so it is shared), over random inputs.
struct ProgCase {
  Program prog;
  std::vector<Tensor> args;
};
void showValue(const ProgCase &c, std::ostream &os) {
  os << print(c.prog);
  for (size_t k = 0; k < c.args.size(); ++k) os << c.prog.inputs[k].first << " = " << c.args[k].str() << "\n";
}

rc::Gen<ProgCase> gen_program(irgen::Options o) {
  return rc::gen::exec([o] {
    irgen::TermGen g(o);
    ProgCase c;
    c.prog.inputs = irgen::random_inputs(g, false);
    irgen::Inputs scope = c.prog.inputs;
    Type bt = g.type(2);
    c.prog.binds.emplace_back("x", g.term(bt, scope, *rc::gen::inRange(1, o.depth + 1)));
    scope.emplace_back("x", bt);
    for (int k = 0; k < 2; ++k) c.prog.outputs.push_back(g.term(g.type(), scope, *rc::gen::inRange(1, o.depth + 1)));
    for (auto &[x, t] : irgen::random_bindings(c.prog.inputs)) c.args.push_back(t);
    return c;
  });
}

void check(const ProgCase &c, Options o, double rel, const std::vector<Tensor> &want) {
  auto ex = rml::exec::compile(c.prog, o);
  const std::string plan = ex->plan();
  RC_CLASSIFY(kernels(plan, "map") > 0, "map");
  RC_CLASSIFY(kernels(plan, "reduce") > 0, "reduce");
  RC_CLASSIFY(kernels(plan, "gather") > 0, "gather");
  RC_CLASSIFY(kernels(plan, "scatter") > 0, "scatter");
  RC_CLASSIFY(plan.find("reused") != std::string::npos && plan.find("(0 reused)") == std::string::npos, "reuse");
  auto got = ex->run(c.args);
  RC_ASSERT(got.size() == want.size());
  for (size_t k = 0; k < got.size(); ++k) {
    auto r = close(got[k], want[k], rel);
    if (!r) RC_FAIL("output " + std::to_string(k) + ": " + r.message() + "\nplan:\n" + ex->plan());
  }
}

}  // namespace

RC_GTEST_PROP(ExecProperty, Float64EqualsTheReferenceEvaluator, ()) {
  ProgCase c = *gen_program(irgen::Options::bulk());
  check(c, {}, 1e-12, evaluate(c.prog, c.args));
}

RC_GTEST_PROP(ExecProperty, UnfusedAndFusedAgree, ()) {
  ProgCase c = *gen_program(irgen::Options::bulk());
  Options unfused;
  unfused.fuse = false;
  unfused.gemm = false;
  check(c, unfused, 0, rml::exec::compile(c.prog)->run(c.args));
}

// Int and bool values never depend on reals here (no floor, no real comparisons), so
// rounding cannot flip a branch or an index; inputs are rounded to float first.
RC_GTEST_PROP(ExecProperty, Float32EqualsTheReferenceWithinSinglePrecision, ()) {
  irgen::Options o = irgen::Options::bulk();
  o.real_discontinuities = false;
  ProgCase c = *gen_program(o);
  for (auto &a : c.args)
    for (auto &v : a.r) v = static_cast<double>(static_cast<float>(v));
  Options f32;
  f32.precision = Precision::F32;
  check(c, f32, 1e-5, evaluate(c.prog, c.args));
}

// sumOuter of a product of two strided operands: random sizes, a random order of the
// product's axes, operands stored either way round, sometimes a shared batch dim.
RC_GTEST_PROP(ExecProperty, RandomMatrixProductsUseGemmAndEqualTheReference, ()) {
  const int64_t m = *rc::gen::inRange<int64_t>(1, 21), k = *rc::gen::inRange<int64_t>(2, 21),
                n = *rc::gen::inRange<int64_t>(1, 21), B = *rc::gen::inRange<int64_t>(1, 4);
  const bool a_t = *rc::gen::arbitrary<bool>(), b_t = *rc::gen::arbitrary<bool>();
  // product axes p (sum), q (batch), i (rows), j (columns) in a random order, p first
  std::vector<std::string> axes = *rc::gen::elementOf(std::vector<std::vector<std::string>>{
      {"q", "i", "j"}, {"q", "j", "i"}, {"i", "q", "j"}, {"i", "j", "q"}, {"j", "q", "i"}, {"j", "i", "q"}});
  std::vector<std::string> binders{"p"};
  binders.insert(binders.end(), axes.begin(), axes.end());
  auto size_of = [&](const std::string &x) { return x == "p" ? k : x == "q" ? B : x == "i" ? m : n; };
  Shape sh;
  for (auto &x : binders) sh.push_back(size_of(x));
  auto v = [](const std::string &x) { return ivar(x); };
  Shape as = a_t ? Shape{B, k, m} : Shape{B, m, k}, bs = b_t ? Shape{B, n, k} : Shape{B, k, n};
  Term a = rvar("a", as), b = rvar("b", bs);
  Term x = gather(sh, a, binders, a_t ? std::vector<Term>{v("q"), v("p"), v("i")} : std::vector<Term>{v("q"), v("i"), v("p")});
  Term y = gather(sh, b, binders, b_t ? std::vector<Term>{v("q"), v("j"), v("p")} : std::vector<Term>{v("q"), v("p"), v("j")});
  Program p = program({{"a", Type{Elem::Real, as}}, {"b", Type{Elem::Real, bs}}}, {sum_outer(binary(BinOp::Mul, x, y))});
  std::vector<Tensor> args{irgen::TermGen::tensor(Type{Elem::Real, as}), irgen::TermGen::tensor(Type{Elem::Real, bs})};
  auto ex = rml::exec::compile(p);
  if (m * n * k >= 512) RC_ASSERT(kernels(ex->plan(), "gemm") == 1);
  RC_TAG(kernels(ex->plan(), "gemm") == 1 ? "gemm" : "reduction");
  auto got = ex->run(args);
  auto want = evaluate(p, args);
  auto r = close(got[0], want[0], 1e-12);
  if (!r) RC_FAIL(std::string(r.message()) + "\nplan:\n" + ex->plan());
  Options f32;
  f32.precision = Precision::F32;
  for (auto &t : args)
    for (auto &e : t.r) e = static_cast<double>(static_cast<float>(e));
  auto r32 = close(rml::exec::compile(p, f32)->run(args)[0], evaluate(p, args)[0], 1e-5);
  if (!r32) RC_FAIL(std::string("float32: ") + r32.message());
}
