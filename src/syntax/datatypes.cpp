#include "syntax/datatypes.hpp"

#include "syntax/any_values.hpp"
#include "syntax/printer.hpp"

#include <algorithm>
#include <deque>
#include <optional>
#include <functional>
#include <map>
#include <set>

namespace rml {

namespace {

ExprPtr with_args(ExprKind k, Span s, std::vector<ExprPtr> args) {
  auto e = std::make_unique<Expr>(k, s);
  uint32_t h = 0;
  for (auto &a : args) h = std::max(h, a->height);
  e->height = h + 1;
  e->args = std::move(args);
  return e;
}

ExprPtr field_of(ExprPtr e, const std::string &f, Span s) {
  std::vector<ExprPtr> a;
  a.push_back(std::move(e));
  auto x = with_args(ExprKind::Field, s, std::move(a));
  x->name = f;
  return x;
}

ExprPtr call(const std::string &name, std::vector<ExprPtr> args, Span s) {
  auto x = with_args(ExprKind::Call, s, std::move(args));
  x->name = name;
  return x;
}

ExprPtr if_then_else(ExprPtr c, ExprPtr a, ExprPtr b, Span s) {
  std::vector<ExprPtr> v;
  v.push_back(std::move(c));
  v.push_back(std::move(a));
  v.push_back(std::move(b));
  auto x = with_args(ExprKind::If, s, std::move(v));
  x->op_span = s;
  return x;
}

// One datatype as the expansion sees it: a declared one, or an enumeration of the file
// (which `match` and testers read as a datatype without fields).
struct Info {
  const DatatypeSyntax *decl = nullptr;  // null: an enumeration declared with `type`
  std::string name;
  std::vector<std::string> ctors;
  std::vector<const DatatypeCtor *> ctor_decls;  // with decl
  bool is_record = false;                       // some constructor has fields
  std::string tag_field;                        // is_record: the constructor's field
  std::string tag_type;                         // is_record: its enumeration
  std::string canon;                            // is_record: the function making a value canonical
  // A datatype with type parameters (`datatype Opt<T>`) is a family: its instances
  // (`Opt<int>`) are the Infos that rml declares, each with its fields' types substituted.
  std::vector<std::string> params;  // the family's parameters (empty for an instance)
  std::string family;               // an instance: its family's name
  std::vector<TypeSyntax> args;     // an instance: its type arguments
  std::vector<DatatypeCtor> own;    // an instance: its constructors (ctor_decls point here)
  size_t ctor_index(const std::string &c) const {
    return static_cast<size_t>(std::find(ctors.begin(), ctors.end(), c) - ctors.begin());
  }
};

class DatatypeExpander {
 public:
  DatatypeExpander(Program &p, const std::vector<DatatypeSyntax> &dts, const std::vector<MatchSyntax> &matches,
                   const std::vector<Span> &bare, Diagnostics &d)
      : p_(p), matches_(matches), d_(d) {
    for (auto &b : bare) bare_.insert(b.begin);
    for (auto &dt : dts) dts_.push_back(dt.clone());
  }

  void run() {
    for (auto &decl : p_.decls) {
      if (auto *t = std::get_if<TypeDecl>(&decl)) types_[t->name] = t;
      if (auto *n = std::get_if<NodeDecl>(&decl)) node_decls_[n->name] = n;
      if (auto *c = std::get_if<ConstDecl>(&decl)) const_types_[c->name] = c->type ? &*c->type : nullptr;
    }
    declare();
    if (d_.has_errors()) return;
    resolve_program();
    for (size_t k = 0; k < order_.size(); ++k) {  // an instance holding itself through an alias: type E = D<E>
      const Info &i = infos_.at(order_[k]);
      std::vector<std::string> path{i.name};
      if (!i.family.empty() && recursive(i.name, path))
        d_.error("syntax.unsupported", i.decl->name_span,
                 "the datatype '" + i.name + "' is recursive (" + describe_path(path) +
                     "): rml reads datatypes whose values have a bounded size");
    }
    if (d_.has_errors()) return;
    // The expressions first: a constructor may name an instance no type names (`Some(1)`).
    for (auto &decl : p_.decls) rewrite_decl(decl);
    for (auto &decl : p_.decls)
      if (auto *n = std::get_if<NodeDecl>(&decl)) canonical_inputs(*n);
    if (d_.has_errors()) return;
    std::vector<Decl> made;
    for (size_t k = 0; k < order_.size(); ++k) {
      Info &i = infos_.at(order_[k]);
      const bool family = !i.params.empty(), is_instance = !i.family.empty();
      if (!i.is_record || (!is_instance && i.is_record)) {  // the enumeration: the datatype's, or its constructor's
        TypeDecl t;
        t.name = i.is_record ? i.tag_type : i.name;
        t.name_span = i.decl->name_span;
        t.is_enum = true;
        t.bar_syntax = !i.is_record;
        for (auto &c : i.decl->ctors) {
          t.ctors.push_back(c.name);
          t.ctor_spans.push_back(c.span);
        }
        made.emplace_back(std::move(t));
      }
      if (!i.is_record || family) continue;
      TypeDecl rec;
      rec.name = i.name;
      rec.name_span = i.decl->name_span;
      rec.is_record = true;
      VarDecl tf;
      tf.name = i.tag_field;
      tf.span = i.decl->name_span;
      tf.type = named(i.tag_type, i.decl->name_span);
      rec.fields.push_back(std::move(tf));
      for (auto *c : i.ctor_decls)
        for (auto &f : c->fields) rec.fields.push_back(f.clone());
      made.emplace_back(std::move(rec));
    }
    for (auto &name : order_) {
      Info &i = infos_.at(name);
      if (i.decl && i.is_record && i.params.empty()) made.emplace_back(canon_function(i));
    }
    if (d_.has_errors()) return;
    p_.decls.insert(p_.decls.begin(), std::make_move_iterator(made.begin()), std::make_move_iterator(made.end()));
  }

 private:
  Program &p_;
  std::vector<DatatypeSyntax> dts_;  // owned: their field types are resolved in place
  const std::vector<MatchSyntax> &matches_;
  Diagnostics &d_;
  std::map<std::string, const TypeDecl *> types_;
  std::map<std::string, Info> infos_;
  std::vector<std::string> order_;
  std::map<std::string, std::string> ctor_owner_;  // constructor -> its datatype
  int instances_ = 0;

  static TypeSyntax named(const std::string &n, Span s) {
    TypeSyntax t;
    t.kind = TypeSyntax::Named;
    t.name = n;
    t.span = s;
    return t;
  }

  // ---- the declarations ----

