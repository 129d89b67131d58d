// Properties of the whole AD stage on random typed programs (tests/array/common/ir_gen.hpp):
// forward and reverse mode are transposes of one linearisation, the gradient matches
// central finite differences, the three AD paths agree, D's output has the shape Eq. 6
// promises, and shareToLet preserves the memoised meaning. Each states its law.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cfloat>
#include <optional>
#include <set>

#include "ad_test_util.hpp"
#include "array/common/ir_gen.hpp"

using namespace rml::ad;
using namespace rml::ad::test;
using rml::irgen::Case;
using rml::irgen::TermGen;
using rml::irgen::uniform;

namespace {

// Bulk terms (no build1) exercise the AD stage alone (vectorise_first = false); terms
// with build1 go through bot first (gradient_program's path).
rml::irgen::Options options(bool with_build1) {
  rml::irgen::Options o = rml::irgen::Options::objective();
  o.real_discontinuities = true;
  o.build1 = with_build1;
  return o;
}

// A real term of random shape over random inputs (some real).
rc::Gen<Case> gen_real_case(rml::irgen::Options o) {
  return rc::gen::exec([=] {
    TermGen g(o);
    Case c;
    c.inputs = rml::irgen::random_inputs(g, true);
    int depth = *rc::gen::inRange(1, o.depth + 1);
    Inputs scope = c.inputs;
    c.term = g.term(Type{Elem::Real, g.shape(o.max_rank)}, scope, depth);
    c.env = rml::irgen::random_bindings(c.inputs);
    return c;
  });
}

std::vector<Tensor> args_of(const Case &c) {
  std::vector<Tensor> out;
  for (auto &[x, v] : c.env) out.push_back(v);
  return out;
}

bool finite(const Tensor &t) {
  for (double v : t.r)
    if (!std::isfinite(v)) return false;
  return true;
}

// The generator's terms are often constant in the real inputs (about 85% of objectives
// have a zero gradient); these keep the cases whose value is finite and whose gradient
// (scalar dual numbers, cotangent of ones) is finite and not zero.
bool live(const Case &c) {
  Tensor ones = Tensor::zeros(Elem::Real, c.term->type.shape);
  for (auto &v : ones.r) v = 1;
  Gradient g = scalar_gradient(c.term, c.inputs, args_of(c), ones);
  if (!finite(g.value)) return false;
  bool nonzero = false;
  for (auto &t : g.grads) {
    if (!finite(t)) return false;
    for (double v : t.r) nonzero = nonzero || v != 0;
  }
  return nonzero;
}
// Dense cotangents meet every element's partial derivative: an infinite one (x/0 in an
// element the output never reads) gives 0·∞ = NaN in the gradient, as in every
// array-level AD (the scalar path, which only visits reachable elements, does not).
// The comparisons therefore need finite primal lets, derivative factors included.
bool finite_intermediates(const Case &c, bool through_bot) {
  Extracted ex = differentiate(through_bot ? vectorise(c.term) : c.term, c.inputs);
  Bindings env = c.env;
  for (auto &[x, t] : ex.binds) {
    env.emplace_back(x, evaluate(t, env));
    if (!finite(env.back().second)) return false;
  }
  return true;
}

rc::Gen<Case> gen_live_case(rml::irgen::Options o) { return rc::gen::suchThat(gen_real_case(o), live); }
rc::Gen<Case> gen_live_objective(rml::irgen::Options o) { return rc::gen::suchThat(rml::irgen::gen_objective(o), live); }

Tensor random_reals(const Shape &s) {
  Tensor t = Tensor::zeros(Elem::Real, s);
  for (auto &v : t.r) v = uniform(-1000, 1001) / 500.0;
  return t;
}

// |a−b| ≤ tol·max(1, |a|+|b|) elementwise.
bool close(const Tensor &a, const Tensor &b, double tol) {
  if (a.shape != b.shape) return false;
  for (size_t q = 0; q < a.r.size(); ++q)
    if (std::fabs(a.r[q] - b.r[q]) > tol * std::max(1.0, std::fabs(a.r[q]) + std::fabs(b.r[q]))) return false;
  return true;
}

std::vector<Tensor> run_program(const rml::ir::Program &p, const std::vector<Tensor> &args) {
  typecheck(p);
  return evaluate(p, args);
}

}  // namespace

