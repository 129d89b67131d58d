// Implementation of the finite-prefix oracle. Every rule of semantics/semantics.md §4 is
// one function below (rule_const, rule_apply, rule_when, rule_merge, rule_fby, rule_pre,
// rule_arrow, rule_post, rule_clock_base, rule_clock_on, rule_clock_never); both solvers
// call the same rules, through `Store` views of the current (or previous) iterate.
#include "oracle/oracle.hpp"

#include "core/primitives.hpp"
#include "ops/scalar_ops.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <deque>
#include <functional>
#include <random>
#include <unordered_map>

namespace rml::oracle {

std::string Cell::str() const {
  switch (tag) {
    case Tag::Bot: return "?";
    case Tag::Abs: return "_";
    case Tag::Err: return "\u2016";  // ‖
    case Tag::Nil: return "nil";
    case Tag::Val: return value.str();
  }
  return "?";
}

namespace {

// ------------------------------------------------------------------ storage
struct Column {
  std::string name;
  bool clock = false;  // clock columns hold tt/ff as Val 1/0, never □
  Scalar elem = Scalar::Bool;
  std::vector<int64_t> shape;
  size_t numel = 1;
  std::vector<Tag> tag;
  std::vector<double> r;
  std::vector<int64_t> i;
  void init(size_t n) {
    tag.assign(n, Tag::Bot);
    if (elem == Scalar::Real) r.assign(n * numel, 0.0);
    else i.assign(n * numel, 0);
  }
};

struct Store {
  std::vector<Column> cols;
  size_t N = 0;
  // Reads beyond the prefix are ⊥ (exactness lemma, semantics.md §5).
  Tag tag(int c, size_t n) const { return n < N ? cols[c].tag[n] : Tag::Bot; }
  bool present(int c, size_t n) const { Tag t = tag(c, n); return t == Tag::Val || t == Tag::Nil; }
  bool bval(int c, size_t n) const { return cols[c].i[n * cols[c].numel] != 0; }
  double rval(int c, size_t n) const { return cols[c].r[n * cols[c].numel]; }
  int64_t ival(int c, size_t n) const { return cols[c].i[n * cols[c].numel]; }
  array::Tensor tensor(int c, size_t n) const {
    const Column &col = cols[c];
    array::Tensor t;
    t.elem = col.elem;
    t.shape = col.shape;
    if (col.elem == Scalar::Real) t.r.assign(col.r.begin() + static_cast<long>(n * col.numel), col.r.begin() + static_cast<long>((n + 1) * col.numel));
    else t.i.assign(col.i.begin() + static_cast<long>(n * col.numel), col.i.begin() + static_cast<long>((n + 1) * col.numel));
    return t;
  }
};

// The result of one rule application: a tag, a payload, and, for ‖, its origin.
struct Out {
  Tag tag = Tag::Bot;
  std::vector<double> r;
  std::vector<int64_t> i;
  const char *rule = nullptr;   // set when this ‖ originates here (not propagated)
  std::string why;
  void set(Tag t) { tag = t; rule = nullptr; }
  void error(const char *rl, std::string w) { tag = Tag::Err; rule = rl; why = std::move(w); }
  void propagate_error() { tag = Tag::Err; rule = nullptr; }
  // Copies the value of cell (c, n).
  void copy(const Store &s, int c, size_t n) {
    const Column &col = s.cols[c];
    tag = col.tag[n];
    rule = nullptr;
    if (col.elem == Scalar::Real) r.assign(col.r.begin() + static_cast<long>(n * col.numel), col.r.begin() + static_cast<long>((n + 1) * col.numel));
    else i.assign(col.i.begin() + static_cast<long>(n * col.numel), col.i.begin() + static_cast<long>((n + 1) * col.numel));
  }
  void value(const array::Tensor &t) {
    tag = Tag::Val;
    rule = nullptr;
    if (t.elem == Scalar::Real) r = t.r;
    else i = t.i;
  }
  void boolean(bool b) {
    tag = Tag::Val;
    rule = nullptr;
    i.assign(1, b ? 1 : 0);
  }
};

// ------------------------------------------------------------------ the network
// The scalar fast path: `if` and every operator of the table (ops.hpp) on scalars,
// computed by the table's scalar meanings (ops/scalar_ops.hpp), which the evaluator's
// elementwise loops also use: the same value, without building tensors.
enum class Fast : uint8_t { None, If, Unary, Binary };

enum class K : uint8_t { ClockBase, ClockOn, ClockNever, Const, Copy, Apply, When, Merge, Fby, Pre, Arrow, Post };

struct Node {
  K k;
  int out = -1;
  std::vector<int> in;       // operand columns
  int clock = -1;            // Const, zero-argument Apply, Pre, Post: the clock column
  bool positive = true;      // When, ClockOn
  const core::Equation *eq = nullptr;
  array::Tensor constant;    // Const and zero-argument Apply
  Fast fast = Fast::None;    // Apply on scalars with `if` or an operator of the table
  ops::UnOp un = ops::UnOp::Neg;
  ops::BinOp bin = ops::BinOp::Add;
};

enum class Mode : uint8_t { Inst, Fwd, Back };
struct Reader {
  int node;
  Mode mode;
  int scan;  // Fwd/Back: the column whose absences (□, or ff for clocks) a scan skips
};

bool skip(const Store &s, int c, size_t n) {
  // A scan passes over absent cells: □ for data, ff for clocks.
  if (s.cols[c].clock) return s.tag(c, n) == Tag::Val && !s.bval(c, n);
  return s.tag(c, n) == Tag::Abs;
}


}  // namespace

struct Result::Data {
  std::unordered_map<std::string, int> col_of;
  Store store;
};

struct Oracle::Impl {
  const CheckedProgram &cp;
  const core::Program &prog;
  Options opts;
  core::Clocks clocks;
  std::vector<Node> nodes;
  std::vector<std::vector<Reader>> readers;  // per column
  std::unordered_map<std::string, int> col_of;
  std::vector<int> clock_col;                // per clock term
  std::vector<int> input_cols;
  std::vector<Column> templ;                 // column layout
  std::vector<int> topo;                     // node evaluation order within a cycle
  array::Evaluator eval;
  uint64_t evaluations = 0;
  std::vector<ErrorOrigin> origins;
  std::vector<std::vector<uint8_t>> origin_seen;  // per column, per cycle

