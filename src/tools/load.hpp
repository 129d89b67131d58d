// Reading a source file through the front end, and reporting its diagnostics: the first
// step of every subcommand.
#pragma once
#include <memory>
#include <ostream>
#include <string>

#include "sema/frontend.hpp"

namespace rml {

// The front end's result for FILE, or nullptr when it cannot be read (said on `err`).
std::unique_ptr<FrontendResult> load(const std::string &file, std::ostream &err, const FrontendOptions &opts = {});

// Prints the diagnostics; kFrontendError when there are errors, else kOk.
int report(const FrontendResult &r, std::ostream &err);

}  // namespace rml