// ⟨J·v, w⟩ = ⟨v, Jᵀ·w⟩: the JVP program (eval0 of the Delta) and the VJP program (the
// symbolic reverse pass) are transposes of the same linear map, and both compute the value.
RC_GTEST_PROP(AdProperties, JvpAndVjpAreTransposes, ()) {
  Case c = *gen_live_case(options(false));
  std::vector<Tensor> args = args_of(c);
  Tensor value = evaluate(c.term, c.env);
  RC_PRE(finite(value));
  RC_PRE(finite_intermediates(c, false));
  std::vector<Tensor> vs, jvp_args = args;
  for (auto &[x, ty] : c.inputs)
    if (ty.elem == Elem::Real) {
      vs.push_back(random_reals(ty.shape));
      jvp_args.push_back(vs.back());
    }
  Tensor w = random_reals(c.term->type.shape);
  auto jv = run_program(jvp_program(c.term, c.inputs, false), jvp_args);
  std::vector<Tensor> vjp_args = args;
  vjp_args.push_back(w);
  auto jtw = run_program(vjp_program(c.term, c.inputs, false), vjp_args);
  RC_ASSERT(close(jv[0], value, 1e-12));
  RC_ASSERT(close(jtw[0], value, 1e-12));
  RC_PRE(finite(jv[1]));
  // The runtime tape's forward pass computes the same J·v.
  std::vector<Tensor> all_tangents;
  for (size_t k = 0, r = 0; k < c.inputs.size(); ++k)
    all_tangents.push_back(c.inputs[k].second.elem == Elem::Real ? vs[r++] : Tensor{});
  RC_ASSERT(close(runtime_jvp(c.term, c.inputs, args, all_tangents, false).second, jv[1], 1e-12));
  double lhs = 0, rhs = 0, scale = 0;
  for (size_t q = 0; q < w.r.size(); ++q) {
    lhs += jv[1].r[q] * w.r[q];
    scale += std::fabs(jv[1].r[q] * w.r[q]);
  }
  RC_ASSERT(jtw.size() == vs.size() + 1);
  for (size_t k = 0; k < vs.size(); ++k) {
    RC_PRE(finite(jtw[k + 1]));
    for (size_t q = 0; q < vs[k].r.size(); ++q) {
      rhs += vs[k].r[q] * jtw[k + 1].r[q];
      scale += std::fabs(vs[k].r[q] * jtw[k + 1].r[q]);
    }
  }
  RC_LOG() << "<Jv,w> = " << lhs << ", <v,JTw> = " << rhs << "\n";
  RC_ASSERT(std::fabs(lhs - rhs) <= 1e-10 * std::max(1.0, scale));
}