  Impl(const CheckedProgram &c, const core::Program &p, Options o)
      : cp(c), prog(p), opts(o), clocks(core::infer_clocks(p)), eval(c) {
    build();
  }

  int add_col(const std::string &name, const Type &t, bool clock) {
    Column col;
    col.name = name;
    col.clock = clock;
    if (!clock) {
      if (t.kind != Type::Tensor) throw OracleError("variable '" + name + "' has no concrete type");
      col.elem = t.elem;
      col.shape = array::concrete_shape(t.shape);
      col.numel = 1;
      for (auto d : col.shape)  // saturating: memory_needed then refuses it
        col.numel = d != 0 && col.numel > SIZE_MAX / static_cast<size_t>(d) ? SIZE_MAX : col.numel * static_cast<size_t>(d);
    }
    templ.push_back(col);
    return static_cast<int>(templ.size()) - 1;
  }

  void build() {
    // Clock columns, parents first (term order guarantees it).
    for (size_t t = 0; t < clocks.terms.size(); ++t)
      clock_col.push_back(add_col("ck:" + clocks.str(static_cast<int>(t)), Type::scalar(Scalar::Bool), true));
    for (auto &v : prog.inputs) {
      int c = add_col(v.name, v.type, false);
      col_of[v.name] = c;
      input_cols.push_back(c);
    }
    for (auto &eq : prog.equations) col_of[eq.lhs] = add_col(eq.lhs, eq.type, false);
    for (auto &v : prog.outputs)
      if (!col_of.count(v.name)) col_of[v.name] = add_col(v.name, v.type, false);
    for (auto &v : prog.locals)
      if (!col_of.count(v.name)) col_of[v.name] = add_col(v.name, v.type, false);
    // One cycle must fit before anything is evaluated (constants are, below).
    check_memory(1, memory_needed(1, Solver::Worklist), opts.max_memory);
    // Clock nodes.
    for (size_t t = 0; t < clocks.terms.size(); ++t) {
      const core::ClockTerm &ct = clocks.terms[t];
      Node nd;
      nd.out = clock_col[t];
      if (ct.kind == core::ClockTerm::Base) {
        nd.k = K::ClockBase;
        nd.in = input_cols;
      } else if (ct.kind == core::ClockTerm::Never) {
        nd.k = K::ClockNever;
        nd.in = {clock_col[0]};
      } else {
        nd.k = K::ClockOn;
        nd.in = {clock_col[static_cast<size_t>(ct.parent)], col(ct.cond)};
        nd.positive = ct.positive;
      }
      nodes.push_back(std::move(nd));
    }
    for (auto &eq : prog.equations) {
      Node nd;
      nd.eq = &eq;
      nd.out = col(eq.lhs);
      for (auto &a : eq.args) nd.in.push_back(col(a));
      // A primitive on the clock of its context reads that clock (core/primitives.hpp).
      if (core::takes_context_clock(eq)) nd.clock = clock_col[static_cast<size_t>(clocks.of(eq.lhs))];
      switch (eq.prim) {
        case core::Prim::Const:
          nd.k = K::Const;
          nd.constant = literal(eq.lit);
          break;
        case core::Prim::Copy: nd.k = K::Copy; break;
        case core::Prim::Apply:
          nd.k = K::Apply;
          if (eq.args.empty()) nd.constant = apply(eq, {});  // f(static args) only: a constant
          if (eq.static_args.empty() && templ[nd.out].numel == 1 && !cp.find(eq.fn) &&
              std::all_of(nd.in.begin(), nd.in.end(), [&](int c) { return templ[c].numel == 1; })) {
            if (eq.fn == "if" && nd.in.size() == 3) {
              nd.fast = Fast::If;
            } else if (auto u = nd.in.size() == 1 ? ops::find_unary(eq.fn) : std::nullopt) {
              nd.fast = Fast::Unary;
              nd.un = *u;
            } else if (auto b = nd.in.size() == 2 ? ops::find_binary(eq.fn) : std::nullopt) {
              nd.fast = Fast::Binary;
              nd.bin = *b;
            }
          }
          break;
        case core::Prim::When: nd.k = K::When; nd.positive = eq.positive; break;
        case core::Prim::Merge: nd.k = K::Merge; break;
        case core::Prim::Fby: nd.k = K::Fby; break;
        case core::Prim::Pre: nd.k = K::Pre; break;
        case core::Prim::Arrow: nd.k = K::Arrow; break;
        case core::Prim::Post: nd.k = K::Post; break;
      }
      nodes.push_back(std::move(nd));
    }
    // Who reads what, and how far a change must travel: within the cycle, or forward
    // (state) or backward (a prophecy) along the ticks of the node's clock — its own, or
    // its first operand's (core/primitives.hpp, Time).
    readers.assign(templ.size(), {});
    for (size_t k = 0; k < nodes.size(); ++k) {
      const Node &nd = nodes[k];
      int id = static_cast<int>(k);
      core::Time time = nd.eq ? core::info(nd.eq->prim).time : core::Time::Instant;
      Mode mode = time == core::Time::Instant ? Mode::Inst : time == core::Time::Forward ? Mode::Fwd : Mode::Back;
      int ticks = time == core::Time::Instant ? -1 : nd.clock >= 0 ? nd.clock : nd.in[0];
      if (time == core::Time::Backward && opts.post_clock_data) {  // refuted variant: post's presence from its argument
        readers[nd.in[0]].push_back({id, mode, nd.in[0]});
        continue;
      }
      for (int c : nd.in) readers[c].push_back({id, mode, ticks});
      if (nd.clock >= 0) readers[nd.clock].push_back({id, mode, ticks});
    }
    order_nodes();
  }

