#include "sema/expand_iterators.hpp"

#include <map>
#include <set>

#include "sema/rewrite.hpp"
#include "syntax/parser.hpp"

namespace rml {
namespace {

// Past this many elements an iterator is refused: its expansion is n calls (a fold nests
// them n deep).
constexpr int64_t kMaxIterations = 4096;

std::optional<Op> operator_of(const std::string &f) {
  static const std::map<std::string, Op> ops = {
      {"+", Op::Add}, {"-", Op::Sub}, {"*", Op::Mul}, {"/", Op::Div}, {"<", Op::Lt},   {"<=", Op::Le},  {">", Op::Gt},
      {">=", Op::Ge}, {"<>", Op::Ne}, {"=", Op::Eq},  {"and", Op::And}, {"or", Op::Or}, {"xor", Op::Xor}, {"mod", Op::Mod}};
  auto it = ops.find(f);
  if (it == ops.end()) return std::nullopt;
  return it->second;
}

struct IteratorExpander {
  Diagnostics &diags;
  std::map<std::string, const ConstDecl *> consts;
  std::set<std::string> declared;  // names a declaration takes (they hide the Lustre V6 forms)
  std::set<std::string> hidden;    // the current node's variables (they hide constants)
  std::map<std::string, size_t> outputs_of;  // every node's number of outputs
  // The equations binding the applications of an iterator with several results (fill,
  // fillred, mapfold), appended to the node after its own.
  std::vector<Equation> bound;
  int fresh = 0;

  // f applied to args (an operator: to its two, checked by expand()).
  static ExprPtr apply(const std::string &f, std::vector<ExprPtr> args, Span s) {
    if (auto op = operator_of(f)) return mk_binary(*op, std::move(args.at(0)), std::move(args.at(1)), s);
    auto c = make_expr(ExprKind::Call, s, std::move(args));
    c->name = f;
    return c;
  }
  static ExprPtr at(const Expr &a, int64_t i, Span s) {
    std::vector<ExprPtr> ix;
    ix.push_back(a.clone());
    ix.push_back(mk_int(i, s));
    return make_expr(ExprKind::Index, s, std::move(ix));
  }

  // The expansion of e if it is an iterator (its arguments already expanded), or null.
  ExprPtr expand(Expr &e) {
    if (e.kind != ExprKind::Call) return nullptr;
    static const std::set<std::string> heptagon = {"map", "mapi", "fold", "foldi", "mapfold"};
    static const std::set<std::string> several = {"mapfold", "fill", "fillred"};  // f returns a tuple
    std::string f, it = e.name;
    size_t first_arg = e.statics;
    const Expr *size = nullptr;
    if (!e.binders.empty()) {  // Heptagon: it<<n>> f (args)
      if (!heptagon.count(it)) return nullptr;
      f = e.binders[0];
      if (e.statics != 1) {
        diags.error("syntax.unsupported", e.span, "an iterator over several sizes ('" + it + "<<.., ..>>') is not read yet");
        return mk_int(0, e.span);
      }
      size = e.args[0].get();
    } else {  // Lustre V6: it<<f, n>>(args)
      if (!is_lustre_iterator(it) || declared.count(it) || e.statics != 2 || e.args[0]->kind != ExprKind::Var) return nullptr;
      f = e.args[0]->name;
      size = e.args[1].get();
    }
    auto n = static_int(*size, consts, &hidden);
    if (!n) {
      diags.error("static.not-static", size->span, "the size of '" + it + "' must be a static int (literals, int constants and + - * div mod of them)");
      return mk_int(0, e.span);
    }
    if (*n < 1 || *n > kMaxIterations) {
      diags.error("static.eval", size->span, "the size of '" + it + "' is " + std::to_string(*n) + ": it must be between 1 and " +
                                                 std::to_string(kMaxIterations));
      return mk_int(0, e.span);
    }
    std::vector<const Expr *> arrays;
    for (size_t k = first_arg; k < e.args.size(); ++k) arrays.push_back(e.args[k].get());
    if (several.count(it)) return expand_several(it, f, *n, arrays, e.span);
    const bool folds = it == "fold" || it == "foldi" || it == "red";
    if (folds && arrays.empty()) {
      diags.error("arity.args", e.span, "'" + it + "' takes its accumulator's initial value as an argument");
      return mk_int(0, e.span);
    }
    const Span s = e.span;
    const size_t arity = arrays.size() + (it == "mapi" || it == "foldi" ? 1 : 0);  // what f is applied to
    if (operator_of(f) && arity != 2) {
      diags.error("arity.args", s, "the operator '" + f + "' takes 2 arguments, the iterator gives it " + std::to_string(arity));
      return mk_int(0, s);
    }
    if (!folds) {  // map, mapi: an array literal of the applications
      std::vector<ExprPtr> elems;
      for (int64_t i = 0; i < *n; ++i) {
        std::vector<ExprPtr> args;
        for (auto *a : arrays) args.push_back(at(*a, i, s));
        if (it == "mapi") args.push_back(mk_int(i, s));
        elems.push_back(apply(f, std::move(args), s));
      }
      return make_expr(ExprKind::Array, s, std::move(elems));
    }
    // fold, foldi: the accumulator is the last argument; red: the first.
    const Expr *init = it == "red" ? arrays.front() : arrays.back();
    if (it == "red") arrays.erase(arrays.begin());
    else arrays.pop_back();
    ExprPtr acc = init->clone();
    for (int64_t i = 0; i < *n; ++i) {
      std::vector<ExprPtr> args;
      if (it == "red") args.push_back(std::move(acc));
      for (auto *a : arrays) args.push_back(at(*a, i, s));
      if (it == "foldi") args.push_back(mk_int(i, s));
      if (it != "red") args.push_back(std::move(acc));
      acc = apply(f, std::move(args), s);
    }
    // The parser bounds an expression's height (the passes after it recurse on it); a fold
    // nests its n applications, so it keeps to the same bound.
    if (acc->height > kMaxExprHeight) {
      diags.error("static.eval", size->span, "'" + it + "<<" + std::to_string(*n) + ">>' nests " + std::to_string(*n) +
                                                 " applications: its expression is higher than " + std::to_string(kMaxExprHeight) +
                                                 " (fold at most about " + std::to_string(kMaxExprHeight - 8) + " elements at once)");
      return mk_int(0, s);
    }
    return acc;
  }

