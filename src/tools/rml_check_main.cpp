// `rml-check`: the verification entry point used in CI pipelines.
// Exit codes: 0 all checks passed, 1 a property falsified, 2 usage or front-end error, 3 unknown
// (also: a limit reached, out of memory). README "Limits and exit codes".
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <stdexcept>

#include "tools/cli_options.hpp"
#include "tools/commands.hpp"

namespace {
int run(int argc, char **argv) {
  CLI::App app{"rml-check: verify an R(ML)2 program before deployment"};
  app.set_version_flag("--version", std::string("rml-check ") + RML_VERSION);
  rml::CheckCmd check;
  rml::add_check_options(&app, check);
  check.version = RML_VERSION;
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : rml::kFrontendError;
  }
  try {
    return rml::cmd_check(check, std::cout, std::cerr);
  } catch (const std::bad_alloc &) {
    std::cout.flush();
    std::cerr << "rml-check: error: out of memory while checking '" << check.file << "': unknown\n";
    return rml::kUnknown;
  } catch (const std::length_error &e) {  // a container asked for more than it can hold
    std::cout.flush();
    std::cerr << "rml-check: error: out of memory while checking '" << check.file << "' (" << e.what() << "): unknown\n";
    return rml::kUnknown;
  } catch (const std::exception &e) {  // a bug: said, not an abort; never a verdict
    std::cout.flush();
    std::cerr << "rml-check: internal error while checking '" << check.file << "': " << e.what() << ": unknown\n";
    return rml::kUnknown;
  }
}
}  // namespace

int main(int argc, char **argv) { rml::exit_now(run(argc, argv)); }
