// Kind 2's algebraic datatypes, read by the parser and expanded into the records and
// enumerations the rest of rml knows (semantics/grammar.md §2, "Algebraic datatypes"),
// as Kind 2 itself expands its non-recursive ones:
//
//   datatype Shape = Circle (radius: real)       type Shape.ctor = enum { Circle, Rect };
//                  | Rect (w: real, h: real);    type Shape = struct { ctor: Shape.ctor;
//                                                   radius: real; w: real; h: real };
//   Circle(r)                                     Shape { ctor = Circle; radius = r;
//                                                   w = 0.0; h = 0.0 }
//   Circle?(s)                                    s.ctor = Circle
//   s.radius                                      the record's field (a selector)
//   match s with | Circle(r): a                   if s.ctor = Circle then a[r := s.radius]
//              | Rect(w, _): b end                else b[w := s.w]
//
// A datatype whose constructors carry no field is an enumeration (`datatype D = A | B` is
// `type D = enum { A, B }`); `match` and testers also read the enumerations of the file.
//
// A value keeps every constructor's fields; those of the other constructors hold their
// type's first value (0, 0.0, false, the first constructor, ...), so a value is canonical:
// the records' equality is the datatypes' (same constructor, equal fields of it). A value
// that does not come from a constructor is made canonical where it enters: each node's
// inputs of a datatype are read through the function `$canon.D`, and so is `any@<D>`. A
// selector of another constructor's field (`Rect(1.0, 2.0).radius`) gives that first
// value, total as `x div 0 = 0` is (Kind 2 leaves it unspecified).
//
// A datatype with type parameters (`datatype Opt<T>`) is a family: each instance written
// in a type (`Opt<int>`) is a datatype of its own; a constructor takes the instance its
// type arguments (`None@<int>`), the type its place expects, or its fields' values name.
//
// Not read (`syntax.unsupported`): recursive datatypes (values of unbounded size), a
// datatype inside an array of a node's inputs, instances at a generic node's type
// parameter, and imported nodes or free constants of a datatype.
#pragma once
#include <string>
#include <vector>

#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

struct DatatypeCtor {
  std::string name;
  Span span;
  std::vector<VarDecl> fields;
};

struct DatatypeSyntax {
  std::string name;
  Span name_span;
  Span span;  // `datatype` .. `;`
  std::vector<std::string> params;
  std::vector<Span> param_spans;
  std::vector<DatatypeCtor> ctors;
  DatatypeSyntax clone() const {  // a deep copy (fields hold types with unique_ptrs)
    DatatypeSyntax c{name, name_span, span, params, param_spans, {}};
    for (auto &k : ctors) {
      DatatypeCtor cc{k.name, k.span, {}};
      for (auto &f : k.fields) cc.fields.push_back(f.clone());
      c.ctors.push_back(std::move(cc));
    }
    return c;
  }
};

// A pattern of a match arm: `_`, a name (a nullary constructor, or a variable bound to the
// matched value), or a constructor with its fields' patterns `C(x, _)`.
struct PatternSyntax {
  std::string name;
  Span span;
  bool parens = false;
  std::vector<PatternSyntax> subs;
};

struct MatchSyntax {
  Span span;
  std::vector<PatternSyntax> arms;
};

// The parser reads `match e with | p1: b1 | ... end` as a call of kMatchCall whose ival
// indexes its MatchSyntax and whose arguments are e, b1, ..., and `C?(e)` as a call of
// kTesterCall on e with binders {C}: names the lexer never gives. expand_datatypes
// replaces both.
inline constexpr const char *kMatchCall = "$match";
// Kind 2's `when c then e1 else e2` is a call of kWhenCall on c, e1, e2: a match on a bool,
// each branch computed only where it is taken (lazily when it keeps state, as an arm).
inline constexpr const char *kWhenCall = "$when";
inline constexpr const char *kTesterCall = "$is";

// Adds the datatypes' declarations to p (first, so that every declaration sees them) and
// rewrites every expression of p; reports what it cannot read. bare: where `N@<T>` was
// written without arguments (a constructor of an instance, or an error).
void expand_datatypes(Program &p, const std::vector<DatatypeSyntax> &datatypes, const std::vector<MatchSyntax> &matches,
                      const std::vector<Span> &bare, Diagnostics &d);

}  // namespace rml