  void declare() {
    for (auto &[name, t] : types_) {
      if (!t->is_enum) continue;
      Info i;
      i.name = name;
      i.ctors = t->ctors;
      for (auto &c : t->ctors) ctor_owner_.emplace(c, name);
      infos_.emplace(name, std::move(i));
    }
    for (auto &dt : dts_) {
      if (types_.count(dt.name) || infos_.count(dt.name)) {
        d_.error("name.duplicate", dt.name_span, "the type '" + dt.name + "' is declared twice");
        continue;
      }
      Info i;
      i.decl = &dt;
      i.name = dt.name;
      i.params = dt.params;
      std::set<std::string> fields;
      for (auto &c : dt.ctors) {
        if (!ctor_owner_.emplace(c.name, dt.name).second) {
          d_.error("name.duplicate", c.span, "the constructor '" + c.name + "' is declared twice");
          continue;
        }
        i.ctors.push_back(c.name);
        i.ctor_decls.push_back(&c);
        for (auto &f : c.fields) {
          i.is_record = true;
          if (!fields.insert(f.name).second)
            d_.error("name.duplicate", f.span,
                     "the field '" + f.name + "' is declared twice in the datatype '" + dt.name +
                         "' (a selector names one constructor's field)");
        }
      }
      if (i.is_record) {
        i.tag_field = "ctor";
        while (fields.count(i.tag_field)) i.tag_field += "_";
        i.tag_type = dt.name + ".ctor";
        i.canon = "$canon." + dt.name;
      }
      order_.push_back(dt.name);
      infos_.emplace(dt.name, std::move(i));
    }
    for (auto &name : order_) {
      std::vector<std::string> path{name};
      if (recursive(name, path)) {
        const Info &i = infos_.at(name);
        d_.error("syntax.unsupported", i.decl->name_span,
                 "the datatype '" + name + "' is recursive (" + describe_path(path) +
                     "): rml reads datatypes whose values have a bounded size");
      }
    }
  }

  // ---- type parameters: instances, and the types that name them ----

  // The instance `F<args>` of the family F (made once, with its own instances first).
  const Info *instance(const Info &family, std::vector<TypeSyntax> args, Span at) {
    std::string key = family.name + "<";
    for (size_t k = 0; k < args.size(); ++k) key += (k ? ", " : "") + print_type(args[k]);
    key += ">";
    if (!family.is_record) return &family;  // no field: every instance is the enumeration
    if (auto it = infos_.find(key); it != infos_.end()) return &it->second;
    if (++instances_ > 1000) {
      d_.error("static.eval", at, "more than 1000 instances of datatypes: '" + key + "' is not made");
      return nullptr;
    }
    Info i;
    i.decl = family.decl;
    i.name = key;
    i.family = family.name;
    i.ctors = family.ctors;
    i.is_record = true;
    i.tag_field = family.tag_field;
    i.tag_type = family.tag_type;
    i.canon = "$canon." + key;
    for (auto *c : family.ctor_decls) {
      DatatypeCtor own{c->name, c->span, {}};
      for (auto &f : c->fields) {
        VarDecl g = f.clone();
        substitute_params(*g.type, family.params, args);
        if (!resolve(*g.type)) return nullptr;
        own.fields.push_back(std::move(g));
      }
      i.own.push_back(std::move(own));
    }
    i.args = std::move(args);
    for (auto &c : i.own) i.ctor_decls.push_back(&c);
    order_.push_back(key);
    return &infos_.emplace(key, std::move(i)).first->second;
  }
  static void substitute_params(TypeSyntax &t, const std::vector<std::string> &params, const std::vector<TypeSyntax> &args) {
    if (t.kind == TypeSyntax::Named && t.elem.empty())
      for (size_t k = 0; k < params.size(); ++k)
        if (t.name == params[k]) {
          Span s = t.span;
          t = args[k].clone();
          t.span = s;
          return;
        }
    for (auto &e : t.elem) substitute_params(e, params, args);
  }
  // Replaces each `F<args>` in t by the name of its instance; false after an error.
  bool resolve(TypeSyntax &t) {
    for (auto &e : t.elem)
      if (!resolve(e)) return false;
    if (t.kind != TypeSyntax::Named) return true;
    auto it = infos_.find(t.name);
    bool family = it != infos_.end() && !it->second.params.empty();
    if (!family && t.elem.empty()) return true;
    if (!family) {
      d_.error("arity.args", t.span, "the type '" + t.name + "' has no type parameters");
      return false;
    }
    if (t.elem.size() != it->second.params.size()) {
      d_.error("arity.args", t.span,
               "the datatype '" + t.name + "' takes " + std::to_string(it->second.params.size()) + " type argument" +
                   (it->second.params.size() == 1 ? "" : "s") + ", but " + std::to_string(t.elem.size()) +
                   (t.elem.size() == 1 ? " is" : " are") + " given");
      return false;
    }
    for (auto &e : t.elem)
      if (e.kind == TypeSyntax::TyVar) {
        d_.error("syntax.unsupported", e.span,
                 "a datatype with type parameters at a generic node's type parameter is not read by rml: give it a type "
                 "without parameters");
        return false;
      }
    const Info *i = instance(it->second, std::move(t.elem), t.span);
    t.elem.clear();
    if (!i) return false;
    t.name = i->name;
    return true;
  }
  // Every type of the program: declarations, fields, aliases, type arguments of calls.
  void resolve_program() {
    for (auto &dt : dts_)
      if (dt.params.empty())
        for (auto &c : dt.ctors)
          for (auto &f : c.fields) resolve(*f.type);
    auto decls = [&](std::vector<VarDecl> &vs) {
      for (auto &v : vs)
        if (v.type) resolve(*v.type);
    };
    std::function<void(Expr &)> exprs = [&](Expr &e) {
      for (auto &ta : e.type_args) {
        TypeSyntax t = ta->clone();
        if (resolve(t)) ta = std::make_shared<const TypeSyntax>(std::move(t));
      }
      for (auto &a : e.args) exprs(*a);
    };
    for (auto &decl : p_.decls) {
      if (auto *n = std::get_if<NodeDecl>(&decl)) {
        for (auto *list : {&n->inputs, &n->outputs, &n->locals, &n->statics}) decls(*list);
        for (auto &eq : n->equations) exprs(*eq.rhs);
        for (auto &a : n->assumptions) exprs(*a.cond);
        for (auto &r : n->resets) exprs(*r.cond);
      } else if (auto *c = std::get_if<ConstDecl>(&decl)) {
        if (c->type) resolve(*c->type);
        if (c->value) exprs(*c->value);
      } else if (auto *t = std::get_if<TypeDecl>(&decl)) {
        if (t->alias) resolve(*t->alias);
        decls(t->fields);
      } else if (auto *f = std::get_if<FunDecl>(&decl)) {
        decls(f->params);
        resolve(f->result);
        exprs(*f->body);
      }
    }
  }

  static std::string describe_path(const std::vector<std::string> &path) {
    std::string s;
    for (size_t k = 0; k < path.size(); ++k) s += (k ? " holds " : "") + std::string("'") + path[k] + "'";
    return s;
  }

  // The datatypes and record types a type names, through aliases, arrays and groups.
  void named_types(const TypeSyntax &t, std::vector<std::string> &out, std::set<std::string> &seen) const {
    switch (t.kind) {
      case TypeSyntax::Named: {
        if (!seen.insert(t.name).second) return;
        if (infos_.count(t.name) && infos_.at(t.name).decl) {
          out.push_back(t.name);
          return;
        }
        auto it = types_.find(t.name);
        if (it == types_.end()) return;
        if (it->second->alias) named_types(*it->second->alias, out, seen);
        for (auto &f : it->second->fields) named_types(*f.type, out, seen);
        return;
      }
      case TypeSyntax::Array:
      case TypeSyntax::Group:
        for (auto &e : t.elem) named_types(e, out, seen);
        return;
      default: return;
    }
  }
  std::vector<std::string> datatypes_in(const TypeSyntax &t) const {
    std::vector<std::string> out;
    std::set<std::string> seen;
    named_types(t, out, seen);
    return out;
  }
  bool recursive(const std::string &name, std::vector<std::string> &path) const {
    const Info &i = infos_.at(name);
    for (auto *c : i.ctor_decls)
      for (auto &f : c->fields)
        for (auto &inner : datatypes_in(*f.type)) {
          if (inner == path.front()) {
            path.push_back(inner);
            return true;
          }
          if (std::find(path.begin(), path.end(), inner) != path.end()) continue;  // another cycle, reported at its own
          path.push_back(inner);
          if (recursive(inner, path)) return true;
          path.pop_back();
        }
    return false;
  }

