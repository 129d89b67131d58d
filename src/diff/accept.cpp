#include "diff/accept.hpp"

#include <sstream>

#include "driver/elaborated.hpp"
#include "driver/load.hpp"
#include "driver/main_node.hpp"
#include "driver/acceptance.hpp"

namespace rml::diff {

Acceptance accept(const std::string &path, const std::string &text, const std::string &main, const CheckBudget &budget) {
  Acceptance a;
  std::ostringstream err;
  a.frontend = run_frontend(path, text);
  if ((a.rc = report(*a.frontend, err))) {
    a.why = err.str();
    return a;
  }
  std::optional<std::string> chosen = choose_main(*a.frontend, main, err);
  if (!chosen) {
    a.rc = kFrontendError;
    a.why = err.str();
    return a;
  }
  a.main = *chosen;
  try {
    driver::Elaborated elab = driver::elaborate(a.frontend->checked, a.main);
    auto printed = core::printed_names(elab.prog);
    for (auto &o : elab.prog.outputs) {
      auto it = printed.find(o.name);
      a.outputs.push_back(it == printed.end() ? o.name : it->second);
    }
    int rc = 0;
    auto h = accepted_horizon(*a.frontend, elab, path, a.main, budget, "be compared", err, rc);
    if (!h) {
      a.rc = rc;
      a.why = err.str();
      return a;
    }
    a.horizon = *h;
    a.accepted = true;
  } catch (core::ElabError &e) {
    a.rc = kFrontendError;
    a.why = "error[elab]: " + e.message;
  } catch (std::bad_alloc &) {
    a.rc = kUnknown;
    a.why = "out of memory while checking";
  }
  return a;
}

}  // namespace rml::diff
