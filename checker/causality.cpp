// The causality property (semantics.md §9.2): no instantaneous cycle in the needs graph,
// except through exclusive when/merge branches (inconsistent guards).
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

PropertyResult Checker::check_causality() {
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

}  // namespace rml::check