  const Info *record_datatype(const TypeSyntax &t) const {
    if (t.kind != TypeSyntax::Named) return nullptr;
    std::string n = t.name;
    for (int hops = 0; hops < 64; ++hops) {
      if (auto it = infos_.find(n); it != infos_.end()) return it->second.decl && it->second.is_record ? &it->second : nullptr;
      auto ty = types_.find(n);
      if (ty == types_.end() || !ty->second->alias || ty->second->alias->kind != TypeSyntax::Named) return nullptr;
      n = ty->second->alias->name;
    }
    return nullptr;
  }

  // The first value of a type (the fields of the constructors a value was not built with);
  // null after an error.
  ExprPtr first_value(const TypeSyntax &t, Span at, int depth = 0) {
    if (depth > 64) return nullptr;  // an alias cycle: sema/type_decls reports it
    switch (t.kind) {
      case TypeSyntax::Tensor:
        if (!t.dims.empty()) break;
        switch (t.scalar) {
          case Scalar::Bool: return mk_bool(false, at);
          case Scalar::Real: return mk_real(0.0, at);
          case Scalar::Int: {
            if (t.subrange && (t.range_lo || t.range_hi)) return (t.range_lo ? t.range_lo : t.range_hi)->clone();
            ExprPtr z = mk_int(0, at);
            if (!t.machine) return z;
            std::vector<ExprPtr> a;
            a.push_back(std::move(z));
            return call(t.machine->cast_name(), std::move(a), at);
          }
          default: break;
        }
        break;
      case TypeSyntax::Named: {
        if (auto it = infos_.find(t.name); it != infos_.end()) {
          const Info &i = it->second;
          if (!i.decl || !i.is_record) return mk_var(i.ctors.front(), at);
          return construct(i, *i.ctor_decls.front(), {}, at);
        }
        auto ty = types_.find(t.name);
        if (ty == types_.end()) break;
        const TypeDecl &td = *ty->second;
        if (td.alias) return first_value(*td.alias, at, depth + 1);
        if (td.is_record) {
          auto r = std::make_unique<Expr>(ExprKind::Record, at);
          r->name = td.name;
          uint32_t h = 0;
          for (auto &f : td.fields) {
            auto v = first_value(*f.type, at, depth + 1);
            if (!v) return nullptr;
            h = std::max(h, v->height);
            r->binders.push_back(f.name);
            r->binder_spans.push_back(at);
            r->args.push_back(std::move(v));
          }
          r->height = h + 1;
          return r;
        }
        break;
      }
      case TypeSyntax::Array: {
        auto v = first_value(t.elem[0], at, depth + 1);
        if (!v) return nullptr;
        return mk_binary(Op::Caret, std::move(v), t.dims[0].expr->clone(), at);
      }
      case TypeSyntax::Group: {
        std::vector<ExprPtr> a;
        for (auto &e : t.elem) {
          auto v = first_value(e, at, depth + 1);
          if (!v) return nullptr;
          a.push_back(std::move(v));
        }
        return with_args(ExprKind::Tuple, at, std::move(a));
      }
      default: break;
    }
    d_.error("syntax.unsupported", t.span,
             "a datatype's field of this type is not read by rml (its constructors' other fields need a first value)");
    return nullptr;
  }

  // `D { ctor = C; f = a; g = <first value>; ... }`: the constructor C of i applied to args
  // (by field, in order; empty: every field its first value).
  ExprPtr construct(const Info &i, const DatatypeCtor &c, std::vector<ExprPtr> args, Span at) {
    auto r = std::make_unique<Expr>(ExprKind::Record, at);
    r->name = i.name;
    r->binders.push_back(i.tag_field);
    r->binder_spans.push_back(at);
    r->args.push_back(mk_var(c.name, at));
    size_t given = 0;
    for (auto *other : i.ctor_decls)
      for (auto &f : other->fields) {
        ExprPtr v;
        if (other == &c && given < args.size()) v = std::move(args[given++]);
        else v = first_value(*f.type, at);
        if (!v) return nullptr;
        r->binders.push_back(f.name);
        r->binder_spans.push_back(at);
        r->args.push_back(std::move(v));
      }
    uint32_t h = 0;
    for (auto &a : r->args) h = std::max(h, a->height);
    r->height = h + 1;
    return r;
  }

  // The value e of type t made canonical; null when t holds no datatype with fields (e is
  // already canonical), or after an error.
  ExprPtr canonical(const ExprPtr &e, const TypeSyntax &t, Span at, bool &failed, int depth = 0) {
    if (depth > 64) return nullptr;
    if (const Info *i = record_datatype(t)) {
      std::vector<ExprPtr> a;
      a.push_back(e->clone());
      return call(i->canon, std::move(a), at);
    }
    if (t.kind == TypeSyntax::Named) {
      auto ty = types_.find(t.name);
      if (ty == types_.end()) return nullptr;
      const TypeDecl &td = *ty->second;
      if (td.alias) return canonical(e, *td.alias, at, failed, depth + 1);
      if (!td.is_record) return nullptr;
      bool any = false;
      auto r = std::make_unique<Expr>(ExprKind::Record, at);
      r->name = td.name;
      for (auto &f : td.fields) {
        ExprPtr fe = field_of(e->clone(), f.name, at);
        ExprPtr c = canonical(fe, *f.type, at, failed, depth + 1);
        any = any || c;
        r->binders.push_back(f.name);
        r->binder_spans.push_back(at);
        r->args.push_back(c ? std::move(c) : std::move(fe));
      }
      if (!any) return nullptr;
      uint32_t h = 0;
      for (auto &a : r->args) h = std::max(h, a->height);
      r->height = h + 1;
      return r;
    }
    bool holds = false;
    for (auto &n : datatypes_in(t)) holds = holds || infos_.at(n).is_record;
    if (holds && !failed) {
      failed = true;
      d_.error("syntax.unsupported", t.span,
               "a datatype with fields inside an array or a group of this declaration is not read by rml (its values "
               "are made canonical where they enter a node); declare a record or the datatype itself");
    }
    return nullptr;
  }

