// ir::Term → C++ (emit_term.hpp): one case per node kind, each the loop of ir::evaluate's
// case for it (array/ir/eval.cpp), over buffers whose sizes are static.
#include "codegen/emit_term.hpp"

#include <charconv>
#include <functional>
#include <map>
#include <cmath>
#include <sstream>
#include <unordered_map>

#include "codegen/cpp_text.hpp"
#include "codegen/emit_cpp.hpp"

namespace rml::codegen {

const char *ir_elem_type(ir::Elem e) { return e == ir::Elem::Real ? "double" : "int64_t"; }

namespace {

using ir::Kind;
using ir::Shape;
using ir::Term;

std::string num(int64_t v) {
  if (v == INT64_MIN) return "(-9223372036854775807LL - 1)";
  return std::to_string(v) + (v > INT32_MAX || v < INT32_MIN ? "LL" : "");
}

// A value in the generated code: a pointer expression to its first element.
struct Value {
  Value(std::string p, ir::Type t, std::string s = "") : ptr(std::move(p)), type(std::move(t)), scalar(std::move(s)) {}
  std::string ptr;
  ir::Type type;
  std::string scalar;  // a loop's index: its name, read as a value
  std::string at0() const { return scalar.empty() ? ptr + "[0]" : scalar; }
};

constexpr int64_t kStackElements = 4096;
constexpr int64_t kStackBytes = 128 * 1024;  // a function's temporaries on the stack, at most

struct TermEmitter {
  std::ostringstream out;
  int indent = 1;
  int next = 0;
  std::vector<std::pair<std::string, Value>> env;
  std::unordered_map<const ir::Node *, int> uses;  // parents of each node in the term (a DAG)
  int64_t stack_bytes = 0;                          // of the temporaries declared on the stack so far

  void count_uses(const Term &t) {
    if (uses[t.get()]++ > 0) return;
    for (auto &k : t->kids) count_uses(k);
    for (auto &k : t->ix) count_uses(k);
  }

  std::ostream &line() {
    for (int k = 0; k < indent; ++k) out << "  ";
    return out;
  }
  std::string fresh(const char *hint) { return hint + std::to_string(next++); }

  // The node whose value is the function's result: it is written straight into rml_out
  // (the caller's buffer, which no operand aliases), not into a temporary then copied.
  const ir::Node *root = nullptr;
  // An in-place variant (emit_term_function's `io`): the operand that is rml_out itself.
  // It is right when rml_out is written only by the root's one loop (fused), each element
  // once, and read inside that loop only at the element being written (io_root_index):
  // every other read comes before the loop. io_bad says where that is not shown.
  bool io = false, io_bad = false, in_root_loop = false, root_fused = false;
  std::string io_root_index;

  // A buffer for the value of node `for_node`, of type t (zeroed when `zero`, as
  // Tensor::zeros starts): rml_out for the root, else a temporary.
  Value alloc(const ir::Type &t, bool zero, const ir::Node *for_node) {
    int64_t n = std::max<int64_t>(1, ir::numel(t.shape));
    const char *T = ir_elem_type(t.elem);
    if (for_node == root) {
      if (zero) line() << "std::fill_n(rml_out, " << n << ", " << T << "{});\n";
      return {"rml_out", t};
    }
    std::string b = fresh("t");
    if (n <= kStackElements && stack_bytes + n * 8 <= kStackBytes) {  // small, and the function's stack stays small
      stack_bytes += n * 8;
      line() << T << " " << b << "[" << n << "]" << (zero ? " = {}" : "") << ";  // " << t.str() << "\n";
    } else {
      line() << "static thread_local std::vector<" << T << "> " << b << "_buf(" << n << ");  // " << t.str() << "\n";
      line() << T << " *" << b << " = " << b << "_buf.data();\n";
      if (zero) line() << "std::fill_n(" << b << ", " << n << ", " << T << "{});\n";
    }
    return {b, t};
  }
  void copy(const std::string &dst_ptr, const std::string &src_ptr, int64_t n, bool add, ir::Elem e) {
    auto wrap = [](const std::string &p) { return p.find(' ') == std::string::npos ? p : "(" + p + ")"; };
    const std::string dst = wrap(dst_ptr), src = wrap(src_ptr);
    if (n == 1) {
      line() << dst << "[0] = " << (add ? add_expr(dst + "[0]", src + "[0]", e) : src + "[0]") << ";\n";
      return;
    }
    line() << "for (int64_t q = 0; q < " << n << "; ++q) " << dst << "[q] = " << (add ? add_expr(dst + "[q]", src + "[q]", e) : src + "[q]")
           << ";\n";
  }
  static std::string add_expr(const std::string &a, const std::string &b, ir::Elem e) {
    return e == ir::Elem::Real ? a + " + " + b : "rml::ops::int_add(" + a + ", " + b + ")";
  }
  // Row-major offset of the block at index `idx` (expressions) of `shape`; "-1" when out of
  // bounds, as array/ir/eval.cpp's block_offset.
  std::string block_offset(const Shape &shape, const std::vector<std::string> &idx) {
    std::string off = fresh("off"), ok = fresh("ok");
    line() << "int64_t " << off << " = 0;\n";
    line() << "bool " << ok << " = true;\n";
    for (size_t d = 0; d < idx.size(); ++d) {
      line() << "if (int64_t i = " << idx[d] << "; " << ok << " && i >= 0 && i < " << shape[d] << ") " << off << " = " << off << " * " << shape[d]
             << " + i;\n";
      line() << "else " << ok << " = false;\n";
    }
    int64_t inner = ir::numel(Shape(shape.begin() + static_cast<long>(idx.size()), shape.end()));
    line() << off << " = " << ok << " ? " << off << " * " << inner << " : -1;\n";
    return off;
  }

