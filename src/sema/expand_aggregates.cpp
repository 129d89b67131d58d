#include "sema/expand_aggregates.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "sema/rewrite.hpp"

namespace rml {
namespace {

// Flattening makes one stream per leaf: bounded so that a large size is an error, not an
// exhausted memory.
constexpr int64_t kMaxLeaves = 1 << 16;

// The structure of a value: one stream (a leaf), a record of fields, or an array of
// `size` elements. Leaf types are not needed for expressions (the type checker infers
// them after flattening); declarations carry theirs (typed_leaves below).
struct Agg;
using AggP = std::shared_ptr<const Agg>;
struct Agg {
  enum Kind : uint8_t { Leaf, Record, Array } kind = Leaf;
  std::string record;                                // Record: the type's name ("" for a group)
  bool group = false;                                // Record: Kind 2's group [T1, T2], fields "0", "1" ..
  std::vector<std::pair<std::string, AggP>> fields;  // Record
  int64_t size = 0;                                  // Array
  AggP elem;                                         // Array
  int64_t width = 1;                                 // number of leaves
  mutable std::vector<std::string> paths_;           // cache of paths()

  bool aggregate() const { return kind != Leaf; }
  // Leaf suffixes in order: ".n", "[2]", ".p[0].x"; "" for a leaf.
  const std::vector<std::string> &paths() const {
    if (paths_.empty()) paths("", paths_);
    return paths_;
  }
  void paths(const std::string &prefix, std::vector<std::string> &out) const {
    switch (kind) {
      case Leaf: out.push_back(prefix); break;
      case Record:
        for (auto &[f, a] : fields) a->paths(prefix + (group ? "[" + f + "]" : "." + f), out);
        break;
      case Array:
        for (int64_t k = 0; k < size; ++k) elem->paths(prefix + "[" + std::to_string(k) + "]", out);
        break;
    }
  }
};

AggP leaf() {
  static const AggP l = std::make_shared<Agg>();
  return l;
}
bool is_agg(const AggP &a) { return a && a->aggregate(); }

ExprPtr tuple_of(std::vector<ExprPtr> v, Span s) {
  if (v.size() == 1) return std::move(v[0]);
  return make_expr(ExprKind::Tuple, s, std::move(v));
}

// What the whole program declares: record types, int constants (for sizes and indices)
// and constants of aggregate types.
struct Globals {
  Diagnostics &d;
  std::map<std::string, const TypeDecl *> records;
  std::map<std::string, const ConstDecl *> consts;
  std::map<std::string, AggP> record_cache;
  std::set<std::string> in_progress;
  std::set<uint32_t> reported;       // sizes already reported not static
  std::map<std::string, std::string> aliases;  // `type A = B;`, for record values written `A { ... }`
  bool lustre_arrays = false;        // some `T^n` or `e ^ n`: `[...]` may be a Lustre array

  explicit Globals(Diagnostics &diags) : d(diags) {}

  std::optional<int64_t> static_int(const Expr &e, const std::set<std::string> *locals = nullptr) const {
    return rml::static_int(e, consts, locals);
  }
  // A size or an index: reported where it is not static.
  std::optional<int64_t> require_static(const Expr &e, const char *what, const std::set<std::string> *locals = nullptr) {
    auto v = static_int(e, locals);
    if (!v && reported.insert(e.span.begin).second)  // a declared type is read more than once
      d.error("static.not-static", e.span, std::string(what) + " must be a static int (literals, int constants and + - * div mod of them)");
    return v;
  }

