// Types of streams and of array values (grammar.md §3), with unification variables for
// locals whose types are inferred.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sema/static_value.hpp"
#include "syntax/ast.hpp"

namespace rml {

struct Type {
  enum Kind : uint8_t {
    Tensor,  // scalar element + shape (rank 0 = scalar)
    TyVar,   // rigid type variable of a generic declaration ('a)
    Meta,    // unification variable (inferred local)
    Tuple,   // outputs of a multi-output call
    ShapeT,  // the type of a shape-valued static parameter
    Error,   // already reported: suppresses follow-on errors
  } kind = Error;
  Scalar elem = Scalar::Real;
  Shape shape;
  std::string tyvar;
  int meta = -1;
  std::vector<Type> elems;
  // An enumeration (`type color = enum { Red, Green }`): a Tensor of Int whose values are
  // the constructors' indices 0..n-1; two enumerations, or one and int, do not unify.
  std::string enum_name;
  std::shared_ptr<const std::vector<std::string>> ctors;
  // Lustre's `subrange [lo, hi] of int`: an int that the main node's inputs keep (an
  // assumption) and its outputs must keep (a property); an enumeration's range is 0..n-1.
  std::optional<std::pair<int64_t, int64_t>> range;
  // Kind 2's machine integers (`uint8`, `sint<17>`): a Tensor of Int whose values stay in
  // `range`, the width's, because core/normalize wraps every operation's result there; a
  // machine type unifies only with itself (no implicit conversion, as in Kind 2).
  std::optional<MachineInt> machine;

  static Type tensor(Scalar e, Shape s = {}) { Type t; t.kind = Tensor; t.elem = e; t.shape = std::move(s); return t; }
  static Type scalar(Scalar e) { return tensor(e); }
  static Type var(std::string n) { Type t; t.kind = TyVar; t.tyvar = std::move(n); return t; }
  static Type error() { return Type{}; }
  static Type shape_type() { Type t; t.kind = ShapeT; return t; }
  static Type tuple(std::vector<Type> ts) { Type t; t.kind = Tuple; t.elems = std::move(ts); return t; }

  bool is_error() const { return kind == Error; }
  bool is_scalar(Scalar e) const { return kind == Tensor && elem == e && shape.empty(); }
  bool is_numeric_tensor() const { return kind == Tensor && elem != Scalar::Bool && enum_name.empty(); }
  bool is_enum() const { return kind == Tensor && !enum_name.empty(); }
  bool is_machine() const { return kind == Tensor && machine.has_value(); }
  // The same element type: scalar, enumeration and machine integer alike.
  bool same_elem(const Type &o) const { return elem == o.elem && enum_name == o.enum_name && machine == o.machine; }
};

std::string type_str(const Type &t);

// Substitution for one use of a generic signature.
struct TypeSubst {
  StaticSubst statics;
  std::map<std::string, Type> tyvars;
  Type apply(const Type &t) const;
};

}  // namespace rml