  // o[q] = e for every element (one statement for a scalar).
  void elementwise(const Value &o, int64_t N, const std::string &e) {
    if (N == 1) line() << o.ptr << "[0] = " << e << ";\n";
    else line() << "for (int64_t q = 0; q < " << N << "; ++q) " << o.ptr << "[q] = " << e << ";\n";
  }

  Value lookup(const std::string &x) {
    for (auto it = env.rbegin(); it != env.rend(); ++it)
      if (it->first == x) return it->second;
    throw CodegenError("codegen.internal", Span{}, "the lowered term reads an unbound variable '" + x + "'");
  }

  Value go(const Term &t) {
    const ir::Node &n = *t;
    const int64_t N = ir::numel(n.type.shape);
    const char *T = ir_elem_type(n.type.elem);
    switch (n.kind) {
      case Kind::Const: {
        std::string c = fresh("k");
        line() << "static const " << T << " " << c << "[] = {";
        const ir::Tensor &v = *n.value;
        for (int64_t q = 0; q < std::max<int64_t>(1, N); ++q) {
          if (q) out << ", ";
          if (q >= N) out << "0";
          else if (n.type.elem == ir::Elem::Real) out << real_literal(v.r[static_cast<size_t>(q)]);
          else out << num(v.i[static_cast<size_t>(q)]);
        }
        out << "};  // " << n.type.str() << "\n";
        return {c, n.type};
      }
      case Kind::Var: return lookup(n.name);
      case Kind::Let: {
        Value u = go(n.kids[0]);
        env.emplace_back(n.name, u);
        Value v = go(n.kids[1]);
        env.pop_back();
        return v;
      }
      case Kind::Cond: {  // strict: all three computed, then one selected
        Value b = go(n.kids[0]), u = go(n.kids[1]), v = go(n.kids[2]);
        if (u.ptr == "rml_out" || v.ptr == "rml_out") io_bad = true;  // (another name for it)
        std::string p = fresh("sel");
        line() << "const " << T << " *" << p << " = " << b.at0() << " ? " << u.ptr << " : " << v.ptr << ";\n";
        return {p, n.type};
      }
      case Kind::Unary:
      case Kind::Binary:
      case Kind::Replicate:
      case Kind::Transpose: return fused(t);
      case Kind::Index: {
        Value a = go(n.kids[0]);
        std::vector<std::string> idx;
        for (size_t q = 1; q < n.kids.size(); ++q) idx.push_back(go(n.kids[q]).at0());
        Value o = alloc(n.type, true, &n);
        std::string off = block_offset(a.type.shape, idx);
        line() << "if (" << off << " >= 0) for (int64_t q = 0; q < " << N << "; ++q) " << o.ptr << "[q] = " << a.ptr << "[" << off << " + q];\n";
        return o;
      }
      case Kind::SumOuter: return fused_sum(t);
      case Kind::Gather:
      case Kind::Scatter: return gather_scatter(n);
      case Kind::FromList: {
        std::vector<Value> kids;
        for (auto &k : n.kids) kids.push_back(go(k));
        Value o = alloc(n.type, false, &n);
        int64_t inner = ir::numel(n.kids[0]->type.shape);
        for (size_t q = 0; q < kids.size(); ++q) copy(o.ptr + " + " + std::to_string(static_cast<int64_t>(q) * inner), kids[q].ptr, inner, false, n.type.elem);
        return o;
      }
      case Kind::Reshape: {
        Value a = go(n.kids[0]);
        return {a.ptr, n.type};
      }
      case Kind::Build1: {
        if (Bound bound; expressible(t, bound)) return fused(t);  // its elements in one loop nest
        Value o = alloc(n.type, false, &n);
        int64_t inner = ir::numel(n.kids[0]->type.shape);
        std::string j = fresh("b");
        line() << "for (int64_t " << j << " = 0; " << j << " < " << n.k << "; ++" << j << ") {\n";
        ++indent;
        env.emplace_back(n.name, Value{"(&" + j + ")", ir::Type{ir::Elem::Int, {}}, j});
        Value v = go(n.kids[0]);
        env.pop_back();
        copy(o.ptr + " + " + j + " * " + std::to_string(inner), v.ptr, inner, false, n.type.elem);
        --indent;
        line() << "}\n";
        return o;
      }
      case Kind::Iota: {
        Value o = alloc(n.type, false, &n);
        line() << "for (int64_t j = 0; j < " << n.k << "; ++j) " << o.ptr << "[j] = j;\n";
        return o;
      }
      case Kind::Share: break;  // lowering never writes it (bot's CSE does)
    }
    throw CodegenError("codegen.internal", Span{}, "a lowered term holds a node rml compile does not write (" + ir::print(t).substr(0, 60) + ")");
  }

