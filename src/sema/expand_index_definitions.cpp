#include "sema/expand_index_definitions.hpp"

#include <functional>
#include <map>
#include <optional>
#include <set>

#include "sema/rewrite.hpp"

namespace rml {
namespace {

constexpr int64_t kMaxElements = 100000;

using Consts = std::map<std::string, const ConstDecl *>;
using Indices = std::map<std::string, int64_t>;

// e with each free index variable the int it stands for.
void substitute(ExprPtr &e, const Indices &idx) {
  std::set<std::string> hidden;
  rewrite_free_vars(
      e,
      [&](ExprPtr &v) {
        if (auto it = idx.find(v->name); it != idx.end()) v = mk_int(it->second, v->span);
      },
      hidden);
}

struct Decider {
  const Consts &consts;
  const std::set<std::string> &locals;  // the node's variables hide constants of their names

  std::optional<int64_t> integer(const Expr &e) const { return static_int(e, consts, &locals); }

  // The value of a condition the indices decide (ints compared, bool literals combined).
  std::optional<bool> decided(const Expr &e) const {
    if (e.kind == ExprKind::BoolLit) return e.bval;
    if (e.kind == ExprKind::Unary && e.op == Op::Not) {
      if (auto a = decided(*e.args[0])) return !*a;
      return std::nullopt;
    }
    if (e.kind != ExprKind::Binary) return std::nullopt;
    switch (e.op) {
      case Op::And: case Op::Or: case Op::Xor: case Op::Implies: {
        auto a = decided(*e.args[0]), b = decided(*e.args[1]);
        if (!a || !b) return std::nullopt;
        return e.op == Op::And ? *a && *b : e.op == Op::Or ? *a || *b : e.op == Op::Xor ? *a != *b : !*a || *b;
      }
      case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: {
        auto a = integer(*e.args[0]), b = integer(*e.args[1]);
        if (!a || !b) return std::nullopt;
        switch (e.op) {
          case Op::Eq: return *a == *b;
          case Op::Ne: return *a != *b;
          case Op::Lt: return *a < *b;
          case Op::Le: return *a <= *b;
          case Op::Gt: return *a > *b;
          default: return *a >= *b;
        }
      }
      default: return std::nullopt;
    }
  }

  // Each conditional whose condition is decided becomes the branch it takes.
  void fold(ExprPtr &e) const {
    for (auto &a : e->args) fold(a);
    if (e->kind == ExprKind::If)
      if (auto c = decided(*e->args[0])) {
        ExprPtr taken = std::move(e->args[*c ? 1 : 2]);
        e = std::move(taken);
        return;
      }
    update_height(*e);
  }
};

const VarDecl *declared(const std::vector<VarDecl> &vs, const std::string &name) {
  for (auto &v : vs)
    if (v.name == name) return &v;
  return nullptr;
}

}  // namespace

void expand_index_definitions(Program &p, size_t first, Diagnostics &diags) {
  Consts consts;
  for (auto &d : p.decls)
    if (auto *c = std::get_if<ConstDecl>(&d)) consts[c->name] = c;
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (!n) continue;
    std::set<std::string> locals;
    for (auto *vs : {&n->inputs, &n->outputs, &n->locals})
      for (auto &v : *vs) locals.insert(v.name);
    for (auto &eq : n->equations) {
      if (eq.index_vars.empty()) continue;
      const std::string &name = eq.lhs[0].name;
      const VarDecl *v = declared(n->outputs, name);
      if (!v) v = declared(n->locals, name);
      if (!v || !v->type) {
        if (declared(n->inputs, name)) diags.error("name.input-defined", eq.lhs[0].span, "'" + name + "' is an input: it has no equation");
        else diags.error("name.unknown", eq.lhs[0].span, "'" + name + "' is not an output or a local of '" + n->name + "' with a declared array type");
        continue;
      }
      // The sizes, outermost first: `T^n^m` is an array of m arrays of n.
      std::vector<int64_t> sizes;
      const TypeSyntax *t = &*v->type;
      bool ok = true;
      int64_t elements = 1;
      for (size_t l = 0; l < eq.index_vars.size() && ok; ++l) {
        if (t->kind != TypeSyntax::Array) {
          diags.error("shape.rank", eq.index_spans[l],
                      "'" + name + "' has " + std::to_string(l) + " array level(s), but is defined by " +
                          std::to_string(eq.index_vars.size()) + " index variable(s)");
          ok = false;
          break;
        }
        auto size = static_int(*t->dims[0].expr, consts, &locals);
        if (!size || *size < 0) {
          diags.error("static.not-static", t->dims[0].span, "the size of '" + name + "' must be a static int to define it by index");
          ok = false;
          break;
        }
        sizes.push_back(*size);
        elements = *size > 0 && elements > kMaxElements / *size ? kMaxElements + 1 : elements * *size;
        t = &t->elem[0];
      }
      if (!ok) continue;
      if (elements > kMaxElements) {
        diags.error("static.eval", eq.lhs[0].span, "'" + name + "' defined by index has more than 100000 elements");
        continue;
      }
      Decider decide{consts, locals};
      Indices idx;
      std::function<ExprPtr(size_t)> level = [&](size_t l) -> ExprPtr {
        if (l == sizes.size()) {
          ExprPtr e = eq.rhs->clone();
          substitute(e, idx);
          decide.fold(e);
          return e;
        }
        std::vector<ExprPtr> items;
        for (int64_t k = 0; k < sizes[l]; ++k) {
          idx[eq.index_vars[l]] = k;
          items.push_back(level(l + 1));
        }
        idx.erase(eq.index_vars[l]);
        return make_expr(ExprKind::Array, eq.rhs->span, std::move(items));
      };
      eq.rhs = level(0);
      eq.index_vars.clear();
      eq.index_spans.clear();
    }
  }
}

}  // namespace rml
