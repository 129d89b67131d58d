// The operator table is consistent: every operator's names round-trip, its typing rule
// is what the IR builders enforce, its builtins are the front end's and grammar.md's,
// and the evaluator and the executor compute the same value for every operator.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <cstring>
#include <fstream>
#include <sstream>

#include "array/elementwise.hpp"
#include "array/eval.hpp"
#include "array/exec/exec.hpp"
#include "array/exec/vector_math.hpp"
#include "common/ulp.hpp"
#include "array/ir/eval.hpp"
#include "ops/ops.hpp"
#include "sema/typecheck.hpp"

using namespace rml;
using ops::BinOp;
using ops::UnOp;

namespace {

const Scalar kElems[] = {Scalar::Int, Scalar::Bool, Scalar::Real};

std::string read_file(const std::string &path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

}  // namespace

TEST(OpsTable, NamesRoundTrip) {
  for (auto &r : ops::kUnary) {
    EXPECT_EQ(ops::find_unary_ir(r.name), r.op) << r.name;
    EXPECT_EQ(std::string(ops::op_name(r.op)), r.name);
    if (r.spelling == ops::Spelling::IrOnly) {
      EXPECT_TRUE(r.surface.empty()) << r.name;
      EXPECT_FALSE(ops::find_unary(r.name).has_value()) << r.name << " is IR-only: no surface spelling";
    } else {
      EXPECT_EQ(ops::find_unary(r.surface), r.op) << r.surface;
    }
  }
  for (auto &r : ops::kBinary) {
    EXPECT_EQ(ops::find_binary_ir(r.name), r.op) << r.name;
    EXPECT_EQ(std::string(ops::op_name(r.op)), r.name);
    if (r.spelling == ops::Spelling::IrOnly)
      EXPECT_FALSE(ops::find_binary(r.name).has_value()) << r.name << " is IR-only: no surface spelling";
    else
      EXPECT_EQ(ops::find_binary(r.name), r.op) << r.name;
  }
  EXPECT_FALSE(ops::find_unary("nosuchop").has_value());
  EXPECT_FALSE(ops::find_binary("fby").has_value());
}

// Arity and typing: ir::unary / ir::binary accept exactly the element types the row's
// typing rule accepts, and give its result type.
TEST(OpsTable, TypingRuleIsTheIrBuilders) {
  for (auto &r : ops::kUnary)
    for (Scalar e : kElems) {
      auto want = ops::result_type(r.typing, e);
      ir::Term x = ir::var("x", ir::Type{e, {2}});
      if (want) {
        ir::Term t = ir::unary(r.op, x);
        EXPECT_EQ(t->type, (ir::Type{*want, {2}})) << r.name << " on " << scalar_name(e);
      } else {
        EXPECT_THROW({ ir::unary(r.op, x); }, ir::IrError) << r.name << " on " << scalar_name(e);
      }
    }
  for (auto &r : ops::kBinary) {
    EXPECT_EQ(ops::is_comparison(r.op), ops::result_type(r.typing, Scalar::Int) == Scalar::Bool) << r.name;
    for (Scalar e : kElems) {
      auto want = ops::result_type(r.typing, e);
      ir::Term x = ir::var("x", ir::Type{e, {}}), y = ir::var("y", ir::Type{e, {}});
      if (want) {
        EXPECT_EQ(ir::binary(r.op, x, y)->type, (ir::Type{*want, {}})) << r.name << " on " << scalar_name(e);
      } else {
        EXPECT_THROW({ ir::binary(r.op, x, y); }, ir::IrError) << r.name << " on " << scalar_name(e);
      }
    }
  }
}

// The front end's builtins include every builtin row, and grammar.md's builtin table
// lists every surface spelling (a new operator must be documented).
TEST(OpsTable, BuiltinsAreTheFrontEndsAndDocumented) {
  std::string grammar = read_file(std::string(RML_SOURCE_DIR) + "/semantics/grammar.md");
  size_t from = grammar.find("| builtin | type | meaning |");
  ASSERT_NE(from, std::string::npos);
  std::string table = grammar.substr(from, grammar.find("\n\n", from) - from);
  auto documented = [&](std::string_view name) {
    std::string n(name);
    return table.find("`" + n + " ") != std::string::npos || table.find(" " + n + "`") != std::string::npos ||
           table.find(" " + n + " ") != std::string::npos || table.find("`" + n + "`") != std::string::npos ||
           table.find("`" + n + "(") != std::string::npos;
  };
  for (auto &r : ops::kUnary) {
    if (r.spelling == ops::Spelling::Builtin) {
      EXPECT_TRUE(is_builtin(std::string(r.surface))) << r.surface;
    }
    if (r.spelling != ops::Spelling::IrOnly) {
      EXPECT_TRUE(documented(r.surface)) << r.surface << " is not in grammar.md §5";
    }
  }
  for (auto &r : ops::kBinary) {
    if (r.spelling == ops::Spelling::Builtin) {
      EXPECT_TRUE(is_builtin(std::string(r.name))) << r.name;
    }
    if (r.spelling != ops::Spelling::IrOnly) {
      EXPECT_TRUE(documented(r.name)) << r.name << " is not in grammar.md §5";
    }
  }
  // Negative control: the check does fail on a name grammar.md does not list.
  EXPECT_FALSE(documented("sinh"));
}

namespace {

// Equal values: bitwise, except that any NaN equals any NaN (which NaN payload comes
// out depends on the compiler's operand order, not on the semantics) — and within
// `max_ulp` units in the last place for the executor's SLEEF kernels (exp, log, tanh:
// src/array/exec/vector_math.hpp).
bool same(const ir::Tensor &a, const ir::Tensor &b, uint64_t max_ulp = 0) {
  if (a.elem != b.elem || a.shape != b.shape) return false;
  if (a.elem != Scalar::Real) return a.i == b.i;
  for (size_t k = 0; k < a.r.size(); ++k) {
    if (std::isnan(a.r[k]) && std::isnan(b.r[k])) continue;
    if (max_ulp ? test::ulp_distance(a.r[k], b.r[k]) > max_ulp : std::memcmp(&a.r[k], &b.r[k], sizeof(double)) != 0) return false;
  }
  return true;
}

ir::Tensor random_of(Scalar e, size_t n) {
  ir::Tensor t = ir::Tensor::zeros(e, {static_cast<int64_t>(n)});
  const std::vector<double> special = {0.0, -0.0, 1.0, -1.0, 0.5, -2.0, 1e300, -1e300, 1e-310, INFINITY, -INFINITY, NAN, 3.5e18, -1e19};
  for (auto &v : t.r)
    v = *rc::gen::inRange(0, 5) == 0 ? special[*rc::gen::inRange<size_t>(0, special.size())] : *rc::gen::inRange(-400000, 400000) / 1000.0;
  for (auto &v : t.i) v = e == Scalar::Bool ? *rc::gen::inRange(0, 2) : *rc::gen::arbitrary<int64_t>();
  return t;
}

// op applied by the executor (a compiled one-operator program, f64).
ir::Tensor executed(const ir::Term &t, const std::vector<std::pair<std::string, ir::Type>> &in, const std::vector<ir::Tensor> &args) {
  ir::Program p;
  p.inputs = in;
  p.outputs = {t};
  return exec::compile(p)->run(args)[0];
}

}  // namespace

// Law: for every operator of the table and every well-typed argument, the reference
// evaluator (by surface name when it has one, else by opcode) and the executor compute
// bitwise-equal values (NaN = NaN), except exp, log and tanh, which the executor computes
// with SLEEF: within 2 ULP of the C library's.
RC_GTEST_PROP(OpsTable, EvaluatorAndExecutorAgreeOnEveryOperator, ()) {
  size_t n = *rc::gen::inRange<size_t>(1, 9);
  for (auto &r : ops::kUnary)
    for (Scalar e : kElems) {
      if (!ops::result_type(r.typing, e)) continue;
      ir::Tensor x = random_of(e, n);
      ir::Type ty{e, {static_cast<int64_t>(n)}};
      ir::Tensor want = r.spelling == ops::Spelling::IrOnly ? array::elementwise_unary(r.op, x) : array::Evaluator::unary(std::string(r.surface), x);
      ir::Tensor got = executed(ir::unary(r.op, ir::var("x", ty)), {{"x", ty}}, {x});
      if (!same(got, want, exec::vmath::vectorised(r.op) ? 2 : 0)) RC_FAIL(std::string(r.name) + " " + x.str() + ": executor " + got.str() + ", evaluator " + want.str());
    }
  for (auto &r : ops::kBinary)
    for (Scalar e : kElems) {
      if (!ops::result_type(r.typing, e)) continue;
      ir::Tensor x = random_of(e, n), y = random_of(e, n);
      ir::Type ty{e, {static_cast<int64_t>(n)}};
      ir::Tensor want = r.spelling == ops::Spelling::IrOnly ? array::Evaluator::binary(r.op, x, y) : array::Evaluator::binary(std::string(r.name), x, y);
      ir::Tensor got = executed(ir::binary(r.op, ir::var("x", ty), ir::var("y", ty)), {{"x", ty}, {"y", ty}}, {x, y});
      if (!same(got, want))
        RC_FAIL(std::string(r.name) + " " + x.str() + ", " + y.str() + ": executor " + got.str() + ", evaluator " + want.str());
    }
}

// Negative control of the law above: the comparison does see a difference, here the
// executor's lgamma against the evaluator's digamma on the same arguments.
TEST(OpsTable, AgreementCheckDetectsAWrongOperator) {
  ir::Tensor x = ir::Tensor::zeros(Scalar::Real, {3});
  x.r = {0.5, 2.5, 7.0};
  ir::Type ty{Scalar::Real, {3}};
  ir::Tensor got = executed(ir::unary(UnOp::Lgamma, ir::var("x", ty)), {{"x", ty}}, {x});
  EXPECT_FALSE(same(got, array::Evaluator::unary("digamma", x)));
  EXPECT_TRUE(same(got, array::Evaluator::unary("lgamma", x)));
}
