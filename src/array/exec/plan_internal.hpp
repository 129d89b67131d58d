// Internal to the planner (plan*.cpp), not part of plan.hpp: the pieces that build a
// kernel plan from a bulk Program. Graph is the SSA graph with common subexpressions
// merged (plan_graph.cpp); Val is a lowered value, a strided view or a pending fused
// elementwise program, and Affine an index map that turns a view into another
// (plan_values.cpp); VmCompiler compiles index functions to the register machine
// (plan_index.cpp); Lowerer walks the graph and emits the kernels (plan.cpp drives it;
// plan_ops.cpp, one operation at a time; plan_gemm.cpp, GEMM matching; plan_memory.cpp,
// buffer slots).
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "array/exec/exec.hpp"
#include "array/exec/plan.hpp"

namespace rml::exec::detail {

using ir::BinOp;
using ir::Elem;
using ir::Kind;
using ir::Node;
using ir::Term;
using ir::UnOp;

[[noreturn]] inline void fail(const std::string &m) { throw ExecError("exec: " + m); }

inline DT dt_of(Elem e) { return e == Elem::Real ? DT::Real : DT::Int; }

// ---------------------------------------------------------------------------------------
// 1. SSA graph (plan_graph.cpp)

struct SOp {
  Kind kind = Kind::Const;
  ir::Type type;
  std::vector<int> args;
  const Node *node = nullptr;  // payload (un, bin, k, shape_arg, binders, ix)
  int input = -1;              // Kind::Var: a program input
  std::shared_ptr<const ir::Tensor> value;               // Kind::Const
  std::vector<std::pair<std::string, int>> caps;         // Gather/Scatter: program names in ix
};

class Graph {
 public:
  std::vector<SOp> ops;

  int add(SOp op);  // merges op with an equal one (cse_key) if any
  void push(const std::string &x, int id) { env_[x].push_back(id); }
  void pop(const std::string &x) { env_[x].pop_back(); }
  int build(const Term &t);

 private:
  std::unordered_map<std::string, std::vector<int>> env_;
  std::unordered_map<const Node *, std::vector<std::string>> fv_;
  std::map<std::pair<const Node *, std::vector<int>>, int> memo_;
  std::unordered_map<std::string, int> cse_;

  int lookup(const std::string &x) const;
  static std::string cse_key(const SOp &op);
  const std::vector<std::string> &fv(const Term &root);
  int build_node(const Term &t);
  int build_fresh(const Term &t);
};

// ---------------------------------------------------------------------------------------
// 2. Values and kernels (plan_values.cpp, plan_index.cpp, plan_ops.cpp, plan_gemm.cpp)

struct Val {
  bool expr = false;
  View view;     // !expr
  MapProg prog;  // expr
  Elem elem = Elem::Real;
  const Shape &shape() const { return expr ? prog.shape : view.shape; }
};

// x_d = c_d + Σ_e A[d][e] o_e: an output index o of `out` to a source index x.
struct Affine {
  Shape out;
  std::vector<std::vector<int64_t>> A;
  std::vector<int64_t> c;
};

View apply_affine(const View &v, const Affine &f);
Affine transpose_map(const Shape &perm, const Shape &in);
Affine replicate_map(int64_t k, const Shape &in);

// Affine form of an int-scalar index term in the gather's binders: Σ coef_b i_b + c.
struct AffForm {
  std::vector<int64_t> coef;
  int64_t c = 0;
};

class Lowerer;

// Compiles index functions (and any int/real scalar term over binders) to VmProg.
// at(t, idx) emits code for the element t[idx] given registers holding a full index of
// t's shape. Out-of-bounds: every load checks its bounds (reads 0), and index/gather
// nodes mask their result to 0 when their own components are out of bounds, which is
// the reference semantics even when an elementwise op is applied on top (exp 0 = 1).
class VmCompiler {
 public:
  struct LEnv {
    std::string name;
    int reg = -1;    // scalar local
    Term lazy;       // array local: compiled at each use
    const LEnv *lazy_env = nullptr;
    const LEnv *next = nullptr;
  };

  VmCompiler(Lowerer &L, const std::vector<std::pair<std::string, int>> &caps) : L_(L), names_(caps) {}

  VmProg prog;

  int reg() { return prog.nregs++; }
  int const_i(int64_t v);
  int const_r(double v);
  int zero(DT dt) { return dt == DT::Real ? const_r(0.0) : const_i(0); }
  int bin(BinOp op, DT in_dt, DT out, int a, int b);
  int sel(int c, int a, int b, DT dt);
  int in_bounds(const std::vector<int> &cs, const Shape &dims);
  int load(int cap, const std::vector<int> &idx);
  int loop(const Shape &dims, DT dt, const std::function<int(int)> &body);

  int at(const Term &t, const std::vector<int> &idx, const LEnv *env);

 private:
  Lowerer &L_;
  std::vector<std::pair<std::string, int>> names_;  // program-level names → SSA ids
  std::map<int, int> cap_of_ssa_;
  std::map<const ir::Tensor *, int> cap_of_const_;

  int cap_ssa(int id);
  int cap_const(const std::shared_ptr<const ir::Tensor> &t);
};

class Lowerer {
 public:
  Lowerer(const Graph &g, const LowerOptions &o) : g_(g), opt_(o) {}

  Plan plan;

  void run(const ir::Program &p, const std::vector<int> &outputs, const std::vector<int> &input_ids);  // plan.cpp

  // ---- buffers and values (plan_values.cpp) ----
  int new_buf(DT dt, int64_t size, Buffer::Storage s = Buffer::Storage::Temp, int index = -1);
  int const_buf(const std::shared_ptr<const ir::Tensor> &t);
  View zeros(DT dt, const Shape &s);
  static MapProg leaf_prog(const View &v, DT dt);
  static MapProg prog_of(const Val &v) { return v.expr ? v.prog : leaf_prog(v.view, dt_of(v.elem)); }
  static int append(MapProg &x, const MapProg &y);
  void emit(KernelBody body, std::string note);  // (plan.cpp)
  View materialise(Val &v, const std::string &note);
  View contiguous(const Val &v, const std::string &note);
  View slice_contiguous(const Val &v, size_t lead, const std::string &note);
  Val map_affine(Val v, const Affine &f, const std::string &note);
  Val finish_expr(Val v, int id);

  const Val &val(int id) const { return vals_[static_cast<size_t>(id)]; }
  Val &val_mut(int id) { return vals_[static_cast<size_t>(id)]; }
  const SOp &op(int id) const { return g_.ops[static_cast<size_t>(id)]; }

 private:
  const Graph &g_;
  LowerOptions opt_;
  std::vector<Val> vals_;
  std::vector<bool> done_;
  std::vector<int> uses_;
  std::map<int, int> input_buf_of_op_;
  std::map<const ir::Tensor *, int> const_buf_;
  int zero_r_ = -1, zero_i_ = -1;

  void count_uses(const std::vector<int> &outputs);  // plan.cpp
  void lower_op(int id);  // plan_ops.cpp
  bool try_gemm(const Val &t, const Shape &out_shape, Val &result);  // plan_gemm.cpp
  // plan_index.cpp
  std::optional<AffForm> affine(const Term &t, const std::vector<std::string> &binders, const SOp &o) const;
  void assign_slots();  // plan_memory.cpp
};

}  // namespace rml::exec::detail
