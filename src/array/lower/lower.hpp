// Lowering of the function layer to the IR (docs/design/array-ad.md §10.2 step 1): a checked
// `fun`, at concrete argument types, becomes one ir::Term over variables named after its
// value parameters. Every call (prelude included) is inlined; surface sugar becomes core
// constructs (scalar broadcast → replicate, sum/sum(#axis) → transpose + sumOuter,
// build(#[k..]) → nested build1, static names → int constants). The result computes
// exactly what array::Evaluator computes, bit for bit: every sum keeps the evaluator's
// association (tests/array/lower).
#pragma once
#include <map>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "array/ir/program.hpp"
#include "sema/typecheck.hpp"
#include "syntax/diag.hpp"

namespace rml::lower {

// A fun that cannot be lowered: a diagnostic (file:line:col, caret excerpt, rule).
// what() is the rendered diagnostic.
struct LowerError : std::runtime_error {
  Diagnostic diag;
  explicit LowerError(Diagnostic d);
};

struct Lowered {
  std::string fun;
  std::vector<std::pair<std::string, ir::Type>> inputs;  // value parameters, in order, by source name
  StaticSubst statics;  // every static name of the fun made concrete (const params, size and shape variables)
  ir::Term body;        // free variables ⊆ inputs

  // The same as a program: these inputs, no binds, one output labelled with the fun's name.
  ir::Program program() const;
};

// Lowers fun `name` for one use. `statics` are its const arguments in order (as
// array::Evaluator::apply takes them), `args` the types of its value arguments in order.
// The implicit size and shape variables are fixed by the argument shapes, as a call
// fixes them. Throws LowerError: unknown fun, wrong argument count or type, a static name
// left undetermined, or (for checked programs, never expected) a construct the IR rejects.
Lowered lower_fun(const CheckedProgram &cp, const std::string &name, const std::vector<StaticValue> &statics,
                  const std::vector<ir::Type> &args);

// A builtin without lambda (`sum`, `tr`, `replicate`, the table's elementwise builtins, ...)
// applied to `args` at concrete static arguments, as an application in a node writes it
// (core::Equation::static_args). Throws LowerError for a builtin the IR has no form for.
ir::Term lower_builtin(const std::string &name, const std::vector<StaticValue> &statics, const std::vector<ir::Term> &args,
                       Span at);

// The value parameters of fun `name` that are not const, with their declared types, and
// the const ones; for front ends that fill in arguments by name (rml grad).
struct FunParams {
  std::vector<const Param *> values;
  std::vector<const Param *> statics;
};
FunParams fun_params(const CheckedProgram &cp, const std::string &name);  // throws LowerError if not a fun

// The type a value parameter has once its static names are fixed by `s`, when concrete.
std::optional<ir::Type> concrete_type(const Type &t, const StaticSubst &s);

}  // namespace rml::lower
