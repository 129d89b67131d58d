#include "codegen/fuse_applications.hpp"

#include <unordered_set>

namespace rml::codegen {

FusedProgram fuse_applications(const core::Program &p) {
  std::unordered_map<std::string, const Type *> type_of;
  for (auto *vars : {&p.inputs, &p.outputs, &p.locals})
    for (auto &v : *vars) type_of[v.name] = &v.type;
  for (auto &eq : p.equations) type_of[eq.lhs] = &eq.type;
  auto generated = [&](const core::Equation &eq) {
    return applied_by_function(eq, [&](const std::string &v) { return !type_of.at(v)->shape.empty(); });
  };
  // How often each variable is read, and which variables something other than an operand
  // reads (they keep their equation).
  std::unordered_map<std::string, int> reads;
  std::unordered_map<std::string, size_t> reader;  // the equation reading a variable (the last one seen)
  std::unordered_set<std::string> pinned;
  for (size_t e = 0; e < p.equations.size(); ++e)
    for (auto &a : p.equations[e].args) ++reads[a], reader[a] = e;
  for (auto &v : p.outputs) pinned.insert(v.name);
  for (auto &a : p.assumptions) pinned.insert(a.var);
  for (auto &q : p.properties) pinned.insert(q.var);
  for (auto &i : p.instances)
    if (!i.reset.empty()) pinned.insert(i.reset);
  for (auto &d : p.declared)
    for (auto &[positive, c] : d.on) pinned.insert(c);

  std::unordered_map<std::string, size_t> def;
  for (size_t e = 0; e < p.equations.size(); ++e) def[p.equations[e].lhs] = e;
  auto application = [&](const core::Equation &eq) { return eq.prim == core::Prim::Apply && generated(eq); };
  // Whether equation e's application is computed inside the one application reading it.
  auto fuses = [&](size_t e) {
    const core::Equation &eq = p.equations[e];
    if (!application(eq) || eq.args.empty() || pinned.count(eq.lhs) || reads[eq.lhs] != 1) return false;
    return application(p.equations[reader.at(eq.lhs)]);
  };

  FusedProgram out;
  std::unordered_set<std::string> removed;
  std::unordered_map<size_t, std::shared_ptr<const FusedApplication>> memo;
  std::function<std::shared_ptr<const FusedApplication>(size_t)> tree = [&](size_t e) {
    if (auto it = memo.find(e); it != memo.end()) return it->second;
    auto t = std::make_shared<FusedApplication>();
    t->eq = p.equations[e];
    for (auto &a : t->eq.args) {
      auto d = def.find(a);
      if (d != def.end() && fuses(d->second)) {
        t->from.push_back(tree(d->second));
        removed.insert(a);
      } else {
        t->from.push_back(nullptr);
      }
    }
    memo.emplace(e, t);
    return std::shared_ptr<const FusedApplication>(t);
  };
  // The leaves of a tree, in operand order, depth first.
  std::function<void(const FusedApplication &, std::vector<std::string> &)> leaves = [&](const FusedApplication &t,
                                                                                         std::vector<std::string> &ls) {
    for (size_t k = 0; k < t.eq.args.size(); ++k)
      if (t.from[k]) leaves(*t.from[k], ls);
      else ls.push_back(t.eq.args[k]);
  };

  out.prog = p;
  std::vector<core::Equation> kept;
  for (size_t e = 0; e < p.equations.size(); ++e) {
    if (!application(p.equations[e]) || fuses(e)) continue;
    auto t = tree(e);
    bool any = false;
    for (auto &f : t->from) any |= f != nullptr;
    if (any) out.tree_of.emplace(p.equations[e].lhs, t);
  }
  for (auto &eq : p.equations) {
    if (removed.count(eq.lhs)) continue;
    kept.push_back(eq);
    if (auto it = out.tree_of.find(eq.lhs); it != out.tree_of.end()) {
      kept.back().args.clear();
      leaves(*it->second, kept.back().args);
    }
  }
  out.prog.equations = std::move(kept);
  std::erase_if(out.prog.locals, [&](const core::Var &v) { return removed.count(v.name) > 0; });
  std::erase_if(out.prog.declared, [&](const core::DeclaredClock &d) { return removed.count(d.var) > 0; });
  return out;
}

}  // namespace rml::codegen