  // function $canon.D (x: D) returns (y: D): y = D { ctor = x.ctor; f = if x.ctor = C then
  // canonical(x.f) else <first value>; ... }
  Decl canon_function(const Info &i) {
    Span at = i.decl->name_span;
    NodeDecl n;
    n.name = i.canon;
    n.name_span = at;
    n.keyword_span = at;
    n.is_function = true;
    n.lustre_style = n.has_let = true;
    VarDecl x, y;
    x.name = "x";
    y.name = "y";
    x.span = y.span = at;
    x.type = named(i.name, at);
    y.type = named(i.name, at);
    n.inputs.push_back(std::move(x));
    n.outputs.push_back(std::move(y));
    auto r = std::make_unique<Expr>(ExprKind::Record, at);
    r->name = i.name;
    r->binders.push_back(i.tag_field);
    r->binder_spans.push_back(at);
    r->args.push_back(field_of(mk_var("x", at), i.tag_field, at));
    bool failed = false;
    for (auto *c : i.ctor_decls)
      for (auto &f : c->fields) {
        ExprPtr fe = field_of(mk_var("x", at), f.name, at);
        ExprPtr inner = canonical(fe, *f.type, at, failed);
        ExprPtr first = first_value(*f.type, at);
        if (!first) continue;
        ExprPtr is = mk_binary(Op::Eq, field_of(mk_var("x", at), i.tag_field, at), mk_var(c->name, at), at);
        r->binders.push_back(f.name);
        r->binder_spans.push_back(at);
        r->args.push_back(if_then_else(std::move(is), inner ? std::move(inner) : std::move(fe), std::move(first), at));
      }
    uint32_t h = 0;
    for (auto &a : r->args) h = std::max(h, a->height);
    r->height = h + 1;
    Equation eq;
    eq.lhs.push_back(LhsItem{"y", at});
    eq.rhs = std::move(r);
    eq.span = at;
    n.equations.push_back(std::move(eq));
    return n;
  }

  // ---- expressions ----

  // Where a match in a node's body adds its equations (the matched value and the arms'
  // guards): right after the equation it is in, in the same reset block.
  struct NodeSink {
    NodeDecl *node = nullptr;
    std::set<std::string> vars;  // the node's variables: declared, or defined by an equation
    std::vector<Equation> extra;
    int block = -1;
    int counter = 0;
    std::string fresh(const char *prefix) {
      std::string n;
      do n = std::string("$") + prefix + std::to_string(++counter);
      while (vars.count(n));
      vars.insert(n);
      return n;
    }
    // A fresh local `$<prefix>N = rhs`, added after the equation being rewritten.
    std::string define(const char *prefix, ExprPtr rhs, Span at) {
      std::string n = fresh(prefix);
      Equation eq;
      eq.lhs.push_back(LhsItem{n, at});
      eq.span = at;
      eq.block = block;
      eq.rhs = std::move(rhs);
      extra.push_back(std::move(eq));
      return n;
    }
  };

  void rewrite_decl(Decl &decl) {
    if (auto *n = std::get_if<NodeDecl>(&decl)) {
      NodeSink sink;
      sink.node = n;
      for (auto *list : {&n->inputs, &n->outputs, &n->locals, &n->statics})
        for (auto &v : *list) sink.vars.insert(v.name);
      for (auto &eq : n->equations)
        for (auto &l : eq.lhs) sink.vars.insert(l.name);
      var_types_.clear();
      for (auto *list : {&n->inputs, &n->outputs, &n->locals, &n->statics})
        for (auto &v : *list) var_types_[v.name] = v.type ? &*v.type : nullptr;
      for (auto &v : sink.vars) var_types_.emplace(v, nullptr);  // undeclared: hides a constant of its name
      auto declared = [&](const std::string &v) {
        auto it = var_types_.find(v);
        return it == var_types_.end() ? nullptr : it->second;
      };
      std::vector<Equation> eqs;
      for (auto &eq : n->equations) {
        sink.block = eq.block;
        if (eq.lhs.size() > 1 && eq.rhs->kind == ExprKind::Tuple && eq.rhs->args.size() == eq.lhs.size()) {
          for (size_t k = 0; k < eq.lhs.size(); ++k) rewrite(eq.rhs->args[k], sink.vars, &sink, declared(eq.lhs[k].name));
          uint32_t h = 0;
          for (auto &a : eq.rhs->args) h = std::max(h, a->height);
          eq.rhs->height = h + 1;
        } else {
          rewrite(eq.rhs, sink.vars, &sink, eq.lhs.size() == 1 ? declared(eq.lhs[0].name) : nullptr);
        }
        eqs.push_back(std::move(eq));
        for (auto &x : sink.extra) eqs.push_back(std::move(x));
        sink.extra.clear();
      }
      sink.block = -1;
      for (auto &a : n->assumptions) rewrite(a.cond, sink.vars, &sink);
      for (auto &r : n->resets) rewrite(r.cond, sink.vars, &sink);
      for (auto &x : sink.extra) eqs.push_back(std::move(x));
      n->equations = std::move(eqs);
      if (n->imported && !is_any_node(*n))
        for (auto &o : n->outputs)
          if (o.type) refuse_free(*o.type, o.span, "an output of the imported node '" + n->name + "'");
    } else if (auto *c = std::get_if<ConstDecl>(&decl)) {
      std::set<std::string> none;
      var_types_.clear();
      if (c->value) rewrite(c->value, none, nullptr, c->type ? &*c->type : nullptr);
      else if (c->type) refuse_free(*c->type, c->name_span, "the free constant '" + c->name + "'");
    } else if (auto *f = std::get_if<FunDecl>(&decl)) {
      std::set<std::string> params;
      var_types_.clear();
      for (auto &v : f->params) {
        params.insert(v.name);
        var_types_[v.name] = v.type ? &*v.type : nullptr;
      }
      rewrite(f->body, params, nullptr, &f->result);
    }
  }

  // The imported node of an `any { x: T | P }` (syntax/any_values.hpp): its value, like
  // any@<T>'s, is made canonical where it is read (its guarantee reads it so too).
  static bool is_any_node(const NodeDecl &n) {
    return n.imported && n.name.rfind(kAnyCall, 0) == 0 && n.outputs.size() == 1 && n.outputs[0].type;
  }
  void refuse_free(const TypeSyntax &t, Span at, const std::string &what) {
    for (auto &n : datatypes_in(t))
      if (infos_.at(n).is_record) {
        d_.error("syntax.unsupported", at,
                 what + " holds the datatype '" + n +
                     "': rml reads a datatype's values only where the program builds them or a node's input gives them");
        return;
      }
  }

  const Info *owner(const std::string &ctor) const {
    auto it = ctor_owner_.find(ctor);
    return it == ctor_owner_.end() ? nullptr : &infos_.at(it->second);
  }

  // ---- what an expression's type is, as far as the declarations tell ----

  std::map<std::string, const TypeSyntax *> var_types_;  // the node being rewritten's variables
  std::map<std::string, const TypeSyntax *> const_types_;
  std::map<std::string, const NodeDecl *> node_decls_;
  std::set<uint32_t> bare_;  // where `N@<T>` was written without arguments

