// What both backends of `rml run` share: the variables to print, and a bad trace as a
// located diagnostic.
#pragma once
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "core/normalize.hpp"
#include "driver/elaborated.hpp"
#include "oracle/trace_io.hpp"
#include "sema/frontend.hpp"
#include "tools/commands.hpp"

namespace rml {

// --show, --all or the default (inputs then outputs); nullopt after saying why on `err`.
std::optional<std::vector<std::string>> run_variables(const RunCmd &c, const core::Program &prog, std::ostream &err);

// FILE:LINE:COL, the rule, and the trace's line with a caret (`text` is the trace).
std::string render_trace_error(const oracle::TraceError &e, const std::string &text);

// rml-check's clocks, causality and productivity on the main node (user properties are
// not asked): the productivity horizon when all three are valid; else nullopt, said on
// `err` as error[stream.unchecked] ("'main' cannot <what>: ..."), with `rc` 2 when one is
// falsified and 3 when one is unknown. Unless `quiet`, a progress line on stderr says which
// property the proof is at.
std::optional<int64_t> accepted_horizon(const FrontendResult &r, const driver::Elaborated &elab, const std::string &file,
                                        const std::string &main, const CheckBudget &budget, const std::string &what, std::ostream &err,
                                        int &rc, bool quiet = false);

// Whether the elaborated node applies an imported node or function (no body: no back end
// of rml computes it) whose output `given` (the trace's, when the back end reads them)
// does not give; if so, says `error[RULE]` at the first such application, with its caret.
bool refuse_imported(const core::Program &prog, const char *rule, const std::string &what, std::ostream &err,
                     const oracle::Inputs *given = nullptr);

// rml run --backend stream (cmd_run_stream.cpp).
int cmd_run_stream(const RunCmd &c, const FrontendResult &r, const std::string &main, std::ostream &out, std::ostream &err);

}  // namespace rml
