// The exit-code policy of `rml` and `rml-check`, in one place (README "Limits and exit
// codes"): what a failure says, whichever command meets it.
//   0  ok
//   1  falsified: a verdict, or a run that shows an error value
//   2  the user's input is wrong: options, files, diagnostics, every input limit, a fun
//      or `--at`/`--size` arguments the lowering refuses
//   3  no answer: a limit reached while computing, out of memory, what rml cannot do (a
//      builtin the compiled path cannot lower) or got wrong (an internal error)
#pragma once
#include <string>

#include "driver/exit_codes.hpp"

namespace rml {
namespace lower {
struct LowerError;
}
namespace oracle {
struct OracleError;
}

// `rml grad` lowers a fun at the user's `--at`/`--size` arguments. A lowering error by
// its rule: lower.unsupported and the internal ones (lower.internal, lower.ir,
// lower.unresolved, lower.unchecked) are 3; the others (lower.argument-type, lower.static,
// lower.depth, lower.unknown-fun and the front end's rules) are the arguments' or the
// fun's, 2.
Exit exit_for_lowering(const std::string &rule);
Exit exit_for(const lower::LowerError &e);

// `rml run --backend compiled` lowers the funs of a program the front end accepted, at
// the types the program gives them: whatever fails there (lowering, bot, the executor)
// is not the user's input, 3.
inline Exit exit_for_compiled_path() { return kUnknown; }

// The oracle's errors are broken invariants or inputs the commands have already checked
// (traces are read, and their errors reported, before it runs): 3.
Exit exit_for(const oracle::OracleError &e);

}  // namespace rml