  int col(const std::string &v) const {
    auto it = col_of.find(v);
    if (it == col_of.end()) throw OracleError("internal: unknown variable '" + v + "'");
    return it->second;
  }

  static array::Tensor literal(const core::Literal &l) {
    switch (l.type) {
      case Scalar::Int: return array::Tensor::integer(l.i);
      case Scalar::Real: return array::Tensor::real(l.r);
      case Scalar::Bool: return array::Tensor::boolean(l.b);
    }
    return {};
  }

  // Evaluation order within a cycle: producers before consumers along instantaneous
  // dependences (any order inside a cycle of them). Only speed depends on it.
  void order_nodes() {
    std::vector<int> producer(templ.size(), -1);
    for (size_t k = 0; k < nodes.size(); ++k) producer[nodes[k].out] = static_cast<int>(k);
    std::vector<uint8_t> state(nodes.size(), 0);
    std::function<void(int)> visit = [&](int k) {
      std::vector<std::pair<int, size_t>> stack{{k, 0}};
      state[k] = 1;
      while (!stack.empty()) {
        auto &[n, i] = stack.back();
        const Node &nd = nodes[n];
        // The operands read in the same cycle, at the first tick or every one.
        std::vector<int> deps;
        for (size_t j = 0; j < nd.in.size(); ++j) {
          const core::OperandUse *u = nd.eq ? &core::use_of(*nd.eq, j) : nullptr;
          if (!u || (u->offset == 0 && u->ticks != core::Ticks::Later)) deps.push_back(nd.in[j]);
        }
        if (nd.clock >= 0) deps.push_back(nd.clock);
        if (i < deps.size()) {
          int p = producer[deps[i++]];
          if (p >= 0 && state[p] == 0) {
            state[p] = 1;
            stack.push_back({p, 0});
          }
        } else {
          topo.push_back(n);
          state[n] = 2;
          stack.pop_back();
        }
      }
    };
    for (size_t k = 0; k < nodes.size(); ++k)
      if (state[k] == 0) visit(static_cast<int>(k));
  }

  // ================================================================== rules
  // Each rule computes the cell (node.out, n) from the store, per semantics.md §3-§4.

  // §3 base clock of the main node (Vélus clocks_of): tt if some input is present,
  // ff if all are absent, ⊥ otherwise; tt when there are no inputs.
  void rule_clock_base(const Node &nd, size_t n, const Store &s, Out &o) {
    if (nd.in.empty()) return o.boolean(true);
    bool all_abs = true, any_err = false;
    for (int c : nd.in) {
      if (s.present(c, n)) return o.boolean(true);
      if (s.tag(c, n) != Tag::Abs) all_abs = false;
      any_err |= s.tag(c, n) == Tag::Err;
    }
    if (all_abs) return o.boolean(false);
    // No input present and one is ‖: ‖ is above both readings, ff (if it were □) and tt.
    if (any_err) return o.propagate_error();
    o.set(Tag::Bot);
  }

  // §3 ⟦κ on^b x⟧.
  void rule_clock_on(const Node &nd, size_t n, const Store &s, Out &o) {
    int k = nd.in[0], x = nd.in[1];
    Tag kt = s.tag(k, n);
    if (kt == Tag::Bot) return o.set(Tag::Bot);
    if (kt == Tag::Err) return o.propagate_error();
    if (!s.bval(k, n)) return o.boolean(false);
    Tag xt = s.tag(x, n);
    if (xt == Tag::Bot) return o.set(Tag::Bot);
    if (xt == Tag::Val && s.cols[x].elem == Scalar::Bool) return o.boolean(s.bval(x, n) == nd.positive);
    if (xt == Tag::Err) return o.propagate_error();
    o.error("clock", "the clock's condition '" + s.cols[x].name + "' is " + (xt == Tag::Abs ? "absent" : "not a bool") +
                         " where its parent clock ticks");
  }

  // §3 ⟦never⟧: ff wherever the base clock is known.
  void rule_clock_never(const Node &nd, size_t n, const Store &s, Out &o) {
    Tag bt = s.tag(nd.in[0], n);
    if (bt == Tag::Val) return o.boolean(false);
    if (bt == Tag::Err) return o.propagate_error();
    o.set(Tag::Bot);
  }

  // §4.1 c^κ: c where κ ticks, □ where it does not.
  void rule_const(const Node &nd, size_t n, const Store &s, Out &o) {
    Tag kt = s.tag(nd.clock, n);
    if (kt == Tag::Bot) return o.set(Tag::Bot);
    if (kt == Tag::Err) return o.propagate_error();
    if (!s.bval(nd.clock, n)) return o.set(Tag::Abs);
    o.value(nd.constant);
  }

  // §4.3 pointwise application (also eager `if`): ⊥ first, then all-□, then all present.
  void rule_apply(const Node &nd, size_t n, const Store &s, Out &o) {
    if (nd.in.empty()) return rule_const(nd, n, s, o);
    if (opts.lazy_if && nd.eq->fn == "if") return rule_lazy_if(nd, n, s, o);
    bool all_abs = true, all_present = true, any_err = false, any_nil = false;
    for (int c : nd.in) {
      Tag t = s.tag(c, n);
      if (t == Tag::Bot) return o.set(Tag::Bot);
      all_abs &= t == Tag::Abs;
      all_present &= t == Tag::Val || t == Tag::Nil;
      any_err |= t == Tag::Err;
      any_nil |= t == Tag::Nil;
    }
    if (all_abs) return o.set(Tag::Abs);
    if (!all_present) {
      if (any_err) return o.propagate_error();
      return o.error("op", "the operands of '" + nd.eq->fn + "' are not all present or all absent");
    }
    if (any_nil) return o.set(Tag::Nil);  // Lustre's nil propagates; `->` never reads it
    if (nd.fast != Fast::None) return scalar_apply(nd, n, s, o);
    std::vector<array::Tensor> args;
    for (int c : nd.in) args.push_back(s.tensor(c, n));
    o.value(apply(*nd.eq, args));
  }

