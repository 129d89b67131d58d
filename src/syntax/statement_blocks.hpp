// Kind 2's imperative statements, read by the parser and expanded into plain equations of
// the node they are in (semantics/grammar.md §2, "If statements and frame blocks"):
//
//   if c1 then S1 elsif c2 then S2 else S3 fi      each variable v the statement defines is
//                                                  v = if g1 then S1's v else if g2 then
//                                                  S2's v else S3's v, where g1, g2 are bool
//                                                  locals holding c1, c2 (evaluated once per
//                                                  cycle, so every variable of the statement
//                                                  takes the same branch, as in Kind 2)
//   frame (v, ...) v = init; ... let S tel         the body's statements, where a variable of
//                                                  the frame that a branch leaves undefined
//                                                  keeps its value: `init -> pre v` (its
//                                                  initialisation given), else `pre v`
//
// Outside a frame block, an if statement defines each of its variables in every branch.
// Each branch is computed at every cycle (Lustre's `if`; Kind 2's if statements are
// sugar for it), so a node called in a branch steps at every cycle.
#pragma once
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

struct IfStatement;

// A statement of a branch or of a frame block's body: an equation or a nested if.
struct BlockStatement {
  Equation eq;                      // when `nested` is null
  std::unique_ptr<IfStatement> nested;
};

struct IfStatement {
  Span span;                                      // `if` .. `fi`
  std::vector<ExprPtr> conds;                     // if, elsif, ...
  std::vector<std::vector<BlockStatement>> branches;  // one per condition, then the `else` one if written
};

struct FrameBlock {
  Span span;                        // `frame` .. `tel`
  std::vector<LhsItem> vars;        // frame (v, ...)
  std::vector<Equation> inits;      // v = init; (a, b) = e;
  std::vector<BlockStatement> body; // let ... tel
};

// Adds to `n` the equations (and the bool locals of the conditions) that `stmts` stand for;
// `frame` is the block they are the body of (null: an if statement outside one). `names`
// holds every name of the file, which generated locals avoid (and then hold too).
void expand_statements(NodeDecl &n, std::vector<BlockStatement> stmts, FrameBlock *frame, std::set<std::string> &names,
                       Diagnostics &diags);

}  // namespace rml
