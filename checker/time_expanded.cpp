// Components where a backward chain and an fby/pre read each other, analysed on cells over
// a window of frames (a least-fixpoint encoding; proofs/productivity.md "Components that
// go back in time"); the horizon tightened over the whole graph.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

// `start`: the start node, or -1 for any; `any_start`: the start frame is any frame, else 0.
auto Checker::cell_reach(Smt &smt, z3::solver &s, const std::vector<TransitionSystem::Frame> &fs, const std::vector<int> &members,
                         const std::vector<int> &inner, int start_node, bool any_start, bool real_only) -> CellReach {
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
std::string Checker::describe_path(const CellReach &R, z3::model &m, size_t to) {
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
std::optional<bool> Checker::cells_escape(const std::vector<int> &members, const std::vector<int> &inner,
                                          const std::set<std::string> &roots, int64_t B, const Budget &b, std::string &reason,
                                          int &self_node) {
  Smt smt(prog, clocks, b, &roots);
  smt.ts->free_values = free_values;  // Checker::free_values
  z3::solver s = smt.solver();
  auto fs = smt.unroll(static_cast<int>(B) + 1, false, s);
  discover_invariants(smt);
  s.add(inv_at(smt, fs[0].state_in));
  CellReach R = cell_reach(smt, s, fs, members, inner, -1, false, false);
  z3::expr_vector bad = R.escape;
  for (auto &x : R.self) bad.push_back(x);
  s.add(z3::mk_or(bad));
  z3::check_result res = smt.check(s);
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
std::set<std::string> Checker::cell_roots(const std::vector<int> &inner) {
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
// ever lowers a proved horizon, within a quarter of what is left of the budget, and any
// failure keeps H.
int64_t Checker::tighten_horizon(int64_t H) {
  if (H <= 1) return H;
  Budget slice = budget.slice(1, 4);
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
std::optional<int64_t> Checker::time_expanded_component(PropertyResult &r, const std::vector<int> &comp, int c,
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
  auto escapes = [&](int64_t B) { return cells_escape(members, inner, roots, B, budget, last_reason, self_node); };
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

// A refutation: from the initial state, a cell that needs itself through dependences
// that are real at every tick, with guards and clocks in an exactly encoded cone, on a
// run that ends in a lasso (states equal at cycles i < j). Repeating the inputs of
// [i, j) forever gives an admissible run on which the cycle, and so the cell's ⊥, stays
// for any prefix length; the unrolled trace is replayed in the oracle.
bool Checker::refute_self_dependence(PropertyResult &r, const std::vector<int> &members, const std::vector<int> &inner,
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
  Smt smt(prog, clocks, budget, &encoded);
  smt.ts->free_values = free_values;  // Checker::free_values
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
  if (smt.check(s) != z3::sat) return false;
  z3::model m = s.get_model();
  size_t i0 = 0;
  while (!m.eval(loops[static_cast<unsigned>(i0)], true).is_true()) ++i0;
  size_t start = 0;
  while (!m.eval(R.self[start], true).is_true()) ++start;
  const std::string var = graph.names[static_cast<size_t>(members[start / R.frames])];
  const size_t at = start % R.frames;
  oracle::Inputs base = model_inputs(cp, prog, clocks, fs, m);
  const size_t period = fs.size() - i0, len = fs.size() + 2 * period;
  Counterexample cx;
  cx.inputs.cycles = len;
  for (auto &[name, cells] : base.streams) {
    auto &out = cx.inputs.streams[name];
    for (size_t n = 0; n < len; ++n) out.push_back(cells[n < fs.size() ? n : i0 + (n - i0) % period]);
  }
  oracle::Result res = oracle::Oracle(cp, prog, clocks, replay_options()).run(cx.inputs);
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

}  // namespace rml::check