  // The reference evaluator, unless Options::apply_fun takes the `fun` applications.
  array::Tensor apply(const core::Equation &eq, const std::vector<array::Tensor> &args) {
    if (opts.apply_fun) {
      const Decl *d = cp.find(eq.fn);
      if (d && std::holds_alternative<FunDecl>(*d)) return opts.apply_fun(eq.fn, eq.static_args, args);
    }
    return eval.apply(eq.fn, eq.static_args, args);
  }

  void scalar_apply(const Node &nd, size_t n, const Store &s, Out &o) {
    int a = nd.in[0];
    o.tag = Tag::Val;
    o.rule = nullptr;
    bool real = s.cols[a].elem == Scalar::Real;
    switch (nd.fast) {
      case Fast::None: return;
      case Fast::If: return o.copy(s, s.bval(a, n) ? nd.in[1] : nd.in[2], n);
      case Fast::Unary: {
        Scalar re = *ops::result_type(ops::row(nd.un).typing, s.cols[a].elem);
        if (real && re == Scalar::Real) o.r.assign(1, ops::real_unary(nd.un, s.rval(a, n)));
        else if (real) o.i.assign(1, ops::real_to_int(nd.un, s.rval(a, n)));  // floor, int
        else if (re == Scalar::Real) o.r.assign(1, static_cast<double>(s.ival(a, n)));  // real
        else if (re == Scalar::Bool) o.boolean(ops::int_unary(nd.un, s.bval(a, n)) != 0);  // not
        else o.i.assign(1, ops::int_unary(nd.un, s.ival(a, n)));
        return;
      }
      case Fast::Binary: {
        int b = nd.in[1];
        bool cmp = ops::is_comparison(nd.bin);
        if (real) {
          double x = s.rval(a, n), y = s.rval(b, n);
          if (cmp) return o.boolean(ops::compare(nd.bin, x, y));
          o.r.assign(1, ops::real_binary(nd.bin, x, y));
          return;
        }
        if (s.cols[a].elem == Scalar::Bool) return o.boolean(ops::int_binary(nd.bin, s.bval(a, n), s.bval(b, n)) != 0);
        int64_t v = ops::int_binary(nd.bin, s.ival(a, n), s.ival(b, n));
        if (cmp) return o.boolean(v != 0);
        o.i.assign(1, v);
        return;
      }
    }
  }

  // --lazy-if (an alternative, not the reference): the unselected branch is not needed.
  void rule_lazy_if(const Node &nd, size_t n, const Store &s, Out &o) {
    int c = nd.in[0];
    Tag ct = s.tag(c, n);
    if (ct == Tag::Bot) return o.set(Tag::Bot);
    if (ct == Tag::Err) return o.propagate_error();
    if (ct == Tag::Abs) {
      for (int k = 1; k <= 2; ++k) {
        Tag t = s.tag(nd.in[k], n);
        if (t != Tag::Abs && t != Tag::Bot) return o.error("op", "branch present where the condition is absent");
      }
      return o.set(Tag::Abs);
    }
    if (ct == Tag::Nil) return o.error("op", "'if' reads the uninitialised first value of a 'pre'");
    int sel = s.bval(c, n) ? nd.in[1] : nd.in[2], oth = s.bval(c, n) ? nd.in[2] : nd.in[1];
    Tag ot = s.tag(oth, n);
    if (ot == Tag::Abs) return o.error("op", "branch absent where the condition is present");
    if (ot == Tag::Err) return o.propagate_error();
    Tag st = s.tag(sel, n);
    if (st == Tag::Bot) return o.set(Tag::Bot);
    if (st == Tag::Abs) return o.error("op", "branch absent where the condition is present");
    o.copy(s, sel, n);
  }

  // §4.4 s when^b c (non-strict in the discarded data).
  void rule_when(const Node &nd, size_t n, const Store &s, Out &o) {
    int x = nd.in[0], c = nd.in[1];
    Tag ct = s.tag(c, n), xt = s.tag(x, n);
    if (opts.strict_when_merge && (ct == Tag::Bot || xt == Tag::Bot)) return o.set(Tag::Bot);
    if (ct == Tag::Bot) return o.set(Tag::Bot);
    if (ct == Tag::Err) return o.propagate_error();
    if (ct == Tag::Abs) {
      if (xt == Tag::Bot || xt == Tag::Abs) return o.set(Tag::Abs);
      if (xt == Tag::Err) return o.propagate_error();
      return o.error("when", "'" + s.cols[x].name + "' is present but the condition '" + s.cols[c].name + "' is absent");
    }
    if (ct == Tag::Nil) return o.error("when", "the condition is the uninitialised first value of a 'pre'");
    bool selected = s.bval(c, n) == nd.positive;
    if (selected) {
      if (xt == Tag::Val || xt == Tag::Nil) return o.copy(s, x, n);
      if (xt == Tag::Bot) return o.set(Tag::Bot);
      if (xt == Tag::Err) return o.propagate_error();
      return o.error("when", "'" + s.cols[x].name + "' is absent but the condition '" + s.cols[c].name + "' is present");
    }
    if (xt == Tag::Val || xt == Tag::Nil || xt == Tag::Bot) return o.set(Tag::Abs);
    if (xt == Tag::Err) return o.propagate_error();
    o.error("when", "'" + s.cols[x].name + "' is absent but the condition '" + s.cols[c].name + "' is present");
  }

