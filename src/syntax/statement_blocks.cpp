#include "syntax/statement_blocks.hpp"

#include <algorithm>
#include <map>

namespace rml {

namespace {

// Where a lazy branch runs: the guards (bool locals) it is under, outermost first, each
// with the value it takes there.
using Path = std::vector<std::pair<std::string, bool>>;

class StatementExpander {
 public:
  StatementExpander(NodeDecl &n, FrameBlock *frame, std::set<std::string> &names, Diagnostics &d)
      : n_(n), frame_(frame), names_(names), d_(d) {
    for (auto *list : {&n_.inputs, &n_.outputs, &n_.locals})
      for (auto &v : *list) node_vars_.insert(v.name);
  }

  void run(std::vector<BlockStatement> stmts) {
    if (frame_) frame_->inits = one_variable_each(std::move(frame_->inits), frame_->span);
    for (auto &s : stmts) {
      if (s.nested) {
        prepare(*s.nested, {});
      } else {
        s.eq.rhs = sampled(std::move(s.eq.rhs), {});  // `last v` read
      }
    }
    if (frame_) check_frame(stmts);
    // The variables the statements define, in the order they are first defined.
    std::vector<std::pair<std::string, Span>> defined;
    for (auto &s : stmts) collect(s, defined);
    // An equation outside every block is kept as it is; a variable a block defines is the
    // tree of its branches.
    std::set<std::string> by_block;
    for (auto &s : stmts)
      if (s.nested) {
        std::vector<std::pair<std::string, Span>> in_block;
        collect(s, in_block);
        for (auto &[v, sp] : in_block) by_block.insert(v);
      }
    for (auto &[v, lhs_span] : defined) {
      if (!by_block.count(v)) continue;
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
  std::set<std::string> node_vars_;  // the node's inputs, outputs and locals as written
  std::map<const IfStatement *, std::vector<std::string>> guards_;
  std::map<const IfStatement *, Path> paths_;  // where each lazy block runs
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
  // The path of branch k of a lazy block at `path`: every earlier guard false, its own true
  // (k = the number of guards: the else branch, every guard false).
  Path branch_path(const IfStatement &s, size_t k) const {
    Path p = paths_.at(&s);
    const std::vector<std::string> &g = guards_.at(&s);
    for (size_t j = 0; j < k && j < g.size(); ++j) p.emplace_back(g[j], false);
    if (k < g.size()) p.emplace_back(g[k], true);
    return p;
  }

  // A declaration's clock annotation for the clock where `path` holds.
  static std::vector<ClockSyntax> clock_of(const Path &path, Span s) {
    std::vector<ClockSyntax> out;
    for (auto &[g, value] : path) {
      ClockSyntax c;
      c.positive = value;
      c.var = g;
      c.span = s;
      out.push_back(std::move(c));
    }
    return out;
  }

  // e sampled where `path` holds: `e when g1 when g2 ...` (a value of the base clock).
  static ExprPtr when_path(ExprPtr e, const Path &path) {
    for (auto &[g, value] : path) {
      Span sp = e->span;
      auto w = std::make_unique<Expr>(ExprKind::When, sp);
      w->positive = value;
      w->op_span = sp;
      w->height = e->height + 1;
      w->args.push_back(std::move(e));
      w->args.push_back(mk_var(g, sp));
      e = std::move(w);
    }
    return e;
  }

  // e computed where `path` holds: each node variable it reads (not bound inside it) read
  // there, and `last v` v's previous value read there. With an empty path, only `last`.
  ExprPtr sampled(ExprPtr e, const Path &path, const std::set<std::string> &bound = {}) {
    if (!e) return e;
    if (e->kind == ExprKind::Call && e->name == kLastCall) {
      const Expr &v = *e->args.at(0);
      return when_path(held(v.name, v.span), path);
    }
    if (e->kind == ExprKind::Var) {
      if (path.empty() || bound.count(e->name) || !node_vars_.count(e->name)) return e;
      return when_path(std::move(e), path);
    }
    if (e->kind == ExprKind::Let) {  // let name = args[0] in args[1]
      e->args[0] = sampled(std::move(e->args[0]), path, bound);
      std::set<std::string> inner = bound;
      inner.insert(e->name);
      e->args[1] = sampled(std::move(e->args[1]), path, inner);
      return e;
    }
    if (e->kind == ExprKind::Lambda) {
      std::set<std::string> inner = bound;
      inner.insert(e->binders.begin(), e->binders.end());
      for (auto &a : e->args) a = sampled(std::move(a), path, inner);
      return e;
    }
    uint32_t h = 1;
    for (auto &a : e->args) {
      a = sampled(std::move(a), path, bound);
      if (a) h = std::max(h, a->height + 1);
    }
    e->height = h;
    return e;
  }

  // Each condition becomes a bool local computed once per cycle (every variable of the
  // statement reads the same one) — in a lazy block, on the clock where it is reached; a
  // branch's equations are sampled there, and a tuple equation becomes one equation a
  // variable (through locals of the variables' types when its right side is not a tuple).
  void prepare(IfStatement &s, const Path &path) {
    paths_[&s] = path;
    std::vector<std::string> &g = guards_[&s];
    for (size_t k = 0; k < s.conds.size(); ++k) {
      Span cs = s.conds[k]->span;
      std::string name = fresh(at(s.lazy ? (s.conds.size() == 1 ? "when" : "cond") : k == 0 ? "if" : "elsif", cs));
      VarDecl v;
      v.name = name;
      v.span = cs;
      v.type = TypeSyntax{};
      v.type->scalar = Scalar::Bool;
      v.type->span = cs;
      // Guard k of a lazy block is reached where every earlier one is false (branch_path
      // before g[k] exists), and declared on that clock.
      Path reached = s.lazy ? branch_path(s, k) : path;
      v.clock = clock_of(reached, cs);
      n_.locals.push_back(std::move(v));
      Equation eq;
      eq.lhs.push_back(LhsItem{name, cs});
      eq.rhs = sampled(std::move(s.conds[k]), reached);
      eq.span = cs;
      n_.equations.push_back(std::move(eq));
      g.push_back(name);
    }
    for (size_t k = 0; k < s.branches.size(); ++k) {
      Path here = s.lazy ? branch_path(s, k) : path;
      std::vector<BlockStatement> out;
      for (auto &st : s.branches[k]) {
        if (st.nested) {
          if (st.nested->lazy != s.lazy) {
            d_.error("syntax.unsupported", st.nested->span,
                     s.lazy ? "an if statement inside a when or cond block is not read (nor by Kind 2)"
                            : "a when or cond block inside an if statement is not read (nor by Kind 2)");
            continue;
          }
          prepare(*st.nested, here);
          out.push_back(std::move(st));
          continue;
        }
        Equation &eq = st.eq;
        if (!eq.index_vars.empty()) {
          d_.error("syntax.unsupported", eq.span, "a definition by index in an if statement or a block is not read by rml");
          continue;
        }
        eq.rhs = sampled(std::move(eq.rhs), here);
        std::vector<Equation> one;
        one.push_back(std::move(eq));
        for (auto &e : one_variable_each(std::move(one), s.span, here)) {
          BlockStatement b;
          b.eq = std::move(e);
          out.push_back(std::move(b));
        }
      }
      s.branches[k] = std::move(out);
    }
  }

  // Equations of one variable each: `(a, b) = (e1, e2)` split; `(a, b) = f(x)` through
  // locals of a's and b's types, defined by `(a_l3c5, b_l3c5) = f(x)` in the node (at every
  // cycle for an if statement's branch, where the branch runs for a lazy one).
  std::vector<Equation> one_variable_each(std::vector<Equation> eqs, Span block, const Path &path = {}) {
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
          const VarDecl *decl = declared(item.name);
          if (!decl || !decl->type) {  // the local standing for it needs its type
            d_.error("name.undeclared", item.span,
                     "'" + item.name + "' is defined in a block by a tuple equation, so it is declared with its type (an output or a local)");
            whole.lhs.push_back(LhsItem{"_", item.span});
            parts.push_back(nullptr);
            continue;
          }
          std::string t = fresh(item.name + "_" + at(frame_ ? "frame" : "if", block));
          VarDecl v;
          v.name = t;
          v.span = item.span;
          v.type = decl->type->clone();
          v.clock = clock_of(path, item.span);  // where the branch runs
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
        if (!in_frame(item.name))
          d_.error("name.unknown", item.span, "'" + item.name + "' is initialised in the frame block but not listed in its 'frame (...)'");
    std::vector<std::pair<std::string, Span>> defined;
    for (auto &s : stmts) collect(s, defined);
    for (auto &[v, sp] : defined)
      if (!in_frame(v)) d_.error("name.unknown", sp, "'" + v + "' is defined in the frame block but not listed in its 'frame (...)'");
  }
  bool in_frame(const std::string &v) const {
    return frame_ && std::any_of(frame_->vars.begin(), frame_->vars.end(), [&](auto &f) { return f.name == v; });
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

  // An if statement: if g1 then v1 else if g2 then v2 else v3; a lazy block: merge g1 v1
  // (merge g2 v2 v3), each vi on its branch's clock. vi is v's value in branch i, or its
  // held value where the branch leaves it undefined.
  ExprPtr tree(IfStatement &s, const std::string &v) {
    const std::vector<std::string> &g = guards_.at(&s);
    ExprPtr tail;
    Span unused;
    if (s.branches.size() > s.conds.size()) tail = value(s.branches.back(), v, unused);
    if (!tail) tail = undefined_in(s, v, g.size());
    for (size_t k = s.conds.size(); k-- > 0;) {
      ExprPtr here = value(s.branches[k], v, unused);
      if (!here) here = undefined_in(s, v, k);
      auto e = std::make_unique<Expr>(s.lazy ? ExprKind::Merge : ExprKind::If, s.span);
      e->op_span = s.span;
      e->height = std::max({uint32_t{1}, here->height, tail->height}) + 1;
      e->args.push_back(mk_var(g[k], s.span));
      e->args.push_back(std::move(here));
      e->args.push_back(std::move(tail));
      tail = std::move(e);
    }
    return tail;
  }

  ExprPtr undefined_in(const IfStatement &s, const std::string &v, size_t branch) {
    if (frame_ && !in_frame(v)) return mk_var(v, s.span);  // reported by check_frame
    if (frame_) return s.lazy ? when_path(held(v, s.span), branch_path(s, branch)) : held(v, s.span);
    if (reported_.insert({&s, v}).second)
      d_.error("name.undefined", s.span,
               "'" + v + "' is not defined in every branch of this " + (s.lazy ? "block" : "if statement") +
                   " (only a frame block leaves a variable undefined, holding its value)");
    return mk_var(v, s.span);
  }

  // A frame variable's previous value (`last v`, and its value where nothing defines it):
  // its initialisation at the first cycle, then its previous value.
  ExprPtr held(const std::string &v, Span s) {
    if (!in_frame(v)) {
      d_.error("name.unknown", s, "'last " + v + "' reads a variable of the frame block, and '" + v + "' is not one");
      return mk_var(v, s);
    }
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
