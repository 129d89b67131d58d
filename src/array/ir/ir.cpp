#include "array/ir/ir.hpp"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <unordered_map>

namespace rml::ir {

namespace {

[[noreturn]] void fail(const std::string &rule, const std::string &msg) { throw IrError("ir." + rule + ": " + msg); }

std::string shape_str(const Shape &s) {
  std::string out = "[";
  for (size_t d = 0; d < s.size(); ++d) out += (d ? "," : "") + std::to_string(s[d]);
  return out + "]";
}

// Checks a shape (dims ≥ 0, element count ≤ kMaxElements) and returns it.
Shape checked_shape(Shape s, const char *rule) {
  int64_t n = 1;
  for (auto d : s) {
    if (d < 0) fail(rule, "negative dimension in " + shape_str(s));
    if (d > 0 && n > kMaxElements / d) fail(rule, "shape " + shape_str(s) + " has more than 2^31 elements");
    n *= d;
  }
  if (n > kMaxElements) fail(rule, "shape " + shape_str(s) + " has more than 2^31 elements");
  return s;
}

std::shared_ptr<Node> make(Kind k, Elem e, Shape s, const char *rule) {
  auto n = std::make_shared<Node>();
  n->kind = k;
  n->type.elem = e;
  n->type.shape = checked_shape(std::move(s), rule);
  return n;
}

bool numeric(Elem e) { return e == Elem::Real || e == Elem::Int; }

void need_int_scalars(const std::vector<Term> &ix, const char *rule) {
  for (auto &c : ix)
    if (!is_int_scalar(c->type)) fail(rule, "index component of type " + c->type.str() + " (int expected)");
}

}  // namespace

std::string Type::str() const {
  std::string out = scalar_name(elem);
  if (!shape.empty()) out += shape_str(shape);
  return out;
}

bool is_int_scalar(const Type &t) { return t.elem == Elem::Int && t.shape.empty(); }

int64_t numel(const Shape &s) {
  int64_t n = 1;
  for (auto d : s) n *= d;
  return n;
}

// ---- builders ----

Term constant(Tensor v) {
  if (v.numel() != (v.elem == Elem::Real ? v.r.size() : v.i.size())) fail("const", "tensor data does not match its shape");
  auto n = make(Kind::Const, v.elem, v.shape, "const");
  n->value = std::make_shared<const Tensor>(std::move(v));
  return n;
}
Term real_scalar(double v) { return constant(Tensor::real(v)); }
Term int_scalar(int64_t v) { return constant(Tensor::integer(v)); }

Term var(const std::string &name, Type t) {
  if (name.empty()) fail("var", "empty variable name");
  auto n = make(Kind::Var, t.elem, t.shape, "var");
  n->name = name;
  return n;
}

Term let(const std::string &name, Term u, Term v) {
  if (name.empty()) fail("let", "empty binder");
  auto n = make(Kind::Let, v->type.elem, v->type.shape, "let");
  n->name = name;
  n->kids = {std::move(u), std::move(v)};
  return n;
}

Term cond(Term b, Term u, Term v) {
  if (b->type != Type{Elem::Bool, {}}) fail("cond", "condition of type " + b->type.str() + " (bool expected)");
  if (u->type != v->type) fail("cond", "branches of types " + u->type.str() + " and " + v->type.str());
  auto n = make(Kind::Cond, u->type.elem, u->type.shape, "cond");
  n->kids = {std::move(b), std::move(u), std::move(v)};
  return n;
}

Term unary(UnOp op, Term t) {
  // The typing rule is the table's (ops.hpp).
  std::optional<Elem> out = ops::result_type(ops::row(op).typing, t->type.elem);
  if (!out) fail("unary", std::string(op_name(op)) + " on " + t->type.str());
  auto n = make(Kind::Unary, *out, t->type.shape, "unary");
  n->un = op;
  n->kids = {std::move(t)};
  return n;
}

Term binary(BinOp op, Term a, Term b) {
  if (a->type != b->type)
    fail("binary", std::string(op_name(op)) + " on " + a->type.str() + " and " + b->type.str() + " (equal types expected)");
  std::optional<Elem> out = ops::result_type(ops::row(op).typing, a->type.elem);
  if (!out) fail("binary", std::string(op_name(op)) + " on " + a->type.str());
  auto n = make(Kind::Binary, *out, a->type.shape, "binary");
  n->bin = op;
  n->kids = {std::move(a), std::move(b)};
  return n;
}

Term broadcast_binary(BinOp op, Term a, Term b) {
  if (a->type.shape.empty() && !b->type.shape.empty()) {
    Term r = a;
    for (size_t d = b->type.shape.size(); d-- > 0;) r = replicate(b->type.shape[d], r);
    a = r;
  } else if (b->type.shape.empty() && !a->type.shape.empty()) {
    Term r = b;
    for (size_t d = a->type.shape.size(); d-- > 0;) r = replicate(a->type.shape[d], r);
    b = r;
  }
  return binary(op, std::move(a), std::move(b));
}

Term index(Term t, std::vector<Term> ix) {
  need_int_scalars(ix, "index");
  if (ix.size() > t->type.rank()) fail("index", std::to_string(ix.size()) + " components into " + t->type.str());
  Shape rest(t->type.shape.begin() + static_cast<long>(ix.size()), t->type.shape.end());
  auto n = make(Kind::Index, t->type.elem, rest, "index");
  n->kids.push_back(std::move(t));
  for (auto &c : ix) n->kids.push_back(std::move(c));
  return n;
}

Term sum_outer(Term t) {
  if (t->type.rank() == 0) fail("sumOuter", "argument of rank 0");
  if (!numeric(t->type.elem)) fail("sumOuter", "argument of type " + t->type.str());
  Shape rest(t->type.shape.begin() + 1, t->type.shape.end());
  auto n = make(Kind::SumOuter, t->type.elem, rest, "sumOuter");
  n->kids = {std::move(t)};
  return n;
}

namespace {
Term gather_or_scatter(bool is_gather, Shape sh, Term t, std::vector<std::string> binders, std::vector<Term> ix) {
  const char *rule = is_gather ? "gather" : "scatter";
  need_int_scalars(ix, rule);
  for (auto &b : binders)
    if (b.empty()) fail(rule, "empty binder");
  size_t m1 = binders.size(), m2 = ix.size();
  // gather: out = sh'[0..m1) ++ t[m2..);  scatter: out = sh'[0..m2) ++ t[m1..)
  size_t src_lead = is_gather ? m2 : m1, out_lead = is_gather ? m1 : m2;
  if (t->type.rank() < src_lead) fail(rule, "argument " + t->type.str() + " has rank below " + std::to_string(src_lead));
  if (sh.size() < out_lead) fail(rule, "shape " + shape_str(sh) + " shorter than " + std::to_string(out_lead));
  Shape t_rest(t->type.shape.begin() + static_cast<long>(src_lead), t->type.shape.end());
  Shape sh_rest(sh.begin() + static_cast<long>(out_lead), sh.end());
  if (t_rest != sh_rest)
    fail(rule, "shape " + shape_str(sh) + " does not end with the argument's trailing dims " + shape_str(t_rest));
  if (!is_gather && !numeric(t->type.elem)) fail(rule, "scatter of " + t->type.str() + " (numeric expected)");
  auto n = make(is_gather ? Kind::Gather : Kind::Scatter, t->type.elem, sh, rule);
  n->shape_arg = std::move(sh);
  n->kids = {std::move(t)};
  n->binders = std::move(binders);
  n->ix = std::move(ix);
  return n;
}
}  // namespace

Term gather(Shape sh, Term t, std::vector<std::string> binders, std::vector<Term> ix) {
  return gather_or_scatter(true, std::move(sh), std::move(t), std::move(binders), std::move(ix));
}
Term scatter(Shape sh, Term t, std::vector<std::string> binders, std::vector<Term> ix) {
  return gather_or_scatter(false, std::move(sh), std::move(t), std::move(binders), std::move(ix));
}

Term from_list(std::vector<Term> ts) {
  if (ts.empty()) fail("array", "empty literal array");
  for (auto &t : ts)
    if (t->type != ts[0]->type) fail("array", "elements of types " + ts[0]->type.str() + " and " + t->type.str());
  Shape s{static_cast<int64_t>(ts.size())};
  s.insert(s.end(), ts[0]->type.shape.begin(), ts[0]->type.shape.end());
  auto n = make(Kind::FromList, ts[0]->type.elem, s, "array");
  n->kids = std::move(ts);
  return n;
}

Term replicate(int64_t k, Term t) {
  Shape s{k};
  s.insert(s.end(), t->type.shape.begin(), t->type.shape.end());
  auto n = make(Kind::Replicate, t->type.elem, s, "replicate");
  n->k = k;
  n->kids = {std::move(t)};
  return n;
}

Term transpose(Shape perm, Term t) {
  size_t m = perm.size();
  if (m > t->type.rank()) fail("transpose", "permutation " + shape_str(perm) + " longer than the rank of " + t->type.str());
  std::vector<bool> seen(m, false);
  for (auto p : perm) {
    if (p < 0 || static_cast<size_t>(p) >= m || seen[static_cast<size_t>(p)])
      fail("transpose", shape_str(perm) + " is not a permutation");
    seen[static_cast<size_t>(p)] = true;
  }
  Shape s;
  for (auto p : perm) s.push_back(t->type.shape[static_cast<size_t>(p)]);
  s.insert(s.end(), t->type.shape.begin() + static_cast<long>(m), t->type.shape.end());
  auto n = make(Kind::Transpose, t->type.elem, s, "transpose");
  n->shape_arg = std::move(perm);
  n->kids = {std::move(t)};
  return n;
}
Term tr(Term t) { return transpose({1, 0}, std::move(t)); }

Term reshape(Shape sh, Term t) {
  checked_shape(sh, "reshape");
  if (numel(sh) != numel(t->type.shape))
    fail("reshape", "shape " + shape_str(sh) + " for an argument of type " + t->type.str());
  auto n = make(Kind::Reshape, t->type.elem, sh, "reshape");
  n->shape_arg = std::move(sh);
  n->kids = {std::move(t)};
  return n;
}

Term build1(int64_t k, const std::string &binder, Term body) {
  if (binder.empty()) fail("build1", "empty binder");
  Shape s{k};
  s.insert(s.end(), body->type.shape.begin(), body->type.shape.end());
  auto n = make(Kind::Build1, body->type.elem, s, "build1");
  n->k = k;
  n->name = binder;
  n->kids = {std::move(body)};
  return n;
}

Term iota(int64_t k) {
  auto n = make(Kind::Iota, Elem::Int, {k}, "iota");
  n->k = k;
  return n;
}

Term share(int64_t id, Term t) {
  auto n = make(Kind::Share, t->type.elem, t->type.shape, "share");
  n->k = id;
  n->kids = {std::move(t)};
  return n;
}

// ---- structure ----

std::string fresh_name(const std::string &hint) {
  static std::atomic<uint64_t> counter{0};
  std::string base = hint.substr(0, hint.find('$'));
  if (base.empty()) base = "x";
  return base + "$" + std::to_string(++counter);
}

Term with_kids(const Term &t, std::vector<Term> kids, std::vector<Term> ix) {
  switch (t->kind) {
    case Kind::Const:
    case Kind::Var:
    case Kind::Iota: return t;
    case Kind::Let: return let(t->name, kids.at(0), kids.at(1));
    case Kind::Cond: return cond(kids.at(0), kids.at(1), kids.at(2));
    case Kind::Unary: return unary(t->un, kids.at(0));
    case Kind::Binary: return binary(t->bin, kids.at(0), kids.at(1));
    case Kind::Index: {
      Term base = kids.at(0);
      kids.erase(kids.begin());
      return index(base, std::move(kids));
    }
    case Kind::SumOuter: return sum_outer(kids.at(0));
    case Kind::Gather: return gather(t->shape_arg, kids.at(0), t->binders, std::move(ix));
    case Kind::Scatter: return scatter(t->shape_arg, kids.at(0), t->binders, std::move(ix));
    case Kind::FromList: return from_list(std::move(kids));
    case Kind::Replicate: return replicate(t->k, kids.at(0));
    case Kind::Transpose: return transpose(t->shape_arg, kids.at(0));
    case Kind::Reshape: return reshape(t->shape_arg, kids.at(0));
    case Kind::Build1: return build1(t->k, t->name, kids.at(0));
    case Kind::Share: return share(t->k, kids.at(0));
  }
  fail("internal", "unknown node kind");
}

namespace {

// Names a node binds over which children: let binds over kids[1]; build1 over kids[0];
// gather/scatter binders over ix only.
void collect_free(const Term &t, std::vector<std::string> &bound, std::set<std::string> &out) {
  auto is_bound = [&](const std::string &x) { return std::find(bound.begin(), bound.end(), x) != bound.end(); };
  switch (t->kind) {
    case Kind::Var:
      if (!is_bound(t->name)) out.insert(t->name);
      return;
    case Kind::Let:
      collect_free(t->kids[0], bound, out);
      bound.push_back(t->name);
      collect_free(t->kids[1], bound, out);
      bound.pop_back();
      return;
    case Kind::Build1:
      bound.push_back(t->name);
      collect_free(t->kids[0], bound, out);
      bound.pop_back();
      return;
    default:
      for (auto &k : t->kids) collect_free(k, bound, out);
      if (!t->ix.empty()) {
        for (auto &b : t->binders) bound.push_back(b);
        for (auto &c : t->ix) collect_free(c, bound, out);
        bound.resize(bound.size() - t->binders.size());
      }
  }
}

}  // namespace

std::vector<std::string> free_vars(const Term &t) {
  std::vector<std::string> bound;
  std::set<std::string> out;
  collect_free(t, bound, out);
  return {out.begin(), out.end()};
}

bool occurs_free(const std::string &x, const Term &t) {
  auto fv = free_vars(t);
  return std::binary_search(fv.begin(), fv.end(), x);
}

namespace {

struct Substituter {
  std::string x;
  Term s;
  std::vector<std::string> fv_s;  // sorted
  std::unordered_map<const Node *, Term> memo;

