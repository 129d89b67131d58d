// The oracle's data: columns of cells (one per variable and per clock term), the store of
// one iterate, a rule's output, and the network of nodes (one per equation and per clock
// term) with who reads what. Internal to oracle/.
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "oracle/oracle.hpp"
#include "ops/ops.hpp"

namespace rml::oracle {

// ------------------------------------------------------------------ storage
// A column's description: a variable or a clock term, its type, and where its payload sits
// in each cycle's row of the store.
struct Column {
  std::string name;
  bool clock = false;  // clock columns hold tt/ff as Val 1/0, never □
  Scalar elem = Scalar::Bool;
  std::vector<int64_t> shape;
  size_t numel = 1;
  size_t off = 0;  // the payload's first element in a row of Store::r (reals) or Store::i
};

// The cells of every column over N cycles, cycle by cycle: cycle n's tags, then its reals
// and its ints, are contiguous rows. A cycle's rules read and write that row and the one
// before it (pre, fby), so a large node's cycle stays in cache; a row per column (a cell
// of each of 10^5 columns per cycle, each on its own cache line) cost a cache miss per
// cell and made the run superlinear in the node's size.
struct Store {
  std::vector<Column> cols;
  size_t N = 0;
  size_t width_r = 0, width_i = 0;  // a row's reals and ints
  std::vector<Tag> tags;            // [n * cols.size() + c]
  std::vector<double> r;            // [n * width_r + cols[c].off + k]
  std::vector<int64_t> i;           // [n * width_i + cols[c].off + k]
  // Lays the columns out in rows and sets every cell to ⊥ (payloads 0).
  void init(size_t cycles) {
    N = cycles;
    width_r = width_i = 0;
    for (auto &c : cols) {
      size_t &w = c.elem == Scalar::Real ? width_r : width_i;
      c.off = w;
      w += c.numel;
    }
    tags.assign(N * cols.size(), Tag::Bot);
    r.assign(N * width_r, 0.0);
    i.assign(N * width_i, 0);
  }
  // Reads beyond the prefix are ⊥ (exactness lemma, semantics.md §5).
  Tag tag(int c, size_t n) const { return n < N ? tags[n * cols.size() + static_cast<size_t>(c)] : Tag::Bot; }
  Tag &tag_at(int c, size_t n) { return tags[n * cols.size() + static_cast<size_t>(c)]; }
  bool present(int c, size_t n) const { Tag t = tag(c, n); return t == Tag::Val || t == Tag::Nil; }
  const double *reals(int c, size_t n) const { return r.data() + n * width_r + cols[c].off; }
  const int64_t *ints(int c, size_t n) const { return i.data() + n * width_i + cols[c].off; }
  double *reals(int c, size_t n) { return r.data() + n * width_r + cols[c].off; }
  int64_t *ints(int c, size_t n) { return i.data() + n * width_i + cols[c].off; }
  bool bval(int c, size_t n) const { return *ints(c, n) != 0; }
  double rval(int c, size_t n) const { return *reals(c, n); }
  int64_t ival(int c, size_t n) const { return *ints(c, n); }
  array::Tensor tensor(int c, size_t n) const {
    const Column &col = cols[c];
    array::Tensor t;
    t.elem = col.elem;
    t.shape = col.shape;
    if (col.elem == Scalar::Real) t.r.assign(reals(c, n), reals(c, n) + col.numel);
    else t.i.assign(ints(c, n), ints(c, n) + col.numel);
    return t;
  }
  uint64_t bytes() const { return tags.capacity() + r.capacity() * sizeof(double) + i.capacity() * sizeof(int64_t); }
};

// The result of one rule application: a tag, a payload, and, for ‖, its origin.
struct Out {
  Tag tag = Tag::Bot;
  std::vector<double> r;
  std::vector<int64_t> i;
  const char *rule = nullptr;   // set when this ‖ originates here (not propagated)
  std::string why;
  size_t origin = SIZE_MAX;     // the cycle of the cell whose rule produces this ‖, when another one's
  void set(Tag t) { tag = t; rule = nullptr; origin = SIZE_MAX; }
  void error(const char *rl, std::string w) { tag = Tag::Err; rule = rl; why = std::move(w); origin = SIZE_MAX; }
  // A ‖ read from an operand that is absent at another tick of this stream's clock: that
  // tick's own cell (cycle m) is ‖ by rule rl, and is the origin. Said here too, because
  // that cell may see its operand already ‖ (propagated back from this one) when it runs.
  void error_at(size_t m, const char *rl, std::string w) { error(rl, std::move(w)); origin = m; }
  void propagate_error() { tag = Tag::Err; rule = nullptr; }
  // Copies the value of cell (c, n).
  void copy(const Store &s, int c, size_t n) {
    const Column &col = s.cols[c];
    tag = s.tag(c, n);
    rule = nullptr;
    if (col.elem == Scalar::Real) r.assign(s.reals(c, n), s.reals(c, n) + col.numel);
    else i.assign(s.ints(c, n), s.ints(c, n) + col.numel);
  }
  void value(const array::Tensor &t) {
    tag = Tag::Val;
    rule = nullptr;
    if (t.elem == Scalar::Real) r = t.r;
    else i = t.i;
  }
  void boolean(bool b) {
    tag = Tag::Val;
    rule = nullptr;
    i.assign(1, b ? 1 : 0);
  }
};

// ------------------------------------------------------------------ the network
// The scalar fast path: `if` and every operator of the table (ops.hpp) on scalars,
// computed by the table's scalar meanings (ops/scalar_ops.hpp), which the evaluator's
// elementwise loops also use: the same value, without building tensors.
enum class Fast : uint8_t { None, If, Unary, Binary };

enum class K : uint8_t { ClockBase, ClockOn, ClockNever, Const, Copy, Apply, When, Merge, Fby, Pre, Arrow, Post };

struct Node {
  K k;
  int out = -1;
  std::vector<int> in;       // operand columns
  int clock = -1;            // Const, zero-argument Apply, Pre, Post: the clock column
  bool positive = true;      // When, ClockOn
  const core::Equation *eq = nullptr;
  array::Tensor constant;    // Const and zero-argument Apply
  Fast fast = Fast::None;    // Apply on scalars with `if` or an operator of the table
  ops::UnOp un = ops::UnOp::Neg;
  ops::BinOp bin = ops::BinOp::Add;
};

enum class Mode : uint8_t { Inst, Fwd, Back };
struct Reader {
  int node;
  Mode mode;
  int scan;  // Fwd/Back: the column whose absences (□, or ff for clocks) a scan skips
};

inline bool skip(const Store &s, int c, size_t n) {
  // A scan passes over absent cells: □ for data, ff for clocks.
  if (s.cols[c].clock) return s.tag(c, n) == Tag::Val && !s.bval(c, n);
  return s.tag(c, n) == Tag::Abs;
}

struct Result::Data {
  std::unordered_map<std::string, int> col_of;
  Store store;
};

}  // namespace rml::oracle
