#include "checker/checker.hpp"

#include <chrono>
#include <new>
#include <sstream>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <z3++.h>

#include <algorithm>
#include <cctype>
#include <functional>
#include <map>
#include <set>

#include "checker/smt_model.hpp"
#include "core/clocks.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

const char *verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Valid: return "valid";
    case Verdict::Falsified: return "falsified";
    case Verdict::Unknown: return "unknown";
  }
  return "?";
}

int Report::exit_code() const {
  bool unknown = false;
  for (auto &p : properties) {
    if (p.verdict == Verdict::Falsified) return 1;
    if (p.verdict == Verdict::Unknown) unknown = true;
  }
  return unknown ? 3 : 0;
}

namespace {

// ------------------------------------------------------------------ dependency graph
// "y at cycle n needs x at cycle n + offset, when the guard literals hold" (semantics.md §11).
struct Lit {
  std::string cond;
  bool positive;
  int offset;  // relative to the needing cell
  bool operator<(const Lit &o) const { return std::tie(cond, positive, offset) < std::tie(o.cond, o.positive, o.offset); }
};
struct Edge {
  int from, to;
  int offset;  // 0 instantaneous, -1 fby/pre (previous tick), +1 post (next tick)
  std::vector<Lit> guards;
  const core::Equation *eq;
  // At which ticks (where the guards hold) the dependence is real: `->`'s first operand
  // and fby's initial value only at the first tick, `->`'s second at every other one.
  // The graph over-approximates (every edge at every tick), which is sound for proofs; a
  // refutation rests only on edges real at every tick, or at every tick but the first.
  enum class Need { Always, FirstOnly, NotFirst } need = Need::Always;
};

struct DepGraph {
  std::vector<std::string> names;
  std::map<std::string, int> id;
  std::vector<Edge> edges;
  std::vector<std::vector<int>> out;  // edge indices by source

  int node(const std::string &n) {
    auto it = id.find(n);
    if (it != id.end()) return it->second;
    id[n] = static_cast<int>(names.size());
    names.push_back(n);
    out.emplace_back();
    return id[n];
  }
  void add(const std::string &y, const std::string &x, int offset, std::vector<Lit> g, const core::Equation *eq,
           Edge::Need need = Edge::Need::Always) {
    int a = node(y), b = node(x);
    edges.push_back(Edge{a, b, offset, std::move(g), eq, need});
    out[a].push_back(static_cast<int>(edges.size()) - 1);
  }
};

DepGraph build_graph(const core::Program &p, const core::Clocks &ck) {
  DepGraph g;
  for (auto &v : p.inputs) g.node(v.name);
  auto clock_conds = [&](const std::string &y, const core::Equation *eq) {
    for (int t = ck.of(y); t >= 0 && ck.terms[t].kind == core::ClockTerm::On; t = ck.terms[t].parent)
      g.add(y, ck.terms[t].cond, 0, {}, eq);
  };
  for (auto &eq : p.equations) {
    const std::string &y = eq.lhs;
    g.node(y);
    auto a = [&](size_t i) { return eq.args.at(i); };
    switch (eq.prim) {
      case core::Prim::Const: clock_conds(y, &eq); break;
      case core::Prim::Copy: g.add(y, a(0), 0, {}, &eq); break;
      case core::Prim::Apply:
        if (eq.args.empty()) clock_conds(y, &eq);
        for (auto &x : eq.args) g.add(y, x, 0, {}, &eq);
        break;
      case core::Prim::When:
        g.add(y, a(1), 0, {}, &eq);
        g.add(y, a(0), 0, {Lit{a(1), eq.positive, 0}}, &eq);
        break;
      case core::Prim::Merge:
        g.add(y, a(0), 0, {}, &eq);
        g.add(y, a(1), 0, {Lit{a(0), true, 0}}, &eq);
        g.add(y, a(2), 0, {Lit{a(0), false, 0}}, &eq);
        break;
      case core::Prim::Fby:
        g.add(y, a(0), 0, {}, &eq, Edge::Need::FirstOnly);
        g.add(y, a(1), -1, {}, &eq);
        break;
      case core::Prim::Pre:
        clock_conds(y, &eq);
        g.add(y, a(0), -1, {}, &eq);
        break;
      case core::Prim::Arrow:
        g.add(y, a(0), 0, {}, &eq, Edge::Need::FirstOnly);
        g.add(y, a(1), 0, {}, &eq, Edge::Need::NotFirst);
        break;
      case core::Prim::Post:
        clock_conds(y, &eq);
        g.add(y, a(0), +1, {}, &eq);
        break;
    }
  }
  return g;
}

// Edges grouped by the component of their source.
std::vector<std::vector<int>> edges_by_component(const DepGraph &g, const std::vector<int> &comp, int count) {
  std::vector<std::vector<int>> out(static_cast<size_t>(count));
  for (size_t k = 0; k < g.edges.size(); ++k) out[static_cast<size_t>(comp[g.edges[k].from])].push_back(static_cast<int>(k));
  return out;
}

// Strongly connected components (Boost.Graph) of the subgraph of selected edges.
std::vector<int> components(const DepGraph &g, const std::function<bool(const Edge &)> &keep, int &count) {
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  G bg(g.names.size());
  for (auto &e : g.edges)
    if (keep(e)) boost::add_edge(static_cast<size_t>(e.from), static_cast<size_t>(e.to), bg);
  std::vector<int> comp(g.names.size());
  count = boost::strong_components(bg, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, bg)));
  return comp;
}

// A simple cycle: its edges in order.
struct Cycle {
  std::vector<int> edges;
  int weight = 0;
  std::vector<Lit> guards;  // offsets relative to the cycle's start
};

// Whether literals can hold together (the same condition at the same offset must agree).
bool consistent(const std::vector<Lit> &ls) {
  std::map<std::pair<std::string, int>, bool> seen;
  for (auto &l : ls) {
    auto key = std::make_pair(l.cond, l.offset);
    auto it = seen.find(key);
    if (it != seen.end() && it->second != l.positive) return false;
    seen[key] = l.positive;
  }
  return true;
}

// Enumerates simple cycles inside one component (edges kept by `keep`), at most `limit`
// of them; `truncated` tells whether the enumeration stopped early.
std::vector<Cycle> cycles_in(const DepGraph &g, const std::vector<int> &comp, int c, const std::function<bool(const Edge &)> &keep,
                             size_t limit, bool &truncated) {
  std::vector<Cycle> out;
  std::vector<int> members;
  for (size_t v = 0; v < comp.size(); ++v)
    if (comp[v] == c) members.push_back(static_cast<int>(v));
  std::sort(members.begin(), members.end());
  size_t steps = 0;
  for (int start : members) {
    // Cycles whose smallest node is `start` (each cycle found once).
    std::vector<int> path_edges;
    std::vector<char> on_path(g.names.size(), 0);
    std::function<void(int, int)> dfs = [&](int v, int weight) {
      if (truncated) return;
      for (int ei : g.out[v]) {
        const Edge &e = g.edges[ei];
        if (!keep(e) || comp[e.to] != c || e.to < start) continue;
        if (++steps > 200000) {
          truncated = true;
          return;
        }
        if (e.to == start) {
          Cycle cy;
          cy.edges = path_edges;
          cy.edges.push_back(ei);
          int off = 0;
          for (int k : cy.edges) {
            for (auto l : g.edges[k].guards) cy.guards.push_back(Lit{l.cond, l.positive, l.offset + off});
            off += g.edges[k].offset;
          }
          cy.weight = off;
          out.push_back(std::move(cy));
          if (out.size() >= limit) {
            truncated = true;
            return;
          }
          continue;
        }
        if (on_path[e.to]) continue;
        on_path[e.to] = 1;
        path_edges.push_back(ei);
        dfs(e.to, weight + e.offset);
        path_edges.pop_back();
        on_path[e.to] = 0;
      }
    };
    on_path[start] = 1;
    dfs(start, 0);
    if (truncated) break;
  }
  return out;
}

std::string describe_cycle(const DepGraph &g, const Cycle &cy) {
  std::string s = g.names[g.edges[cy.edges[0]].from];
  for (int k : cy.edges) {
    const Edge &e = g.edges[k];
    s += e.offset == 0 ? " needs " : e.offset > 0 ? " needs (next tick) " : " needs (previous tick) ";
    s += g.names[e.to];
    for (auto &l : e.guards) s += std::string(" [when ") + (l.positive ? "" : "not ") + l.cond + "]";
  }
  return s;
}

Span cycle_span(const DepGraph &g, const Cycle &cy) {
  for (int k : cy.edges)
    if (g.edges[k].eq && g.edges[k].eq->span.valid()) return g.edges[k].eq->span;
  return {};
}

// ------------------------------------------------------------------ solver helpers
struct Interval {  // for a bool memory: lo = hi = the constant value (0 or 1)
  size_t slot, started;
  int64_t lo, hi;
  bool is_bool = false;
  bool never_nil = false;     // the candidate "started ⇒ the memory is not nil" (slot = nil flag)
  bool same_started = false;  // the candidate "slot == started" (two started flags)
};

std::string fmt_seconds(double s) {
  std::ostringstream o;
  o << s;
  return o.str();
}

// The time budget of a check (Options::timeout_s) is spent: every later property is unknown.
struct BudgetExhausted : std::runtime_error {
  using std::runtime_error::runtime_error;
};

struct Smt {
  z3::context ctx;
  std::unique_ptr<TransitionSystem> ts;
  const Options &opts;
  // Proved invariants of this encoding (state slots are specific to it).
  std::vector<Interval> invariants;
  bool invariants_done = false;
  Smt(const core::Program &p, const core::Clocks &c, const Options &o, const std::set<std::string> *roots = nullptr)
      : opts(o) {
    ts = std::make_unique<TransitionSystem>(ctx, p, c, roots);
  }
  z3::solver solver() {
    z3::solver s(ctx);
    z3::params prm(ctx);
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(opts.deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) throw BudgetExhausted("the time budget of the check (" + fmt_seconds(opts.timeout_s) + " s) ran out");
    prm.set("timeout", static_cast<unsigned>(std::min<long long>(left, 0xFFFFFFF0LL)));
    s.set(prm);
    return s;
  }
  // Frames 0..n-1 from the initial state (or a free state).
  std::vector<TransitionSystem::Frame> unroll(int n, bool initial, z3::solver &s) {
    std::vector<TransitionSystem::Frame> fs;
    for (int k = 0; k < n; ++k) {
      fs.push_back(ts->frame(k, k ? &fs.back() : nullptr, initial && k == 0));
      for (auto e : fs.back().constraints) s.add(e);
    }
    return fs;
  }
};

// Reads the inputs of a model as an oracle trace.
oracle::Inputs model_inputs(const core::Program &p, const std::vector<TransitionSystem::Frame> &fs, z3::model &m) {
  oracle::Inputs in;
  in.cycles = fs.size();
  for (auto &v : p.inputs) {
    auto &cells = in.streams[v.name];
    for (auto &f : fs) {
      bool present = m.eval(f.p.at(v.name), true).is_true();
      if (!present) {
        cells.push_back(oracle::Cell::absent());
        continue;
      }
      std::vector<int64_t> shape = array::concrete_shape(v.type.shape);
      array::Tensor t = array::Tensor::zeros(v.type.elem, shape);
      auto it = f.v.find(v.name);
      if (it != f.v.end()) {
        z3::expr val = m.eval(it->second, true);
        if (v.type.elem == Scalar::Bool) t.i[0] = val.is_true();
        else {
          uint64_t u = 0;
          val.is_numeral_u64(u);
          t.i[0] = static_cast<int64_t>(u);
        }
      }
      cells.push_back(oracle::Cell::of(std::move(t)));
    }
  }
  return in;
}

