#include "diff/case_hooks.hpp"

#include "diff/lustre_print.hpp"
#include "sema/frontend.hpp"
#include "syntax/printer.hpp"

namespace rml::diff {

ShrinkHooks case_hooks(bool lustre, const std::string &main) {
  ShrinkHooks h;
  h.parse = [](const std::string &text, Program &p) {
    auto r = run_frontend("<case>", text, FrontendOptions{true, false, {}});
    if (!r->parsed_ok) return false;
    p = std::move(r->user);
    return true;
  };
  h.print = [lustre](const Program &p, std::string &text) {
    if (!lustre) {
      text = print_program(p);
      return true;
    }
    std::string why;
    auto t = print_lustre(p, why);
    if (t) text = *t;
    return t.has_value();
  };
  h.main = main;
  return h;
}

}  // namespace rml::diff
