// `rml-check`: the verification entry point used in CI pipelines.
// Exit codes: 0 all checks passed, 1 a property falsified, 2 usage or front-end error, 3 unknown
// (also: a limit reached, out of memory). README "Limits and exit codes".
#include <CLI/CLI.hpp>
#include <iostream>
#include <new>
#include <stdexcept>

#include "tools/cli_options.hpp"
#include "tools/commands.hpp"

int main(int argc, char **argv) {
  CLI::App app{"rml-check: verify an R(ML)2 program before deployment"};
  app.set_version_flag("--version", std::string("rml-check ") + RML_VERSION);
  rml::CheckCmd check;
  app.add_option("file", check.file, "source file")->required();
  app.add_option("--main", check.main_node, "main node (default: the file's '// main:' header, else every node without static parameters)");
  app.add_flag("--json", check.json, "JSON output (one object per property)");
  rml::add_numeric_option(&app, "--timeout", check.timeout_s, &rml::parse_timeout,
                          "seconds for the whole check, > 0 and <= 86400 (default 20); reaching it gives 'unknown'");
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