  static TypeSyntax scalar(Scalar k) {
    TypeSyntax t;
    t.scalar = k;
    return t;
  }
  // The record type (a declared record, or a datatype) a type names, through aliases.
  std::string follow(const TypeSyntax &t) const {
    if (t.kind != TypeSyntax::Named) return "";
    std::string n = t.name;
    for (int hops = 0; hops < 64; ++hops) {
      auto ty = types_.find(n);
      if (ty == types_.end() || !ty->second->alias || ty->second->alias->kind != TypeSyntax::Named) return n;
      n = ty->second->alias->name;
    }
    return n;
  }
  // The type of a field of the record or datatype n; null if none.
  const TypeSyntax *field_type(const std::string &n, const std::string &f) const {
    if (auto it = infos_.find(n); it != infos_.end()) {
      for (auto *c : it->second.ctor_decls)
        for (auto &x : c->fields)
          if (x.name == f) return &*x.type;
      return nullptr;
    }
    if (auto ty = types_.find(n); ty != types_.end())
      for (auto &x : ty->second->fields)
        if (x.name == f) return &*x.type;
    return nullptr;
  }
  // The type of e where the declarations tell it (variables, literals, constructors,
  // fields, calls of nodes with one output, and the operators that keep their operand's).
  std::optional<TypeSyntax> type_of(const Expr &e) {
    switch (e.kind) {
      case ExprKind::IntLit: return scalar(Scalar::Int);
      case ExprKind::RealLit: return scalar(Scalar::Real);
      case ExprKind::BoolLit: return scalar(Scalar::Bool);
      case ExprKind::Var: {
        if (auto it = var_types_.find(e.name); it != var_types_.end()) return it->second ? std::optional(it->second->clone()) : std::nullopt;
        if (auto it = const_types_.find(e.name); it != const_types_.end() && it->second) return it->second->clone();
        if (const Info *i = owner(e.name); i && i->params.empty()) return named(i->name, e.span);
        return std::nullopt;
      }
      case ExprKind::Call: {
        if (auto m = MachineInt::of_cast(e.name)) {
          TypeSyntax t = scalar(Scalar::Int);
          t.machine = *m;
          return t;
        }
        if (e.name == kMatchCall || e.name == kWhenCall) {  // an arm's
          for (size_t k = 1; k < e.args.size(); ++k)
            if (auto t = type_of(*e.args[k])) return t;
          return std::nullopt;
        }
        if (e.name == "real") return scalar(Scalar::Real);
        if (e.name == "int") return scalar(Scalar::Int);
        if (const Info *i = owner(e.name)) {
          if (i->params.empty()) return named(i->name, e.span);
          if (const Info *inst = explicit_instance(e, *i)) return named(inst->name, e.span);
          return std::nullopt;
        }
        auto n = node_decls_.find(e.name);
        if (n != node_decls_.end() && n->second->outputs.size() == 1 && n->second->type_params.empty() &&
            n->second->outputs[0].type)
          return n->second->outputs[0].type->clone();
        return std::nullopt;
      }
      case ExprKind::Field: {
        auto t = type_of(*e.args[0]);
        if (!t) return std::nullopt;
        const TypeSyntax *f = field_type(follow(*t), e.name);
        return f ? std::optional(f->clone()) : std::nullopt;
      }
      case ExprKind::Record: return named(e.name, e.span);
      case ExprKind::If:
      case ExprKind::Merge:
        for (size_t k = 1; k < e.args.size(); ++k)
          if (auto t = type_of(*e.args[k])) return t;
        return std::nullopt;
      case ExprKind::When: return type_of(*e.args[0]);
      case ExprKind::Unary:
        if (e.op == Op::Not) return scalar(Scalar::Bool);
        return type_of(*e.args[0]);
      case ExprKind::Binary:
        switch (e.op) {
          case Op::Eq: case Op::Ne: case Op::Lt: case Op::Le: case Op::Gt: case Op::Ge: case Op::And: case Op::Or:
          case Op::Xor: case Op::Implies:
            return scalar(Scalar::Bool);
          default:
            if (auto t = type_of(*e.args[0])) return t;
            return type_of(*e.args[1]);
        }
      default: return std::nullopt;
    }
  }

  // The instance a constructor of a family written with its type arguments names
  // (`None@<int>`, `Some@<int>(x)`); null otherwise.
  const Info *explicit_instance(const Expr &e, const Info &family) {
    if (e.type_args.size() != family.params.size()) return nullptr;
    std::vector<TypeSyntax> args;
    for (auto &t : e.type_args) args.push_back(t->clone());
    return instance(family, std::move(args), e.span);
  }
  // Binds the family's parameters in pattern (a field's type as declared) to what actual
  // (a resolved type) holds there.
  bool bind(const TypeSyntax &pattern, const TypeSyntax &actual, const Info &family, std::vector<std::optional<TypeSyntax>> &out) const {
    if (pattern.kind == TypeSyntax::Named && pattern.elem.empty()) {
      for (size_t k = 0; k < family.params.size(); ++k)
        if (pattern.name == family.params[k]) {
          if (out[k] && print_type(*out[k]) != print_type(actual)) return false;
          out[k] = actual.clone();
          return true;
        }
      return true;
    }
    if (pattern.kind == TypeSyntax::Named) {  // F<...> against an instance of F
      auto it = infos_.find(follow(actual));
      if (it == infos_.end() || it->second.family != pattern.name) return true;
      for (size_t k = 0; k < pattern.elem.size() && k < it->second.args.size(); ++k)
        if (!bind(pattern.elem[k], it->second.args[k], family, out)) return false;
      return true;
    }
    if ((pattern.kind == TypeSyntax::Array || pattern.kind == TypeSyntax::Group) && actual.kind == pattern.kind)
      for (size_t k = 0; k < pattern.elem.size() && k < actual.elem.size(); ++k)
        if (!bind(pattern.elem[k], actual.elem[k], family, out)) return false;
    return true;
  }
  // The instance a constructor of a family stands for: written with its type arguments,
  // else the type expected where it is, else the one its fields' values give.
  const Info *instance_for(const Expr &e, const Info &family, const TypeSyntax *expected) {
    if (!e.type_args.empty()) {
      if (e.type_args.size() != family.params.size()) {
        d_.error("arity.args", e.span,
                 "the datatype '" + family.name + "' takes " + std::to_string(family.params.size()) + " type argument" +
                     (family.params.size() == 1 ? "" : "s") + ", but " + std::to_string(e.type_args.size()) +
                     (e.type_args.size() == 1 ? " is" : " are") + " given");
        return nullptr;
      }
      return explicit_instance(e, family);
    }
    if (expected)
      if (auto it = infos_.find(follow(*expected)); it != infos_.end() && it->second.family == family.name) return &it->second;
    std::vector<std::optional<TypeSyntax>> out(family.params.size());
    const DatatypeCtor &c = *family.ctor_decls[family.ctor_index(e.name)];
    if (e.kind == ExprKind::Call)
      for (size_t k = 0; k < e.args.size() && k < c.fields.size(); ++k)
        if (auto t = type_of(*e.args[k])) bind(*c.fields[k].type, *t, family, out);
    std::vector<TypeSyntax> args;
    for (auto &o : out) {
      if (!o) {
        d_.error("type.missing", e.span,
                 "the type arguments of '" + e.name + "' (a constructor of '" + family.name +
                     "') cannot be told here: write " + e.name + "@<...>" + (e.kind == ExprKind::Call && !e.args.empty() ? "(...)" : ""));
        return nullptr;
      }
      args.push_back(std::move(*o));
    }
    return instance(family, std::move(args), e.span);
  }

