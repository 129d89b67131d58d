// What both backends of `rml run` share: the variables to print; and a library
// chronogram printed as `rml run` prints one (rml run, rml-check's counterexamples).
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

// `ch` (a run or a replay of program `p`, its streams named as --show names them) as
// `rml run` prints it: enumeration values by their constructors' names.
void write_chronogram(const api::Program &p, const api::Chronogram &ch, oracle::Format f, std::ostream &out);

// rml run --backend stream (cmd_run_stream.cpp).
int cmd_run_stream(const RunCmd &c, const FrontendResult &r, const std::string &main, std::ostream &out, std::ostream &err);

}  // namespace rml
