// Kind 2's contracts, read by the parser and expanded into the node they specify.
//
// A contract (inline `(*@contract ... *)` or `con ... noc` between a node's header and its
// body, or a `contract C(...) returns (...); let ... tel` declaration imported by one)
// stands for the locals, assumptions and properties rml already checks
// (semantics/grammar.md §2, "Contracts"):
//   var g: t = e;          a local g of the node, defined by e (a ghost variable)
//   const c [: t] = e;     e written wherever c is read
//   assume e;              `assume always e;` of the node: assumed when the node is checked,
//                          and a property of every caller at each call (core/normalize)
//   guarantee e;           `guarantee e;`: a property of the node
//   mode m (require r; ensure e;)
//                          a bool local, the conjunction of m's requires (what `::m`
//                          reads), and for each ensure the property `m => e`
//   import C(a) returns (o);
//                          C's items, its inputs reading a and its outputs o
// and, when the node's contract has a mode, the property that one mode is active
// (`one_mode_active`, Kind 2's exhaustiveness check). `weakly` is read and ignored
// (it matters to Kind 2's minimal-cut analyses, not to verdicts).
// An imported node's contract is all that is known of it: its guarantees and ensures
// become `A => g`, A the node's assumptions having held so far (a local
// `assumptions_held`; for a function, A at the same cycle), and each call assumes them
// of the outputs (core/normalize); no `one_mode_active` (there is no body to hold it of).
#pragma once
#include <map>
#include <set>
#include <string>
#include <vector>

#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

struct ContractItem {
  enum Kind { Ghost, Const, Assume, Guarantee, Mode, Import };
  Kind kind = Guarantee;
  Span span;                 // the whole item
  std::string name;          // Ghost/Const: the variable; Mode: the mode; Import: the contract;
                             // Assume/Guarantee: the item's name ("" when unnamed)
  Span name_span;
  std::optional<TypeSyntax> type;  // Ghost/Const
  ExprPtr expr;                    // Ghost/Const: the value; Assume/Guarantee: the condition
  struct Clause {
    ExprPtr cond;
    std::string name;
    Span span;
  };
  std::vector<Clause> requires_, ensures;  // Mode
  std::vector<ExprPtr> args;               // Import: the actual inputs
  std::vector<LhsItem> returns;            // Import: the actual outputs (names)
  bool refinement = false;  // made of a refinement type (syntax/refinements.hpp): may read any
                            // variable of the node, locals included
};

struct ContractBody {
  Span span;  // `con` / `(*@contract`
  std::vector<ContractItem> items;
};

struct ContractDecl {
  std::string name;
  Span name_span;
  std::vector<VarDecl> inputs, outputs;
  ContractBody body;
};

// Kind 2's well-formedness of a contract declaration on its own (also when nothing imports
// it): its assumptions and requires do not read its outputs at the current cycle.
void check_contract_decl(const Program &p, const ContractDecl &c, Diagnostics &diags);

// Expands each node's contract (bodies[k] belongs to the NodeDecl at p.decls[k]) into that
// node; `names` holds every identifier of the file, which generated locals avoid.
void expand_contracts(Program &p, std::map<size_t, ContractBody> &bodies,
                      const std::map<std::string, ContractDecl> &decls, const std::set<std::string> &names,
                      Diagnostics &diags);

}  // namespace rml
