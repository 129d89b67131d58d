#include "driver/load.hpp"

#include "driver/exit_codes.hpp"
#include "syntax/parser.hpp"

namespace rml {

std::unique_ptr<FrontendResult> load(const std::string &file, std::ostream &err, const FrontendOptions &opts) {
  std::string io;
  auto text = read_file(file, io);
  if (!text) {
    err << "rml: error: " << io << "\n";
    return nullptr;
  }
  return run_frontend(file, std::move(*text), opts);
}

int report(const FrontendResult &r, std::ostream &err) {
  err << render_all(r.diags);
  if (r.diags.has_errors()) {
    size_t n = r.diags.error_count();
    err << n << " error" << (n == 1 ? "" : "s") << (n >= Diagnostics::kMaxErrors ? " (stopped at the limit)" : "") << "\n";
    return kFrontendError;
  }
  return kOk;
}

// --assume: each text is a source of its own, "<--assume K>" (a diagnostic's column is the
// position inside the option), parsed as one assumption (parse_assumption) and attached to
// the main node before checking, as if written in its body.
FrontendOptions assume_options(const std::string &main, const std::vector<std::string> &assume) {
  FrontendOptions o;
  o.before_check = [main, assume](FrontendResult &r) {
    NodeDecl *node = nullptr;
    for (size_t k = r.checked.prelude_decls; k < r.checked.program.decls.size(); ++k)
      if (auto *n = std::get_if<NodeDecl>(&r.checked.program.decls[k]); n && n->name == main) node = n;
    for (size_t k = 0; k < assume.size(); ++k) {
      auto file = std::make_unique<SourceFile>("<--assume " + std::to_string(k + 1) + ">", assume[k]);
      std::optional<Assumption> a = parse_assumption(*file, r.diags);
      r.files.insert(r.files.end() - 1, std::move(file));  // the user's file stays last
      if (a && node) node->assumptions.push_back(std::move(*a));
    }
  };
  return o;
}

std::unique_ptr<FrontendResult> load_with_assumptions(std::unique_ptr<FrontendResult> r, const std::string &file,
                                                      const std::string &main, const std::vector<std::string> &assume,
                                                      const char *tool, std::ostream &err) {
  if (assume.empty()) return r;
  std::string text = r->files.back()->text;
  r = run_frontend(file, std::move(text), assume_options(main, assume));
  if (r->diags.has_errors()) {
    err << tool << ": error: in --assume:\n";
    report(*r, err);
    return nullptr;
  }
  return r;
}

}  // namespace rml
