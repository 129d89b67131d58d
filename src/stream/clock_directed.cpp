// The clock-directed order and the nil analysis (clock_directed.hpp).
#include "stream/clock_directed.hpp"

#include <algorithm>
#include <queue>

#include "core/primitives.hpp"

namespace rml::stream {

std::optional<std::vector<int>> clock_directed_order(const Plan &plan, const core::Clocks &clocks) {
  const size_t N = plan.steps.size();
  std::vector<int> producer(plan.slots.size(), -1), pos(N);
  for (size_t k = 0; k < N; ++k) producer[static_cast<size_t>(plan.steps[k].out)] = static_cast<int>(k);
  size_t p = 0;
  for (auto &comp : plan.schedule)
    for (int k : comp) pos[static_cast<size_t>(k)] = static_cast<int>(p++);
  std::vector<std::vector<int>> readers(N);
  std::vector<int> missing(N, 0);
  for (size_t k = 0; k < N; ++k) {
    const Step &st = plan.steps[k];
    std::vector<int> deps;
    for (size_t j = 0; j < st.in.size(); ++j)
      if (!st.eq || core::use_of(*st.eq, j).offset == 0) deps.push_back(st.in[j]);
    if (st.clock >= 0) deps.push_back(st.clock);
    if (st.eq) deps.push_back(plan.clock_slots[static_cast<size_t>(clocks.of(st.eq->lhs))]);
    std::sort(deps.begin(), deps.end());
    deps.erase(std::unique(deps.begin(), deps.end()), deps.end());
    for (int c : deps)
      if (int q = producer[static_cast<size_t>(c)]; q >= 0 && q != static_cast<int>(k))
        readers[static_cast<size_t>(q)].push_back(static_cast<int>(k)), ++missing[k];
  }
  auto later = [&](int a, int b) { return pos[static_cast<size_t>(a)] > pos[static_cast<size_t>(b)]; };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  for (size_t k = 0; k < N; ++k)
    if (!missing[k]) ready.push(static_cast<int>(k));
  std::vector<int> order;
  while (!ready.empty()) {
    int k = ready.top();
    ready.pop();
    order.push_back(k);
    for (int r : readers[static_cast<size_t>(k)])
      if (--missing[static_cast<size_t>(r)] == 0) ready.push(r);
  }
  if (order.size() != N) return std::nullopt;
  return order;
}

std::set<std::string> may_nil(const core::Program &prog) {
  std::set<std::string> nil;
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &eq : prog.equations) {
      if (nil.count(eq.lhs)) continue;
      bool n = eq.prim == core::Prim::Pre;
      for (size_t k = 0; k < eq.args.size(); ++k)
        if (core::use_of(eq, k).nil_flows && nil.count(eq.args[k])) n = true;
      if (n) nil.insert(eq.lhs), changed = true;
    }
  }
  return nil;
}

}  // namespace rml::stream