  // §4.5 merge c s t (non-strict in the discarded branch, which must still be absent).
  void rule_merge(const Node &nd, size_t n, const Store &s, Out &o) {
    int c = nd.in[0], a = nd.in[1], b = nd.in[2];
    Tag ct = s.tag(c, n), at = s.tag(a, n), bt = s.tag(b, n);
    if (opts.strict_when_merge && (ct == Tag::Bot || at == Tag::Bot || bt == Tag::Bot)) return o.set(Tag::Bot);
    if (ct == Tag::Bot) return o.set(Tag::Bot);
    if (ct == Tag::Err) return o.propagate_error();
    if (ct == Tag::Nil) return o.error("merge", "the condition is the uninitialised first value of a 'pre'");
    auto absentish = [](Tag t) { return t == Tag::Bot || t == Tag::Abs; };
    if (ct == Tag::Abs) {
      if (absentish(at) && absentish(bt)) return o.set(Tag::Abs);
      if (at == Tag::Err || bt == Tag::Err) return o.propagate_error();
      return o.error("merge", "a branch is present but the condition '" + s.cols[c].name + "' is absent");
    }
    bool cv = s.bval(c, n);
    int sel = cv ? a : b, oth = cv ? b : a;
    Tag st = cv ? at : bt, ot = cv ? bt : at;
    if (!absentish(ot)) {
      if (ot == Tag::Err) return o.propagate_error();
      return o.error("merge", "the branch '" + s.cols[oth].name + "' is present but the condition selects the other one");
    }
    if (st == Tag::Val || st == Tag::Nil) return o.copy(s, sel, n);
    if (st == Tag::Bot) return o.set(Tag::Bot);
    if (st == Tag::Err) return o.propagate_error();
    o.error("merge", "the selected branch '" + s.cols[sel].name + "' is absent");
  }

  // Index of the previous non-absent cell of column c before n, or -1; scans are bounded
  // by the prefix.
  static long prev_tick(const Store &s, int c, size_t n) {
    for (long m = static_cast<long>(n) - 1; m >= 0; --m)
      if (!skip(s, c, static_cast<size_t>(m))) return m;
    return -1;
  }

  // §4.6 i fby e, in the index-wise form (equivalent to fby#/pre#: semantics.md §4.6).
  void rule_fby(const Node &nd, size_t n, const Store &s, Out &o) {
    int i = nd.in[0], e = nd.in[1];
    Tag it = s.tag(i, n), et = s.tag(e, n);
    if (it == Tag::Bot) return o.set(Tag::Bot);                      // F1/P1
    if (it == Tag::Abs) {
      if (et == Tag::Abs || et == Tag::Bot) return o.set(Tag::Abs);  // F2/P2
      if (et == Tag::Err) return o.propagate_error();
      return o.error("fby", "'" + s.cols[e].name + "' is present but '" + s.cols[i].name + "' is absent");  // F4/P4
    }
    if (it == Tag::Err) return o.propagate_error();                  // F5/P5
    if (et == Tag::Abs) return o.error("fby", "'" + s.cols[e].name + "' is absent but '" + s.cols[i].name + "' is present");
    if (et == Tag::Err) return o.propagate_error();
    long k = prev_tick(s, i, n);
    if (k < 0) return o.copy(s, i, n);                               // F3: first tick
    Tag ik = s.tag(i, static_cast<size_t>(k));
    if (ik == Tag::Bot) return o.set(Tag::Bot);
    if (ik == Tag::Err) return o.propagate_error();
    Tag ek = s.tag(e, static_cast<size_t>(k));                       // P3: the state
    if (ek == Tag::Val || ek == Tag::Nil) return o.copy(s, e, static_cast<size_t>(k));
    if (ek == Tag::Bot) return o.set(Tag::Bot);
    o.propagate_error();  // the state is ‖ (reported where it was produced)
  }

  // Lustre `a -> b`: a at the first tick, then b; non-strict in the unselected operand.
  void rule_arrow(const Node &nd, size_t n, const Store &s, Out &o) {
    int a = nd.in[0], b = nd.in[1];
    Tag at = s.tag(a, n), bt = s.tag(b, n);
    if (at == Tag::Bot) return o.set(Tag::Bot);
    if (at == Tag::Abs) {
      if (bt == Tag::Abs || bt == Tag::Bot) return o.set(Tag::Abs);
      if (bt == Tag::Err) return o.propagate_error();
      return o.error("arrow", "the right operand is present but the left one is absent");
    }
    if (at == Tag::Err) return o.propagate_error();
    if (bt == Tag::Abs) return o.error("arrow", "the right operand is absent but the left one is present");
    if (bt == Tag::Err) return o.propagate_error();
    long k = prev_tick(s, a, n);
    if (k < 0) return o.copy(s, a, n);
    Tag ak = s.tag(a, static_cast<size_t>(k));
    if (ak == Tag::Bot) return o.set(Tag::Bot);
    // An earlier ‖ may have been □ in an earlier iterate (□ ⊑ ‖), when this cell was the
    // first tick: only ‖ is above both readings (monotonicity, as in fby).
    if (ak == Tag::Err) return o.propagate_error();
    if (bt == Tag::Bot) return o.set(Tag::Bot);
    o.copy(s, b, n);
  }

  // Lustre `pre x` on its clock κ: nil at the first tick of κ, then x at the previous tick.
  void rule_pre(const Node &nd, size_t n, const Store &s, Out &o) {
    int x = nd.in[0], k = nd.clock;
    Tag kt = s.tag(k, n), xt = s.tag(x, n);
    if (kt == Tag::Bot) return o.set(Tag::Bot);
    if (kt == Tag::Err) return o.propagate_error();
    if (!s.bval(k, n)) {
      if (xt == Tag::Abs || xt == Tag::Bot) return o.set(Tag::Abs);
      if (xt == Tag::Err) return o.propagate_error();
      return o.error("pre", "'" + s.cols[x].name + "' is present where its clock does not tick");
    }
    if (xt == Tag::Abs) return o.error("pre", "'" + s.cols[x].name + "' is absent where its clock ticks");
    if (xt == Tag::Err) return o.propagate_error();
    long m = prev_tick(s, k, n);
    if (m < 0) return o.set(Tag::Nil);
    size_t p = static_cast<size_t>(m);
    Tag km = s.tag(k, p);
    if (km == Tag::Bot) return o.set(Tag::Bot);
    if (km == Tag::Err) return o.propagate_error();
    Tag xm = s.tag(x, p);
    if (xm == Tag::Val || xm == Tag::Nil) return o.copy(s, x, p);
    if (xm == Tag::Bot) return o.set(Tag::Bot);
    o.propagate_error();  // absent at its own tick: reported there
  }

