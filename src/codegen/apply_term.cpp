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

}  // namespace rml::codegen
