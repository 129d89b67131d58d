#include "codegen/apply_term.hpp"

#include "array/lower/lower.hpp"
#include "codegen/emit_cpp.hpp"

namespace rml::codegen {

AppliedTerm apply_term(const CheckedProgram &cp, const core::Equation &eq, const std::vector<ir::Type> &types) {
  AppliedTerm out;
  std::vector<ir::Term> vars;
  for (size_t k = 0; k < types.size(); ++k) {
    out.inputs.emplace_back("a" + std::to_string(k), types[k]);
    vars.push_back(ir::var(out.inputs.back().first, types[k]));
  }
  try {
    switch (eq.op) {
      case core::ApplyOp::Unary: out.body = ir::unary(eq.un, vars.at(0)); break;
      case core::ApplyOp::Binary: out.body = ir::broadcast_binary(eq.bin, vars.at(0), vars.at(1)); break;
      case core::ApplyOp::If: out.body = ir::cond(vars.at(0), vars.at(1), vars.at(2)); break;
      case core::ApplyOp::Index: out.body = ir::index(vars.at(0), std::vector<ir::Term>(vars.begin() + 1, vars.end())); break;
      case core::ApplyOp::Array: out.body = ir::from_list(vars); break;
      case core::ApplyOp::Call: {
        const Decl *d = eq.builtin ? nullptr : cp.find(eq.fn);
        if (d && std::holds_alternative<FunDecl>(*d)) {
          lower::Lowered l = lower::lower_fun(cp, eq.fn, eq.static_args, types);
          out.inputs = l.inputs;
          out.body = l.body;
        } else {
          out.body = lower::lower_builtin(eq.fn, eq.static_args, vars, eq.span);
        }
        break;
      }
      case core::ApplyOp::Imported:
        throw CodegenError("codegen.imported", eq.span, "'" + eq.fn + "' is imported: rml compile does not generate calls of imported nodes");
    }
  } catch (lower::LowerError &e) {
    throw CodegenError("codegen.fun", eq.span, "'" + core::apply_name(eq) + "' cannot be lowered to the array IR: " + e.diag.message);
  } catch (ir::IrError &e) {
    throw CodegenError("codegen.fun", eq.span, "'" + core::apply_name(eq) + "' cannot be lowered to the array IR: " + e.what());
  }
  ir::Type want{eq.type.elem, {}};
  if (eq.type.kind == Type::Tensor)
    for (auto &d : eq.type.shape) want.shape.push_back(std::get<Poly>(d).const_value());
  if (out.body->type != want)
    throw CodegenError("codegen.internal", eq.span,
                       "'" + core::apply_name(eq) + "' lowers to " + out.body->type.str() + ", its equation has type " + want.str());
  return out;
}

namespace {

// How often x occurs free in t, and whether an occurrence is inside a loop of the term
// (a build's body, a gather's or scatter's indices): the evaluator runs those per element.
struct Occurrences {
  int count = 0;
  bool in_loop = false;
};
void occurrences(const ir::Term &t, const std::string &x, bool in_loop, Occurrences &o) {
  switch (t->kind) {
    case ir::Kind::Var:
      if (t->name == x) ++o.count, o.in_loop |= in_loop;
      return;
    case ir::Kind::Let:
      occurrences(t->kids[0], x, in_loop, o);
      if (t->name != x) occurrences(t->kids[1], x, in_loop, o);
      return;
    case ir::Kind::Build1:
      if (t->name != x) occurrences(t->kids[0], x, true, o);
      return;
    case ir::Kind::Gather:
    case ir::Kind::Scatter: {
      for (auto &k : t->kids) occurrences(k, x, in_loop, o);
      bool bound = false;
      for (auto &b : t->binders) bound |= b == x;
      if (!bound)
        for (auto &k : t->ix) occurrences(k, x, true, o);
      return;
    }
    default:
      for (auto &k : t->kids) occurrences(k, x, in_loop, o);
      for (auto &k : t->ix) occurrences(k, x, in_loop, o);
  }
}

ir::Term fused_term(const CheckedProgram &cp, const FusedApplication &app, const std::vector<ir::Type> &leaf_types, size_t &next_leaf,
                    std::vector<std::pair<std::string, ir::Type>> &inputs) {
  std::vector<ir::Type> types;
  std::vector<ir::Term> operands;
  for (size_t k = 0; k < app.eq.args.size(); ++k) {
    if (app.from.at(k)) {
      operands.push_back(fused_term(cp, *app.from[k], leaf_types, next_leaf, inputs));
    } else {
      // '$' keeps the leaves' names apart from every name a lowered fun binds.
      inputs.emplace_back("$u" + std::to_string(next_leaf), leaf_types.at(next_leaf));
      ++next_leaf;
      operands.push_back(ir::var(inputs.back().first, inputs.back().second));
    }
    types.push_back(operands.back()->type);
  }
  AppliedTerm t = apply_term(cp, app.eq, types);
  ir::Term body = t.body;
  for (size_t k = 0; k < t.inputs.size(); ++k) {
    const std::string &x = t.inputs[k].first;
    Occurrences o;
    occurrences(body, x, false, o);
    if (o.count == 0) continue;
    // A leaf is a variable: reading it anywhere costs nothing.
    const bool substitute = operands[k]->kind == ir::Kind::Var || (o.count == 1 && !o.in_loop);
    body = substitute ? ir::substitute(body, x, operands[k]) : ir::let(x, operands[k], body);
  }
  return body;
}

}  // namespace

AppliedTerm apply_fused(const CheckedProgram &cp, const FusedApplication &app, const std::vector<ir::Type> &leaf_types) {
  AppliedTerm out;
  size_t next = 0;
  out.body = fused_term(cp, app, leaf_types, next, out.inputs);
  if (next != leaf_types.size())
    throw CodegenError("codegen.internal", app.eq.span, "a fused application has " + std::to_string(next) + " leaves, its equation " +
                                                            std::to_string(leaf_types.size()) + " operands");
  return out;
}

}  // namespace rml::codegen