  // §4.7 post^κ x: x at the next tick of κ (look scans forward, ⊥ past the prefix).
  void rule_post(const Node &nd, size_t n, const Store &s, Out &o) {
    if (opts.post_clock_data) return rule_post_data(nd, n, s, o);
    int x = nd.in[0], k = nd.clock;
    Tag kt = s.tag(k, n), xt = s.tag(x, n);
    if (kt == Tag::Bot) return o.set(Tag::Bot);
    if (kt == Tag::Err) return o.propagate_error();
    if (!s.bval(k, n)) {
      if (xt == Tag::Abs || xt == Tag::Bot) return o.set(Tag::Abs);
      if (xt == Tag::Err) return o.propagate_error();
      return o.error("post", "'" + s.cols[x].name + "' is present where its clock does not tick");
    }
    if (xt == Tag::Abs) return o.error("post", "'" + s.cols[x].name + "' is absent where its clock ticks");
    if (xt == Tag::Err) return o.propagate_error();
    for (size_t m = n + 1; m < s.N; ++m) {  // look(m)
      Tag km = s.tag(k, m);
      if (km == Tag::Bot) return o.set(Tag::Bot);
      if (km == Tag::Err) return o.propagate_error();
      if (!s.bval(k, m)) continue;
      Tag xm = s.tag(x, m);
      if (xm == Tag::Val || xm == Tag::Nil) return o.copy(s, x, m);
      if (xm == Tag::Bot) return o.set(Tag::Bot);
      return o.propagate_error();  // absent/‖ at its own tick: reported there
    }
    o.set(Tag::Bot);  // the next tick is beyond the prefix
  }

  // --post-clock data (refuted, semantics.md §2.3): presence from the argument itself.
  void rule_post_data(const Node &nd, size_t n, const Store &s, Out &o) {
    int x = nd.in[0];
    Tag xt = s.tag(x, n);
    if (xt == Tag::Bot) return o.set(Tag::Bot);
    if (xt == Tag::Abs) return o.set(Tag::Abs);
    if (xt == Tag::Err) return o.propagate_error();
    for (size_t m = n + 1; m < s.N; ++m) {
      Tag xm = s.tag(x, m);
      if (xm == Tag::Abs) continue;
      if (xm == Tag::Val || xm == Tag::Nil) return o.copy(s, x, m);
      if (xm == Tag::Bot) return o.set(Tag::Bot);
      return o.propagate_error();
    }
    o.set(Tag::Bot);
  }

  void apply_rule(const Node &nd, size_t n, const Store &s, Out &o) {
    ++evaluations;
    switch (nd.k) {
      case K::ClockBase: return rule_clock_base(nd, n, s, o);
      case K::ClockOn: return rule_clock_on(nd, n, s, o);
      case K::ClockNever: return rule_clock_never(nd, n, s, o);
      case K::Const: return rule_const(nd, n, s, o);
      case K::Copy: return o.copy(s, nd.in[0], n);
      case K::Apply: return rule_apply(nd, n, s, o);
      case K::When: return rule_when(nd, n, s, o);
      case K::Merge: return rule_merge(nd, n, s, o);
      case K::Fby: return rule_fby(nd, n, s, o);
      case K::Pre: return rule_pre(nd, n, s, o);
      case K::Arrow: return rule_arrow(nd, n, s, o);
      case K::Post: return rule_post(nd, n, s, o);
    }
  }

  // ================================================================== updates
  // Writes a rule's result; returns whether the cell changed. Values only go up in the
  // flat order ⊥ ⊑ v ⊑ ‖ (a rule that broke monotonicity is a bug, reported loudly).
  bool commit(Store &s, const Node &nd, size_t n, const Out &o) {
    Column &col = s.cols[nd.out];
    Tag old = col.tag[n];
    bool same_payload = true;
    if (o.tag == Tag::Val) {
      if (col.elem == Scalar::Real) {
        if (o.r.size() != col.numel) throw OracleError("internal: result of '" + col.name + "' has the wrong size");
        same_payload = std::memcmp(&col.r[n * col.numel], o.r.data(), col.numel * sizeof(double)) == 0;
      } else {
        if (o.i.size() != col.numel) throw OracleError("internal: result of '" + col.name + "' has the wrong size");
        same_payload = std::equal(o.i.begin(), o.i.end(), col.i.begin() + static_cast<long>(n * col.numel));
      }
    }
    if (old == o.tag && same_payload) return false;
    if (opts.check_monotone && old != Tag::Bot && o.tag != Tag::Err)
      throw OracleError("internal: non-monotone update of '" + col.name + "' at cycle " + std::to_string(n) + " (" +
                        (old == Tag::Err ? "error" : "value") + " replaced)");
    if (old == Tag::Err) return false;  // monotonicity off: never leave ‖
    col.tag[n] = o.tag;
    if (o.tag == Tag::Val) {
      if (col.elem == Scalar::Real) std::memcpy(&col.r[n * col.numel], o.r.data(), col.numel * sizeof(double));
      else std::copy(o.i.begin(), o.i.end(), col.i.begin() + static_cast<long>(n * col.numel));
    }
    if (o.tag == Tag::Err && o.rule) note_origin(nd, n, o);
    return true;
  }

  void note_origin(const Node &nd, size_t n, const Out &o) {
    auto &seen = origin_seen[nd.out];
    if (seen[n]) return;
    seen[n] = 1;
    ErrorOrigin e;
    e.var = templ[nd.out].name;
    e.cycle = n;
    e.rule = o.rule;
    e.message = o.why;
    if (nd.eq) e.span = nd.eq->span;
    origins.push_back(std::move(e));
  }