// Central finite differences: for each sampled real input element x,
// |∂f/∂x − (f(x+h) − f(x−h))/2h| / max(1, |∂f/∂x| + |FD|) ≤ 1e-6 with h = cbrt(eps)·max(1,|x|),
// in float64, unless the int/bool intermediates (the scalar evaluator's discrete trace)
// differ between x−h, x and x+h: such a sample straddles a cond/floor/max discontinuity.
static void check_finite_differences(bool through_bot) {
  Case c = *gen_live_objective(options(through_bot));
  std::vector<Tensor> args = args_of(c);
  Tensor value = evaluate(c.term, c.env);
  RC_PRE(finite(value));
  RC_PRE(finite_intermediates(c, through_bot));
  auto out = run_program(vjp_program(c.term, c.inputs, through_bot), [&] {
    auto a = args;
    a.push_back(Tensor::real(1));
    return a;
  }());
  auto trace_at = [&](const std::vector<Tensor> &at) {
    std::vector<int64_t> tr;
    ScalarStats st;
    st.trace = &tr;
    scalar_gradient(c.term, c.inputs, at, Tensor::real(1), &st);
    return tr;
  };
  const std::vector<int64_t> base = trace_at(args);
  std::vector<std::pair<size_t, size_t>> coords;  // (input, element)
  size_t g = 0;
  std::vector<size_t> grad_of(c.inputs.size());
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    if (c.inputs[k].second.elem != Elem::Real) continue;
    grad_of[k] = ++g;
    for (size_t e = 0; e < args[k].numel(); ++e) coords.emplace_back(k, e);
  }
  // At most 8 coordinates per case, chosen at random.
  for (size_t q = coords.size(); q-- > 1;) std::swap(coords[q], coords[static_cast<size_t>(uniform<int>(0, static_cast<int>(q) + 1))]);
  if (coords.size() > 8) coords.resize(8);
  int checked = 0, rejected = 0, unconverged = 0;
  // The central difference with step h at coordinate (k, e), or nullopt if a discrete
  // decision changes on the way (the trace at x±h differs from the one at x).
  auto central = [&](size_t k, size_t e, double h) -> std::optional<double> {
    auto plus = args, minus = args;
    plus[k].r[e] += h;
    minus[k].r[e] -= h;
    if (trace_at(plus) != base || trace_at(minus) != base) return std::nullopt;
    Bindings ep = c.env, em = c.env;
    ep[k].second = plus[k];
    em[k].second = minus[k];
    return (evaluate(c.term, ep).r[0] - evaluate(c.term, em).r[0]) / (plus[k].r[e] - minus[k].r[e]);
  };
  for (auto [k, e] : coords) {
    double h = std::cbrt(DBL_EPSILON) * std::max(1.0, std::fabs(args[k].r[e]));
    auto fd = central(k, e, h), fd2 = central(k, e, h / 2);
    if (!fd || !fd2) {
      ++rejected;
      continue;
    }
    if (!std::isfinite(*fd) || !std::isfinite(*fd2)) continue;
    // Near a pole (x/y with y ≈ 0) the difference quotient itself is off by more than the
    // tolerance: its truncation error, estimated by halving h, decides.
    if (std::fabs(*fd - *fd2) > 1e-7 * std::max(1.0, std::fabs(*fd) + std::fabs(*fd2))) {
      ++unconverged;
      continue;
    }
    double ad = out[grad_of[k]].r[e];
    RC_LOG() << c.inputs[k].first << "[" << e << "]: AD " << ad << " FD " << *fd << "\n";
    RC_ASSERT(std::fabs(ad - *fd) / std::max(1.0, std::fabs(ad) + std::fabs(*fd)) <= 1e-6);
    ++checked;
  }
  RC_CLASSIFY(rejected > 0, "some samples straddle a discontinuity");
  RC_CLASSIFY(unconverged > 0, "some differences did not converge");
  RC_CLASSIFY(checked == 0, "no coordinate checked");
}

RC_GTEST_PROP(AdProperties, GradientMatchesCentralDifferences, ()) { check_finite_differences(false); }
RC_GTEST_PROP(AdProperties, GradientMatchesCentralDifferencesThroughBot, ()) { check_finite_differences(true); }

// Symbolic gradient program = runtime dual arrays = scalar dual numbers on the original
// term (values and gradients, to rounding: bot reassociates sums).
static void check_three_paths(bool through_bot) {
  Case c = *gen_live_objective(options(through_bot));
  std::vector<Tensor> args = args_of(c);
  Tensor ctg = Tensor::real(uniform(-1000, 1001) / 500.0);
  Gradient s = scalar_gradient(c.term, c.inputs, args, ctg);
  RC_PRE(finite(s.value));
  RC_PRE(finite_intermediates(c, through_bot));
  for (auto &t : s.grads) RC_PRE(finite(t));
  auto a = args;
  a.push_back(ctg);
  auto sym = run_program(vjp_program(c.term, c.inputs, through_bot), a);
  Gradient rt = runtime_gradient(c.term, c.inputs, args, ctg, through_bot);
  RC_ASSERT(close(sym[0], s.value, 1e-9));
  RC_ASSERT(close(rt.value, s.value, 1e-9));
  RC_ASSERT(sym.size() == s.grads.size() + 1);
  RC_ASSERT(rt.grads.size() == s.grads.size());
  for (size_t k = 0; k < s.grads.size(); ++k) {
    RC_LOG() << "grad " << k << ": symbolic " << sym[k + 1].str() << " runtime " << rt.grads[k].str() << " scalar "
             << s.grads[k].str() << "\n";
    RC_ASSERT(close(sym[k + 1], s.grads[k], 1e-9));
    RC_ASSERT(close(rt.grads[k], s.grads[k], 1e-9));
  }
}

RC_GTEST_PROP(AdProperties, ThreePathsAgree, ()) { check_three_paths(false); }
RC_GTEST_PROP(AdProperties, ThreePathsAgreeThroughBot, ()) { check_three_paths(true); }