  // The types expected of e's operands, where e's own expected type or the declarations
  // tell them; store keeps those made here. For a constructor of a family, *inst is the
  // instance chosen.
  std::vector<const TypeSyntax *> operand_types(const Expr &e, const TypeSyntax *expected, std::deque<TypeSyntax> &store,
                                                const std::set<std::string> &vars, const Info **inst) {
    std::vector<const TypeSyntax *> ex(e.args.size(), nullptr);
    auto keep = [&](std::optional<TypeSyntax> t) -> const TypeSyntax * {
      if (!t) return nullptr;
      store.push_back(std::move(*t));
      return &store.back();
    };
    switch (e.kind) {
      case ExprKind::If:
      case ExprKind::Merge:
        for (size_t k = 1; k < e.args.size(); ++k) ex[k] = expected;
        break;
      case ExprKind::When: ex[0] = expected; break;
      case ExprKind::Unary:
        if (e.op == Op::Pre || e.op == Op::Neg) ex[0] = expected;
        break;
      case ExprKind::Binary:
        if (e.op == Op::Arrow || e.op == Op::Fby) ex[0] = ex[1] = expected;
        if (e.op == Op::Eq || e.op == Op::Ne) {
          ex[0] = keep(type_of(*e.args[1]));
          ex[1] = keep(type_of(*e.args[0]));
        }
        break;
      case ExprKind::Record:
        for (size_t k = 0; k < e.args.size() && k < e.binders.size(); ++k) ex[k] = field_type(follow(named(e.name, e.span)), e.binders[k]);
        break;
      case ExprKind::Call: {
        if (e.name == kMatchCall || e.name == kWhenCall) {  // the arms (not the matched value, c)
          for (size_t k = 1; k < e.args.size(); ++k) ex[k] = expected;
          break;
        }
        const Info *i = owner(e.name);
        if (i && i->decl && e.name != kTesterCall) {
          const Info *use = i;
          if (!i->params.empty()) use = *inst = instance_for(e, *i, expected);
          if (use && use->is_record) {
            const DatatypeCtor &c = *use->ctor_decls[use->ctor_index(e.name)];
            for (size_t k = 0; k < e.args.size() && k < c.fields.size(); ++k) ex[k] = &*c.fields[k].type;
          }
          break;
        }
        auto n = node_decls_.find(e.name);
        if (n != node_decls_.end() && n->second->type_params.empty() && !e.statics && n->second->inputs.size() == e.args.size())
          for (size_t k = 0; k < e.args.size(); ++k) ex[k] = n->second->inputs[k].type ? &*n->second->inputs[k].type : nullptr;
        break;
      }
      default: break;
    }
    (void)vars;
    return ex;
  }

  // Post-order: the arms of a match are rewritten before they are placed. expected: the
  // type the context gives e (a declaration, a field, the other side of `=`), or null.
  void rewrite(ExprPtr &e, const std::set<std::string> &vars, NodeSink *sink, const TypeSyntax *expected = nullptr) {
    std::set<std::string> inner = vars;
    if (e->kind == ExprKind::Let) inner.insert(e->name);
    if (e->kind == ExprKind::Lambda) inner.insert(e->binders.begin(), e->binders.end());
    std::deque<TypeSyntax> store;
    const Info *inst = nullptr;
    bool ctor_var = e->kind == ExprKind::Var && !vars.count(e->name) && owner(e->name) && owner(e->name)->decl;
    std::vector<const TypeSyntax *> ex;
    if (!ctor_var) ex = operand_types(*e, expected, store, vars, &inst);
    for (size_t k = 0; k < e->args.size(); ++k)
      rewrite(e->args[k], e->kind == ExprKind::Let && k == 0 ? vars : inner, sink, ex[k]);
    uint32_t h = 0;
    for (auto &a : e->args) h = std::max(h, a->height);
    if (!e->args.empty()) e->height = h + 1;

    if (ctor_var) {
      const Info *i = owner(e->name);
      if (!i->params.empty() && i->is_record) i = instance_for(*e, *i, expected);
      if (i && i->is_record) {
        const DatatypeCtor &c = *i->ctor_decls[i->ctor_index(e->name)];
        if (!c.fields.empty()) {
          d_.error("arity.args", e->span,
                   "the constructor '" + c.name + "' takes " + std::to_string(c.fields.size()) + " field" +
                       (c.fields.size() == 1 ? "" : "s") + ": write " + c.name + "(...)");
          return;
        }
        if (auto v = construct(*i, c, {}, e->span)) e = std::move(v);
      }
      return;
    }
    if (e->kind != ExprKind::Call) return;
    if (e->name == kTesterCall) return tester(e);
    if (e->name == kMatchCall) return match(e, sink);
    if (e->name == kWhenCall) return lazy_when(e, sink);
    if (auto n = node_decls_.find(e->name); n != node_decls_.end() && is_any_node(*n->second)) {
      bool failed = false;
      if (auto c = canonical(e, *n->second->outputs[0].type, e->span, failed)) e = std::move(c);
      return;
    }
    if (e->name == "any" && e->args.empty() && e->type_args.size() == 1) {
      if (const Info *i = record_datatype(*e->type_args[0])) {
        Span s = e->span;
        std::vector<ExprPtr> a;
        a.push_back(std::move(e));
        e = call(i->canon, std::move(a), s);
      }
      return;
    }
    const Info *i = owner(e->name);
    if (!i || !i->decl || e->statics) {
      if (bare_.count(e->span.begin))
        d_.error("parse.expected", e->span, "expected '(' and the node's arguments after the type arguments of '" + e->name + "'");
      return;  // a node of that name: sema reports the clash
    }
    if (!i->params.empty()) {
      if (!i->is_record) {  // an enumeration: the constructor itself
        e = mk_var(e->name, e->span);
        return;
      }
      if (!inst) return;  // reported
      i = inst;
    } else if (!e->type_args.empty()) {
      d_.error("arity.args", e->span, "the datatype '" + i->name + "' has no type parameters");
      return;
    }
    const DatatypeCtor &c = *i->ctor_decls[i->ctor_index(e->name)];
    if (e->args.size() != c.fields.size()) {
      d_.error("arity.args", e->span,
               "the constructor '" + c.name + "' takes " + std::to_string(c.fields.size()) + " field" +
                   (c.fields.size() == 1 ? "" : "s") + ", but " + std::to_string(e->args.size()) +
                   (e->args.size() == 1 ? " is" : " are") + " given");
      return;
    }
    if (!i->is_record) {  // a nullary constructor written `C@<T>`: the enumeration's value
      e = mk_var(e->name, e->span);
      return;
    }
    if (auto v = construct(*i, c, std::move(e->args), e->span)) e = std::move(v);
  }

  // `C?(e)`: `e.ctor = C`, or `e = C` for an enumeration.
  void tester(ExprPtr &e) {
    const std::string &c = e->binders[0];
    const Info *i = owner(c);
    if (!i) {
      d_.error("name.unknown", e->binder_spans[0], "'" + c + "' is not a constructor of a datatype or an enumeration");
      return;
    }
    if (e->args.size() != 1) {
      d_.error("arity.args", e->span, "a tester '" + c + "?(e)' takes one value");
      return;
    }
    Span s = e->span;
    e = mk_binary(Op::Eq, tag(*i, std::move(e->args[0]), s), mk_var(c, e->binder_spans[0]), s);
  }

  ExprPtr tag(const Info &i, ExprPtr v, Span s) { return i.is_record ? field_of(std::move(v), i.tag_field, s) : std::move(v); }

