// The executor's kernel plan (internal): what `compile` lowers a bulk Program to and what
// the runtime (runtime.cpp) executes, for either precision. Everything here is decided at
// compile time: buffers and their physical slots, strided views, fused elementwise
// programs, GEMM layouts, the scalar index-function code of gathers and scatters.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <variant>
#include <vector>

#include "array/ir/ir.hpp"

namespace rml::exec::detail {

using ir::Shape;
using Strides = std::vector<int64_t>;

// Storage type of a buffer: reals are float or double (the executable's precision); ints
// and bools are int64_t (bools 0/1), as in ir::Tensor.
enum class DT : uint8_t { Real, Int };

struct Buffer {
  enum class Storage : uint8_t { Input, Const, Temp };
  DT dt = DT::Real;
  int64_t size = 0;  // elements
  Storage storage = Storage::Temp;
  int index = -1;  // Input: argument number; Const: constant number
  int slot = -1;   // Temp: physical slot (buffer reuse)
};

// An affine strided view of a buffer: element [o] is at offset + Σ o_d * strides[d].
// Transposes, replicates (stride 0), constant indexes and in-bounds affine gathers are
// views, so they cost nothing until a kernel reads them.
struct View {
  int buf = -1;
  int64_t offset = 0;
  Shape shape;
  Strides strides;
  bool operator==(const View &o) const {
    return buf == o.buf && offset == o.offset && shape == o.shape && strides == o.strides;
  }
};

Strides row_major(const Shape &s);
bool is_canonical(const View &v);  // row-major contiguous (size-1 dims ignored)
bool is_broadcast(const View &v);  // one element repeated (every stride 0 or dim 1)
View canonical_view(int buf, const Shape &s, int64_t offset = 0);

// A fused elementwise program over `shape`: instructions in SSA order, the last one is
// the result. Leaves are views of the program's shape (broadcasts have zero strides).
struct MInst {
  enum Op : uint8_t { Leaf, Un, Bin, Sel } op = Leaf;
  DT dt = DT::Real;  // result storage type
  DT in = DT::Real;  // operand storage type (Un, Bin; Sel: of the branches)
  ir::UnOp un = ir::UnOp::Neg;
  ir::BinOp bin = ir::BinOp::Add;
  int a = -1, b = -1, c = -1;  // operand instructions; Leaf: a = leaf number
};
struct MapProg {
  Shape shape;
  std::vector<View> leaves;
  std::vector<DT> leaf_dt;
  std::vector<MInst> code;
  DT dt() const { return code.back().dt; }
  int ops() const;  // non-leaf instructions
};

// The scalar interpreter for index functions: registers hold an int64 or a double; code
// is straight-line except Loop, which runs the next `b` instructions over a box and sums.
union Reg {
  int64_t i;
  double r;
};
struct VInst {
  enum Op : uint8_t { ConstI, ConstR, Load, Un, Bin, Sel, InB, Loop } op = ConstI;
  DT dt = DT::Int;  // result type (Load: the capture's; Loop: the sum's)
  DT in = DT::Int;  // operand type (Un, Bin)
  ir::UnOp un = ir::UnOp::Neg;
  ir::BinOp bin = ir::BinOp::Add;
  int dst = 0, a = 0, b = 0, c = 0;
  int64_t imm = 0;
  double dimm = 0;
  int pool = 0, npool = 0;  // Load: index registers; Loop: dims (pool64) of binders a, a+1, ...
};
struct VmProg {
  std::vector<VInst> code;
  std::vector<int> pool;
  std::vector<int64_t> pool64;
  std::vector<View> caps;  // arrays the code reads (bounds-checked: out of bounds reads 0)
  std::vector<DT> cap_dt;
  int nregs = 0;
  int nbind = 0;             // registers 0..nbind-1 are set by the kernel (the binders)
  std::vector<int> results;  // registers of the index components
};

// ---- kernels ----
struct MapK {  // out[off + l] = prog[l] for every linear index l of prog.shape
  MapProg prog;
  int out = -1;
  int64_t out_off = 0;
};
// out[r] = Σ_j x[j, r], j ascending from 0 (the reference's order, so exact). Column
// order: prog is x over [K] ++ R, each row added into out (vectorised over r). Row order
// (when the summed axis is the contiguous one, and for full sums): prog is x with the
// summed axis moved last, R ++ [K], and each out[r] sums a contiguous run.
struct ReduceK {
  MapProg prog;
  int out = -1;
  bool rows = false;
};
// One or more C(m,n) = Σ_k A(m,k) B(k,n) on strided operands (a loop over batch dims).
struct GemmK {
  int a = -1, b = -1, c = -1;
  int64_t a_off = 0, b_off = 0;
  int64_t M = 1, N = 1, K = 0;
  int64_t a_rs = 0, a_cs = 0, b_rs = 0, b_cs = 0;  // A(m,k) at a_off + m a_rs + k a_cs
  bool c_row = true;                               // C(m,n) at m N + n, else n M + m
  Shape loop;                                      // batch dims
  Strides la, lb, lc;                              // their strides in A, B, C
};
// gather: out[is ++ r] = src[ix(is) ++ r] (0 out of bounds); scatter: out[ix(is) ++ r] +=
// src[is ++ r] (dropped out of bounds). The trailing slice r is contiguous in src.
struct GatherK {
  bool scatter = false;
  View src;
  Shape out_shape;
  size_t m1 = 0, m2 = 0;  // binders, index components
  int64_t inner = 1;
  VmProg ix;
  int out = -1;
  // Set by compile (runtime.cpp) when ix reads no data but constants and the domain has
  // at most kMaxTable points: ix evaluated once, one offset per domain point (row-major):
  // gather, the source element of the slice (src.offset included); scatter, the output
  // element of the slice; -1 out of bounds. The kernel then copies / adds slices without
  // running ix. Null: ix is interpreted per point.
  std::shared_ptr<const std::vector<int64_t>> table;
  static constexpr int64_t kMaxTable = int64_t{1} << 24;
};
using KernelBody = std::variant<MapK, ReduceK, GemmK, GatherK>;
struct Kernel {
  KernelBody body;
  std::string note;  // why this kernel exists (materialised transpose, concat part, ...)
};

struct OutputSpec {
  View view;
  ir::Elem elem = ir::Elem::Real;
};

struct Plan {
  std::vector<std::pair<std::string, ir::Type>> inputs;
  std::vector<int> input_buf;  // buffer of each input
  std::vector<Buffer> bufs;
  std::vector<std::shared_ptr<const ir::Tensor>> consts;
  std::vector<Kernel> kernels;
  std::vector<OutputSpec> outputs;
  std::vector<std::string> output_names;
  std::vector<int64_t> slot_bytes;  // physical slots
  int reused = 0;                   // temp buffers placed in a slot freed earlier
};

// Buffers each kernel reads and writes (for lifetimes and the printer).
std::vector<int> kernel_reads(const Kernel &k);
int kernel_write(const Kernel &k);

// Lowers a bulk program (throws ExecError on build1/share or an ill-typed program).
struct LowerOptions {
  bool gemm = true;
  bool fuse = true;
  size_t real_bytes = 8;
};
Plan lower(const ir::Program &p, const LowerOptions &o);
std::string print_plan(const Plan &p);

}  // namespace rml::exec::detail
