// The front end as one call: read the prelude and a file, parse, check.
#pragma once
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sema/typecheck.hpp"

namespace rml {

struct FrontendResult {
  std::vector<std::unique_ptr<SourceFile>> files;  // own the text every Span points into
  Program user;          // the user's declarations as parsed (for printing / fmt)
  CheckedProgram checked;
  Diagnostics diags;
  bool parsed_ok = false;   // no lexing or parsing error
  bool checked_ok = false;  // no error at all
};

struct FrontendOptions {
  bool with_prelude = true;
  bool check = true;  // false: parse only
  // Called once the file parsed, before checking: may add source files to `files` and
  // edit `checked.program` (rml-check --assume attaches parsed assumptions to a node).
  std::function<void(FrontendResult &)> before_check;
};

std::unique_ptr<FrontendResult> run_frontend(const std::string &path, std::string text, const FrontendOptions &opts = {});

// Reads a file, or standard input when `path` is "-" (once per process), in chunks: at
// most Limits::kMaxFileBytes (16 MiB), whatever the file claims (pipes, /dev/zero); a
// directory is an error; a leading UTF-8 byte order mark is dropped. On failure returns
// nullopt and sets `error` (naming the file as input_name(path)).
std::optional<std::string> read_file(const std::string &path, std::string &error);

// The name of an input in diagnostics: "<stdin>" for "-", else the path.
std::string input_name(const std::string &path);

}  // namespace rml
