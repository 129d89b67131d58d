// The clock-directed machine (machine.hpp): the node lowered once to instructions in the
// clock-directed order, each the reading of one rule of semantics.md §3-§4 that
// codegen/emit_cpp.cpp prints as C++ (same order, same nil flags, same state update after
// the checks), and the loop that runs them.
#include "stream/machine.hpp"

#include <set>

#include "core/primitives.hpp"
#include "ops/scalar_ops.hpp"
#include "stream/clock_directed.hpp"

namespace rml::stream {

using oracle::Tag;

namespace {

bool is_real(const Plan &p, int slot) { return p.slots[static_cast<size_t>(slot)].elem == Scalar::Real; }

}  // namespace

Machine::Machine(const core::Program &prog, const core::Clocks &clocks, const Plan &p) : plan(p) {
  // What the machine runs: scalars, operators of the table and `if`, no `post`, one order.
  for (auto &v : prog.inputs)
    if (plan.slots[static_cast<size_t>(plan.slot(v.name))].numel != 1 || !v.type.shape.empty())
      throw MachineUnsupported("input '" + v.name + "' is a tensor", Span{});
  for (auto &eq : prog.equations) {
    if (eq.type.kind != Type::Tensor || !eq.type.shape.empty()) throw MachineUnsupported("'" + eq.lhs + "' is a tensor", eq.span);
    if (eq.prim == core::Prim::Post) throw MachineUnsupported("'" + eq.lhs + "' is a post", eq.span);
    if (eq.prim == core::Prim::Apply && (eq.op == core::ApplyOp::Call || eq.op == core::ApplyOp::Index || eq.op == core::ApplyOp::Array ||
                                         eq.op == core::ApplyOp::Imported))
      throw MachineUnsupported("'" + core::apply_name(eq) + "' is not an operator of the table", eq.span);
  }
  // Presence is the clock only where the static clock calculus unifies every clock (then
  // rml-check's clocks property holds but for nil conditions, which step() checks).
  if (!clocks.clashes.empty())
    throw MachineUnsupported("the static clock calculus does not unify: " + clocks.clashes[0].message, clocks.clashes[0].span);
  for (auto &comp : plan.schedule)
    if (comp.size() > 1) throw MachineUnsupported("an instantaneous cycle through exclusive when/merge branches", Span{});
  for (auto &st : plan.steps)  // x = f(x): a cycle of one equation (the order skips self-edges)
    for (size_t j = 0; j < st.in.size(); ++j)
      if (st.in[j] == st.out && (!st.eq || core::use_of(*st.eq, j).offset == 0))
        throw MachineUnsupported("'" + plan.slots[static_cast<size_t>(st.out)].name + "' depends on itself within the cycle",
                                 st.eq ? st.eq->span : Span{});
  std::optional<std::vector<int>> order = clock_directed_order(plan, clocks);
  if (!order) throw MachineUnsupported("the clocks and the equations they guard form a cycle", Span{});

  const size_t S = plan.slots.size();
  guard_true = static_cast<int>(S);
  const std::set<std::string> nil = may_nil(prog);
  may_be_nil.assign(S, 0);
  for (auto &v : nil) may_be_nil[static_cast<size_t>(plan.slot(v))] = 1;
  term_slot = plan.clock_slots;
  clock_reg.assign(S, guard_true);  // a clock term's slot is never absent
  for (auto *vars : {&prog.inputs, &prog.outputs, &prog.locals})
    for (auto &v : *vars) clock_reg[static_cast<size_t>(plan.slot(v.name))] = term_slot[static_cast<size_t>(clocks.of(v.name))];
  std::vector<uint8_t> is_ticking(clocks.terms.size(), 0);

  for (int k : *order) {
    const Step &st = plan.steps[static_cast<size_t>(k)];
    Instr in{};
    in.out = st.out;
    in.guard = guard_true;
    if (!st.eq) {  // a clock term
      int t = static_cast<int>(std::find(plan.clock_slots.begin(), plan.clock_slots.end(), st.out) - plan.clock_slots.begin());
      const core::ClockTerm &ct = clocks.terms[static_cast<size_t>(t)];
      switch (ct.kind) {
        case core::ClockTerm::Base: in.op = Op::ClockBase; break;
        case core::ClockTerm::Never: in.op = Op::ClockNever; break;
        case core::ClockTerm::On:
          in.op = Op::ClockOn, in.a = term_slot[static_cast<size_t>(ct.parent)], in.b = plan.slot(ct.cond), in.sub = ct.positive;
          break;
      }
      code.push_back(in);
      continue;
    }
    const core::Equation &eq = *st.eq;
    const int term = clocks.of(eq.lhs);
    in.guard = term_slot[static_cast<size_t>(term)];
    in.nil = may_be_nil[static_cast<size_t>(st.out)] != 0;
    const bool real = is_real(plan, st.out);
    auto arg = [&](size_t j) { return st.in.at(j); };
    switch (eq.prim) {
      case core::Prim::Const:
        // Its register is set once by reset(): only its clock varies, and readers run
        // only where that clock is true.
        constants.push_back({st.out, eq.lit.r, eq.lit.type == Scalar::Bool ? int64_t(eq.lit.b) : eq.lit.i});
        continue;
      case core::Prim::Copy:
      case core::Prim::When: in.op = real ? Op::CopyR : Op::CopyI, in.a = arg(0), in.b = in.c = guard_true; break;
      case core::Prim::Merge: in.op = real ? Op::MergeR : Op::MergeI, in.a = arg(0), in.b = arg(1), in.c = arg(2); break;
      case core::Prim::Fby:
      case core::Prim::Pre:
      case core::Prim::Arrow: {
        bool fby = eq.prim == core::Prim::Fby, pre = eq.prim == core::Prim::Pre;
        in.op = fby ? (real ? Op::FbyR : Op::FbyI) : pre ? (real ? Op::PreR : Op::PreI) : (real ? Op::ArrowR : Op::ArrowI);
        in.term = term;
        is_ticking[static_cast<size_t>(term)] = 1;
        in.a = arg(0);
        if (!pre) in.b = arg(1);
        if (fby || pre) {
          in.state = static_cast<int>(updates.size());
          int operand = fby ? arg(1) : arg(0);
          updates.push_back({in.guard, operand, in.state, real, may_be_nil[static_cast<size_t>(operand)] != 0});
        }
        break;
      }
      case core::Prim::Apply: {
        in.b = in.c = guard_true;  // an operand it does not have: a nil flag of 0
        in.a = arg(0);
        if (st.in.size() > 1) in.b = arg(1);
        if (st.in.size() > 2) in.c = arg(2);
        const Scalar ae = plan.slots[static_cast<size_t>(arg(0))].elem;
        switch (eq.op) {
          case core::ApplyOp::If: in.op = real ? Op::IfR : Op::IfI; break;
          case core::ApplyOp::Unary: {
            in.sub = static_cast<uint8_t>(eq.un);
            Scalar re = *ops::result_type(ops::row(eq.un).typing, ae);
            in.op = ae == Scalar::Real && re == Scalar::Real ? Op::UnR
                    : ae == Scalar::Real                     ? Op::UnRtoI
                    : re == Scalar::Real                     ? Op::UnItoR
                    : re == Scalar::Bool                     ? Op::UnB
                                                             : Op::UnI;
            break;
          }
          case core::ApplyOp::Binary: {
            in.sub = static_cast<uint8_t>(eq.bin);
            bool cmp = ops::is_comparison(eq.bin);
            if (ae == Scalar::Real) {
              in.op = cmp                          ? Op::CmpR
                      : eq.bin == ops::BinOp::Add ? Op::AddR
                      : eq.bin == ops::BinOp::Sub ? Op::SubR
                      : eq.bin == ops::BinOp::Mul ? Op::MulR
                      : eq.bin == ops::BinOp::Div ? Op::DivR
                                                  : Op::BinR;
            } else {
              in.op = ae == Scalar::Bool ? Op::BinB : cmp ? Op::CmpI : Op::BinI;
            }
            break;
          }
          case core::ApplyOp::Index:
          case core::ApplyOp::Array:
          case core::ApplyOp::Call:
          case core::ApplyOp::Imported: break;  // refused above
        }
        break;
      }
      case core::Prim::Post: break;  // refused above
    }
    code.push_back(in);
  }
  for (size_t t = 0; t < is_ticking.size(); ++t)
    if (is_ticking[t]) ticking.push_back(static_cast<int>(t));
  chain_instructions();
  // Runs of instructions under one clock: its register is read once per run.
  for (size_t k = 0; k < code.size(); ++k)
    if (blocks.empty() || blocks.back().guard != code[k].guard) blocks.push_back({code[k].guard, k, k + 1});
    else blocks.back().end = k + 1;
  reset();
}

void Machine::chain_instructions() {
  // Same-cycle reads: the guard, and the operands (a state primitive's first operand too,
  // at its first tick). Every register has one producer (or none: inputs, constants).
  const size_t n = code.size();
  std::vector<int> producer(plan.slots.size() + 1, -1);  // registers: the slots, then guard_true
  for (size_t k = 0; k < n; ++k) producer[static_cast<size_t>(code[k].out)] = static_cast<int>(k);
  auto reads = [&](const Instr &x) {
    std::vector<int> r{x.guard};
    switch (x.op) {
      case Op::ClockBase:
      case Op::ClockNever:
      case Op::PreR:  // its operand is read at the previous tick (the update), nothing now
      case Op::PreI: break;
      case Op::FbyR:  // its first operand now (the first tick), the second at the previous tick
      case Op::FbyI: r.push_back(x.a); break;
      default: r.insert(r.end(), {x.a, x.b, x.c});
    }
    return r;
  };
  std::vector<std::vector<int>> readers(n);
  std::vector<int> waiting(n, 0);
  for (size_t k = 0; k < n; ++k)
    for (int reg : reads(code[k]))
      if (int p = producer[static_cast<size_t>(reg)]; p >= 0 && static_cast<size_t>(p) != k)
        readers[static_cast<size_t>(p)].push_back(static_cast<int>(k)), ++waiting[k];
  auto state = [](Op op) { return op == Op::FbyR || op == Op::FbyI || op == Op::PreR || op == Op::PreI; };
  auto arith = [](Op op) { return op == Op::AddR || op == Op::SubR || op == Op::MulR || op == Op::DivR; };
  // The ready instructions not yet placed, by index (all, and the state reads), so that a
  // pick costs a logarithm, not a scan of the node (which made this quadratic).
  std::set<size_t> ready, ready_state;
  auto make_ready = [&](size_t k) {
    ready.insert(k);
    if (state(code[k].op)) ready_state.insert(k);
  };
  for (size_t k = 0; k < n; ++k)
    if (waiting[k] == 0) make_ready(k);
  std::vector<Instr> out;
  out.reserve(n);
  int last = -1;        // the register the previous instruction wrote
  size_t previous = n;  // and that instruction
  for (size_t emitted = 0; emitted < n; ++emitted) {
    // A ready arithmetic instruction on the previous result, under the same clock (one of
    // the previous instruction's readers: the result has no other producer); else a ready
    // state read; else the first ready one in the clock-directed order. The first by index
    // in each case.
    size_t pick = n;
    if (previous < n)
      for (int r : readers[previous]) {
        const size_t k = static_cast<size_t>(r);
        if (k < pick && ready.count(k) && arith(code[k].op) && (code[k].a == last || code[k].b == last) &&
            out.back().guard == code[k].guard)
          pick = k;
      }
    if (pick == n && !ready_state.empty()) pick = *ready_state.begin();
    if (pick == n && !ready.empty()) pick = *ready.begin();
    if (pick == n) return;  // no order (cannot be: the clock-directed one is one): keep it
    ready.erase(pick), ready_state.erase(pick);
    out.push_back(code[pick]);
    last = code[pick].out;
    previous = pick;
    for (int r : readers[pick])
      if (--waiting[static_cast<size_t>(r)] == 0) make_ready(static_cast<size_t>(r));
  }
  code.swap(out);
  auto writes_real = [](Op op) {
    switch (op) {
      case Op::CopyR: case Op::AddR: case Op::SubR: case Op::MulR: case Op::DivR: case Op::BinR: case Op::UnR: case Op::UnItoR:
      case Op::IfR: case Op::MergeR: case Op::FbyR: case Op::PreR: case Op::ArrowR: return true;
      default: return false;
    }
  };
  for (size_t k = n; k-- > 1;) {  // from the end: the marks read the previous opcode unmarked
    Instr &x = code[k];
    const Instr &p = code[k - 1];
    if (!arith(x.op) || !writes_real(p.op) || p.guard != x.guard) continue;
    int base = x.op == Op::AddR ? 0 : x.op == Op::SubR ? 2 : x.op == Op::MulR ? 4 : 6;
    if (x.a == p.out) x.op = static_cast<Op>(static_cast<int>(Op::AddRa) + base);
    else if (x.b == p.out) x.op = static_cast<Op>(static_cast<int>(Op::AddRa) + base + 1);
  }
}

void Machine::reset() {
  const size_t S = plan.slots.size();
  R.assign(S + 1, 0.0);
  I.assign(S + 1, 0);
  I[static_cast<size_t>(guard_true)] = 1;
  for (auto &c : constants) R[static_cast<size_t>(c.slot)] = c.r, I[static_cast<size_t>(c.slot)] = c.i;
  N.assign(S + 1, 0);
  ticked.assign(term_slot.size(), 0);
  last_r.assign(updates.size(), 0.0);
  last_i.assign(updates.size(), 0);
  last_nil.assign(updates.size(), 0);
  failure_.clear();
}

Machine::Status Machine::step(const InputValue *in) {
  double *r = R.data();
  int64_t *i = I.data();
  uint8_t *nl = N.data();
  const size_t n_inputs = plan.input_slots.size();
  bool any_input = n_inputs == 0;
  for (size_t k = 0; k < n_inputs; ++k) {
    size_t s = static_cast<size_t>(plan.input_slots[k]);
    if (!in[k].present) continue;
    any_input = true;
    if (plan.slots[s].elem == Scalar::Real) r[s] = in[k].r;
    else i[s] = in[k].i;
  }
  int nil_condition = -1;  // a nil condition of a clock or a merge (excluded by the proofs)
  double acc = 0;          // the last real result (what a forwarded opcode reads)
  for (const Block &blk : blocks) {
   if (!i[blk.guard]) continue;
   for (size_t pc = blk.begin; pc < blk.end; ++pc) {
    const Instr &x = code[pc];
    switch (x.op) {
      case Op::ClockBase: i[x.out] = any_input; break;
      case Op::ClockNever: i[x.out] = 0; break;
      case Op::ClockOn:
        if (i[x.a] && nl[x.b] && nil_condition < 0) nil_condition = x.b;
        i[x.out] = i[x.a] && (i[x.b] != 0) == (x.sub != 0);
        break;
      case Op::CopyR: r[x.out] = acc = r[x.a]; break;
      case Op::CopyI: i[x.out] = i[x.a]; break;
      case Op::AddR: r[x.out] = acc = r[x.a] + r[x.b]; break;
      case Op::SubR: r[x.out] = acc = r[x.a] - r[x.b]; break;
      case Op::MulR: r[x.out] = acc = r[x.a] * r[x.b]; break;
      case Op::DivR: r[x.out] = acc = r[x.a] / r[x.b]; break;
      case Op::AddRa: r[x.out] = acc = acc + r[x.b]; break;
      case Op::AddRb: r[x.out] = acc = r[x.a] + acc; break;
      case Op::SubRa: r[x.out] = acc = acc - r[x.b]; break;
      case Op::SubRb: r[x.out] = acc = r[x.a] - acc; break;
      case Op::MulRa: r[x.out] = acc = acc * r[x.b]; break;
      case Op::MulRb: r[x.out] = acc = r[x.a] * acc; break;
      case Op::DivRa: r[x.out] = acc = acc / r[x.b]; break;
      case Op::DivRb: r[x.out] = acc = r[x.a] / acc; break;
      case Op::BinR: r[x.out] = acc = ops::real_binary(static_cast<ops::BinOp>(x.sub), r[x.a], r[x.b]); break;
      case Op::CmpR: i[x.out] = ops::compare(static_cast<ops::BinOp>(x.sub), r[x.a], r[x.b]); break;
      case Op::BinI: i[x.out] = ops::int_binary(static_cast<ops::BinOp>(x.sub), i[x.a], i[x.b]); break;
      case Op::CmpI: i[x.out] = ops::int_binary(static_cast<ops::BinOp>(x.sub), i[x.a], i[x.b]) != 0; break;
      case Op::BinB: i[x.out] = ops::int_binary(static_cast<ops::BinOp>(x.sub), i[x.a] != 0, i[x.b] != 0) != 0; break;
      case Op::UnR: r[x.out] = acc = ops::real_unary(static_cast<ops::UnOp>(x.sub), r[x.a]); break;
      case Op::UnRtoI: i[x.out] = ops::real_to_int(static_cast<ops::UnOp>(x.sub), r[x.a]); break;
      case Op::UnItoR: r[x.out] = acc = static_cast<double>(i[x.a]); break;
      case Op::UnI: i[x.out] = ops::int_unary(static_cast<ops::UnOp>(x.sub), i[x.a]); break;
      case Op::UnB: i[x.out] = ops::int_unary(static_cast<ops::UnOp>(x.sub), i[x.a] != 0) != 0; break;
      case Op::IfR: r[x.out] = acc = i[x.a] ? r[x.b] : r[x.c]; break;
      case Op::IfI: i[x.out] = i[x.a] ? i[x.b] : i[x.c]; break;
      case Op::MergeR:
      case Op::MergeI:
        if (nl[x.a] && nil_condition < 0) nil_condition = x.a;
        if (x.op == Op::MergeR) r[x.out] = acc = i[x.a] ? r[x.b] : r[x.c];
        else i[x.out] = i[x.a] ? i[x.b] : i[x.c];
        if (x.nil) nl[x.out] = i[x.a] ? nl[x.b] : nl[x.c];
        continue;
      case Op::FbyR:  // its first operand at the first tick, then the second at the previous tick
      case Op::FbyI:
      case Op::PreR:  // nil at the first tick, then its operand at the previous tick
      case Op::PreI: {
        bool started = ticked[static_cast<size_t>(x.term)] != 0, pre = x.op == Op::PreR || x.op == Op::PreI;
        size_t s = static_cast<size_t>(x.state);
        if (x.op == Op::FbyR || x.op == Op::PreR) r[x.out] = acc = started ? last_r[s] : pre ? 0.0 : r[x.a];
        else i[x.out] = started ? last_i[s] : pre ? 0 : i[x.a];
        if (x.nil) nl[x.out] = started ? last_nil[s] : pre ? 1 : nl[x.a];
        continue;
      }
      case Op::ArrowR:  // the first operand at the first tick, then the second
      case Op::ArrowI: {
        bool started = ticked[static_cast<size_t>(x.term)] != 0;
        if (x.op == Op::ArrowR) r[x.out] = acc = started ? r[x.b] : r[x.a];
        else i[x.out] = started ? i[x.b] : i[x.a];
        if (x.nil) nl[x.out] = started ? nl[x.b] : nl[x.a];
        continue;
      }
    }
    // A copy is nil when its operand is, a pointwise application when an operand is
    // (operands that may not be nil keep a flag of 0).
    if (x.nil) nl[x.out] = nl[x.a] | nl[x.b] | nl[x.c];
   }
  }
  // The checks, before any state changes.
  for (size_t k = 0; k < n_inputs; ++k)
    if (in[k].present != (i[plan.input_clock_slots[k]] != 0)) {
      failure_ = "input '" + plan.slots[static_cast<size_t>(plan.input_slots[k])].name + "' is " +
                 (in[k].present ? "present where its clock is false" : "absent where its clock is true");
      return Status::InputClock;
    }
  if (nil_condition >= 0) {
    failure_ = "the condition '" + plan.slots[static_cast<size_t>(nil_condition)].name + "' is the uninitialised first value of a 'pre'";
    return Status::Error;
  }
  // The state for the next cycle (every read of this cycle is done).
  for (const Update &u : updates) {
    if (!i[u.guard]) continue;
    size_t s = static_cast<size_t>(u.state);
    if (u.real) last_r[s] = r[u.operand];
    else last_i[s] = i[u.operand];
    if (u.nil) last_nil[s] = nl[u.operand];
  }
  for (int t : ticking) ticked[static_cast<size_t>(t)] |= i[term_slot[static_cast<size_t>(t)]] != 0;
  return Status::Ok;
}

oracle::Tag Machine::tag(int slot) const {
  if (!I[static_cast<size_t>(clock_reg[static_cast<size_t>(slot)])]) return Tag::Abs;
  return N[static_cast<size_t>(slot)] ? Tag::Nil : Tag::Val;
}

oracle::Cell Machine::cell(int slot) const {
  oracle::Cell c;
  c.tag = tag(slot);
  if (c.tag != Tag::Val) return c;
  const Slot &s = plan.slots[static_cast<size_t>(slot)];
  switch (s.elem) {
    case Scalar::Real: c.value = array::Tensor::real(R[static_cast<size_t>(slot)]); break;
    case Scalar::Int: c.value = array::Tensor::integer(I[static_cast<size_t>(slot)]); break;
    case Scalar::Bool: c.value = array::Tensor::boolean(I[static_cast<size_t>(slot)] != 0); break;
  }
  return c;
}

}  // namespace rml::stream
