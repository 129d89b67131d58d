// The typed core array language of seed 004 (docs/design/array-ad.md §1, §10.1): the
// IR that bot, the simplifier, AD and the executor work on. Terms are immutable DAG
// nodes (shared_ptr<const Node>); every node caches its type and is shape-checked when
// built, so an ill-shaped term cannot exist. Variables are named; binders introduced by
// the passes get fresh names containing '$', which the surface syntax cannot spell.
#pragma once
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "array/tensor.hpp"
#include "ops/ops.hpp"

namespace rml::ir {

using array::Tensor;
using Elem = rml::Scalar;  // Real, Int, Bool
using Shape = std::vector<int64_t>;

// A term could not be built: wrong shapes or element types, bad permutation, size
// beyond kMaxElements. Raised by the builders; the message says which rule failed.
struct IrError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Largest number of elements of any node's value (2^31): larger static shapes are
// rejected when the node is built instead of failing at allocation.
inline constexpr int64_t kMaxElements = int64_t{1} << 31;

struct Type {
  Elem elem = Elem::Real;
  Shape shape;
  bool operator==(const Type &o) const { return elem == o.elem && shape == o.shape; }
  bool operator!=(const Type &o) const { return !(*this == o); }
  size_t rank() const { return shape.size(); }
  std::string str() const;  // "real[3,4]", "int"
};

enum class Kind : uint8_t {
  Const,      // a literal tensor
  Var,        // name
  Let,        // let name = kids[0] in kids[1]
  Cond,       // strict: cond kids[0] kids[1] kids[2]
  Unary,      // op kids[0]
  Binary,     // op kids[0] kids[1] (equal shapes; no broadcast in the core)
  Index,      // index kids[0] [kids[1..]] (components int scalars)
  SumOuter,   // sumOuter kids[0]
  Gather,     // gather shape kids[0] (\binders. [ix...])
  Scatter,    // scatter shape kids[0] (\binders. [ix...])
  FromList,   // [kids...]
  Replicate,  // replicate k kids[0]
  Transpose,  // tr_perm kids[0]
  Reshape,    // reshape shape kids[0]
  Build1,     // build1 k (\binder. kids[0])
  Iota,       // [0..k-1] (what B1 produces)
  Share,      // share id kids[0]: identity on values; equal ids are one computation
};

// The operators and their names, typing rules and meanings: the table (src/ops/ops.hpp).
using ops::BinOp;
using ops::UnOp;
using ops::is_comparison;
using ops::op_name;  // "neg", "exp", "floor", "real", "+", "div", "max", "=", "and", ...

struct Node;
using Term = std::shared_ptr<const Node>;

struct Node {
  Kind kind;
  Type type;
  std::vector<Term> kids;
  std::vector<Term> ix;              // Gather/Scatter: index function outputs (int scalars)
  std::vector<std::string> binders;  // Gather/Scatter: the lambda's binders
  std::string name;                  // Var, Let binder, Build1 binder
  Shape shape_arg;                   // Gather/Scatter/Reshape shape; Transpose permutation
  int64_t k = 0;                     // Replicate/Build1/Iota count; Share id
  UnOp un = UnOp::Neg;
  BinOp bin = BinOp::Add;
  std::shared_ptr<const Tensor> value;  // Const
};

// ---- builders (each checks its typing rule, array-ad.md §1 table) ----
Term constant(Tensor v);
Term real_scalar(double v);
Term int_scalar(int64_t v);
Term var(const std::string &name, Type t);
Term let(const std::string &name, Term u, Term v);
Term cond(Term b, Term u, Term v);
Term unary(UnOp op, Term t);
Term binary(BinOp op, Term a, Term b);
Term index(Term t, std::vector<Term> ix);
Term sum_outer(Term t);
Term gather(Shape sh, Term t, std::vector<std::string> binders, std::vector<Term> ix);
Term scatter(Shape sh, Term t, std::vector<std::string> binders, std::vector<Term> ix);
Term from_list(std::vector<Term> ts);
Term replicate(int64_t k, Term t);
Term transpose(Shape perm, Term t);  // output dim p is input dim perm[p]
Term tr(Term t);                     // transpose {1,0}
Term reshape(Shape sh, Term t);
Term build1(int64_t k, const std::string &binder, Term body);
Term iota(int64_t k);
Term share(int64_t id, Term t);

// Operators with the surface's scalar broadcast: a rank-0 operand is replicated to the
// other's shape (what bot would produce from a build over a scalar).
Term broadcast_binary(BinOp op, Term a, Term b);

// ---- names and structure ----
std::string fresh_name(const std::string &hint);  // "hint$17": never clashes with user names
bool is_int_scalar(const Type &t);
int64_t numel(const Shape &s);
std::vector<std::string> free_vars(const Term &t);  // sorted, unique
bool occurs_free(const std::string &x, const Term &t);
// Capture-avoiding substitution t[x := s].
Term substitute(const Term &t, const std::string &x, const Term &s);
// Rebuild a node with new children (same payload); used by every pass.
Term with_kids(const Term &t, std::vector<Term> kids, std::vector<Term> ix);
// Structural equality up to renaming of bound variables (let, build1, gather/scatter).
bool alpha_equal(const Term &a, const Term &b);
size_t term_size(const Term &t);  // nodes as a tree (shared subterms counted each time)
size_t dag_size(const Term &t);   // distinct nodes

// Full type check of a closed term against declared free variables (the builders
// check local rules; this also checks every Var against its binder). Throws IrError.
void typecheck(const Term &t, const std::vector<std::pair<std::string, Type>> &free);

// The paper's notation: `gather [n] a (\[i]. [i])`, `let x = u in v`, `tr_{1,0} t`.
std::string print(const Term &t);

}  // namespace rml::ir