  // The conditions under which pattern p matches v, and the values of its variables.
  bool pattern(const PatternSyntax &p, const ExprPtr &v, const Info *expected, std::vector<ExprPtr> &conds,
               std::map<std::string, ExprPtr> &binds) {
    if (p.name == "_" && !p.parens) return true;
    if (!is_ctor_pattern(p, expected)) {  // a variable: the whole value
      if (!binds.emplace(p.name, v->clone()).second) {
        d_.error("name.duplicate", p.span, "the pattern binds '" + p.name + "' twice");
        return false;
      }
      return true;
    }
    const Info *i = owner(p.name);
    if (!i) {
      d_.error("name.unknown", p.span, "'" + p.name + "' is not a constructor of a datatype or an enumeration");
      return false;
    }
    if (i != expected && !(expected && expected->family == i->name)) {
      d_.error("type.mismatch", p.span,
               "the constructor '" + p.name + "' is of the type '" + i->name + "', but the matched value is " +
                   (expected ? "of the type '" + expected->name + "'" : std::string("not of a datatype")));
      return false;
    }
    if (expected) i = expected;  // an instance of i's family: its fields' types
    size_t nfields = i->decl ? i->ctor_decls[i->ctor_index(p.name)]->fields.size() : 0;
    if (p.subs.size() != nfields) {
      d_.error("arity.args", p.span,
               "the constructor '" + p.name + "' has " + std::to_string(nfields) + " field" + (nfields == 1 ? "" : "s") +
                   ", but the pattern gives " + std::to_string(p.subs.size()));
      return false;
    }
    conds.push_back(mk_binary(Op::Eq, tag(*i, v->clone(), p.span), mk_var(p.name, p.span), p.span));
    for (size_t k = 0; k < p.subs.size(); ++k) {
      const VarDecl &f = i->ctor_decls[i->ctor_index(p.name)]->fields[k];
      if (!pattern(p.subs[k], field_of(v->clone(), f.name, p.subs[k].span), datatype_of(*f.type), conds, binds))
        return false;
    }
    return true;
  }
  // A constructor pattern: `C(...)`, or a bare name that is a constructor of the matched
  // value's type (Kind 2 reads a bare name so); other bare names bind variables.
  bool is_ctor_pattern(const PatternSyntax &p, const Info *type) const {
    if (p.parens) return true;
    return type && p.name != "_" && type->ctor_index(p.name) < type->ctors.size();
  }
  // The datatype or enumeration a type names (through aliases); null for another type.
  const Info *datatype_of(const TypeSyntax &t) const {
    if (t.kind != TypeSyntax::Named) return nullptr;
    std::string n = t.name;
    for (int hops = 0; hops < 64; ++hops) {
      if (auto it = infos_.find(n); it != infos_.end()) return &it->second;
      auto ty = types_.find(n);
      if (ty == types_.end() || !ty->second->alias || ty->second->alias->kind != TypeSyntax::Named) return nullptr;
      n = ty->second->alias->name;
    }
    return nullptr;
  }

  // Whether rows of patterns, one per column of the types cols (null: not a datatype),
  // match every value: the classic check, splitting the first column by constructor.
  using Row = std::vector<const PatternSyntax *>;  // null: a wildcard made by the split
  bool exhaustive(const std::vector<Row> &rows, const std::vector<const Info *> &cols) const {
    if (cols.empty()) return !rows.empty();
    const Info *t = cols[0];
    bool any_ctor = false;
    for (auto &r : rows) any_ctor = any_ctor || (r[0] && is_ctor_pattern(*r[0], t));
    if (!any_ctor || !t) {
      std::vector<Row> next;
      for (auto &r : rows)
        if (!r[0] || !is_ctor_pattern(*r[0], t)) next.emplace_back(r.begin() + 1, r.end());
      return exhaustive(next, {cols.begin() + 1, cols.end()});
    }
    for (size_t c = 0; c < t->ctors.size(); ++c)
      if (!ctor_covered(rows, cols, c)) return false;
    return true;
  }
  // Whether the rows match every value the first column's constructor c builds.
  bool ctor_covered(const std::vector<Row> &rows, const std::vector<const Info *> &cols, size_t c) const {
    const Info *t = cols[0];
    std::vector<const Info *> sub;
    if (t->decl)
      for (auto &f : t->ctor_decls[c]->fields) sub.push_back(datatype_of(*f.type));
    size_t arity = sub.size();
    sub.insert(sub.end(), cols.begin() + 1, cols.end());
    std::vector<Row> next;
    for (auto &r : rows) {
      Row n;
      if (!r[0] || !is_ctor_pattern(*r[0], t)) n.assign(arity, nullptr);
      else if (r[0]->name == t->ctors[c])
        for (auto &x : r[0]->subs) n.push_back(&x);
      else continue;
      n.insert(n.end(), r.begin() + 1, r.end());
      next.push_back(std::move(n));
    }
    return exhaustive(next, sub);
  }


  // Whether an arm must run only where it is taken: it keeps state (`pre`, `->`, `fby`,
  // `post`, `current`, a restart) or calls a node or function of the file (whose state
  // steps, and whose contract's assumptions are obligations, only where it is called).
  bool stateful(const Expr &x) const {
    if (x.kind == ExprKind::Unary && (x.op == Op::Pre || x.op == Op::Post)) return true;
    if (x.kind == ExprKind::Binary && (x.op == Op::Fby || x.op == Op::Arrow)) return true;
    if (x.kind == ExprKind::Reset) return true;
    if (x.kind == ExprKind::Call && (x.name == "current" || node_decls_.count(x.name))) return true;
    for (auto &a : x.args)
      if (stateful(*a)) return true;
    return false;
  }

  // x read where every guard of path holds: each node variable it reads (and each
  // sampled or merged subexpression, whose clock its own condition sets) becomes
  // `v when g1 when not g2 ...`.
  using Path = std::vector<std::pair<std::string, bool>>;
  static void sample(ExprPtr &x, const Path &path, const std::set<std::string> &node_vars, std::set<std::string> &hidden) {
    bool atom = (x->kind == ExprKind::Var && node_vars.count(x->name) && !hidden.count(x->name)) ||
                x->kind == ExprKind::When || x->kind == ExprKind::Merge;
    if (atom) {
      for (auto &[g, positive] : path) {
        Span s = x->span;
        std::vector<ExprPtr> a;
        a.push_back(std::move(x));
        a.push_back(mk_var(g, s));
        x = with_args(ExprKind::When, s, std::move(a));
        x->positive = positive;
        x->op_span = s;
      }
      return;
    }
    bool binds_name = x->kind == ExprKind::Let || x->kind == ExprKind::Lambda;
    std::vector<std::string> added;
    for (size_t k = 0; k < x->args.size(); ++k) {
      if (binds_name && (x->kind == ExprKind::Lambda || k == 1) && added.empty())
        for (auto &b : x->kind == ExprKind::Let ? std::vector<std::string>{x->name} : x->binders)
          if (hidden.insert(b).second) added.push_back(b);
      sample(x->args[k], path, node_vars, hidden);
    }
    for (auto &b : added) hidden.erase(b);
    uint32_t h = 0;
    for (auto &a : x->args) h = std::max(h, a->height);
    if (!x->args.empty()) x->height = h + 1;
  }

