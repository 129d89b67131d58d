#include "array/ir/program.hpp"

#include <sstream>

namespace rml::ir {

void typecheck(const Program &p) {
  std::vector<std::pair<std::string, Type>> env = p.inputs;
  for (auto &[name, t] : p.binds) {
    typecheck(t, env);
    env.emplace_back(name, t->type);
  }
  for (auto &o : p.outputs) typecheck(o, env);
}

std::vector<Tensor> evaluate(const Program &p, const std::vector<Tensor> &args) {
  if (args.size() != p.inputs.size())
    throw IrError("ir.program: " + std::to_string(args.size()) + " arguments for " + std::to_string(p.inputs.size()) + " inputs");
  Bindings env;
  for (size_t k = 0; k < args.size(); ++k) {
    if (args[k].elem != p.inputs[k].second.elem || args[k].shape != p.inputs[k].second.shape)
      throw IrError("ir.program: argument '" + p.inputs[k].first + "' has type " + Type{args[k].elem, args[k].shape}.str() +
                    ", expected " + p.inputs[k].second.str());
    env.emplace_back(p.inputs[k].first, args[k]);
  }
  for (auto &[name, t] : p.binds) env.emplace_back(name, evaluate(t, env));
  std::vector<Tensor> out;
  for (auto &o : p.outputs) out.push_back(evaluate(o, env));
  return out;
}

std::string print(const Program &p) {
  std::ostringstream out;
  out << "\\(";
  for (size_t k = 0; k < p.inputs.size(); ++k) out << (k ? ", " : "") << p.inputs[k].first << " : " << p.inputs[k].second.str();
  out << ") ->\n";
  for (auto &[name, t] : p.binds) out << "  let " << name << " = " << print(t) << " in\n";
  out << "  (";
  for (size_t k = 0; k < p.outputs.size(); ++k) {
    if (k) out << ",\n   ";
    if (k < p.output_names.size() && !p.output_names[k].empty()) out << "{- " << p.output_names[k] << " -} ";
    out << print(p.outputs[k]);
  }
  out << ")\n";
  return out.str();
}

Term as_term(const Program &p, size_t output) {
  Term t = p.outputs.at(output);
  for (size_t k = p.binds.size(); k-- > 0;)
    if (occurs_free(p.binds[k].first, t)) t = let(p.binds[k].first, p.binds[k].second, t);
  return t;
}

}  // namespace rml::ir