std::string trace_csv(const core::Program &p, const oracle::Inputs &in) {
  std::string s;
  for (size_t k = 0; k < p.inputs.size(); ++k) s += (k ? "," : "") + p.inputs[k].name;
  s += "\n";
  for (size_t n = 0; n < in.cycles; ++n) {
    for (size_t k = 0; k < p.inputs.size(); ++k) {
      std::string c = in.streams.at(p.inputs[k].name)[n].str();
      if (c.find(',') != std::string::npos) c = "\"" + c + "\"";
      s += (k ? "," : "") + c;
    }
    s += "\n";
  }
  return s;
}

// The uninterpreted constants of some expressions (the variables of a Horn clause).
z3::expr_vector free_constants(z3::context &ctx, const std::vector<z3::expr> &roots) {
  z3::expr_vector out(ctx);
  std::set<unsigned> seen;
  std::vector<z3::expr> todo(roots.begin(), roots.end());
  while (!todo.empty()) {
    z3::expr e = todo.back();
    todo.pop_back();
    if (!seen.insert(e.id()).second || !e.is_app()) continue;
    if (e.num_args() == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) out.push_back(e);
    for (unsigned i = 0; i < e.num_args(); ++i) todo.push_back(e.arg(i));
  }
  return out;
}

struct Checker {
  const CheckedProgram &cp;
  const core::Program &prog;
  Options opts;  // with its deadline
  core::Clocks clocks;
  DepGraph graph;
  Checker(const CheckedProgram &c, const core::Program &p, const Options &o)
      : cp(c), prog(p), opts(o), clocks(core::infer_clocks(p)), graph(build_graph(p, clocks)) {
    opts.deadline = std::chrono::steady_clock::now() +
                    std::chrono::milliseconds(static_cast<long long>(std::min(opts.timeout_s, 1e9) * 1000));
  }

  z3::expr inv_at(Smt &smt, const std::vector<z3::expr> &state) { return inv_of(smt, smt.invariants, state); }
  static z3::expr inv_of(Smt &smt, const std::vector<Interval> &invariants, const std::vector<z3::expr> &state) {
    z3::expr all = smt.ctx.bool_val(true);
    for (auto &iv : invariants) {
      z3::expr m = state[iv.slot];
      if (iv.same_started) all = all && (m == state[iv.started]);
      else if (iv.never_nil) all = all && z3::implies(state[iv.started], !m);
      else if (iv.is_bool) all = all && z3::implies(state[iv.started], iv.lo ? m : !m);
      else all = all && z3::implies(state[iv.started], z3::sge(m, smt.ctx.bv_val(iv.lo, 64)) && z3::sle(m, smt.ctx.bv_val(iv.hi, 64)));
    }
    return all;
  }

  // Candidate ranges of integer memories from oracle runs on random inputs, kept only when
  // Z3 proves them inductive (Houdini). They let k-induction ignore unreachable states.
  void discover_invariants(Smt &smt) {
    if (smt.invariants_done) return;
    smt.invariants_done = true;
    std::vector<Interval> &invariants = smt.invariants;
    auto mems = smt.ts->int_memories();
    if (mems.empty()) return;
    for (auto &v : prog.inputs)
      if (clocks.terms[static_cast<size_t>(clocks.of(v.name))].kind != core::ClockTerm::Base) return;
    std::map<std::string, std::pair<int64_t, int64_t>> range;
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    auto rnd = [&] { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed; };
    oracle::Oracle orc(cp, prog);
    for (int run = 0; run < 8; ++run) {
      oracle::Inputs in;
      in.cycles = 64;
      for (auto &v : prog.inputs) {
        auto &cells = in.streams[v.name];
        for (size_t n = 0; n < in.cycles; ++n) {
          array::Tensor t = array::Tensor::zeros(v.type.elem, array::concrete_shape(v.type.shape));
          for (auto &x : t.i) x = v.type.elem == Scalar::Bool ? static_cast<int64_t>(rnd() & 1) : static_cast<int64_t>(rnd() % 7) - 3;
          for (auto &x : t.r) x = static_cast<double>(rnd() % 7) - 3;
          cells.push_back(oracle::Cell::of(t));
        }
      }
      oracle::Result res = orc.run(in);
      for (auto &m : mems)
        for (size_t n = 0; n < res.cycles; ++n) {
          oracle::Cell c = res.at(m.source, n);
          if (c.tag != oracle::Tag::Val) continue;
          int64_t x = c.value.i[0];
          auto it = range.find(m.source);
          if (it == range.end()) range[m.source] = {x, x};
          else it->second = {std::min(it->second.first, x), std::max(it->second.second, x)};
        }
    }
    // started flags of memories on the same clock agree (a -> pre x, pairs of fby)
    std::vector<size_t> starts;
    for (auto &m : mems) starts.push_back(m.started);
    for (size_t a : smt.ts->arrow_started()) starts.push_back(a);
    if (starts.size() <= 40)
      for (size_t i = 0; i < starts.size(); ++i)
        for (size_t j = i + 1; j < starts.size(); ++j) {
          Interval eqv{starts[i], starts[j], 0, 0, false, false};
          eqv.same_started = true;
          invariants.push_back(eqv);
        }
    for (auto &m : mems) {
      Interval nn{m.nil_slot, m.started, 0, 0, false, true};
      invariants.push_back(nn);
      if (!range.count(m.source)) continue;
      auto [lo, hi] = range[m.source];
      if (m.is_bool && lo != hi) continue;  // both values seen: nothing to say
      invariants.push_back(Interval{m.slot, m.started, lo, hi, m.is_bool});
    }
    // Houdini: drop candidates that one transition can break, until the rest is inductive.
    for (bool dropped = true; dropped && !invariants.empty();) {
      dropped = false;
      z3::solver s = smt.solver();
      auto fs = smt.unroll(1, false, s);
      s.add(inv_at(smt, fs[0].state_in));
      for (size_t k = 0; k < invariants.size(); ++k) {
        std::vector<Interval> one{invariants[k]};
        z3::expr next = inv_of(smt, one, fs[0].state_out);
        s.push();
        s.add(!next);
        if (s.check() != z3::unsat) {
          invariants.erase(invariants.begin() + static_cast<long>(k));
          dropped = true;
          s.pop();
          break;
        }
        s.pop();
      }
    }
  }

  // --------------------------------------------------------------- clocks
  std::map<std::string, const core::Equation *> defs;
  const core::Equation *def_of(const std::string &v) {
    if (defs.empty())
      for (auto &eq : prog.equations) defs[eq.lhs] = &eq;
    auto it = defs.find(v);
    return it == defs.end() ? nullptr : it->second;
  }

  // Lustre's `pre` can make a condition nil: a static may-be-nil analysis over the program.
  std::set<std::string> may_be_nil() {
    std::set<std::string> nil;
    bool changed = true;
    while (changed) {
      changed = false;
      for (auto &eq : prog.equations) {
        if (nil.count(eq.lhs)) continue;
        bool n = false;
        switch (eq.prim) {
          case core::Prim::Pre: n = true; break;
          case core::Prim::Arrow: {
            // a -> b is a at the first tick (which may be nil), then b. In the idiom
            // a -> pre x, the pre's own first-tick nil is never read: only x's nil matters.
            const core::Equation *b = def_of(eq.args[1]);
            bool b_nil = b && b->prim == core::Prim::Pre ? nil.count(b->args[0]) > 0 : nil.count(eq.args[1]) > 0;
            n = nil.count(eq.args[0]) > 0 || b_nil;
            break;
          }
          case core::Prim::Const: break;
          case core::Prim::Merge: n = nil.count(eq.args[1]) || nil.count(eq.args[2]); break;
          case core::Prim::Fby: n = nil.count(eq.args[0]) || nil.count(eq.args[1]); break;
          default:
            for (auto &a : eq.args) n |= nil.count(a) > 0;
        }
        if (n) {
          nil.insert(eq.lhs);
          changed = true;
        }
      }
    }
    return nil;
  }

  // Initialisation (as Heptagon and Vélus check it): no output of the main node is ever
  // nil, Lustre's uninitialised first value of `pre`. A static may-be-nil analysis proves
  // most programs; otherwise k-induction (then IC3/PDR) on the nil flags, or a BMC run
  // where an output is nil, replayed in the oracle.
  PropertyResult check_initialisation() {
    PropertyResult r;
    r.kind = "initialisation";
    std::set<std::string> nil = may_be_nil();
    std::vector<std::string> outs;
    for (auto &o : prog.outputs)
      if (nil.count(o.name)) outs.push_back(o.name);
    if (outs.empty()) {
      r.verdict = Verdict::Valid;
      r.method = "static analysis: no output can be the uninitialised first value of a 'pre'";
      return r;
    }
    for (auto &o : outs)
      r.findings.push_back(Finding{"init.nil", "the output '" + o + "' may be nil (the first value of a 'pre' not guarded by '->')",
                                   def_of(o) ? def_of(o)->span : Span{}});
    smt_invariant(
        r,
        [&](const TransitionSystem::Frame &f) {
          z3::expr any = f.err.ctx().bool_val(false);
          for (auto &o : outs) any = any || (f.p.at(o) && f.nil.at(o));
          return any;
        },
        "no output is nil at any cycle",
        [&](const oracle::Result &res, Counterexample &cx) {
          for (size_t n = 0; n < res.cycles; ++n)
            for (auto &o : outs)
              if (res.has(o) && res.at(o, n).tag == oracle::Tag::Nil) {
                cx.what = "the output '" + o + "' is nil at cycle " + std::to_string(n);
                cx.show = {o};
                cx.required = Counterexample::Cell{o, n, false};
                return true;
              }
          return false;
        });
    if (r.verdict == Verdict::Valid) r.findings.clear();  // the may-be-nil warnings were false alarms
    return r;
  }

  PropertyResult check_clocks() {
    PropertyResult r;
    r.kind = "clocks";
    std::set<std::string> nil = may_be_nil();
    std::vector<std::pair<std::string, Span>> nil_conds;  // condition, where it is used
    std::set<std::string> seen;
    auto note_nil = [&](const std::string &c, Span where) {
      if (nil.count(c) && seen.insert(c).second) nil_conds.emplace_back(c, where);
    };
    for (auto &eq : prog.equations) {
      if (eq.prim == core::Prim::When) note_nil(eq.args[1], eq.span);
      if (eq.prim == core::Prim::Merge) note_nil(eq.args[0], eq.span);
    }
    for (auto &t : clocks.terms)
      if (t.kind == core::ClockTerm::On) note_nil(t.cond, def_of(t.cond) ? def_of(t.cond)->span : Span{});
    if (clocks.clashes.empty() && nil_conds.empty()) {
      r.verdict = Verdict::Valid;
      r.method = "static clock calculus (every clock unifies; no condition can be nil)";
      return r;
    }
    for (auto &c : clocks.clashes) r.findings.push_back(Finding{"clock.clash", c.message, c.span});
    for (auto &[cnd, where] : nil_conds)
      r.findings.push_back(Finding{"clock.nil-condition",
                                   "the condition '" + cnd + "' may be the uninitialised first value of a 'pre'", where});
    // The calculus is incomplete (syntactic clock equality): ask Z3.
    smt_invariant(r, [](const TransitionSystem::Frame &f) { return f.err; }, "no error value (‖) at any cycle",
                  [&](const oracle::Result &res, Counterexample &cx) {
                    for (auto &e : res.errors) {
                      cx.what = "error value in '" + e.var + "' at cycle " + std::to_string(e.cycle) + " [" + e.rule + "]: " + e.message;
                      cx.show.push_back(e.var);
                      return true;
                    }
                    if (res.any_error()) {
                      cx.what = "an error value (‖) appears";
                      return true;
                    }
                    return false;
                  });
    if (r.verdict == Verdict::Valid)
      r.method = "the static clock calculus rejects it (" + std::to_string(clocks.clashes.size() + nil_conds.size()) +
                 " finding(s) above), but " + r.method;
    return r;
  }