  // The one record type whose fields are exactly these names ("" when none or several).
  std::string record_with_fields(const std::vector<std::string> &fs) const {
    std::set<std::string> want(fs.begin(), fs.end());
    std::string found;
    for (auto &[name, t] : records) {
      std::set<std::string> have;
      for (auto &f : t->fields) have.insert(f.name);
      if (have != want) continue;
      if (!found.empty()) return "";
      found = name;
    }
    return found;
  }
  AggP record(const std::string &r) {
    if (auto it = record_cache.find(r); it != record_cache.end()) return it->second;
    auto a = std::make_shared<Agg>();
    a->kind = Agg::Record;
    a->record = r;
    a->width = 0;
    if (in_progress.insert(r).second) {
      for (auto &f : records.at(r)->fields) {
        AggP fa = of_type(*f.type);
        if (!fa) return record_cache[r] = nullptr;
        a->width += fa->width;
        a->fields.emplace_back(f.name, fa);
      }
      in_progress.erase(r);
    } else {
      d.error("type.recursive", records.at(r)->name_span, "the record type '" + r + "' contains itself");
      return nullptr;
    }
    if (a->width > kMaxLeaves) {
      d.error("static.eval", records.at(r)->name_span, "the record type '" + r + "' has more than 65536 scalar fields once flattened");
      return record_cache[r] = nullptr;
    }
    return record_cache[r] = a;
  }
  // quiet: while finding the structure of an expression (rewriting reports the error).
  AggP array(int64_t n, AggP elem, Span at, bool quiet = false) {
    if (!elem) return nullptr;
    if (n < 0 || (elem->width > 0 && n > kMaxLeaves / std::max<int64_t>(elem->width, 1))) {
      if (!quiet)
        d.error("static.eval", at, n < 0 ? "an array size is negative (" + std::to_string(n) + ")"
                                       : "an array of " + std::to_string(n) + " elements of " + std::to_string(elem->width) +
                                             " streams each is too large to flatten (at most 65536 streams)");
      return nullptr;
    }
    auto a = std::make_shared<Agg>();
    a->kind = Agg::Array;
    a->size = n;
    a->elem = std::move(elem);
    a->width = n * a->elem->width;
    return a;
  }
  // A group of components (Kind 2's [T1, T2], or a tuple indexed as one); null if one is.
  static AggP group(const std::vector<AggP> &parts) {
    auto a = std::make_shared<Agg>();
    a->kind = Agg::Record;
    a->group = true;
    a->width = 0;
    for (size_t k = 0; k < parts.size(); ++k) {
      if (!parts[k]) return nullptr;
      a->width += parts[k]->width;
      a->fields.emplace_back(std::to_string(k), parts[k]);
    }
    return a;
  }
  // The structure of a declared type; null after an error (reported).
  AggP of_type(const TypeSyntax &t) {
    if (t.kind == TypeSyntax::Named && records.count(t.name)) return record(t.name);
    if (t.kind == TypeSyntax::Group) {
      std::vector<AggP> parts;
      for (auto &el : t.elem) parts.push_back(of_type(el));
      return group(parts);
    }
    if (t.kind != TypeSyntax::Array) return leaf();
    auto n = require_static(*t.dims[0].expr, "an array size");
    if (!n) return nullptr;
    return array(*n, of_type(t.elem[0]), t.dims[0].span);
  }
  bool type_is_agg(const TypeSyntax &t) const {
    return (t.kind == TypeSyntax::Named && records.count(t.name)) || t.kind == TypeSyntax::Array || t.kind == TypeSyntax::Group;
  }
  bool type_is_agg(const std::optional<TypeSyntax> &t) const { return t && type_is_agg(*t); }
  // The leaves of a declared aggregate type with their types, in order.
  void typed_leaves(const TypeSyntax &t, const std::string &prefix, std::vector<std::pair<std::string, TypeSyntax>> &out) {
    if (t.kind == TypeSyntax::Named && records.count(t.name)) {
      for (auto &f : records.at(t.name)->fields) typed_leaves(*f.type, prefix + "." + f.name, out);
    } else if (t.kind == TypeSyntax::Group) {
      for (size_t k = 0; k < t.elem.size(); ++k) typed_leaves(t.elem[k], prefix + "[" + std::to_string(k) + "]", out);
    } else if (t.kind == TypeSyntax::Array) {
      int64_t n = static_int(*t.dims[0].expr).value_or(0);
      for (int64_t k = 0; k < n; ++k) typed_leaves(t.elem[0], prefix + "[" + std::to_string(k) + "]", out);
    } else {
      out.emplace_back(prefix, t.clone());
    }
  }
};

bool mentions_aggregates(const Expr &e) {
  if (e.kind == ExprKind::Field || e.kind == ExprKind::Record || e.kind == ExprKind::Update ||
      (e.kind == ExprKind::Binary && e.op == Op::Caret))
    return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr &a) { return mentions_aggregates(*a); });
}
bool mentions_names(const Expr &e, const std::map<std::string, AggP> &names) {
  if (e.kind == ExprKind::Var && names.count(e.name)) return true;
  return std::any_of(e.args.begin(), e.args.end(), [&](const ExprPtr &a) { return mentions_names(*a, names); });
}

