#include "array/ad/share_to_let.hpp"

#include <unordered_map>

namespace rml::ad {

using ir::Kind;
using ir::Term;

bool contains_share(const Term &t) {
  std::unordered_map<const ir::Node *, bool> memo;
  std::vector<const ir::Node *> stack{t.get()};
  while (!stack.empty()) {
    const ir::Node *n = stack.back();
    stack.pop_back();
    if (!memo.emplace(n, true).second) continue;
    if (n->kind == Kind::Share) return true;
    for (auto &k : n->kids) stack.push_back(k.get());
    for (auto &k : n->ix) stack.push_back(k.get());
  }
  return false;
}

namespace {

struct Unsharer {
  std::map<int64_t, std::pair<std::string, Term>> m;  // id -> (variable, unshared body)
  std::unordered_map<const ir::Node *, Term> memo;    // the result does not depend on m's state

  Term go(const Term &t) {
    if (auto it = memo.find(t.get()); it != memo.end()) return it->second;
    Term out = step(t);
    memo.emplace(t.get(), out);
    return out;
  }

  Term step(const Term &t) {
    switch (t->kind) {
      case Kind::Var:
      case Kind::Const:
      case Kind::Iota: return t;
      case Kind::Share: {
        if (auto it = m.find(t->k); it != m.end()) return ir::var(it->second.first, t->type);
        Term body = go(t->kids[0]);
        // Fig. 20 erratum: insert into the map after the recursive call has extended it.
        std::string x = ir::fresh_name("shared");
        m.emplace(t->k, std::make_pair(x, body));
        return ir::var(x, t->type);
      }
      case Kind::Let:
      case Kind::Build1:
        if (contains_share(t)) throw ir::IrError("ad.shareToLet: share under a binder");
        return t;
      default: {
        for (auto &c : t->ix)
          if (contains_share(c)) throw ir::IrError("ad.shareToLet: share inside an index function");
        std::vector<Term> kids;
        bool changed = false;
        for (auto &k : t->kids) {
          kids.push_back(go(k));
          changed = changed || kids.back() != k;
        }
        return changed ? ir::with_kids(t, std::move(kids), t->ix) : t;
      }
    }
  }
};

}  // namespace

Unshared unshare(const std::vector<Term> &ts) {
  Unsharer u;
  Unshared out;
  for (auto &t : ts) out.terms.push_back(t ? u.go(t) : nullptr);
  for (auto &[id, vb] : u.m) out.lets.push_back(vb);  // std::map: increasing ID
  return out;
}

Term share_to_let(const Term &t) {
  Unshared u = unshare({t});
  Term body = u.terms[0];
  // stackLets: the highest ID ends up innermost.
  for (size_t k = u.lets.size(); k-- > 0;) body = ir::let(u.lets[k].first, u.lets[k].second, body);
  return body;
}

}  // namespace rml::ad