  // Proves that `bad` never holds (k-induction), or finds a run where it does (BMC) and
  // replays it in the oracle; `confirm` decides whether the replay shows the failure.
  void smt_invariant(PropertyResult &r, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                     const std::string &what,
                     const std::function<bool(const oracle::Result &, Counterexample &)> &confirm,
                     bool ticking = false) {
    Smt smt(prog, clocks, opts);
    // With `ticking`, only runs where the main node ticks at every cycle: a cycle where
    // every input is absent changes no state and has no value, so for a property of the
    // present values these runs lose nothing (stuttering), and k-induction is not defeated
    // by runs of silent cycles.
    auto ticks = [&](z3::solver &s, const std::vector<TransitionSystem::Frame> &fs) {
      if (!ticking || prog.inputs.empty()) return;
      for (auto &f : fs) {
        z3::expr any = smt.ctx.bool_val(false);
        for (auto &v : prog.inputs) any = any || f.p.at(v.name);
        s.add(any);
      }
    };
    bool spurious = false;
    for (int k = 1; k <= opts.max_depth; ++k) {
      // Base: no bad cycle among the first k from the initial state.
      {
        z3::solver s = smt.solver();
        auto fs = smt.unroll(k, true, s);
        ticks(s, fs);
        z3::expr any = smt.ctx.bool_val(false);
        for (auto &f : fs) any = any || bad(f);
        s.add(any);
        if (opts.explain && k == 1) r.smt += "; BMC base, depth 1: sat iff a bad cycle is reachable\n" + s.to_smt2() + "\n";
        z3::check_result c = s.check();
        if (c == z3::unknown) {
          r.verdict = Verdict::Unknown;
          r.method = "the solver gave up (timeout or incompleteness) at depth " + std::to_string(k);
          return;
        }
        if (c == z3::sat) {
          z3::model m = s.get_model();
          Counterexample cx;
          cx.inputs = model_inputs(prog, fs, m);
          // Replay with lookahead, so that post's prophecies are confirmed by real ticks.
          oracle::Inputs longer = cx.inputs;
          oracle::Oracle orc(cp, prog);
          oracle::Result res = orc.run(longer);
          if (confirm(res, cx)) {
            cx.csv = trace_csv(prog, cx.inputs);
            r.verdict = Verdict::Falsified;
            r.method = "bounded model checking (depth " + std::to_string(k) + "), replayed in the oracle";
            r.cex = std::move(cx);
            return;
          }
          spurious = true;  // the model used a freedom the oracle does not have: look deeper
          continue;
        }
      }
      // Step: k good cycles from any state imply a good next cycle.
      {
        z3::solver s = smt.solver();
        auto fs = smt.unroll(k + 1, false, s);
        ticks(s, fs);
        discover_invariants(smt);
        s.add(inv_at(smt, fs[0].state_in));
        for (int j = 0; j < k; ++j) s.add(!bad(fs[static_cast<size_t>(j)]));
        s.add(bad(fs[static_cast<size_t>(k)]));
        if (opts.explain && k == 1) r.smt += "; k-induction step, k = 1: unsat proves the property\n" + s.to_smt2() + "\n";
        z3::check_result c = s.check();
        if (c == z3::unsat) {
          r.verdict = Verdict::Valid;
          r.method = "proved by Z3: " + what + " (" + std::to_string(k) + "-induction)";
          return;
        }
      }
    }
    // k-induction failed: IC3/PDR (Z3's Spacer) looks for an inductive invariant itself.
    if (auto proved = pdr_proves(smt, bad, ticking); proved && *proved) {
      r.verdict = Verdict::Valid;
      r.method = "proved by Z3's Spacer (IC3/PDR): " + what + " (an inductive invariant of the transition system)";
      return;
    }
    r.verdict = Verdict::Unknown;
    r.method = std::string("neither proved by k-induction (up to depth ") + std::to_string(opts.max_depth) +
               ") or IC3/PDR nor falsified" +
               (spurious ? " (the bounded runs found were not reproduced by the oracle)" : "");
  }

