// Shared by the lowering tests: front-end results kept alive for the whole run, and
// random arguments for a fun (random values for its static names, then tensors of the
// shapes they give).
#pragma once
#include <rapidcheck.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "array/eval.hpp"
#include "array/ir/eval.hpp"
#include "array/lower/lower.hpp"
#include "sema/frontend.hpp"

namespace rml::test {

// The checked program of a text (prelude included); results are cached by text, so the
// spans of every diagnostic stay valid. Null if the front end reports an error.
inline const FrontendResult *checked(const std::string &path, const std::string &text) {
  static std::map<std::string, std::unique_ptr<FrontendResult>> cache;
  auto &slot = cache[path + '\0' + text];
  if (!slot) slot = run_frontend(path, text);
  return slot->checked_ok ? slot.get() : nullptr;
}

// The funs a file declares (the prelude's when `prelude` is set), in declaration order.
inline std::vector<std::string> funs_of(const CheckedProgram &cp, bool prelude) {
  std::vector<std::string> out;
  size_t lo = prelude ? 0 : cp.prelude_decls, hi = prelude ? cp.prelude_decls : cp.program.decls.size();
  for (size_t k = lo; k < hi; ++k)
    if (auto *f = std::get_if<FunDecl>(&cp.program.decls[k])) out.push_back(f->name);
  return out;
}

struct FunCase {
  std::vector<StaticValue> statics;  // const arguments, in order
  std::vector<array::Tensor> args;   // value arguments, in order
  std::string str() const {
    std::string s;
    for (auto &v : statics) s += "#" + v.str() + " ";
    for (auto &a : args) s += a.str() + " ";
    return s;
  }
};

// Random reals: mostly moderate, sometimes a special value (signed zeros, infinities,
// NaN, huge and tiny magnitudes), so the corner cases of grammar.md §5 are exercised.
inline double random_real(std::mt19937_64 &rng) {
  static const double special[] = {0.0, -0.0, 1.0, -1.0, 0.5, 1e300, -1e300, 1e-310, INFINITY, -INFINITY, NAN};
  if (rng() % 16 == 0) return special[rng() % (sizeof special / sizeof *special)];
  return std::uniform_real_distribution<double>(-3.0, 3.0)(rng);
}
// Random ints: mostly small (indices in and out of bounds, divisors around 0), sometimes
// any 64-bit value (wrapping arithmetic).
inline int64_t random_int(std::mt19937_64 &rng) {
  if (rng() % 8 == 0) return static_cast<int64_t>(rng());
  return static_cast<int64_t>(rng() % 14) - 4;
}

inline array::Tensor random_tensor(Scalar elem, const std::vector<int64_t> &shape, std::mt19937_64 &rng) {
  array::Tensor t = array::Tensor::zeros(elem, shape);
  for (auto &v : t.r) v = random_real(rng);
  for (auto &v : t.i) v = elem == Scalar::Bool ? static_cast<int64_t>(rng() % 2) : random_int(rng);
  return t;
}

// Inside a RapidCheck property: a random use of fun `name`. Static ints and dims are
// small (0..max_size), shapes have rank 0..3; type-variable parameters get real or int
// scalars or vectors. The values come from a generated seed.
inline FunCase gen_fun_case(const CheckedProgram &cp, const std::string &name, int64_t max_size = 4) {
  const Signature &sig = cp.sigs.at(name);
  StaticSubst s;
  FunCase c;
  auto gen_shape = [&] {
    size_t rank = *rc::gen::inRange<size_t>(0, 4);
    Shape sh;
    for (size_t d = 0; d < rank; ++d) sh.push_back(Poly::constant(*rc::gen::inRange<int64_t>(0, max_size)));
    return sh;
  };
  for (auto &p : sig.inputs) {
    if (!p.is_const) continue;
    if (p.static_kind == StaticValue::Int) {
      Poly v = Poly::constant(*rc::gen::inRange<int64_t>(0, max_size + 1));
      s.sizes[p.name] = v;
      c.statics.push_back(StaticValue::of_int(v));
    } else {
      Shape sh = gen_shape();
      s.shapes[p.name] = sh;
      c.statics.push_back(StaticValue::of_shape(sh));
    }
  }
  for (auto &v : sig.size_vars)
    if (!s.sizes.count(v)) s.sizes[v] = Poly::constant(*rc::gen::inRange<int64_t>(0, max_size + 1));
  for (auto &v : sig.shape_vars)
    if (!s.shapes.count(v)) s.shapes[v] = gen_shape();
  std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
  std::map<std::string, ir::Type> tyvars;  // one type per type variable
  for (auto &p : sig.inputs) {
    if (p.is_const) continue;
    if (p.type.kind != Type::Tensor) {  // a type variable: any type the body accepts
      auto it = tyvars.find(p.type.tyvar);
      if (it == tyvars.end()) {
        ir::Type t{*rc::gen::arbitrary<bool>() ? Scalar::Real : Scalar::Int, {}};
        if (*rc::gen::arbitrary<bool>()) t.shape.push_back(*rc::gen::inRange<int64_t>(0, max_size + 1));
        it = tyvars.emplace(p.type.tyvar, t).first;
      }
      c.args.push_back(random_tensor(it->second.elem, it->second.shape, rng));
      continue;
    }
    auto t = lower::concrete_type(p.type, s);
    RC_PRE(t.has_value());  // sizes the statics cannot fix (never for checked programs)
    c.args.push_back(random_tensor(p.type.elem, t->shape, rng));
  }
  return c;
}

// Equal values: ints and bools exactly, reals bitwise (so 0.0 and -0.0 differ), except
// that any NaN equals any NaN: which NaN an operation on two NaNs returns depends on the
// operand order the compiler picks for a commutative operator, not on the semantics.
inline bool same_values(const array::Tensor &a, const array::Tensor &b) {
  if (a.elem != b.elem || a.shape != b.shape || a.r.size() != b.r.size()) return false;
  if (a.elem != Scalar::Real) return a.i == b.i;
  for (size_t k = 0; k < a.r.size(); ++k) {
    if (std::isnan(a.r[k]) && std::isnan(b.r[k])) continue;
    if (std::memcmp(&a.r[k], &b.r[k], sizeof(double)) != 0) return false;
  }
  return true;
}

// Lowers and evaluates one use; nullopt (with `why`) when lowering refuses.
inline std::optional<array::Tensor> lowered_value(const CheckedProgram &cp, const std::string &name, const FunCase &c,
                                                  std::string &why, ir::Term *term = nullptr) {
  std::vector<ir::Type> types;
  for (auto &a : c.args) types.push_back(ir::Type{a.elem, a.shape});
  try {
    lower::Lowered l = lower::lower_fun(cp, name, c.statics, types);
    ir::typecheck(l.body, l.inputs);  // every variable bound, at its binder's type
    if (term) *term = l.body;
    return ir::evaluate(l.program(), c.args).at(0);
  } catch (lower::LowerError &e) {
    why = e.what();
    return std::nullopt;
  }
}

inline std::optional<array::Tensor> reference_value(const CheckedProgram &cp, const std::string &name, const FunCase &c,
                                                    std::string &why) {
  try {
    array::Evaluator ev(cp);
    return ev.apply(name, c.statics, c.args);
  } catch (std::exception &e) {  // StaticError (e.g. s[-1] of a rank-0 shape) or EvalError
    why = e.what();
    return std::nullopt;
  }
}

}  // namespace rml::test
