#include "sema/frontend.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "sema/expand_condact.hpp"
#include "sema/expand_current.hpp"
#include "sema/expand_enum_clocks.hpp"
#include "sema/expand_at_most_one.hpp"
#include "sema/expand_imported.hpp"
#include "sema/expand_index_definitions.hpp"
#include "sema/expand_iterators.hpp"
#include "sema/expand_reset_blocks.hpp"
#include "sema/expand_aggregates.hpp"
#include "sema/flatten_tuples.hpp"
#include "sema/instantiate_statics.hpp"
#include "sema/instantiate_types.hpp"
#include "sema/type_decls.hpp"
#include "syntax/lexer.hpp"
#include "syntax/parser.hpp"

namespace rml {

extern const char *const kPreludeSource;
extern const char *const kPreludePath;

std::string input_name(const std::string &path) { return path == "-" ? "<stdin>" : path; }

std::optional<std::string> read_file(const std::string &path, std::string &error) {
  // One bounded reader for every input: read in chunks (never trust a seek size: /dev/zero,
  // pipes and /proc files have none or a wrong one) and stop past the limit.
  static bool stdin_read = false;
  const bool is_stdin = path == "-";
  const std::string name = input_name(path);
  int fd = 0;
  if (is_stdin) {
    if (stdin_read) {
      error = "standard input ('-') can be read only once";
      return std::nullopt;
    }
    stdin_read = true;
  } else {
    do fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    while (fd < 0 && errno == EINTR);
    if (fd < 0) {
      error = "cannot open '" + name + "': " + std::strerror(errno);
      return std::nullopt;
    }
  }
  struct Closer {
    int fd;
    bool own;
    ~Closer() {
      if (own) ::close(fd);
    }
  } closer{fd, !is_stdin};
  struct stat st {};
  if (::fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
    error = "'" + name + "' is a directory";
    return std::nullopt;
  }
  std::string text;
  char buf[65536];
  for (;;) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0) {
      if (errno == EINTR) continue;
      error = errno == EISDIR ? "'" + name + "' is a directory" : "cannot read '" + name + "': " + std::strerror(errno);
      return std::nullopt;
    }
    if (n == 0) break;
    if (text.size() + static_cast<size_t>(n) > Limits::kMaxFileBytes) {
      error = "'" + name + "' is larger than 16 MiB (the limit of an input: 16777216 bytes)";
      return std::nullopt;
    }
    text.append(buf, static_cast<size_t>(n));
  }
  // A UTF-8 byte order mark is not part of the text (CSV headers, JSON, .rml): drop it
  // here, once, so every consumer sees the text from its first character (column 1).
  if (text.compare(0, 3, "\xEF\xBB\xBF") == 0) text.erase(0, 3);
  return text;
}

std::unique_ptr<FrontendResult> run_frontend(const std::string &path, std::string text, const FrontendOptions &opts) {
  auto r = std::make_unique<FrontendResult>();
  Program prelude;
  if (opts.with_prelude) {
    r->files.push_back(std::make_unique<SourceFile>(kPreludePath, kPreludeSource));
    prelude = parse_program(*r->files.back(), r->diags);
  }
  r->files.push_back(std::make_unique<SourceFile>(input_name(path), std::move(text)));
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
  // Its errors (a free constant read where no value can be) stop the front end: the names
  // they concern would only draw follow-on errors.
  size_t before_imported = r->diags.error_count();
  expand_imported(r->checked.program, r->checked.prelude_decls, r->diags);
  if (r->diags.error_count() > before_imported) return r;
  instantiate_types(r->checked.program, r->checked.prelude_decls, r->diags);
  if (r->diags.error_count() > before_imported) return r;  // a call left uninstantiated draws follow-on errors
  expand_reset_blocks(r->checked.program, r->checked.prelude_decls, r->diags);
  resolve_type_decls(r->checked, r->diags);
  // A merge over an enumeration without its clauses, a call that could not be
  // instantiated or an aggregate that could not be flattened leaves nothing the type
  // checker could read without follow-on errors: their errors stop the front end, as parse
  // errors do.
  size_t before_lowering = r->diags.error_count();
  expand_enum_clocks(r->checked, r->diags);
  if (r->diags.error_count() == before_lowering) expand_current(r->checked.program, r->checked.prelude_decls, r->diags);
  if (r->diags.error_count() == before_lowering) instantiate_statics(r->checked.program, r->checked.prelude_decls, r->diags);
  if (r->diags.error_count() == before_lowering) expand_index_definitions(r->checked.program, r->checked.prelude_decls, r->diags);
  if (r->diags.error_count() == before_lowering) expand_iterators(r->checked.program, r->checked.prelude_decls, r->diags);
  if (r->diags.error_count() == before_lowering) expand_aggregates(r->checked.program, r->checked.prelude_decls, r->diags);
  if (r->diags.error_count() > before_lowering) return r;
  expand_condact(r->checked.program, r->checked.prelude_decls);
  expand_at_most_one(r->checked.program, r->checked.prelude_decls);
  flatten_tuples(r->checked.program, r->checked.prelude_decls);
  check_program(r->checked, r->diags);
  r->checked_ok = !r->diags.has_errors();
  return r;
}

}  // namespace rml