  // IC3/PDR through Z3's fixedpoint engine Spacer, over the same transition system: Horn
  // clauses Init(s) ∧ T(s, s') ⇒ Inv(s), Inv(s) ∧ T(s, s') ⇒ Inv(s'), and the query
  // Inv(s) ∧ T(s, s') ∧ bad. true: proved (Spacer found an inductive invariant excluding
  // bad; the system over-approximates the oracle, so the property holds there); false or
  // nullopt: not proved (a reachable bad state of the system is not a counterexample
  // until the oracle replays it, which BMC already tried).
  std::optional<bool> pdr_proves(Smt &smt, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad, bool ticking) {
    z3::context &ctx = smt.ctx;
    try {
      auto left = std::chrono::duration_cast<std::chrono::milliseconds>(opts.deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return std::nullopt;
      z3::fixedpoint fp(ctx);
      z3::params prm(ctx);
      prm.set("engine", "spacer");
      // At most half of what is left, so that the properties checked after this one keep
      // a budget (Spacer may search until its timeout).
      prm.set("timeout", static_cast<unsigned>(std::min<long long>(left / 2 + 1, 0xFFFFFFF0LL)));
      fp.set(prm);
      auto frame_of = [&](bool initial) {
        TransitionSystem::Frame f = smt.ts->frame(0, nullptr, initial);
        std::vector<z3::expr> body;
        for (auto e : f.constraints) body.push_back(e);
        if (ticking && !prog.inputs.empty()) {
          z3::expr any = ctx.bool_val(false);
          for (auto &v : prog.inputs) any = any || f.p.at(v.name);
          body.push_back(any);
        }
        return std::make_pair(std::move(f), std::move(body));
      };
      auto [f0, b0] = frame_of(true);
      z3::sort_vector sorts(ctx);
      for (auto &x : f0.state_in) sorts.push_back(x.get_sort());
      z3::func_decl inv = ctx.function("rml_inv", sorts, ctx.bool_sort());
      fp.register_relation(inv);
      auto conj = [&](const std::vector<z3::expr> &xs) {
        z3::expr_vector v(ctx);
        for (auto &x : xs) v.push_back(x);
        return z3::mk_and(v);
      };
      auto app = [&](const std::vector<z3::expr> &args) {
        z3::expr_vector v(ctx);
        for (auto &x : args) v.push_back(x);
        return inv(v);
      };
      auto rule = [&](const z3::expr &body, const z3::expr &head, const char *name) {
        z3::expr_vector vars = free_constants(ctx, {body, head});
        z3::expr r = vars.empty() ? z3::implies(body, head) : z3::forall(vars, z3::implies(body, head));
        fp.add_rule(r, ctx.str_symbol(name));
      };
      rule(conj(b0), app(f0.state_in), "init");
      auto [f1, b1] = frame_of(false);
      std::vector<z3::expr> next;  // fresh names for the next state (a head takes variables)
      for (size_t k = 0; k < f1.state_out.size(); ++k) {
        z3::expr n = ctx.constant(("rml_next!" + std::to_string(k)).c_str(), f1.state_out[k].get_sort());
        b1.push_back(n == f1.state_out[k]);
        next.push_back(n);
      }
      b1.push_back(app(f1.state_in));
      rule(conj(b1), app(next), "step");
      auto [f2, b2] = frame_of(false);
      b2.push_back(app(f2.state_in));
      b2.push_back(bad(f2));
      z3::expr q = conj(b2);
      z3::expr_vector qv = free_constants(ctx, {q});
      z3::expr query = qv.empty() ? q : z3::exists(qv, q);
      z3::check_result c = fp.query(query);
      if (c == z3::unknown) return std::nullopt;
      return c == z3::unsat;
    } catch (z3::exception &) {
      return std::nullopt;
    }
  }

  // --------------------------------------------------------------- causality
  PropertyResult check_causality() {
    PropertyResult r;
    r.kind = "causality";
    auto inst = [](const Edge &e) { return e.offset == 0; };
    int count = 0;
    std::vector<int> comp = components(graph, inst, count);
    std::vector<int> size(static_cast<size_t>(count), 0);
    for (int c : comp) ++size[static_cast<size_t>(c)];
    bool truncated = false;
    auto by_comp = edges_by_component(graph, comp, count);
    for (int c = 0; c < count; ++c) {
      bool self = false;
      for (int k : by_comp[static_cast<size_t>(c)]) {
        const Edge &e = graph.edges[k];
        if (inst(e) && e.from == e.to) self = true;
      }
      if (size[static_cast<size_t>(c)] < 2 && !self) continue;
      for (auto &cy : cycles_in(graph, comp, c, inst, 1000, truncated)) {
        if (!consistent(cy.guards)) continue;  // broken by exclusive when/merge branches
        r.findings.push_back(Finding{"causality.cycle",
                                     "instantaneous dependency cycle: " + describe_cycle(graph, cy) +
                                         " (each needs the other within the same cycle: deadlock, ⊥)",
                                     cycle_span(graph, cy)});
        break;
      }
    }
    if (!r.findings.empty()) {
      r.verdict = Verdict::Falsified;
      r.method = "instantaneous dependency graph, strongly connected components (Boost.Graph)";
    } else if (truncated) {
      r.verdict = Verdict::Unknown;
      r.method = "too many cycles to enumerate";
    } else {
      r.verdict = Verdict::Valid;
      r.method = "every instantaneous cycle goes through exclusive when/merge branches (or there is none)";
    }
    return r;
  }

  // --------------------------------------------------------------- productivity
  // The longest run of consecutive cycles where `cont` holds is at most H: returns the
  // smallest such H ≤ max_horizon that Z3 proves (with the run's shortest counterexample
  // for H - 1 kept), or nullopt.
  struct RunBound {
    std::optional<int64_t> h;
    bool falsified_at_max = false;  // a run longer than max_horizon exists (BMC from the initial state)
    std::optional<Counterexample> cex;  // inputs ending with the long run
    size_t run_start = 0;               // the cycle where that run starts
  };
  RunBound bound_runs(const std::function<z3::expr(const TransitionSystem::Frame &)> &cont,
                      const std::set<std::string> &roots, std::optional<int64_t> search = std::nullopt) {
    RunBound out;
    const int64_t M = search ? *search : max_h();  // the largest bound searched
    Smt smt(prog, clocks, opts, &roots);
    // Base case for bound H: from the initial state, no run of H + 1 continuations.
    auto base_holds = [&](int64_t H, bool keep_cex) -> std::optional<bool> {
      int win = static_cast<int>(H) + 1, depth = win + 2;
      z3::solver s = smt.solver();
      auto fs = smt.unroll(depth, true, s);
      z3::expr any = smt.ctx.bool_val(false);
      for (int st = 0; st + win <= depth; ++st) {
        z3::expr all = smt.ctx.bool_val(true);
        for (int j = 0; j < win; ++j) all = all && cont(fs[static_cast<size_t>(st + j)]);
        any = any || all;
      }
      s.add(any);
      z3::check_result c = s.check();
      if (c == z3::unknown) return std::nullopt;
      if (c == z3::sat && keep_cex) {
        out.falsified_at_max = true;
        z3::model m = s.get_model();
        Counterexample cx;
        cx.inputs = model_inputs(prog, fs, m);
        // Find the long run and cut the trace where it ends: its first cell then needs
        // a cycle beyond the prefix although the prefix is longer than the bound.
        for (int st = 0; st + win <= depth; ++st) {
          bool run = true;
          for (int j = 0; j < win && run; ++j) run = m.eval(cont(fs[static_cast<size_t>(st + j)]), true).is_true();
          if (!run) continue;
          out.run_start = static_cast<size_t>(st);
          cx.inputs.cycles = static_cast<size_t>(st + win);
          for (auto &kv : cx.inputs.streams) kv.second.resize(cx.inputs.cycles);
          break;
        }
        out.cex = std::move(cx);
      }
      return c == z3::unsat;
    };
    // Step: k windows without a bad one, then a bad one, from any state satisfying the
    // invariants (k-induction on windows).
    auto step_holds = [&](int64_t H) {
      int win = static_cast<int>(H) + 1;
      for (int k = 1; k <= opts.max_depth; ++k) {
        z3::solver t = smt.solver();
        int n = k + win;
        auto gs = smt.unroll(n, false, t);
        discover_invariants(smt);
        t.add(inv_at(smt, gs[0].state_in));
        auto window = [&](int end) {
          z3::expr all = smt.ctx.bool_val(true);
          for (int j = end - win + 1; j <= end; ++j) all = all && cont(gs[static_cast<size_t>(j)]);
          return all;
        };
        for (int end = win - 1; end < n - 1; ++end) t.add(!window(end));
        t.add(window(n - 1));
        if (t.check() == z3::unsat) return true;
      }
      return false;
    };
    // The smallest H whose base case holds: doubling, then bisection.
    int64_t lo = -1, hi = -1;  // base fails at lo, holds at hi
    for (int64_t H = 0;; H = H ? std::min<int64_t>(2 * H, M) : 1) {
      auto b = base_holds(H, H == M);
      if (!b) return out;
      if (*b) {
        hi = H;
        break;
      }
      lo = H;
      if (H == M) return out;  // runs longer than the largest bound searched
    }
    while (hi - lo > 1) {
      int64_t mid = (lo + hi) / 2;
      auto b = base_holds(mid, false);
      if (!b) return out;
      (*b ? hi : lo) = mid;
    }
    for (int64_t H = hi; H <= std::min<int64_t>(hi + 2, M); ++H)
      if (step_holds(H)) {
        out.h = H;
        return out;
      }
    return out;
  }

  PropertyResult check_productivity(const PropertyResult &causality) {
    PropertyResult r;
    r.kind = "productivity";
    PropertyResult out = productivity_of_chains(r);
    if (causality.verdict == Verdict::Falsified) {
      // An instantaneous cycle leaves its cells ⊥ at every cycle (semantics.md §9.2 (i)).
      out.verdict = Verdict::Falsified;
      out.method = "an instantaneous dependency cycle (see causality) leaves its cells unknown";
      out.horizon.reset();
      for (auto &f : causality.findings) out.findings.push_back(Finding{"productivity.causality", f.message, f.span});
    }
    return out;
  }

  // A user property (`check e;`): e is true wherever it is present. k-induction proves it;
  // a BMC run where it is false (or nil) is replayed in the oracle before it is believed.
  PropertyResult check_property(const core::CoreProperty &pp) {
    PropertyResult r;
    r.kind = "property";
    r.name = pp.text;
    r.span = pp.span;
    const std::string &v = pp.var;
    smt_invariant(
        r, [&](const TransitionSystem::Frame &f) { return f.p.at(v) && (f.nil.at(v) || !f.v.at(v)); },
        "'" + pp.text + "' holds at every cycle",
        [&](const oracle::Result &res, Counterexample &cx) {
          if (!res.has(v)) return false;
          for (size_t n = 0; n < res.cycles; ++n) {
            const oracle::Cell c = res.at(v, n);
            bool fails = c.tag == oracle::Tag::Nil || (c.tag == oracle::Tag::Val && c.value.i.size() == 1 && c.value.i[0] == 0);
            if (!fails) continue;
            cx.what = "'" + pp.text + "' is " + (c.tag == oracle::Tag::Nil ? "nil" : "false") + " at cycle " + std::to_string(n);
            cx.show = {v};
            cx.required = Counterexample::Cell{v, n, true};
            return true;
          }
          return false;
        },
        true);
    if (r.verdict == Verdict::Falsified)
      r.findings.push_back(Finding{"property.falsified", "the property '" + pp.text + "' does not hold", pp.span});
    return r;
  }

  // Whether the assumptions admit no run of `depth` cycles from the initial state (e.g.
  // `assume always bp and not bp;`): then every proof under them is vacuous.
  bool assumptions_vacuous() {
    if (prog.assumptions.empty()) return false;
    int depth = opts.max_depth + 1;
    for (auto &a : prog.assumptions)
      if (a.eventually && a.within >= 0) depth = std::max<int>(depth, static_cast<int>(std::min<int64_t>(a.within, kMaxSearchedHorizon)) + 2);
    std::set<std::string> roots;
    for (auto &a : prog.assumptions) roots.insert(a.var);
    Smt smt(prog, clocks, opts, &roots);
    z3::solver s = smt.solver();
    auto fs = smt.unroll(depth, true, s);
    // The main node runs at every cycle (otherwise "nothing ever ticks" satisfies all).
    if (!prog.inputs.empty())
      for (auto &f : fs) {
        z3::expr tick = smt.ctx.bool_val(false);
        for (auto &v : prog.inputs) tick = tick || f.p.at(v.name);
        s.add(tick);
      }
    vacuous_depth = depth;
    return s.check() == z3::unsat;
  }
  int vacuous_depth = 0;

  // Drops the edges of backward cycles whose guard can never hold (proved: no run of the
  // guard from the initial state, by k-induction), e.g. `when not bp` where bp is constant
  // true: they are never dependences, so they cannot make a chain or a cycle.
  void drop_dead_edges() {
    auto all = [](const Edge &) { return true; };
    int count = 0;
    std::vector<int> comp = components(graph, all, count);
    std::set<int> chained;  // components with a post inside
    for (auto &e : graph.edges)
      if (e.offset > 0 && comp[e.from] == comp[e.to]) chained.insert(comp[e.from]);
    std::map<std::pair<std::string, bool>, bool> dead;
    for (auto &e : graph.edges) {
      if (!chained.count(comp[e.from]) || comp[e.to] != comp[e.from]) continue;
      for (auto &l : e.guards) {
        auto key = std::make_pair(l.cond, l.positive);
        if (dead.count(key)) continue;
        std::set<std::string> roots{l.cond};
        RunBound b = bound_runs([&](const TransitionSystem::Frame &f) {
          return f.p.at(l.cond) && (l.positive ? f.v.at(l.cond) : !f.v.at(l.cond));
        }, roots, 0);  // only "never holds" (H = 0) is of use here
        dead[key] = b.h && *b.h == 0;
      }
    }
    DepGraph live;
    live.names = graph.names;
    live.id = graph.id;
    live.out.resize(graph.names.size());
    for (auto &e : graph.edges) {
      bool is_dead = false;
      for (auto &l : e.guards) is_dead |= dead[std::make_pair(l.cond, l.positive)];
      if (is_dead) continue;
      live.edges.push_back(e);
      live.out[static_cast<size_t>(e.from)].push_back(static_cast<int>(live.edges.size()) - 1);
    }
    graph = std::move(live);
  }

  PropertyResult productivity_of_chains(PropertyResult r) {
    drop_dead_edges();
    auto all = [](const Edge &) { return true; };
    int count = 0;
    std::vector<int> comp = components(graph, all, count);
    bool truncated = false, unknown = false;
    std::map<int, int64_t> scc_horizon;  // lookahead of every cell of a component with a cut backward chain
    std::set<int> own_bound;  // components whose scc_horizon already bounds every cell (time-expanded analysis)
    std::set<int> cyclic_posts;  // post equations inside a cycle (handled below)
    auto by_comp = edges_by_component(graph, comp, count);
    for (int c = 0; c < count; ++c) {
      bool has_post = false;
      for (int k : by_comp[static_cast<size_t>(c)]) {
        const Edge &e = graph.edges[k];
        if (e.offset > 0 && comp[e.to] == c) {
          has_post = true;
          cyclic_posts.insert(k);
        }
      }
      if (!has_post) continue;
      bool no_chain = false, bound_is_own = false;
      auto h = backward_component(r, comp, c, by_comp[static_cast<size_t>(c)], truncated, no_chain, bound_is_own);
      if (h) {
        scc_horizon[c] = *h;
        if (bound_is_own) own_bound.insert(c);
      } else if (no_chain) {  // its posts only close cycles going back in time: a plain post each
        for (int k : by_comp[static_cast<size_t>(c)]) cyclic_posts.erase(k);
      } else if (r.verdict != Verdict::Falsified) unknown = true;
    }
    if (r.verdict == Verdict::Falsified) {
      r.method = "dependency graph weighted by time (post +1, fby -1), refutation replayed in the oracle";
      return r;
    }
    // Posts outside cycles: each needs the next tick of its clock, within `gap` cycles.
    std::map<int, int64_t> gap;  // edge -> cycles
    for (size_t k = 0; k < graph.edges.size(); ++k) {
      const Edge &e = graph.edges[k];
      if (e.offset <= 0 || cyclic_posts.count(static_cast<int>(k))) continue;
      int t = clocks.of(e.eq->lhs);
      if (clocks.terms[t].kind == core::ClockTerm::Base) {
        gap[static_cast<int>(k)] = 1;
        continue;
      }
      // The clock must tick again: bound the runs where it does not.
      std::set<std::string> roots{e.eq->lhs};  // its clock (term t) is then encoded
      RunBound b = bound_runs([&](const TransitionSystem::Frame &f) { return !f.ck[static_cast<size_t>(t)]; }, roots);
      if (b.h) {
        gap[static_cast<int>(k)] = *b.h + 1;
        continue;
      }
      Finding fd{"productivity.clock",
                 "'" + e.eq->lhs + "' = post on clock " + clocks.str(t) +
                     ": no bound on the cycles until that clock ticks again (state one with 'assume always eventually ... "
                     "within N;')",
                 e.eq->span};
      if (!has_unbounded_assumption() && silent_clock_cex(t, e.eq->lhs, r)) {
        r.verdict = Verdict::Falsified;
        r.findings.push_back(fd);
      } else {
        r.findings.push_back(fd);
        unknown = true;
      }
    }
    if (r.verdict == Verdict::Falsified) {
      r.method = "dependency graph weighted by time, bounded model checking replayed in the oracle";
      return r;
    }
    // The horizon: the longest lookahead L(v) = max over dependence paths of their time
    // offsets (post +gap, fby/pre -1: the previous tick is at least one cycle back,
    // instantaneous 0), clamped at 0. Positive cycles were handled above: inside a
    // component with a cut cycle (bound h) every cell gets h and its post cells h + 1,
    // and its internal edges cost nothing more; other components have no positive cycle,
    // so their longest paths are finite (Bellman-Ford inside each component).
    // A cell that a post of its component reads walks a whole segment at its own cycle, so
    // the run starts there (h); any other cell may start it one cycle later (h + 1).
    std::vector<int64_t> own(graph.names.size(), 0);
    for (size_t v = 0; v < own.size(); ++v)
      if (auto it = scc_horizon.find(comp[v]); it != scc_horizon.end()) own[v] = it->second + (own_bound.count(comp[v]) ? 0 : 1);
    for (int k : cyclic_posts)
      if (auto it = scc_horizon.find(comp[graph.edges[k].to]); it != scc_horizon.end() && !own_bound.count(it->first))
        own[graph.edges[k].to] = it->second;
    auto weight = [&](int k) -> int64_t {
      const Edge &e = graph.edges[k];
      if (scc_horizon.count(comp[e.from]) && comp[e.to] == comp[e.from]) return 0;  // counted in `own`
      if (e.offset > 0) return gap.count(k) ? gap[k] : 1;
      return e.offset < 0 ? -1 : 0;
    };
    std::vector<int64_t> L(graph.names.size(), 0);
    std::vector<char> done(static_cast<size_t>(count), 0);
    std::function<void(int)> solve = [&](int c) {
      if (done[static_cast<size_t>(c)]) return;
      done[static_cast<size_t>(c)] = 1;
      for (int k : by_comp[static_cast<size_t>(c)])
        if (comp[graph.edges[k].to] != c) solve(comp[graph.edges[k].to]);
      std::vector<int> members;
      for (size_t v = 0; v < comp.size(); ++v)
        if (comp[v] == c) members.push_back(static_cast<int>(v));
      if (scc_horizon.count(c)) {
        // A cut component: `own` already bounds every path inside it; a cell at n reaches
        // any of its nodes by n + own, and from there leaves the component.
        int64_t out = 0;
        for (int k : by_comp[static_cast<size_t>(c)])
          if (comp[graph.edges[k].to] != c) out = std::max(out, weight(k) + L[graph.edges[k].to]);
        for (int v : members) L[v] = own[v] + out;
        return;
      }
      for (int v : members) L[v] = own[v];
      for (size_t round = 0; round <= members.size(); ++round) {
        bool changed = false;
        for (int k : by_comp[static_cast<size_t>(c)]) {
          const Edge &e = graph.edges[k];
          int64_t cand = weight(k) + L[e.to];
          if (cand > L[e.from]) {
            L[e.from] = cand;
            changed = true;
          }
        }
        if (!changed) return;
      }
      unknown = true;  // still growing: a positive cycle the analysis above did not cut
    };
    for (int c = 0; c < count; ++c) solve(c);
    int64_t horizon = 0;
    for (auto x : L) horizon = std::max(horizon, x);
    if (truncated) unknown = true;
    if (unknown) {
      r.verdict = Verdict::Unknown;
      r.method = "some backward chain has no proved bound";
      return r;
    }
    r.verdict = Verdict::Valid;
    r.horizon = tighten_horizon(horizon);
    r.method = horizon == 0 ? "no post: every cell needs only the past and the present"
                            : "every backward chain is cut within the horizon (upper bound), assuming the main node runs at "
                              "every cycle";
    return r;
  }

  // A refutation for a post on a sampled clock: the clock ticks once and then stays silent
  // forever (a lasso), so the post's cell at that tick waits forever. Replayed.
  bool silent_clock_cex(int t, const std::string &var, PropertyResult &r) {
    std::set<std::string> roots;
    for (int u = t; u >= 0 && clocks.terms[u].kind == core::ClockTerm::On; u = clocks.terms[u].parent)
      roots.insert(clocks.terms[u].cond);
    std::set<std::string> encoded = roots;
    encoded.insert(var);  // so that its clock term is encoded
    auto silent = [t](const TransitionSystem::Frame &f) { return !f.ck[static_cast<size_t>(t)]; };
    auto tick = [t](const TransitionSystem::Frame &f) { return f.ck[static_cast<size_t>(t)]; };
    auto cx = lasso(roots, encoded, silent, tick, var, -1);
    if (!cx) return false;
    cx->what = "'" + var + "' at cycle " + std::to_string(cx->show_at) + " is unknown, and stays so: its clock " + clocks.str(t) +
               " is silent from then on (the inputs of cycles " + std::to_string(cx->loop_from) + ".." +
               std::to_string(cx->loop_to) + " repeat forever)";
    r.cex = std::move(*cx);
    return true;
  }

  bool has_unbounded_assumption() const {
    for (auto &a : prog.assumptions)
      if (a.eventually && a.within < 0) return true;
    return false;
  }

  // ------------------------------------------------ backward chains (semantics.md §11)
  // The search bound for horizons: the option, raised to cover every `within N` of the
  // assumptions (a bound the user states must be searchable), capped so that unrollings
  // stay finite; past it the verdict is "unknown", never "falsified".
  int64_t max_h() const {
    int64_t m = opts.max_horizon;
    for (auto &a : prog.assumptions)
      if (a.eventually && a.within >= 0) m = std::max<int64_t>(m, std::min<int64_t>(2 * a.within + 2, kMaxSearchedHorizon));
    return m;
  }
  static constexpr int64_t kMaxSearchedHorizon = 512;

  // A segment: a path of instantaneous edges inside one component, from the cell a post
  // reads (its target) to the source of a post. A chain that passes cycle t in that
  // component walks one segment at t, so its guards are facts about cycle t.
  struct Segment {
    int from_post, to_post;  // edge indices
    std::vector<int> edges;
    std::vector<Lit> guards;  // all at offset 0 (the segment's cycle)
    bool exact = true;
  };

  std::vector<Segment> segments(const std::vector<int> &comp, int c, const std::vector<int> &posts, bool &truncated) {
    std::vector<Segment> out;
    std::map<int, std::vector<int>> post_from;  // source node -> post edges leaving it
    for (int q : posts) post_from[graph.edges[q].from].push_back(q);
    size_t steps = 0;
    for (int p : posts) {
      std::vector<int> path;
      std::vector<char> on(graph.names.size(), 0);
      std::function<void(int)> dfs = [&](int v) {
        if (truncated) return;
        if (auto it = post_from.find(v); it != post_from.end())
          for (int q : it->second) {
            Segment sg{p, q, path, {}, true};
            for (int k : path) {
              const Edge &e = graph.edges[k];
              // From cycle 1 on, `->`'s second operand is needed when the arrow runs on the base clock.
              sg.exact &= e.need == Edge::Need::Always ||
                          (e.need == Edge::Need::NotFirst && clocks.terms[clocks.of(graph.names[e.from])].kind ==
                                                                 core::ClockTerm::Base);
              for (auto &l : graph.edges[k].guards) sg.guards.push_back(l);
            }
            if (!consistent(sg.guards)) continue;  // a chain can never walk it
            std::sort(sg.guards.begin(), sg.guards.end());
            sg.guards.erase(std::unique(sg.guards.begin(), sg.guards.end(),
                                        [](const Lit &a, const Lit &b) { return !(a < b) && !(b < a); }),
                            sg.guards.end());
            out.push_back(std::move(sg));
            if (out.size() > 2000) truncated = true;
          }
        for (int k : graph.out[v]) {
          const Edge &e = graph.edges[k];
          if (e.offset != 0 || comp[e.to] != c || on[e.to]) continue;
          if (++steps > 200000) {
            truncated = true;
            return;
          }
          on[e.to] = 1;
          path.push_back(k);
          dfs(e.to);
          path.pop_back();
          on[e.to] = 0;
        }
      };
      int start = graph.edges[p].to;
      on[start] = 1;
      dfs(start);
    }
    return out;
  }

  std::string describe_segment(const Segment &sg) {
    const Edge &p = graph.edges[sg.from_post];
    std::string s = graph.names[p.from] + " needs (next tick) " + graph.names[p.to];
    for (int k : sg.edges) {
      const Edge &e = graph.edges[k];
      s += " needs " + graph.names[e.to];
      for (auto &l : e.guards) s += std::string(" [when ") + (l.positive ? "" : "not ") + l.cond + "]";
    }
    return s;
  }

  static std::string pred_str(const std::vector<Lit> &lits) {
    std::string s;
    for (auto &l : lits) s += (s.empty() ? "" : " and ") + std::string(l.positive ? "" : "not ") + l.cond;
    return s.empty() ? "true" : s;
  }

  // A component with a post on a cycle. Every cell of it needs cells at most h + 1 cycles
  // later, where h bounds the runs of consecutive cycles at which a chain can go on
  // (returned); nullopt with a finding otherwise (and r falsified with a replayed
  // refutation when one is found).
  //
  // Why this is sound (proofs/productivity.md): a dependence path from (v, n) inside the
  // component that reaches cycle m > n + 1 takes posts at ticks n ≤ t_0 < t_1 < ... and
  // walks one segment at each t_i (i ≥ 1), whose guards then hold at t_i; between two ticks
  // of a post's clock, that clock is silent. So every cycle of [n + 1, m) satisfies
  // cont = ∨ segments' guards ∨ ∨ sampled posts' clocks silent, and m ≤ n + 1 + h. This
  // needs time to move forward only: an fby/pre inside the component lets a path go back
  // and combine a chain with the branch that cuts it (the cell then needs itself), so such
  // components are not proved here.
  std::optional<int64_t> backward_component(PropertyResult &r, const std::vector<int> &comp, int c,
                                            const std::vector<int> &edges, bool &truncated, bool &no_chain,
                                            bool &bound_is_own) {
    std::vector<int> posts, backs;
    for (int k : edges) {
      const Edge &e = graph.edges[k];
      if (comp[e.to] != c) continue;
      if (e.offset > 0) posts.push_back(k);
      if (e.offset < 0) backs.push_back(k);
    }
    // The simple cycles through a post. With only negative ones (each goes back in time
    // more than forward), no path grows: the longest-path pass below bounds them.
    bool cyc_truncated = false;
    auto all = [](const Edge &) { return true; };
    std::vector<Cycle> cys = cycles_in(graph, comp, c, all, 1000, cyc_truncated);
    bool forward = false;  // a cycle through a post of weight >= 0
    for (auto &cy : cys) {
      bool through_post = false, real = true;
      for (int k : cy.edges) through_post |= graph.edges[k].offset > 0, real &= graph.edges[k].need != Edge::Need::FirstOnly;
      if (!through_post || cy.weight < 0 || !consistent(cy.guards)) continue;
      forward = true;
      // No guard can stop it and every edge is a real dependence (from the first tick on,
      // or the second): the chain goes on forever, or (weight 0) a cell needs itself.
      if (!cy.guards.empty() || !real) continue;
      r.findings.push_back(Finding{cy.weight == 0 ? "productivity.self" : "productivity.unbounded",
                                   cy.weight == 0 ? "a cell needs itself through post and fby: " + describe_cycle(graph, cy)
                                                  : "a chain of backward dependences never ends: " + describe_cycle(graph, cy) +
                                                        " (every cell needs a later one, unconditionally)",
                                   cycle_span(graph, cy)});
      if (attach_unproductive_cex(r)) {
        r.verdict = Verdict::Falsified;
        return std::nullopt;
      }
    }
    // Going back in time too: the time-expanded analysis needs no cycle enumeration.
    if (!backs.empty() && (cyc_truncated || forward)) {
      auto B = time_expanded_component(r, comp, c, edges);
      if (B) bound_is_own = true;
      return B;
    }
    if (cyc_truncated) {
      truncated = true;
      r.findings.push_back(Finding{"productivity.unsupported", "too many cycles through the post '" +
                                                                   graph.names[graph.edges[posts[0]].from] + "' to enumerate",
                                   graph.edges[posts[0]].eq ? graph.edges[posts[0]].eq->span : Span{}});
      return std::nullopt;
    }
    if (!forward) {
      no_chain = true;
      return std::nullopt;
    }
    bool seg_truncated = false;
    std::vector<Segment> segs = segments(comp, c, posts, seg_truncated);
    if (seg_truncated) {
      truncated = true;
      r.findings.push_back(Finding{"productivity.unsupported", "too many paths through the backward chain of '" +
                                                                   graph.names[graph.edges[posts[0]].from] + "' to enumerate",
                                   graph.edges[posts[0]].eq ? graph.edges[posts[0]].eq->span : Span{}});
      return std::nullopt;
    }
    std::string chain = describe_segment(segs.at(0));
    Span at = graph.edges[posts[0]].eq ? graph.edges[posts[0]].eq->span : Span{};
    for (auto &sg : segs)
      if (sg.guards.empty()) {
        r.findings.push_back(Finding{"productivity.unproved",
                                     "the chain " + describe_segment(sg) +
                                         " has no guard that can stop it (it goes through '->' or fby's initial value, or "
                                         "two posts in a row)",
                                     at});
        return std::nullopt;
      }
    std::vector<int> silent;  // clock terms of the posts on sampled clocks
    for (int q : posts) {
      int t = clocks.of(graph.edges[q].eq->lhs);
      if (clocks.terms[t].kind != core::ClockTerm::Base) silent.push_back(t);
    }
    auto cont = [&](const TransitionSystem::Frame &f) {
      z3::expr any = f.err.ctx().bool_val(false);
      for (auto &sg : segs) {
        z3::expr d = f.err.ctx().bool_val(true);
        for (auto &l : sg.guards) {
          z3::expr v = f.v.at(l.cond);
          d = d && f.p.at(l.cond) && (l.positive ? v : !v);
        }
        any = any || d;
      }
      for (int t : silent) any = any || !f.ck[static_cast<size_t>(t)];
      return any;
    };
    std::set<std::string> roots;
    for (auto &sg : segs)
      for (auto &l : sg.guards) roots.insert(l.cond);
    for (int q : posts) roots.insert(graph.edges[q].eq->lhs);
    std::set<std::string> disjuncts;
    std::string pred;
    for (auto &sg : segs)
      if (disjuncts.insert(pred_str(sg.guards)).second) pred += (pred.empty() ? "(" : ") or (") + pred_str(sg.guards);
    pred += ")";
    for (int t : silent) pred += " or (clock " + clocks.str(t) + " silent)";
    RunBound b = bound_runs(cont, roots);
    if (b.h) return *b.h;
    if (has_unbounded_assumption()) {
      r.findings.push_back(Finding{"productivity.unproved",
                                   "the chain " + chain + " goes on while " + pred +
                                       ": an unbounded 'always eventually' assumption gives no horizon (add 'within N')",
                                   at});
      return std::nullopt;
    }
    // A refutation: one segment from a base-clock post back to itself whose guards can
    // hold forever (a lasso of an exactly encoded state), so its chain never ends.
    for (auto &sg : segs) {
      if (sg.from_post != sg.to_post || !sg.exact || !silent.empty()) continue;
      if (refute_forever(r, sg, chain)) return std::nullopt;
    }
    r.findings.push_back(Finding{"productivity.unproved",
                                 "the chain " + chain + " goes on while " + pred + ": " +
                                     (b.falsified_at_max ? "this can hold for more than " + std::to_string(max_h()) +
                                                               " cycles in a row and no bound was proved (state one with "
                                                               "'assume always eventually ... within N;')"
                                                         : std::string("no bound proved and none refuted")),
                                 at});
    return std::nullopt;
  }

  // ------------------------------------ components that go back in time (time-expanded)
  // The cells of one component reachable from a start cell, over the frames of an
  // unrolling: an exact least-fixpoint encoding (a reached cell has a justification from a
  // cell of smaller rank, so only cells reachable by a finite path are reached), with
  // every guard read at its own cycle. Shared by the proof (free state, start at frame 0,
  // every edge) and the refutation (initial state, any start frame, real dependences only).
  struct CellReach {
    struct Why {
      int edge;
      size_t from;  // cell index (node position * frames + frame)
      z3::expr cond;
    };
    size_t frames = 0;
    std::vector<int> members;
    std::map<int, size_t> index;
    std::vector<z3::expr> sel, sel_t, reach, rank;
    std::vector<std::vector<Why>> why;
    z3::expr_vector escape;  // a post edge whose next tick is past the last frame
    std::vector<z3::expr> self;  // the start cell is reached again
    explicit CellReach(z3::context &c) : escape(c) {}
    size_t cell(int node, size_t t) const { return index.at(node) * frames + t; }
  };

  // `start`: the start node, or -1 for any; `any_start`: the start frame is any frame, else 0.
  CellReach cell_reach(Smt &smt, z3::solver &s, const std::vector<TransitionSystem::Frame> &fs, const std::vector<int> &members,
                       const std::vector<int> &inner, int start_node, bool any_start, bool real_only) {
    z3::context &ctx = smt.ctx;
    CellReach R(ctx);
    R.frames = fs.size();
    R.members = members;
    const size_t W = fs.size(), M = members.size();
    for (size_t i = 0; i < M; ++i) R.index[members[i]] = i;
    auto lit_at = [&](const Lit &l, size_t t) -> z3::expr {
      int64_t tt = static_cast<int64_t>(t) + l.offset;
      if (tt < 0 || tt >= static_cast<int64_t>(W)) return ctx.bool_val(true);  // outside the window: may hold
      const auto &f = fs[static_cast<size_t>(tt)];
      z3::expr v = f.v.at(l.cond);
      return f.p.at(l.cond) && (l.positive ? v : !v);
    };
    auto clock_at = [&](const std::string &v, size_t t) { return fs[t].ck[static_cast<size_t>(clocks.of(v))]; };
    // silent(v, a, b): the clock of v does not tick at any cycle strictly between a and b.
    std::map<std::tuple<std::string, size_t, size_t>, z3::expr> memo;
    std::function<z3::expr(const std::string &, size_t, size_t)> silent = [&](const std::string &v, size_t a, size_t b) -> z3::expr {
      if (b <= a + 1) return ctx.bool_val(true);
      auto key = std::make_tuple(v, a, b);
      if (auto it = memo.find(key); it != memo.end()) return it->second;
      z3::expr e = silent(v, a, b - 1) && !clock_at(v, b - 1);
      memo.emplace(key, e);
      return e;
    };
    auto fresh = [&](const char *what, size_t i) { return std::string(what) + "!" + std::to_string(i); };
    for (size_t i = 0; i < M; ++i)
      R.sel.push_back(start_node < 0 ? ctx.bool_const(fresh("sel", i).c_str()) : ctx.bool_val(members[i] == start_node));
    for (size_t t = 0; t < W; ++t) R.sel_t.push_back(any_start ? ctx.bool_const(fresh("selt", t).c_str()) : ctx.bool_val(t == 0));
    for (size_t i = 0; i < M * W; ++i) {
      R.reach.push_back(ctx.bool_const(fresh("reach", i).c_str()));
      R.rank.push_back(ctx.int_const(fresh("rank", i).c_str()));
    }
    auto exactly_one = [&](const std::vector<z3::expr> &xs) {
      z3::expr_vector v(ctx);
      for (auto &x : xs) v.push_back(x);
      s.add(z3::mk_or(v));
      s.add(z3::atmost(v, 1));
    };
    if (start_node < 0) exactly_one(R.sel);
    if (any_start) exactly_one(R.sel_t);
    R.why.resize(M * W);
    for (int k : inner) {
      const Edge &e = graph.edges[static_cast<size_t>(k)];
      // A refutation rests on dependences that are real at every tick where the guards hold.
      // (From the initial state, `->`'s second operand is one from the second tick on.)
      if (real_only && e.need == Edge::Need::FirstOnly) continue;
      const std::string &src = graph.names[e.from];
      z3::expr ticked = ctx.bool_val(false);  // the clock of src ticked before t
      for (size_t t = 0; t < W; ++t) {
        size_t a = R.cell(e.from, t);
        z3::expr start = R.sel[R.index.at(e.from)] && R.sel_t[t];
        z3::expr guard = ctx.bool_val(true);
        for (auto &l : e.guards) guard = guard && lit_at(l, t);
        if (real_only || e.offset != 0) guard = guard && clock_at(src, t);  // an absent cell needs only its clock
        if (real_only && e.need == Edge::Need::NotFirst) guard = guard && ticked;
        ticked = ticked || clock_at(src, t);
        auto justify = [&](size_t t2, const z3::expr &cond) {
          size_t b = R.cell(e.to, t2);
          R.why[b].push_back(CellReach::Why{k, a, guard && cond && (start || (R.reach[a] && R.rank[a] < R.rank[b]))});
        };
        if (e.offset == 0) justify(t, ctx.bool_val(true));
        else if (e.offset > 0) {  // the next tick of the post's clock, or past the window
          for (size_t t2 = t + 1; t2 < W; ++t2) justify(t2, silent(src, t, t2) && clock_at(src, t2));
          R.escape.push_back((start || R.reach[a]) && guard && silent(src, t, W));
        } else {  // the previous tick, when it is in the window
          for (size_t t2 = t; t2-- > 0;) justify(t2, silent(src, t2, t) && clock_at(src, t2));
        }
      }
    }
    for (size_t b = 0; b < M * W; ++b) {
      z3::expr_vector w(ctx);
      for (auto &y : R.why[b]) w.push_back(y.cond);
      s.add(z3::implies(R.reach[b], z3::mk_or(w)));
    }
    for (size_t i = 0; i < M; ++i)
      for (size_t t = 0; t < W; ++t) R.self.push_back(R.sel[i] && R.sel_t[t] && R.reach[i * W + t]);
    return R;
  }

  // The path of a model from the start cell to `to`, as "x at n needs y at n + 2 ...":
  // instantaneous steps are folded, steps in time are named with their offset.
  std::string describe_path(const CellReach &R, z3::model &m, size_t to) {
    std::vector<std::pair<int, size_t>> steps;  // (edge, target cell), backwards
    std::set<size_t> seen;
    size_t at = to;
    while (seen.insert(at).second && steps.size() < 10000) {
      bool found = false;
      for (auto &y : R.why[at]) {
        if (!m.eval(y.cond, true).is_true()) continue;
        steps.push_back({y.edge, at});
        at = y.from;
        found = true;
        break;
      }
      if (!found) break;
      size_t node = at / R.frames, t = at % R.frames;
      if (m.eval(R.sel[node] && R.sel_t[t], true).is_true()) break;  // the start cell
    }
    size_t t0 = at % R.frames;
    auto when = [&](size_t t) {
      int64_t d = static_cast<int64_t>(t) - static_cast<int64_t>(t0);
      return d == 0 ? std::string("n") : d > 0 ? "n + " + std::to_string(d) : "n - " + std::to_string(-d);
    };
    std::string s = "'" + graph.names[static_cast<size_t>(R.members[at / R.frames])] + "' at n";
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
      const Edge &e = graph.edges[static_cast<size_t>(it->first)];
      if (e.offset == 0 && std::next(it) != steps.rend()) continue;
      s += std::string(e.offset > 0 ? " needs (post) '" : e.offset < 0 ? " needs (fby/pre) '" : " needs '") +
           graph.names[static_cast<size_t>(e.to)] + "' at " + when(it->second % R.frames);
    }
    return s;
  }

