// rml compile FILE --main NODE -o DIR: the node, once rml-check accepts it, as a C++ step
// class in DIR (src/codegen): NODE.hpp, NODE.cpp, rml_cell.hpp, runtime/ (the operator
// table's scalar meanings) and a CMakeLists.txt. Files are written whole or not at all.
#include <filesystem>
#include <fstream>
#include <system_error>
#include <unistd.h>

#include "codegen/emit_cpp.hpp"
#include "driver/elaborated.hpp"
#include "stream/plan.hpp"
#include "tools/commands.hpp"
#include "tools/load.hpp"
#include "tools/main_node.hpp"
#include "tools/run_common.hpp"

namespace rml {

int cmd_compile(const CompileCmd &c, std::ostream &out, std::ostream &err) {
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  std::optional<std::string> chosen = choose_main(*r, c.main_node, err);
  if (!chosen) return kFrontendError;
  const std::string main = *chosen;
  r = load_with_assumptions(std::move(r), c.file, main, c.assume, "rml", err);
  if (!r) return kFrontendError;
  driver::Elaborated elab;
  try {
    elab = driver::elaborate(r->checked, main);
  } catch (core::ElabError &e) {
    err << (e.span.valid() ? location(e.span) + ": " : std::string("rml: ")) << "error[elab]: " << e.message << "\n";
    return kFrontendError;
  }
  if (refuse_imported(elab.prog, "codegen.imported", "rml compile does not generate calls of it", err)) return kUnknown;
  int refused_rc = kOk;
  std::optional<int64_t> horizon = accepted_horizon(*r, elab, c.file, main, c.check_budget, "be compiled", err, refused_rc);
  if (!horizon) return refused_rc;
  std::vector<codegen::GeneratedFile> files;
  codegen::EmitInfo info;
  try {
    stream::Plan plan = stream::build_plan(elab.prog, elab.clocks);
    files = codegen::emit_cpp(elab.prog, elab.clocks, plan, c.file, c.ns, *horizon, &r->checked, &info);
  } catch (codegen::CodegenError &e) {
    err << (e.span.valid() ? location(e.span) + ": " : c.file + ": ") << "error[" << e.rule << "]: " << e.what() << "\n";
    if (e.span.valid()) {
      Diagnostic d;
      d.rule = e.rule;
      d.span = e.span;
      std::string excerpt = render(d);
      size_t nl = excerpt.find('\n');
      err << (nl == std::string::npos ? std::string() : excerpt.substr(nl + 1));
    }
    return kUnknown;  // what rml cannot do yet (README "Limits and exit codes")
  } catch (stream::PlanError &e) {
    err << "rml: error[stream.plan]: " << e.what() << "\n";
    return kUnknown;
  }
  // Into a fresh folder next to DIR, then renamed: DIR is never left half-written.
  namespace fs = std::filesystem;
  std::error_code ec;
  fs::path dir(c.out_dir), tmp;
  if (fs::exists(dir, ec) && !fs::is_directory(dir, ec)) {
    err << "rml: error: '" << c.out_dir << "' exists and is not a folder\n";
    return kFrontendError;
  }
  // A temporary folder of our own, made here (create_directory fails on an existing path):
  // nothing of the user's is ever removed.
  for (int k = 0;; ++k) {
    tmp = dir.string() + ".rml-compile-" + std::to_string(::getpid()) + "-" + std::to_string(k);
    if (fs::create_directory(tmp, ec)) break;
    if (k == 100 || (ec && ec != std::errc::file_exists)) {
      err << "rml: error: cannot create a folder next to '" << c.out_dir << "'" << (ec ? ": " + ec.message() : "") << "\n";
      return kFrontendError;
    }
  }
  for (auto &f : files) {
    fs::path p = tmp / f.path;
    fs::create_directories(p.parent_path(), ec);
    std::ofstream o(p, std::ios::binary);
    o << f.text;
    if (!o.flush()) {
      err << "rml: error: cannot write '" << p.string() << "'\n";
      fs::remove_all(tmp, ec);
      return kFrontendError;
    }
  }
  if (fs::exists(dir, ec)) {
    for (auto &f : files) {  // replace the generated files only; the user's others stay
      fs::path to = dir / f.path;
      fs::create_directories(to.parent_path(), ec);
      fs::rename(tmp / f.path, to, ec);
      if (ec) {
        err << "rml: error: cannot write '" << to.string() << "': " << ec.message() << "\n";
        return kFrontendError;
      }
    }
    fs::remove_all(tmp, ec);
  } else {
    fs::rename(tmp, dir, ec);
    if (ec) {
      err << "rml: error: cannot create '" << c.out_dir << "': " << ec.message() << "\n";
      fs::remove_all(tmp, ec);
      return kFrontendError;
    }
  }
  out << "rml compile: " << main << " -> " << (dir / (codegen::class_name(main) + ".hpp")).string() << ", "
      << codegen::class_name(main) << ".cpp, rml_cell.hpp, rml_csv_main.cpp, runtime/, CMakeLists.txt (class " << c.ns
      << "::" << codegen::class_name(main) << ")\n";
  if (info.window && info.retimed)
    out << "  a window class, retimed: each cell computed once, at most " << info.max_lag << " cycle" << (info.max_lag == 1 ? "" : "s")
        << " after its own, without the worklist (src/codegen/README.md)\n";
  else if (info.window)
    out << "  a window class run by the worklist (not retimed: " << info.not_retimed << ")\n";
  return kOk;
}

}  // namespace rml
