// Kind 2's `any { x: T | P }`: a value of T, fresh at each cycle, for which P holds (P reads
// x and may read the node's variables and the program's constants). The parser reads it
// as a call of kAnyCall (ival: its AnyValue) and, once the file is read, makes each one an
// imported node of its own,
//
//   imported node $any1(v1: t1, ...) returns (x: T);  let guarantee P; tel
//
// whose inputs are the node variables P reads, called `$any1(v1, ...)` where the `any`
// was: rml-check assumes its guarantee at each call (imported nodes, grammar.md §2), and
// `rml run` reads its value from the trace as any imported node's. P reading a variable
// without a declared type is `syntax.unsupported`.
#pragma once
#include <vector>

#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

struct AnyValue {
  std::string var;  // x
  Span var_span;
  TypeSyntax type;  // T
  ExprPtr pred;     // P
  Span span;        // `any` .. `}`
};

inline constexpr const char *kAnyCall = "$any";

// Adds the imported nodes to p and replaces each call of kAnyCall by a call of its node.
void expand_any_values(Program &p, const std::vector<AnyValue> &anys, Diagnostics &d);

}  // namespace rml
