// What a command needs of rml-check before it uses a main node (rml run --backend stream,
// rml compile, rml gen and rml diff): its budget, the proof that the node is well clocked,
// causal and productive, with the horizon; and the refusal of what no back end computes
// (an imported node's outputs), and a bad trace as a located diagnostic.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>
#include <ostream>
#include <string>

#include "checker/checker.hpp"
#include "core/normalize.hpp"
#include "driver/elaborated.hpp"
#include "driver/exit_codes.hpp"
#include "oracle/trace_io.hpp"
#include "sema/frontend.hpp"

namespace rml {

// rml-check's budget as a command line gives it (README "Budgets"): wall-clock seconds
// (--timeout), Z3 resource units (--rlimit), both, or neither, which is the default
// resource budget (check::kDefaultRlimit): verdicts that do not depend on the machine.
struct CheckBudget {
  std::optional<double> seconds;
  std::optional<uint64_t> rlimit;
  check::Options options() const;  // the budget in the checker's terms, other options default
};

// FILE:LINE:COL, the rule, and the trace's line with a caret (`text` is the trace).
std::string render_trace_error(const oracle::TraceError &e, const std::string &text);

// rml-check's clocks, causality, productivity and initialisation on the main node
// (check::Options::acceptance: no user property, and initialisation only once the other
// three hold): the productivity horizon when all four are valid; else nullopt, said on
// `err` as error[stream.unchecked] ("'main' cannot <what>: ..."), with `rc` 2 when one is
// falsified and 3 when one is unknown. `progress`, when given, is told which property the
// proof is at ("proving 'm' before it can be compiled: productivity (3 s)").
std::optional<int64_t> accepted_horizon(const FrontendResult &r, const driver::Elaborated &elab, const std::string &file,
                                        const std::string &main, const CheckBudget &budget, const std::string &what, std::ostream &err,
                                        int &rc, const std::function<void(const std::string &)> &progress = {});

// Whether the elaborated node applies an imported node or function (no body: no back end
// of rml computes it) whose output `given` (the trace's, when the back end reads them)
// does not give; if so, says `error[RULE]` at the first such application, with its caret.
bool refuse_imported(const core::Program &prog, const char *rule, const std::string &what, std::ostream &err,
                     const oracle::Inputs *given = nullptr);

}  // namespace rml
