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
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <unordered_map>

#include "array/exec/exec.hpp"
#include "array/exec/plan.hpp"
#include "array/ir/eval.hpp"

namespace rml::exec::detail {

using ir::BinOp;
using ir::Elem;
using ir::Kind;
using ir::Node;
using ir::Term;
using ir::UnOp;

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

namespace {

[[noreturn]] void fail(const std::string &m) { throw ExecError("exec: " + m); }

DT dt_of(Elem e) { return e == Elem::Real ? DT::Real : DT::Int; }

// ---------------------------------------------------------------------------------------
// 1. SSA graph

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

  int add(SOp op) {
    std::string key = cse_key(op);
    if (!key.empty()) {
      auto [it, fresh] = cse_.emplace(key, static_cast<int>(ops.size()));
      if (!fresh) return it->second;
    }
    ops.push_back(std::move(op));
    return static_cast<int>(ops.size()) - 1;
  }
  void push(const std::string &x, int id) { env_[x].push_back(id); }
  void pop(const std::string &x) { env_[x].pop_back(); }

  int build(const Term &t) {
    // Let chains are walked iteratively: AD programs nest thousands of lets.
    std::vector<std::string> pushed;
    Term cur = t;
    while (cur->kind == Kind::Let) {
      int u = build(cur->kids[0]);
      push(cur->name, u);
      pushed.push_back(cur->name);
      cur = cur->kids[1];
    }
    int r = build_node(cur);
    for (auto it = pushed.rbegin(); it != pushed.rend(); ++it) pop(*it);
    return r;
  }

 private:
  std::unordered_map<std::string, std::vector<int>> env_;
  std::unordered_map<const Node *, std::vector<std::string>> fv_;
  std::map<std::pair<const Node *, std::vector<int>>, int> memo_;
  std::unordered_map<std::string, int> cse_;

  int lookup(const std::string &x) const {
    auto it = env_.find(x);
    if (it == env_.end() || it->second.empty()) fail("unbound variable '" + x + "'");
    return it->second.back();
  }

  static std::string cse_key(const SOp &op) {
    if (op.kind == Kind::Var) return "";  // inputs are distinct
    std::ostringstream k;
    k << static_cast<int>(op.kind) << '|' << op.type.str() << '|';
    for (int a : op.args) k << a << ',';
    k << '|';
    switch (op.kind) {
      case Kind::Const: k << op.value.get(); break;
      case Kind::Unary: k << static_cast<int>(op.node->un); break;
      case Kind::Binary: k << static_cast<int>(op.node->bin); break;
      case Kind::Replicate:
      case Kind::Iota: k << op.node->k; break;
      case Kind::Transpose:
      case Kind::Reshape:
        for (auto d : op.node->shape_arg) k << d << ',';
        break;
      case Kind::Gather:
      case Kind::Scatter:
        k << op.node;
        for (auto &[n, id] : op.caps) k << ';' << n << '=' << id;
        break;
      default: break;
    }
    return k.str();
  }

  const std::vector<std::string> &fv(const Term &root) {
    std::vector<std::pair<const Node *, bool>> st{{root.get(), false}};
    while (!st.empty()) {
      auto [n, ready] = st.back();
      st.pop_back();
      if (fv_.count(n)) continue;
      if (!ready) {
        st.emplace_back(n, true);
        for (auto &k : n->kids)
          if (!fv_.count(k.get())) st.emplace_back(k.get(), false);
        for (auto &k : n->ix)
          if (!fv_.count(k.get())) st.emplace_back(k.get(), false);
        continue;
      }
      std::set<std::string> s;
      auto add_all = [&](const Term &k, const std::vector<std::string> &minus) {
        for (auto &x : fv_.at(k.get()))
          if (std::find(minus.begin(), minus.end(), x) == minus.end()) s.insert(x);
      };
      switch (n->kind) {
        case Kind::Var: s.insert(n->name); break;
        case Kind::Let:
          add_all(n->kids[0], {});
          add_all(n->kids[1], {n->name});
          break;
        case Kind::Build1: add_all(n->kids[0], {n->name}); break;
        default:
          for (auto &k : n->kids) add_all(k, {});
          for (auto &k : n->ix) add_all(k, n->binders);
      }
      fv_[n] = std::vector<std::string>(s.begin(), s.end());
    }
    return fv_.at(root.get());
  }

  int build_node(const Term &t) {
    std::vector<int> key_ids;
    for (auto &x : fv(t)) key_ids.push_back(lookup(x));
    auto mk = std::make_pair(t.get(), key_ids);
    if (auto it = memo_.find(mk); it != memo_.end()) return it->second;
    int id = build_fresh(t);
    memo_.emplace(std::move(mk), id);
    return id;
  }