  // Whether, over frames 0..B from a free state satisfying the proved invariants, some
  // cell reachable inside `members` from a start cell at frame 0 needs a cell past B, or
  // the start cell needs itself (Q(B) of proofs/productivity.md); nullopt: the solver could
  // not tell. On a model, `reason` says what was found and `self_node` is the start of a
  // closed walk (or stays -1).
  std::optional<bool> cells_escape(const std::vector<int> &members, const std::vector<int> &inner, const std::set<std::string> &roots,
                                   int64_t B, const Options &o, std::string &reason, int &self_node) {
    Smt smt(prog, clocks, o, &roots);
    z3::solver s = smt.solver();
    auto fs = smt.unroll(static_cast<int>(B) + 1, false, s);
    discover_invariants(smt);
    s.add(inv_at(smt, fs[0].state_in));
    CellReach R = cell_reach(smt, s, fs, members, inner, -1, false, false);
    z3::expr_vector bad = R.escape;
    for (auto &x : R.self) bad.push_back(x);
    s.add(z3::mk_or(bad));
    z3::check_result res = s.check();
    if (res == z3::unknown) return std::nullopt;
    if (res == z3::sat) {
      z3::model m = s.get_model();
      reason.clear();
      for (size_t i = 0; i < R.self.size() && reason.empty(); ++i)
        if (m.eval(R.self[i], true).is_true()) {
          reason = "a cell may need itself: " + describe_path(R, m, i);
          self_node = members[i / R.frames];
        }
      if (reason.empty()) reason = "a chain may go on past " + std::to_string(B) + " cycles";
    }
    return res == z3::sat;
  }