  // fill, fillred (Lustre V6) and mapfold (Heptagon): f returns the accumulator and m
  // values, so each application is bound by an equation of its own (bound); the result
  // is the tuple of the final accumulator and the m arrays, in the iterator's order.
  ExprPtr expand_several(const std::string &it, const std::string &f, int64_t n, std::vector<const Expr *> arrays, Span s) {
    auto outs = outputs_of.find(f);
    if (operator_of(f) || outs == outputs_of.end() || outs->second < 2) {
      diags.error("type.mismatch", s, "'" + it + "' applies a node that returns its accumulator and at least one value; '" + f +
                                          "' " + (operator_of(f) ? "is an operator" : outs == outputs_of.end() ? "is not a node of this program" : "returns one value"));
      return mk_int(0, s);
    }
    if (it != "fill" && arrays.empty()) {
      diags.error("arity.args", s, "'" + it + "' takes its accumulator's initial value as an argument");
      return mk_int(0, s);
    }
    if (it == "fill" && arrays.size() != 1) {
      diags.error("arity.args", s, "'fill' takes one argument, its accumulator's initial value");
      return mk_int(0, s);
    }
    const bool acc_first = it != "mapfold";  // Lustre V6: f(acc, ..) returns (acc, ..)
    const size_t m = outs->second - 1;       // values per application
    const Expr *init = acc_first ? arrays.front() : arrays.back();
    if (acc_first) arrays.erase(arrays.begin());
    else arrays.pop_back();
    ExprPtr acc = init->clone();
    std::vector<std::vector<ExprPtr>> elems(m);
    for (int64_t i = 0; i < n; ++i) {
      std::vector<ExprPtr> args;
      if (acc_first) args.push_back(std::move(acc));
      for (auto *a : arrays) args.push_back(at(*a, i, s));
      if (!acc_first) args.push_back(std::move(acc));
      std::vector<ExprPtr> r = bind_fresh(apply(f, std::move(args), s), m + 1, it.c_str(), fresh, bound);
      acc = std::move(acc_first ? r.front() : r.back());
      for (size_t j = 0; j < m; ++j) elems[j].push_back(std::move(r[acc_first ? j + 1 : j]));
    }
    std::vector<ExprPtr> items;
    if (acc_first) items.push_back(std::move(acc));
    for (auto &v : elems) items.push_back(make_expr(ExprKind::Array, s, std::move(v)));
    if (!acc_first) items.push_back(std::move(acc));
    return make_expr(ExprKind::Tuple, s, std::move(items));
  }

  void rewrite(ExprPtr &e) {
    for (auto &a : e->args) rewrite(a);
    if (auto x = expand(*e)) e = std::move(x);
    else update_height(*e);
  }
};

}  // namespace

bool is_lustre_iterator(const std::string &name) {
  return name == "map" || name == "red" || name == "fill" || name == "fillred";
}

void expand_iterators(Program &p, size_t first, Diagnostics &diags) {
  IteratorExpander x{diags, {}, {}, {}, {}, {}};
  for (size_t i = 0; i < p.decls.size(); ++i) {
    if (i >= first) x.declared.insert(decl_name(p.decls[i]));
    if (auto *c = std::get_if<ConstDecl>(&p.decls[i])) x.consts[c->name] = c;
    if (auto *n = std::get_if<NodeDecl>(&p.decls[i])) x.outputs_of[n->name] = n->outputs.size();
  }
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *n = std::get_if<NodeDecl>(&p.decls[i]);
    if (!n) continue;
    x.hidden.clear();
    for (auto *vs : {&n->inputs, &n->outputs, &n->locals})
      for (auto &v : *vs) x.hidden.insert(v.name);
    rewrite_node_exprs(*n, [&](ExprPtr &e) { x.rewrite(e); });
    for (auto &eq : x.bound) n->equations.push_back(std::move(eq));
    x.bound.clear();
  }
}

}  // namespace rml
