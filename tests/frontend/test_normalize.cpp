// Elaboration: node instances are inlined and every equation holds one primitive.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <map>

#include "core/normalize.hpp"
#include "common/stream_prog_gen.hpp"
#include "test_util.hpp"

using namespace rml;

namespace {

// Primitives of an elaborated program, as a multiset of names.
std::map<std::string, int> core_prims(const core::Program &p) {
  std::map<std::string, int> m;
  for (auto &eq : p.equations) {
    std::string k = core::prim_name(eq.prim);
    if (eq.prim == core::Prim::Apply) k += ":" + core::apply_name(eq);
    ++m[k];
  }
  return m;
}

// The same multiset counted on the source AST, inlining node instances by walking the
// callee's body once per instance. An independent count: it shares no code with the
// elaborator.
void count_expr(const CheckedProgram &cp, const Expr &e, std::map<std::string, int> &m, bool whole_rhs);
void count_node(const CheckedProgram &cp, const NodeDecl &n, std::map<std::string, int> &m) {
  for (auto &eq : n.equations) count_expr(cp, *eq.rhs, m, true);
}
void count_expr(const CheckedProgram &cp, const Expr &e, std::map<std::string, int> &m, bool whole_rhs) {
  switch (e.kind) {
    case ExprKind::IntLit:
    case ExprKind::RealLit:
    case ExprKind::BoolLit: ++m["const"]; return;
    case ExprKind::Var:
      if (whole_rhs) ++m["copy"];  // `x = y`
      return;
    case ExprKind::Unary:
      if (e.op == Op::Pre) ++m["pre"];
      else if (e.op == Op::Post) ++m["post"];
      else ++m[std::string("apply:") + op_spelling(e.op)];
      break;
    case ExprKind::Binary:
      if (e.op == Op::Fby) ++m["fby"];
      else if (e.op == Op::Arrow) ++m["arrow"];
      else ++m[std::string("apply:") + op_spelling(e.op)];
      break;
    case ExprKind::When: ++m["when"]; break;
    case ExprKind::Merge: ++m["merge"]; break;
    case ExprKind::If: ++m["apply:if"]; break;
    case ExprKind::Index: ++m["apply:index"]; break;
    case ExprKind::Array: ++m["apply:array"]; break;
    case ExprKind::Tuple: break;
    case ExprKind::Call: {
      const Decl *d = cp.find(e.name);
      if (d && std::holds_alternative<NodeDecl>(*d)) {
        for (auto &a : e.args) count_expr(cp, *a, m, false);
        count_node(cp, std::get<NodeDecl>(*d), m);
        return;
      }
      ++m["apply:" + e.name];
      break;
    }
    default: break;
  }
  for (auto &a : e.args) count_expr(cp, *a, m, false);
}

std::map<std::string, int> source_prims(const CheckedProgram &cp, const std::string &main) {
  std::map<std::string, int> m;
  count_node(cp, std::get<NodeDecl>(*cp.find(main)), m);
  return m;
}

}  // namespace

// Figure 4 of the paper: app with dense and multiply inlined is, up to names and the
// copies `b = init`, `k = init` of the inlined `param` instances,
// b = 0.0; k = 1.0; t = k * i; x = t + b; o = x * x.
TEST(Normalize, Figure4) {
  std::string err;
  auto text = read_file(rml::test::source_dir() + "/reference/paper/fig03_gradient_descent.rml", err);
  auto r = run_frontend("fig03.rml", *text);
  ASSERT_FALSE(r->diags.has_errors()) << render_all(r->diags);
  core::Program p = core::elaborate(r->checked, "app");
  std::map<std::string, int> want = {{"const", 2}, {"copy", 2}, {"apply:*", 2}, {"apply:+", 1}};
  EXPECT_EQ(core_prims(p), want) << core::print_core(p);
  ASSERT_EQ(p.inputs.size(), 1u);
  EXPECT_EQ(p.inputs[0].name, "i");
  ASSERT_EQ(p.outputs.size(), 1u);
  EXPECT_EQ(p.equations.back().lhs, "o");
  // Every variable is defined exactly once.
  std::set<std::string> defined;
  for (auto &eq : p.equations) EXPECT_TRUE(defined.insert(eq.lhs).second) << eq.lhs;
}

