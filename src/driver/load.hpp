// Reading a source file through the front end, and reporting its diagnostics: the first
// step of every subcommand.
#pragma once
#include <vector>
#include <memory>
#include <ostream>
#include <string>

#include "sema/frontend.hpp"

namespace rml {

// The front end's result for FILE, or nullptr when it cannot be read (said on `err`).
std::unique_ptr<FrontendResult> load(const std::string &file, std::ostream &err, const FrontendOptions &opts = {});

// Prints the diagnostics; kFrontendError when there are errors, else kOk.
int report(const FrontendResult &r, std::ostream &err);

// --assume: each text is a source of its own, "<--assume K>", parsed as one assumption
// and attached to the main node before checking, as if written in its body.
FrontendOptions assume_options(const std::string &main, const std::vector<std::string> &assume);

// `r` again with `assume` attached to `main` (r itself when there is none); nullptr after
// reporting the errors of an --assume text on `err` ("TOOL: error: in --assume:").
std::unique_ptr<FrontendResult> load_with_assumptions(std::unique_ptr<FrontendResult> r, const std::string &file,
                                                      const std::string &main, const std::vector<std::string> &assume,
                                                      const char *tool, std::ostream &err);

}  // namespace rml
