// Reading a case's program into rml's AST and printing a shrunk one back in the same
// dialect: the parse and print hooks of the shrinker (shrink.hpp), for rml diff and for
// the RapidCheck generator whose counterexamples shrink structurally (include/rml/rapidcheck.hpp).
#pragma once
#include "diff/shrink.hpp"

namespace rml::diff {

// `lustre`: print candidates as Lustre (lustre_print.hpp; a program it cannot print, with
// `post`, is no candidate); else as rml. `main` is never removed.
ShrinkHooks case_hooks(bool lustre, const std::string &main = "main");

}  // namespace rml::diff