// The rewriting of one body (a node's, or a constant's value).
struct Body {
  Globals &G;
  Diagnostics &d;
  const std::map<std::string, std::vector<AggP>> &node_outputs;  // per node, its outputs' structures
  const std::map<std::string, AggP> &agg_consts;
  std::map<std::string, AggP> vars;  // the body's aggregate variables
  std::set<std::string> locals;      // every name the body declares (they hide constants)
  bool arrays = false;               // `[...]` is a Lustre array here
  std::vector<Equation> extra;
  int &fresh;
  int depth = 0;                     // constants inlined into constants
  bool constant = false;             // a constant's value: stateless, so `e ^ n` copies e

  Body(Globals &g, Diagnostics &diags, const std::map<std::string, std::vector<AggP>> &outputs,
       const std::map<std::string, AggP> &consts, int &counter, bool constant_value)
      : G(g), d(diags), node_outputs(outputs), agg_consts(consts), arrays(g.lustre_arrays), fresh(counter),
        constant(constant_value) {}

  bool is_const_agg(const std::string &n) const { return !locals.count(n) && agg_consts.count(n); }

  AggP agg_of(const Expr &e) {
    switch (e.kind) {
      case ExprKind::Var:
        if (auto it = vars.find(e.name); it != vars.end()) return it->second;
        if (is_const_agg(e.name)) return agg_consts.at(e.name);
        return leaf();
      case ExprKind::Field: {
        AggP r = agg_of(*e.args[0]);
        if (!r || r->kind != Agg::Record || r->group) return leaf();
        for (auto &[f, a] : r->fields)
          if (f == e.name) return a;
        return leaf();
      }
      case ExprKind::Index: {
        AggP a = agg_of(*e.args[0]);
        for (size_t k = 1; k < e.args.size() && is_agg(a); ++k) {
          if (a->kind == Agg::Array) {
            a = a->elem;
            continue;
          }
          if (!a->group) return leaf();
          auto i = G.static_int(*e.args[k], &locals);
          if (!i || *i < 0 || *i >= static_cast<int64_t>(a->fields.size())) return leaf();
          a = a->fields[static_cast<size_t>(*i)].second;
        }
        return a ? a : leaf();
      }
      case ExprKind::Tuple: {  // a group when indexed or assigned as one
        std::vector<AggP> parts;
        for (auto &x : e.args) parts.push_back(agg_of(*x));
        AggP g = Globals::group(parts);
        return g ? g : leaf();
      }
      case ExprKind::Record: {
        std::string r = e.name.empty() ? G.record_with_fields(e.binders) : e.name;
        for (int k = 0; k < 64 && !G.records.count(r) && G.aliases.count(r); ++k) r = G.aliases.at(r);
        return G.records.count(r) ? G.record(r) : leaf();
      }
      case ExprKind::Array: {
        if (!arrays) return leaf();
        AggP el = e.args.empty() ? leaf() : agg_of(*e.args[0]);
        AggP a = G.array(static_cast<int64_t>(e.args.size()), el, e.span, true);
        return a ? a : leaf();
      }
      case ExprKind::Binary:
        if (e.op == Op::Caret) {
          auto n = G.static_int(*e.args[1], &locals);
          AggP a = n ? G.array(*n, agg_of(*e.args[0]), e.args[1]->span, true) : nullptr;
          return a ? a : leaf();
        }
        if (e.op == Op::Fby || e.op == Op::Arrow) {
          AggP a = agg_of(*e.args[0]);
          return is_agg(a) ? a : agg_of(*e.args[1]);
        }
        return leaf();
      case ExprKind::Update:
      case ExprKind::Reset:
      case ExprKind::When: return agg_of(*e.args[0]);
      case ExprKind::Call: {
        auto it = node_outputs.find(e.name);
        if (it != node_outputs.end() && it->second.size() == 1 && it->second[0]) return it->second[0];
        return leaf();
      }
      case ExprKind::Unary: return e.op == Op::Pre || e.op == Op::Post ? agg_of(*e.args[0]) : leaf();
      case ExprKind::Merge:
      case ExprKind::If: {
        AggP a = agg_of(*e.args[1]);
        return is_agg(a) ? a : agg_of(*e.args[2]);
      }
      default: return leaf();
    }
  }