  // The edges and the roots (guards, clocks of the edges in time) of a set of edges.
  std::set<std::string> cell_roots(const std::vector<int> &inner) {
    std::set<std::string> roots;
    for (int k : inner) {
      const Edge &e = graph.edges[static_cast<size_t>(k)];
      for (auto &l : e.guards) roots.insert(l.cond);
      if (e.offset != 0) roots.insert(graph.names[static_cast<size_t>(e.from)]);
    }
    return roots;
  }

  // Where chains of several components compose (Figure 17: two backfills cut by the same
  // condition), the longest-path horizon adds their bounds. The same cell query over the
  // whole graph reads every guard at its own cycle and may prove a smaller one; it only
  // ever lowers a proved horizon, within a slice of the remaining time budget, and any
  // failure keeps H.
  int64_t tighten_horizon(int64_t H) {
    if (H <= 1) return H;
    auto left = opts.deadline - std::chrono::steady_clock::now();
    Options slice = opts;
    slice.deadline = std::chrono::steady_clock::now() + left / 4;
    std::vector<int> members, inner;
    for (size_t v = 0; v < graph.names.size(); ++v) members.push_back(static_cast<int>(v));
    for (size_t k = 0; k < graph.edges.size(); ++k) inner.push_back(static_cast<int>(k));
    std::set<std::string> roots = cell_roots(inner);
    std::string reason;
    int self_node = -1;
    int64_t lo = -1, hi = H;  // not proved at lo, proved (or given) at hi
    try {
      while (hi - lo > 1) {
        int64_t mid = (lo + hi) / 2;
        auto e = cells_escape(members, inner, roots, mid, slice, reason, self_node);
        if (!e) break;
        (*e ? lo : hi) = mid;
      }
    } catch (BudgetExhausted &) {
    } catch (z3::exception &) {
    }
    return hi;
  }

