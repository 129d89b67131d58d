// Reference evaluator of the function layer (the core array language of seed 004) over
// the checked AST: direct semantics, including the out-of-bounds rules (index and gather
// read 0, scatter drops the write). The oracle calls it for every pointwise application.
#pragma once
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "array/tensor.hpp"
#include "ops/ops.hpp"
#include "sema/typecheck.hpp"

namespace rml::array {

// Raised only on inputs the checker should have rejected: a bug, never a user error.
struct EvalError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class Evaluator {
 public:
  explicit Evaluator(const CheckedProgram &cp) : cp_(cp) {}

  // A call by name, as elaboration's ApplyOp::Call writes it: `fn` is a user or prelude
  // fun (it comes first), or a builtin or conversion; `statics` are its concrete static
  // arguments in order, `args` its value arguments. Operators, `if`, indexing and array
  // literals are not names here (a fun may be called `index`): use the functions below.
  Tensor apply(const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<Tensor> &args);
  // The builtin or conversion `fn`, even where a user declaration shadows its name.
  Tensor builtin_call(const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<Tensor> &args);

  // Elementwise operators on tensors with scalar broadcast, by surface spelling or by row.
  static Tensor binary(const std::string &op, const Tensor &a, const Tensor &b);
  static Tensor unary(const std::string &op, const Tensor &a);
  static Tensor binary(ops::BinOp op, const Tensor &a, const Tensor &b);
  static Tensor unary(ops::UnOp op, const Tensor &a);
  // `a[i1, ..]` (args = a, i1, ..) and the array literal `[a1, ..]`.
  static Tensor index(const std::vector<Tensor> &args);
  static Tensor array_literal(const std::vector<Tensor> &args);

  // The same into `out`, which has the result's element type and shape already (a caller
  // reusing its buffers: the stream runner). index: t[idx[0], .., idx[n-1]], zeros out of
  // bounds; stack: the parts one after the other; transpose: `tr` of a matrix.
  static void index_into(const Tensor &t, const int64_t *idx, size_t n, Tensor &out);
  static void stack_into(const std::vector<const Tensor *> &parts, Tensor &out);
  static void transpose_into(const Tensor &t, Tensor &out);
  // The same on words (doubles or int64_t, 8 bytes each, moved as they are): what the
  // Tensor versions run, and what the stream runtime calls on its frames' words.
  // index: t of shape `shape` (rank ≥ n) at idx[0..n-1], `inner` words; stack: parts[k]
  // of sizes[k] words one after the other; transpose: a rows x cols matrix.
  static void index_words(const int64_t *shape, const void *t, const int64_t *idx, size_t n, size_t inner, void *out);
  static void stack_words(const void *const *parts, const size_t *sizes, size_t n, void *out);
  static void transpose_words(size_t rows, size_t cols, const void *t, void *out);

 private:
  struct Env {
    std::vector<std::pair<std::string, Tensor>> scopes;
    StaticSubst statics;  // concrete
  };
  const CheckedProgram &cp_;
  std::map<std::string, Tensor> const_cache_;
  int depth_ = 0;

  Tensor call_fun(const FunDecl &f, StaticSubst statics, const std::vector<Tensor> &args);
  Tensor eval(const Expr &e, Env &env);
  Tensor builtin(const Expr &e, Env &env);
  StaticValue static_of(const Expr &e, const Env &env) const;
  int64_t static_int(const Expr &e, const Env &env) const;
  std::vector<int64_t> static_shape(const Expr &e, const Env &env) const;
  Tensor apply_builtin(const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<Tensor> &args);
};

std::vector<int64_t> concrete_shape(const Shape &s);  // throws EvalError if symbolic

// Binds the implicit size and shape variables of a parameter's `formal` shape from the
// argument's concrete shape: dims before a spliced `*s` from the front, dims after it
// from the back, `*s` itself the middle; names already bound are kept. Shared by the
// evaluator and the lowering to the IR, which must bind exactly alike.
void bind_implicit(const Shape &formal, const std::vector<int64_t> &actual, StaticSubst &s);

}  // namespace rml::array
