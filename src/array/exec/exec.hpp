// Executor: runs bulk programs (bot normal form: no build1) on Eigen kernels.
// API contract used by the CLI (`--backend compiled`, `rml grad --at`) and benchmarks;
// the executor stage may add declarations, but these keep their meaning.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "array/ir/program.hpp"

namespace rml::exec {

struct ExecError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

enum class Precision { F64, F32 };

struct Options {
  Precision precision = Precision::F64;
  // Switches for tests and benchmarks (the result is the same up to rounding): send
  // recognised contractions to Eigen's GEMM; fuse elementwise chains into one loop.
  bool gemm = true;
  bool fuse = true;
};

// A compiled program: its kernels, buffers (reused across runs) and constants. Not
// reentrant: one run at a time per Executable (compile one per thread).
class Executable {
 public:
  virtual ~Executable() = default;
  // Arguments and results use the IR's tensors (reals as double whatever the precision).
  virtual std::vector<ir::Tensor> run(const std::vector<ir::Tensor> &args) = 0;
  // The kernel plan: one line per kernel (fused maps, GEMMs, gathers, views, buffers).
  virtual std::string plan() const = 0;
  // Zero-copy run for callers that hold data in the executable's precision: args[k]
  // points at input k row-major (float for F32 reals, double for F64 reals, int64_t for
  // ints and bools), outs[k] at room for output k in the same representation.
  virtual void run_raw(const std::vector<const void *> &args, const std::vector<void *> &outs) = 0;
  // For tuning: one run on args, returning the wall time in seconds of each kernel (in
  // the order of plan()'s kernel lines).
  virtual std::vector<double> kernel_times(const std::vector<ir::Tensor> &args) = 0;
};

// Throws ExecError if p contains build1 or share (run bot / shareToLet first) or is
// ill-typed; run() throws ExecError on arguments of the wrong number or types.
std::unique_ptr<Executable> compile(const ir::Program &p, Options options = {});

}  // namespace rml::exec
