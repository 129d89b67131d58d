// The shared random program generator (tests/array/common/ir_gen.hpp): its terms are
// well typed over their inputs, evaluate to their declared type, respect the modes, and
// cover every construct.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <functional>
#include <set>

#include "array/common/ir_gen.hpp"
#include "rc_params.hpp"

using namespace rml;
using ir::Kind;

namespace {

void walk(const ir::Term &t, const std::function<void(const ir::Term &)> &f) {
  f(t);
  for (auto &k : t->kids) walk(k, f);
  for (auto &k : t->ix) walk(k, f);
}

}  // namespace

// Law: a generated term is well typed over its inputs (every variable bound at its type),
// and its value has the term's static type.
RC_GTEST_PROP(IrGen, TermsAreWellTypedAndEvaluateToTheirType, ()) {
  auto c = *irgen::gen_case();
  ir::typecheck(c.term, c.inputs);
  ir::Tensor v = ir::evaluate(c.term, c.env);
  RC_ASSERT(v.elem == c.term->type.elem);
  RC_ASSERT(v.shape == c.term->type.shape);
}

// Law: bulk mode never produces build1.
RC_GTEST_PROP(IrGen, BulkModeHasNoBuild1, ()) {
  auto c = *irgen::gen_case(irgen::Options::bulk());
  walk(c.term, [](const ir::Term &n) { RC_ASSERT(n->kind != Kind::Build1); });
}

// Law: objectives are real scalars, and no int or bool value reads a real (no floor or
// int conversion of reals, no comparison of reals), so they are smooth in the real inputs
// except through real min/max/abs/division, which the mode also excludes.
RC_GTEST_PROP(IrGen, ObjectivesAreSmoothRealScalars, ()) {
  auto c = *irgen::gen_objective();
  RC_ASSERT(c.term->type == (ir::Type{ir::Elem::Real, {}}));
  ir::typecheck(c.term, c.inputs);
  walk(c.term, [](const ir::Term &n) {
    if (n->kind == Kind::Unary) {
      RC_ASSERT(n->un != ir::UnOp::Floor);
      RC_ASSERT(n->un != ir::UnOp::ToInt);
      RC_ASSERT(n->un != ir::UnOp::Abs || n->type.elem != ir::Elem::Real);
    }
    if (n->kind == Kind::Binary && n->kids[0]->type.elem == ir::Elem::Real) {
      RC_ASSERT(!ir::is_comparison(n->bin));
      RC_ASSERT(n->bin != ir::BinOp::Max && n->bin != ir::BinOp::Min);
      // the only real division is x / (1 + x*x)
      if (n->bin == ir::BinOp::Div) RC_ASSERT(n->kids[1]->kind == Kind::Binary && n->kids[1]->bin == ir::BinOp::Add);
    }
  });
}

// Every construct of the core language (and out-of-bounds gathers and indices) shows up
// among 400 cases drawn with a fixed seed.
TEST(IrGen, CoversEveryConstruct) {
  auto gen = irgen::gen_case();
  std::set<Kind> kinds;
  std::set<ir::UnOp> unops;
  int oob_gather = 0, inb_gather = 0;
  for (int s = 0; s < 400; ++s) {
    auto c = gen(rc::Random(static_cast<uint64_t>(s) + 1), 50).value();
    walk(c.term, [&](const ir::Term &n) {
      kinds.insert(n->kind);
      if (n->kind == Kind::Unary) unops.insert(n->un);
      // a closed gather whose index function is a constant: in or out of bounds
      if (n->kind == Kind::Gather && !n->ix.empty() && n->ix[0]->kind == Kind::Const) {
        int64_t v = n->ix[0]->value->i[0];
        (v < 0 || v >= n->kids[0]->type.shape[0] ? oob_gather : inb_gather)++;
      }
    });
  }
  for (Kind k : {Kind::Const, Kind::Var, Kind::Let, Kind::Cond, Kind::Unary, Kind::Binary, Kind::Index, Kind::SumOuter,
                 Kind::Gather, Kind::Scatter, Kind::FromList, Kind::Replicate, Kind::Transpose, Kind::Reshape,
                 Kind::Build1, Kind::Iota})
    EXPECT_TRUE(kinds.count(k)) << "kind " << static_cast<int>(k) << " never generated";
  for (ir::UnOp u : {ir::UnOp::Sin, ir::UnOp::Exp, ir::UnOp::Tanh, ir::UnOp::Floor, ir::UnOp::ToReal})
    EXPECT_TRUE(unops.count(u)) << ir::op_name(u) << " never generated";
  EXPECT_GT(oob_gather, 0);
  EXPECT_GT(inb_gather, 0);
}
