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
  app.add_flag("--json", check.json, "JSON output (one object per diagnostic)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : rml::kFrontendError;
  }
  return rml::cmd_check(check, std::cout, std::cerr);
}
