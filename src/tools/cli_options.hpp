// The numeric options of both executables, parsed by the one validator of each in
// tools/commands.hpp (parse_cycles, parse_timeout, parse_memory): a bad value is a CLI11
// ValidationError ("--cycles: expected an integer from 1 to ..."), so the mains exit 2.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tools/commands.hpp"

namespace rml {

template <class T>
CLI::Option *add_numeric_option(CLI::App *app, const std::string &name, T &dest,
                                std::optional<T> (*parse)(const std::string &, std::string &), const std::string &help) {
  return app->add_option_function<std::string>(
      name,
      [&dest, parse](const std::string &text) {
        std::string error;
        std::optional<T> v = parse(text, error);
        if (!v) throw CLI::ValidationError(error);
        dest = *v;
      },
      help);
}

// An option with a fixed set of spellings, stored as the enumerator it names: the commands
// receive typed values and never compare option strings. CLI11's IsMember rejects any
// other spelling (exit 2) and the help lists the choices.
template <class E>
CLI::Option *add_choice_option(CLI::App *app, const std::string &name, E &dest,
                               const std::vector<std::pair<std::string, E>> &choices, const std::string &help) {
  std::vector<std::string> names;
  for (auto &c : choices) names.push_back(c.first);
  return app
      ->add_option_function<std::string>(
          name,
          [&dest, choices](const std::string &text) {
            for (auto &[spelling, value] : choices)
              if (spelling == text) dest = value;
          },
          help)
      ->check(CLI::IsMember(names));
}

// rml-check's budget (README "Budgets"): `timeout` seconds of wall clock and `rlimit` Z3
// resource units (deterministic: the same verdicts on any machine at any load); by
// default the resource budget check::kDefaultRlimit, none when only seconds are given.
// `timeout_what`, when given, is what the wall-clock budget covers if not `what`.
inline void add_budget_options(CLI::App *app, const std::string &timeout, const std::string &rlimit, CheckBudget &b,
                               const std::string &what, const std::string &timeout_what = {}) {
  app->add_option_function<std::string>(
      timeout,
      [&b](const std::string &text) {
        std::string error;
        auto v = parse_timeout(text, error);
        if (!v) throw CLI::ValidationError(error);
        b.seconds = *v;
      },
      "wall-clock seconds for " + (timeout_what.empty() ? what : timeout_what) + ", > 0 and <= 86400 (default: none; given alone, no resource limit); reaching "
      "it gives 'unknown', and the verdict may depend on the machine's load");
  app->add_option_function<std::string>(
      rlimit,
      [&b](const std::string &text) {
        std::string error;
        auto v = parse_rlimit(text, error);
        if (!v) throw CLI::ValidationError(error);
        b.rlimit = *v;
      },
      "Z3 resource units for " + what + ", 1..10^12 (default " + std::to_string(check::kDefaultRlimit) +
          "): a budget that gives the same verdicts on any machine at any load; reaching it gives 'unknown'");
}

// The options of `rml-check FILE` and `rml check FILE`, defined once for both.
inline void add_check_options(CLI::App *app, CheckCmd &check) {
  app->add_option("file", check.file, "source file")->required();
  app->add_option("--main", check.main_node, "main node (default: the file's '// main:' header, else every node without static parameters)");
  app->add_flag("--json", check.json, "JSON output (one object per property); the same as --format json");
  app->add_flag("-q,--quiet", check.quiet,
                "no progress line on standard error (otherwise, past the first second: a line in place on a terminal, a line "
                "every 10 s elsewhere)");
  app->add_option_function<std::string>(
         "--format",
         [&check](const std::string &f) {
           check.format = f;
           check.json = f != "text";
         },
         "text (default), json, sarif (SARIF 2.1.0 for code scanning), junit (JUnit XML for CI test reports) or kind2 "
         "(Kind 2's JSON results)")
      ->check(CLI::IsMember({"text", "json", "sarif", "junit", "kind2"}));
  add_budget_options(app, "--timeout", "--rlimit", check.budget, "the whole check of each node",
                     "the whole file (a node reached after the deadline has its properties 'unknown')");
  app->add_option("--assume", check.assume, "an extra assumption on the main node, e.g. 'always eventually bp within 8'");
  app->add_flag("--explain", check.explain, "print the proof obligations in SMT-LIB");
  app->add_option_function<std::string>(
      "--cex-dir",
      [&check](const std::string &dir) {
        check.cex_dir = dir;
        check.cex_dir_given = true;
      },
      "write counterexample traces (CSV) to this folder (default: rml-cex, made when the first counterexample is found)");
  app->add_flag("--no-cex-files", check.no_cex_files, "print counterexample traces inline instead of writing them")
      ->excludes("--cex-dir");
  app->add_flag("--frontend-only", check.frontend_only, "stop after the front end (names, types, shapes)");
  app->add_flag("--pre-any", check.pre_any,
                "user properties in Kind 2's and JKind's reading: the first value of a 'pre' is any value of its type "
                "(rml's own reading: nil, and a property that is nil at a cycle fails there)");
  add_choice_option(app, "--int-overflow", check.int_overflow_error, {{"wrap", false}, {"error", true}},
                    "wrap (default): ints are 64-bit and wrap around; error: an int operation whose exact result leaves the "
                    "64-bit range is an error value, and the report adds the property 'overflow' (no operation overflows), "
                    "so that a property proved holds for unbounded ints too (Kind 2's reading), on inputs in range");
  app->add_option("--jobs", check.jobs,
                  "threads, 1..64 (default 1): nodes checked at once, each on a thread of its own; with at least two per "
                  "node, a second lane for each node (IC3/PDR from the start); under --rlimit alone the report is the same "
                  "for any number that gives the same lanes")
      ->check(CLI::Range(1u, 64u));
}

}  // namespace rml
