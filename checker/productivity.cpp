// The productivity property (semantics.md §9.3): per strongly connected component of the
// needs graph, a horizon within which every backward chain is cut, or a refutation. Dead
// edges are dropped first; the component analyses are in backward_chains.cpp and
// time_expanded.cpp.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

PropertyResult Checker::check_productivity(const PropertyResult &causality) {
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

// Drops the edges of backward cycles whose guard can never hold (proved: no run of the
// guard from the initial state, by k-induction), e.g. `when not bp` where bp is constant
// true: they are never dependences, so they cannot make a chain or a cycle.
void Checker::drop_dead_edges() {
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

PropertyResult Checker::productivity_of_chains(PropertyResult r) {
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
  std::vector<std::vector<int>> members_of(static_cast<size_t>(count));  // once: a scan per component was quadratic
  for (size_t v = 0; v < comp.size(); ++v) members_of[static_cast<size_t>(comp[v])].push_back(static_cast<int>(v));
  // One component, once the components it reads are solved.
  auto solve = [&](int c) {
    const std::vector<int> &members = members_of[static_cast<size_t>(c)];
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
  // The components in dependence order, by a depth-first walk with its own stack (a chain
  // of 10^5 components would overflow the call stack).
  std::vector<char> state(static_cast<size_t>(count), 0);  // 0 new, 1 on the walk, 2 solved
  std::vector<std::pair<int, size_t>> walk;                 // (component, next edge of it to follow)
  for (int c0 = 0; c0 < count; ++c0) {
    if (state[static_cast<size_t>(c0)]) continue;
    walk.emplace_back(c0, 0);
    state[static_cast<size_t>(c0)] = 1;
    while (!walk.empty()) {
      auto &[c, next] = walk.back();
      const std::vector<int> &edges = by_comp[static_cast<size_t>(c)];
      bool pushed = false;
      while (!pushed && next < edges.size()) {  // `next` dangles once a push moved the walk
        int d = comp[graph.edges[static_cast<size_t>(edges[next++])].to];
        if (d == c || state[static_cast<size_t>(d)]) continue;
        state[static_cast<size_t>(d)] = 1;
        walk.emplace_back(d, 0);
        pushed = true;
      }
      if (pushed) continue;
      solve(c);
      state[static_cast<size_t>(c)] = 2;
      walk.pop_back();
    }
  }
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

bool Checker::has_unbounded_assumption() const {
  for (auto &a : prog.assumptions)
    if (a.eventually && a.within < 0) return true;
  return false;
}

// The search bound for horizons: the option, raised to cover every `within N` of the
// assumptions (a bound the user states must be searchable), capped so that unrollings
// stay finite; past it the verdict is "unknown", never "falsified".
int64_t Checker::max_h() const {
  int64_t m = opts.max_horizon;
  for (auto &a : prog.assumptions)
    if (a.eventually && a.within >= 0) m = std::max<int64_t>(m, std::min<int64_t>(2 * a.within + 2, kMaxSearchedHorizon));
  return m;
}

}  // namespace rml::check
