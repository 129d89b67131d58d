#include "sema/frontend.hpp"

#include <fstream>
#include <sstream>

#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"

namespace rml {

extern const char *const kPreludeSource;
extern const char *const kPreludePath;

std::optional<std::string> read_file(const std::string &path, std::string &error) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    error = "cannot open '" + path + "'";
    return std::nullopt;
  }
  in.seekg(0, std::ios::end);
  auto size = in.tellg();
  if (size < 0) {
    error = "cannot read '" + path + "'";
    return std::nullopt;
  }
  if (static_cast<size_t>(size) > Limits::kMaxFileBytes) {
    error = "'" + path + "' is larger than 16 MiB";
    return std::nullopt;
  }
  in.seekg(0);
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::unique_ptr<FrontendResult> run_frontend(const std::string &path, std::string text, const FrontendOptions &opts) {
  auto r = std::make_unique<FrontendResult>();
  Program prelude;
  if (opts.with_prelude) {
    r->files.push_back(std::make_unique<SourceFile>(kPreludePath, kPreludeSource));
    prelude = parse_program(*r->files.back(), r->diags);
  }
  r->files.push_back(std::make_unique<SourceFile>(path, std::move(text)));
  size_t before = r->diags.error_count();
  r->user = parse_program(*r->files.back(), r->diags);
  r->parsed_ok = !r->diags.has_errors();
  if (!opts.check || r->diags.error_count() > before || r->diags.has_errors()) return r;
  // The checked program owns copies: the user AST stays available for printing.
  for (auto &d : prelude.decls) {
    r->checked.prelude_names.insert(decl_name(d));
    r->checked.program.decls.push_back(std::move(d));
  }
  r->checked.prelude_decls = r->checked.program.decls.size();
  for (auto &d : r->user.decls) r->checked.program.decls.push_back(clone_decl(d));
  if (opts.before_check) opts.before_check(*r);
  check_program(r->checked, r->diags);
  r->checked_ok = !r->diags.has_errors();
  return r;
}

}  // namespace rml
