// The variables a run shows, named as the user names them (rml run --show, the library's
// RunOptions::show).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "core/normalize.hpp"

namespace rml {

// The variables `--show` names, as the program's own: each name may be spelt as `rml parse
// --normalized` prints it (movavg_1_x1) or as the elaborator names it (movavg$1.x1).
// Unknown names: nullopt and `error` lists the nearest variables (their printed spelling).
std::optional<std::vector<std::string>> resolve_shown(const core::Program &prog, const std::vector<std::string> &show,
                                                      std::string &error);

// The variables a run shows: `show` resolved (when not empty), or with `all` every stream
// (inputs, outputs, then each equation's), else inputs then outputs. nullopt with `error`
// for a name of `show` that is no stream of the node.
std::optional<std::vector<std::string>> streams_shown(const core::Program &prog, const std::vector<std::string> &show, bool all,
                                                      std::string &error);

}  // namespace rml
