// RapidCheck generators of random well-formed surface ASTs (the shapes the parser
// produces), for the property parse(print(p)) == p (test_roundtrip_property.cpp).
//
// rml::ExprPtr and rml::Program are move-only, but RapidCheck values must be copyable, so
// the generators yield small copyable wrappers around shared, immutable trees. Use
// `clone()` / `program_clone()` to get an owned copy.
#pragma once
#include <memory>
#include <ostream>
#include <string>

#include <rapidcheck.h>

#include "syntax/ast.hpp"

namespace rml::testgen {

// A generated expression (shared, never mutated after generation).
struct GenExpr {
  std::shared_ptr<const rml::Expr> e;
  rml::ExprPtr clone() const { return e->clone(); }
};

// A generated program (shared, never mutated after generation).
struct GenProgram {
  std::shared_ptr<const rml::Program> p;
};

// Deep copy of a program (spans are copied as they are; generated ASTs have none).
rml::Program program_clone(const rml::Program &p);

// Which expression forms a generator may use (grammar.md §5, "Stream layer" and
// "Function layer"). `Any` mixes both layers: syntactically every combination is legal.
enum class Layer { Any, Stream, Fun };

// Any expression that may stand on its own (every ExprKind except Tuple, which is only
// the whole right-hand side of an equation; Lambda appears only as the last argument of
// build/gather/scatter). `depth` bounds the AST height: height <= 2 * depth + 1 (each
// nested build/gather/scatter call adds a Lambda level), far below the parser's limits
// (height 512, nesting 256) for the small depths used (<= 10; the tree size is at most
// exponential in depth). RapidCheck's size scales the depth actually used.
rc::Gen<GenExpr> genExpr(int depth);
rc::Gen<GenExpr> genExpr(Layer layer, int depth);

// A static-looking expression as written in type dims and constants: integer literals,
// names, + - * div mod, unary minus, min/max/rank/prod calls, shape literals, s[k].
rc::Gen<GenExpr> genStaticExpr(int depth);

// A type: int/bool/real with 0..3 dims (static expressions or `*s`), `'a`, or `shape`.
rc::Gen<std::shared_ptr<const rml::TypeSyntax>> genType();

// A whole program: const declarations, nodes (paper style and Lustre style, `node` and
// `function`), funs. Node bodies use the stream layer, fun bodies the function layer.
rc::Gen<GenProgram> genProgram();

// A program's canonical print with comments (`//`, `--`, `/* */`, nested `(* *)`) and
// extra line breaks and empty lines sprinkled at random token boundaries where the print
// has white space (the parse does not change: `merge c f (x)` vs `merge c f(x)` depends
// on adjacency, so touching tokens are left alone). Every comment holds a distinct tag
// "cN" (N counts from 1 in source order), so the order of comments can be checked.
struct GenCommented {
  GenProgram program;  // parse_program(text) is ast_equal to program.p
  std::string text;
  int comments = 0;
};
rc::Gen<GenCommented> genCommentedProgram();

// Identifier generators (never a keyword, never `_`).
rc::Gen<std::string> genIdent();

// Counterexample display: the printed text.
void showValue(const GenExpr &g, std::ostream &os);
void showValue(const GenProgram &g, std::ostream &os);
void showValue(const GenCommented &g, std::ostream &os);

}  // namespace rml::testgen
