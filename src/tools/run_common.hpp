// A library chronogram printed as `rml run` prints one (rml run, rml-check's
// counterexamples), and the stream back end's command.
#pragma once
#include <ostream>

#include "oracle/trace_io.hpp"
#include "tools/commands.hpp"

namespace rml {

// `ch` (a run or a replay of program `p`, its streams named as --show names them) as
// `rml run` prints it: enumeration values by their constructors' names.
void write_chronogram(const api::Program &p, const api::Chronogram &ch, oracle::Format f, std::ostream &out);

// rml run --backend stream (cmd_run_stream.cpp).
int cmd_run_stream(const RunCmd &c, const api::Program &program, std::ostream &out, std::ostream &err);

}  // namespace rml
