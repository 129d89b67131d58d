// rml parse (the program, or its elaborated core with --normalized) and rml fmt.
#include "tools/commands.hpp"

#include <filesystem>
#include <fstream>

#include "core/normalize.hpp"
#include "syntax/printer.hpp"
#include "driver/load.hpp"
#include "driver/main_node.hpp"

namespace rml {

int cmd_parse(const ParseCmd &c, std::ostream &out, std::ostream &err) {
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  if (!c.normalized) {
    out << print_program(r->user);
    return kOk;
  }
  // --main, else the '// main:' header, else every node that can be a main.
  std::vector<std::string> mains;
  if (!c.main_node.empty() && !check_main_name(*r, c.main_node, err)) return kFrontendError;
  if (!c.main_node.empty()) mains.push_back(c.main_node);
  else if (std::string h = header_main(*r); !h.empty()) mains.push_back(h);
  else mains = main_candidates(*r);
  // The user's constants and funs first: the elaborated nodes call the funs (and the
  // funs may name the constants), so the output parses and checks on its own.
  Program defs;
  for (auto &d : r->user.decls)
    if (!std::holds_alternative<NodeDecl>(d)) defs.decls.push_back(clone_decl(d));
  if (!defs.decls.empty()) out << print_program(defs) << (mains.empty() ? "" : "\n");
  int rc = kOk;
  for (size_t i = 0; i < mains.size(); ++i) {
    try {
      core::Program p = core::elaborate(r->checked, mains[i]);
      if (i) out << "\n";
      out << print_core(p);
    } catch (core::ElabError &e) {
      err << (e.span.valid() ? location(e.span) + ": " : std::string("rml: ")) << "error[elab]: " << e.message << "\n";
      rc = kFrontendError;
    }
  }
  return rc;
}

int cmd_fmt(const FmtCmd &c, std::ostream &out, std::ostream &err) {
  std::string io;
  std::optional<std::string> source = read_file(c.file, io);
  if (!source) {
    err << "rml: error: " << io << "\n";
    return kFrontendError;
  }
  auto formatted = api::format_text(c.file, *source);
  if (!formatted) return print_failure(formatted.failure(), err);
  const std::string &text = *formatted;
  if (c.check) {
    bool same = text == *source;
    if (!same) err << c.file << ": not formatted (run 'rml fmt -i " << c.file << "')\n";
    return same ? kOk : kFalsified;
  }
  if (c.in_place) {
    if (text == *source) return kOk;  // already formatted: leave the file untouched
    // Write a temporary file next to the original, then rename it over the original:
    // a failed write leaves the original as it was.
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path target = fs::weakly_canonical(c.file, ec);  // through a symlink: rewrite its target
    if (ec) target = c.file;
    fs::path tmp;
    for (int k = 0; k < 1000; ++k) {
      tmp = target;
      tmp.replace_filename("." + target.filename().string() + ".rmlfmt" + std::to_string(k) + ".tmp");
      if (!fs::exists(tmp, ec)) break;
    }
    bool ok;
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f << text;
      f.flush();
      ok = static_cast<bool>(f);
    }
    if (ok) {
      fs::perms mode = fs::status(target, ec).permissions();
      if (!ec) fs::permissions(tmp, mode, ec);
      ec.clear();
      fs::rename(tmp, target, ec);
      ok = !ec;
    }
    if (!ok) {
      fs::remove(tmp, ec);
      err << "rml: error: cannot write '" << c.file << "' (left unchanged)\n";
      return kFrontendError;
    }
    return kOk;
  }
  out << text;
  return kOk;
}

}  // namespace rml
