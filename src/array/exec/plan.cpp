// Lowering a bulk Program to a kernel plan (plan.hpp).
//
// 1. The program becomes an SSA graph: lets and variables are resolved, equal subterms are
//    merged (by pointer and environment, then structurally), small constant expressions
//    are folded, and a condition known at compile time selects its branch.
// 2. Each reachable operation gets a value: a strided view of a buffer (inputs, constants,
//    kernel outputs, and every transpose, replicate, constant index and in-bounds affine
//    gather of a view), or a pending fused elementwise program whose leaves are views.
//    Elementwise operations extend the pending program of a single-use operand; a value
//    used more than once, or read by a non-elementwise consumer, is materialised by one
//    map kernel. sumOuter of a product of two views that contracts like a matrix product
//    becomes a GEMM; other sumOuters are column reductions fused with their argument.
//    Dynamic gathers, scatters and indexes run their index functions on a small register
//    machine (VmProg), copying whole trailing slices; compile (runtime.cpp) replaces the
//    machine by a table of offsets when the index function reads only constants.
// 3. Temporary buffers get physical slots from their lifetimes: a buffer's slot is freed
//    after its last reader and reused by a later buffer of the same byte size.
//
// This file: the entry point `lower` (type check, graph, Lowerer), the driver of a
// Lowerer, and the helpers of plan.hpp (row-major strides, kernels' buffers). Step 1 is
// in plan_graph.cpp; step 2 in plan_values.cpp (views and fused programs), plan_index.cpp
// (index functions), plan_ops.cpp (one kernel choice per operation) and plan_gemm.cpp;
// step 3 in plan_memory.cpp; plan_print.cpp prints a plan.
#include "array/exec/plan_internal.hpp"
#include "array/ir/eval.hpp"

namespace rml::exec::detail {

Strides row_major(const Shape &s) {
  Strides st(s.size());
  int64_t acc = 1;
  for (size_t d = s.size(); d-- > 0;) {
    st[d] = acc;
    acc *= s[d];
  }
  return st;
}

bool is_canonical(const View &v) {  // allocation-free: the runtime calls it per kernel
  int64_t acc = 1;
  bool ok = true;
  for (size_t d = v.shape.size(); d-- > 0;) {
    if (v.shape[d] == 0) return true;
    ok = ok && (v.shape[d] == 1 || v.strides[d] == acc);
    acc *= v.shape[d];
  }
  return ok;
}

bool is_broadcast(const View &v) {
  for (size_t d = 0; d < v.shape.size(); ++d)
    if (v.shape[d] != 1 && v.strides[d] != 0) return false;
  return true;
}

View canonical_view(int buf, const Shape &s, int64_t offset) { return View{buf, offset, s, row_major(s)}; }

int MapProg::ops() const {
  int n = 0;
  for (auto &i : code) n += i.op != MInst::Leaf;
  return n;
}

std::vector<int> kernel_reads(const Kernel &k) {
  std::vector<int> out;
  std::visit(
      [&](const auto &b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, MapK> || std::is_same_v<B, ReduceK>) {
          for (auto &l : b.prog.leaves) out.push_back(l.buf);
        } else if constexpr (std::is_same_v<B, GemmK>) {
          out = {b.a, b.b};
        } else {
          out.push_back(b.src.buf);
          for (auto &c : b.ix.caps) out.push_back(c.buf);
        }
      },
      k.body);
  return out;
}

int kernel_write(const Kernel &k) {
  return std::visit(
      [](const auto &b) {
        using B = std::decay_t<decltype(b)>;
        if constexpr (std::is_same_v<B, GemmK>) return b.c;
        else return b.out;
      },
      k.body);
}

void Lowerer::run(const ir::Program &p, const std::vector<int> &outputs, const std::vector<int> &input_ids) {
  plan.inputs = p.inputs;
  plan.output_names = p.output_names;
  count_uses(outputs);
  vals_.resize(g_.ops.size());
  done_.assign(g_.ops.size(), false);
  plan.input_buf.assign(p.inputs.size(), -1);
  for (size_t k = 0; k < input_ids.size(); ++k) {
    // Inputs get buffers even when unused: run() binds every argument.
    int b = new_buf(dt_of(p.inputs[k].second.elem), ir::numel(p.inputs[k].second.shape), Buffer::Storage::Input,
                    static_cast<int>(k));
    plan.input_buf[k] = b;
    input_buf_of_op_[input_ids[k]] = b;
  }
  for (size_t id = 0; id < g_.ops.size(); ++id)
    if (uses_[id] > 0) lower_op(static_cast<int>(id));
  for (int o : outputs) {
    View v = materialise(vals_[static_cast<size_t>(o)], "output");
    plan.outputs.push_back(OutputSpec{v, g_.ops[static_cast<size_t>(o)].type.elem});
  }
  assign_slots();
}

// Out of line: inlined into materialise, it drew a GCC 12 -Wmaybe-uninitialized false
// positive on the variant it builds.
void Lowerer::emit(KernelBody body, std::string note) {
  plan.kernels.push_back(Kernel{std::move(body), std::move(note)});
}

void Lowerer::count_uses(const std::vector<int> &outputs) {
  uses_.assign(g_.ops.size(), 0);
  std::vector<bool> live(g_.ops.size(), false);
  for (int o : outputs) {
    live[static_cast<size_t>(o)] = true;
    ++uses_[static_cast<size_t>(o)];
  }
  for (size_t id = g_.ops.size(); id-- > 0;) {
    if (!live[id]) continue;
    for (int a : g_.ops[id].args) {
      live[static_cast<size_t>(a)] = true;
      ++uses_[static_cast<size_t>(a)];
    }
    for (auto &c : g_.ops[id].caps) {
      live[static_cast<size_t>(c.second)] = true;
      ++uses_[static_cast<size_t>(c.second)];
    }
  }
}

Plan lower(const ir::Program &p, const LowerOptions &o) {
  try {
    ir::typecheck(p);
  } catch (const ir::IrError &e) {
    fail(std::string("ill-typed program: ") + e.what());
  }
  Graph g;
  std::vector<int> input_ids;
  for (size_t k = 0; k < p.inputs.size(); ++k) {
    SOp in;
    in.kind = Kind::Var;
    in.type = p.inputs[k].second;
    in.input = static_cast<int>(k);
    int id = g.add(std::move(in));
    input_ids.push_back(id);
    g.push(p.inputs[k].first, id);
  }
  for (auto &[name, t] : p.binds) g.push(name, g.build(t));
  std::vector<int> outputs;
  for (auto &t : p.outputs) outputs.push_back(g.build(t));
  Lowerer L(g, o);
  L.run(p, outputs, input_ids);
  return std::move(L.plan);
}

}  // namespace rml::exec::detail