  int build_fresh(const Term &t) {
    SOp op;
    op.kind = t->kind;
    op.type = t->type;
    op.node = t.get();
    switch (t->kind) {
      case Kind::Var: return lookup(t->name);
      case Kind::Let: return build(t);
      case Kind::Build1: fail("build1 in the program (run bot first)");
      case Kind::Share: fail("share in the program (run shareToLet first)");
      case Kind::Const: op.value = t->value; return add(std::move(op));
      case Kind::Iota: return add(std::move(op));
      case Kind::Gather:
      case Kind::Scatter: {
        op.args.push_back(build(t->kids[0]));
        std::set<std::string> names;
        for (auto &c : t->ix)
          for (auto &x : fv(c))
            if (std::find(t->binders.begin(), t->binders.end(), x) == t->binders.end()) names.insert(x);
        for (auto &x : names) op.caps.emplace_back(x, lookup(x));
        return add(std::move(op));
      }
      default: break;
    }
    for (auto &k : t->kids) op.args.push_back(build(k));
    if (t->kind == Kind::Cond && ops[static_cast<size_t>(op.args[0])].kind == Kind::Const)
      return ops[static_cast<size_t>(op.args[0])].value->i.at(0) ? op.args[1] : op.args[2];
    if ((t->kind == Kind::Unary || t->kind == Kind::Binary) && ir::numel(t->type.shape) <= 16) {
      bool all_const = true;
      for (int a : op.args) all_const = all_const && ops[static_cast<size_t>(a)].kind == Kind::Const;
      if (all_const) {  // fold with the reference operators: exact by construction
        const ir::Tensor &x = *ops[static_cast<size_t>(op.args[0])].value;
        SOp c;
        c.kind = Kind::Const;
        c.type = t->type;
        c.value = std::make_shared<const ir::Tensor>(
            t->kind == Kind::Unary ? ir::apply_unary(t->un, x)
                                   : ir::apply_binary(t->bin, x, *ops[static_cast<size_t>(op.args[1])].value));
        return add(std::move(c));
      }
    }
    return add(std::move(op));
  }
};

// ---------------------------------------------------------------------------------------
// 2. Values and kernels

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

View apply_affine(const View &v, const Affine &f) {
  View r;
  r.buf = v.buf;
  r.offset = v.offset;
  r.shape = f.out;
  r.strides.assign(f.out.size(), 0);
  for (size_t d = 0; d < v.strides.size(); ++d) {
    r.offset += f.c[d] * v.strides[d];
    for (size_t e = 0; e < f.out.size(); ++e) r.strides[e] += f.A[d][e] * v.strides[d];
  }
  return r;
}

Affine transpose_map(const Shape &perm, const Shape &in) {
  Affine f;
  size_t r = in.size(), m = perm.size();
  f.A.assign(r, std::vector<int64_t>(r, 0));
  f.c.assign(r, 0);
  f.out.resize(r);
  for (size_t p = 0; p < r; ++p) {
    size_t src = p < m ? static_cast<size_t>(perm[p]) : p;
    f.out[p] = in[src];
    f.A[src][p] = 1;
  }
  return f;
}

Affine replicate_map(int64_t k, const Shape &in) {
  Affine f;
  f.out = {k};
  f.out.insert(f.out.end(), in.begin(), in.end());
  f.A.assign(in.size(), std::vector<int64_t>(f.out.size(), 0));
  f.c.assign(in.size(), 0);
  for (size_t d = 0; d < in.size(); ++d) f.A[d][d + 1] = 1;
  return f;
}

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
  int const_i(int64_t v) {
    VInst in;
    in.op = VInst::ConstI;
    in.dt = DT::Int;
    in.imm = v;
    in.dst = reg();
    prog.code.push_back(in);
    return in.dst;
  }
  int const_r(double v) {
    VInst in;
    in.op = VInst::ConstR;
    in.dt = DT::Real;
    in.dimm = v;
    in.dst = reg();
    prog.code.push_back(in);
    return in.dst;
  }
  int zero(DT dt) { return dt == DT::Real ? const_r(0.0) : const_i(0); }
  int bin(BinOp op, DT in_dt, DT out, int a, int b) {
    VInst in;
    in.op = VInst::Bin;
    in.bin = op;
    in.in = in_dt;
    in.dt = out;
    in.a = a;
    in.b = b;
    in.dst = reg();
    prog.code.push_back(in);
    return in.dst;
  }
  int sel(int c, int a, int b, DT dt) {
    VInst in;
    in.op = VInst::Sel;
    in.dt = dt;
    in.a = c;
    in.b = a;
    in.c = b;
    in.dst = reg();
    prog.code.push_back(in);
    return in.dst;
  }
  int in_bounds(const std::vector<int> &cs, const Shape &dims) {
    int ok = -1;
    for (size_t k = 0; k < cs.size(); ++k) {
      VInst in;
      in.op = VInst::InB;
      in.a = cs[k];
      in.imm = dims[k];
      in.dst = reg();
      prog.code.push_back(in);
      ok = ok < 0 ? in.dst : bin(BinOp::And, DT::Int, DT::Int, ok, in.dst);
    }
    return ok;
  }
  int load(int cap, const std::vector<int> &idx) {
    VInst in;
    in.op = VInst::Load;
    in.a = cap;
    in.dt = prog.cap_dt[static_cast<size_t>(cap)];
    in.pool = static_cast<int>(prog.pool.size());
    in.npool = static_cast<int>(idx.size());
    prog.pool.insert(prog.pool.end(), idx.begin(), idx.end());
    in.dst = reg();
    prog.code.push_back(in);
    return in.dst;
  }
  // A loop over `dims` (binders in consecutive registers from `first`) summing body's
  // value; the body is emitted by `body(first)` and returns its value register.
  int loop(const Shape &dims, DT dt, const std::function<int(int)> &body) {
    int first = prog.nregs;
    for (size_t q = 0; q < dims.size(); ++q) reg();
    size_t at_loop = prog.code.size();
    VInst in;
    in.op = VInst::Loop;
    in.dt = dt;
    in.a = first;
    in.pool = static_cast<int>(prog.pool64.size());
    in.npool = static_cast<int>(dims.size());
    prog.pool64.insert(prog.pool64.end(), dims.begin(), dims.end());
    in.dst = reg();
    prog.code.push_back(in);
    int v = body(first);
    prog.code[at_loop].c = v;
    prog.code[at_loop].b = static_cast<int>(prog.code.size() - at_loop - 1);
    return prog.code[at_loop].dst;
  }

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