// Eq. 6: D's output is `let <primal ANF>; ids; return (primal, Delta)` where the Delta
// mentions only primal variables (Scale factors and index terms are variables of the
// lets or inputs, or constants; index functions mention nothing else but their
// binders), every input's Delta is its Input node, IDs strictly decrease along child
// edges, and the primal computes the term's value exactly.
RC_GTEST_PROP(AdProperties, ExtractionInvariants, ()) {
  Case c = *gen_real_case(options(true));
  Term bulk = vectorise(c.term);
  Extracted ex = differentiate(bulk, c.inputs);
  std::set<std::string> primal_vars;
  for (auto &[x, ty] : c.inputs) primal_vars.insert(x);
  for (auto &[x, t] : ex.binds) primal_vars.insert(x);
  auto mentions_only_primals = [&](const Term &t, const std::vector<std::string> &binders) {
    for (auto &x : free_vars(t))
      if (!primal_vars.count(x) && std::find(binders.begin(), binders.end(), x) == binders.end()) return false;
    return true;
  };
  auto atomic = [](const Term &t) { return t->kind == Kind::Var || t->kind == Kind::Const; };
  for (size_t k = 0; k < c.inputs.size(); ++k) {
    DeltaId d = ex.input_deltas[k];
    if (c.inputs[k].second.elem != Elem::Real) {
      RC_ASSERT(d == -1);
      continue;
    }
    RC_ASSERT(ex.tape[d].kind == DKind::Input);
    RC_ASSERT(ex.tape[d].input == static_cast<int>(k));
    RC_ASSERT(ex.tape[d].shape == c.inputs[k].second.shape);
  }
  for (size_t id = 0; id < ex.tape.size(); ++id) {
    const DNode &n = ex.tape[static_cast<DeltaId>(id)];
    for (DeltaId kid : n.kids) RC_ASSERT(static_cast<size_t>(kid) < id);
    if (n.kind == DKind::Input) RC_ASSERT(ex.input_deltas.at(static_cast<size_t>(n.input)) == static_cast<DeltaId>(id));
    if (n.kind == DKind::Scale) RC_ASSERT(atomic(n.term) && mentions_only_primals(n.term, {}));
    if (n.kind == DKind::Index)
      for (auto &t : n.ix) RC_ASSERT(atomic(t) && mentions_only_primals(t, {}));
    if (n.kind == DKind::Gather || n.kind == DKind::Scatter)
      for (auto &t : n.ix) RC_ASSERT(mentions_only_primals(t, n.binders));
  }
  rml::ir::Program p{c.inputs, ex.binds, {ex.primal}, {}};
  RC_ASSERT(run_program(p, args_of(c))[0] == evaluate(bulk, c.env));
}

// After shareToLet no share remains, and evaluate (shareToLet t) = evaluate t with share
// memoised, for the reverse pass's cotangent terms and the forward pass's tangent terms;
// the lets come out in an order where each only uses earlier ones (evaluation would
// otherwise meet an unbound variable).
RC_GTEST_PROP(AdProperties, ShareToLetPreservesMemoisedMeaning, ()) {
  Case c = *gen_live_case(options(false));
  Extracted ex = differentiate(c.term, c.inputs);
  Bindings env = c.env;
  for (auto &[x, t] : ex.binds) env.emplace_back(x, evaluate(t, env));
  env.emplace_back("ctg$", random_reals(c.term->type.shape));
  std::vector<Term> tangents;
  for (auto &[x, ty] : c.inputs) {
    tangents.push_back(ty.elem == Elem::Real ? rvar("tan$" + x, ty.shape) : nullptr);
    if (ty.elem == Elem::Real) env.emplace_back("tan$" + x, random_reals(ty.shape));
  }
  std::vector<Term> terms = reverse_pass(ex.tape, ex.delta, rvar("ctg$", c.term->type.shape), c.inputs.size());
  terms.push_back(forward_pass(ex.tape, ex.delta, tangents));
  for (auto &t : terms) {
    if (!t) continue;
    Term s = share_to_let(t);
    RC_ASSERT(!contains_share(s));
    RC_ASSERT(evaluate(s, env) == evaluate(t, env));
  }
  // The gradients all at once, as the wrapper does: one let stack (the reverse pass's
  // share IDs are one namespace; the forward pass has its own).
  terms.pop_back();
  Unshared u = unshare(terms);
  Bindings full = env;
  for (auto &[x, t] : u.lets) {
    RC_ASSERT(!contains_share(t));
    full.emplace_back(x, evaluate(t, full));
  }
  for (size_t k = 0; k < terms.size(); ++k)
    if (terms[k]) RC_ASSERT(evaluate(u.terms[k], full) == evaluate(terms[k], env));
}