  // A component whose cycles go forward (post) and back (fby/pre) in time. Every cell of
  // it reaches, inside the component, only cells at most B cycles later, and none needs
  // itself: returns B; or a refutation (r falsified); or nullopt with a finding
  // (proofs/productivity.md, "Components that go back in time").
  //
  // Why this is sound: by strong induction on the cycle s of the start cell (u, s). A
  // dependence path from (u, s) either stays at cycles ≥ s, and then the query below (the
  // cells reachable at cycles s..s+B, over a free state that satisfies the proved
  // invariants) shows that it ends by s + B; or it reaches a cell (x, t) with t < s first,
  // and then by induction everything after it is at most t + B < s + B. A cell needing
  // itself lies on a closed walk; from its earliest cell (u, s) the walk stays at cycles
  // ≥ s, which the same query excludes (cells are seeded with the successors of (u, s),
  // which must not reach it).
  std::optional<int64_t> time_expanded_component(PropertyResult &r, const std::vector<int> &comp, int c,
                                                 const std::vector<int> &edges) {
    std::vector<int> inner, members;  // edges inside the component, its nodes
    for (int k : edges)
      if (comp[graph.edges[static_cast<size_t>(k)].to] == c) inner.push_back(k);
    for (size_t v = 0; v < comp.size(); ++v)
      if (comp[v] == c) members.push_back(static_cast<int>(v));
    const Edge *post = nullptr;
    for (int k : inner)
      if (!post && graph.edges[static_cast<size_t>(k)].offset > 0) post = &graph.edges[static_cast<size_t>(k)];
    Span where = post && post->eq ? post->eq->span : Span{};
    std::set<std::string> roots = cell_roots(inner);
    std::string last_reason;
    int self_node = -1;  // the start of a closed walk found (then a larger B cannot help)
    auto escapes = [&](int64_t B) { return cells_escape(members, inner, roots, B, opts, last_reason, self_node); };
    const int64_t Mx = std::min<int64_t>(max_h(), kMaxTimeExpanded);
    int64_t lo = -1, hi = -1;  // escapes at lo, proved at hi
    for (int64_t B = 0;; B = B ? std::min<int64_t>(2 * B, Mx) : 1) {
      auto e = escapes(B);
      if (!e) break;
      if (!*e) {
        hi = B;
        break;
      }
      lo = B;
      if (B == Mx || self_node >= 0) break;
    }
    if (hi >= 0) {
      while (hi - lo > 1) {
        int64_t mid = (lo + hi) / 2;
        auto e = escapes(mid);
        if (!e) break;
        (*e ? lo : hi) = mid;
      }
      return hi;
    }
    if (self_node >= 0 && refute_self_dependence(r, members, inner, roots, self_node)) return std::nullopt;
    r.findings.push_back(Finding{"productivity.unproved",
                                 "a backward chain through '" + (post ? graph.names[static_cast<size_t>(post->from)] : std::string()) +
                                     "' is in a cycle that also goes back in time (fby/pre), and no bound up to " +
                                     std::to_string(Mx) + " cycles was proved" +
                                     (last_reason.empty() ? std::string() : ": " + last_reason),
                                 where});
    return std::nullopt;
  }
  static constexpr int64_t kMaxTimeExpanded = 64;  // frames of the time-expanded query

  // A refutation: from the initial state, a cell that needs itself through dependences
  // that are real at every tick, with guards and clocks in an exactly encoded cone, on a
  // run that ends in a lasso (states equal at cycles i < j). Repeating the inputs of
  // [i, j) forever gives an admissible run on which the cycle, and so the cell's ⊥, stays
  // for any prefix length; the unrolled trace is replayed in the oracle.
  bool refute_self_dependence(PropertyResult &r, const std::vector<int> &members, const std::vector<int> &inner,
                              const std::set<std::string> &roots, int start_node) {
    // Exact: the guards, the clocks of every cell of the component (a refutation needs the
    // cells present) and the assumptions (the repeated run must be admissible).
    std::set<std::string> exact, encoded = roots;
    for (int k : inner)
      for (auto &l : graph.edges[static_cast<size_t>(k)].guards) exact.insert(l.cond);
    for (int v : members) {
      encoded.insert(graph.names[static_cast<size_t>(v)]);
      for (int t = clocks.of(graph.names[static_cast<size_t>(v)]); t >= 0 && clocks.terms[t].kind == core::ClockTerm::On;
           t = clocks.terms[t].parent)
        exact.insert(clocks.terms[t].cond);
    }
    for (auto &a : prog.assumptions) exact.insert(a.var);
    if (!exact_cone(exact)) return false;
    Smt smt(prog, clocks, opts, &encoded);
    z3::solver s = smt.solver();
    const int depth = opts.max_depth + 4;
    auto fs = smt.unroll(depth, true, s);
    CellReach R = cell_reach(smt, s, fs, members, inner, start_node, true, true);
    z3::expr_vector self(smt.ctx);
    for (auto &x : R.self) self.push_back(x);
    s.add(z3::mk_or(self));
    auto same = [&](size_t i, size_t j) {  // the state entering cycle i equals the one entering j
      const auto &sj = j < fs.size() ? fs[j].state_in : fs.back().state_out;
      z3::expr d = smt.ctx.bool_val(true);
      for (size_t k = 0; k < fs[i].state_in.size(); ++k) d = d && fs[i].state_in[k] == sj[k];
      return d;
    };
    z3::expr_vector loops(smt.ctx);
    for (size_t i = 0; i < fs.size(); ++i) loops.push_back(same(i, fs.size()));
    s.add(z3::mk_or(loops));
    if (s.check() != z3::sat) return false;
    z3::model m = s.get_model();
    size_t i0 = 0;
    while (!m.eval(loops[static_cast<unsigned>(i0)], true).is_true()) ++i0;
    size_t start = 0;
    while (!m.eval(R.self[start], true).is_true()) ++start;
    const std::string var = graph.names[static_cast<size_t>(members[start / R.frames])];
    const size_t at = start % R.frames;
    oracle::Inputs base = model_inputs(prog, fs, m);
    const size_t period = fs.size() - i0, len = fs.size() + 2 * period;
    Counterexample cx;
    cx.inputs.cycles = len;
    for (auto &[name, cells] : base.streams) {
      auto &out = cx.inputs.streams[name];
      for (size_t n = 0; n < len; ++n) out.push_back(cells[n < fs.size() ? n : i0 + (n - i0) % period]);
    }
    oracle::Result res = oracle::Oracle(cp, prog).run(cx.inputs);
    if (!res.has(var) || res.at(var, at).tag != oracle::Tag::Bot) return false;  // not replayed: no evidence
    std::string path = describe_path(R, m, start);
    cx.csv = trace_csv(prog, cx.inputs);
    cx.show = {var};
    cx.loop = std::make_pair(i0, fs.size() - 1);
    cx.required = Counterexample::Cell{var, at, false};
    cx.what = "'" + var + "' at cycle " + std::to_string(at) + " needs itself, and stays unknown for any prefix (the inputs of cycles " +
              std::to_string(i0) + ".." + std::to_string(fs.size() - 1) + " may repeat forever): " + path;
    const Edge *e0 = nullptr;
    for (int k : inner)
      if (!e0 && graph.edges[static_cast<size_t>(k)].offset > 0) e0 = &graph.edges[static_cast<size_t>(k)];
    r.findings.push_back(Finding{"productivity.self", "a cell needs itself through post and fby/pre, with the guards read at their "
                                                      "own cycles: " + path + " (n = " + std::to_string(at) + ")",
                                 e0 && e0->eq ? e0->eq->span : Span{}});
    r.cex = std::move(cx);
    r.verdict = Verdict::Falsified;
    return true;
  }

