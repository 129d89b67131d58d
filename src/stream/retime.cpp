// Lags and the order of a push for a node with post (retime.hpp): the reads of each rule
// of the window runtime (rml_window.hpp; runner.cpp has the same rules) as edges, the least
// lags by longest paths, the slack-0 edges sorted topologically.
#include "stream/retime.hpp"

#include <algorithm>
#include <queue>

namespace rml::stream {

namespace {

struct Edge {
  int from, to;  // producer step, reader step
  int d;         // the cycle read, relative to the reader's
};

}  // namespace

std::optional<Retiming> retime(const Plan &p, std::string *why, int horizon) {
  auto refuse = [&](const std::string &reason) -> std::optional<Retiming> {
    if (why) *why = reason;
    return std::nullopt;
  };
  const size_t N = p.steps.size();
  std::vector<int> producer(p.slots.size(), -1);
  for (size_t k = 0; k < N; ++k) producer[static_cast<size_t>(p.steps[k].out)] = static_cast<int>(k);
  std::vector<bool> is_input(p.slots.size(), false);
  for (int c : p.input_slots) is_input[static_cast<size_t>(c)] = true;
  int base = -1;
  for (auto &st : p.steps)
    if (st.kind == StepKind::ClockBase) base = st.out;
  // A condition that is a constant of the base clock: in the fast sweep the base clock
  // ticks at every cycle, so the condition is that literal at every cycle.
  auto constant_bool = [&](int c) -> std::optional<bool> {
    int j = producer[static_cast<size_t>(c)];
    if (j < 0) return std::nullopt;
    const Step &st = p.steps[static_cast<size_t>(j)];
    if (st.kind != StepKind::Const || st.clock != base || !st.eq || st.eq->lit.type != Scalar::Bool) return std::nullopt;
    return st.eq->lit.b;
  };

  std::vector<Edge> edges;
  std::vector<std::pair<int, std::pair<int, Retiming::Expect>>> checks;  // (operand slot, (reader, expect))
  std::string bad;
  auto read = [&](int c, int k, int d) {
    int j = producer[static_cast<size_t>(c)];
    if (j >= 0) edges.push_back({j, k, d});
    else if (!is_input[static_cast<size_t>(c)] && bad.empty()) bad = "'" + p.slots[static_cast<size_t>(c)].name + "' has no equation";
  };
  auto check = [&](int c, int k, Retiming::Expect e) {
    if (producer[static_cast<size_t>(c)] >= 0) checks.push_back({c, {k, e}});
  };
  for (size_t kk = 0; kk < N; ++kk) {
    const Step &st = p.steps[kk];
    int k = static_cast<int>(kk);
    auto in = [&](size_t j) { return st.in.at(j); };
    switch (st.kind) {
      case StepKind::ClockBase: break;  // the inputs, there at the push
      case StepKind::ClockNever:
      case StepKind::ClockOn:
      case StepKind::Copy:
      case StepKind::Apply:
        for (int c : st.in) read(c, k, 0);
        if (st.clock >= 0) read(st.clock, k, 0);  // an application without operands
        break;
      case StepKind::Const: read(st.clock, k, 0); break;
      case StepKind::When: {
        read(in(1), k, 0);
        auto cv = constant_bool(in(1));
        if (cv && *cv != st.positive) check(in(0), k, Retiming::Expect::Present);  // absent, or an error
        else read(in(0), k, 0);
        break;
      }
      case StepKind::Merge: {
        read(in(0), k, 0);
        auto cv = constant_bool(in(0));
        if (cv) {
          read(in(*cv ? 1 : 2), k, 0);
          check(in(*cv ? 2 : 1), k, Retiming::Expect::Absent);
        } else {
          read(in(1), k, 0), read(in(2), k, 0);
        }
        break;
      }
      case StepKind::Fby:  // its first operand (and its ticks) now, the second at the previous tick
        read(in(0), k, 0), read(in(1), k, -1);
        check(in(1), k, Retiming::Expect::SameClock);
        break;
      case StepKind::Arrow: read(in(0), k, 0), read(in(1), k, 0); break;
      case StepKind::Pre:
        read(st.clock, k, 0), read(in(0), k, -1);
        check(in(0), k, Retiming::Expect::SameClock);
        break;
      case StepKind::Post: {
        // The next tick of its clock: the next cycle on the base clock; on a sampled clock,
        // within `horizon` cycles (where it is not, the rule leaves the cell unknown and the
        // sweep hands over to the worklist).
        if (st.clock != base && horizon < 1)
          return refuse("a post off the base clock ('" + p.slots[static_cast<size_t>(st.out)].name + "') without a horizon");
        const int ahead = st.clock == base ? 1 : horizon;
        read(st.clock, k, 0), read(st.clock, k, ahead), read(in(0), k, 0), read(in(0), k, ahead);
        break;
      }
    }
  }
  if (!bad.empty()) return refuse(bad);

  // Least lags: longest paths from 0 (Bellman-Ford; still growing after N rounds: a cycle
  // of positive weight).
  Retiming r;
  r.lag.assign(N, 0);
  bool changed = true;
  for (size_t round = 0; changed; ++round) {
    if (round > N) return refuse("a cycle through post (a backward recurrence)");
    changed = false;
    for (auto &e : edges)
      if (r.lag[static_cast<size_t>(e.to)] < r.lag[static_cast<size_t>(e.from)] + e.d)
        r.lag[static_cast<size_t>(e.to)] = r.lag[static_cast<size_t>(e.from)] + e.d, changed = true;
  }
  // The order of a push: the slack-0 edges topologically, ties by the plan's schedule.
  std::vector<int> rank(N);
  {
    int q = 0;
    for (auto &comp : p.schedule)
      for (int k : comp) rank[static_cast<size_t>(k)] = q++;
  }
  std::vector<std::vector<int>> next(N);
  std::vector<int> indeg(N, 0);
  for (auto &e : edges)
    if (r.lag[static_cast<size_t>(e.to)] == r.lag[static_cast<size_t>(e.from)] + e.d) {
      if (e.from == e.to) return refuse("'" + p.slots[static_cast<size_t>(p.steps[static_cast<size_t>(e.to)].out)].name + "' reads itself");
      next[static_cast<size_t>(e.from)].push_back(e.to), ++indeg[static_cast<size_t>(e.to)];
    }
  auto later = [&](int a, int b) { return rank[static_cast<size_t>(a)] > rank[static_cast<size_t>(b)]; };
  std::priority_queue<int, std::vector<int>, decltype(later)> ready(later);
  for (size_t k = 0; k < N; ++k)
    if (indeg[k] == 0) ready.push(static_cast<int>(k));
  while (!ready.empty()) {
    int k = ready.top();
    ready.pop();
    r.order.push_back(k);
    for (int m : next[static_cast<size_t>(k)])
      if (--indeg[static_cast<size_t>(m)] == 0) ready.push(m);
  }
  if (r.order.size() != N) return refuse("a cycle within a cycle (through exclusive when/merge branches)");
  std::vector<int> pos(N);
  for (size_t q = 0; q < N; ++q) pos[static_cast<size_t>(r.order[q])] = static_cast<int>(q);
  // A check is needed where the reader's cell comes before the operand's within the pushes
  // (at cycle n: the push n + L, then the position).
  r.checks.assign(N, {});
  for (auto &[c, ke] : checks) {
    int j = producer[static_cast<size_t>(c)], k = ke.first;
    auto lj = r.lag[static_cast<size_t>(j)], lk = r.lag[static_cast<size_t>(k)];
    if (lj > lk || (lj == lk && pos[static_cast<size_t>(j)] > pos[static_cast<size_t>(k)]))
      r.checks[static_cast<size_t>(j)].push_back({k, ke.second});
  }
  r.max_lag = N ? *std::max_element(r.lag.begin(), r.lag.end()) : 0;
  return r;
}

}  // namespace rml::stream
