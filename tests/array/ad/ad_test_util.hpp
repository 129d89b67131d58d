// Helpers shared by the AD tests: literal tensors, variables, and running the programs.
#pragma once
#include "array/common/tensor_lit.hpp"
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "array/ad/ad.hpp"
#include "array/ad/d_transform.hpp"
#include "array/ad/reverse.hpp"
#include "array/ad/share_to_let.hpp"
#include "array/ir/eval.hpp"
#include "array/ir/program.hpp"

namespace rml::ad::test {

using namespace rml::ir;

// 1000 RapidCheck cases per property unless RC_PARAMS sets max_success (the sanitizer
// runs set 100). RapidCheck reads RC_PARAMS once, lazily, at the first property.
inline const bool kRcParams = [] {
  const char *cur = std::getenv("RC_PARAMS");
  std::string v = cur ? cur : "";
  if (v.find("max_success") == std::string::npos) setenv("RC_PARAMS", (v.empty() ? "" : v + " ").append("max_success=1000").c_str(), 1);
  return true;
}();

inline Type rty(Shape s = {}) { return Type{Elem::Real, std::move(s)}; }
inline Term rvar(const std::string &x, Shape s = {}) { return var(x, rty(std::move(s))); }
using rml::ir_test::reals;
using rml::ir_test::ints;
inline Term ivar(const std::string &x) { return var(x, Type{Elem::Int, {}}); }
inline Term add(Term a, Term b) { return binary(BinOp::Add, std::move(a), std::move(b)); }
inline Term sub(Term a, Term b) { return binary(BinOp::Sub, std::move(a), std::move(b)); }
inline Term mul(Term a, Term b) { return binary(BinOp::Mul, std::move(a), std::move(b)); }
inline Term lit(int64_t v) { return int_scalar(v); }

// The gradient program run at args with cotangent ctg: outputs value, grads...
inline std::vector<Tensor> run(const rml::ir::Program &p, std::vector<Tensor> args, const Tensor &ctg) {
  typecheck(p);
  args.push_back(ctg);
  return evaluate(p, args);
}

// Every path at once: the symbolic program on the hand-written bulk term, the symbolic
// program on `original` vectorised by bot (gradient_program's path), the runtime dual
// arrays on the bulk term, and the scalar dual numbers on `original` (which may contain
// build1).
struct AllPaths {
  Gradient symbolic, vectorised, runtime, scalar;
  std::vector<const Gradient *> all() const { return {&symbolic, &vectorised, &runtime, &scalar}; }
};
inline Gradient from_outputs(const std::vector<Tensor> &res) { return Gradient{res[0], {res.begin() + 1, res.end()}}; }
inline AllPaths all_paths(const Term &bulk, const Term &original, const Inputs &in, const std::vector<Tensor> &args,
                          const Tensor &ctg) {
  AllPaths out;
  out.symbolic = from_outputs(run(vjp_program(bulk, in, false), args, ctg));
  out.vectorised = from_outputs(run(vjp_program(original, in, true), args, ctg));
  out.runtime = runtime_gradient(bulk, in, args, ctg, false);
  out.scalar = scalar_gradient(original, in, args, ctg);
  return out;
}

inline double max_abs_diff(const Tensor &a, const Tensor &b) {
  if (a.shape != b.shape || a.elem != b.elem) return INFINITY;
  double m = 0;
  for (size_t k = 0; k < a.r.size(); ++k) m = std::max(m, std::fabs(a.r[k] - b.r[k]));
  return m;
}

#define EXPECT_TENSOR_NEAR(a, b, tol) EXPECT_LE(::rml::ad::test::max_abs_diff((a), (b)), (tol)) << (a).str() << " vs " << (b).str()

// Replaces whole identifiers (not followed by more name characters) in printed text.
inline std::string rename_ids(std::string s, const std::map<std::string, std::string> &m) {
  for (auto &[from, to] : m) {
    size_t pos = 0;
    while ((pos = s.find(from, pos)) != std::string::npos) {
      size_t end = pos + from.size();
      if (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '$' || s[end] == '_')) {
        pos = end;
        continue;
      }
      s.replace(pos, from.size(), to);
      pos += to.size();
    }
  }
  return s;
}

// Substitutes the binds' variables by the given names (for comparisons up to renaming).
inline Term rename_terms(Term t, const std::vector<std::pair<std::string, Term>> &binds, const std::vector<std::string> &names) {
  for (size_t k = 0; k < binds.size() && k < names.size(); ++k)
    t = substitute(t, binds[k].first, var(names[k], binds[k].second->type));
  return t;
}

}  // namespace rml::ad::test
