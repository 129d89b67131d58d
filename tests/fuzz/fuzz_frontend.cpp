// libFuzzer target: lexer + parser + checker (+ printer round trip and elaboration) on
// arbitrary bytes. Any crash, sanitizer report, hang or unbounded allocation is a bug:
// bad input must only ever produce diagnostics.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

#include "core/normalize.hpp"
#include "sema/frontend.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string text(reinterpret_cast<const char *>(data), size);
  auto r = rml::run_frontend("fuzz.rml", text);
  if (r->parsed_ok) {
    // Whatever parses must print to text that parses to the same program.
    std::string printed = rml::print_program(r->user);
    rml::SourceFile f("printed.rml", printed);
    rml::Diagnostics d;
    rml::Program q = rml::parse_program(f, d);
    if (d.has_errors() || !rml::ast_equal(r->user, q)) std::abort();
  }
  if (r->checked_ok) {
    for (auto &decl : r->user.decls) {
      const std::string &n = rml::decl_name(decl);
      if (!rml::core::can_be_main(r->checked, n)) continue;
      try {
        rml::core::elaborate(r->checked, n);
      } catch (rml::core::ElabError &) {
        // A diagnosed refusal is fine (for example an instance nesting limit).
      }
    }
  }
  return 0;
}
