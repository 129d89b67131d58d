// `rml-check`: the verification entry point used in CI pipelines.
// Exit codes: 0 all checks passed, 1 a property falsified, 2 usage or front-end error, 3 unknown.
#include <CLI/CLI.hpp>
#include <iostream>

#include "tools/commands.hpp"

int main(int argc, char **argv) {
  CLI::App app{"rml-check: verify an R(ML)2 program before deployment"};
  rml::CheckCmd check;
  app.add_option("file", check.file, "source file")->required();
  app.add_option("--main", check.main_node, "main node");
  app.add_flag("--json", check.json, "JSON output (one object per property)");
  app.add_option("--timeout", check.timeout_s, "seconds per solver call (default 20); a timeout gives 'unknown'");
  app.add_option("--assume", check.assume, "an extra assumption on the main node, e.g. 'always eventually bp within 8'");
  app.add_flag("--explain", check.explain, "print the proof obligations in SMT-LIB");
  app.add_option("--cex-dir", check.cex_dir, "write counterexample traces (CSV) to this folder");
  app.add_flag("--frontend-only", check.frontend_only, "stop after the front end (names, types, shapes)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : rml::kFrontendError;
  }
  return rml::cmd_check(check, std::cout, std::cerr);
}
