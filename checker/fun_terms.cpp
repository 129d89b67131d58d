#include "checker/fun_terms.hpp"

#include <functional>

#include "array/lower/lower.hpp"

namespace rml::check {

std::optional<FunTerm> scalar_fun_term(const CheckedProgram &cp, const core::Equation &eq, const std::vector<Scalar> &types) {
  if (eq.prim != core::Prim::Apply || eq.op != core::ApplyOp::Call || eq.type.kind != Type::Tensor || !eq.type.shape.empty())
    return std::nullopt;
  if (eq.builtin || types.size() != eq.args.size()) return std::nullopt;  // a builtin outside the table: no body
  std::vector<Type> args;
  for (Scalar t : types) {
    Type a;
    a.kind = Type::Tensor;
    a.elem = t;
    args.push_back(a);
  }
  std::optional<FunTerm> ft = lowered_term(cp, eq, args);
  std::function<bool(const ir::Term &)> scalar = [&](const ir::Term &t) {
    if (!t->type.shape.empty()) return false;
    switch (t->kind) {
      case ir::Kind::Const:
      case ir::Kind::Var: break;
      case ir::Kind::Let:
      case ir::Kind::Cond:
      case ir::Kind::Unary:
      case ir::Kind::Binary:
      case ir::Kind::Share:
        for (auto &k : t->kids)
          if (!scalar(k)) return false;
        break;
      default: return false;
    }
    return true;
  };
  if (!ft || !scalar(ft->body)) return std::nullopt;
  return ft;
}

}  // namespace rml::check

#include "checker/smt_reals.hpp"

namespace rml::check {

std::optional<z3::expr> encode_fun_term(const FunTerm &ft, const std::vector<z3::expr> &args, z3::expr_vector &facts,
                                        LiaOps *lia) {
  if (args.empty()) return std::nullopt;
  z3::context &c = args[0].ctx();
  std::map<std::string, z3::expr> env;
  for (size_t k = 0; k < args.size(); ++k) env.emplace(ft.params[k], args[k]);
  std::function<std::optional<z3::expr>(const ir::Term &)> enc = [&](const ir::Term &t) -> std::optional<z3::expr> {
    switch (t->kind) {
      case ir::Kind::Const: {
        const array::Tensor &v = *t->value;
        if (v.elem == Scalar::Real) return real_val(c, v.r.at(0));
        if (v.elem == Scalar::Bool) return c.bool_val(v.i.at(0) != 0);
        return lia ? c.int_val(v.i.at(0)) : c.bv_val(v.i.at(0), 64);
      }
      case ir::Kind::Var: {
        auto it = env.find(t->name);
        if (it == env.end()) return std::nullopt;
        return it->second;
      }
      case ir::Kind::Let: {
        auto u = enc(t->kids[0]);
        if (!u) return std::nullopt;
        auto saved = env.find(t->name) != env.end() ? std::optional<z3::expr>(env.at(t->name)) : std::nullopt;
        env.insert_or_assign(t->name, *u);
        auto body = enc(t->kids[1]);
        if (saved) env.insert_or_assign(t->name, *saved);
        else env.erase(t->name);
        return body;
      }
      case ir::Kind::Cond: {
        auto b = enc(t->kids[0]), u = enc(t->kids[1]), v = enc(t->kids[2]);
        if (!b || !u || !v) return std::nullopt;
        return z3::ite(*b, *u, *v);
      }
      case ir::Kind::Unary: {
        auto x = enc(t->kids[0]);
        if (!x) return std::nullopt;
        return encode_unary(t->un, *x, facts, lia);
      }
      case ir::Kind::Binary: {
        auto x = enc(t->kids[0]), z = enc(t->kids[1]);
        if (!x || !z) return std::nullopt;
        return encode_binary(t->bin, *x, *z, lia);
      }
      case ir::Kind::Share: return enc(t->kids[0]);
      default: return std::nullopt;
    }
  };
  return enc(ft.body);
}

}  // namespace rml::check

#include "array/eval.hpp"

namespace rml::check {

std::optional<FunTerm> lowered_term(const CheckedProgram &cp, const core::Equation &eq, const std::vector<Type> &args) {
  if (eq.prim != core::Prim::Apply || eq.op != core::ApplyOp::Call || args.size() != eq.args.size()) return std::nullopt;
  try {
    std::vector<ir::Type> types;
    for (auto &t : args) {
      if (t.kind != Type::Tensor) return std::nullopt;
      types.push_back(ir::Type{t.elem, array::concrete_shape(t.shape)});
    }
    FunTerm ft;
    if (eq.builtin) {
      std::vector<ir::Term> vars;
      for (size_t k = 0; k < types.size(); ++k) {
        ft.params.push_back("rml_arg$" + std::to_string(k));
        vars.push_back(ir::var(ft.params.back(), types[k]));
      }
      ft.body = lower::lower_builtin(eq.fn, eq.static_args, vars, eq.span);
      return ft;
    }
    lower::Lowered l = lower::lower_fun(cp, eq.fn, eq.static_args, types);
    ft.body = l.body;
    for (auto &[name, type] : l.inputs) ft.params.push_back(name);
    if (ft.params.size() != eq.args.size()) return std::nullopt;
    return ft;
  } catch (std::exception &) {  // not lowered: the application stays unbounded
    return std::nullopt;
  }
}

}  // namespace rml::check
