// The one reader of JSON inputs (traces, `rml grad --at`, `--size`): nlohmann's parser
// driven through SAX, so bounds are checked while reading and no deep value is ever built,
// printed or destroyed recursively.
//   - nesting: at most kMaxDepth (256) levels of lists and objects;
//   - numbers: a literal beyond a double (1e400) or one that is not 0 but reads as 0
//     (1e-400) is an error; subnormals (down to 4.9e-324) are accepted;
//   - a key twice in one object is an error (JSON keeps one of them silently);
//   - every error starts with "NAME:LINE:COL: " (lines and columns count bytes from 1, as
//     the front end's), and so can the errors found after parsing: `where` locates the
//     value at a path of the document in its text.
#pragma once
#include <cstddef>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

namespace rml::json_input {

constexpr size_t kMaxDepth = 256;
constexpr size_t kMaxShown = 80;  // characters of a value, key or field shown in a message

// what() is "WHERE: MESSAGE"; WHERE is "NAME:LINE:COL" (or "NAME" for the whole input).
struct Error : std::runtime_error {
  std::string where, message;
  Error(std::string w, std::string m) : std::runtime_error(w + ": " + m), where(std::move(w)), message(std::move(m)) {}
};

// A place in a document: object keys and list indices (as decimal text), outermost first.
using Path = std::vector<std::string>;

// Parses `text`; throws Error("NAME:L:C: ...") on invalid JSON or past a bound.
nlohmann::json parse(const std::string &name, const std::string &text);

// "NAME:LINE:COL" of the value at `path` in `text` (which parsed, at least up to that
// value); with `key`, of the key of the last step instead. "NAME" if the path is not there.
std::string where(const std::string &name, const std::string &text, const Path &path, bool key = false);

// "LINE:COL" of a byte offset.
std::string line_col(const std::string &text, size_t offset);

// A value as JSON text, at most kMaxShown characters (then "...").
std::string shown(const nlohmann::json &v);
// A string (a key, a CSV field) in single quotes for a message: control bytes as \xNN, at
// most kMaxShown characters.
std::string quoted(const std::string &s);

}  // namespace rml::json_input
