// The derivative recipes of the table (ops.hpp, Deriv), instantiated over an algebra:
// the symbolic AD (src/array/ad/d_transform.cpp) passes IR builders, the scalar duals
// (scalar_dual.cpp) pass doubles. One definition, so the two differentiations the
// property tests compare cannot drift apart.
//
// The algebra A provides a value type V and
//   V constant(double c)    c as a Scale factor (the symbolic AD shares one per value)
//   V filled(double c)      c inside an expression
//   V add(V, V), sub(V, V), mul(V, V), div(V, V), neg(V)
//   V apply(UnOp g, V x)    g(x), g an operator of the table
//   V step(V x)             1 where x ≥ 0 or x is NaN, 0 elsewhere
//   V emit(V e)             e as a value of the derivative program (the AD binds it)
//   [[noreturn]] void missing(const UnaryRow &)   no derivative: throws
#pragma once
#include "ops/ops.hpp"

namespace rml::ops {

// d f(x)/dx at x, with y = f(x), for an operator whose argument and result are real.
template <class A, class V>
V derivative(A &a, UnOp op, const V &x, const V &y) {
  const UnaryRow &r = row(op);
  switch (r.deriv) {
    case Deriv::MinusOne: return a.constant(-1.0);
    case Deriv::Y: return y;
    case Deriv::InvX: return a.emit(a.div(a.filled(1.0), x));
    case Deriv::HalfInvY: return a.emit(a.div(a.filled(0.5), y));
    case Deriv::OneMinusY2: return a.emit(a.sub(a.filled(1.0), a.mul(y, y)));
    case Deriv::OpOfX: return a.emit(a.apply(r.dop, x));
    case Deriv::NegOpOfX: return a.emit(a.neg(a.apply(r.dop, x)));
    case Deriv::SignX: return a.emit(a.sub(a.step(x), a.step(a.neg(x))));
    case Deriv::NotReal:
    case Deriv::Missing: break;
  }
  a.missing(r);
  return y;  // not reached: missing throws
}

}  // namespace rml::ops
