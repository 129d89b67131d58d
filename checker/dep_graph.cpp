#include "checker/dep_graph.hpp"

#include <algorithm>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include "core/primitives.hpp"

namespace rml::check {

DepGraph build_graph(const core::Program &p, const core::Clocks &ck) {
  DepGraph g;
  for (auto &v : p.inputs) g.node(v.name);
  auto clock_conds = [&](const std::string &y, const core::Equation *eq) {
    for (int t = ck.of(y); t >= 0 && ck.terms[t].kind == core::ClockTerm::On; t = ck.terms[t].parent)
      g.add(y, ck.terms[t].cond, 0, {}, eq);
  };
  // One edge per operand, as the primitive table says it is read (core/primitives.hpp);
  // a primitive on the clock of its context also needs that clock's conditions. Guards
  // come before the operands they guard (node numbers, and so the order in which cycles
  // are found and described, follow the order of the edges).
  for (auto &eq : p.equations) {
    const std::string &y = eq.lhs;
    g.node(y);
    if (core::takes_context_clock(eq)) clock_conds(y, &eq);
    std::vector<size_t> order;
    for (size_t k = 0; k < eq.args.size(); ++k)
      for (size_t j = 0; j < eq.args.size(); ++j)
        if (core::use_of(eq, j).guard == static_cast<int>(k)) {
          order.push_back(k);
          break;
        }
    for (size_t k = 0; k < eq.args.size(); ++k)
      if (std::find(order.begin(), order.end(), k) == order.end()) order.push_back(k);
    for (size_t k : order) {
      const core::OperandUse &u = core::use_of(eq, k);
      std::vector<Lit> guards;
      if (u.guard_kind != core::GuardKind::None) {
        bool positive = u.guard_kind == core::GuardKind::OnTrue || (u.guard_kind == core::GuardKind::OnPolarity && eq.positive);
        guards.push_back(Lit{eq.args.at(static_cast<size_t>(u.guard)), positive, 0});
      }
      Edge::Need need = u.ticks == core::Ticks::First ? Edge::Need::FirstOnly
                        : u.ticks == core::Ticks::Later ? Edge::Need::NotFirst
                                                        : Edge::Need::Always;
      g.add(y, eq.args[k], u.offset, std::move(guards), &eq, need);
    }
  }
  return g;
}

std::vector<std::vector<int>> edges_by_component(const DepGraph &g, const std::vector<int> &comp, int count) {
  std::vector<std::vector<int>> out(static_cast<size_t>(count));
  for (size_t k = 0; k < g.edges.size(); ++k) out[static_cast<size_t>(comp[g.edges[k].from])].push_back(static_cast<int>(k));
  return out;
}

std::vector<int> components(const DepGraph &g, const std::function<bool(const Edge &)> &keep, int &count) {
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  G bg(g.names.size());
  for (auto &e : g.edges)
    if (keep(e)) boost::add_edge(static_cast<size_t>(e.from), static_cast<size_t>(e.to), bg);
  std::vector<int> comp(g.names.size());
  count = boost::strong_components(bg, boost::make_iterator_property_map(comp.begin(), boost::get(boost::vertex_index, bg)));
  return comp;
}

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

}  // namespace rml::check
