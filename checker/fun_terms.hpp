// A `fun` applied to scalars, seen through its lowered body (src/array/lower computes what
// the oracle's evaluator computes, bit for bit): the checker's engines interpret the body's
// scalar operators instead of leaving the application free. Bodies with tensors or
// operators outside the table's elementwise ones are not interpreted (the application
// stays a free value).
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "array/ir/ir.hpp"
#include "checker/smt_ints.hpp"
#include "core/normalize.hpp"
#include "sema/typecheck.hpp"

namespace rml::check {

struct FunTerm {
  ir::Term body;                    // over the value parameters, every node a scalar
  std::vector<std::string> params;  // the value parameters' names, in argument order
};

// The body of Apply equation `eq` (ApplyOp::Call of a fun or builtin), when every operand
// and the result are scalars (`types` gives the operands' element types) and the lowered
// body holds only constants, variables, lets, conditionals and unary or binary operators.
std::optional<FunTerm> scalar_fun_term(const CheckedProgram &cp, const core::Equation &eq,
                                       const std::vector<Scalar> &types);

}  // namespace rml::check

#include <z3++.h>

namespace rml::check {

// The body as a Z3 term over the operands' values (smt_reals.hpp); `facts` collects the
// C library functions' facts. Nothing if an operator has no encoding on those sorts.
// With `lia`, ints are Ints (the LIA encodings, smt_ints.hpp), and `lia` collects what
// the body's int operations must say.
std::optional<z3::expr> encode_fun_term(const FunTerm &ft, const std::vector<z3::expr> &args, z3::expr_vector &facts,
                                        LiaOps *lia = nullptr);

}  // namespace rml::check

namespace rml::check {

// The lowered term of a fun or builtin application (ApplyOp::Call) at its operands'
// concrete types `args`, whatever its constructs and shapes (the interval analysis reads
// tensors as bounds of all their elements). Nothing when it cannot be lowered.
std::optional<FunTerm> lowered_term(const CheckedProgram &cp, const core::Equation &eq, const std::vector<Type> &args);

}  // namespace rml::check