// Elaboration resolves every elementwise operator and table builtin to its row of the
// operator table once; other builtins, user funs and prelude funs stay calls by name.
TEST(Normalize, OperatorsAreResolvedToTheirTableRows) {
  auto r = rml::test::check_text(
      "fun index(x: real) : real = x;\n"
      "node main(x: real, y: real, i: int, c: bool) -> (o: real, b: bool)\n"
      "  o = if c then -x - exp(y) + max(x, y) + index(x) + sum([x, y]) + sigmoid(x) + [x][0] else real(i div 2);\n"
      "  b = not c;\n");
  ASSERT_FALSE(r->diags.has_errors()) << render_all(r->diags);
  core::Program p = core::elaborate(r->checked, "main");
  std::map<std::string, int> unary, binary, other;
  for (auto &eq : p.equations) {
    if (eq.prim != core::Prim::Apply) continue;
    if (eq.op == core::ApplyOp::Unary) ++unary[ops::op_name(eq.un)];
    else if (eq.op == core::ApplyOp::Binary) ++binary[ops::op_name(eq.bin)];
    else if (eq.op == core::ApplyOp::Call) ++other["call " + eq.fn];
    else ++other[core::apply_name(eq)];
    if (eq.op != core::ApplyOp::Call) {
      EXPECT_EQ(eq.fn, "") << eq.lhs;
    }
  }
  EXPECT_EQ(unary, (std::map<std::string, int>{{"neg", 1}, {"exp", 1}, {"real", 1}, {"not", 1}}));
  EXPECT_EQ(binary, (std::map<std::string, int>{{"-", 1}, {"+", 5}, {"max", 1}, {"div", 1}}));
  EXPECT_EQ(other, (std::map<std::string, int>{{"if", 1}, {"index", 1}, {"array", 2}, {"call index", 1}, {"call sum", 1}, {"call sigmoid", 1}}));
}

TEST(Normalize, StaticParametersAreInstantiated) {
  auto r = rml::test::check_text(
      "node layer(const n: int, x: real[n]) -> (o: real[n]) o = relu(x) + zeros([n]);\n"
      "node main(x: real[3]) -> (o: real[3]) o = layer(3, x);\n");
  ASSERT_FALSE(r->diags.has_errors()) << render_all(r->diags);
  core::Program p = core::elaborate(r->checked, "main");
  bool saw_zeros = false;
  for (auto &eq : p.equations) {
    EXPECT_EQ(eq.type.kind, Type::Tensor);
    EXPECT_TRUE(shape_concrete(eq.type.shape)) << eq.lhs << ": " << type_str(eq.type);
    if (eq.fn == "zeros") {
      saw_zeros = true;
      ASSERT_EQ(eq.static_args.size(), 1u);
      EXPECT_EQ(eq.static_args[0].str(), "[3]");
    }
  }
  EXPECT_TRUE(saw_zeros) << core::print_core(p);
}

TEST(Normalize, ExponentialInstanceGrowthIsBounded) {
  // Each level instantiates the previous one twice: 2^40 copies of n0's body.
  std::string text = "node n0(x: int) -> (o: int) o = x + 1;\n";
  for (int k = 1; k <= 40; ++k)
    text += "node n" + std::to_string(k) + "(x: int) -> (o: int) o = n" + std::to_string(k - 1) + "(x) + n" +
            std::to_string(k - 1) + "(x);\n";
  auto r = rml::test::check_text(text);
  ASSERT_FALSE(r->diags.has_errors()) << render_all(r->diags);
  EXPECT_THROW(core::elaborate(r->checked, "n40"), core::ElabError);
  EXPECT_NO_THROW(core::elaborate(r->checked, "n10"));
}

TEST(Normalize, GenericMainIsRefused) {
  auto r = rml::test::check_text("node g(const n: int, x: real[n]) -> (o: real[n]) o = x;\n");
  ASSERT_FALSE(r->diags.has_errors());
  EXPECT_THROW(core::elaborate(r->checked, "g"), core::ElabError);
}

// Law: elaboration preserves the interface (names and types of inputs and outputs) and the
// multiset of primitives, where a node instance contributes its body's primitives once per
// instance; every equation defines a distinct variable.
RC_GTEST_PROP(Normalize, PreservesInterfaceAndPrimitives, ()) {
  rml::testgen::ProgGen g;
  std::string text = g.program();
  RC_LOG() << text;
  auto r = rml::test::check_text(text);
  RC_ASSERT(!r->diags.has_errors());
  core::Program p = core::elaborate(r->checked, "main");
  RC_ASSERT(p.inputs.size() == 3u);
  RC_ASSERT(p.outputs.size() == 2u);
  RC_ASSERT(p.outputs[0].name == "o1" && type_str(p.outputs[0].type) == "real");
  RC_ASSERT(p.outputs[1].name == "o2" && type_str(p.outputs[1].type) == "bool");
  RC_ASSERT(core_prims(p) == source_prims(r->checked, "main"));
  std::set<std::string> defined;
  for (auto &eq : p.equations) RC_ASSERT(defined.insert(eq.lhs).second);
  for (auto &v : p.outputs) RC_ASSERT(defined.count(v.name) == 1u);
}