  // Whether every variable that `vars` depend on (values and presence) is encoded exactly
  // by the transition system: inputs, constants, bool/int memories and the operators the
  // model interprets; no real or tensor value, no fun, no post prophecy.
  bool exact_cone(const std::set<std::string> &vars) {
    std::map<std::string, const core::Equation *> def;
    for (auto &eq : prog.equations) def[eq.lhs] = &eq;
    std::set<std::string> seen;
    std::vector<std::string> todo(vars.begin(), vars.end());
    static const std::set<std::string> ops{"if", "not", "-", "and", "or", "xor", "=", "<>", "<", "<=", ">", ">=", "+", "*", "mod", "/"};
    while (!todo.empty()) {
      std::string v = todo.back();
      todo.pop_back();
      if (!seen.insert(v).second) continue;
      for (int t = clocks.of(v); t >= 0 && clocks.terms[t].kind == core::ClockTerm::On; t = clocks.terms[t].parent)
        todo.push_back(clocks.terms[t].cond);
      auto it = def.find(v);
      if (it == def.end()) continue;  // an input: free, hence any value is admissible
      const core::Equation &eq = *it->second;
      if (eq.type.kind != Type::Tensor || !eq.type.shape.empty() || eq.type.elem == Scalar::Real) return false;
      if (eq.prim == core::Prim::Post) return false;
      if (eq.prim == core::Prim::Apply && !eq.args.empty() && !ops.count(eq.fn)) return false;
      for (auto &a : eq.args) todo.push_back(a);
    }
    return true;
  }

  // A refutation of a chain: inputs under which the segment's guards hold at every cycle
  // from some i on.
  bool refute_forever(PropertyResult &r, const Segment &sg, const std::string &chain) {
    std::set<std::string> roots;
    for (auto &l : sg.guards) roots.insert(l.cond);
    const std::string &var = graph.names[graph.edges[sg.from_post].from];
    auto g = [&](const TransitionSystem::Frame &f) {
      z3::expr d = f.err.ctx().bool_val(true);
      for (auto &l : sg.guards) d = d && f.p.at(l.cond) && (l.positive ? f.v.at(l.cond) : !f.v.at(l.cond));
      return d;
    };
    auto cx = lasso(roots, roots, g, nullptr, var, 0);
    if (!cx) return false;
    cx->what = "'" + var + "' at cycle " + std::to_string(cx->show_at) + " is unknown, and stays so: the inputs of cycles " +
               std::to_string(cx->loop_from) + ".." + std::to_string(cx->loop_to) + " repeat forever, and with them (" +
               pred_str(sg.guards) + ")";
    r.findings.push_back(Finding{"productivity.unbounded",
                                 "the chain " + chain + " can go on forever: (" + pred_str(sg.guards) +
                                     ") can hold at every cycle (state a bound with 'assume always eventually ... within N;')",
                                 graph.edges[sg.from_post].eq ? graph.edges[sg.from_post].eq->span : Span{}});
    r.cex = std::move(*cx);
    r.verdict = Verdict::Falsified;
    return true;
  }

  // Looks for a lasso: states equal at cycles i < j, `g` at every cycle of [i, j) and
  // `first` (if given) at i - 1. When the cone of `roots` is encoded exactly, repeating the
  // inputs of [i, j) repeats the states, so `g` holds forever from i: an infinite run, not
  // a long one. The unrolled trace (longer than the search bound after i) is replayed in
  // the oracle, which must show `var` unknown at cycle i + shift; else no evidence.
  struct LassoCex : Counterexample {
    size_t show_at = 0, loop_from = 0, loop_to = 0;
  };
  std::optional<LassoCex> lasso(const std::set<std::string> &exact_roots, const std::set<std::string> &roots,
                                const std::function<z3::expr(const TransitionSystem::Frame &)> &g,
                                const std::function<z3::expr(const TransitionSystem::Frame &)> &first, const std::string &var,
                                int shift) {
    if (!exact_cone(exact_roots)) return std::nullopt;
    Smt smt(prog, clocks, opts, &roots);
    z3::solver s = smt.solver();
    int depth = opts.max_depth + 4;
    auto fs = smt.unroll(depth, true, s);
    auto same = [&](size_t i, size_t j) {
      z3::expr d = smt.ctx.bool_val(true);
      for (size_t k = 0; k < fs[i].state_in.size(); ++k) d = d && fs[i].state_in[k] == fs[j].state_in[k];
      return d;
    };
    auto loop = [&](size_t i, size_t j) {
      z3::expr run = same(i, j);
      if (first) run = run && first(fs[i - 1]);
      for (size_t t = i; t < j; ++t) run = run && g(fs[t]);
      return run;
    };
    z3::expr any = smt.ctx.bool_val(false);
    for (size_t i = 1; i < fs.size(); ++i)
      for (size_t j = i + 1; j < fs.size(); ++j) any = any || loop(i, j);
    s.add(any);
    if (s.check() != z3::sat) return std::nullopt;
    z3::model m = s.get_model();
    oracle::Inputs base = model_inputs(prog, fs, m);
    for (size_t i = 1; i < fs.size(); ++i)
      for (size_t j = i + 1; j < fs.size(); ++j) {
        if (!m.eval(loop(i, j), true).is_true()) continue;
        size_t period = j - i, len = i + static_cast<size_t>(max_h()) + 2;
        len += period - (len - i) % period;
        LassoCex cx;
        cx.inputs.cycles = len;
        for (auto &[name, cells] : base.streams) {
          auto &out = cx.inputs.streams[name];
          for (size_t n = 0; n < len; ++n) out.push_back(cells[n < j ? n : i + (n - i) % period]);
        }
        size_t at = static_cast<size_t>(static_cast<int64_t>(i) + shift);
        oracle::Result res = oracle::Oracle(cp, prog).run(cx.inputs);
        if (!res.has(var) || res.at(var, at).tag != oracle::Tag::Bot) return std::nullopt;  // not replayed
        cx.csv = trace_csv(prog, cx.inputs);
        cx.show = {var};
        cx.show_at = at;
        cx.required = Counterexample::Cell{var, at, false};
        cx.loop_from = i;
        cx.loop_to = j - 1;
        cx.loop = std::make_pair(i, j - 1);
        return cx;
      }
    return std::nullopt;
  }

  // A non-productive program: any admissible input shows the unknown cells.
  // Evidence for a chain that never ends (proved statically): the earliest unknown cell
  // under some admissible input. True when one was found.
  bool attach_unproductive_cex(PropertyResult &r) {
    if (r.cex) return true;
    oracle::Inputs in;
    in.cycles = 8;
    for (auto &v : prog.inputs) {
      auto &cells = in.streams[v.name];
      for (size_t n = 0; n < in.cycles; ++n)
        cells.push_back(oracle::Cell::of(array::Tensor::zeros(v.type.elem, array::concrete_shape(v.type.shape))));
    }
    oracle::Oracle orc(cp, prog);
    oracle::Result res = orc.run(in);
    for (size_t n = 0; n < in.cycles; ++n)
      for (auto &v : res.vars) {
        if (res.at(v, n).tag != oracle::Tag::Bot) continue;
        Counterexample cx;
        cx.inputs = in;
        cx.csv = trace_csv(prog, in);
        cx.show = {v};
        cx.required = Counterexample::Cell{v, n, false};
        cx.what = "'" + v + "' is unknown at cycle " + std::to_string(n) + " (and stays so for any prefix length)";
        r.cex = cx;
        return true;
      }
    return false;
  }

};

}  // namespace

Report check_program(const CheckedProgram &cp, const core::Program &prog, const Options &opts) {
  Checker c(cp, prog, opts);
  Report rep;
  rep.main = prog.main;
  // A solver failure is never a verdict: the property is "unknown", with the reason.
  auto unknown = [&](const char *kind, std::string why) {
    PropertyResult r;
    r.kind = kind;
    r.verdict = Verdict::Unknown;
    r.method = std::move(why);
    rep.properties.push_back(std::move(r));
  };
  auto guarded = [&](const char *kind, auto &&run) {
    try {
      rep.properties.push_back(run());
    } catch (z3::exception &e) {
      unknown(kind, std::string("the solver failed: ") + e.msg());
    } catch (BudgetExhausted &e) {
      unknown(kind, std::string(e.what()) + " (raise it with --timeout)");
    } catch (oracle::MemoryLimitError &e) {  // replaying a counterexample would not fit
      unknown(kind, std::string("a counterexample's replay needs more memory than the oracle's cap: ") + e.what());
    } catch (std::bad_alloc &) {
      unknown(kind, "out of memory while checking this property");
    }
  };

  guarded("clocks", [&] { return c.check_clocks(); });
  guarded("causality", [&] { return c.check_causality(); });
  guarded("productivity", [&] { return c.check_productivity(rep.properties.back()); });
  guarded("initialisation", [&] { return c.check_initialisation(); });
  for (auto &pp : prog.properties) {
    guarded("property", [&] { return c.check_property(pp); });
    rep.properties.back().name = pp.text;
    rep.properties.back().span = pp.span;
  }
  // Findings are read by users: generated names are spelt as rml run prints them and
  // --show accepts them (core::printed_names), not as the elaborated program holds them.
  auto printed = core::printed_names(prog);
  auto respell = [&](std::string &text) {
    std::string out;
    auto word = [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '$' || ch == '.'; };
    for (size_t i = 0; i < text.size();) {
      if (!word(text[i])) {
        out += text[i++];
        continue;
      }
      size_t j = i;
      while (j < text.size() && word(text[j])) ++j;
      std::string w = text.substr(i, j - i);
      auto it = printed.find(w);
      out += it != printed.end() ? it->second : w;
      i = j;
    }
    text = std::move(out);
  };
  for (auto &p : rep.properties) {
    for (auto &f : p.findings) respell(f.message);
    if (p.cex) respell(p.cex->what);
  }
  // Assumptions that no input satisfies prove everything: a proof under them says nothing.
  bool vacuous = false;
  try {
    vacuous = c.assumptions_vacuous();
  } catch (std::exception &) {  // a solver failure or the time budget: no finding
  }
  if (vacuous)
    for (auto &p : rep.properties) {
      p.findings.push_back(Finding{"assume.vacuous",
                                   "the assumptions of '" + prog.main + "' admit no input of " + std::to_string(c.vacuous_depth) +
                                       " cycles: every proof under them is vacuous",
                                   prog.assumptions.front().span});
      if (p.verdict == Verdict::Valid) {
        p.verdict = Verdict::Unknown;
        p.horizon.reset();
        p.method = "vacuous: the assumptions contradict each other (or the program), so this proof says nothing";
      }
    }
  return rep;
}

}  // namespace rml::check
