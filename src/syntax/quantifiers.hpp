// Kind 2's quantifiers, `forall (x: T; y, z: U) e` and `exists (...) e`, with the concise
// form `forall (i: int | G) e` (read `forall i. G => e`, and `exists i. G and e`), over a
// finite domain: each one becomes the conjunction (forall) or the disjunction (exists) of
// its body with the values of its variables put in, which is what it means there. The
// domain of a variable comes from its type:
//   - bool: false, true;
//   - an enumeration (declared, or through aliases): its constructors;
//   - `subrange [lo, hi] of int` with static bounds: lo .. hi;
//   - int (and an unbounded side of a subrange): the bounds the guard gives, the conjuncts
//     `lo <= x`, `x < hi` (any comparison of x with a static int, either way round) of
//     the guard — the concise form's G, or else the body's `G => e` under forall and its
//     `G and e` under exists. Outside them the guard is false, so the instance is true
//     under forall and false under exists: leaving those values out changes nothing.
// Several variables are quantified one after the other (`forall x. forall y. e`), so the
// bounds of y may name x. Static ints: literals, global int constants and + - * div mod of
// them. Anything else (a quantifier over real, a record, a datatype with fields, or an int
// without static bounds; more than kMaxValues values for one variable, kMaxInstances in a
// node or kMaxExpandedNodes expression nodes in the file; a quantifier outside a node's
// equations and properties) is `syntax.unsupported`,
// located at the quantifier.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

struct QuantifiedVar {
  std::string name;
  Span span;
  std::shared_ptr<const TypeSyntax> type;  // (shared by the variables of a group, never modified)
};

struct Quantifier {
  bool forall = true;
  std::vector<QuantifiedVar> vars;
  bool guarded = false;  // the concise form: the call's args are {G, e}, else {e}
  Span span;             // `forall` .. the end of the body
};

// The parser reads a quantifier as a call of kQuantifierCall whose ival indexes its
// Quantifier and whose arguments are the guard (when guarded) and the body.
inline constexpr const char *kQuantifierCall = "$quantifier";
inline constexpr int64_t kMaxValues = 4096, kMaxInstances = 65536;
// The expression nodes the expansions of a file may write, at most (each instance is a copy
// of its quantifier's body): beyond, `syntax.unsupported`, not memory exhausted.
inline constexpr int64_t kMaxExpandedNodes = 2'000'000;

// Replaces each call of kQuantifierCall in p's nodes by its expansion.
void expand_quantifiers(Program &p, std::vector<Quantifier> &quantifiers, Diagnostics &d);

}  // namespace rml
