// What both backends of `rml run` share: the variables to print.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/normalize.hpp"
#include "driver/elaborated.hpp"
#include "oracle/trace_io.hpp"
#include "sema/frontend.hpp"
#include "driver/acceptance.hpp"
#include "tools/commands.hpp"

namespace rml {

// --show, --all or the default (inputs then outputs); nullopt after saying why on `err`.
std::optional<std::vector<std::string>> run_variables(const RunCmd &c, const core::Program &prog, std::ostream &err);

// rml run --backend stream (cmd_run_stream.cpp).
int cmd_run_stream(const RunCmd &c, const FrontendResult &r, const std::string &main, std::ostream &out, std::ostream &err);

}  // namespace rml
