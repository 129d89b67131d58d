// Building the network of a node once: its columns (clock terms, inputs, equations), one
// node per equation and per clock term, who reads what (the primitive table), the
// evaluation order within a cycle, and the memory a run needs.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>

#include "core/primitives.hpp"
#include "oracle/impl.hpp"
#include "ops/scalar_ops.hpp"

namespace rml::oracle {

int Oracle::Impl::add_col(const std::string &name, const Type &t, bool clock) {
  Column col;
  col.name = name;
  col.clock = clock;
  if (!clock) {
    if (t.kind != Type::Tensor) throw OracleError("variable '" + name + "' has no concrete type");
    col.elem = t.elem;
    col.shape = array::concrete_shape(t.shape);
    col.numel = 1;
    for (auto d : col.shape)  // saturating: memory_needed then refuses it
      col.numel = d != 0 && col.numel > SIZE_MAX / static_cast<size_t>(d) ? SIZE_MAX : col.numel * static_cast<size_t>(d);
  }
  templ.push_back(col);
  return static_cast<int>(templ.size()) - 1;
}

void Oracle::Impl::build() {
  // Clock columns, parents first (term order guarantees it).
  for (size_t t = 0; t < clocks.terms.size(); ++t)
    clock_col.push_back(add_col("ck:" + clocks.str(static_cast<int>(t)), Type::scalar(Scalar::Bool), true));
  for (auto &v : prog.inputs) {
    int c = add_col(v.name, v.type, false);
    col_of[v.name] = c;
    input_cols.push_back(c);
  }
  for (auto &eq : prog.equations) col_of[eq.lhs] = add_col(eq.lhs, eq.type, false);
  for (auto &v : prog.outputs)
    if (!col_of.count(v.name)) col_of[v.name] = add_col(v.name, v.type, false);
  for (auto &v : prog.locals)
    if (!col_of.count(v.name)) col_of[v.name] = add_col(v.name, v.type, false);
  // One cycle must fit before anything is evaluated (constants are, below).
  check_memory(1, memory_needed(1, Solver::Worklist), opts.max_memory);
  // Clock nodes.
  for (size_t t = 0; t < clocks.terms.size(); ++t) {
    const core::ClockTerm &ct = clocks.terms[t];
    Node nd;
    nd.out = clock_col[t];
    if (ct.kind == core::ClockTerm::Base) {
      nd.k = K::ClockBase;
      nd.in = input_cols;
    } else if (ct.kind == core::ClockTerm::Never) {
      nd.k = K::ClockNever;
      nd.in = {clock_col[0]};
    } else {
      nd.k = K::ClockOn;
      nd.in = {clock_col[static_cast<size_t>(ct.parent)], col(ct.cond)};
      nd.positive = ct.positive;
    }
    nodes.push_back(std::move(nd));
  }
  for (auto &eq : prog.equations) {
    Node nd;
    nd.eq = &eq;
    nd.out = col(eq.lhs);
    for (auto &a : eq.args) nd.in.push_back(col(a));
    // A primitive on the clock of its context reads that clock (core/primitives.hpp).
    if (core::takes_context_clock(eq)) nd.clock = clock_col[static_cast<size_t>(clocks.of(eq.lhs))];
    switch (eq.prim) {
      case core::Prim::Const:
        nd.k = K::Const;
        nd.constant = literal(eq.lit);
        break;
      case core::Prim::Copy: nd.k = K::Copy; break;
      case core::Prim::Apply:
        nd.k = K::Apply;
        // f(static args) only: a constant (an imported one has no value to compute).
        if (eq.args.empty() && eq.op != core::ApplyOp::Imported) nd.constant = apply(eq, {});
        if (templ[nd.out].numel == 1 && std::all_of(nd.in.begin(), nd.in.end(), [&](int c) { return templ[c].numel == 1; })) {
          switch (eq.op) {  // scalars through an operator of the table: no tensors
            case core::ApplyOp::If: nd.fast = Fast::If; break;
            case core::ApplyOp::Unary: nd.fast = Fast::Unary, nd.un = eq.un; break;
            case core::ApplyOp::Binary: nd.fast = Fast::Binary, nd.bin = eq.bin; break;
            case core::ApplyOp::Index:
            case core::ApplyOp::Array:
            case core::ApplyOp::Call:
            case core::ApplyOp::Imported: break;
          }
        }
        break;
      case core::Prim::When: nd.k = K::When; nd.positive = eq.positive; break;
      case core::Prim::Merge: nd.k = K::Merge; break;
      case core::Prim::Fby: nd.k = K::Fby; break;
      case core::Prim::Pre: nd.k = K::Pre; break;
      case core::Prim::Arrow: nd.k = K::Arrow; break;
      case core::Prim::Post: nd.k = K::Post; break;
    }
    nodes.push_back(std::move(nd));
  }
  // Who reads what, and how far a change must travel: within the cycle, or forward
  // (state) or backward (a prophecy) along the ticks of the node's clock — its own, or
  // its first operand's (core/primitives.hpp, Time).
  readers.assign(templ.size(), {});
  for (size_t k = 0; k < nodes.size(); ++k) {
    const Node &nd = nodes[k];
    int id = static_cast<int>(k);
    core::Time time = nd.eq ? core::info(nd.eq->prim).time : core::Time::Instant;
    Mode mode = time == core::Time::Instant ? Mode::Inst : time == core::Time::Forward ? Mode::Fwd : Mode::Back;
    int ticks = time == core::Time::Instant ? -1 : nd.clock >= 0 ? nd.clock : nd.in[0];
    if (time == core::Time::Backward && opts.post_clock_data) {  // refuted variant: post's presence from its argument
      readers[nd.in[0]].push_back({id, mode, nd.in[0]});
      continue;
    }
    for (int c : nd.in) readers[c].push_back({id, mode, ticks});
    if (nd.clock >= 0) readers[nd.clock].push_back({id, mode, ticks});
  }
  order_nodes();
}

int Oracle::Impl::col(const std::string &v) const {
  auto it = col_of.find(v);
  if (it == col_of.end()) throw OracleError("internal: unknown variable '" + v + "'");
  return it->second;
}

array::Tensor Oracle::Impl::literal(const core::Literal &l) {
  switch (l.type) {
    case Scalar::Int: return array::Tensor::integer(l.i);
    case Scalar::Real: return array::Tensor::real(l.r);
    case Scalar::Bool: return array::Tensor::boolean(l.b);
  }
  return {};
}

// Evaluation order within a cycle: producers before consumers along instantaneous
// dependences (any order inside a cycle of them). Only speed depends on it.
void Oracle::Impl::order_nodes() {
  std::vector<int> producer(templ.size(), -1);
  for (size_t k = 0; k < nodes.size(); ++k) producer[nodes[k].out] = static_cast<int>(k);
  std::vector<uint8_t> state(nodes.size(), 0);
  std::function<void(int)> visit = [&](int k) {
    std::vector<std::pair<int, size_t>> stack{{k, 0}};
    state[k] = 1;
    while (!stack.empty()) {
      auto &[n, i] = stack.back();
      const Node &nd = nodes[n];
      // The operands read in the same cycle, at the first tick or every one.
      std::vector<int> deps;
      for (size_t j = 0; j < nd.in.size(); ++j) {
        const core::OperandUse *u = nd.eq ? &core::use_of(*nd.eq, j) : nullptr;
        if (!u || (u->offset == 0 && u->ticks != core::Ticks::Later)) deps.push_back(nd.in[j]);
      }
      if (nd.clock >= 0) deps.push_back(nd.clock);
      if (i < deps.size()) {
        int p = producer[deps[i++]];
        if (p >= 0 && state[p] == 0) {
          state[p] = 1;
          stack.push_back({p, 0});
        }
      } else {
        topo.push_back(n);
        state[n] = 2;
        stack.pop_back();
      }
    }
  };
  for (size_t k = 0; k < nodes.size(); ++k)
    if (state[k] == 0) visit(static_cast<int>(k));
}

// Per cycle: every column a tag byte, 8 bytes per element and a byte of error-origin
// bookkeeping; the worklist a byte per node (Kleene: a copy of the store instead); the
// caller's input cells, a Cell and its two heap blocks per input.
uint64_t Oracle::Impl::memory_needed(size_t cycles, Solver solver) const {
  long double store = 0, per_cycle = 0;
  for (auto &c : templ) store += 2.0L + 8.0L * static_cast<long double>(c.numel);
  per_cycle = store;
  if (solver == Solver::Kleene) per_cycle += store;
  else per_cycle += static_cast<long double>(clocks.terms.size() + prog.equations.size());
  for (int c : input_cols) per_cycle += static_cast<long double>(sizeof(Cell)) + 64.0L + 8.0L * static_cast<long double>(templ[c].numel);
  long double total = per_cycle * static_cast<long double>(cycles);
  return total >= 1.8e19L ? UINT64_MAX : static_cast<uint64_t>(total);
}

void Oracle::Impl::check_memory(size_t cycles, uint64_t needed, uint64_t limit) const {
  if (needed <= limit) return;
  const Column *big = nullptr;
  for (auto &c : templ)
    if (!c.clock && (!big || c.numel > big->numel)) big = &c;
  auto human = [](long double b) {
    const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    int u = 0;
    while (b >= 1024 && u < 6) b /= 1024, ++u;
    char buf[64];
    std::snprintf(buf, sizeof buf, u ? "%.1Lf %s" : "%.0Lf %s", b, units[u]);
    return std::string(buf);
  };
  std::string msg = "the oracle would need about " + (needed == UINT64_MAX ? std::string("more than 16 EiB") : human(needed)) +
                    " to run '" + prog.main + "' for " + std::to_string(cycles) + (cycles == 1 ? " cycle" : " cycles") +
                    " (it keeps every cell of " + std::to_string(templ.size()) + " streams";
  if (big && big->numel > 1) {
    std::string shape;
    for (auto d : big->shape) shape += (shape.empty() ? "" : ", ") + std::to_string(d);
    msg += "; the largest, '" + big->name + "': " + scalar_name(big->elem) + "[" + shape + "], takes " +
           human(8.0L * static_cast<long double>(big->numel)) + " per cycle";
  }
  msg += "), more than its memory limit of " + human(limit);
  throw MemoryLimitError(msg, cycles, needed, limit);
}

}  // namespace rml::oracle