  // ---- fusion: elementwise chains computed inside their consumer's loop ----
  // An element of a unary or binary operation, a replicate or a transpose is an expression
  // of the elements of its operands, so such a node read once is not written to a buffer:
  // its element is computed where it is read (the value is the same: each element is the
  // same operations on the same operands). Not inside a replicate (it would compute each
  // element k times) and not when the term reads the node twice (it would compute it twice).
  // So is an element of a build (its body's, with the binder the element's first index),
  // and of an indexing whose indices are binders of enclosing builds in range of the
  // indexed dimensions (no bounds test is needed: a build's binder runs over 0..k-1 and
  // k is at most the dimension); `outer(a, b)`, build([m, n], \(i, j) => a[i] * b[j]),
  // is then a[i] * b[j] computed where it is read.
  using Leaves = std::unordered_map<const ir::Node *, Value>;
  using Bound = std::vector<std::pair<std::string, int64_t>>;  // binders of enclosing builds, with their ranges
  static bool elementwise(Kind k) { return k == Kind::Unary || k == Kind::Binary || k == Kind::Replicate || k == Kind::Transpose; }
  static const std::pair<std::string, int64_t> *binder(const Bound &bound, const std::string &x) {
    for (auto it = bound.rbegin(); it != bound.rend(); ++it)
      if (it->first == x) return &*it;
    return nullptr;
  }
  static bool bound_var(const Term &t, const Bound &bound) { return t->kind == Kind::Var && binder(bound, t->name); }
  // Whether t can be computed outside the loops (a buffer the fused loop reads): it reads
  // no binder of the enclosing builds.
  static bool outside(const Term &t, const Bound &bound) {
    if (bound.empty()) return true;
    for (auto &x : ir::free_vars(t))
      if (binder(bound, x)) return false;
    return true;
  }
  // The operands of t that a fused loop reads as elements (an indexing's indices are binders).
  static size_t element_kids(const ir::Node &t) { return t.kind == Kind::Index ? 1 : t.kids.size(); }
  // Whether t's element is an expression under `bound`: its operands each read in place,
  // a binder, or computed outside.
  bool expressible(const Term &t, Bound &bound) {
    if (t->kind == Kind::Build1) {
      bound.emplace_back(t->name, t->k);
      bool ok = operand_ok(*t, t->kids[0], bound);
      bound.pop_back();
      return ok;
    }
    if (t->kind == Kind::Index) {
      const Shape &sh = t->kids[0]->type.shape;
      for (size_t q = 1; q < t->kids.size(); ++q) {
        const auto *b = t->kids[q]->kind == Kind::Var ? binder(bound, t->kids[q]->name) : nullptr;
        if (!b || b->second > sh[q - 1]) return false;
      }
      return operand_ok(*t, t->kids[0], bound);
    }
    if (!elementwise(t->kind)) return false;
    for (auto &k : t->kids)
      if (!operand_ok(*t, k, bound)) return false;
    return true;
  }
  bool operand_ok(const ir::Node &parent, const Term &kid, Bound &bound) {
    return bound_var(kid, bound) || read_in_place(parent, kid, bound) || outside(kid, bound);
  }
  bool read_in_place(const ir::Node &parent, const Term &kid, Bound &bound) {
    if (uses[kid.get()] > 1 || parent.kind == Kind::Replicate) return false;
    if (elementwise(kid->kind)) {
      for (auto &k : kid->kids)
        if (!operand_ok(*kid, k, bound)) return false;
      return true;
    }
    return (kid->kind == Kind::Build1 || kid->kind == Kind::Index) && expressible(kid, bound);
  }
  // Writes the buffers the fused loop reads (every operand not read in place, nor a binder).
  void prepare(const Term &t, Leaves &leaves, Bound &bound) {
    if (t->kind == Kind::Build1) bound.emplace_back(t->name, t->k);
    for (size_t q = 0; q < element_kids(*t); ++q) {
      const Term &kid = t->kids[q];
      if (bound_var(kid, bound)) continue;
      if (read_in_place(*t, kid, bound)) prepare(kid, leaves, bound);
      else if (!leaves.count(kid.get())) leaves.emplace(kid.get(), go(kid));
    }
    if (t->kind == Kind::Build1) bound.pop_back();
  }
  void prepare(const Term &t, Leaves &leaves) {
    Bound bound;
    prepare(t, leaves, bound);
  }
  static std::string linear(const std::vector<std::string> &idx, const Shape &shape) {
    std::string e;
    int64_t stride = 1;
    for (size_t d = shape.size(); d-- > 0;) {
      std::string term = stride == 1 ? idx[d] : idx[d] + " * " + std::to_string(stride);
      e = e.empty() ? term : term + " + " + e;
      stride *= shape[d];
    }
    return e.empty() ? "0" : e;
  }
  static std::string unary_expr(const ir::Node &n, ir::Elem arg, const std::string &x) {
    std::string op = std::string("rml::ops::UnOp::") + unop_enumerator(n.un);
    if (arg == ir::Elem::Real)
      return n.type.elem == ir::Elem::Int ? "rml::ops::real_to_int(" + op + ", " + x + ")" : "rml::ops::real_unary(" + op + ", " + x + ")";
    if (n.type.elem == ir::Elem::Real) return "static_cast<double>(" + x + ")";
    return "rml::ops::int_unary(" + op + ", " + x + ")";
  }
  static std::string binary_expr(const ir::Node &n, ir::Elem arg, const std::string &x, const std::string &y) {
    std::string op = std::string("rml::ops::BinOp::") + binop_enumerator(n.bin);
    if (arg == ir::Elem::Real)
      return ops::is_comparison(n.bin) ? "rml::ops::compare(" + op + ", " + x + ", " + y + ")" : "rml::ops::real_binary(" + op + ", " + x + ", " + y + ")";
    return "rml::ops::int_binary(" + op + ", " + x + ", " + y + ")";
  }
  // The element of t at index idx (one expression per dimension). `names` binds the
  // binders of the builds above t to their loops' indices. The walk through the
  // elementwise nodes is one (walk); what a leaf read and an operation become is the
  // policy's: C++ expressions of doubles and ints (ScalarElem), or of four lanes
  // (LanesElem, for sums).
  std::vector<std::pair<std::string, std::string>> names;
  template <class P>
  typename P::R walk(const Term &t, const std::vector<std::string> &idx, const Leaves &leaves, P &p) {
    if (auto it = leaves.find(t.get()); it != leaves.end()) return p.leaf(t, it->second, idx);
    const ir::Node &n = *t;
    switch (n.kind) {
      case Kind::Var:
        for (auto it = names.rbegin(); it != names.rend(); ++it)
          if (it->first == n.name) return p.binder(it->second);
        break;
      case Kind::Unary: return p.unary(n, walk(n.kids[0], idx, leaves, p));
      case Kind::Binary: return p.binary(n, walk(n.kids[0], idx, leaves, p), walk(n.kids[1], idx, leaves, p));
      case Kind::Replicate: return walk(n.kids[0], std::vector<std::string>(idx.begin() + 1, idx.end()), leaves, p);
      case Kind::Transpose: {  // output dim p is input dim perm[p]
        std::vector<std::string> in(idx);
        for (size_t q = 0; q < n.shape_arg.size(); ++q) in[static_cast<size_t>(n.shape_arg[q])] = idx[q];
        return walk(n.kids[0], in, leaves, p);
      }
      case Kind::Build1: {  // element (i, rest) is the body's element rest with the binder i
        names.emplace_back(n.name, "(" + idx.at(0) + ")");
        auto e = walk(n.kids[0], std::vector<std::string>(idx.begin() + 1, idx.end()), leaves, p);
        names.pop_back();
        return e;
      }
      case Kind::Index: {  // in range (expressible): element rest of a[i1..ik] is a's (i1..ik, rest)
        std::vector<std::string> in;
        for (size_t q = 1; q < n.kids.size(); ++q) in.push_back(p.index(walk(n.kids[q], {}, leaves, p)));
        in.insert(in.end(), idx.begin(), idx.end());
        return walk(n.kids[0], in, leaves, p);
      }
      default: break;
    }
    throw CodegenError("codegen.internal", Span{}, "an element of a node that is not elementwise");
  }
  // An element as one C++ expression of doubles or int64_ts: the operator table's
  // functions (ops/scalar_ops.hpp) on the leaves' elements.
  struct ScalarElem {
    using R = std::string;
    TermEmitter &e;
    R leaf(const Term &t, const Value &v, const std::vector<std::string> &idx) {
      if (e.io && v.ptr == "rml_out" &&
          !(e.in_root_loop && t->type.shape == e.root->type.shape && linear(idx, t->type.shape) == e.io_root_index))
        e.io_bad = true;
      if (t->type.shape.empty()) return v.at0();
      return v.ptr + "[" + linear(idx, t->type.shape) + "]";
    }
    R binder(const std::string &i) { return i; }
    R index(const R &i) { return i; }
    R unary(const ir::Node &n, const R &x) { return unary_expr(n, n.kids[0]->type.elem, x); }
    R binary(const ir::Node &n, const R &x, const R &y) { return binary_expr(n, n.kids[0]->type.elem, x, y); }
  };
  std::string elem(const Term &t, const std::vector<std::string> &idx, const Leaves &leaves) {
    ScalarElem p{*this};
    return walk(t, idx, leaves, p);
  }
  // An element of a sum's operand for four consecutive elements of the result's last
  // dimension (the lanes col .. col + 3) at one value of the summed index: a V4 expression
  // (ops/lanes.hpp), or a scalar one where no leaf it reads moves with the lane (then added
  // to every lane). The walk runs with tokens for the two indices (kSummed, kLane), so a
  // leaf's read is affine in them, with strides s_sum and s_lane:
  //   s_lane = 0  one element, the same in every lane;
  //   s_lane = 1  four contiguous elements (load4);
  //   s_sum = 1   in the loop that takes the summed index four at a time, a 4 x 4 block
  //               (four rows' next four elements) transposed in registers, once per leaf
  //               and block (columns4): matvec(a, x) reading a's rows;
  //   else        the four elements one by one.
  // Each lane computes the scalar expression's operations on the same operands, so the
  // same double. Anything else (ints, an operation but + - * / and negation on a lane
  // vector, a binder read as a value) is !ok, and the sum keeps its scalar loop.
  static constexpr const char *kSummed = "rml_lane_j", *kLane = "rml_lane_c";
  struct Lanes {
    std::string code;
    bool vec = false, token = false;
  };
  struct LanesElem {
    using R = Lanes;
    TermEmitter &e;
    std::string j, col;  // the summed index's value in this statement; the first lane's index
    int block_at = -1;   // in the loop by four: j's offset in the block of four (blocks allowed)
    std::string j0;      // that block's first value of the summed index
    std::vector<std::string> *prelude = nullptr;       // where the blocks are declared
    std::map<std::string, std::string> *blocks = nullptr;  // declared ones, by leaf read
    bool ok = true;
    R fail() { return ok = false, R{"0"}; }
    static bool tokened(const std::string &s) { return s.find("rml_lane_") != std::string::npos; }
    static std::string bare(std::string s) {
      while (s.size() > 2 && s.front() == '(' && s.back() == ')') s = s.substr(1, s.size() - 2);
      return s;
    }
    R leaf(const Term &t, const Value &v, const std::vector<std::string> &idx) {
      if (t->type.elem != ir::Elem::Real || !v.scalar.empty()) return fail();
      if (e.io && v.ptr == "rml_out") e.io_bad = true;  // (not shown element by element here)
      const Shape &ls = t->type.shape;
      if (ls.empty()) return {v.at0()};
      int64_t stride = 1, s_sum = 0, s_lane = 0;
      std::string base;
      for (size_t d = ls.size(); d-- > 0; stride *= ls[d]) {
        const std::string i = bare(idx[d]);
        if (i == kSummed) s_sum += stride;
        else if (i == kLane) s_lane += stride;
        else if (tokened(idx[d])) return fail();
        else base += (base.empty() ? "" : " + ") + (stride == 1 ? idx[d] : idx[d] + " * " + std::to_string(stride));
      }
      auto at = [&](const std::string &jj, const std::string &c) {
        std::string o = base.empty() ? "0" : base;
        if (s_sum) o += " + " + (s_sum == 1 ? jj : jj + " * " + std::to_string(s_sum));
        if (s_lane && !c.empty()) o += " + " + (s_lane == 1 ? c : "(" + c + ") * " + std::to_string(s_lane));
        return o;
      };
      if (s_lane == 0) return {v.ptr + "[" + at(j, "") + "]"};
      if (s_lane == 1) return {"rml::lanes::load4(" + v.ptr + " + " + at(j, col) + ")", true};
      if (s_sum == 1 && block_at >= 0) {
        std::string &name = (*blocks)[v.ptr + "|" + at(j0, col)];
        if (name.empty()) {
          name = e.fresh("blk");
          prelude->push_back("rml::lanes::V4 " + name + "[4];");
          prelude->push_back("rml::lanes::columns4(" + v.ptr + " + " + at(j0, col) + ", " + std::to_string(s_lane) + ", " + name + ");");
        }
        return {name + "[" + std::to_string(block_at) + "]", true};
      }
      std::string g = "rml::lanes::V4{";
      for (int u = 0; u < 4; ++u) g += (u ? ", " : "") + v.ptr + "[" + at(j, u ? col + " + " + std::to_string(u) : col) + "]";
      return {g + "}", true};
    }
    R binder(const std::string &i) { return {i, false, tokened(i)}; }
    std::string index(const R &i) { return i.code; }
    R unary(const ir::Node &n, const R &x) {
      if (x.token || n.type.elem != ir::Elem::Real || n.kids[0]->type.elem != ir::Elem::Real) return fail();
      if (!x.vec) return {unary_expr(n, ir::Elem::Real, x.code)};
      if (n.un != ops::UnOp::Neg) return fail();
      return {"(-" + x.code + ")", true};
    }
    R binary(const ir::Node &n, const R &x, const R &y) {
      if (x.token || y.token || n.type.elem != ir::Elem::Real || n.kids[0]->type.elem != ir::Elem::Real) return fail();
      if (!x.vec && !y.vec) return {binary_expr(n, ir::Elem::Real, x.code, y.code)};
      const char *op = n.bin == ops::BinOp::Add ? " + " : n.bin == ops::BinOp::Sub ? " - " : n.bin == ops::BinOp::Mul ? " * " : n.bin == ops::BinOp::Div ? " / " : nullptr;
      if (!op) return fail();
      return {"(" + x.code + op + y.code + ")", true};
    }
  };
  // Loops over `shape` (fresh index names in idx), the body at the innermost level.
  void open_loops(const Shape &shape, std::vector<std::string> &idx) {
    for (int64_t d : shape) {
      idx.push_back(fresh("i"));
      line() << "for (int64_t " << idx.back() << " = 0; " << idx.back() << " < " << d << "; ++" << idx.back() << ")\n";
      ++indent;
    }
  }
  // A unary or binary operation, replicate or transpose, with its elementwise operands
  // fused into one loop over its elements.
  Value fused(const Term &t) {
    Leaves leaves;
    prepare(t, leaves);
    Value o = alloc(t->type, false, t.get());
    const Shape &sh = t->type.shape;
    if (t->kind == Kind::Transpose && sh.size() == 2 && t->shape_arg == Shape{1, 0} && leaves.count(t->kids[0].get())) {
      // A matrix transposed: by 32 x 32 tiles, so that neither side is read with a stride
      // across the whole matrix.
      const std::string a = leaves.at(t->kids[0].get()).ptr;
      line() << "for (int64_t r0 = 0; r0 < " << sh[0] << "; r0 += 32)\n";
      line() << "  for (int64_t c0 = 0; c0 < " << sh[1] << "; c0 += 32)\n";
      line() << "    for (int64_t r = r0; r < std::min<int64_t>(r0 + 32, " << sh[0] << "); ++r)\n";
      line() << "      for (int64_t c = c0; c < std::min<int64_t>(c0 + 32, " << sh[1] << "); ++c) " << o.ptr << "[r * " << sh[1] << " + c] = " << a
             << "[c * " << sh[0] << " + r];\n";
      return o;
    }
    std::vector<std::string> idx;
    open_loops(sh, idx);
    const bool is_root = t.get() == root;
    if (is_root) root_fused = true, in_root_loop = true, io_root_index = linear(idx, sh);
    line() << o.ptr << "[" << linear(idx, sh) << "] = " << elem(t, idx, leaves) << ";\n";
    in_root_loop = false;
    indent -= static_cast<int>(sh.size());
    return o;
  }
  // sumOuter: each element of the result adds its column from zero, j ascending (the
  // reference's order, so the same value), the operand's elements fused into the sum.
  Value fused_sum(const Term &t) {
    Leaves leaves;
    prepare(t, leaves);
    const Term &x = t->kids[0];
    const Shape &sh = t->type.shape;
    const char *T = ir_elem_type(t->type.elem);
    if (axpy_order(t, leaves)) {
      // The summed index outermost: o starts at zero and each element adds x(j, ..) for j
      // ascending, the same additions in the same order as a sum per element, but the
      // inner loop runs along the result's last dimension, where the largest operand's
      // elements are contiguous (matvec(tr(k), d) reads k by rows, not by columns).
      Value o = alloc(t->type, true, t.get());
      std::string j = fresh("j");
      line() << "for (int64_t " << j << " = 0; " << j << " < " << x->type.shape[0] << "; ++" << j << ") {\n";
      ++indent;
      std::vector<std::string> idx;
      open_loops(sh, idx);
      std::vector<std::string> at{j};
      at.insert(at.end(), idx.begin(), idx.end());
      const std::string cell = o.ptr + "[" + linear(idx, sh) + "]";
      line() << cell << " = " << add_expr(cell, elem(x, at, leaves), t->type.elem) << ";\n";
      indent -= static_cast<int>(sh.size());
      --indent;
      line() << "}\n";
      return o;
    }
    Value o = alloc(t->type, false, t.get());
    // The columns of the last result dimension go eight (or four) at a time: eight sums,
    // each still adding its own column in order, are eight independent chains instead of
    // one (enough to keep two adders busy through an addition's latency).
    const int64_t lanes = sh.empty() ? 1 : sh.back() >= 8 ? 8 : sh.back() >= 4 ? 4 : 1;
    std::vector<std::string> idx;
    open_loops(Shape(sh.begin(), sh.end() - (lanes > 1 ? 1 : 0)), idx);
    line() << "{\n";  // (the last dimension's loops, several, in the others')
    ++indent;
    std::string last, j = fresh("j");
    auto sums = [&](int64_t width, const std::string &col) {
      std::vector<std::string> acc(static_cast<size_t>(width));
      line() << "{\n";
      ++indent;
      for (auto &a : acc) {
        a = fresh("acc");
        line() << T << " " << a << " = 0;\n";
      }
      line() << "for (int64_t " << j << " = 0; " << j << " < " << x->type.shape[0] << "; ++" << j << ") {\n";
      ++indent;
      for (int64_t u = 0; u < width; ++u) {
        std::vector<std::string> at{j};
        at.insert(at.end(), idx.begin(), idx.end());
        if (!col.empty()) at.push_back(u ? "(" + col + " + " + std::to_string(u) + ")" : col);
        line() << acc[static_cast<size_t>(u)] << " = " << add_expr(acc[static_cast<size_t>(u)], elem(x, at, leaves), t->type.elem) << ";\n";
      }
      --indent;
      line() << "}\n";
      for (int64_t u = 0; u < width; ++u) {
        std::vector<std::string> r(idx);
        if (!col.empty()) r.push_back(u ? "(" + col + " + " + std::to_string(u) + ")" : col);
        line() << o.ptr << "[" << linear(r, sh) << "] = " << acc[static_cast<size_t>(u)] << ";\n";
      }
      --indent;
      line() << "}\n";
    };
    if (lanes == 1) {
      sums(1, "");
    } else {
      int64_t whole = sh.back() - sh.back() % lanes;
      if (t->type.elem == ir::Elem::Real && lanes_apply(x, idx, leaves)) {
        // Eight lanes at a time (two vectors: two chains in flight), then four.
        const int64_t by8 = lanes == 8 ? whole : 0;
        whole = sh.back() - sh.back() % 4;
        if (by8) {
          last = fresh("i");
          line() << "for (int64_t " << last << " = 0; " << last << " < " << by8 << "; " << last << " += 8)\n";
          lane_sums(x, idx, leaves, o, 2, last);
        }
        if (by8 < whole) lane_sums(x, idx, leaves, o, 1, std::to_string(by8));
      } else {
        last = fresh("i");
        line() << "for (int64_t " << last << " = 0; " << last << " < " << whole << "; " << last << " += " << lanes << ")\n";
        sums(lanes, last);
      }
      if (whole < sh.back()) {
        last = fresh("i");
        line() << "for (int64_t " << last << " = " << whole << "; " << last << " < " << sh.back() << "; ++" << last << ")\n";
        sums(1, last);
      }
    }
    --indent;
    line() << "}\n";
    indent -= static_cast<int>(idx.size());
    return o;
  }
  // Whether the sum of x along its first dimension can go four result elements at a time
  // (LanesElem says ok for its operand's element).
  bool lanes_apply(const Term &x, const std::vector<std::string> &idx, const Leaves &leaves) {
    std::vector<std::string> prelude;
    std::map<std::string, std::string> blocks;
    std::vector<std::string> at{kSummed};
    at.insert(at.end(), idx.begin(), idx.end());
    at.push_back(kLane);
    const bool io_was_bad = io_bad;
    const int next_was = next;
    LanesElem p{*this, "j", "c", 0, "j", &prelude, &blocks};
    Lanes r = walk(x, at, leaves, p);
    io_bad = io_was_bad, next = next_was;  // (a trial: nothing of it is written)
    return p.ok && !r.token;
  }
  // The sums of x along its first dimension for the result's elements col .. col + 4w - 1
  // of its last dimension (idx: the other dimensions' indices), w vectors of four lanes,
  // each lane its own chain of additions from zero for j ascending, as the scalar loop.
  // The summed index goes four at a time where it can (a leaf's 4 x 4 blocks are read
  // once per four), the rest one at a time; then the lanes are stored.
  void lane_sums(const Term &x, const std::vector<std::string> &idx, const Leaves &leaves, const Value &o, int w, const std::string &col) {
    const int64_t J = x->type.shape[0];
    const Shape &sh = o.type.shape;
    std::vector<std::string> acc(static_cast<size_t>(w));
    line() << "{\n";
    ++indent;
    for (auto &a : acc) {
      a = fresh("acc");
      line() << "rml::lanes::V4 " << a << " = {};\n";
    }
    const std::string j = fresh("j");
    line() << "int64_t " << j << " = 0;\n";
    auto lane_col = [&](int v) { return v ? "(" + col + " + " + std::to_string(4 * v) + ")" : col; };
    auto statements = [&](int block_at, const std::string &jj, std::vector<std::string> &prelude, std::map<std::string, std::string> &blocks) {
      std::vector<std::string> out;
      for (int v = 0; v < w; ++v) {
        std::vector<std::string> at{kSummed};
        at.insert(at.end(), idx.begin(), idx.end());
        at.push_back(kLane);
        LanesElem p{*this, jj, lane_col(v), block_at, j, &prelude, &blocks};
        Lanes r = walk(x, at, leaves, p);
        if (!p.ok) throw CodegenError("codegen.internal", Span{}, "a sum's lanes were refused after they were allowed");
        out.push_back(acc[static_cast<size_t>(v)] + " = " + acc[static_cast<size_t>(v)] + " + " + r.code + ";");
      }
      return out;
    };
    if (J >= 4) {
      line() << "for (; " << j << " + 4 <= " << J << "; " << j << " += 4) {\n";
      ++indent;
      std::vector<std::string> prelude, body;
      std::map<std::string, std::string> blocks;
      for (int d = 0; d < 4; ++d)
        for (auto &st : statements(d, d ? "(" + j + " + " + std::to_string(d) + ")" : j, prelude, blocks)) body.push_back(st);
      for (auto &l : prelude) line() << l << "\n";
      for (auto &l : body) line() << l << "\n";
      --indent;
      line() << "}\n";
    }
    if (J % 4) {
      line() << "for (; " << j << " < " << J << "; ++" << j << ") {\n";
      ++indent;
      std::vector<std::string> prelude;
      std::map<std::string, std::string> blocks;
      for (auto &l : statements(-1, j, prelude, blocks)) line() << l << "\n";
      --indent;
      line() << "}\n";
    }
    for (int v = 0; v < w; ++v) {
      std::vector<std::string> r(idx);
      r.push_back(lane_col(v));
      line() << "rml::lanes::store4(" << o.ptr << " + " << linear(r, sh) << ", " << acc[static_cast<size_t>(v)] << ");\n";
    }
    --indent;
    line() << "}\n";
  }

