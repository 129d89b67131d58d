// The window runtime's tables from the plan (window_tables.hpp).
#include "stream/window_tables.hpp"

namespace rml::stream {

namespace {

window::E elem_of(Scalar s) { return s == Scalar::Real ? window::E::Real : s == Scalar::Int ? window::E::Int : window::E::Bool; }

window::K kind_of(StepKind k) {
  switch (k) {
    case StepKind::ClockBase: return window::K::ClockBase;
    case StepKind::ClockOn: return window::K::ClockOn;
    case StepKind::ClockNever: return window::K::ClockNever;
    case StepKind::Const: return window::K::Const;
    case StepKind::Copy: return window::K::Copy;
    case StepKind::Apply: return window::K::Unary;  // settled by the application's operator
    case StepKind::When: return window::K::When;
    case StepKind::Merge: return window::K::Merge;
    case StepKind::Fby: return window::K::Fby;
    case StepKind::Pre: return window::K::Pre;
    case StepKind::Arrow: return window::K::Arrow;
    case StepKind::Post: return window::K::Post;
  }
  return window::K::Copy;
}

}  // namespace

bool applied_by_function(const core::Equation &eq, const std::function<bool(const std::string &)> &is_tensor) {
  if (eq.op == core::ApplyOp::Call || eq.op == core::ApplyOp::Index || eq.op == core::ApplyOp::Array) return true;
  // `if c then a else b` on tensors selects an operand: the step class copies it (post-free)
  // or the runtime shares its block, as for a scalar; no function computes it.
  if (eq.op == core::ApplyOp::If && !is_tensor(eq.args.at(0))) return false;
  if (is_tensor(eq.lhs)) return true;
  for (auto &a : eq.args)
    if (is_tensor(a)) return true;
  return false;
}

window::Node WindowTables::node() const {
  window::Node n{};
  n.nslots = static_cast<int>(elem.size());
  n.nsteps = static_cast<int>(steps.size());
  n.elem = elem.data(), n.is_clock = is_clock.data(), n.numel = numel.data(), n.shared = shared.data(), n.offset = offset.data();
  n.real_words = real_words, n.int_words = int_words;
  n.steps = steps.data(), n.reader_begin = reader_begin.data(), n.readers = readers.data();
  n.order = order.data(), n.comp = comp.data();
  n.ninputs = static_cast<int>(inputs.size()), n.inputs = inputs.data(), n.input_clocks = input_clocks.data();
  if (retiming) {
    n.lag = retiming->lag.data(), n.fast_order = retiming->order.data();
    n.check_begin = check_begin.data(), n.checks = checks.data();
  }
  n.observed = observed.empty() ? nullptr : observed.data();
  return n;
}

WindowTables window_tables(const Plan &plan, const std::function<bool(const core::Equation &)> &by_function, bool retime_it,
                           std::string *why, int horizon) {
  WindowTables t;
  const size_t S = plan.slots.size(), N = plan.steps.size();
  for (size_t c = 0; c < S; ++c) {
    const Slot &sl = plan.slots[c];
    const bool shared = !sl.clock && !sl.shape.empty();
    t.elem.push_back(sl.clock ? window::E::Bool : elem_of(sl.elem));
    t.is_clock.push_back(sl.clock ? 1 : 0);
    t.numel.push_back(static_cast<int>(sl.numel));
    t.shared.push_back(shared ? 1 : 0);
    int &words = !shared && !sl.clock && sl.elem == Scalar::Real ? t.real_words : t.int_words;
    t.offset.push_back(words);
    words += shared ? 1 : static_cast<int>(sl.numel);
  }
  t.fun_args.resize(N);
  for (size_t k = 0; k < N; ++k) {
    const Step &st = plan.steps[k];
    window::Step w{};
    w.k = kind_of(st.kind);
    w.out = st.out;
    w.in[0] = w.in[1] = w.in[2] = -1;
    w.clock = st.clock, w.positive = st.positive, w.ticks = st.ticks;
    w.arg = window::E::Bool;
    w.res = plan.slots[static_cast<size_t>(st.out)].clock ? window::E::Bool : elem_of(plan.slots[static_cast<size_t>(st.out)].elem);
    w.constant.i = 0;
    bool fun = false;
    if (st.kind == StepKind::Const) {
      const core::Literal &l = st.eq->lit;
      if (l.type == Scalar::Real) w.constant.r = l.r;
      else w.constant.i = l.type == Scalar::Bool ? int64_t(l.b) : l.i;
    } else if (st.kind == StepKind::Apply) {
      if (by_function(*st.eq)) {
        fun = true;
        w.k = window::K::Fun;
        t.fun_args[k] = st.in;
        const Slot &so = plan.slots[static_cast<size_t>(st.out)];
        bool add = st.eq->op == core::ApplyOp::Binary && st.eq->bin == ops::BinOp::Add && st.in.size() == 2 && !so.shape.empty() &&
                   so.elem == Scalar::Real;
        for (int c : st.in)
          add = add && plan.slots[static_cast<size_t>(c)].shape == so.shape && plan.slots[static_cast<size_t>(c)].elem == Scalar::Real;
        w.add = add;
      } else {
        if (st.in.empty()) throw PlanError("'" + st.eq->lhs + "': an application without operands that is no function");
        w.arg = elem_of(plan.slots[static_cast<size_t>(st.in[0])].elem);
        switch (st.eq->op) {
          case core::ApplyOp::Unary: w.k = window::K::Unary, w.op = static_cast<uint8_t>(st.eq->un); break;
          case core::ApplyOp::Binary: w.k = window::K::Binary, w.op = static_cast<uint8_t>(st.eq->bin); break;
          case core::ApplyOp::If: w.k = window::K::If; break;
          case core::ApplyOp::Index:
          case core::ApplyOp::Array:
          case core::ApplyOp::Call:
          case core::ApplyOp::Imported:
            throw PlanError("'" + st.eq->lhs + "': an application the runtime's operators do not compute");
        }
      }
    }
    const bool base = st.kind == StepKind::ClockBase;
    w.nin = base ? 0 : static_cast<int>(st.in.size());
    for (size_t j = 0; j < st.in.size() && j < 3 && !base && !fun; ++j) w.in[j] = st.in[j];
    t.steps.push_back(w);
  }
  for (size_t k = 0; k < N; ++k)  // (the vectors are final: their addresses hold)
    if (t.steps[k].k == window::K::Fun && !t.fun_args[k].empty()) t.steps[k].fargs = t.fun_args[k].data();
  for (size_t c = 0; c <= S; ++c) {
    t.reader_begin.push_back(static_cast<int>(t.readers.size()));
    if (c == S) break;
    for (auto &r : plan.readers[c]) {
      window::Travel tr = r.travel == Travel::Instant ? window::Travel::Instant : r.travel == Travel::Forward ? window::Travel::Forward : window::Travel::Backward;
      t.readers.push_back({r.step, tr, r.ticks});
    }
  }
  t.comp.assign(N, 0);
  for (size_t ci = 0; ci < plan.schedule.size(); ++ci)
    for (int k : plan.schedule[ci]) t.order.push_back(k), t.comp[static_cast<size_t>(k)] = static_cast<int>(ci);
  t.inputs = plan.input_slots;
  t.input_clocks = plan.input_clock_slots;
  if (retime_it) t.retiming = retime(plan, why, horizon);
  if (t.retiming) {
    for (size_t k = 0; k <= N; ++k) {
      t.check_begin.push_back(static_cast<int>(t.checks.size()));
      if (k == N) break;
      for (auto &c : t.retiming->checks[k]) {
        window::Expect e = c.expect == Retiming::Expect::SameClock ? window::Expect::SameClock
                           : c.expect == Retiming::Expect::Present ? window::Expect::Present
                                                                   : window::Expect::Absent;
        t.checks.push_back({c.reader, e});
      }
    }
  }
  return t;
}

}  // namespace rml::stream
