// Tokens of the rml concrete syntax (semantics/grammar.md §1).
#pragma once
#include <cstdint>
#include <string>

#include "syntax/source.hpp"

namespace rml {

enum class Tok : uint8_t {
  Eof, Ident, TyVar, Int, Real,
  String,  // `"..."` on one line: a property's name (`check "P1" e;`); text is its contents
  // keywords
  KwNode, KwFunction, KwFun, KwReturns, KwVar, KwLet, KwTel, KwConst, KwWhen, KwWhenot,
  KwMerge, KwFby, KwPost, KwPre, KwIf, KwThen, KwElse, KwNot, KwAnd, KwOr, KwXor, KwMod,
  KwDiv, KwTrue, KwFalse, KwInt, KwBool, KwReal, KwFloat, KwIn, KwEvery, KwRestart,
  KwMachine,  // Kind 2's machine integer types `int8` .. `uint64` (reserved there too); text is the name
  // reserved only to give a clear "unsupported" diagnostic
  KwType, KwCurrent,
  // symbols
  LParen, RParen, LBracket, RBracket, Comma, Semi, Colon, Eq, Arrow, FatArrow, Plus, Minus,
  Star, Slash, Lt, Le, Gt, Ge, Ne, Backslash, Caret, Dot,
  Hash,  // Lustre's `#(a, b, c)` (at most one is true): only before '('
  LBrace, RBrace, Bar,  // `type T = enum { A, B }` and Heptagon's `type T = A | B`
  AtLt,  // `@<`: Kind 2's type arguments `N@<int>(x)`, `any@<T>` ('@' elsewhere is an error)
  AmpAmp, BarBar, Bang,  // Kind 2's bitwise `&&`, `||`, `!` on machine integers
  Question,  // Kind 2's tester `C?(e)`: only between a name and '('
};

const char *tok_name(Tok t);

struct Token {
  Tok kind = Tok::Eof;
  Span span;
  std::string text;   // identifier / literal spelling (a string: without its quotes)
  int64_t ival = 0;
  double rval = 0;
};

}  // namespace rml