  // The n leaf expressions of a flattened value (a tuple of them, or an expression
  // denoting them: bound to fresh variables first).
  std::vector<ExprPtr> leaves_of(ExprPtr r, size_t n) {
    std::vector<ExprPtr> out;
    if (n == 1) {
      out.push_back(std::move(r));
    } else if (r->kind == ExprKind::Tuple && r->args.size() == n) {
      out = std::move(r->args);
    } else {
      out = bind_fresh(std::move(r), n, "agg", fresh, extra);
    }
    return out;
  }
  std::vector<ExprPtr> vars_of(const std::string &v, const Agg &a, size_t first, size_t count, Span s) {
    const std::vector<std::string> &ps = a.paths();
    std::vector<ExprPtr> out;
    for (size_t k = first; k < first + count && k < ps.size(); ++k) out.push_back(mk_var(v + ps[k], s));
    return out;
  }
  // Leaves [first, first+count) of the aggregate e of structure a.
  ExprPtr select(ExprPtr e, const Agg &a, size_t first, size_t count, Span s) {
    if (e->kind == ExprKind::Var && vars.count(e->name)) return tuple_of(vars_of(e->name, a, first, count, s), s);
    auto all = leaves_of(rewrite(std::move(e)), static_cast<size_t>(a.width));
    std::vector<ExprPtr> out;
    for (size_t k = first; k < first + count; ++k) out.push_back(std::move(all[k]));
    return tuple_of(std::move(out), s);
  }