  bool captures(const std::string &b) const { return std::binary_search(fv_s.begin(), fv_s.end(), b); }

  Term go(const Term &t) {
    if (auto it = memo.find(t.get()); it != memo.end()) return it->second;
    Term out = step(t);
    memo.emplace(t.get(), out);
    return out;
  }

  // Renames binder b to a fresh name inside `body` when it would capture s.
  static Term rename(const Term &body, const std::string &b, const std::string &nb, const Type &ty) {
    return substitute(body, b, var(nb, ty));
  }

  Term step(const Term &t) {
    switch (t->kind) {
      case Kind::Var: return t->name == x ? s : t;
      case Kind::Const:
      case Kind::Iota: return t;
      case Kind::Let: {
        Term u = go(t->kids[0]);
        if (t->name == x) return let(t->name, u, t->kids[1]);
        if (captures(t->name) && occurs_free(x, t->kids[1])) {
          std::string nb = fresh_name(t->name);
          Term body = rename(t->kids[1], t->name, nb, t->kids[0]->type);
          return let(nb, u, Substituter{x, s, fv_s, {}}.go(body));
        }
        return let(t->name, u, go(t->kids[1]));
      }
      case Kind::Build1: {
        if (t->name == x) return t;
        if (captures(t->name) && occurs_free(x, t->kids[0])) {
          std::string nb = fresh_name(t->name);
          Term body = rename(t->kids[0], t->name, nb, Type{Elem::Int, {}});
          return build1(t->k, nb, Substituter{x, s, fv_s, {}}.go(body));
        }
        return build1(t->k, t->name, go(t->kids[0]));
      }
      case Kind::Gather:
      case Kind::Scatter: {
        Term arg = go(t->kids[0]);
        std::vector<std::string> binders = t->binders;
        std::vector<Term> ix = t->ix;
        bool shadowed = std::find(binders.begin(), binders.end(), x) != binders.end();
        if (!shadowed) {
          bool needed = false;
          for (auto &c : ix) needed = needed || occurs_free(x, c);
          if (needed) {
            for (auto &b : binders)
              if (captures(b)) {
                std::string nb = fresh_name(b);
                for (auto &c : ix) c = rename(c, b, nb, Type{Elem::Int, {}});
                b = nb;
              }
            Substituter inner{x, s, fv_s, {}};
            for (auto &c : ix) c = inner.go(c);
          }
        }
        return t->kind == Kind::Gather ? gather(t->shape_arg, arg, binders, ix) : scatter(t->shape_arg, arg, binders, ix);
      }
      default: {
        std::vector<Term> kids;
        bool changed = false;
        for (auto &k : t->kids) {
          kids.push_back(go(k));
          changed = changed || kids.back() != k;
        }
        return changed ? with_kids(t, std::move(kids), t->ix) : t;
      }
    }
  }
};

}  // namespace

Term substitute(const Term &t, const std::string &x, const Term &s) {
  if (!occurs_free(x, t)) return t;
  Substituter sub{x, s, free_vars(s), {}};
  return sub.go(t);
}

namespace {

struct AlphaEq {
  std::vector<std::pair<std::string, std::string>> env;  // bound pairs, innermost last

