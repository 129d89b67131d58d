// Productivity of a component with a post inside (semantics.md §11): a chain walks one
// segment (an instantaneous path between posts) per cycle while the disjunction of the
// segments' guards holds; runs of that disjunction are bounded by Z3.
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

auto Checker::segments(const std::vector<int> &comp, int c, const std::vector<int> &posts, bool &truncated)
    -> std::vector<Segment> {
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

std::string Checker::describe_segment(const Segment &sg) {
  const Edge &p = graph.edges[sg.from_post];
  std::string s = graph.names[p.from] + " needs (next tick) " + graph.names[p.to];
  for (int k : sg.edges) {
    const Edge &e = graph.edges[k];
    s += " needs " + graph.names[e.to];
    for (auto &l : e.guards) s += std::string(" [when ") + (l.positive ? "" : "not ") + l.cond + "]";
  }
  return s;
}

std::string Checker::pred_str(const std::vector<Lit> &lits) {
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
std::optional<int64_t> Checker::backward_component(PropertyResult &r, const std::vector<int> &comp, int c,
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
    // An `if` on the chain computes both branches at every cycle: a post meant to be read
    // only where a condition holds belongs in merge/when, the lazy form.
    bool through_if = false;
    for (int k : cy.edges) {
      const core::Equation *eq = graph.edges[k].eq;
      through_if |= eq && eq->prim == core::Prim::Apply && eq->op == core::ApplyOp::If;
    }
    const std::string if_hint = through_if ? "; the chain goes through an 'if', which computes both branches at every cycle: "
                                             "to read a post only where c holds, write merge c (a when c) (b when not c)"
                                           : "";
    r.findings.push_back(Finding{cy.weight == 0 ? "productivity.self" : "productivity.unbounded",
                                 cy.weight == 0 ? "a cell needs itself through post and fby: " + describe_cycle(graph, cy) + if_hint
                                                : "a chain of backward dependences never ends: " + describe_cycle(graph, cy) +
                                                      " (every cell needs a later one, unconditionally)" + if_hint,
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

}  // namespace rml::check