  void run(const ir::Program &p, const std::vector<int> &outputs, const std::vector<int> &input_ids) {
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

  // ---- buffers and values ----
  int new_buf(DT dt, int64_t size, Buffer::Storage s = Buffer::Storage::Temp, int index = -1) {
    Buffer b;
    b.dt = dt;
    b.size = size;
    b.storage = s;
    b.index = index;
    plan.bufs.push_back(b);
    return static_cast<int>(plan.bufs.size()) - 1;
  }
  int const_buf(const std::shared_ptr<const ir::Tensor> &t) {
    if (auto it = const_buf_.find(t.get()); it != const_buf_.end()) return it->second;
    plan.consts.push_back(t);
    int b = new_buf(dt_of(t->elem), static_cast<int64_t>(t->numel()), Buffer::Storage::Const,
                    static_cast<int>(plan.consts.size()) - 1);
    const_buf_.emplace(t.get(), b);
    return b;
  }
  View zeros(DT dt, const Shape &s) {
    int &b = dt == DT::Real ? zero_r_ : zero_i_;
    if (b < 0) b = const_buf(std::make_shared<const ir::Tensor>(dt == DT::Real ? ir::Tensor::real(0) : ir::Tensor::integer(0)));
    return View{b, 0, s, Strides(s.size(), 0)};
  }

  static MapProg leaf_prog(const View &v, DT dt) {
    MapProg p;
    p.shape = v.shape;
    p.leaves = {v};
    p.leaf_dt = {dt};
    MInst l;
    l.op = MInst::Leaf;
    l.dt = dt;
    l.a = 0;
    p.code = {l};
    return p;
  }
  static MapProg prog_of(const Val &v) { return v.expr ? v.prog : leaf_prog(v.view, dt_of(v.elem)); }

  // Appends y's code to x (leaves deduplicated); returns the index of y's result in x.
  static int append(MapProg &x, const MapProg &y) {
    std::vector<int> inst_map(y.code.size());
    for (size_t q = 0; q < y.code.size(); ++q) {
      MInst in = y.code[q];
      if (in.op == MInst::Leaf) {
        const View &v = y.leaves[static_cast<size_t>(in.a)];
        int leaf = -1;
        for (size_t l = 0; l < x.leaves.size(); ++l)
          if (x.leaves[l] == v) leaf = static_cast<int>(l);
        if (leaf < 0) {
          x.leaves.push_back(v);
          x.leaf_dt.push_back(in.dt);
          leaf = static_cast<int>(x.leaves.size()) - 1;
        }
        int found = -1;
        for (size_t k = 0; k < x.code.size(); ++k)
          if (x.code[k].op == MInst::Leaf && x.code[k].a == leaf) found = static_cast<int>(k);
        if (found >= 0) {
          inst_map[q] = found;
          continue;
        }
        in.a = leaf;
      } else {
        if (in.a >= 0) in.a = inst_map[static_cast<size_t>(in.a)];
        if (in.b >= 0) in.b = inst_map[static_cast<size_t>(in.b)];
        if (in.c >= 0) in.c = inst_map[static_cast<size_t>(in.c)];
      }
      x.code.push_back(in);
      inst_map[q] = static_cast<int>(x.code.size()) - 1;
    }
    return inst_map.back();
  }

  void emit(KernelBody body, std::string note) { plan.kernels.push_back(Kernel{std::move(body), std::move(note)}); }

  View materialise(Val &v, const std::string &note) {
    if (!v.expr) return v.view;
    int b = new_buf(v.prog.dt(), ir::numel(v.prog.shape));
    View out = canonical_view(b, v.prog.shape);
    emit(MapK{std::move(v.prog), b, 0}, note);
    v.expr = false;
    v.view = out;
    v.prog = MapProg{};
    return out;
  }
  View contiguous(const Val &v, const std::string &note) {
    if (!v.expr && is_canonical(v.view)) return v.view;
    Val copy = v;
    if (!copy.expr) {
      copy.prog = leaf_prog(v.view, dt_of(v.elem));
      copy.expr = true;
    }
    return materialise(copy, note);
  }
  // A view whose dims from `lead` on are contiguous (whole trailing slices can be copied).
  View slice_contiguous(const Val &v, size_t lead, const std::string &note) {
    if (!v.expr) {
      Shape rest(v.view.shape.begin() + static_cast<long>(lead), v.view.shape.end());
      Strides rm = row_major(rest);
      bool ok = true;
      for (size_t d = 0; d < rest.size(); ++d) ok = ok && (rest[d] == 1 || v.view.strides[lead + d] == rm[d]);
      if (ok || ir::numel(v.view.shape) == 0) return v.view;
    }
    return contiguous(v, note);
  }

  // Applies an affine index map to a value: a view stays a view; a pending program has
  // the map pushed into its leaves unless that would recompute elements.
  Val map_affine(Val v, const Affine &f, const std::string &note) {
    if (v.expr && ir::numel(f.out) > ir::numel(v.prog.shape)) materialise(v, note);
    if (!v.expr) {
      v.view = apply_affine(v.view, f);
      return v;
    }
    for (auto &l : v.prog.leaves) l = apply_affine(l, f);
    v.prog.shape = f.out;
    return v;
  }

  Val finish_expr(Val v, int id) {
    constexpr int kMaxFused = 48;  // keeps register blocks in cache and compile linear
    if (!opt_.fuse || uses_[static_cast<size_t>(id)] > 1 || v.prog.ops() > kMaxFused)
      materialise(v, opt_.fuse ? "shared" : "unfused");
    return v;
  }

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

  void count_uses(const std::vector<int> &outputs) {
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

  void lower_op(int id);
  bool try_gemm(const Val &t, const Shape &out_shape, Val &result);
  std::optional<AffForm> affine(const Term &t, const std::vector<std::string> &binders, const SOp &o) const;
  void assign_slots();
};

int VmCompiler::cap_ssa(int id) {
  if (auto it = cap_of_ssa_.find(id); it != cap_of_ssa_.end()) return it->second;
  View v = L_.materialise(L_.val_mut(id), "read by an index function");
  prog.caps.push_back(v);
  prog.cap_dt.push_back(dt_of(L_.op(id).type.elem));
  int c = static_cast<int>(prog.caps.size()) - 1;
  cap_of_ssa_.emplace(id, c);
  return c;
}

int VmCompiler::cap_const(const std::shared_ptr<const ir::Tensor> &t) {
  if (auto it = cap_of_const_.find(t.get()); it != cap_of_const_.end()) return it->second;
  prog.caps.push_back(canonical_view(L_.const_buf(t), t->shape));
  prog.cap_dt.push_back(dt_of(t->elem));
  int c = static_cast<int>(prog.caps.size()) - 1;
  cap_of_const_.emplace(t.get(), c);
  return c;
}

int VmCompiler::at(const Term &t, const std::vector<int> &idx, const LEnv *env) {
  const Node &n = *t;
  DT dt = dt_of(n.type.elem);
  switch (n.kind) {
    case Kind::Const:
      if (n.type.shape.empty()) return dt == DT::Real ? const_r(n.value->r[0]) : const_i(n.value->i[0]);
      return load(cap_const(n.value), idx);
    case Kind::Iota: return idx.at(0);
    case Kind::Var: {
      for (const LEnv *e = env; e; e = e->next)
        if (e->name == n.name) return e->lazy ? at(e->lazy, idx, e->lazy_env) : e->reg;
      for (auto it = names_.rbegin(); it != names_.rend(); ++it)
        if (it->first == n.name) return load(cap_ssa(it->second), idx);
      fail("unbound variable '" + n.name + "' in an index function");
    }
    case Kind::Let: {
      LEnv frame;
      frame.name = n.name;
      frame.next = env;
      if (n.kids[0]->type.shape.empty()) frame.reg = at(n.kids[0], {}, env);
      else {
        frame.lazy = n.kids[0];
        frame.lazy_env = env;
      }
      return at(n.kids[1], idx, &frame);
    }
    case Kind::Cond: {
      int b = at(n.kids[0], {}, env);
      int u = at(n.kids[1], idx, env), v = at(n.kids[2], idx, env);
      return sel(b, u, v, dt);
    }
    case Kind::Unary: {
      VInst in;
      in.op = VInst::Un;
      in.un = n.un;
      in.in = dt_of(n.kids[0]->type.elem);
      in.dt = dt;
      in.a = at(n.kids[0], idx, env);
      in.dst = reg();
      prog.code.push_back(in);
      return in.dst;
    }
    case Kind::Binary: {
      int a = at(n.kids[0], idx, env), b = at(n.kids[1], idx, env);
      return bin(n.bin, dt_of(n.kids[0]->type.elem), dt, a, b);
    }
    case Kind::Index: {
      std::vector<int> cs;
      for (size_t q = 1; q < n.kids.size(); ++q) cs.push_back(at(n.kids[q], {}, env));
      if (cs.empty()) return at(n.kids[0], idx, env);
      int ok = in_bounds(cs, n.kids[0]->type.shape);
      std::vector<int> full = cs;
      full.insert(full.end(), idx.begin(), idx.end());
      int v = at(n.kids[0], full, env);
      return sel(ok, v, zero(dt), dt);
    }
    case Kind::SumOuter: {
      return loop({n.kids[0]->type.shape[0]}, dt, [&](int j) {
        std::vector<int> full{j};
        full.insert(full.end(), idx.begin(), idx.end());
        return at(n.kids[0], full, env);
      });
    }
    case Kind::Gather: {
      size_t m1 = n.binders.size();
      std::vector<LEnv> frames(m1);
      const LEnv *benv = env;
      for (size_t b = 0; b < m1; ++b) {
        frames[b].name = n.binders[b];
        frames[b].reg = idx[b];
        frames[b].next = benv;
        benv = &frames[b];
      }
      std::vector<int> cs;
      for (auto &c : n.ix) cs.push_back(at(c, {}, benv));
      std::vector<int> full = cs;
      full.insert(full.end(), idx.begin() + static_cast<long>(m1), idx.end());
      int v = at(n.kids[0], full, env);
      if (cs.empty()) return v;
      return sel(in_bounds(cs, n.kids[0]->type.shape), v, zero(dt), dt);
    }
    case Kind::Scatter: {
      size_t m1 = n.binders.size(), m2 = n.ix.size();
      Shape dom(n.kids[0]->type.shape.begin(), n.kids[0]->type.shape.begin() + static_cast<long>(m1));
      return loop(dom, dt, [&](int first) {
        std::vector<LEnv> frames(m1);
        const LEnv *benv = env;
        for (size_t b = 0; b < m1; ++b) {
          frames[b].name = n.binders[b];
          frames[b].reg = first + static_cast<int>(b);
          frames[b].next = benv;
          benv = &frames[b];
        }
        int match = -1;
        for (size_t k = 0; k < m2; ++k) {
          int e = bin(BinOp::Eq, DT::Int, DT::Int, at(n.ix[k], {}, benv), idx[k]);
          match = match < 0 ? e : bin(BinOp::And, DT::Int, DT::Int, match, e);
        }
        std::vector<int> full;
        for (size_t b = 0; b < m1; ++b) full.push_back(first + static_cast<int>(b));
        full.insert(full.end(), idx.begin() + static_cast<long>(m2), idx.end());
        int v = at(n.kids[0], full, env);
        return match < 0 ? v : sel(match, v, zero(dt), dt);
      });
    }
    case Kind::FromList: {
      std::vector<int> rest(idx.begin() + 1, idx.end());
      int acc = zero(dt);
      for (size_t q = 0; q < n.kids.size(); ++q) {
        int v = at(n.kids[q], rest, env);
        acc = sel(bin(BinOp::Eq, DT::Int, DT::Int, idx[0], const_i(static_cast<int64_t>(q))), v, acc, dt);
      }
      return acc;
    }
    case Kind::Replicate: return at(n.kids[0], std::vector<int>(idx.begin() + 1, idx.end()), env);
    case Kind::Transpose: {
      std::vector<int> x = idx;
      for (size_t p = 0; p < n.shape_arg.size(); ++p) x[static_cast<size_t>(n.shape_arg[p])] = idx[p];
      return at(n.kids[0], x, env);
    }
    case Kind::Reshape: {
      const Shape &src = n.kids[0]->type.shape;
      if (src == n.type.shape) return at(n.kids[0], idx, env);
      Strides rm = row_major(n.type.shape), srm = row_major(src);
      int lin = const_i(0);
      for (size_t d = 0; d < idx.size(); ++d)
        lin = bin(BinOp::Add, DT::Int, DT::Int, lin, bin(BinOp::Mul, DT::Int, DT::Int, idx[d], const_i(rm[d])));
      std::vector<int> x;
      for (size_t d = 0; d < src.size(); ++d) {
        int q = bin(BinOp::IDiv, DT::Int, DT::Int, lin, const_i(srm[d]));
        x.push_back(bin(BinOp::Mod, DT::Int, DT::Int, q, const_i(src[d])));
      }
      return at(n.kids[0], x, env);
    }
    case Kind::Build1: fail("build1 in an index function (run bot first)");
    case Kind::Share: fail("share in an index function (run shareToLet first)");
  }
  fail("unknown node kind");
}

std::optional<AffForm> Lowerer::affine(const Term &t, const std::vector<std::string> &binders, const SOp &o) const {
  constexpr int64_t kLimit = int64_t{1} << 31;  // no overflow in the products below
  auto small = [&](const AffForm &f) {
    if (std::llabs(f.c) > kLimit) return false;
    for (auto a : f.coef)
      if (std::llabs(a) > kLimit) return false;
    return true;
  };
  std::function<std::optional<AffForm>(const Term &)> go = [&](const Term &x) -> std::optional<AffForm> {
    AffForm f;
    f.coef.assign(binders.size(), 0);
    switch (x->kind) {
      case Kind::Const:
        if (!x->type.shape.empty()) return std::nullopt;
        f.c = x->value->i.at(0);
        return small(f) ? std::optional(f) : std::nullopt;
      case Kind::Var: {
        for (size_t b = binders.size(); b-- > 0;)
          if (binders[b] == x->name) {
            f.coef[b] = 1;
            return f;
          }
        for (auto &[name, id] : o.caps)
          if (name == x->name && op(id).kind == Kind::Const && op(id).type.shape.empty()) {
            f.c = op(id).value->i.at(0);
            return small(f) ? std::optional(f) : std::nullopt;
          }
        return std::nullopt;
      }
      case Kind::Unary: {
        if (x->un != UnOp::Neg) return std::nullopt;
        auto a = go(x->kids[0]);
        if (!a) return std::nullopt;
        a->c = -a->c;
        for (auto &v : a->coef) v = -v;
        return a;
      }
      case Kind::Binary: {
        if (x->bin != BinOp::Add && x->bin != BinOp::Sub && x->bin != BinOp::Mul) return std::nullopt;
        auto a = go(x->kids[0]);
        if (!a) return std::nullopt;
        auto b = go(x->kids[1]);
        if (!b) return std::nullopt;
        bool a_const = std::all_of(a->coef.begin(), a->coef.end(), [](int64_t v) { return v == 0; });
        bool b_const = std::all_of(b->coef.begin(), b->coef.end(), [](int64_t v) { return v == 0; });
        if (x->bin == BinOp::Mul) {
          if (!a_const && !b_const) return std::nullopt;
          const AffForm &k = a_const ? *a : *b, &v = a_const ? *b : *a;
          f.c = v.c * k.c;
          for (size_t q = 0; q < f.coef.size(); ++q) f.coef[q] = v.coef[q] * k.c;
        } else {
          int64_t s = x->bin == BinOp::Add ? 1 : -1;
          f.c = a->c + s * b->c;
          for (size_t q = 0; q < f.coef.size(); ++q) f.coef[q] = a->coef[q] + s * b->coef[q];
        }
        return small(f) ? std::optional(f) : std::nullopt;
      }
      default: return std::nullopt;
    }
  };
  return go(t);
}

void Lowerer::lower_op(int id) {
  const SOp &o = op(id);
  Val &out = vals_[static_cast<size_t>(id)];
  out.elem = o.type.elem;
  const Shape &shape = o.type.shape;
  DT dt = dt_of(o.type.elem);
  auto arg = [&](size_t k) -> const Val & { return val(o.args[k]); };
  switch (o.kind) {
    case Kind::Var:
      out.view = canonical_view(input_buf_of_op_.at(id), shape);
      return;
    case Kind::Const: out.view = canonical_view(const_buf(o.value), shape); return;
    case Kind::Iota: {
      auto t = std::make_shared<ir::Tensor>(ir::Tensor::zeros(Elem::Int, shape));
      for (int64_t j = 0; j < o.node->k; ++j) t->i[static_cast<size_t>(j)] = j;
      out.view = canonical_view(const_buf(t), shape);
      return;
    }
    case Kind::Unary:
    case Kind::Binary:
    case Kind::Cond: {
      Val v;
      v.elem = o.type.elem;
      v.expr = true;
      MInst in;
      in.dt = dt;
      if (o.kind == Kind::Cond) {
        View b = materialise(val_mut(o.args[0]), "condition");
        v.prog = prog_of(arg(1));
        int u = static_cast<int>(v.prog.code.size()) - 1;
        int w = append(v.prog, prog_of(arg(2)));
        int c = append(v.prog, leaf_prog(View{b.buf, b.offset, shape, Strides(shape.size(), 0)}, DT::Int));
        in.op = MInst::Sel;
        in.in = dt;
        in.a = c;
        in.b = u;
        in.c = w;
      } else {
        v.prog = prog_of(arg(0));
        in.a = static_cast<int>(v.prog.code.size()) - 1;
        in.in = dt_of(op(o.args[0]).type.elem);
        if (o.kind == Kind::Unary) {
          in.op = MInst::Un;
          in.un = o.node->un;
        } else {
          in.op = MInst::Bin;
          in.bin = o.node->bin;
          in.b = append(v.prog, prog_of(arg(1)));
        }
      }
      v.prog.code.push_back(in);
      out = finish_expr(std::move(v), id);
      return;
    }
    case Kind::Replicate: {
      Val v = arg(0);
      if (v.expr && o.node->k > 1) materialise(v, "replicated");
      out = map_affine(std::move(v), replicate_map(o.node->k, arg(0).shape()), "replicated");
      if (out.expr) out = finish_expr(std::move(out), id);
      return;
    }
    case Kind::Transpose: {
      out = map_affine(arg(0), transpose_map(o.node->shape_arg, arg(0).shape()), "transposed");
      if (out.expr) out = finish_expr(std::move(out), id);
      return;
    }
    case Kind::Reshape: {
      Val v = arg(0);
      auto reshape_view = [&](const View &x) {
        if (is_broadcast(x)) return View{x.buf, x.offset, shape, Strides(shape.size(), 0)};
        return canonical_view(x.buf, shape, x.offset);
      };
      if (v.expr) {
        bool agnostic = true;  // elementwise over contiguous or broadcast leaves: any shape
        for (auto &l : v.prog.leaves) agnostic = agnostic && (is_canonical(l) || is_broadcast(l));
        if (agnostic) {
          for (auto &l : v.prog.leaves) l = reshape_view(l);
          v.prog.shape = shape;
          out = finish_expr(std::move(v), id);
          return;
        }
      }
      View x = v.expr ? materialise(v, "reshaped") : v.view;
      if (!is_canonical(x) && !is_broadcast(x)) x = contiguous(v, "reshaped (copy)");
      out.view = reshape_view(x);
      return;
    }
    case Kind::Index: {
      const Val &t = arg(0);
      const Shape &ts = t.shape();
      size_t n = o.args.size() - 1;
      bool all_const = true;
      for (size_t k = 1; k <= n; ++k) all_const = all_const && op(o.args[k]).kind == Kind::Const;
      if (all_const) {
        Affine f;
        f.out = shape;
        f.A.assign(ts.size(), std::vector<int64_t>(shape.size(), 0));
        f.c.assign(ts.size(), 0);
        bool inb = true;
        for (size_t k = 0; k < n; ++k) {
          f.c[k] = op(o.args[k + 1]).value->i.at(0);
          inb = inb && f.c[k] >= 0 && f.c[k] < ts[k];
        }
        for (size_t r = 0; r < shape.size(); ++r) f.A[n + r][r] = 1;
        if (!inb) out.view = zeros(dt, shape);
        else {
          out = map_affine(t, f, "indexed");
          if (out.expr) out = finish_expr(std::move(out), id);
        }
        return;
      }
      GatherK k;
      k.src = slice_contiguous(t, n, "indexed (copy)");
      k.out_shape = shape;
      k.m1 = 0;
      k.m2 = n;
      k.inner = ir::numel(shape);
      VmCompiler vc(*this, {});
      for (size_t q = 1; q <= n; ++q) {
        View c = materialise(val_mut(o.args[q]), "index component");
        vc.prog.caps.push_back(c);
        vc.prog.cap_dt.push_back(DT::Int);
        vc.prog.results.push_back(vc.load(static_cast<int>(q - 1), {}));
      }
      k.ix = std::move(vc.prog);
      k.out = new_buf(dt, ir::numel(shape));
      out.view = canonical_view(k.out, shape);
      emit(std::move(k), "index");
      return;
    }
    case Kind::Gather:
    case Kind::Scatter: {
      bool is_gather = o.kind == Kind::Gather;
      const Node &n = *o.node;
      const Val &t = arg(0);
      size_t m1 = n.binders.size(), m2 = n.ix.size();
      if (ir::numel(shape) == 0) {
        out.view = zeros(dt, shape);
        return;
      }
      if (is_gather) {
        std::vector<AffForm> forms;
        for (auto &c : n.ix)
          if (auto f = affine(c, n.binders, o)) forms.push_back(*f);
        if (forms.size() == m2) {
          const Shape &ts = t.shape();
          bool inb = true;
          for (size_t k = 0; k < m2; ++k) {
            int64_t lo = forms[k].c, hi = forms[k].c;
            for (size_t b = 0; b < m1; ++b) {
              int64_t span = forms[k].coef[b] * (shape[b] - 1);
              (span < 0 ? lo : hi) += span;
            }
            inb = inb && lo >= 0 && hi < ts[k];
          }
          if (inb) {  // a strided view: transposes, diagonals, slices, replicates
            Affine f;
            f.out = shape;
            f.A.assign(ts.size(), std::vector<int64_t>(shape.size(), 0));
            f.c.assign(ts.size(), 0);
            for (size_t k = 0; k < m2; ++k) {
              f.c[k] = forms[k].c;
              for (size_t b = 0; b < m1; ++b) f.A[k][b] = forms[k].coef[b];
            }
            for (size_t r = 0; r + m2 < ts.size(); ++r) f.A[m2 + r][m1 + r] = 1;
            out = map_affine(t, f, "gathered");
            if (out.expr) out = finish_expr(std::move(out), id);
            return;
          }
        }
      }
      if (!is_gather && m1 == m2) {
        // scatter (\is. [is_{π0}, .., is_{πm}]) is a transpose (the gather transpose of a
        // transpose, common in AD output): no collisions, nothing out of bounds.
        Shape perm;
        for (auto &c : n.ix) {
          auto f = affine(c, n.binders, o);
          if (!f || f->c != 0) break;
          int one = -1;
          bool unit = true;
          for (size_t b = 0; b < m1; ++b) {
            if (f->coef[b] == 1 && one < 0) one = static_cast<int>(b);
            else if (f->coef[b] != 0) unit = false;
          }
          if (!unit || one < 0 || std::find(perm.begin(), perm.end(), one) != perm.end() ||
              t.shape()[static_cast<size_t>(one)] != shape[perm.size()])
            break;
          perm.push_back(one);
        }
        if (perm.size() == m2) {
          out = map_affine(t, transpose_map(perm, t.shape()), "scattered");
          if (out.expr) out = finish_expr(std::move(out), id);
          return;
        }
      }
      GatherK k;
      k.scatter = !is_gather;
      k.src = slice_contiguous(t, is_gather ? m2 : m1, is_gather ? "gathered (copy)" : "scattered (copy)");
      k.out_shape = shape;
      k.m1 = m1;
      k.m2 = m2;
      k.inner = ir::numel(Shape(shape.begin() + static_cast<long>(is_gather ? m1 : m2), shape.end()));
      VmCompiler vc(*this, o.caps);
      vc.prog.nbind = static_cast<int>(m1);
      vc.prog.nregs = static_cast<int>(m1);
      std::vector<VmCompiler::LEnv> frames(m1);
      const VmCompiler::LEnv *env = nullptr;
      for (size_t b = 0; b < m1; ++b) {
        frames[b].name = n.binders[b];
        frames[b].reg = static_cast<int>(b);
        frames[b].next = env;
        env = &frames[b];
      }
      for (auto &c : n.ix) vc.prog.results.push_back(vc.at(c, {}, env));
      k.ix = std::move(vc.prog);
      k.out = new_buf(dt, ir::numel(shape));
      out.view = canonical_view(k.out, shape);
      emit(std::move(k), is_gather ? "gather" : "scatter");
      return;
    }
    case Kind::SumOuter: {
      const Val &t = arg(0);
      if (opt_.gemm && try_gemm(t, shape, out)) return;
      int b = new_buf(dt, ir::numel(shape));
      MapProg x = prog_of(t);
      // Row order reads the summed axis innermost: better when that makes more leaves
      // contiguous, and for full sums (column order would add one element at a time).
      Shape rot(x.shape.begin() + 1, x.shape.end());
      rot.push_back(x.shape[0]);
      auto rotate = [&](const View &v) {
        View r{v.buf, v.offset, rot, Strides(v.strides.begin() + 1, v.strides.end())};
        r.strides.push_back(v.strides[0]);
        return r;
      };
      int col = 0, row = 0;
      for (auto &l : x.leaves)
        if (!is_broadcast(l)) {
          col += is_canonical(l);
          row += is_canonical(rotate(l));
        }
      bool rows = ir::numel(shape) == 1 || row > col;
      if (rows) {
        for (auto &l : x.leaves) l = rotate(l);
        x.shape = rot;
      }
      emit(ReduceK{std::move(x), b, rows}, "sumOuter");
      out.view = canonical_view(b, shape);
      return;
    }
    case Kind::FromList: {
      int b = new_buf(dt, ir::numel(shape));
      int64_t inner = ir::numel(op(o.args[0]).type.shape);
      for (size_t q = 0; q < o.args.size(); ++q)
        emit(MapK{prog_of(arg(q)), b, static_cast<int64_t>(q) * inner}, "array part " + std::to_string(q));
      out.view = canonical_view(b, shape);
      return;
    }
    default: fail(std::string("unexpected node kind in lowering"));
  }
}

// sumOuter (x * y) with x, y views over [K] ++ R: dims of R that only x strides are M
// (rows of A), those only y strides are N (columns of B), those both stride are batch
// dims (a loop), and dims neither strides are broadcasts of the result (stride 0 in the
// result view). Runs of M (N) dims that are affine in x (y) merge into one dimension.
bool Lowerer::try_gemm(const Val &t, const Shape &out_shape, Val &result) {
  if (!t.expr || t.elem != Elem::Real) return false;
  const MapProg &p = t.prog;
  const MInst &root = p.code.back();
  if (root.op != MInst::Bin || root.bin != BinOp::Mul) return false;
  if (p.code[static_cast<size_t>(root.a)].op != MInst::Leaf || p.code[static_cast<size_t>(root.b)].op != MInst::Leaf)
    return false;
  if (p.ops() != 1) return false;
  const View &X = p.leaves[static_cast<size_t>(p.code[static_cast<size_t>(root.a)].a)];
  const View &Y = p.leaves[static_cast<size_t>(p.code[static_cast<size_t>(root.b)].a)];
  const Shape &S = p.shape;
  const size_t P = S.size();
  const int64_t K = S[0];
  if (K > 1 && (X.strides[0] == 0 || Y.strides[0] == 0)) return false;
  enum Cls { M, N, B, Z };
  std::vector<Cls> cls(P, Z);
  for (size_t d = 1; d < P; ++d) {
    bool sx = X.strides[d] != 0, sy = Y.strides[d] != 0;
    cls[d] = S[d] == 1 ? Z : sx && !sy ? M : !sx && sy ? N : sx && sy ? B : Z;
  }
  auto runs = [&](Cls c, const Strides &s) {
    std::vector<std::vector<size_t>> rs;
    for (size_t d = 1; d < P; ++d) {
      if (cls[d] != c) continue;
      if (!rs.empty() && s[rs.back().back()] == s[d] * S[d]) rs.back().push_back(d);
      else rs.push_back({d});
    }
    std::vector<size_t> best;
    int64_t best_n = 0;
    for (auto &r : rs) {
      int64_t n = 1;
      for (auto d : r) n *= S[d];
      if (n > best_n) best = r, best_n = n;
    }
    return best;
  };
  std::vector<size_t> mrun = runs(M, X.strides), nrun = runs(N, Y.strides);
  std::vector<size_t> loops;
  for (size_t d = 1; d < P; ++d) {
    bool in_run = std::find(mrun.begin(), mrun.end(), d) != mrun.end() || std::find(nrun.begin(), nrun.end(), d) != nrun.end();
    if (cls[d] != Z && !in_run) loops.push_back(d);
  }
  int64_t Mt = 1, Nt = 1, L = 1;
  for (auto d : mrun) Mt *= S[d];
  for (auto d : nrun) Nt *= S[d];
  for (auto d : loops) L *= S[d];
  int64_t W = Mt * Nt * K;
  // Small or mostly-batched contractions are cheaper (and exact) as fused reductions.
  if (W < 64 || (L > 1 && W < 512)) return false;
  // C's layout: batch dims, then the M and N runs in the order they appear in the output.
  bool m_first = !mrun.empty() && (nrun.empty() || mrun[0] < nrun[0]);
  std::vector<size_t> lay = loops;
  const auto &first = m_first ? mrun : nrun, &second = m_first ? nrun : mrun;
  lay.insert(lay.end(), first.begin(), first.end());
  lay.insert(lay.end(), second.begin(), second.end());
  std::vector<int64_t> cstride(P, 0);
  int64_t acc = 1;
  for (size_t q = lay.size(); q-- > 0;) {
    cstride[lay[q]] = acc;
    acc *= S[lay[q]];
  }
  GemmK g;
  g.a = X.buf;
  g.b = Y.buf;
  g.a_off = X.offset;
  g.b_off = Y.offset;
  g.M = Mt;
  g.N = Nt;
  g.K = K;
  g.a_rs = mrun.empty() ? 0 : X.strides[mrun.back()];
  g.a_cs = X.strides[0];
  g.b_rs = Y.strides[0];
  g.b_cs = nrun.empty() ? 0 : Y.strides[nrun.back()];
  g.c_row = m_first || mrun.empty();
  for (auto d : loops) {
    g.loop.push_back(S[d]);
    g.la.push_back(X.strides[d]);
    g.lb.push_back(Y.strides[d]);
    g.lc.push_back(cstride[d]);
  }
  g.c = new_buf(DT::Real, acc);
  result.expr = false;
  result.view = View{g.c, 0, out_shape, Strides(out_shape.size(), 0)};
  for (size_t d = 1; d < P; ++d) result.view.strides[d - 1] = cls[d] == Z ? 0 : cstride[d];
  emit(std::move(g), "sumOuter of a product");
  return true;
}

void Lowerer::assign_slots() {
  const size_t nk = plan.kernels.size();
  std::vector<int64_t> last(plan.bufs.size(), -1);
  for (size_t k = 0; k < nk; ++k)
    for (int b : kernel_reads(plan.kernels[k])) last[static_cast<size_t>(b)] = static_cast<int64_t>(k);
  for (auto &o : plan.outputs) last[static_cast<size_t>(o.view.buf)] = static_cast<int64_t>(nk);
  std::multimap<int64_t, int> free_slots;  // bytes → slot
  auto bytes = [&](const Buffer &b) {
    return std::max<int64_t>(8, b.size * static_cast<int64_t>(b.dt == DT::Real ? opt_.real_bytes : 8));
  };
  for (size_t k = 0; k < nk; ++k) {
    Buffer &w = plan.bufs[static_cast<size_t>(kernel_write(plan.kernels[k]))];
    if (w.storage == Buffer::Storage::Temp && w.slot < 0) {
      int64_t by = bytes(w);
      if (auto it = free_slots.find(by); it != free_slots.end()) {
        w.slot = it->second;
        free_slots.erase(it);
        ++plan.reused;
      } else {
        w.slot = static_cast<int>(plan.slot_bytes.size());
        plan.slot_bytes.push_back(by);
      }
    }
    // Free after the kernel: a kernel never writes into a slot it reads.
    std::set<int> seen;
    std::vector<int> touched = kernel_reads(plan.kernels[k]);
    touched.push_back(kernel_write(plan.kernels[k]));
    for (int b : touched) {
      const Buffer &x = plan.bufs[static_cast<size_t>(b)];
      if (x.storage != Buffer::Storage::Temp || x.slot < 0 || !seen.insert(b).second) continue;
      if (last[static_cast<size_t>(b)] <= static_cast<int64_t>(k) && last[static_cast<size_t>(b)] != -2) {
        free_slots.emplace(bytes(x), x.slot);
        last[static_cast<size_t>(b)] = -2;  // freed once
      }
    }
  }
}

// ---------------------------------------------------------------------------------------
// Printing

std::string shape_str(const Shape &s) {
  std::string o = "[";
  for (size_t d = 0; d < s.size(); ++d) o += (d ? "," : "") + std::to_string(s[d]);
  return o + "]";
}

std::string view_str(const View &v) {
  std::string s = "b" + std::to_string(v.buf);
  if (v.offset) s += "+" + std::to_string(v.offset);
  if (is_broadcast(v) && ir::numel(v.shape) > 1) return s + "{bcast}";
  if (!is_canonical(v)) {
    s += "{";
    for (size_t d = 0; d < v.strides.size(); ++d) s += (d ? "," : "") + std::to_string(v.strides[d]);
    s += "}";
  }
  return s;
}

std::string prog_str(const MapProg &p) {
  std::vector<std::string> s(p.code.size());
  for (size_t q = 0; q < p.code.size(); ++q) {
    const MInst &in = p.code[q];
    auto A = [&](int k) { return s[static_cast<size_t>(k)]; };
    switch (in.op) {
      case MInst::Leaf: s[q] = view_str(p.leaves[static_cast<size_t>(in.a)]); break;
      case MInst::Un: s[q] = std::string(ir::op_name(in.un)) + "(" + A(in.a) + ")"; break;
      case MInst::Bin: s[q] = "(" + A(in.a) + " " + ir::op_name(in.bin) + " " + A(in.b) + ")"; break;
      case MInst::Sel: s[q] = "(" + A(in.a) + " ? " + A(in.b) + " : " + A(in.c) + ")"; break;
    }
  }
  return s.back();
}

const char *dt_name(DT d) { return d == DT::Real ? "real" : "int"; }

}  // namespace

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

std::string print_plan(const Plan &p) {
  std::ostringstream out;
  for (size_t k = 0; k < p.inputs.size(); ++k)
    out << "input b" << p.input_buf[k] << " = " << p.inputs[k].first << " : " << p.inputs[k].second.str() << "\n";
  for (size_t k = 0; k < p.kernels.size(); ++k) {
    const Kernel &ker = p.kernels[k];
    out << "k" << k << " ";
    int w = kernel_write(ker);
    const Buffer &wb = p.bufs[static_cast<size_t>(w)];
    std::visit(
        [&](const auto &b) {
          using B = std::decay_t<decltype(b)>;
          if constexpr (std::is_same_v<B, MapK>) {
            out << "map     b" << w;
            if (b.out_off) out << "+" << b.out_off;
            out << " " << dt_name(b.prog.dt()) << shape_str(b.prog.shape) << " = " << prog_str(b.prog);
            out << "  (" << b.prog.ops() << " ops fused)";
          } else if constexpr (std::is_same_v<B, ReduceK>) {
            const Shape &xs = b.prog.shape;
            Shape r = b.rows ? Shape(xs.begin(), xs.end() - 1) : Shape(xs.begin() + 1, xs.end());
            out << "reduce  b" << w << " " << dt_name(b.prog.dt()) << shape_str(r) << " = sumOuter[" << (b.rows ? xs.back() : xs[0])
                << "] " << prog_str(b.prog) << (b.rows ? "  (rows)" : "  (columns)");
          } else if constexpr (std::is_same_v<B, GemmK>) {
            out << "gemm    b" << w << " = A(b" << b.a << "+" << b.a_off << " " << b.M << "x" << b.K << " strides " << b.a_rs
                << "," << b.a_cs << ") * B(b" << b.b << "+" << b.b_off << " " << b.K << "x" << b.N << " strides " << b.b_rs
                << "," << b.b_cs << "), C " << (b.c_row ? "row" : "col") << "-major";
            if (!b.loop.empty()) out << ", batch " << shape_str(b.loop);
          } else {
            out << (b.scatter ? "scatter b" : "gather  b") << w << " " << dt_name(wb.dt) << shape_str(b.out_shape) << " <- "
                << view_str(b.src) << " (" << b.m1 << " binders, " << b.m2 << " components, slices of " << b.inner
                << ", index code " << b.ix.code.size() << " ops";
            if (b.table) out << ", table of " << b.table->size() << " offsets)";
            else out << ", interpreted)";
          }
        },
        ker.body);
    if (wb.storage == Buffer::Storage::Temp) out << "  @s" << wb.slot;
    out << "  -- " << ker.note << "\n";
  }
  for (size_t k = 0; k < p.outputs.size(); ++k) {
    out << "output " << k;
    if (k < p.output_names.size() && !p.output_names[k].empty()) out << " '" << p.output_names[k] << "'";
    out << " = " << view_str(p.outputs[k].view) << " " << shape_str(p.outputs[k].view.shape) << "\n";
  }
  int temps = 0;
  for (auto &b : p.bufs) temps += b.storage == Buffer::Storage::Temp;
  out << "buffers: " << temps << " temporaries in " << p.slot_bytes.size() << " slots (" << p.reused << " reused)\n";
  return out.str();
}

}  // namespace rml::exec::detail
