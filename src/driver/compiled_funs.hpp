// Pointwise `fun` applications of a stream program through the compiled array path
// (compile_fun), one executable per (fun, static arguments, argument types): a stream
// applies the same fun at the same types every cycle, so each is compiled once. The
// oracle takes `apply` as its Options::apply_fun (`rml run --backend compiled`).
#pragma once
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "array/exec/exec.hpp"
#include "array/tensor.hpp"
#include "sema/typecheck.hpp"

namespace rml::driver {

// The compiled path failed on a fun the front end accepted (lowering, the IR, the
// executor): never the user's input, hence driver/exit_policy's exit_for_compiled_path.
struct CompiledFunError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

class CompiledFuns {
 public:
  explicit CompiledFuns(const CheckedProgram &cp) : cp_(cp) {}
  // fn(statics.., args..): compiles at the first application at these types. Throws
  // CompiledFunError; std::bad_alloc passes through.
  array::Tensor apply(const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<array::Tensor> &args);
  // The executable of fn(statics.., operands of these types) (f64), compiled at the first
  // ask and owned here (stream::Options::fun_executable). Throws as apply does.
  exec::Executable &executable(const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<ir::Type> &types);
  size_t executables() const { return cache_.size(); }
  size_t applications() const { return applications_; }

 private:
  const CheckedProgram &cp_;
  std::map<std::string, std::unique_ptr<exec::Executable>> cache_;
  size_t applications_ = 0;
};

}  // namespace rml::driver
