// Building a Plan: slots, steps and readers from the elaborated node and the primitive
// table, and the static schedule of a cycle (Boost.Graph's strongly connected components).
#include "stream/plan.hpp"

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>

#include "array/eval.hpp"
#include "core/primitives.hpp"

namespace rml::stream {

int Plan::slot(const std::string &var) const {
  auto it = slot_of.find(var);
  if (it == slot_of.end()) throw PlanError("internal: no slot for '" + var + "'");
  return it->second;
}

namespace {

int add_slot(Plan &p, const std::string &name, const Type &t, bool clock) {
  Slot s;
  s.name = name;
  s.clock = clock;
  if (!clock) {
    if (t.kind != Type::Tensor) throw PlanError("variable '" + name + "' has no concrete type");
    s.elem = t.elem;
    s.shape = array::concrete_shape(t.shape);
    for (auto d : s.shape) s.numel *= static_cast<size_t>(d);
  }
  size_t &words = s.elem == Scalar::Real ? p.real_words : p.int_words;
  s.offset = words;
  words += s.numel;
  p.slots.push_back(std::move(s));
  return static_cast<int>(p.slots.size()) - 1;
}

StepKind kind_of(core::Prim prim) {
  switch (prim) {
    case core::Prim::Const: return StepKind::Const;
    case core::Prim::Copy: return StepKind::Copy;
    case core::Prim::Apply: return StepKind::Apply;
    case core::Prim::When: return StepKind::When;
    case core::Prim::Merge: return StepKind::Merge;
    case core::Prim::Fby: return StepKind::Fby;
    case core::Prim::Pre: return StepKind::Pre;
    case core::Prim::Arrow: return StepKind::Arrow;
    case core::Prim::Post: return StepKind::Post;
  }
  throw PlanError("internal: unknown primitive");
}

// The schedule: one vertex per step, an edge producer -> reader for every operand read at
// the same cycle (offset 0, core/primitives.hpp) and every context clock read; Tarjan's
// algorithm numbers the components in reverse topological order. The state primitives
// (fby, pre, post) also look at their delayed operand's presence at the cycle: that
// producer goes first too where this closes no cycle (it does in `x = 0 fby x`), so that
// the sweep rarely has to run a step twice. Only speed depends on those soft edges.
void schedule(Plan &p) {
  using G = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;
  const size_t N = p.steps.size();
  G hard(N), both(N);
  std::vector<int> producer(p.slots.size(), -1);
  for (size_t k = 0; k < N; ++k) producer[p.steps[k].out] = static_cast<int>(k);
  auto reads = [&](const Step &st, bool same_cycle) {
    std::vector<int> deps;
    for (size_t j = 0; j < st.in.size(); ++j)
      if (!st.eq || (core::use_of(*st.eq, j).offset == 0) == same_cycle) deps.push_back(st.in[j]);
    if (same_cycle && st.clock >= 0) deps.push_back(st.clock);
    return deps;
  };
  for (size_t k = 0; k < N; ++k) {
    for (int c : reads(p.steps[k], true))
      if (producer[c] >= 0) boost::add_edge(static_cast<size_t>(producer[c]), k, hard), boost::add_edge(static_cast<size_t>(producer[c]), k, both);
    for (int c : reads(p.steps[k], false))
      if (producer[c] >= 0) boost::add_edge(static_cast<size_t>(producer[c]), k, both);
  }
  std::vector<int> hard_comp(N), both_comp(N);
  int nh = N ? boost::strong_components(hard, hard_comp.data()) : 0;
  int nb = N ? boost::strong_components(both, both_comp.data()) : 0;
  // Topological ranks (Tarjan numbers sinks first); sorted by the soft order, then the hard.
  std::vector<size_t> order(N);
  for (size_t k = 0; k < N; ++k) order[k] = k;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    int ra = nb - 1 - both_comp[a], rb = nb - 1 - both_comp[b];
    if (ra != rb) return ra < rb;
    return nh - 1 - hard_comp[a] < nh - 1 - hard_comp[b];
  });
  p.schedule.clear();
  for (size_t idx = 0; idx < N; ++idx) {
    size_t k = order[idx];
    if (idx == 0 || hard_comp[k] != hard_comp[order[idx - 1]]) p.schedule.emplace_back();
    p.schedule.back().push_back(static_cast<int>(k));
  }
  // Checked, not trusted: every same-cycle operand is produced in an earlier component or
  // in the same one, and a component is one strongly connected set.
  std::vector<int> at(N);
  for (size_t c = 0; c < p.schedule.size(); ++c)
    for (int k : p.schedule[c]) at[static_cast<size_t>(k)] = static_cast<int>(c);
  if (p.schedule.size() != static_cast<size_t>(nh)) throw PlanError("internal: a component of the schedule is split");
  for (size_t k = 0; k < N; ++k)
    for (int c : reads(p.steps[k], true))
      if (producer[c] >= 0 && at[static_cast<size_t>(producer[c])] > at[k])
        throw PlanError("internal: the schedule runs '" + p.slots[p.steps[k].out].name + "' before its operand '" +
                        p.slots[c].name + "'");
}

}  // namespace

