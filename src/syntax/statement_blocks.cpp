#include "syntax/statement_blocks.hpp"

#include <algorithm>
#include <map>

namespace rml {

namespace {

class StatementExpander {
 public:
  StatementExpander(NodeDecl &n, FrameBlock *frame, std::set<std::string> &names, Diagnostics &d)
      : n_(n), frame_(frame), names_(names), d_(d) {}

  void run(std::vector<BlockStatement> stmts) {
    for (auto &s : stmts)
      if (s.nested) prepare(*s.nested);
    if (frame_) frame_->inits = one_variable_each(std::move(frame_->inits), frame_->span);
    if (frame_) check_frame(stmts);
    // The variables the statements define, in the order they are first defined.
    std::vector<std::pair<std::string, Span>> defined;
    for (auto &s : stmts) collect(s, defined);
    // An equation outside every if is kept as it is; a variable an if statement defines is
    // the tree of its branches.
    std::set<std::string> by_if;
    for (auto &s : stmts)
      if (s.nested) {
        std::vector<std::pair<std::string, Span>> in_if;
        collect(s, in_if);
        for (auto &[v, sp] : in_if) by_if.insert(v);
      }
    for (auto &[v, lhs_span] : defined) {
      if (!by_if.count(v)) continue;
      Span where;
      ExprPtr e = value(stmts, v, where);
      if (!e) continue;  // reported
      Equation eq;
      eq.lhs.push_back(LhsItem{v, lhs_span});
      eq.rhs = std::move(e);
      eq.span = where;
      n_.equations.push_back(std::move(eq));
    }
    for (auto &s : stmts)
      if (!s.nested) {
        if (!s.eq.index_vars.empty() && frame_) {
          d_.error("syntax.unsupported", s.eq.span, "a definition by index in a frame block is not read by rml");
          continue;
        }
        n_.equations.push_back(std::move(s.eq));
      }
    if (!frame_) return;
    // A variable of the frame that no statement defines keeps its initialisation, then its
    // value: `init -> pre v` (`pre v` without one).
    for (auto &var : frame_->vars) {
      if (std::any_of(defined.begin(), defined.end(), [&](auto &d) { return d.first == var.name; })) continue;
      Equation eq;
      eq.lhs.push_back(var);
      eq.rhs = held(var.name, var.span);
      eq.span = var.span;
      n_.equations.push_back(std::move(eq));
    }
  }

 private:
  NodeDecl &n_;
  FrameBlock *frame_;
  std::set<std::string> &names_;
  Diagnostics &d_;
  std::map<const IfStatement *, std::vector<std::string>> guards_;
  std::set<std::pair<const IfStatement *, std::string>> reported_;

  std::string fresh(const std::string &base) {
    std::string s = base;
    for (int k = 1; names_.count(s); ++k) s = base + "_" + std::to_string(k);
    names_.insert(s);
    return s;
  }
  static std::string at(const char *word, Span s) {
    auto [line, col] = s.file ? s.file->line_col(s.begin) : std::pair<uint32_t, uint32_t>{0, 0};
    return std::string(word) + "_l" + std::to_string(line) + "c" + std::to_string(col);
  }

  // Each condition becomes a bool local computed once per cycle (every variable of the
  // statement reads the same one); a branch's tuple equation becomes one equation a
  // variable (through locals of the variables' types when its right side is not a tuple).
  void prepare(IfStatement &s) {
    std::vector<std::string> &g = guards_[&s];
    for (size_t k = 0; k < s.conds.size(); ++k) {
      Span cs = s.conds[k]->span;
      std::string name = fresh(at(k == 0 ? "if" : "elsif", cs));
      g.push_back(name);
      VarDecl v;
      v.name = name;
      v.span = cs;
      v.type = TypeSyntax{};
      v.type->scalar = Scalar::Bool;
      v.type->span = cs;
      n_.locals.push_back(std::move(v));
      Equation eq;
      eq.lhs.push_back(LhsItem{name, cs});
      eq.rhs = std::move(s.conds[k]);
      eq.span = cs;
      n_.equations.push_back(std::move(eq));
    }
    for (auto &branch : s.branches) {
      std::vector<BlockStatement> out;
      for (auto &st : branch) {
        if (st.nested) {
          prepare(*st.nested);
          out.push_back(std::move(st));
          continue;
        }
        Equation &eq = st.eq;
        if (!eq.index_vars.empty()) {
          d_.error("syntax.unsupported", eq.span, "a definition by index in an if statement is not read by rml");
          continue;
        }
        std::vector<Equation> one;
        one.push_back(std::move(eq));
        for (auto &e : one_variable_each(std::move(one), s.span)) {
          BlockStatement b;
          b.eq = std::move(e);
          out.push_back(std::move(b));
        }
      }
      branch = std::move(out);
    }
  }

  // Equations of one variable each: `(a, b) = (e1, e2)` split; `(a, b) = f(x)` through
  // locals of a's and b's types, defined by `(a_l3c5, b_l3c5) = f(x)` in the node (computed
  // at every cycle, as every branch is).
  std::vector<Equation> one_variable_each(std::vector<Equation> eqs, Span block) {
    std::vector<Equation> out;
    for (auto &eq : eqs) {
      if (eq.lhs.size() == 1) {
        out.push_back(std::move(eq));
        continue;
      }
      std::vector<ExprPtr> parts;
      if (eq.rhs->kind == ExprKind::Tuple && eq.rhs->args.size() == eq.lhs.size()) {
        parts = std::move(eq.rhs->args);
      } else {
        Equation whole;
        whole.span = eq.span;
        whole.rhs = std::move(eq.rhs);
        for (auto &item : eq.lhs) {
          if (item.name == "_") {
            whole.lhs.push_back(item);
            parts.push_back(nullptr);
            continue;
          }
          std::string t = fresh(item.name + "_" + at(frame_ ? "frame" : "if", block));
          VarDecl v;
          v.name = t;
          v.span = item.span;
          if (const VarDecl *decl = declared(item.name)) v.type = decl->type ? std::optional<TypeSyntax>(decl->type->clone()) : std::nullopt;
          n_.locals.push_back(std::move(v));
          whole.lhs.push_back(LhsItem{t, item.span});
          parts.push_back(mk_var(t, item.span));
        }
        n_.equations.push_back(std::move(whole));
      }
      for (size_t k = 0; k < eq.lhs.size(); ++k) {
        if (eq.lhs[k].name == "_" || !parts[k]) continue;
        Equation one;
        one.lhs.push_back(eq.lhs[k]);
        one.rhs = std::move(parts[k]);
        one.span = eq.span;
        out.push_back(std::move(one));
      }
    }
    return out;
  }

