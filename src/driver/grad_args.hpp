// The arguments of `rml grad` (src/tools/README.md): `--at ARGS.json`, the values of a fun's
// arguments by name, and `--size NAME=N`, its static names for printing the programs. Both
// read JSON through oracle/json_input (bounded, located). Its own library (rml_grad_args),
// so the fuzz target links no solver or executor.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include "array/ir/ir.hpp"
#include "array/tensor.hpp"
#include "sema/typecheck.hpp"

namespace rml {

// what() is "WHERE: MESSAGE"; WHERE is "FILE:LINE:COL" of the offending value (or key),
// "FILE" for the whole file, "--size" for that option. Reported as error[grad.arguments].
struct GradArgError : std::runtime_error {
  std::string where, message;
  GradArgError(std::string w, std::string m) : std::runtime_error(w + ": " + m), where(std::move(w)), message(std::move(m)) {}
};

struct GradArgs {
  std::vector<StaticValue> statics;   // the fun's const arguments, in order
  std::vector<array::Tensor> values;  // its value arguments, in order (empty for --size)
  std::vector<ir::Type> types;        // their types
};

// `fun` must be a fun of `cp`. `text` is the --at file `file`: a JSON object, argument
// name -> value (nested lists; a static: an int or a list of sizes). Throws GradArgError.
GradArgs read_grad_args(const std::string &file, const std::string &text, const CheckedProgram &cp, const std::string &fun);
// --size options ("n=3", "s=[2, 3]"): the statics and concrete argument types. Throws GradArgError.
GradArgs read_grad_sizes(const std::vector<std::string> &sizes, const CheckedProgram &cp, const std::string &fun);

// "a, b, c", or "(none)": lists of names in messages.
std::string join_names(const std::vector<std::string> &v);

}  // namespace rml
