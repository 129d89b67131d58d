// Which node a command elaborates (rml run, rml parse --normalized, rml-check): `--main`,
// else the file's `// main: NODE` header, else the file's only node that can be a main
// (no static parameters, no size, shape or type variables).
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "sema/frontend.hpp"

namespace rml {

// The user's nodes (not the prelude's), in source order.
std::vector<std::string> user_nodes(const FrontendResult &r);

// The user's nodes that can be a main, in source order.
std::vector<std::string> main_candidates(const FrontendResult &r);

// The `// main: NODE` header when it names a node that can be a main, else the node whose
// body holds Kind 2's `--%MAIN;` pragma (JKind's `--!MAIN;`), else "".
std::string header_main(const FrontendResult &r);

// `--main NAME` names a node (of the file or the prelude): true; else an error
// `FILE: error[main.unknown]` listing the file's nodes, with a note at the nearest one.
bool check_main_name(const FrontendResult &r, const std::string &name, std::ostream &err);

// The nodes to check or print (rml-check, rml parse --normalized): `given`, else the
// header's, else every candidate; nullopt after check_main_name's error for a `given`
// that names no node.
std::optional<std::vector<std::string>> chosen_mains(const FrontendResult &r, const std::string &given, std::ostream &err);

// The one node to run: `given`, else the header, else the only candidate. Otherwise an
// error (main.ambiguous at the candidates, or main.none) naming what to write, and nullopt.
std::optional<std::string> choose_main(const FrontendResult &r, const std::string &given, std::ostream &err);

}  // namespace rml