  bool vars(const std::string &a, const std::string &b) const {
    for (auto it = env.rbegin(); it != env.rend(); ++it) {
      if (it->first == a || it->second == b) return it->first == a && it->second == b;
    }
    return a == b;  // both free
  }

  bool eq(const Term &a, const Term &b) {
    if (a->kind != b->kind || a->type != b->type) return false;
    if (a == b && env.empty()) return true;
    switch (a->kind) {
      case Kind::Const: return *a->value == *b->value;
      case Kind::Var: return vars(a->name, b->name);
      case Kind::Iota: return a->k == b->k;
      case Kind::Let: {
        if (!eq(a->kids[0], b->kids[0])) return false;
        env.emplace_back(a->name, b->name);
        bool r = eq(a->kids[1], b->kids[1]);
        env.pop_back();
        return r;
      }
      case Kind::Build1: {
        if (a->k != b->k) return false;
        env.emplace_back(a->name, b->name);
        bool r = eq(a->kids[0], b->kids[0]);
        env.pop_back();
        return r;
      }
      default: break;
    }
    if (a->un != b->un || a->bin != b->bin || a->shape_arg != b->shape_arg || a->k != b->k) return false;
    if (a->kids.size() != b->kids.size() || a->ix.size() != b->ix.size() || a->binders.size() != b->binders.size())
      return false;
    for (size_t q = 0; q < a->kids.size(); ++q)
      if (!eq(a->kids[q], b->kids[q])) return false;
    for (size_t q = 0; q < a->binders.size(); ++q) env.emplace_back(a->binders[q], b->binders[q]);
    bool r = true;
    for (size_t q = 0; q < a->ix.size() && r; ++q) r = eq(a->ix[q], b->ix[q]);
    env.resize(env.size() - a->binders.size());
    return r;
  }
};

}  // namespace

bool alpha_equal(const Term &a, const Term &b) { return AlphaEq{}.eq(a, b); }

size_t term_size(const Term &t) {
  std::unordered_map<const Node *, size_t> memo;
  std::function<size_t(const Term &)> go = [&](const Term &n) -> size_t {
    if (auto it = memo.find(n.get()); it != memo.end()) return it->second;
    size_t s = 1;
    for (auto &k : n->kids) s = std::min<size_t>(s + go(k), SIZE_MAX / 4);
    for (auto &k : n->ix) s = std::min<size_t>(s + go(k), SIZE_MAX / 4);
    memo.emplace(n.get(), s);
    return s;
  };
  return go(t);
}

size_t dag_size(const Term &t) {
  std::set<const Node *> seen;
  std::vector<const Node *> stack{t.get()};
  while (!stack.empty()) {
    const Node *n = stack.back();
    stack.pop_back();
    if (!seen.insert(n).second) continue;
    for (auto &k : n->kids) stack.push_back(k.get());
    for (auto &k : n->ix) stack.push_back(k.get());
  }
  return seen.size();
}

void typecheck(const Term &t, const std::vector<std::pair<std::string, Type>> &free) {
  std::vector<std::pair<std::string, Type>> env = free;
  std::function<void(const Term &)> go = [&](const Term &n) {
    switch (n->kind) {
      case Kind::Var: {
        for (auto it = env.rbegin(); it != env.rend(); ++it)
          if (it->first == n->name) {
            if (it->second != n->type)
              fail("var", "'" + n->name + "' used at " + n->type.str() + " but bound at " + it->second.str());
            return;
          }
        fail("var", "unbound variable '" + n->name + "'");
      }
      case Kind::Let:
        go(n->kids[0]);
        env.emplace_back(n->name, n->kids[0]->type);
        go(n->kids[1]);
        env.pop_back();
        return;
      case Kind::Build1:
        env.emplace_back(n->name, Type{Elem::Int, {}});
        go(n->kids[0]);
        env.pop_back();
        return;
      default:
        for (auto &k : n->kids) go(k);
        for (auto &b : n->binders) env.emplace_back(b, Type{Elem::Int, {}});
        for (auto &c : n->ix) go(c);
        env.resize(env.size() - n->binders.size());
    }
  };
  go(t);
}

// ---- printer ----

namespace {

std::string real_str(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  // shortest representation that reads back exactly
  for (int p = 1; p <= 17; ++p) {
    char b2[40];
    std::snprintf(b2, sizeof b2, "%.*g", p, v);
    if (std::strtod(b2, nullptr) == v) {
      std::snprintf(buf, sizeof buf, "%s", b2);
      break;
    }
  }
  std::string s = buf;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string const_str(const Tensor &t) {
  if (t.numel() > 16) return "<" + Type{t.elem, t.shape}.str() + " constant>";
  if (t.elem == Elem::Real) {
    // Tensor::str prints reals with limited precision; print exactly here.
    std::function<std::string(size_t, size_t &)> go = [&](size_t d, size_t &k) -> std::string {
      if (d == t.shape.size()) return real_str(t.r[k++]);
      std::string out = "[";
      for (int64_t j = 0; j < t.shape[d]; ++j) out += (j ? ", " : "") + go(d + 1, k);
      return out + "]";
    };
    size_t k = 0;
    return go(0, k);
  }
  return t.str();
}

struct Printer {
  std::ostringstream out;
  int indent = 0;

  static bool atomic(const Term &t) {
    return t->kind == Kind::Var || (t->kind == Kind::Const && (t->type.shape.empty() || t->value->numel() <= 16)) ||
           t->kind == Kind::FromList;
  }
  void arg(const Term &t) {
    if (atomic(t)) return term(t);
    out << "(";
    term(t);
    out << ")";
  }
  void list(const std::vector<Term> &ts) {
    out << "[";
    for (size_t q = 0; q < ts.size(); ++q) {
      if (q) out << ", ";
      term(ts[q]);
    }
    out << "]";
  }
  static std::string shape(const Shape &s) {
    std::string o = "[";
    for (size_t d = 0; d < s.size(); ++d) o += (d ? ", " : "") + std::to_string(s[d]);
    return o + "]";
  }
  void newline() { out << "\n" << std::string(static_cast<size_t>(indent) * 2, ' '); }

  void term(const Term &t) {
    switch (t->kind) {
      case Kind::Const: out << const_str(*t->value); return;
      case Kind::Var: out << t->name; return;
      case Kind::Let: {
        out << "let " << t->name << " = ";
        ++indent;
        term(t->kids[0]);
        --indent;
        out << " in";
        newline();
        term(t->kids[1]);
        return;
      }
      case Kind::Cond:
        out << "cond ";
        arg(t->kids[0]);
        out << " ";
        arg(t->kids[1]);
        out << " ";
        arg(t->kids[2]);
        return;
      case Kind::Unary:
        out << op_name(t->un) << " ";
        arg(t->kids[0]);
        return;
      case Kind::Binary:
        if (t->bin == BinOp::Max || t->bin == BinOp::Min) {
          out << op_name(t->bin) << " ";
          arg(t->kids[0]);
          out << " ";
          arg(t->kids[1]);
          return;
        }
        arg(t->kids[0]);
        out << " " << op_name(t->bin) << " ";
        arg(t->kids[1]);
        return;
      case Kind::Index: {
        out << "index ";
        arg(t->kids[0]);
        out << " ";
        list(std::vector<Term>(t->kids.begin() + 1, t->kids.end()));
        return;
      }
      case Kind::SumOuter:
        out << "sumOuter ";
        arg(t->kids[0]);
        return;
      case Kind::Gather:
      case Kind::Scatter: {
        out << (t->kind == Kind::Gather ? "gather " : "scatter ") << shape(t->shape_arg) << " ";
        arg(t->kids[0]);
        out << " (\\[";
        for (size_t q = 0; q < t->binders.size(); ++q) out << (q ? ", " : "") << t->binders[q];
        out << "]. ";
        list(t->ix);
        out << ")";
        return;
      }
      case Kind::FromList: list(t->kids); return;
      case Kind::Replicate:
        out << "replicate " << t->k << " ";
        arg(t->kids[0]);
        return;
      case Kind::Transpose: {
        out << "tr_{";
        for (size_t q = 0; q < t->shape_arg.size(); ++q) out << (q ? "," : "") << t->shape_arg[q];
        out << "} ";
        arg(t->kids[0]);
        return;
      }
      case Kind::Reshape:
        out << "reshape " << shape(t->shape_arg) << " ";
        arg(t->kids[0]);
        return;
      case Kind::Build1:
        out << "build1 " << t->k << " (\\" << t->name << ". ";
        term(t->kids[0]);
        out << ")";
        return;
      case Kind::Iota: out << "iota " << t->k; return;
      case Kind::Share:
        out << "share " << t->k << " ";
        arg(t->kids[0]);
        return;
    }
  }
};

}  // namespace

std::string print(const Term &t) {
  Printer p;
  p.term(t);
  return p.out.str();
}

}  // namespace rml::ir