  // Whether sumOuter t goes summed index outermost (fused_sum): when the largest operand
  // its element reads is contiguous along the result's last dimension and not along the
  // summed one, and the result is small enough to stay in cache while it is added to.
  bool axpy_order(const Term &t, const Leaves &leaves) {
    const Shape &sh = t->type.shape;
    if (sh.empty() || ir::numel(sh) * 8 > 256 * 1024) return false;
    // Index ids: 0 the summed index, 1.. the result's dimensions.
    std::vector<int> idx{0};
    for (size_t d = 0; d < sh.size(); ++d) idx.push_back(static_cast<int>(d) + 1);
    const int last = static_cast<int>(sh.size());
    int64_t most = 0, stride_sum = 0, stride_last = 0;
    std::vector<std::pair<std::string, int>> ids;
    std::function<void(const Term &, const std::vector<int> &)> reads = [&](const Term &u, const std::vector<int> &at) {
      if (leaves.count(u.get())) {
        const Shape &ls = u->type.shape;
        int64_t stride = 1, s_sum = 0, s_last = 0;
        for (size_t d = ls.size(); d-- > 0;) {
          if (d < at.size() && at[d] == 0) s_sum += stride;
          if (d < at.size() && at[d] == last) s_last += stride;
          stride *= ls[d];
        }
        if (ir::numel(ls) > most) most = ir::numel(ls), stride_sum = s_sum, stride_last = s_last;
        return;
      }
      switch (u->kind) {
        case Kind::Unary:
        case Kind::Binary:
          for (auto &k : u->kids) reads(k, at);
          return;
        case Kind::Replicate: return reads(u->kids[0], std::vector<int>(at.begin() + 1, at.end()));
        case Kind::Transpose: {
          std::vector<int> in(at);
          for (size_t p = 0; p < u->shape_arg.size(); ++p) in[static_cast<size_t>(u->shape_arg[p])] = at[p];
          return reads(u->kids[0], in);
        }
        case Kind::Build1:
          ids.emplace_back(u->name, at.at(0));
          reads(u->kids[0], std::vector<int>(at.begin() + 1, at.end()));
          ids.pop_back();
          return;
        case Kind::Index: {
          std::vector<int> in;
          for (size_t q = 1; q < u->kids.size(); ++q) {
            int id = -1;
            for (auto it = ids.rbegin(); it != ids.rend(); ++it)
              if (it->first == u->kids[q]->name) {
                id = it->second;
                break;
              }
            in.push_back(id);
          }
          in.insert(in.end(), at.begin(), at.end());
          return reads(u->kids[0], in);
        }
        default: return;  // a binder read as a value
      }
    };
    reads(t->kids[0], idx);
    return most > 0 && stride_last == 1 && stride_sum != 1;
  }

