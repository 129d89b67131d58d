#include "adjoint/apply_vjp.hpp"

#include <cctype>
#include <map>

#include "adjoint/adjoint.hpp"
#include "adjoint/ir_source.hpp"
#include "array/ad/ad.hpp"
#include "array/lower/lower.hpp"
#include "ops/ops.hpp"
#include "sema/frontend.hpp"
#include "syntax/diag.hpp"

namespace rml::adjoint {
namespace {

// A name hint for the application's operator: "tanh", "matvec", "mul".
std::string op_hint(const core::Equation &eq) {
  std::string s;
  switch (eq.op) {
    case core::ApplyOp::Unary: s = ops::row(eq.un).name; break;
    case core::ApplyOp::Binary:
      switch (eq.bin) {
        case ops::BinOp::Add: s = "add"; break;
        case ops::BinOp::Sub: s = "sub"; break;
        case ops::BinOp::Mul: s = "mul"; break;
        case ops::BinOp::Div: s = "div"; break;
        default: s = ops::row(eq.bin).name;
      }
      break;
    case core::ApplyOp::If: s = "if"; break;
    case core::ApplyOp::Index: s = "index"; break;
    case core::ApplyOp::Array: s = "array"; break;
    case core::ApplyOp::Call:
    case core::ApplyOp::Imported: s = eq.fn; break;
  }
  std::string out;
  for (char c : s)
    if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') out += c;
  return out.empty() ? "op" : out;
}

}  // namespace

std::vector<ApplyGradient> derive_apply_gradients(const std::vector<ApplyRequest> &requests, const std::string &path,
                                                  const std::string &text,
                                                  const std::function<const Type &(const std::string &)> &type_of,
                                                  const std::function<std::string(const std::string &)> &fresh,
                                                  std::string &funs_text) {
  // 1. One wrapper fun per distinct application, `fun W(a0: T0, ..) : T = f(a0, ..);`,
  //    keyed by its text and types, so equal applications share their gradient funs.
  struct Wrapper {
    std::string name, hint;
    Span span;
    std::vector<ir::Type> types;
    std::set<size_t> wanted;            // operand positions whose gradient is needed
    std::map<size_t, std::string> funs;  // position -> gradient fun
  };
  std::vector<Wrapper> wrappers;
  std::map<std::string, size_t> by_key;
  std::vector<size_t> wrapper_of(requests.size());
  std::vector<ApplyGradient> out(requests.size());
  std::string wrapper_text;
  for (size_t r = 0; r < requests.size(); ++r) {
    const core::Equation &eq = *requests[r].eq;
    if (eq.op == core::ApplyOp::Imported)
      throw AdjointError(eq.span, "adjoint.lowering", "'" + eq.fn + "' is imported (declared without a body): it has no derivative to take");
    ApplyGradient &g = out[r];
    std::map<std::string, std::string> param;
    for (auto &a : eq.args)
      if (!param.count(a)) {
        param[a] = "a" + std::to_string(param.size());
        g.operands.push_back(a);
      }
    std::string rhs = core::print_rhs(eq, [&](const std::string &v) { return param.at(v); });
    std::string params, key = rhs;
    std::vector<ir::Type> types;
    for (size_t k = 0; k < g.operands.size(); ++k) {
      const Type &t = type_of(g.operands[k]);
      auto it = lower::concrete_type(t, {});
      if (!it) throw AdjointError(eq.span, "adjoint.internal", "the type " + type_str(t) + " is not concrete");
      types.push_back(*it);
      params += (k ? ", " : "") + param.at(g.operands[k]) + ": " + surface_type(*it);
      key += "|" + it->str();
    }
    key += "|" + type_str(eq.type);
    auto [it, added] = by_key.try_emplace(key, wrappers.size());
    if (added) {
      Wrapper w{fresh("rml_adjoint_apply"), op_hint(eq), eq.span, types, {}, {}};
      wrapper_text += "fun " + w.name + "(" + params + ") : " + type_str(eq.type) + " = " + rhs + ";\n";
      wrappers.push_back(std::move(w));
    }
    wrapper_of[r] = it->second;
    for (size_t k = 0; k < g.operands.size(); ++k)
      if (requests[r].wanted.count(g.operands[k])) wrappers[it->second].wanted.insert(k);
  }
  if (wrappers.empty()) return out;

  // 2. The wrappers checked next to the user's file, lowered, differentiated, printed.
  auto fr = run_frontend(path, text + "\n" + wrapper_text);
  if (!fr->checked_ok)
    throw AdjointError({}, "adjoint.internal",
                       "the gradient wrappers do not check:\n" + render_all(fr->diags) + "\n" + wrapper_text);
  for (auto &w : wrappers) {
    ir::Program vjp;
    try {
      lower::Lowered low = lower::lower_fun(fr->checked, w.name, {}, w.types);
      vjp = ad::vjp_program(low.body, low.inputs);
    } catch (lower::LowerError &e) {
      throw AdjointError(w.span, "adjoint.lowering", std::string("this application cannot be differentiated: ") + e.what());
    } catch (ir::IrError &e) {
      throw AdjointError(w.span, "adjoint.lowering", std::string("this application cannot be differentiated: ") + e.what());
    }
    // vjp's outputs: the value, then one vector–Jacobian product per real operand.
    size_t output = 1;
    for (size_t k = 0; k < w.types.size(); ++k) {
      if (w.types[k].elem != Scalar::Real) continue;
      if (w.wanted.count(k)) {
        std::string name = fresh("d_" + w.hint + "_a" + std::to_string(k));
        try {
          funs_text += fun_source(name, vjp, output);
        } catch (IrSourceError &e) {
          throw AdjointError(w.span, "adjoint.unprintable", std::string("the gradient of this application: ") + e.what());
        }
        w.funs[k] = name;
      }
      ++output;
    }
  }
  for (size_t r = 0; r < requests.size(); ++r) {
    const Wrapper &w = wrappers[wrapper_of[r]];
    for (auto &[k, name] : w.funs)
      if (requests[r].wanted.count(out[r].operands[k])) out[r].funs.emplace_back(out[r].operands[k], name);
  }
  return out;
}

}  // namespace rml::adjoint
