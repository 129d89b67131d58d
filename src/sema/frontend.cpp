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
  for (auto &d : r->user.decls) {
    if (auto *n = std::get_if<NodeDecl>(&d)) {
      NodeDecl c;
      c.name = n->name;
      c.name_span = n->name_span;
      c.keyword_span = n->keyword_span;
      c.is_function = n->is_function;
      c.lustre_style = n->lustre_style;
      c.has_let = n->has_let;
      for (auto &v : n->inputs) c.inputs.push_back(v.clone());
      for (auto &v : n->outputs) c.outputs.push_back(v.clone());
      for (auto &v : n->locals) c.locals.push_back(v.clone());
      for (auto &e : n->equations) c.equations.push_back(e.clone());
      for (auto &a : n->assumptions) c.assumptions.push_back(a.clone());
      r->checked.program.decls.emplace_back(std::move(c));
    } else if (auto *f = std::get_if<FunDecl>(&d)) {
      FunDecl c;
      c.name = f->name;
      c.name_span = f->name_span;
      for (auto &v : f->params) c.params.push_back(v.clone());
      c.result = f->result.clone();
      c.body = f->body->clone();
      r->checked.program.decls.emplace_back(std::move(c));
    } else {
      auto &k = std::get<ConstDecl>(d);
      ConstDecl c;
      c.name = k.name;
      c.name_span = k.name_span;
      if (k.type) c.type = k.type->clone();
      c.value = k.value->clone();
      r->checked.program.decls.emplace_back(std::move(c));
    }
  }
  check_program(r->checked, r->diags);
  r->checked_ok = !r->diags.has_errors();
  return r;
}

}  // namespace rml
