// Every bot rule (array-ad.md §4, Figs. 9–11) and every simplifier rule
// preserves the reference semantics, proved by Z3 on instances over symbolic arrays of
// small static shapes (symbolic_ir.hpp: uninterpreted reals, exact 64-bit ints,
// symbolic index components, so out-of-bounds behaviour is covered for every index
// value). Each instance is built as the rule's left-hand side; the right-hand side is
// what the implementation (rml::bot::apply_rule / apply_simp_rule) produces, so the
// proof is about the code, not a transcription of it. Instances use free int scalars
// (p, q) inside index functions, so one proof covers in- and out-of-bounds indices.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <functional>

#include "array/bot/bot.hpp"
#include "array/ir/eval.hpp"
#include "symbolic_ir.hpp"

using namespace rml;
using namespace rml::ir;
using rml::bot::Rule;
using rml::bot::SimpRule;

namespace {

const Type kInt{Elem::Int, {}};
Term iv(const std::string &x) { return var(x, kInt); }
Term rv(const std::string &x, Shape s) { return var(x, Type{Elem::Real, std::move(s)}); }
Term add(Term a, Term b) { return binary(BinOp::Add, std::move(a), std::move(b)); }
Term mul(Term a, Term b) { return binary(BinOp::Mul, std::move(a), std::move(b)); }
Term ic(int64_t v) { return int_scalar(v); }

// The free variables every instance may use.
std::vector<std::pair<std::string, Type>> universe() {
  return {{"p", kInt},
          {"q", kInt},
          {"a", Type{Elem::Real, {3}}},
          {"c", Type{Elem::Real, {3}}},
          {"m", Type{Elem::Real, {2, 3}}},
          {"m3", Type{Elem::Real, {3, 2, 2}}},
          {"b", Type{Elem::Bool, {3}}},
          {"b0", Type{Elem::Bool, {}}},
          {"n", Type{Elem::Int, {3}}}};
}

// "lhs and rhs denote the same tensor for every value of the free variables": Z3 finds
// no assignment under which some element differs. Returns the verdict as text.
std::string prove_equal(const Term &lhs, const Term &rhs) {
  z3::context ctx;
  proofs::SymEval ev(ctx);
  std::vector<std::pair<std::string, proofs::SymVal>> env;
  for (auto &[name, t] : universe()) env.emplace_back(name, ev.fresh(name, t));
  proofs::SymVal l = ev.eval(lhs, env), r = ev.eval(rhs, env);
  z3::solver s(ctx);
  for (auto &f : ev.facts()) s.add(f);
  s.add(ev.differ(l, r));
  switch (s.check()) {
    case z3::unsat: return "proved";
    case z3::sat: return "counterexample:\n" + s.get_model().to_string();
    default: return "unknown";
  }
}

struct Instance {
  std::string what;
  Term lhs;
};

// Minimal instances of each rule's left-hand side (k = 3 unless said; k = 0 as well for
// the build rules, where empty dims are an edge case of the shape arithmetic).
std::vector<Instance> rule_instances(Rule r) {
  Term a = rv("a", {3}), c = rv("c", {3}), m = rv("m", {2, 3}), m3 = rv("m3", {3, 2, 2});
  Term p = iv("p"), q = iv("q"), i = iv("i"), j = iv("j");
  Term b = var("b", Type{Elem::Bool, {3}}), b0 = var("b0", Type{Elem::Bool, {}});
  std::vector<Instance> out;
  auto builds = [&](const std::string &what, const std::function<Term()> &body) {
    for (int64_t k : {int64_t{3}, int64_t{0}}) out.push_back({what + " (k=" + std::to_string(k) + ")", build1(k, "i", body())});
  };
  switch (r) {
    case Rule::B1: builds("build1 k (\\i. i)", [&] { return i; }); break;
    case Rule::B2: builds("build1 k (\\i. a + a)", [&] { return add(a, a); }); break;
    case Rule::B3:
      builds("build1 k (\\i. let x = a[i] in x * a[i+p])", [&] {
        Term x = rv("x", {});
        return let("x", index(a, {i}), mul(x, index(a, {add(i, p)})));
      });
      break;
    case Rule::B4:
      builds("build1 k (\\i. cond b[i] a[i] a[i+p])", [&] { return cond(index(b, {i}), index(a, {i}), index(a, {add(i, p)})); });
      break;
    case Rule::B5: builds("build1 k (\\i. a[i] * c[i])", [&] { return mul(index(a, {i}), index(c, {i})); }); break;
    case Rule::B6: builds("build1 k (\\i. exp a[i+p])", [&] { return unary(UnOp::Exp, index(a, {add(i, p)})); }); break;
    case Rule::B7: builds("build1 k (\\i. sumOuter m3[i])", [&] { return sum_outer(index(m3, {i})); }); break;
    case Rule::B8:
      builds("build1 k (\\i. gather [2] a (\\[j]. [j + i + p]))",
             [&] { return gather({2}, a, {"j"}, {add(add(j, i), p)}); });
      break;
    case Rule::B9:
      builds("build1 k (\\i. scatter [3] m[i mod 2] (\\[j]. [j * i + q]))", [&] {
        return scatter({3}, index(m, {binary(BinOp::Mod, i, ic(2))}), {"j"}, {add(mul(j, i), q)});
      });
      break;
    case Rule::B10: builds("build1 k (\\i. [a[i], c[i+p]])", [&] { return from_list({index(a, {i}), index(c, {add(i, p)})}); }); break;
    case Rule::B11: builds("build1 k (\\i. replicate 2 a[i])", [&] { return replicate(2, index(a, {i})); }); break;
    case Rule::B12: builds("build1 k (\\i. tr m3[i])", [&] { return tr(index(m3, {i})); }); break;
    case Rule::B13: builds("build1 k (\\i. reshape [4] m3[i])", [&] { return reshape({4}, index(m3, {i})); }); break;
    case Rule::I1: out.push_back({"index a []", index(a, {})}); break;
    case Rule::I2: out.push_back({"index (index m3 [p]) [q]", index(index(m3, {p}), {q})}); break;
    case Rule::I3: {
      Term x = rv("x", {3});
      out.push_back({"index (let x = a in x + x) [p]", index(let("x", a, add(x, x)), {p})});
      break;
    }
    case Rule::I4: out.push_back({"index (cond b0 a c) [p]", index(cond(b0, a, c), {p})}); break;
    case Rule::I5: out.push_back({"index (a * c) [p + 1]", index(mul(a, c), {add(p, ic(1))})}); break;
    case Rule::I6: out.push_back({"index (exp m) [p]", index(unary(UnOp::Exp, m), {p})}); break;
    case Rule::I7:
      out.push_back({"index (sumOuter m3) [p]", index(sum_outer(m3), {p})});
      out.push_back({"index (sumOuter m3) [p, q]", index(sum_outer(m3), {p, q})});
      break;
    case Rule::I8: out.push_back({"index [m, m] [p, q]", index(from_list({m, unary(UnOp::Neg, m)}), {p, q})}); break;
    case Rule::I9: out.push_back({"index (replicate 2 m) [p, q]", index(replicate(2, m), {p, q})}); break;
    case Rule::I10:
      out.push_back({"index (tr m) [p]", index(tr(m), {p})});
      out.push_back({"index (tr_{2,0,1} m3) [p, q]", index(transpose({2, 0, 1}, m3), {p, q})});
      break;
    case Rule::I11: out.push_back({"index (reshape [3, 2] m) [p]", index(reshape({3, 2}, m), {p})}); break;
    case Rule::I12:
      out.push_back({"index (gather [3, 3] m (\\[i]. [i + p])) [q]", index(gather({3, 3}, m, {"i"}, {add(i, p)}), {q})});
      break;
    case Rule::I13:
      out.push_back({"index (gather [3] m (\\[]. [p])) [q]", index(gather({3}, m, {}, {p}), {q})});
      break;
    case Rule::G1: builds("build1 k (\\i. index a [i + p])", [&] { return index(a, {add(i, p)}); }); break;
    case Rule::G2: {
      Tensor cv = Tensor::zeros(Elem::Real, {3});
      cv.r = {1.5, -2, 0.25};
      builds("build1 k (\\i. index [1.5, -2, 0.25] [i * q])", [&] { return index(constant(cv), {mul(i, q)}); });
      break;
    }
    case Rule::G3: builds("build1 k (\\i. index [a, c] [i + p])", [&] { return index(from_list({a, c}), {add(i, p)}); }); break;
    case Rule::G4:
      builds("build1 k (\\i. index (scatter [3] a (\\[j]. [j + p])) [i * q])",
             [&] { return index(scatter({3}, a, {"j"}, {add(j, p)}), {mul(i, q)}); });
      break;
  }
  return out;
}

Tensor ints123() {
  Tensor t = Tensor::zeros(Elem::Int, {3});
  t.i = {1, 2, 3};
  return t;
}

std::vector<Instance> simp_instances(SimpRule r) {
  Term a = rv("a", {3}), m = rv("m", {2, 3}), p = iv("p"), q = iv("q"), i = iv("i"), j = iv("j");
  Tensor fill = Tensor::zeros(Elem::Real, {3});
  fill.r = {2, 2, 2};
  switch (r) {
    case SimpRule::IdentityGather:
      return {{"gather [3] a (\\[i]. [i])", gather({3}, a, {"i"}, {i})},
              {"gather [2, 3] m (\\[i, j]. [i, j])", gather({2, 3}, m, {"i", "j"}, {i, j})}};
    case SimpRule::GatherOfGather:
      return {{"gather [3] (gather [3] a (\\[i]. [i + p])) (\\[j]. [j * q])",
               gather({3}, gather({3}, a, {"i"}, {add(i, p)}), {"j"}, {mul(j, q)})},
              {"gather [2] (gather [3] a (\\[i]. [2 - i])) (\\[j]. [j])", gather({2}, gather({3}, a, {"i"}, {binary(BinOp::Sub, ic(2), i)}), {"j"}, {j})}};
    case SimpRule::GatherOfReplicate:
      return {{"gather [3, 3] (replicate 2 a) (\\[i, j]. [i + p, j])",
               gather({3, 3}, replicate(2, a), {"i", "j"}, {add(i, p), j})},
              {"gather [4, 3] (replicate 2 a) (\\[i]. [i])", gather({4, 3}, replicate(2, a), {"i"}, {i})}};
    case SimpRule::GatherOfIota:
      return {{"gather [3] (iota 4) (\\[i]. [i + p])", gather({3}, iota(4), {"i"}, {add(i, p)})},
              {"gather [3] (iota 4) (\\[i]. [i])", gather({3}, iota(4), {"i"}, {i})}};
    case SimpRule::GatherOfConstant:
      return {{"gather [3] [2, 2, 2] (\\[i]. [i + p])", gather({3}, constant(fill), {"i"}, {add(i, p)})},
              {"gather [3] [2, 2, 2] (\\[i]. [i])", gather({3}, constant(fill), {"i"}, {i})}};
    case SimpRule::DeadLet: return {{"let x = a in m", let("x", a, m)}};
    case SimpRule::TrivialLet: {
      Term x = rv("x", {3});
      return {{"let x = a in x * x", let("x", a, mul(x, x))}, {"let y = 3 in y + p", let("y", ic(3), add(iv("y"), p))}};
    }
    case SimpRule::ConstantFold:
      return {{"(7 div 0) + 2 * 3", add(binary(BinOp::IDiv, ic(7), ic(0)), mul(ic(2), ic(3)))},
              {"index (iota 4) [2] + p", add(index(iota(4), {ic(2)}), p)},
              {"(-9 mod 4) - p", binary(BinOp::Sub, binary(BinOp::Mod, ic(-9), ic(4)), p)},
              {"index [1, 2, 3] [5]", index(constant(ints123()), {ic(5)})}};
  }
  return {};
}

class BotRule : public ::testing::TestWithParam<int> {};

// Law: for every rule r and each of its instances t, apply_rule(r, t) fires and
// eval(apply_rule(r, t)) = eval(t) for all values of the free variables.
TEST_P(BotRule, PreservesTheReferenceSemantics) {
  Rule r = static_cast<Rule>(GetParam());
  auto inst = rule_instances(r);
  ASSERT_FALSE(inst.empty());
  for (auto &[what, lhs] : inst) {
    SCOPED_TRACE(std::string(rml::bot::rule_name(r)) + ": " + what);
    std::optional<Term> rhs = rml::bot::apply_rule(r, lhs);
    ASSERT_TRUE(rhs.has_value()) << "the rule does not fire on its instance";
    EXPECT_EQ((*rhs)->type, lhs->type);
    EXPECT_EQ(prove_equal(lhs, *rhs), "proved") << print(lhs) << "\n~>\n" << print(*rhs);
  }
}
std::string rule_label(const ::testing::TestParamInfo<int> &p) { return rml::bot::rule_name(static_cast<Rule>(p.param)); }
INSTANTIATE_TEST_SUITE_P(AllThirty, BotRule, ::testing::Range(0, rml::bot::kRuleCount), rule_label);

class SimplifierRule : public ::testing::TestWithParam<int> {};

// Law: each simplifier rule, where it fires, preserves the reference semantics
// (including out-of-bounds reads, which is what makes gather fusion delicate).
TEST_P(SimplifierRule, PreservesTheReferenceSemantics) {
  SimpRule r = static_cast<SimpRule>(GetParam());
  int fired = 0;
  for (auto &[what, lhs] : simp_instances(r)) {
    SCOPED_TRACE(std::string(rml::bot::simp_rule_name(r)) + ": " + what);
    std::optional<Term> rhs = rml::bot::apply_simp_rule(r, lhs);
    if (!rhs) continue;  // guarded rules may decline (e.g. a fusion that would change OOB reads)
    ++fired;
    EXPECT_EQ((*rhs)->type, lhs->type);
    EXPECT_EQ(prove_equal(lhs, *rhs), "proved") << print(lhs) << "\n~>\n" << print(*rhs);
  }
  EXPECT_GT(fired, 0) << "no instance exercises the rule";
}
std::string simp_label(const ::testing::TestParamInfo<int> &p) {
  return rml::bot::simp_rule_name(static_cast<SimpRule>(p.param));
}
INSTANTIATE_TEST_SUITE_P(All, SimplifierRule, ::testing::Range(0, rml::bot::kSimpRuleCount), simp_label);

// Law: the whole normaliser preserves the semantics on the composite examples of
// array-ad.md §9 (t_sc, t_dot, the concat of item 11), as a check of rule interplay.
TEST(BotNormaliser, PreservesTheSemanticsOfThePaperExamples) {
  Term a = rv("a", {3}), c = rv("c", {3}), i = iv("i");
  Term t_sc = sum_outer(build1(3, "i", mul(index(a, {i}), index(a, {binary(BinOp::Sub, ic(2), i)}))));
  Term t_dot = sum_outer(build1(3, "i", mul(index(a, {i}), index(c, {i}))));
  Term concat = build1(6, "i", cond(binary(BinOp::Lt, i, ic(3)), index(a, {i}), index(a, {binary(BinOp::Sub, i, ic(3))})));
  for (auto &t : {t_sc, t_dot, concat}) {
    Term n = rml::bot::bot(t);
    EXPECT_EQ(rml::bot::normal_form_violation(n), std::nullopt) << print(n);
    EXPECT_EQ(prove_equal(t, n), "proved") << print(t) << "\n~>\n" << print(n);
    EXPECT_EQ(prove_equal(t, rml::bot::simplify(n)), "proved");
  }
}

// Negative controls: plausible but wrong rewrites are refuted, so the checks can fail.
TEST(BotRuleNegativeControl, WrongRewritesAreRefuted) {
  Term a = rv("a", {3}), p = iv("p"), i = iv("i"), j = iv("j");
  // B8 without prepending i to the index function: every row would read the same slice.
  Term lhs8 = build1(3, "i", gather({2}, a, {"j"}, {add(add(j, i), p)}));
  Term wrong8 = gather({3, 2}, replicate(3, a), {"i", "j"}, {i, add(j, p)});
  EXPECT_EQ(prove_equal(lhs8, wrong8).rfind("counterexample", 0), 0u);
  // Gather-of-gather fused without an out-of-bounds guard: the inner gather reads 0 out of
  // bounds, the fused one reads a's element that the composed index happens to hit.
  Term inner = gather({3}, a, {"i"}, {add(i, p)});
  Term lhs = gather({3}, inner, {"j"}, {binary(BinOp::Sub, j, ic(1))});
  Term fused = gather({3}, a, {"j"}, {add(binary(BinOp::Sub, j, ic(1)), p)});
  EXPECT_EQ(prove_equal(lhs, fused).rfind("counterexample", 0), 0u);
  // Reassociating a sum is not a law of IEEE reals (and the encoding knows it).
  Term m = rv("m", {2, 3});
  Term s1 = sum_outer(sum_outer(m));
  Term s2 = sum_outer(sum_outer(tr(m)));
  EXPECT_EQ(prove_equal(s1, s2).rfind("counterexample", 0), 0u);
}

// The encoding is the evaluator's: on int-only terms (where the symbolic semantics is
// fully interpreted) the symbolic value at concrete inputs equals evaluate().
TEST(SymbolicEncoding, AgreesWithTheReferenceEvaluatorOnInts) {
  Term n = var("n", Type{Elem::Int, {3}}), p = iv("p"), i = iv("i"), j = iv("j");
  std::vector<Term> terms = {
      scatter({4}, n, {"i"}, {binary(BinOp::IDiv, add(i, p), ic(2))}),
      gather({4}, n, {"i"}, {binary(BinOp::Mod, binary(BinOp::Sub, i, p), ic(3))}),
      sum_outer(build1(3, "i", gather({2}, n, {"j"}, {add(j, mul(i, p))}))),
      index(transpose({1, 0}, reshape({3, 1}, n)), {p}),
      binary(BinOp::Mod, n, replicate(3, p)),
      binary(BinOp::IDiv, n, replicate(3, p)),
  };
  for (int64_t pv : {int64_t{-5}, int64_t{-1}, int64_t{0}, int64_t{1}, int64_t{2}, int64_t{7}, INT64_MIN}) {
    Tensor nv = Tensor::zeros(Elem::Int, {3});
    nv.i = {5, -7, INT64_MIN};
    for (auto &t : terms) {
      Tensor want = evaluate(t, {{"n", nv}, {"p", Tensor::integer(pv)}});
      z3::context ctx;
      proofs::SymEval ev(ctx);
      proofs::SymVal nsym{Elem::Int, {3}, {}};
      for (auto v : nv.i) nsym.v.push_back(ctx.bv_val(v, 64));
      proofs::SymVal psym{Elem::Int, {}, {ctx.bv_val(pv, 64)}};
      proofs::SymVal got = ev.eval(t, {{"n", nsym}, {"p", psym}});
      ASSERT_EQ(got.v.size(), want.i.size());
      for (size_t k = 0; k < got.v.size(); ++k) {
        z3::expr s = got.v[k].simplify();
        uint64_t u = 0;
        ASSERT_TRUE(Z3_get_numeral_uint64(ctx, s, &u)) << s;
        EXPECT_EQ(static_cast<int64_t>(u), want.i[k]) << print(t) << " at p = " << pv;
      }
    }
  }
}

}  // namespace
