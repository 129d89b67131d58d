// Helpers of the executor tests: tensors, one-output programs, comparison with the
// reference evaluator, and reading the kernel plan.
#pragma once
#include "array/common/tensor_lit.hpp"
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>
#include <vector>

#include "array/exec/exec.hpp"
#include "array/ir/eval.hpp"
#include "array/ir/program.hpp"

namespace rml::exectest {

using namespace rml::ir;
// rml:: also has Program, Type, Shape (the surface language): name the IR's explicitly.
using ir::Elem;
using ir::Program;
using ir::Shape;
using ir::Tensor;
using ir::Term;
using ir::Type;
using exec::Options;
using exec::Precision;
using rml::ir_test::reals;
using rml::ir_test::ints;
using rml::ir_test::bools;

// Deterministic, irregular values (no RNG state shared between tests).
inline Tensor ramp(Shape s, double scale = 1.0, double shift = 0.0) {
  Tensor t = Tensor::zeros(Elem::Real, std::move(s));
  for (size_t k = 0; k < t.r.size(); ++k) t.r[k] = scale * std::sin(1.3 * static_cast<double>(k) + shift) + 0.01 * shift;
  return t;
}
inline Type rt(Shape s) { return Type{Elem::Real, std::move(s)}; }
inline Term mul(Term a, Term b) { return binary(BinOp::Mul, std::move(a), std::move(b)); }
inline Term rvar(const std::string &x, Shape s) { return var(x, Type{Elem::Real, std::move(s)}); }
inline Term ivar(const std::string &x, Shape s = {}) { return var(x, Type{Elem::Int, std::move(s)}); }

inline Program program(std::vector<std::pair<std::string, Type>> inputs, std::vector<Term> outputs) {
  Program p;
  p.inputs = std::move(inputs);
  p.outputs = std::move(outputs);
  return p;
}

// Reals: |x - y| ≤ rel · max(1, max |reference|) elementwise (NaNs and infinities must
// match exactly); ints and bools exactly.
inline ::testing::AssertionResult close(const Tensor &got, const Tensor &want, double rel) {
  if (got.elem != want.elem || got.shape != want.shape)
    return ::testing::AssertionFailure() << "type " << Type{got.elem, got.shape}.str() << " vs " << Type{want.elem, want.shape}.str();
  if (got.elem != Elem::Real) {
    if (got.i == want.i) return ::testing::AssertionSuccess();
    return ::testing::AssertionFailure() << got.str() << "\n   vs reference " << want.str();
  }
  double scale = 1;
  for (double v : want.r)
    if (std::isfinite(v)) scale = std::max(scale, std::fabs(v));
  for (size_t k = 0; k < got.r.size(); ++k) {
    double a = got.r[k], b = want.r[k];
    bool ok = std::isnan(a) || std::isnan(b) ? std::isnan(a) && std::isnan(b)
              : std::isinf(a) || std::isinf(b) ? a == b
                                                : std::fabs(a - b) <= rel * scale;
    if (!ok)
      return ::testing::AssertionFailure() << "element " << k << ": " << a << " vs reference " << b << " (scale " << scale
                                           << ")\n" << got.str() << "\n   vs reference " << want.str();
  }
  return ::testing::AssertionSuccess();
}

// Runs p on args through the executor and the reference evaluator and compares.
inline ::testing::AssertionResult same_as_reference(const Program &p, const std::vector<Tensor> &args, Options o = {},
                                                    double rel = 1e-12) {
  auto ex = exec::compile(p, o);
  std::vector<Tensor> got = ex->run(args);
  std::vector<Tensor> want = evaluate(p, args);
  if (got.size() != want.size()) return ::testing::AssertionFailure() << got.size() << " outputs, expected " << want.size();
  for (size_t k = 0; k < got.size(); ++k) {
    auto r = close(got[k], want[k], rel);
    if (!r) return r << "\noutput " << k << " of\n" << print(p) << "plan:\n" << ex->plan();
  }
  return ::testing::AssertionSuccess();
}

// Kernel lines of the plan whose kind is `kind` ("map", "reduce", "gemm", "gather",
// "scatter").
inline int kernels(const std::string &plan, const std::string &kind) {
  std::istringstream in(plan);
  std::string line;
  int n = 0;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] != 'k') continue;
    std::istringstream w(line);
    std::string id, k;
    w >> id >> k;
    n += k == kind;
  }
  return n;
}
inline int all_kernels(const std::string &plan) {
  int n = 0;
  for (const char *k : {"map", "reduce", "gemm", "gather", "scatter"}) n += kernels(plan, k);
  return n;
}

}  // namespace rml::exectest
