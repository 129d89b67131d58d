#include "sema/expand_records.hpp"

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "sema/rewrite.hpp"

namespace rml {
namespace {

struct Leaf {
  std::string path;  // "n", or "p.x" in a nested record
  TypeSyntax type;
};

// The record types of the program and their flattened fields.
struct Records {
  std::map<std::string, const TypeDecl *> decls;
  std::map<std::string, std::vector<Leaf>> cache;
  std::set<std::string> in_progress;
  Diagnostics &d;

  explicit Records(Diagnostics &diags) : d(diags) {}

  bool is_record(const TypeSyntax *t) const { return t && t->kind == TypeSyntax::Named && decls.count(t->name); }

  const std::vector<Leaf> &leaves(const std::string &r) {
    if (auto it = cache.find(r); it != cache.end()) return it->second;
    std::vector<Leaf> out;
    if (in_progress.insert(r).second) {
      for (auto &f : decls.at(r)->fields) {
        if (is_record(&*f.type)) {
          for (auto &l : leaves(f.type->name)) out.push_back(Leaf{f.name + "." + l.path, l.type.clone()});
        } else {
          out.push_back(Leaf{f.name, f.type->clone()});
        }
      }
      in_progress.erase(r);
    } else {
      d.error("type.recursive", decls.at(r)->name_span, "the record type '" + r + "' contains itself");
    }
    return cache[r] = std::move(out);
  }
  size_t width(const TypeSyntax &t) { return is_record(&t) ? leaves(t.name).size() : 1; }
  // Field f of record r: its first leaf and its number of leaves.
  std::optional<std::pair<size_t, size_t>> field_range(const std::string &r, const std::string &f) {
    size_t k = 0;
    for (auto &fd : decls.at(r)->fields) {
      size_t w = width(*fd.type);
      if (fd.name == f) return std::make_pair(k, w);
      k += w;
    }
    return std::nullopt;
  }
  const TypeSyntax *field_type(const std::string &r, const std::string &f) const {
    for (auto &fd : decls.at(r)->fields)
      if (fd.name == f) return &*fd.type;
    return nullptr;
  }
};

ExprPtr tuple_of(std::vector<ExprPtr> v, Span s) {
  if (v.size() == 1) return std::move(v[0]);
  return make_expr(ExprKind::Tuple, s, std::move(v));
}

struct NodeRecords {
  Records &R;
  Diagnostics &d;
  // Per node, the record type of each output as declared ("" for other types): names, not
  // pointers, since the declarations are flattened node by node.
  const std::map<std::string, std::vector<std::string>> &node_outputs;
  std::map<std::string, std::string> var_record;                              // variable -> its record type
  std::vector<Equation> extra;
  int &fresh;

  std::optional<std::string> record_of(const Expr &e) {
    switch (e.kind) {
      case ExprKind::Var:
        if (auto it = var_record.find(e.name); it != var_record.end()) return it->second;
        return std::nullopt;
      case ExprKind::Field: {
        auto r = record_of(*e.args[0]);
        if (!r) return std::nullopt;
        const TypeSyntax *t = R.field_type(*r, e.name);
        return R.is_record(t) ? std::optional<std::string>(t->name) : std::nullopt;
      }
      case ExprKind::Record: return R.decls.count(e.name) ? std::optional<std::string>(e.name) : std::nullopt;
      case ExprKind::Update:
      case ExprKind::Reset:
      case ExprKind::When: return record_of(*e.args[0]);
      case ExprKind::Call: {
        auto it = node_outputs.find(e.name);
        if (it != node_outputs.end() && it->second.size() == 1 && !it->second[0].empty()) return it->second[0];
        return std::nullopt;
      }
      case ExprKind::Unary: return e.op == Op::Pre || e.op == Op::Post ? record_of(*e.args[0]) : std::nullopt;
      case ExprKind::Binary: return e.op == Op::Fby || e.op == Op::Arrow ? record_of(*e.args[0]) : std::nullopt;
      case ExprKind::Merge:
      case ExprKind::If: return record_of(*e.args[1]);
      default: return std::nullopt;
    }
  }

