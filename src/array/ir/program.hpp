// A multi-output program over the IR: what AD produces (primal and gradients sharing one
// let stack) and what the executor compiles. `binds` are evaluated in order; each may
// use the inputs and earlier binds; outputs may use all of them.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "array/ir/eval.hpp"
#include "array/ir/ir.hpp"

namespace rml::ir {

struct Program {
  std::vector<std::pair<std::string, Type>> inputs;
  std::vector<std::pair<std::string, Term>> binds;
  std::vector<Term> outputs;
  std::vector<std::string> output_names;  // optional labels ("value", "grad a", ...)
};

// Checks every bind and output against the inputs and earlier binds (IrError).
void typecheck(const Program &p);
// Reference semantics: the binds and outputs evaluated by `evaluate`.
std::vector<Tensor> evaluate(const Program &p, const std::vector<Tensor> &args);
std::string print(const Program &p);
// The program as one term per output (lets re-wrapped), for passes that take terms.
Term as_term(const Program &p, size_t output);

}  // namespace rml::ir