  Value gather_scatter(const ir::Node &n) {
    bool is_gather = n.kind == Kind::Gather;
    Value a = go(n.kids[0]);
    Value o = alloc(n.type, true, &n);
    size_t m1 = n.binders.size();
    const Shape &outer = is_gather ? n.type.shape : a.type.shape;
    Shape dom(outer.begin(), outer.begin() + static_cast<long>(m1));
    int64_t inner = ir::numel(Shape(outer.begin() + static_cast<long>(m1), outer.end()));
    std::vector<std::string> at(m1);
    for (size_t d = 0; d < m1; ++d) {
      at[d] = fresh("b");
      line() << "for (int64_t " << at[d] << " = 0; " << at[d] << " < " << dom[d] << "; ++" << at[d] << ") {\n";
      ++indent;
      env.emplace_back(n.binders[d], Value{"(&" + at[d] + ")", ir::Type{ir::Elem::Int, {}}, at[d]});
    }
    std::vector<std::string> target;
    for (auto &c : n.ix) target.push_back(go(c).at0());
    std::string so = block_offset(a.type.shape, is_gather ? target : at);
    std::string dof = block_offset(o.type.shape, is_gather ? at : target);
    line() << "if (" << so << " >= 0 && " << dof << " >= 0)\n";
    ++indent;
    line() << "for (int64_t q = 0; q < " << inner << "; ++q) " << o.ptr << "[" << dof << " + q] = "
           << (is_gather ? a.ptr + "[" + so + " + q]" : add_expr(o.ptr + "[" + dof + " + q]", a.ptr + "[" + so + " + q]", n.type.elem)) << ";\n";
    --indent;
    for (size_t d = 0; d < m1; ++d) {
      env.pop_back();
      --indent;
      line() << "}\n";
    }
    return o;
  }
};

}  // namespace

std::string emit_term_function(const std::string &name, const std::vector<std::pair<std::string, ir::Type>> &inputs,
                               const ir::Term &body, const std::string &comment, int io) {
  TermEmitter e;
  std::ostringstream f;
  if (io >= 0 && (static_cast<size_t>(io) >= inputs.size() || inputs[static_cast<size_t>(io)].second != body->type)) return "";
  e.io = io >= 0;
  f << "// " << comment << "\n// " << body->type.str() << " from";
  for (auto &[x, t] : inputs) f << " " << x << ": " << t.str();
  if (e.io) f << "\n// in place: in" << io << " is rml_out (each element read only to write it)";
  f << "\n[[maybe_unused]] void " << name << "(";
  for (size_t k = 0; k < inputs.size(); ++k) {
    std::string p = "in" + std::to_string(k);
    if (static_cast<int>(k) == io) {
      e.env.emplace_back(inputs[k].first, Value{"rml_out", inputs[k].second});
      continue;
    }
    f << "const " << ir_elem_type(inputs[k].second.elem) << " *__restrict__ " << p << ", ";
    e.env.emplace_back(inputs[k].first, Value{p, inputs[k].second});
  }
  f << ir_elem_type(body->type.elem) << " *__restrict__ rml_out) {\n";
  e.count_uses(body);
  e.root = body.get();
  // A let's value is its body's; a reshape's is its operand's, in the same row-major order.
  while (e.root->kind == Kind::Let || e.root->kind == Kind::Reshape) e.root = e.root->kids[e.root->kind == Kind::Let ? 1 : 0].get();
  Value r = e.go(body);
  if (r.ptr != "rml_out")  // a variable, a constant, a selected operand or a reshape of one
    e.copy("rml_out", r.ptr, std::max<int64_t>(1, ir::numel(body->type.shape)), false, body->type.elem);
  if (e.io && (e.io_bad || !e.root_fused || r.ptr != "rml_out")) return "";
  f << e.out.str() << "}\n";
  return f.str();
}

}  // namespace rml::codegen