  Store fresh_store(const Inputs &in) {
    Store s;
    s.N = in.cycles;
    s.cols = templ;
    for (auto &c : s.cols) c.init(s.N);
    for (size_t k = 0; k < prog.inputs.size(); ++k) {
      const core::Var &v = prog.inputs[k];
      auto it = in.streams.find(v.name);
      if (it == in.streams.end()) throw OracleError("no stream given for the input '" + v.name + "'");
      if (it->second.size() != s.N)
        throw OracleError("the input '" + v.name + "' has " + std::to_string(it->second.size()) + " cells, expected " +
                          std::to_string(s.N));
      Column &col = s.cols[input_cols[k]];
      for (size_t n = 0; n < s.N; ++n) {
        const Cell &c = it->second[n];
        col.tag[n] = c.tag;
        if (c.tag != Tag::Val) continue;
        if (c.value.elem != col.elem || c.value.shape != col.shape)
          throw OracleError("the input '" + v.name + "' at cycle " + std::to_string(n) + " has a value of the wrong type");
        if (col.elem == Scalar::Real) std::copy(c.value.r.begin(), c.value.r.end(), col.r.begin() + static_cast<long>(n * col.numel));
        else std::copy(c.value.i.begin(), c.value.i.end(), col.i.begin() + static_cast<long>(n * col.numel));
      }
    }
    for (auto &kv : in.streams) {
      const std::string &name = kv.first;
      if (std::none_of(prog.inputs.begin(), prog.inputs.end(), [&](auto &v) { return v.name == name; }))
        throw OracleError("'" + name + "' is not an input of '" + prog.main + "'");
    }
    origin_seen.assign(s.cols.size(), std::vector<uint8_t>(s.N, 0));
    origins.clear();
    evaluations = 0;
    return s;
  }

  // ================================================================== solvers
  // The executable definition: Jacobi iteration φ^k(⊥) until nothing changes.
  uint64_t solve_kleene(Store &s) {
    uint64_t rounds = 0;
    Out o;
    for (;;) {
      ++rounds;
      Store prev = s;  // every rule reads the previous iterate only
      bool changed = false;
      for (size_t n = 0; n < s.N; ++n)
        for (const Node &nd : nodes) {
          apply_rule(nd, n, prev, o);
          changed |= commit(s, nd, n, o);
        }
      if (!changed) return rounds;
      // Each cell rises at most twice (⊥ → v → ‖): the iteration is bounded.
      if (rounds > 2 * s.N * nodes.size() + 2) throw OracleError("internal: Kleene iteration does not converge");
    }
  }

  // Chaotic iteration: one sweep in cycle order (producers first), plus a queue that
  // re-evaluates every already-visited cell whose inputs changed. The limit is the same
  // least fixpoint (every rule is monotone; tested against solve_kleene).
  void solve_worklist(Store &s) {
    const size_t N = s.N;
    std::vector<std::vector<uint8_t>> queued(nodes.size(), std::vector<uint8_t>(N, 0));
    std::vector<int> pos(nodes.size());
    for (size_t k = 0; k < topo.size(); ++k) pos[topo[k]] = static_cast<int>(k);
    std::deque<std::pair<int, size_t>> fifo;
    std::vector<int> order = topo;
    std::mt19937_64 rng(opts.shuffle_seed);
    if (opts.shuffle_seed) {
      std::shuffle(order.begin(), order.end(), rng);
      for (size_t k = 0; k < order.size(); ++k) pos[order[k]] = static_cast<int>(k);
    }
    size_t cur_n = 0;
    int cur_pos = -1;
    auto visited = [&](int node, size_t m) { return m < cur_n || (m == cur_n && pos[node] <= cur_pos); };
    auto push = [&](int node, size_t m) {
      if (m >= N || !visited(node, m) || queued[node][m]) return;
      queued[node][m] = 1;
      fifo.emplace_back(node, m);
    };
    auto changed_cell = [&](int c, size_t n) {
      for (const Reader &r : readers[c]) {
        push(r.node, n);
        if (r.mode == Mode::Fwd) {
          for (size_t m = n + 1; m < N; ++m) {
            push(r.node, m);
            if (!skip(s, r.scan, m)) break;
          }
        } else if (r.mode == Mode::Back) {
          for (size_t m = n; m-- > 0;) {
            push(r.node, m);
            if (!skip(s, r.scan, m)) break;
          }
        }
      }
    };
    Out o;
    auto run = [&](int node, size_t m) {
      apply_rule(nodes[node], m, s, o);
      if (commit(s, nodes[node], m, o)) changed_cell(nodes[node].out, m);
    };
    for (cur_n = 0; cur_n < N; ++cur_n) {
      for (cur_pos = 0; cur_pos < static_cast<int>(order.size()); ++cur_pos) {
        run(order[cur_pos], cur_n);
        while (!fifo.empty()) {
          if (opts.shuffle_seed) std::swap(fifo.front(), fifo[rng() % fifo.size()]);
          auto [node, m] = fifo.front();
          fifo.pop_front();
          queued[node][m] = 0;
          run(node, m);
        }
      }
    }
  }

  // ================================================================== memory
  // Per cycle: every column a tag byte, 8 bytes per element and a byte of error-origin
  // bookkeeping; the worklist a byte per node (Kleene: a copy of the store instead); the
  // caller's input cells, a Cell and its two heap blocks per input.
  uint64_t memory_needed(size_t cycles, Solver solver) const {
    long double store = 0, per_cycle = 0;
    for (auto &c : templ) store += 2.0L + 8.0L * static_cast<long double>(c.numel);
    per_cycle = store;
    if (solver == Solver::Kleene) per_cycle += store;
    else per_cycle += static_cast<long double>(clocks.terms.size() + prog.equations.size());
    for (int c : input_cols) per_cycle += static_cast<long double>(sizeof(Cell)) + 64.0L + 8.0L * static_cast<long double>(templ[c].numel);
    long double total = per_cycle * static_cast<long double>(cycles);
    return total >= 1.8e19L ? UINT64_MAX : static_cast<uint64_t>(total);
  }

