// Step 1 of planning: the bulk Program as an SSA graph. Lets and variables are resolved
// (let chains iteratively: AD programs nest thousands of lets), equal subterms are merged,
// by pointer and environment first, then structurally (cse_key), small constant
// expressions are folded, and a condition known at compile time selects its branch.
#include <algorithm>
#include <set>
#include <sstream>

#include "array/exec/plan_internal.hpp"
#include "array/ir/eval.hpp"

namespace rml::exec::detail {

int Graph::add(SOp op) {
  std::string key = cse_key(op);
  if (!key.empty()) {
    auto [it, fresh] = cse_.emplace(key, static_cast<int>(ops.size()));
    if (!fresh) return it->second;
  }
  ops.push_back(std::move(op));
  return static_cast<int>(ops.size()) - 1;
}

int Graph::build(const Term &t) {
  // Let chains are walked iteratively: AD programs nest thousands of lets.
  std::vector<std::string> pushed;
  Term cur = t;
  while (cur->kind == Kind::Let) {
    int u = build(cur->kids[0]);
    push(cur->name, u);
    pushed.push_back(cur->name);
    cur = cur->kids[1];
  }
  int r = build_node(cur);
  for (auto it = pushed.rbegin(); it != pushed.rend(); ++it) pop(*it);
  return r;
}

int Graph::lookup(const std::string &x) const {
  auto it = env_.find(x);
  if (it == env_.end() || it->second.empty()) fail("unbound variable '" + x + "'");
  return it->second.back();
}

std::string Graph::cse_key(const SOp &op) {
  if (op.kind == Kind::Var) return "";  // inputs are distinct
  std::ostringstream k;
  k << static_cast<int>(op.kind) << '|' << op.type.str() << '|';
  for (int a : op.args) k << a << ',';
  k << '|';
  switch (op.kind) {
    case Kind::Const: k << op.value.get(); break;
    case Kind::Unary: k << static_cast<int>(op.node->un); break;
    case Kind::Binary: k << static_cast<int>(op.node->bin); break;
    case Kind::Replicate:
    case Kind::Iota: k << op.node->k; break;
    case Kind::Transpose:
    case Kind::Reshape:
      for (auto d : op.node->shape_arg) k << d << ',';
      break;
    case Kind::Gather:
    case Kind::Scatter:
      k << op.node;
      for (auto &[n, id] : op.caps) k << ';' << n << '=' << id;
      break;
    default: break;
  }
  return k.str();
}

const std::vector<std::string> &Graph::fv(const Term &root) {
  std::vector<std::pair<const Node *, bool>> st{{root.get(), false}};
  while (!st.empty()) {
    auto [n, ready] = st.back();
    st.pop_back();
    if (fv_.count(n)) continue;
    if (!ready) {
      st.emplace_back(n, true);
      for (auto &k : n->kids)
        if (!fv_.count(k.get())) st.emplace_back(k.get(), false);
      for (auto &k : n->ix)
        if (!fv_.count(k.get())) st.emplace_back(k.get(), false);
      continue;
    }
    std::set<std::string> s;
    auto add_all = [&](const Term &k, const std::vector<std::string> &minus) {
      for (auto &x : fv_.at(k.get()))
        if (std::find(minus.begin(), minus.end(), x) == minus.end()) s.insert(x);
    };
    switch (n->kind) {
      case Kind::Var: s.insert(n->name); break;
      case Kind::Let:
        add_all(n->kids[0], {});
        add_all(n->kids[1], {n->name});
        break;
      case Kind::Build1: add_all(n->kids[0], {n->name}); break;
      default:
        for (auto &k : n->kids) add_all(k, {});
        for (auto &k : n->ix) add_all(k, n->binders);
    }
    fv_[n] = std::vector<std::string>(s.begin(), s.end());
  }
  return fv_.at(root.get());
}

int Graph::build_node(const Term &t) {
  std::vector<int> key_ids;
  for (auto &x : fv(t)) key_ids.push_back(lookup(x));
  auto mk = std::make_pair(t.get(), key_ids);
  if (auto it = memo_.find(mk); it != memo_.end()) return it->second;
  int id = build_fresh(t);
  memo_.emplace(std::move(mk), id);
  return id;
}

int Graph::build_fresh(const Term &t) {
  SOp op;
  op.kind = t->kind;
  op.type = t->type;
  op.node = t.get();
  switch (t->kind) {
    case Kind::Var: return lookup(t->name);
    case Kind::Let: return build(t);
    case Kind::Build1: fail("build1 in the program (run bot first)");
    case Kind::Share: fail("share in the program (run shareToLet first)");
    case Kind::Const: op.value = t->value; return add(std::move(op));
    case Kind::Iota: return add(std::move(op));
    case Kind::Gather:
    case Kind::Scatter: {
      op.args.push_back(build(t->kids[0]));
      std::set<std::string> names;
      for (auto &c : t->ix)
        for (auto &x : fv(c))
          if (std::find(t->binders.begin(), t->binders.end(), x) == t->binders.end()) names.insert(x);
      for (auto &x : names) op.caps.emplace_back(x, lookup(x));
      return add(std::move(op));
    }
    default: break;
  }
  for (auto &k : t->kids) op.args.push_back(build(k));
  if (t->kind == Kind::Cond && ops[static_cast<size_t>(op.args[0])].kind == Kind::Const)
    return ops[static_cast<size_t>(op.args[0])].value->i.at(0) ? op.args[1] : op.args[2];
  if ((t->kind == Kind::Unary || t->kind == Kind::Binary) && ir::numel(t->type.shape) <= 16) {
    bool all_const = true;
    for (int a : op.args) all_const = all_const && ops[static_cast<size_t>(a)].kind == Kind::Const;
    if (all_const) {  // fold with the reference operators: exact by construction
      const ir::Tensor &x = *ops[static_cast<size_t>(op.args[0])].value;
      SOp c;
      c.kind = Kind::Const;
      c.type = t->type;
      c.value = std::make_shared<const ir::Tensor>(
          t->kind == Kind::Unary ? ir::apply_unary(t->un, x)
                                 : ir::apply_binary(t->bin, x, *ops[static_cast<size_t>(op.args[1])].value));
      return add(std::move(c));
    }
  }
  return add(std::move(op));
}

}  // namespace rml::exec::detail
