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
//   when c then S1 else S2 end                    Kind 2's lazy blocks (`cond | c1: S1 | c2:
//   cond | c1: S1 | c2: S2 otherwise: S3 end       S2 otherwise: S3 end` is when c1 then S1
//                                                  else when c2 then S2 else S3): a branch is
//                                                  computed only where it is taken, on the
//                                                  clock of its guard: v = merge g (S1's v)
//                                                  (S2's v), each node variable x that S1
//                                                  reads read as `x when g` (so its nodes
//                                                  step and its `pre`s and `->`s count only
//                                                  where g holds), a nested guard on its
//                                                  branch's clock
//   last v                                         in a frame block: v's previous value
//                                                  (`init -> pre v`, or `pre v`)
//
// Outside a frame block, a statement defines each of its variables in every branch. The
// branches of an if statement are computed at every cycle (Lustre's `if`; Kind 2's if
// statements are sugar for it), so a node called in one steps at every cycle. If
// statements and lazy blocks do not nest in each other (as in Kind 2).
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
  Span span;                                      // `if` .. `fi`, `when` / `cond` .. `end`
  bool lazy = false;                              // a when or cond block
  std::vector<ExprPtr> conds;                     // if, elsif, ...
  std::vector<std::vector<BlockStatement>> branches;  // one per condition, then the `else` one if written
};

// The parser reads `last v` as a call of this name (no name the lexer gives): the expansion
// replaces it by v's previous value.
inline constexpr const char *kLastCall = "$last";

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