  // `match v with | p1: b1 | ... end`. The match must cover every constructor (an arm `_`
  // or a variable covers the rest); the first arm whose pattern matches is taken, with
  // the pattern's variables replaced by the fields they name. As in Kind 2, an arm is
  // computed only where it is taken: in a node, arms that keep state are read lazily,
  // `$match1 = v; $arm1 = <p1 matches $match1>;   (v itself when it is a variable)
  //  merge $arm1 (b1 on $arm1) (merge $arm2 (b2 on not $arm1 on $arm2) ...)`,
  // each arm reading the node's variables sampled on its guards (the guards are locals
  // the clock calculus places where the match is). Arms without state give the same
  // values computed at every cycle: `if <p1 matches v> then b1 else if ... else bn`.
  void match(ExprPtr &e, NodeSink *sink) {
    const MatchSyntax &m = matches_.at(static_cast<size_t>(e->ival));
    const Info *type = nullptr;
    for (auto &arm : m.arms)
      if (const Info *i = owner(arm.name); i && !type) type = i;
    if (type && !type->params.empty()) {  // a family: the instance the matched value's type names
      auto t = type_of(*e->args[0]);
      auto it = t ? infos_.find(follow(*t)) : infos_.end();
      if (it != infos_.end() && it->second.family == type->name) type = &it->second;
    }
    bool lazy = false;
    if (sink)
      for (size_t k = 1; k < e->args.size(); ++k) lazy = lazy || stateful(*e->args[k]);
    ExprPtr v;
    if (lazy && e->args[0]->kind != ExprKind::Var && type && type->is_record) {
      // The guards and arms read the value through its record's fields, which need a
      // declared type; a local made here has none (its clock is the match's, unknown).
      d_.error("syntax.unsupported", e->args[0]->span,
               "a match whose arms keep state reads a datatype with fields only from a variable: bind this value to a "
               "variable of type '" + type->name + "' first");
      e = mk_bool(false, m.span);
      return;
    }
    if (lazy && e->args[0]->kind != ExprKind::Var) {  // computed once, where the match is
      Span at = e->args[0]->span;
      v = mk_var(sink->define("match", std::move(e->args[0]), at), m.span);
    } else {  // a variable (sampled with each arm), or a value computed at every cycle
      v = std::move(e->args[0]);
    }
    std::vector<std::vector<ExprPtr>> conds(m.arms.size());
    auto failed = [&] { e = mk_bool(false, m.span); };  // reported: keep the tree whole
    for (size_t k = 0; k < m.arms.size(); ++k) {
      std::map<std::string, ExprPtr> binds;
      if (!pattern(m.arms[k], v, type, conds[k], binds)) return failed();
      substitute_vars(e->args[k + 1], binds, true);
    }
    std::vector<Row> rows;
    for (auto &arm : m.arms) rows.push_back(Row{&arm});
    if (!exhaustive(rows, {type})) {
      std::string list;
      for (size_t c = 0; type && c < type->ctors.size(); ++c)
        if (!ctor_covered(rows, {type}, c)) list += (list.empty() ? "" : ", ") + type->ctors[c];
      d_.error("type.match", m.span,
               type ? "the match does not cover every value of the constructor(s) " + list +
                          " (add an arm for each, or '| _ : ...')"
                    : "the match names no constructor: give an arm for each constructor");
      return failed();
    }
    // The arms after a catch-all are never taken; the last arm reached is taken untested.
    size_t last = m.arms.size() - 1;
    for (size_t k = 0; k < m.arms.size(); ++k)
      if (conds[k].empty()) {
        last = k;
        break;
      }
    auto test = [&](size_t k) {
      ExprPtr c;
      for (auto &x : conds[k]) c = c ? mk_binary(Op::And, std::move(c), std::move(x), m.arms[k].span) : std::move(x);
      return c;
    };
    if (!lazy) {
      ExprPtr out = std::move(e->args[last + 1]);
      for (size_t k = last; k-- > 0;) out = if_then_else(test(k), std::move(e->args[k + 1]), std::move(out), m.span);
      e = std::move(out);
      return;
    }
    Path path;
    std::vector<std::pair<std::string, ExprPtr>> taken;  // each guard and its arm, in order
    for (size_t k = 0; k <= last; ++k) {
      ExprPtr body = std::move(e->args[k + 1]);
      std::set<std::string> hidden;
      if (k == last) {
        sample(body, path, sink->vars, hidden);
        taken.emplace_back("", std::move(body));
        break;
      }
      ExprPtr c = test(k);
      sample(c, path, sink->vars, hidden);
      std::string g = sink->define("arm", std::move(c), m.arms[k].span);
      path.emplace_back(g, true);
      sample(body, path, sink->vars, hidden);
      path.back().second = false;
      taken.emplace_back(g, std::move(body));
    }
    ExprPtr out = std::move(taken.back().second);
    for (size_t k = taken.size() - 1; k-- > 0;) {
      std::vector<ExprPtr> a;
      a.push_back(mk_var(taken[k].first, m.span));
      a.push_back(std::move(taken[k].second));
      a.push_back(std::move(out));
      out = with_args(ExprKind::Merge, m.span, std::move(a));
      out->op_span = m.span;
    }
    e = std::move(out);
  }

  // `when c then a else b`: `if c then a else b` where neither keeps state, else
  // `merge g (a on g) (b on not g)`, g the bool local holding c (c itself when a variable).
  void lazy_when(ExprPtr &e, NodeSink *sink) {
    Span s = e->span;
    if (!sink || (!stateful(*e->args[1]) && !stateful(*e->args[2]))) {
      e = if_then_else(std::move(e->args[0]), std::move(e->args[1]), std::move(e->args[2]), s);
      return;
    }
    std::string g;
    if (e->args[0]->kind == ExprKind::Var) {
      g = e->args[0]->name;
    } else {
      Span at = e->args[0]->span;
      g = sink->define("when", std::move(e->args[0]), at);
    }
    std::set<std::string> hidden;
    sample(e->args[1], {{g, true}}, sink->vars, hidden);
    sample(e->args[2], {{g, false}}, sink->vars, hidden);
    std::vector<ExprPtr> a;
    a.push_back(mk_var(g, s));
    a.push_back(std::move(e->args[1]));
    a.push_back(std::move(e->args[2]));
    e = with_args(ExprKind::Merge, s, std::move(a));
    e->op_span = s;
  }

  // Each input of a datatype with fields is read through its canonical value.
  void canonical_inputs(NodeDecl &n) {
    if (n.imported && !is_any_node(n)) return;
    std::map<std::string, ExprPtr> binds;
    for (auto &in : is_any_node(n) ? n.outputs : n.inputs) {
      if (!in.type) continue;
      bool failed = false;
      if (auto c = canonical(mk_var(in.name, in.span), *in.type, in.span, failed)) binds.emplace(in.name, std::move(c));
    }
    if (binds.empty()) return;
    auto f = [&](ExprPtr &e) { substitute_vars(e, binds, true); };
    for (auto &eq : n.equations) f(eq.rhs);
    for (auto &a : n.assumptions) f(a.cond);
    for (auto &r : n.resets) f(r.cond);
  }
};

}  // namespace

void expand_datatypes(Program &p, const std::vector<DatatypeSyntax> &datatypes, const std::vector<MatchSyntax> &matches,
                      const std::vector<Span> &bare, Diagnostics &d) {
  DatatypeExpander(p, datatypes, matches, bare, d).run();
}

}  // namespace rml
