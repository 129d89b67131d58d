// The wrapper of Fig. 21 (array-ad.md §6.5), forward mode, and the runtime path.
#include "array/ad/ad.hpp"

#include <algorithm>
#include <set>

#include "array/ad/d_transform.hpp"
#include "array/ad/reverse.hpp"
#include "array/ad/share_to_let.hpp"
#include "array/bot/bot.hpp"

namespace rml::ad {

using ir::Elem;
using ir::IrError;
using ir::Term;
using ir::Type;

Term vectorise(const Term &t) { return bot::simplify(bot::bot(t)); }

namespace {

Term zeros(const ir::Shape &s) {
  Term r = ir::real_scalar(0.0);
  for (size_t d = s.size(); d-- > 0;) r = ir::replicate(s[d], r);
  return r;
}

// A name for an extra program input that no input already has.
std::string extra_name(const std::string &want, const Inputs &inputs) {
  for (auto &[x, ty] : inputs)
    if (x == want) return ir::fresh_name(want);
  return want;
}

// Drops binds no output needs, and inlines binds that only rename a variable (the
// `let shared = ctg` that a share of the bare cotangent leaves behind).
void tidy(ir::Program &p) {
  for (size_t k = 0; k < p.binds.size();) {
    auto &[x, rhs] = p.binds[k];
    if (rhs->kind != ir::Kind::Var) {
      ++k;
      continue;
    }
    Term r = rhs;
    std::string name = x;
    p.binds.erase(p.binds.begin() + static_cast<long>(k));
    for (size_t j = k; j < p.binds.size(); ++j) p.binds[j].second = ir::substitute(p.binds[j].second, name, r);
    for (auto &o : p.outputs) o = ir::substitute(o, name, r);
  }
  std::set<std::string> need;
  for (auto &o : p.outputs)
    for (auto &x : ir::free_vars(o)) need.insert(x);
  std::vector<bool> keep(p.binds.size(), false);
  for (size_t k = p.binds.size(); k-- > 0;) {
    if (!need.count(p.binds[k].first)) continue;
    keep[k] = true;
    for (auto &x : ir::free_vars(p.binds[k].second)) need.insert(x);
  }
  std::vector<std::pair<std::string, Term>> kept;
  for (size_t k = 0; k < p.binds.size(); ++k)
    if (keep[k]) kept.push_back(std::move(p.binds[k]));
  p.binds = std::move(kept);
}

Extracted extract(const Term &t, const Inputs &inputs, bool vectorise_first) {
  if (t->type.elem != Elem::Real) throw IrError("ad: the objective has type " + t->type.str() + " (real expected)");
  ir::typecheck(t, inputs);
  return differentiate(vectorise_first ? vectorise(t) : t, inputs);
}

}  // namespace

ir::Program vjp_program(const Term &t, const Inputs &inputs, bool vectorise_first) {
  Extracted ex = extract(t, inputs, vectorise_first);
  std::string cname = extra_name("ctg", inputs);
  Term c = ir::var(cname, t->type);
  std::vector<Term> grads = reverse_pass(ex.tape, ex.delta, c, inputs.size());
  Unshared u = unshare(grads);
  ir::Program p;
  p.inputs = inputs;
  p.inputs.emplace_back(cname, t->type);
  p.binds = ex.binds;
  p.binds.insert(p.binds.end(), u.lets.begin(), u.lets.end());
  p.outputs.push_back(ex.primal);
  p.output_names.push_back("value");
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].second.elem != Elem::Real) continue;
    // Inputs the objective does not depend on (differentiably) get zeros (§6.5 [REC]).
    p.outputs.push_back(u.terms[k] ? u.terms[k] : zeros(inputs[k].second.shape));
    p.output_names.push_back(inputs[k].first);
  }
  tidy(p);
  return p;
}

ir::Program gradient_program(const Term &t, const Inputs &inputs) {
  if (t->type != Type{Elem::Real, {}}) throw IrError("ad.gradient: the objective has type " + t->type.str() + " (real scalar expected)");
  return vjp_program(t, inputs, true);
}

ir::Program gradient_program(const Term &t, const Inputs &inputs, const std::vector<std::string> &wrt) {
  ir::Program p = gradient_program(t, inputs);
  ir::Program q = p;
  q.outputs = {p.outputs[0]};
  q.output_names = {p.output_names[0]};
  for (size_t k = 1; k < p.outputs.size(); ++k)
    if (std::find(wrt.begin(), wrt.end(), p.output_names[k]) != wrt.end()) {
      q.outputs.push_back(p.outputs[k]);
      q.output_names.push_back(p.output_names[k]);
    }
  tidy(q);  // the binds only the dropped gradients needed go too
  return q;
}

ir::Program jvp_program(const Term &t, const Inputs &inputs, bool vectorise_first) {
  Extracted ex = extract(t, inputs, vectorise_first);
  ir::Program p;
  p.inputs = inputs;
  std::vector<Term> tangents(inputs.size());
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].second.elem != Elem::Real) continue;
    std::string name = extra_name("d_" + inputs[k].first, p.inputs);
    p.inputs.emplace_back(name, inputs[k].second);
    tangents[k] = ir::var(name, inputs[k].second);
  }
  Unshared u = unshare({forward_pass(ex.tape, ex.delta, tangents)});
  p.binds = ex.binds;
  p.binds.insert(p.binds.end(), u.lets.begin(), u.lets.end());
  p.outputs = {ex.primal, u.terms[0]};
  p.output_names = {"value", "tangent"};
  tidy(p);
  return p;
}

Gradient runtime_gradient(const Term &t, const Inputs &inputs, const std::vector<ir::Tensor> &args, const ir::Tensor &ctg,
                          bool vectorise_first) {
  if (t->type.elem != Elem::Real) throw IrError("ad: the objective has type " + t->type.str() + " (real expected)");
  Extracted ex = differentiate_at(vectorise_first ? vectorise(t) : t, inputs, args);
  auto g = reverse_pass_at(ex.tape, ex.delta, ctg, inputs.size());
  Gradient out{*ex.primal->value, {}};
  for (size_t k = 0; k < inputs.size(); ++k)
    if (inputs[k].second.elem == Elem::Real)
      out.grads.push_back(g[k] ? *g[k] : ir::Tensor::zeros(Elem::Real, inputs[k].second.shape));
  return out;
}

std::pair<ir::Tensor, ir::Tensor> runtime_jvp(const Term &t, const Inputs &inputs, const std::vector<ir::Tensor> &args,
                                              const std::vector<ir::Tensor> &tangents, bool vectorise_first) {
  if (t->type.elem != Elem::Real) throw IrError("ad: the objective has type " + t->type.str() + " (real expected)");
  Extracted ex = differentiate_at(vectorise_first ? vectorise(t) : t, inputs, args);
  return {*ex.primal->value, forward_pass_at(ex.tape, ex.delta, tangents)};
}

}  // namespace rml::ad
