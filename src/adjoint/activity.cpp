#include "adjoint/activity.hpp"

#include <unordered_map>
#include <vector>

namespace rml::adjoint {

bool is_real(const Type &t) { return t.kind == Type::Tensor && t.elem == Scalar::Real && t.enum_name.empty(); }

std::map<std::string, std::string> find_params(const core::Program &p) {
  // Equations per instance: a param instance holds exactly one, the copy o = init.
  std::unordered_map<int, std::vector<const core::Equation *>> body;
  for (auto &eq : p.equations) body[eq.instance].push_back(&eq);
  std::map<std::string, std::string> params;
  for (size_t k = 1; k < p.instances.size(); ++k) {
    const std::string &path = p.instances[k].path;  // "dense$1.param$2."
    size_t from = path.rfind('.', path.size() >= 2 ? path.size() - 2 : 0);
    std::string last = path.substr(from == std::string::npos ? 0 : from + 1);
    if (last.rfind("param$", 0) != 0) continue;
    auto &eqs = body[static_cast<int>(k)];
    if (eqs.size() != 1 || eqs[0]->prim != core::Prim::Copy || !is_real(eqs[0]->type)) continue;
    params[eqs[0]->lhs] = eqs[0]->args[0];
  }
  return params;
}

Activity analyse(const core::Program &p, const std::map<std::string, std::string> &params, bool params_are_leaves) {
  std::unordered_map<std::string, const Type *> type;
  for (auto *vs : {&p.inputs, &p.outputs, &p.locals})
    for (auto &v : *vs) type[v.name] = &v.type;
  auto real = [&](const std::string &v) {
    auto it = type.find(v);
    return it != type.end() && is_real(*it->second);
  };
  Activity a;
  for (auto &v : p.inputs)
    if (real(v.name)) a.varied.insert(v.name);
  for (auto &[out, init] : params) a.varied.insert(out);
  for (auto &v : p.outputs)
    if (real(v.name)) a.useful.insert(v.name);
  // Both are least fixpoints over the equations; a pass changes nothing once they hold.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &eq : p.equations) {
      if (!real(eq.lhs) || (params_are_leaves && params.count(eq.lhs))) continue;  // a trained parameter is a leaf
      for (auto &x : eq.args)
        if (real(x) && a.varied.count(x) && a.varied.insert(eq.lhs).second) changed = true;
      if (a.useful.count(eq.lhs))
        for (auto &x : eq.args)
          if (real(x) && a.useful.insert(x).second) changed = true;
    }
  }
  return a;
}

}  // namespace rml::adjoint
