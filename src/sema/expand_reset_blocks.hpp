// Vélus / Heptagon reset blocks, made node instances before type checking:
//
//   node abro(a, b, r: bool) returns (o: bool)        node abro$reset1(a, b: bool) returns (o: bool)
//   let                                               let
//     reset                                             o = expect(a) and expect(b);
//       o = expect(a) and expect(b);         is       tel
//     every r;                                        node abro(a, b, r: bool) returns (o: bool)
//   tel                                               let
//                                                       o = abro$reset1(a, b) every r;
//                                                     tel
//
// which is how Vélus defines the block (its state, `fby`s, `pre`s and instances alike,
// restarted at each tick where the condition is true: semantics.md §2.5). The block's
// node takes the node's variables the block reads and defines the ones it defines, with
// their declared types; a block variable without a declared type, or on a declared
// clock, is `syntax.unsupported` for now.
#pragma once
#include "syntax/ast.hpp"
#include "syntax/diag.hpp"

namespace rml {

// Replaces the reset blocks of p[first..] by instances of new nodes (added after the node
// that had them); returns whether any was met.
bool expand_reset_blocks(Program &p, size_t first, Diagnostics &diags);

}  // namespace rml
