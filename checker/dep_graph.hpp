// The needs graph of an elaborated node (semantics.md §11): "y at cycle n needs x at cycle
// n + offset when the guard literals hold", one edge per operand of each primitive; its
// strongly connected components (Boost.Graph) and the simple cycles inside one.
#pragma once
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "syntax/source.hpp"

namespace rml::check {

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

DepGraph build_graph(const core::Program &p, const core::Clocks &ck);

// Edges grouped by the component of their source.
std::vector<std::vector<int>> edges_by_component(const DepGraph &g, const std::vector<int> &comp, int count);

// Strongly connected components (Boost.Graph) of the subgraph of selected edges.
std::vector<int> components(const DepGraph &g, const std::function<bool(const Edge &)> &keep, int &count);

// A simple cycle: its edges in order.
struct Cycle {
  std::vector<int> edges;
  int weight = 0;
  std::vector<Lit> guards;  // offsets relative to the cycle's start
};

// Whether literals can hold together (the same condition at the same offset must agree).
bool consistent(const std::vector<Lit> &ls);

// Enumerates simple cycles inside one component (edges kept by `keep`), at most `limit`
// of them; `truncated` tells whether the enumeration stopped early.
std::vector<Cycle> cycles_in(const DepGraph &g, const std::vector<int> &comp, int c, const std::function<bool(const Edge &)> &keep,
                             size_t limit, bool &truncated);

std::string describe_cycle(const DepGraph &g, const Cycle &cy);

Span cycle_span(const DepGraph &g, const Cycle &cy);

}  // namespace rml::check