  void check_memory(size_t cycles, uint64_t needed, uint64_t limit) const {
    if (needed <= limit) return;
    const Column *big = nullptr;
    for (auto &c : templ)
      if (!c.clock && (!big || c.numel > big->numel)) big = &c;
    auto human = [](long double b) {
      const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
      int u = 0;
      while (b >= 1024 && u < 6) b /= 1024, ++u;
      char buf[64];
      std::snprintf(buf, sizeof buf, u ? "%.1Lf %s" : "%.0Lf %s", b, units[u]);
      return std::string(buf);
    };
    std::string msg = "the oracle would need about " + (needed == UINT64_MAX ? std::string("more than 16 EiB") : human(needed)) +
                      " to run '" + prog.main + "' for " + std::to_string(cycles) + (cycles == 1 ? " cycle" : " cycles") +
                      " (it keeps every cell of " + std::to_string(templ.size()) + " streams";
    if (big && big->numel > 1) {
      std::string shape;
      for (auto d : big->shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
      msg += "; the largest, '" + big->name + "': " + scalar_name(big->elem) + "[" + shape + "], takes " +
             human(8.0L * static_cast<long double>(big->numel)) + " per cycle";
    }
    msg += "), more than its memory limit of " + human(limit);
    throw MemoryLimitError(msg, cycles, needed, limit);
  }

  Result run(const Inputs &in, Solver solver) {
    check_memory(in.cycles, memory_needed(in.cycles, solver), opts.max_memory);
    Store s = fresh_store(in);
    Result r;
    r.cycles = s.N;
    if (solver == Solver::Kleene) r.rounds = solve_kleene(s);
    else solve_worklist(s);
    for (auto &c : s.cols) r.store_bytes += c.tag.capacity() + c.r.capacity() * sizeof(double) + c.i.capacity() * sizeof(int64_t);
    if (solver == Solver::Worklist) r.store_bytes += nodes.size() * s.N;  // the queued bitmap
    r.evaluations = evaluations;
    for (auto &v : prog.inputs) r.vars.push_back(v.name);
    for (auto &v : prog.outputs)
      if (std::find(r.vars.begin(), r.vars.end(), v.name) == r.vars.end()) r.vars.push_back(v.name);
    for (auto &eq : prog.equations)
      if (std::find(r.vars.begin(), r.vars.end(), eq.lhs) == r.vars.end()) r.vars.push_back(eq.lhs);
    std::sort(origins.begin(), origins.end(), [](auto &a, auto &b) { return a.cycle != b.cycle ? a.cycle < b.cycle : a.var < b.var; });
    r.errors = origins;
    // Input clock assumptions A_P: an input is present exactly where its clock ticks.
    for (auto &v : prog.inputs) {
      int c = col(v.name), k = clock_col[static_cast<size_t>(clocks.of(v.name))];
      for (size_t n = 0; n < s.N; ++n) {
        Tag kt = s.tag(k, n), xt = s.tag(c, n);
        if (kt != Tag::Val || xt == Tag::Bot || xt == Tag::Err) continue;
        bool ticks = s.bval(k, n), present = xt == Tag::Val || xt == Tag::Nil;
        if (ticks != present) {
          r.input_clock_violations.push_back(v.name + " at cycle " + std::to_string(n) + ": " +
                                             (present ? "present where its clock " + clocks.str(clocks.of(v.name)) + " is false"
                                                      : "absent where its clock " + clocks.str(clocks.of(v.name)) + " is true"));
          break;
        }
      }
    }
    auto data = std::make_shared<Result::Data>();
    data->col_of = col_of;
    data->store = std::move(s);
    r.data = std::move(data);
    return r;
  }
};

bool Result::has(const std::string &var) const { return data && data->col_of.count(var) && !data->store.cols[data->col_of.at(var)].clock; }

Cell Result::at(const std::string &var, size_t n) const {
  auto it = data->col_of.find(var);
  if (it == data->col_of.end()) throw OracleError("no variable '" + var + "'");
  Cell c;
  c.tag = data->store.tag(it->second, n);
  if (c.tag == Tag::Val) c.value = data->store.tensor(it->second, n);
  return c;
}

std::vector<Cell> Result::stream(const std::string &var) const {
  std::vector<Cell> out;
  for (size_t n = 0; n < cycles; ++n) out.push_back(at(var, n));
  return out;
}

Tag Result::tag(const std::string &var, size_t n) const {
  auto it = data->col_of.find(var);
  if (it == data->col_of.end()) throw OracleError("no variable '" + var + "'");
  return data->store.tag(it->second, n);
}

bool Result::any_error() const {
  for (auto &c : data->store.cols)
    if (!c.clock && std::find(c.tag.begin(), c.tag.end(), Tag::Err) != c.tag.end()) return true;
  return false;
}

Oracle::Oracle(const CheckedProgram &cp, const core::Program &prog, Options opts)
    : impl_(std::make_unique<Impl>(cp, prog, opts)) {}
Oracle::~Oracle() = default;
Result Oracle::run(const Inputs &in, Solver solver) { return impl_->run(in, solver); }
uint64_t Oracle::memory_needed(size_t cycles, Solver solver) const { return impl_->memory_needed(cycles, solver); }
uint64_t Oracle::cell_elements(const std::string &var) const {
  auto it = impl_->col_of.find(var);
  return it == impl_->col_of.end() ? 0 : impl_->templ[static_cast<size_t>(it->second)].numel;
}
void Oracle::check_memory(size_t cycles, uint64_t needed, uint64_t limit) const { impl_->check_memory(cycles, needed, limit); }
const core::Clocks &Oracle::clocks() const { return impl_->clocks; }

}  // namespace rml::oracle
