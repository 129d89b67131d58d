// The numeric options of both executables, parsed by the one validator of each in
// tools/commands.hpp (parse_cycles, parse_timeout, parse_memory): a bad value is a CLI11
// ValidationError ("--cycles: expected an integer from 1 to ..."), so the mains exit 2.
#pragma once
#include <CLI/CLI.hpp>
#include <optional>
#include <string>

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

}  // namespace rml
