// Free variables of IR nodes, memoised per node (terms are immutable DAGs): the passes
// ask "does x occur free in t" at every let and build1, which ir::occurs_free answers by
// walking t each time.
#pragma once
#include <algorithm>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "array/ir/ir.hpp"

namespace rml::bot::detail {

class FreeVars {
 public:
  bool occurs(const std::string &x, const ir::Term &t) {
    const auto &fv = of(t);
    return std::binary_search(fv.begin(), fv.end(), x);
  }

  // Sorted, unique.
  const std::vector<std::string> &of(const ir::Term &t) {
    if (auto it = memo_.find(t.get()); it != memo_.end()) return *it->second.second;
    std::vector<std::string> out;
    auto add = [&](const std::vector<std::string> &xs, const std::vector<std::string> &minus) {
      for (auto &x : xs)
        if (std::find(minus.begin(), minus.end(), x) == minus.end()) out.push_back(x);
    };
    switch (t->kind) {
      case ir::Kind::Var: out.push_back(t->name); break;
      case ir::Kind::Let:
        add(of(t->kids[0]), {});
        add(of(t->kids[1]), {t->name});
        break;
      case ir::Kind::Build1: add(of(t->kids[0]), {t->name}); break;
      default:
        for (auto &k : t->kids) add(of(k), {});
        for (auto &c : t->ix) add(of(c), t->binders);
    }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    auto p = std::make_shared<const std::vector<std::string>>(std::move(out));
    return *memo_.emplace(t.get(), std::make_pair(t, p)).first->second.second;
  }

 private:
  // The key's node is kept alive so its address is never reused for another node.
  std::unordered_map<const ir::Node *, std::pair<ir::Term, std::shared_ptr<const std::vector<std::string>>>> memo_;
};

}  // namespace rml::bot::detail
