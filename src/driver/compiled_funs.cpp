#include "driver/compiled_funs.hpp"

#include "driver/fun_pipeline.hpp"

namespace rml::driver {

array::Tensor CompiledFuns::apply(const std::string &fn, const std::vector<StaticValue> &statics,
                                  const std::vector<array::Tensor> &args) {
  ++applications_;
  std::vector<ir::Type> types;
  for (auto &a : args) types.push_back(ir::Type{a.elem, a.shape});
  exec::Executable &exe = executable(fn, statics, types);
  try {
    return exe.run(args).at(0);
  } catch (std::bad_alloc &) {
    throw;  // out of memory: the caller's diagnostic
  } catch (std::exception &e) {  // exec::ExecError
    throw CompiledFunError("compiled backend, '" + fn + "': " + e.what());
  }
}

exec::Executable &CompiledFuns::executable(const std::string &fn, const std::vector<StaticValue> &statics,
                                           const std::vector<ir::Type> &types) {
  std::string key = fn;
  for (auto &v : statics) key += "\x1f#" + v.str();
  for (auto &t : types) key += "\x1f" + t.str();
  auto &exe = cache_[key];
  try {
    if (!exe) exe = std::move(compile_fun(cp_, fn, statics, types).objective_exe);
    return *exe;
  } catch (lower::LowerError &e) {
    throw CompiledFunError(std::string("cannot lower '") + fn + "':\n" + e.what());
  } catch (std::bad_alloc &) {
    throw;  // out of memory: the caller's diagnostic
  } catch (std::exception &e) {  // ir::IrError, exec::ExecError
    throw CompiledFunError("compiled backend, '" + fn + "' at " + key.substr(fn.size()) + ": " + e.what());
  }
}

}  // namespace rml::driver
