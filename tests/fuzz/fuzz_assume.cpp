// libFuzzer target: rml-check --assume. Arbitrary bytes are one `--assume` option text:
// parse_assumption on its own, then the whole front end with the assumption attached to
// the main node of a fixed program (the path of cmd_check). Any crash, sanitizer report,
// hang or unbounded allocation is a bug; every diagnostic must point into the option's
// own source ("<--assume 1>"), never into the program's file.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/normalize.hpp"
#include "sema/frontend.hpp"
#include "syntax/parser.hpp"

namespace {
const char *const kProgram =
    "node backfill(i: int; bp: bool) -> (o: int)\n"
    "  o = merge bp (i when bp) ((post o) when not bp);\n";
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  {
    rml::SourceFile f("<--assume 1>", text);
    rml::Diagnostics d;
    auto a = rml::parse_assumption(f, d);
    if (a.has_value() == d.has_errors()) std::abort();  // a result exactly when no error
    for (auto &diag : d.all())
      if (diag.span.valid() && diag.span.file != &f) std::abort();
  }
  rml::FrontendOptions opts;
  opts.before_check = [&text](rml::FrontendResult &r) {
    auto file = std::make_unique<rml::SourceFile>("<--assume 1>", text);
    auto a = rml::parse_assumption(*file, r.diags);
    r.files.insert(r.files.end() - 1, std::move(file));
    for (size_t k = r.checked.prelude_decls; k < r.checked.program.decls.size(); ++k)
      if (auto *n = std::get_if<rml::NodeDecl>(&r.checked.program.decls[k]); n && a) n->assumptions.push_back(std::move(*a));
  };
  auto r = rml::run_frontend("backfill.rml", kProgram, opts);
  for (auto &diag : r->diags.all())
    if (diag.span.valid() && diag.span.file->path == "backfill.rml") std::abort();  // only the assumption can be wrong
  if (r->checked_ok) {
    try {
      rml::core::Program p = rml::core::elaborate(r->checked, "backfill");
      if (p.assumptions.size() != 1) std::abort();
    } catch (rml::core::ElabError &) {
    }
  }
  return 0;
}