  ExprPtr rewrite(ExprPtr e) {
    switch (e->kind) {
      case ExprKind::Var: {
        if (auto it = vars.find(e->name); it != vars.end())
          return tuple_of(vars_of(e->name, *it->second, 0, static_cast<size_t>(it->second->width), e->span), e->span);
        if (is_const_agg(e->name)) {  // a constant's value, at each use
          const ConstDecl &c = *G.consts.at(e->name);
          if (++depth > 64) {
            d.error("static.eval", e->span, "constants of aggregate types nest deeper than 64 (a cycle through '" + e->name + "'?)");
            --depth;
            return e;
          }
          Body inner(G, d, node_outputs, agg_consts, fresh, true);
          inner.depth = depth;
          auto v = inner.rewrite(c.value->clone());
          for (auto &x : inner.extra) extra.push_back(std::move(x));
          --depth;
          return v;
        }
        return e;
      }
      case ExprKind::Field: {
        AggP r = agg_of(*e->args[0]);
        if (!r || r->kind != Agg::Record || r->group) {
          d.error("type.record", e->op_span, "'." + e->name + "' selects a field, but this is not a value of a declared record type");
          return e;
        }
        size_t k = 0;
        for (auto &[f, a] : r->fields) {
          if (f == e->name) return select(std::move(e->args[0]), *r, k, static_cast<size_t>(a->width), e->span);
          k += static_cast<size_t>(a->width);
        }
        d.error("type.record", e->op_span, "the record type '" + r->record + "' has no field '" + e->name + "'");
        return e;
      }
      case ExprKind::Index: {
        AggP a = agg_of(*e->args[0]);
        if (!is_agg(a)) {  // a tensor index (sema checks it)
          for (auto &x : e->args) x = rewrite(std::move(x));
          update_height(*e);
          return e;
        }
        // a[i, j] on a Lustre array is a[i][j].
        size_t first = 0, count = static_cast<size_t>(a->width);
        const Agg *cur = a.get();
        for (size_t k = 1; k < e->args.size(); ++k) {
          bool group = cur->kind == Agg::Record && cur->group;
          if (cur->kind != Agg::Array && !group) {
            d.error("type.array", e->args[k]->span, "this indexes a value that is not an array");
            return e;
          }
          auto i = G.static_int(*e->args[k], &locals);
          if (!i) {
            d.error("syntax.unsupported", e->args[k]->span,
                    "an array index that is not static (literals, int constants and + - * div mod of them) is not read yet");
            return e;
          }
          int64_t n = group ? static_cast<int64_t>(cur->fields.size()) : cur->size;
          if (*i < 0 || *i >= n) {
            d.error("static.eval", e->args[k]->span, "the index " + std::to_string(*i) + " is out of the " +
                                                       (group ? "group's" : "array's") + " range 0.." + std::to_string(n - 1));
            return e;
          }
          if (group) {
            for (int64_t j = 0; j < *i; ++j) first += static_cast<size_t>(cur->fields[static_cast<size_t>(j)].second->width);
            cur = cur->fields[static_cast<size_t>(*i)].second.get();
            count = static_cast<size_t>(cur->width);
            continue;
          }
          count = static_cast<size_t>(cur->elem->width);
          first += static_cast<size_t>(*i) * count;
          cur = cur->elem.get();
        }
        return select(std::move(e->args[0]), *a, first, count, e->span);
      }
      case ExprKind::Array: {
        if (!arrays) {
          for (auto &x : e->args) x = rewrite(std::move(x));
          update_height(*e);
          return e;
        }
        AggP el = e->args.empty() ? leaf() : agg_of(*e->args[0]);
        if (!el) return e;
        if (e->args.empty()) {
          d.error("type.array", e->span, "an array has at least one element");
          return e;
        }
        for (auto &x : e->args) {  // all checked before any is rewritten (an error returns e whole)
          AggP xa = agg_of(*x);
          if (!xa || xa->width != el->width) {
            d.error("type.array", x->span, "the elements of an array literal must have the same type (this one has " +
                                               std::to_string(xa ? xa->width : 0) + " streams, the first " + std::to_string(el->width) + ")");
            return e;
          }
        }
        std::vector<ExprPtr> out;
        for (auto &x : e->args)
          for (auto &l : leaves_of(rewrite(std::move(x)), static_cast<size_t>(el->width))) out.push_back(std::move(l));
        return tuple_of(std::move(out), e->span);
      }
      case ExprKind::Binary:
        if (e->op == Op::Caret) {
          auto n = G.require_static(*e->args[1], "the number of copies in 'e ^ n'", &locals);
          if (!n) return e;
          if (*n <= 0) {
            d.error("static.eval", e->args[1]->span, "'e ^ n' needs n >= 1 (found " + std::to_string(*n) + ")");
            return e;
          }
          AggP el = agg_of(*e->args[0]);
          if (!el || !G.array(*n, el, e->args[1]->span)) return e;
          auto one = leaves_of(rewrite(std::move(e->args[0])), static_cast<size_t>(el->width));
          bool atomic = std::all_of(one.begin(), one.end(), [](const ExprPtr &x) {
            return x->kind == ExprKind::Var || x->kind == ExprKind::IntLit || x->kind == ExprKind::RealLit || x->kind == ExprKind::BoolLit;
          });
          if (!atomic && !constant && *n > 1) {  // computed once (a constant has no state to share)
            std::vector<ExprPtr> t;
            for (auto &x : one) t.push_back(std::move(x));
            one = bind_fresh(tuple_of(std::move(t), e->span), static_cast<size_t>(el->width), "agg", fresh, extra);
          }
          std::vector<ExprPtr> out;
          for (int64_t k = 0; k < *n; ++k)
            for (auto &x : one) out.push_back(x->clone());
          return tuple_of(std::move(out), e->span);
        }
        break;
      case ExprKind::Record: {
        for (int k = 0; k < 64 && !G.records.count(e->name) && G.aliases.count(e->name); ++k) e->name = G.aliases.at(e->name);
        if (e->name.empty()) {  // Heptagon's `{ x = e }`: the record type with exactly these fields
          e->name = G.record_with_fields(e->binders);
          if (e->name.empty()) {
            d.error("type.record", e->span, "no record type has exactly the fields of this value");
            return e;
          }
        }
        if (!G.records.count(e->name)) {
          d.error("type.record", e->span, "'" + e->name + "' is not a record type");
          return e;
        }
        const TypeDecl &t = *G.records.at(e->name);
        AggP r = G.record(e->name);
        if (!r) return e;
        bool ok = true;
        auto has_field = [&](const std::string &f) {
          return std::any_of(t.fields.begin(), t.fields.end(), [&](const VarDecl &v) { return v.name == f; });
        };
        for (size_t k = 0; k < e->binders.size(); ++k) {
          if (!has_field(e->binders[k])) {
            d.error("type.record", e->binder_spans[k], "the record type '" + e->name + "' has no field '" + e->binders[k] + "'");
            ok = false;
          } else if (std::find(e->binders.begin(), e->binders.begin() + static_cast<long>(k), e->binders[k]) !=
                     e->binders.begin() + static_cast<long>(k)) {
            d.error("type.record", e->binder_spans[k], "the field '" + e->binders[k] + "' is given twice");
            ok = false;
          }
        }
        for (auto &f : t.fields)
          if (std::find(e->binders.begin(), e->binders.end(), f.name) == e->binders.end()) {
            d.error("type.record", e->span, "this value of '" + e->name + "' gives no field '" + f.name + "'");
            ok = false;
          }
        if (!ok) return e;
        std::vector<ExprPtr> out;
        for (auto &[f, fa] : r->fields) {
          size_t k = static_cast<size_t>(std::find(e->binders.begin(), e->binders.end(), f) - e->binders.begin());
          for (auto &l : leaves_of(rewrite(std::move(e->args[k])), static_cast<size_t>(fa->width))) out.push_back(std::move(l));
        }
        return tuple_of(std::move(out), e->span);
      }
      case ExprKind::Update: {
        AggP r = agg_of(*e->args[0]);
        if (!r || r->kind != Agg::Record) {
          d.error("type.record", e->binder_spans[0], "'[" + e->binders[0] + " := ...]' updates a field, but this is not a value of a declared record type");
          return e;
        }
        size_t first = 0, count = 0;
        bool found = false;
        for (auto &[f, a] : r->fields) {
          if (f == e->binders[0]) {
            count = static_cast<size_t>(a->width);
            found = true;
            break;
          }
          first += static_cast<size_t>(a->width);
        }
        if (!found) {
          d.error("type.record", e->binder_spans[0], "the record type '" + r->record + "' has no field '" + e->binders[0] + "'");
          return e;
        }
        auto all = leaves_of(rewrite(std::move(e->args[0])), static_cast<size_t>(r->width));
        auto vals = leaves_of(rewrite(std::move(e->args[1])), count);
        for (size_t k = 0; k < count; ++k) all[first + k] = std::move(vals[k]);
        return tuple_of(std::move(all), e->span);
      }
      default: break;
    }
    for (auto &a : e->args) a = rewrite(std::move(a));
    update_height(*e);
    return e;
  }
};

