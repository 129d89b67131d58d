// Subcommand implementations shared by `rml` and `rml-check` (CLI11 stays in the mains).
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "checker/checker.hpp"
#include "driver/acceptance.hpp"
#include "driver/limits.hpp"
#include "oracle/oracle.hpp"
#include "oracle/trace_io.hpp"
#include "rml/rml.hpp"

namespace rml {

// Ends the process once its output is written, without waiting for the Z3 contexts the
// checker is still freeing in the background (checker/context_reaper.hpp): that can take
// seconds after the verdict is out, and the operating system frees them at once.
[[noreturn]] void exit_now(int code);

// Who applies the pointwise `fun`s (rml run) or evaluates the gradient program (rml grad
// --at): the reference evaluator, or the compiled array path (lowering, bot, simplifier,
// executor), one executable per (fun, static arguments, argument types).
enum class Backend { Reference, Compiled, Stream };  // Stream: rml run only (src/stream)

// Numeric options, validated in one place for both executables (README "Limits and exit
// codes"). Each returns the value, or nullopt with `error` naming the option and the
// accepted range; callers exit kFrontendError.
std::optional<size_t> parse_cycles(const std::string &text, std::string &error);
std::optional<double> parse_timeout(const std::string &text, std::string &error);
std::string timeout_message(const std::string &got);  // parse_timeout's error, also for a timeout the caller checks
std::optional<uint64_t> parse_rlimit(const std::string &text, std::string &error);
std::optional<uint64_t> parse_seed(const std::string &text, std::string &error);  // 0..2^64-1, digits only

std::optional<uint64_t> parse_memory(const std::string &text, std::string &error);  // "4G", "512M", "1048576"
// rml diff's real tolerances: --rel-tol a number in [0, 1], --abs-tol a finite number >= 0
// (a NaN would compare false and silently mean 0).
std::optional<double> parse_rel_tol(const std::string &text, std::string &error);
std::optional<double> parse_abs_tol(const std::string &text, std::string &error);

// A library call's Failure as the command line says it (its diagnostics, then their
// summary, on `err`), and its exit code: the commands that are clients of the library
// interface (include/rml/rml.hpp) print its failures so.
inline int print_failure(const api::Failure &f, std::ostream &err) {
  err << f.text();
  return f.exit_code;
}

struct ParseCmd {
  std::string file;
  bool normalized = false;
  std::string main_node;
};
int cmd_parse(const ParseCmd &c, std::ostream &out, std::ostream &err);

struct FmtCmd {
  std::string file;
  bool check = false;     // exit 1 if the file is not formatted
  bool in_place = false;
};
int cmd_fmt(const FmtCmd &c, std::ostream &out, std::ostream &err);

struct CheckCmd {
  std::string file;
  std::string main_node;
  bool json = false;                 // a structured report (--json, --format json|sarif|junit|kind2)
  std::string format = "json";       // which, when json (tools/check_formats.hpp)
  std::string version;               // the tool's version, for SARIF and Kind 2's options object
  CheckBudget budget;                // rlimit: each node's whole check; seconds: the whole file's
  std::vector<std::string> assume;  // extra assumptions, e.g. "always eventually bp within 8"
  bool explain = false;             // print the SMT-LIB obligations
  // Counterexample traces are written as files, each with the command that replays it:
  // to cex_dir, made before checking when --cex-dir names it (an error if it cannot be),
  // else to ./rml-cex when the first counterexample is found; inline with --no-cex-files.
  std::string cex_dir = "rml-cex";
  bool cex_dir_given = false;
  bool no_cex_files = false;
  bool frontend_only = false;
  bool quiet = false;               // no progress line on stderr
  unsigned jobs = 1;                // nodes checked at once (api::FileCheckOptions::jobs)
  bool pre_any = false;             // api::CheckOptions::pre_any
  bool int_overflow_error = false;  // api::CheckOptions::int_overflow_error
};
int cmd_check(const CheckCmd &c, std::ostream &out, std::ostream &err);

// A chronogram drawn rather than printed (rml run --format vcd|svg; src/formats).
enum class Picture { None, Vcd, Svg };

struct RunCmd {
  std::string file, main_node, inputs;
  size_t cycles = 0;                 // 0: the trace's length (10 when the node has no inputs); else 1..kMaxCycles
  uint64_t max_memory = kDefaultMaxMemory;  // the oracle's memory cap (store, inputs, printed chronogram)
  std::vector<std::string> show;     // empty: inputs and outputs
  bool show_all = false;
  oracle::Format format = oracle::Format::Table;
  Picture picture = Picture::None;  // vcd / svg: the CSV chronogram, drawn
  oracle::Solver solver = oracle::Solver::Worklist;
  bool post_clock_data = false, strict_when_merge = false, lazy_if = false;
  bool int_overflow_error = false;   // --int-overflow error (api::RunOptions::int_overflow_error)
  bool strict_assume = false;        // a trace that breaks an `assume` of the main node: error (exit 1), not a warning
  // Cells "VAR@CYCLE" that must have a value: one that is unknown (⊥) or nil is an error
  // (exit 1); and cells that must be true (a property's variable). rml-check's replay
  // commands name the counterexample's cell so, and fail as the property does.
  std::vector<std::string> require_known, require_true;
  Backend backend = Backend::Reference;
  CheckBudget check_budget;          // --backend stream: rml-check's budget for the node
  std::vector<std::string> assume;   // extra assumptions on the main node (as rml-check --assume)
  bool quiet = false;                // no progress line on stderr
  bool native = false;               // --backend stream: the generated class, compiled and loaded in process
};
int cmd_run(const RunCmd &c, std::ostream &out, std::ostream &err);
// Its stream back end (cmd_run_stream.cpp), once the program is loaded.
int cmd_run_stream(const RunCmd &c, const api::Program &program, std::ostream &out, std::ostream &err);

// `rml compile FILE --main NODE -o DIR`: the node's C++ step class (src/codegen).
struct CompileCmd {
  std::string file, main_node, out_dir;
  std::string ns = "rml_generated";  // the class's C++ namespace
  CheckBudget check_budget;          // rml-check's budget for the node
  std::vector<std::string> assume;   // extra assumptions on the main node (as rml-check --assume)
  bool force = false;                // replace files of out_dir that rml compile did not write
  bool quiet = false;                // no progress line on stderr
};
int cmd_compile(const CompileCmd &c, std::ostream &out, std::ostream &err);

// `rml grad FILE --fun F`: the vectorised objective and its gradient program; with
// `--at ARGS.json`, their values at a point as JSON (src/tools/README.md).
struct GradCmd {
  std::string file, fun;
  std::string at;                  // JSON object: argument name -> value (nested lists)
  std::vector<std::string> sizes;  // without --at: "n=3", "s=[2,3]" fix the static names
  Backend backend = Backend::Compiled;  // with --at: the executor, or ir::evaluate
  std::vector<std::string> wrt;      // --wrt a,b: the gradient of these real parameters only (empty: all)
};
int cmd_grad(const GradCmd &c, std::ostream &out, std::ostream &err);

struct CorpusCmd {
  std::string dir;
  bool verbose = false;
};
int cmd_corpus(const CorpusCmd &c, std::ostream &out, std::ostream &err);

}  // namespace rml