  const VarDecl *declared(const std::string &v) const {
    for (auto *list : {&n_.outputs, &n_.locals})
      for (auto &d : *list)
        if (d.name == v) return &d;
    return nullptr;
  }

  void collect(const BlockStatement &s, std::vector<std::pair<std::string, Span>> &out) const {
    auto add = [&](const LhsItem &item) {
      if (item.name == "_") return;
      if (std::none_of(out.begin(), out.end(), [&](auto &d) { return d.first == item.name; })) out.emplace_back(item.name, item.span);
    };
    if (!s.nested) {
      for (auto &item : s.eq.lhs) add(item);
      return;
    }
    for (auto &branch : s.nested->branches)
      for (auto &st : branch) collect(st, out);
  }
  static bool defines(const BlockStatement &s, const std::string &v) {
    if (!s.nested) return std::any_of(s.eq.lhs.begin(), s.eq.lhs.end(), [&](auto &i) { return i.name == v; });
    for (auto &branch : s.nested->branches)
      for (auto &st : branch)
        if (defines(st, v)) return true;
    return false;
  }

  // Every variable a frame block's body defines or initialises is one of its frame's.
  void check_frame(const std::vector<BlockStatement> &stmts) {
    for (auto &init : frame_->inits)
      for (auto &item : init.lhs)
        if (std::none_of(frame_->vars.begin(), frame_->vars.end(), [&](auto &f) { return f.name == item.name; }))
          d_.error("name.unknown", item.span, "'" + item.name + "' is initialised in the frame block but not listed in its 'frame (...)'");
    std::vector<std::pair<std::string, Span>> defined;
    for (auto &s : stmts) collect(s, defined);
    for (auto &[v, sp] : defined)
      if (std::none_of(frame_->vars.begin(), frame_->vars.end(), [&](auto &f) { return f.name == v; }))
        d_.error("name.unknown", sp, "'" + v + "' is defined in the frame block but not listed in its 'frame (...)'");
  }

  // v's value in a list of statements (null: the list leaves it undefined); `where` the
  // span of the statement that defines it.
  ExprPtr value(std::vector<BlockStatement> &list, const std::string &v, Span &where) {
    ExprPtr found;
    Span first;
    for (auto &s : list) {
      if (!defines(s, v)) continue;
      Span here = s.nested ? s.nested->span : s.eq.span;
      if (found || first.valid()) {
        d_.error("name.duplicate", here, "'" + v + "' is defined twice in the same branch");
        d_.note(first, "its first definition");
        continue;
      }
      first = here;
      found = s.nested ? tree(*s.nested, v) : s.eq.rhs->clone();
    }
    where = first;
    return found;
  }

  // if g1 then v1 else if g2 then v2 else v3, each vi v's value in branch i, or its held
  // value where the branch leaves it undefined.
  ExprPtr tree(IfStatement &s, const std::string &v) {
    const std::vector<std::string> &g = guards_.at(&s);
    ExprPtr tail;
    Span unused;
    if (s.branches.size() > s.conds.size()) tail = value(s.branches.back(), v, unused);
    if (!tail) tail = undefined_in(s, v);
    for (size_t k = s.conds.size(); k-- > 0;) {
      ExprPtr here = value(s.branches[k], v, unused);
      if (!here) here = undefined_in(s, v);
      auto e = std::make_unique<Expr>(ExprKind::If, s.span);
      e->op_span = s.span;
      e->height = std::max({uint32_t{1}, here->height, tail->height}) + 1;
      e->args.push_back(mk_var(g[k], s.span));
      e->args.push_back(std::move(here));
      e->args.push_back(std::move(tail));
      tail = std::move(e);
    }
    return tail;
  }

  ExprPtr undefined_in(const IfStatement &s, const std::string &v) {
    if (frame_) return held(v, s.span);
    if (reported_.insert({&s, v}).second)
      d_.error("name.undefined", s.span,
               "'" + v + "' is not defined in every branch of this if statement (only a frame block leaves a variable "
               "undefined, holding its value)");
    return mk_var(v, s.span);
  }

  // A frame variable's value where nothing defines it: its initialisation at the first
  // cycle, then its previous value.
  ExprPtr held(const std::string &v, Span s) const {
    ExprPtr pre = mk_unary(Op::Pre, mk_var(v, s), s);
    for (auto &init : frame_->inits)
      if (init.lhs.size() == 1 && init.lhs[0].name == v) return mk_binary(Op::Arrow, init.rhs->clone(), std::move(pre), s);
    return pre;
  }
};

}  // namespace

void expand_statements(NodeDecl &n, std::vector<BlockStatement> stmts, FrameBlock *frame, std::set<std::string> &names,
                       Diagnostics &diags) {
  StatementExpander(n, frame, names, diags).run(std::move(stmts));
}

}  // namespace rml
