// The Lustre V6 / Heptagon text of a program in the core that `rml gen --dialect lustre`
// writes (scalar nodes; fby, ->, pre, when, merge, if, node calls): what a back end that
// reads plain Lustre is given, also after `rml diff` shrinks the program on rml's AST.
#pragma once
#include <optional>
#include <string>

#include "syntax/ast.hpp"

namespace rml::diff {

// nullopt with `why` naming the construct when the program is outside that core (post,
// `every`, tensors, funs, enumerations, undeclared locals).
std::optional<std::string> print_lustre(const Program &p, std::string &why);

}  // namespace rml::diff