Plan build_plan(const core::Program &prog, const core::Clocks &clocks) {
  Plan p;
  p.main = prog.main;
  for (size_t t = 0; t < clocks.terms.size(); ++t)
    p.clock_slots.push_back(add_slot(p, "ck:" + clocks.str(static_cast<int>(t)), Type::scalar(Scalar::Bool), true));
  for (auto &v : prog.inputs) {
    int c = add_slot(p, v.name, v.type, false);
    p.slot_of[v.name] = c;
    p.input_slots.push_back(c);
  }
  for (auto &v : prog.inputs) p.input_clock_slots.push_back(p.clock_slots[static_cast<size_t>(clocks.of(v.name))]);
  for (auto &eq : prog.equations) p.slot_of[eq.lhs] = add_slot(p, eq.lhs, eq.type, false);
  for (auto *vars : {&prog.outputs, &prog.locals})
    for (auto &v : *vars)
      if (!p.slot_of.count(v.name)) p.slot_of[v.name] = add_slot(p, v.name, v.type, false);
  p.clock_of.assign(p.slots.size(), -1);
  for (auto &[var, slot] : p.slot_of)
    if (auto it = clocks.of_var.find(var); it != clocks.of_var.end())
      p.clock_of[static_cast<size_t>(slot)] = p.clock_slots[static_cast<size_t>(it->second)];
  // Clock steps, parents first (the terms' order).
  for (size_t t = 0; t < clocks.terms.size(); ++t) {
    const core::ClockTerm &ct = clocks.terms[t];
    Step st{};
    st.out = p.clock_slots[t];
    switch (ct.kind) {
      case core::ClockTerm::Base: st.kind = StepKind::ClockBase, st.in = p.input_slots; break;
      case core::ClockTerm::Never: st.kind = StepKind::ClockNever, st.in = {p.clock_slots[0]}; break;
      case core::ClockTerm::On:
        st.kind = StepKind::ClockOn;
        st.in = {p.clock_slots[static_cast<size_t>(ct.parent)], p.slot(ct.cond)};
        st.positive = ct.positive;
        break;
    }
    p.steps.push_back(std::move(st));
  }
  for (auto &eq : prog.equations) {
    Step st{};
    st.kind = kind_of(eq.prim);
    st.eq = &eq;
    st.out = p.slot(eq.lhs);
    for (auto &a : eq.args) st.in.push_back(p.slot(a));
    if (core::takes_context_clock(eq)) st.clock = p.clock_slots[static_cast<size_t>(clocks.of(eq.lhs))];
    st.positive = eq.positive;
    p.has_post |= eq.prim == core::Prim::Post;
    if (eq.prim == core::Prim::Apply && !st.in.empty() && p.slots[st.out].numel == 1 &&
        std::all_of(st.in.begin(), st.in.end(), [&](int c) { return p.slots[c].numel == 1; })) {
      switch (eq.op) {
        case core::ApplyOp::If: st.scalar = ScalarOp::If; break;
        case core::ApplyOp::Unary: st.scalar = ScalarOp::Unary, st.un = eq.un; break;
        case core::ApplyOp::Binary: st.scalar = ScalarOp::Binary, st.bin = eq.bin; break;
        case core::ApplyOp::Index:
        case core::ApplyOp::Array:
        case core::ApplyOp::Call:
        case core::ApplyOp::Imported: break;
      }
    }
    // Whose ticks the primitive's state follows (core/primitives.hpp: the clock of the
    // context for pre/post, the first operand's for fby/->).
    if (core::info(eq.prim).time != core::Time::Instant) st.ticks = st.clock >= 0 ? st.clock : st.in.at(0);
    p.steps.push_back(std::move(st));
  }
  p.readers.assign(p.slots.size(), {});
  for (size_t k = 0; k < p.steps.size(); ++k) {
    const Step &st = p.steps[k];
    core::Time time = st.eq ? core::info(st.eq->prim).time : core::Time::Instant;
    Travel travel = time == core::Time::Instant ? Travel::Instant : time == core::Time::Forward ? Travel::Forward : Travel::Backward;
    for (int c : st.in) p.readers[c].push_back({static_cast<int>(k), travel, st.ticks});
    if (st.clock >= 0) p.readers[st.clock].push_back({static_cast<int>(k), travel, st.ticks});
  }
  schedule(p);
  return p;
}

}  // namespace rml::stream
