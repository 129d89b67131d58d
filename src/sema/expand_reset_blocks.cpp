#include "sema/expand_reset_blocks.hpp"

#include <map>
#include <set>

#include "sema/rewrite.hpp"

namespace rml {
namespace {

void names_read(const Expr &e, std::vector<std::string> &out, std::set<std::string> &seen) {
  if (e.kind == ExprKind::Var && seen.insert(e.name).second) out.push_back(e.name);
  for (auto &a : e.args) names_read(*a, out, seen);
}

}  // namespace

bool expand_reset_blocks(Program &p, size_t first, Diagnostics &diags) {
  bool any = false;
  std::vector<std::pair<size_t, NodeDecl>> made;  // after which declaration
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (!n || n->resets.empty()) continue;
    any = true;
    std::map<std::string, const VarDecl *> declared;
    for (auto *vs : {&n->inputs, &n->outputs, &n->locals})
      for (auto &v : *vs) declared[v.name] = &v;
    std::set<std::string> node_names;  // every variable of the node (declared or defined)
    for (auto &[name, v] : declared) node_names.insert(name);
    for (auto &eq : n->equations)
      for (auto &l : eq.lhs) node_names.insert(l.name);
    std::vector<Equation> kept;
    for (size_t b = 0; b < n->resets.size(); ++b) {
      ResetBlock &blk = n->resets[b];
      NodeDecl inner;
      inner.name = n->name + "$reset" + std::to_string(b + 1);
      inner.name_span = blk.span;
      inner.keyword_span = blk.span;
      inner.lustre_style = inner.has_let = true;
      std::vector<std::string> defined, read;
      std::set<std::string> seen;
      for (auto &eq : n->equations) {
        if (eq.block != static_cast<int>(b)) continue;
        for (auto &l : eq.lhs)
          if (l.name != "_" && seen.insert(l.name).second) defined.push_back(l.name);
      }
      std::set<std::string> read_seen = seen;  // the block's own variables are not inputs
      for (auto &eq : n->equations)
        if (eq.block == static_cast<int>(b)) names_read(*eq.rhs, read, read_seen);
      bool ok = true;
      auto param = [&](const std::string &name, std::vector<VarDecl> &out) {
        auto it = declared.find(name);
        if (it == declared.end() || !it->second->type || !it->second->clock.empty()) {
          diags.error("syntax.unsupported", blk.span,
                      "the reset block's variable '" + name + "' needs a declared type and no declared clock (rml makes the block a node)");
          ok = false;
          return;
        }
        VarDecl v = it->second->clone();
        v.is_const = false;
        out.push_back(std::move(v));
      };
      for (auto &name : read)
        if (node_names.count(name)) param(name, inner.inputs);
      for (auto &name : defined) param(name, inner.outputs);
      if (!ok) {  // reported: the equations stay, unrestarted, so nothing else is reported of them
        for (auto &eq : n->equations)
          if (eq.block == static_cast<int>(b)) eq.block = -1;
        continue;
      }
      Equation call;
      call.span = blk.span;
      std::vector<ExprPtr> args;
      for (auto &v : inner.inputs) args.push_back(mk_var(v.name, blk.span));
      auto c = make_expr(ExprKind::Call, blk.span, std::move(args));
      c->name = inner.name;
      std::vector<ExprPtr> ra;
      ra.push_back(std::move(c));
      ra.push_back(std::move(blk.cond));
      call.rhs = make_expr(ExprKind::Reset, blk.span, std::move(ra));
      call.rhs->op_span = blk.every_span;
      for (auto &v : inner.outputs) call.lhs.push_back(LhsItem{v.name, v.span});
      for (auto &eq : n->equations)
        if (eq.block == static_cast<int>(b)) {
          eq.block = -1;
          inner.equations.push_back(std::move(eq));
        }
      kept.push_back(std::move(call));
      made.emplace_back(i, std::move(inner));
    }
    for (auto &eq : n->equations)
      if (eq.rhs && eq.block < 0) kept.push_back(std::move(eq));
    n->equations = std::move(kept);
    n->resets.clear();
  }
  if (made.empty()) return any;
  std::vector<Decl> out;
  size_t m = 0;
  for (size_t i = 0; i < p.decls.size(); ++i) {
    out.push_back(std::move(p.decls[i]));
    for (; m < made.size() && made[m].first == i; ++m) out.emplace_back(std::move(made[m].second));
  }
  p.decls = std::move(out);
  return any;
}

}  // namespace rml