  // The n leaf expressions of a flattened record value (a tuple of them, or an expression
  // denoting them: bound to fresh variables first).
  std::vector<ExprPtr> leaves_of(ExprPtr r, size_t n) {
    std::vector<ExprPtr> out;
    if (n == 1) {
      out.push_back(std::move(r));
    } else if (r->kind == ExprKind::Tuple && r->args.size() == n) {
      out = std::move(r->args);
    } else {
      out = bind_fresh(std::move(r), n, "record", fresh, extra);
    }
    return out;
  }

  std::vector<ExprPtr> vars_of(const std::string &v, const std::string &rec, size_t first, size_t count, Span s) {
    std::vector<ExprPtr> out;
    auto &ls = R.leaves(rec);
    for (size_t k = first; k < first + count && k < ls.size(); ++k) out.push_back(mk_var(v + "." + ls[k].path, s));
    return out;
  }

  ExprPtr rewrite(ExprPtr e) {
    switch (e->kind) {
      case ExprKind::Var: {
        auto r = record_of(*e);
        if (!r) return e;
        return tuple_of(vars_of(e->name, *r, 0, R.leaves(*r).size(), e->span), e->span);
      }
      case ExprKind::Field: {
        auto r = record_of(*e->args[0]);
        if (!r) {
          d.error("type.record", e->op_span,
                  "'." + e->name + "' selects a field, but this is not a value of a declared record type");
          return e;
        }
        auto range = R.field_range(*r, e->name);
        if (!range) {
          d.error("type.record", e->op_span, "the record type '" + *r + "' has no field '" + e->name + "'");
          return e;
        }
        if (e->args[0]->kind == ExprKind::Var)
          return tuple_of(vars_of(e->args[0]->name, *r, range->first, range->second, e->span), e->span);
        auto all = leaves_of(rewrite(std::move(e->args[0])), R.leaves(*r).size());
        std::vector<ExprPtr> out;
        for (size_t k = range->first; k < range->first + range->second; ++k) out.push_back(std::move(all[k]));
        return tuple_of(std::move(out), e->span);
      }
      case ExprKind::Record: {
        if (!R.decls.count(e->name)) {
          d.error("type.record", e->span, "'" + e->name + "' is not a record type");
          return e;
        }
        const TypeDecl &t = *R.decls.at(e->name);
        bool ok = true;
        for (size_t k = 0; k < e->binders.size(); ++k) {
          if (!R.field_type(e->name, e->binders[k])) {
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
        for (auto &f : t.fields) {
          size_t k = static_cast<size_t>(std::find(e->binders.begin(), e->binders.end(), f.name) - e->binders.begin());
          for (auto &l : leaves_of(rewrite(std::move(e->args[k])), R.width(*f.type))) out.push_back(std::move(l));
        }
        return tuple_of(std::move(out), e->span);
      }
      case ExprKind::Update: {
        auto r = record_of(*e->args[0]);
        if (!r) {
          d.error("type.record", e->binder_spans[0], "'[" + e->binders[0] + " := ...]' updates a field, but this is not a value of a declared record type");
          return e;
        }
        auto range = R.field_range(*r, e->binders[0]);
        if (!range) {
          d.error("type.record", e->binder_spans[0], "the record type '" + *r + "' has no field '" + e->binders[0] + "'");
          return e;
        }
        auto all = leaves_of(rewrite(std::move(e->args[0])), R.leaves(*r).size());
        auto vals = leaves_of(rewrite(std::move(e->args[1])), range->second);
        for (size_t k = 0; k < range->second; ++k) all[range->first + k] = std::move(vals[k]);
        return tuple_of(std::move(all), e->span);
      }
      default: {
        for (auto &a : e->args) a = rewrite(std::move(a));
        update_height(*e);
        return e;
      }
    }
  }
};

bool mentions_records(const Expr &e) {
  if (e.kind == ExprKind::Field || e.kind == ExprKind::Record || e.kind == ExprKind::Update) return true;
  return std::any_of(e.args.begin(), e.args.end(), [](const ExprPtr &a) { return mentions_records(*a); });
}

}  // namespace

bool expand_records(Program &p, size_t first, Diagnostics &diags) {
  Records R(diags);
  for (auto &d : p.decls)
    if (auto *t = std::get_if<TypeDecl>(&d); t && t->is_record) R.decls.emplace(t->name, t);
  // A record that contains itself has no flattening: reported once, nothing is rewritten
  // (the checker then sees the record types as errors, without follow-on messages).
  size_t errors = diags.error_count();
  for (auto &[name, t] : R.decls) R.leaves(name);
  if (diags.error_count() > errors) return false;
  // Nodes' outputs as declared, before their records are flattened.
  std::map<std::string, std::vector<std::string>> outputs;
  for (auto &d : p.decls)
    if (auto *n = std::get_if<NodeDecl>(&d))
      for (auto &v : n->outputs) outputs[n->name].push_back(R.is_record(v.type ? &*v.type : nullptr) ? v.type->name : "");
  bool any = false;
  int fresh = 0;
  std::vector<std::pair<size_t, std::vector<Equation>>> extras;
  for (size_t i = first; i < p.decls.size(); ++i) {
    Decl &d = p.decls[i];
    if (auto *f = std::get_if<FunDecl>(&d)) {
      for (auto &v : f->params)
        if (R.is_record(v.type ? &*v.type : nullptr))
          diags.error("syntax.unsupported", v.span, "records are not available in 'fun' declarations");
      if (R.is_record(&f->result)) diags.error("syntax.unsupported", f->name_span, "records are not available in 'fun' declarations");
      continue;
    }
    if (auto *c = std::get_if<ConstDecl>(&d)) {
      if (R.is_record(c->type ? &*c->type : nullptr) || mentions_records(*c->value))
        diags.error("syntax.unsupported", c->name_span, "constants of a record type are not supported yet");
      continue;
    }
    auto *n = std::get_if<NodeDecl>(&d);
    if (!n) continue;
    NodeRecords nr{R, diags, outputs, {}, {}, fresh};
    bool has = false;
    for (auto *vs : {&n->inputs, &n->outputs, &n->locals})
      for (auto &v : *vs)
        if (R.is_record(v.type ? &*v.type : nullptr)) nr.var_record[v.name] = v.type->name, has = true;
    for (auto &eq : n->equations) has = has || mentions_records(*eq.rhs);
    for (auto &a : n->assumptions) has = has || mentions_records(*a.cond);
    if (!has) continue;
    any = true;
    for (auto &eq : n->equations) {
      eq.rhs = nr.rewrite(std::move(eq.rhs));
      std::vector<LhsItem> lhs;
      for (auto &l : eq.lhs) {
        auto it = nr.var_record.find(l.name);
        if (it == nr.var_record.end()) {
          lhs.push_back(l);
          continue;
        }
        for (auto &leaf : R.leaves(it->second)) lhs.push_back(LhsItem{l.name + "." + leaf.path, l.span});
      }
      eq.lhs = std::move(lhs);
    }
    for (auto &a : n->assumptions) a.cond = nr.rewrite(std::move(a.cond));
    for (auto *vs : {&n->inputs, &n->outputs, &n->locals}) {
      std::vector<VarDecl> flat;
      for (auto &v : *vs) {
        if (!R.is_record(v.type ? &*v.type : nullptr)) {
          flat.push_back(std::move(v));
          continue;
        }
        for (auto &leaf : R.leaves(v.type->name)) {
          VarDecl f;
          f.name = v.name + "." + leaf.path;
          f.span = v.span;
          f.type = leaf.type.clone();
          f.clock = v.clock;
          flat.push_back(std::move(f));
        }
      }
      *vs = std::move(flat);
    }
    for (auto &e : nr.extra) n->equations.push_back(std::move(e));
  }
  return any;
}

}  // namespace rml