bool has_lustre_arrays(const TypeSyntax &t) {
  return t.kind == TypeSyntax::Array || std::any_of(t.elem.begin(), t.elem.end(), has_lustre_arrays);
}
bool has_caret(const Expr &e) {
  if (e.kind == ExprKind::Binary && e.op == Op::Caret) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr &a) { return has_caret(*a); });
}
bool tensor_typed(const std::optional<TypeSyntax> &t) {
  return t && ((t->kind == TypeSyntax::Tensor && !t->dims.empty()) || t->kind == TypeSyntax::Shape);
}

}  // namespace

bool expand_aggregates(Program &p, size_t first, Diagnostics &diags) {
  Globals G(diags);
  for (size_t i = 0; i < p.decls.size(); ++i) {
    Decl &d = p.decls[i];
    if (auto *t = std::get_if<TypeDecl>(&d)) {
      if (t->is_record) G.records.emplace(t->name, t);
      if (t->alias && t->alias->kind == TypeSyntax::Named) G.aliases.emplace(t->name, t->alias->name);
      if (i >= first && t->alias && has_lustre_arrays(*t->alias)) G.lustre_arrays = true;
      for (auto &f : t->fields) G.lustre_arrays |= i >= first && f.type && has_lustre_arrays(*f.type);
    } else if (auto *c = std::get_if<ConstDecl>(&d)) {
      G.consts[c->name] = c;  // the user's constants are in the user's scope only; the prelude has none of these
      if (i >= first) G.lustre_arrays |= (c->type && has_lustre_arrays(*c->type)) || (c->value && has_caret(*c->value));
    } else if (auto *n = std::get_if<NodeDecl>(&d); n && i >= first) {
      for (auto *vs : {&n->inputs, &n->outputs, &n->locals})
        for (auto &v : *vs) G.lustre_arrays |= v.type && has_lustre_arrays(*v.type);
      for (auto &eq : n->equations) G.lustre_arrays |= has_caret(*eq.rhs);
      for (auto &a : n->assumptions) G.lustre_arrays |= has_caret(*a.cond);
    }
  }
  // A record that contains itself has no flattening: reported once, nothing is rewritten
  // (the checker then sees the record types as errors, without follow-on messages).
  size_t errors = diags.error_count();
  for (auto &[name, t] : G.records) G.record(name);
  if (diags.error_count() > errors) return false;

  // Nodes' outputs as declared, before they are flattened (null: a size in error).
  std::map<std::string, std::vector<AggP>> outputs;
  for (auto &d : p.decls)
    if (auto *n = std::get_if<NodeDecl>(&d))
      for (auto &v : n->outputs) outputs[n->name].push_back(v.type ? G.of_type(*v.type) : leaf());
  // Constants of aggregate types (declared so, or whose value is a record, `e ^ n`, or an
  // array literal in a program with Lustre arrays): inlined at each use, then dropped.
  std::map<std::string, AggP> agg_consts;
  int fresh = 0;
  for (size_t i = first; i < p.decls.size(); ++i) {
    auto *c = std::get_if<ConstDecl>(&p.decls[i]);
    if (!c || !c->value) continue;
    AggP a;
    if (G.type_is_agg(c->type)) {
      a = G.of_type(*c->type);
      if (!a) continue;
    } else if (!c->type) {
      Body b(G, diags, outputs, agg_consts, fresh, true);
      a = b.agg_of(*c->value);
    }
    if (is_agg(a)) agg_consts[c->name] = a;
  }
  bool any = !agg_consts.empty();
  std::set<std::string> dropped;
  for (size_t i = first; i < p.decls.size(); ++i) {
    Decl &d = p.decls[i];
    if (auto *f = std::get_if<FunDecl>(&d)) {
      for (auto &v : f->params)
        if (G.type_is_agg(v.type))
          diags.error("syntax.unsupported", v.span, "records and Lustre arrays are not available in 'fun' declarations (a fun's arrays are tensors)");
      if (G.type_is_agg(f->result))
        diags.error("syntax.unsupported", f->name_span, "records and Lustre arrays are not available in 'fun' declarations (a fun's arrays are tensors)");
      continue;
    }
    if (auto *c = std::get_if<ConstDecl>(&d)) {
      if (agg_consts.count(c->name)) {
        dropped.insert(c->name);
        // Its value is checked once here (errors located in the declaration), then it is
        // elaborated at each use.
        Body b(G, diags, outputs, agg_consts, fresh, true);
        auto v = b.rewrite(c->value->clone());
        if (!b.extra.empty())
          diags.error("syntax.unsupported", c->name_span, "a constant of an aggregate type must be built from literals, constants, records and arrays");
        continue;
      }
      if (c->value && (G.lustre_arrays || mentions_aggregates(*c->value) || mentions_names(*c->value, agg_consts))) {
        any = true;
        Body b(G, diags, outputs, agg_consts, fresh, true);
        c->value = b.rewrite(std::move(c->value));
        if (!b.extra.empty())
          diags.error("syntax.unsupported", c->name_span, "this constant selects from an expression that is not a constant");
      }
      if (!c->value && G.type_is_agg(c->type))
        diags.error("syntax.unsupported", c->name_span, "constants of an aggregate type need a value");
      continue;
    }
    auto *n = std::get_if<NodeDecl>(&d);
    if (!n) continue;
    Body nb(G, diags, outputs, agg_consts, fresh, false);
    bool has = false, tensors = false;
    for (auto *vs : {&n->inputs, &n->outputs, &n->locals})
      for (auto &v : *vs) {
        nb.locals.insert(v.name);
        tensors |= tensor_typed(v.type);
        if (G.type_is_agg(v.type)) {
          AggP a = G.of_type(*v.type);
          if (a) nb.vars[v.name] = a;
          has = true;
        }
      }
    for (auto &eq : n->equations)
      for (auto &l : eq.lhs) nb.locals.insert(l.name);
    nb.arrays = G.lustre_arrays && !tensors;
    // Every body is rewritten: an aggregate may come from a call or a constant without a
    // name of this node saying so (`f(x)[1]`); elsewhere the rewrite changes nothing.
    any |= has;
    for (auto &eq : n->equations) {
      eq.rhs = nb.rewrite(std::move(eq.rhs));
      std::vector<LhsItem> lhs;
      for (auto &l : eq.lhs) {
        auto it = nb.vars.find(l.name);
        if (it == nb.vars.end()) {
          lhs.push_back(l);
          continue;
        }
        for (auto &suffix : it->second->paths()) lhs.push_back(LhsItem{l.name + suffix, l.span});
      }
      eq.lhs = std::move(lhs);
    }
    for (auto &a : n->assumptions) a.cond = nb.rewrite(std::move(a.cond));
    for (auto *vs : {&n->inputs, &n->outputs, &n->locals}) {
      std::vector<VarDecl> flat;
      for (auto &v : *vs) {
        if (!G.type_is_agg(v.type) || !nb.vars.count(v.name)) {
          flat.push_back(std::move(v));
          continue;
        }
        std::vector<std::pair<std::string, TypeSyntax>> leaves;
        G.typed_leaves(*v.type, "", leaves);
        for (auto &[suffix, t] : leaves) {
          VarDecl f;
          f.name = v.name + suffix;
          f.span = v.span;
          f.type = std::move(t);
          f.clock = v.clock;
          flat.push_back(std::move(f));
        }
      }
      *vs = std::move(flat);
    }
    for (auto &e : nb.extra) n->equations.push_back(std::move(e));
  }
  // The aggregate constants are inlined: no use is left.
  if (!dropped.empty()) {
    std::vector<Decl> kept;
    for (size_t i = 0; i < p.decls.size(); ++i) {
      auto *c = std::get_if<ConstDecl>(&p.decls[i]);
      if (i >= first && c && dropped.count(c->name)) continue;
      kept.push_back(std::move(p.decls[i]));
    }
    p.decls = std::move(kept);
  }
  return any;
}

}  // namespace rml
