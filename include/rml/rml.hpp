// rml's library interface: load an R(ML)² or Lustre program, check it, run it on a trace
// with a back end of your choice, compile it to a C++ step class, generate programs,
// compare two runs and shrink a failing program. The `rml` and `rml-check` commands do
// the same work through the same code.
//
//   #include <rml/rml.hpp>
//   auto p = rml::api::load_file("relu.rml");            // Result<Program>
//   if (!p) { std::cerr << p.failure().text(); return p.failure().exit_code; }
//   auto report = rml::api::check(*p);                    // verdicts per property
//   auto trace = rml::api::parse_trace(*p, "in.csv", csv_text);
//   auto run = rml::api::run(*p, *trace);                 // the oracle's chronogram
//
// Errors are values: every function that can fail returns a Result holding the value or
// a Failure (the exit code the command line would use, and located diagnostics). Nothing
// here throws for bad input; std::bad_alloc is reported as a Failure with exit code 3.
//
// Threads: a Program is immutable once loaded and may be shared; calls may run at once
// from different threads, on one Program or on different ones (each call has its own
// solver contexts and run state).
//
// Link `rml::rml` from `find_package(rml)`: one shared library that keeps its own
// dependencies private (Eigen, Boost, nlohmann-json compiled in; Z3, SLEEF and fmt loaded
// by it at run time, never found or linked by you). This header needs only the C++20
// standard library, and imposes no compiler flags.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <istream>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace rml::api {

// ---------------------------------------------------------------------------------------
// Errors as values

// A located message of the front end, the checker or a run. `rendered` is the text the
// command line prints: `file:line:col: error[rule]: message` and the caret excerpt.
struct Diagnostic {
  enum class Severity { Error, Warning, Note };
  Severity severity = Severity::Error;
  std::string rule;     // "type.mismatch", "main.none", "trace.cell", "run.imported", ...
  std::string message;
  std::string file;     // empty when the message is not about a file
  unsigned line = 0, column = 0;  // 1-based; 0 when unknown
  std::string rendered;
};

// Why a call gave no value: the exit code the command line uses for it (2: the input is
// wrong; 3: rml cannot answer, e.g. a budget or memory limit) and what was said.
struct Failure {
  Failure() = default;
  Failure(int code, std::vector<Diagnostic> ds, std::string sum = {})
      : exit_code(code), diagnostics(std::move(ds)), summary(std::move(sum)) {}
  int exit_code = 2;
  std::vector<Diagnostic> diagnostics;
  std::string summary;       // after them, as the command line says it: "2 errors", or empty
  std::string text() const;  // the diagnostics as rendered, one after the other, then the summary
};

template <class T>
class Result {
 public:
  Result(T value) : v_(std::move(value)) {}
  Result(Failure f) : v_(std::move(f)) {}
  bool ok() const { return v_.index() == 0; }
  explicit operator bool() const { return ok(); }
  T &value() { return std::get<0>(v_); }  // throws std::bad_variant_access on a Failure
  const T &value() const { return std::get<0>(v_); }
  T &operator*() { return value(); }
  const T &operator*() const { return value(); }
  T *operator->() { return &value(); }
  const T *operator->() const { return &value(); }
  const Failure &failure() const { return std::get<1>(v_); }  // throws on a value

 private:
  std::variant<T, Failure> v_;
};

// ---------------------------------------------------------------------------------------
// Values and chronograms

enum class ElementType { Bool, Int, Real };

// A stream's value at one cycle: a scalar (shape empty) or a tensor (row-major elements).
// Bools and ints are in `ints` (bools as 0/1), reals in `reals`.
struct Value {
  ElementType type = ElementType::Bool;
  std::vector<size_t> shape;
  std::vector<int64_t> ints;
  std::vector<double> reals;
  static Value of_bool(bool b) { return {ElementType::Bool, {}, {b ? 1 : 0}, {}}; }
  static Value of_int(int64_t i) { return {ElementType::Int, {}, {i}, {}}; }
  static Value of_real(double r) { return {ElementType::Real, {}, {}, {r}}; }
  bool operator==(const Value &) const = default;
};

// A cell of a chronogram, as the semantics defines it: a value, absent (the stream's
// clock does not tick), an error value (‖), nil (Lustre's `pre` at the first cycle), or
// unknown (⊥: not determined by the trace's prefix).
struct Cell {
  enum class Kind { Unknown, Absent, Error, Nil, Value };
  Kind kind = Kind::Unknown;
  Value value;  // Kind::Value
  static Cell of(Value v) { return {Kind::Value, std::move(v)}; }
  static Cell absent() { return {Kind::Absent, {}}; }
  bool operator==(const Cell &) const = default;
  std::string text() const;  // as `rml run` prints it: "_", "?", "‖", "nil", "1.5", "[1, 2]"
};

// Named streams over the same cycles: a trace of inputs, or a run's result.
struct Chronogram {
  size_t cycles = 0;
  std::vector<std::string> names;
  std::vector<std::vector<Cell>> columns;  // columns[k][n]: stream names[k] at cycle n
  const std::vector<Cell> *column(const std::string &name) const;  // nullptr if absent
  std::string csv() const;  // `rml run --format csv`'s text (a trace rml run --inputs reads)
};

// ---------------------------------------------------------------------------------------
// Programs

struct LoadOptions {
  std::string main;                 // the node to use; empty: `// main: N`, else the only candidate
  std::vector<std::string> assume;  // extra assumptions on it, as `rml-check --assume`
};

struct Variable {
  std::string name;
  std::string type;  // as written in the program: "real", "int", "bool", "real[3]", ...
};

// A program the front end accepted, with its main node chosen and elaborated. Cheap to
// copy (shared, immutable).
class Program {
 public:
  const std::string &file() const;
  const std::string &main() const;                  // the main node
  const std::vector<Variable> &inputs() const;      // the main node's
  const std::vector<Variable> &outputs() const;
  std::vector<std::string> nodes() const;           // the file's own nodes, in source order
  std::vector<Diagnostic> warnings() const;         // the front end's warnings
  std::string normalized() const;                   // `rml parse --normalized`'s text

  struct State;
  explicit Program(std::shared_ptr<const State> s) : s_(std::move(s)) {}
  const State &state() const { return *s_; }

 private:
  std::shared_ptr<const State> s_;
};

// R(ML)² (`.rml`) or Lustre (`.lus`, by the extension of `file`/`name`).
Result<Program> load_file(const std::string &file, const LoadOptions &o = {});
Result<Program> load_text(const std::string &name, const std::string &text, const LoadOptions &o = {});

// `rml parse`: a source text as the front end reads it, printed in the canonical layout
// (comments dropped); with `normalized`, the file's constants and funs, then the
// elaborated core of the node `main` (else the `// main:` header's, else of every node
// that can be a main), as `rml parse --normalized` prints it.
struct PrintOptions {
  bool normalized = false;
  std::string main;
};

struct Printed {
  std::string text;
  std::vector<Diagnostic> warnings;     // the front end's
  // A main node that cannot be elaborated (error[elab]): said here, its text left out, the
  // others printed; `failed` then (exit 2).
  std::vector<Diagnostic> diagnostics;
  bool failed = false;
};

Result<Printed> print_text(const std::string &name, const std::string &text, const PrintOptions &o = {});

// `rml fmt`: the canonical layout of a source text, comments kept. The text is parsed, not
// type-checked; a syntax error is a Failure (exit 2), and so is a file with Kind 2
// contracts or refinement types (fmt.contract: formatting would write each as the
// assumptions and properties it stands for).
Result<std::string> format_text(const std::string &name, const std::string &text);

// A trace of the main node's inputs from CSV or JSON text (`rml run --inputs`'s formats);
// `name` locates its diagnostics.
Result<Chronogram> parse_trace(const Program &p, const std::string &name, const std::string &text);

// ---------------------------------------------------------------------------------------
// Checking (rml-check)

enum class Verdict { Valid, Falsified, Unknown };
const char *verdict_name(Verdict v);  // "valid", "falsified", "unknown"

// rml-check's budget for one main node. The default is a deterministic resource budget
// (Z3's rlimit): the same verdicts on any machine at any load. `seconds` adds a
// wall-clock limit (verdicts may then depend on the machine).
struct CheckOptions {
  std::optional<uint64_t> rlimit;
  std::optional<double> seconds;
  // Told which property the proof is at, as it moves on: for a progress line. check()
  // says the property ("productivity"), check_file() the node too ("node m: productivity"),
  // the stream run and compile() why ("proving 'm' before it can be compiled: productivity").
  std::function<void(const std::string &)> progress;
  bool explain = false;  // Property::smt: the obligations behind each verdict, in SMT-LIB
  // User properties in Kind 2's and JKind's reading of `pre`: its first value is any value
  // of its type, and a property holds when it holds for every such value (rml's own
  // reading: that value is nil, and a property that is nil at a cycle fails there).
  bool pre_any = false;
  // An int operation whose exact result leaves the 64-bit range is an error value (‖, rule
  // `overflow`) instead of wrapping: the report holds the property "overflow" (no operation
  // overflows at any cycle), and user properties are replayed in that reading
  // (`rml-check --int-overflow error`; semantics/int_encoding.md).
  bool int_overflow_error = false;
};

// A cell the run must determine: `stream` (named as `show` names it) at `cycle` must hold
// a value, not be unknown (⊥) or nil, and with `must_be_true` be true. rml-check's replay
// commands ask it of a counterexample's property cell.
struct RequiredCell {
  std::string stream;
  size_t cycle = 0;
  bool must_be_true = false;
  std::string asked_by = "the caller";  // who asks, as the diagnostics say it (`rml run`: its option)
};


struct Property {
  std::string kind;      // "clocks", "causality", "productivity", "initialisation", "overflow", "property"
  // A user property (`check e;`, `check "P1" e;`, `--%PROPERTY e;`): its name, or its
  // condition as written when it has none (`named` false); `text` is the condition, and
  // `line`/`column` where it is stated.
  std::string name;
  bool named = false;
  std::string text;
  unsigned line = 0, column = 0;
  Verdict verdict = Verdict::Unknown;
  std::string method;    // how the verdict was reached ("k-induction", "bmc", ...)
  // Why (a located explanation), when not valid: errors when falsified, else warnings.
  std::vector<Diagnostic> findings;
  std::optional<int64_t> horizon;     // productivity: ticks of lookahead the node needs
  // Falsified: the inputs that show it, and what goes wrong.
  std::optional<Chronogram> counterexample;
  std::string counterexample_what;    // "error value in 'x' at cycle 3", ...
  std::string counterexample_csv;     // the inputs as a trace `rml run --inputs` reads
  // The cell the replay finds wrong, which a replay asks for so that it fails as the
  // property does (`rml run --require-known`/`--require-true`); none for an error value.
  std::optional<RequiredCell> counterexample_cell;
  // The counterexample replayed in the oracle: its inputs and the streams it blames, named
  // as `rml run --show` names them; `replay_error` says why when it could not be replayed.
  std::optional<Chronogram> replay;
  std::string replay_error;
  // `rml run --show` to see the replay's streams besides the inputs and outputs `rml run`
  // shows by default (all of them, in order); empty when the default shows them all.
  std::vector<std::string> replay_show;
  uint64_t resources = 0;             // Z3 resource units spent (to size a budget)
  std::string smt;                    // CheckOptions::explain: the obligations, in SMT-LIB
};

// The verdicts of one node's properties (clocks, causality, productivity, initialisation
// and the user's), in rml-check's order.
struct CheckReport {
  std::string main;
  std::vector<Property> properties;
  int exit_code() const;  // 0 all valid, 1 one falsified, 3 otherwise
};

// The program's main node checked: its own properties only (a property written in another
// node is not among them; check_file() checks those too).
Result<CheckReport> check(const Program &p, const CheckOptions &o = {});

// What `rml-check FILE` checks: the node `main`, else the file's `// main: N` header's
// (or Kind 2's `--%MAIN;` node's), else every node that can be a main; and besides them
// every node with a property of its own, in its own context (its assumptions, any
// inputs: what holds there holds wherever it is called).
struct FileCheckReport;
struct FileCheckOptions {
  std::string main;
  std::vector<std::string> assume;  // extra assumptions on the main node (needs one main)
  CheckOptions check;               // `seconds` is the whole file's: each node gets what is left
  bool frontend_only = false;       // names, types and shapes only: no node checked
  // Threads the check may use (`rml-check --jobs`): nodes checked at once, each on a
  // thread of its own; with at least twice as many jobs as nodes, each property that
  // reaches the solvers also runs IC3/PDR on a second lane (checker/portfolio.hpp). Under
  // the resource budget alone, the report is the same for any number of jobs that gives
  // the same lanes (1 or 2).
  unsigned jobs = 1;
  // Told of each node as soon as it and every node before it are checked, in the report's
  // order (`rml-check` prints a node's report then). During the call, `so_far.file`,
  // `nodes`, `warnings` and `checked[0]` to `checked[k]` (k included) are final and may be
  // read; the later entries are being written by other threads, so neither they,
  // `so_far.exit_code()` nor a copy of `so_far` may be taken, and no reference into it
  // kept after the call. Called on the checking threads, one call at a time, under the lock
  // the progress line takes: a slow callback delays the other nodes' reports, not their
  // checking. An exception it throws stops the check (no node is started after it) and the
  // call fails with its message, exit 3.
  std::function<void(const FileCheckReport &so_far, std::size_t k)> on_node;
};

// One node's report. `program` is the node loaded as the main node (to run a
// counterexample on, say); none for a generic node. A node that cannot be checked is
// reported still: a limit reached (the oracle's memory cap, out of memory) leaves its
// properties unknown, with `error` saying why and no property listed; a generic node
// (static parameters) has no values of its own, and each of its properties is unknown
// with the reason as method.
struct NodeCheck {
  std::string node;
  std::optional<Program> program;
  std::string error;
  std::vector<Property> properties;
};

struct FileCheckReport {
  std::string file;
  std::vector<std::string> nodes;     // the file's own nodes, in source order
  std::vector<Diagnostic> warnings;   // the front end's
  // The main nodes in the order chosen, then the other nodes with properties, generic ones
  // last, whatever `jobs` is (none with frontend_only). Every node is checked before the
  // report returns.
  std::vector<NodeCheck> checked;
  // 1 when a property is falsified, else 3 when one is unknown or a node has an error, else 0.
  int exit_code() const;
};

// A refusal after the front end (no node to check, an unknown `main`, `assume` with
// several mains, a node that cannot be elaborated, a time budget not > 0) is a Failure
// (exit 2) whose diagnostics start with the front end's warnings.
Result<FileCheckReport> check_file(const std::string &file, const FileCheckOptions &o = {});
Result<FileCheckReport> check_text(const std::string &name, const std::string &text, const FileCheckOptions &o = {});

// ---------------------------------------------------------------------------------------
// Training programs (rml adjoint)

struct AdjointOptions {
  std::string name;  // the derived node's name; empty: MAIN_adjoint (made unique)
  // What a `param` becomes: a gradient step on its value (Update), or an output of its
  // gradient while it keeps its value (Gradient: `rml adjoint --params gradient`).
  enum class Params { Update, Gradient } params = Params::Update;
};

// The training program of the main node, derived by reverse AD over streams
// (semantics/adjoint.md): ordinary R(ML)² source, the program's file followed by the
// gradient funs and the derived node, which load_text reads like any program.
struct Adjoint {
  std::string source;   // the whole file
  std::string derived;  // the gradient funs and the derived node alone
  std::string node;     // the derived node's name
  std::string bp;       // its backprop-clock input
  std::vector<std::pair<std::string, std::string>> seeds;      // forward output -> its cotangent input
  std::vector<std::pair<std::string, std::string>> gradients;  // forward input -> its gradient output
  std::vector<std::string> params;                             // the parameters found
  std::vector<std::pair<std::string, std::string>> param_gradients;  // Params::Gradient: parameter -> its gradient output
};

// A node that cannot be derived is a located Failure (exit 2: adjoint.interface-clock,
// adjoint.lowering, ...); a derived text rml refuses is exit 3 (adjoint.internal).
Result<Adjoint> adjoint(const Program &p, const AdjointOptions &o = {});

// ---------------------------------------------------------------------------------------
// Gradients of funs (rml grad)

// A fun of a file (its own or the prelude's) with a real scalar result, differentiated by
// reverse AD of its vectorised body (symbolic dual arrays, src/array/ad).
struct GradOptions {
  std::string fun;
  std::vector<std::string> wrt;  // the real parameters to differentiate by; empty: every one
  // Where the gradient program runs: the reference IR evaluator, or compiled for the Eigen
  // executor (the default; `rml grad --backend`).
  enum class Evaluator { Reference, Compiled } evaluator = Evaluator::Compiled;
};

struct Gradient {
  Value value;                                          // the objective at the point
  std::vector<std::pair<std::string, Value>> gradient;  // parameter -> its partial derivative (its shape)
  std::vector<Diagnostic> warnings;                     // the front end's
};

// The value and gradient at a point: `at` is `rml grad --at`'s JSON text, an object from
// each argument's name to its value (nested lists for a tensor; a static argument: an int
// or a list of sizes), named `at_name` in diagnostics. A wrong fun, `wrt` or argument is
// a located Failure (exit 2: grad.unknown-fun, grad.not-a-fun, grad.wrt, grad.arguments,
// grad.objective, and the lowering's rules on the fun or its arguments: lower.static,
// lower.argument-type, ...); a builtin the lowering cannot take (lower.unsupported), an
// internal error of the lowering, or a failure of AD or of either evaluator is exit 3.
Result<Gradient> grad_text(const std::string &name, const std::string &text, const std::string &at_name, const std::string &at,
                           const GradOptions &o);
// The same from files (the point's file is read once the fun is known).
Result<Gradient> grad_file(const std::string &file, const std::string &at_file, const GradOptions &o);

// `rml grad` without a point: the vectorised objective and the gradient program, printed
// (`text`, as the command prints them) at the static sizes `sizes` ("n=3", "s=[2, 3]").
// Nothing is evaluated: `o.evaluator` plays no part.
struct GradPrograms {
  std::string text;
  std::vector<Diagnostic> warnings;  // the front end's
};
Result<GradPrograms> grad_programs(const std::string &name, const std::string &text, const std::vector<std::string> &sizes,
                                   const GradOptions &o);

// ---------------------------------------------------------------------------------------
// Running

enum class Backend {
  Oracle,          // the reference semantics, funs by the reference evaluator
  OracleCompiled,  // the oracle, funs on the compiled array path
  Stream,          // rml-check proves the node, then the stream runner computes it in a bounded window
};

// How the oracle computes its fixed point: the worklist, or Kleene's iteration from ⊥
// over the whole trace (the same chronogram, slower: a cross-check).
enum class OracleSolver { Worklist, Kleene };

struct RunOptions {
  Backend backend = Backend::Oracle;
  size_t cycles = 0;        // 0: the trace's length (10 for a node without inputs)
  std::vector<std::string> show;  // streams to return (as `rml run --show`); empty: inputs and outputs
  bool show_all = false;    // every stream: inputs, outputs, then each equation's (`rml run --all`); `show` unused
  CheckOptions check;       // Backend::Stream: rml-check's budget
  // The memory cap of a run, checked before anything is allocated (`rml run --max-memory`):
  // an oracle run's store, inputs and returned chronogram; the stream back end's window.
  uint64_t max_memory = uint64_t{2} << 30;
  // The oracle's own (Backend::Oracle and OracleCompiled; the stream back end refuses them):
  OracleSolver solver = OracleSolver::Worklist;
  // The semantics' alternatives (docs/semantics.md): post takes its presence from its
  // argument, when/merge strict in every operand, `if` lazy in the branch not taken.
  bool post_clock_data = false, strict_when_merge = false, lazy_if = false;
  // An int operation whose exact result leaves the 64-bit range is ‖ (rule `overflow`)
  // instead of wrapping (`rml run --int-overflow error`, as rml-check's).
  bool int_overflow_error = false;
  std::vector<RequiredCell> required;
  bool strict_assume = false;  // a broken assumption of the main node is an error, not a warning
  // How far the run is (cycles done, of how many), every 1024 cycles: a progress line. The
  // stream back end also says (0, cycles) once its proof is done, and (cycles, cycles) at
  // the end.
  std::function<void(size_t done, size_t cycles)> progress;
  // Backend::Stream: run the main node's class as `rml compile` writes it, compiled by the
  // system's C++ compiler into a shared object, kept in a cache and loaded in process
  // (`rml run --native`); the streams the run reads (shown, assumptions' conditions) are the
  // class's outputs. Where it cannot be built (no compiler, a node rml compile does not
  // generate), a post-free node's clocks clash under an assumption, or a trace can be read
  // only once, the run says why (a "run.native" warning)
  // and takes the window runtime; at a cycle where the class stops
  // (an input off its clock, an error value, a window overrun) the runtime takes over from
  // the trace's start, as it does from the clock-directed machine.
  struct Native {
    bool on = false;
    std::string compiler;   // empty: $RML_CXX, else c++
    std::string cache_dir;  // empty: $RML_CACHE_DIR, else $XDG_CACHE_HOME/rml, else ~/.cache/rml
  } native;
};

struct RunResult {
  Chronogram chronogram;
  // What the run says besides its cells, as `rml run` says it and in its order: the
  // oracle's clock clashes, the compiled path's note or the stream back end's ("run.stream":
  // its cycles, horizon and frames held), inputs off their clocks
  // ("input.clock"), non-finite reals ("run.non-finite"), error values
  // ("run.error-value", located), declared clocks broken ("clock.declared"), unknown
  // cells ("run.unknown"), broken assumptions ("run.assume"), required cells not as
  // asked ("run.unknown", "run.nil", "run.false").
  std::vector<Diagnostic> diagnostics;
  bool has_error_values = false;
  // An error value, a declared clock broken, a required cell not as asked, or (with
  // strict_assume) a broken assumption: what makes `rml run` exit 1.
  bool failed = false;
};

Result<RunResult> run(const Program &p, const Chronogram &inputs, const RunOptions &o = {});
// The same on a trace in CSV or JSON text (`rml run --inputs`'s formats; `name` locates
// its diagnostics), read only once the memory the run needs is known to fit.
Result<RunResult> run_trace(const Program &p, const std::string &name, const std::string &text, const RunOptions &o = {});

// A long trace, streamed (`rml run --backend stream`): read as the run goes and its rows
// written as they leave the window, so that memory does not grow with the trace's length
// (in CSV and JSON; a table, whose columns are cycles, is held until the end).

enum class TextFormat { Table, Csv, Json };  // as `rml run --format` writes a chronogram

// Where a streamed run reads its trace: CSV row by row (JSON is read whole, at most
// 16 MiB). `open` gives the trace from its start, or null with `why` set ("cannot open
// 'in.csv': No such file or directory"); with `rereadable` it may be called a second time
// (a file, not a pipe: the fast machine runs first and hands over to the runner, which
// reads the trace again, at a cycle outside the clocks).
struct TraceStream {
  std::string name;  // locates its diagnostics
  std::function<std::shared_ptr<std::istream>(std::string &why)> open;
  bool rereadable = false;
};

struct StreamedRun {
  size_t cycles = 0;                    // the rows written
  std::vector<Diagnostic> diagnostics;  // the run's note (cycles, horizon, frames held), then RunResult's findings
  bool has_error_values = false;
  bool failed = false;                  // as RunResult::failed
};

// The main node on the stream back end (`o.backend` is not read; the oracle's options are
// refused), rml-check proving it first under `o.check`. `trace` is required for a node
// with inputs; without inputs it runs `o.cycles` cycles (10 when 0). `o.progress` is told
// (0, 0) when the proof is done and rows are about to be written, then every 1024 cycles
// read (the length is not known ahead: 0), and (N, N) when all N are read, before a table
// is written. A run that stops half-way (a bad row, a trace that cannot be read again,
// the window's limit, exactness lost, a fun's failure, memory) is a Failure whose summary
// says where the rows already written stop: "rml: the output above is incomplete: it
// stops after cycle 41". An exception from a callback, the opener or `out` ends the call
// as a Failure (exit 3, run.internal).
Result<StreamedRun> run_streamed(const Program &p, const std::optional<TraceStream> &trace, std::ostream &out, TextFormat format,
                                 const RunOptions &o = {});

// ---------------------------------------------------------------------------------------
// Compiling (rml compile)

struct GeneratedFile {
  std::string path;  // relative to the output folder: "NODE.hpp", "runtime/rml_window.hpp", ...
  std::string text;
};

struct CompileOptions {
  std::string ns = "rml_generated";  // the class's C++ namespace
  CheckOptions check;                // rml-check's budget (the node is proved first)
};

struct CompiledClass {
  std::string class_name;            // in namespace CompileOptions::ns
  std::vector<GeneratedFile> files;  // NODE.hpp, NODE.cpp, rml_cell.hpp, rml_csv_main.cpp, rml_abi.cpp, runtime/..., CMakeLists.txt
  // A node with `post` is a window class: retimed (each cell computed once, at most
  // max_lag cycles after its own), or run by the worklist (not_retimed says why). A
  // retimed class runs without tags while every input is present (tagless), unless
  // not_tagless says why not (src/codegen/README.md).
  bool window = false, retimed = false, tagless = false;
  int max_lag = 0;
  std::string not_retimed, not_tagless;
};

// The main node as a standalone C++ step class: the files `rml compile` writes.
Result<CompiledClass> compile(const Program &p, const CompileOptions &o = {});

// ---------------------------------------------------------------------------------------
// Generating, comparing, shrinking (rml gen, rml diff)

// As `rml gen`'s options: size 1..200 (locals of the main node), depth 0..8, cycles
// 1..100000, and the features to draw.
struct GenerateOptions {
  int size = 6, depth = 3, cycles = 20;
  bool post = true, arrows = true, clocks = true, instances = true, resets = true, funs = true, tensors = true,
       reals = true, ints = true;
  bool lustre = false;        // the Lustre dialect (what it cannot say turned off)
  bool lustre_v6_types = false;  // with lustre: Lustre V6's type syntax (`rml gen --dialect lustre-v6`)
};

// A program built to be accepted by rml-check (well clocked, causal, productive), and an
// input trace that respects its assumptions. The same seed gives the same case.
struct GeneratedCase {
  uint64_t seed = 0;
  std::string program;  // the source text
  std::string main = "main";
  std::vector<std::string> outputs;
  std::string trace;    // CSV
  std::vector<std::string> shapes;  // the hard shapes it holds ("backfill", "tensor post", ...)
};
// Options out of their ranges are a Failure (exit 2, gen.options).
Result<GeneratedCase> generate(uint64_t seed, const GenerateOptions &o = {});

// Program `k` of the campaign of seed `seed`: what `rml gen --seed SEED` writes as prog_K
// (and `rml diff --seed SEED` runs as program K), whatever the campaign's count or shard,
// so that a harness of one's own can run or split a campaign as the commands do. With
// `confirm`, rml-check confirms the draw first and a refused draw is drawn again (at most
// 50 draws; `refusals` says each); without, the draw is taken as built (accepted by
// construction). A Failure: exit 2 for options out of their ranges, 3 when every draw was
// refused.
struct CampaignCase {
  GeneratedCase generated;
  std::vector<Diagnostic> refusals;  // notes, one per refused draw
};
Result<CampaignCase> generate_in_campaign(uint64_t seed, uint64_t k, const GenerateOptions &o = {}, bool confirm = true,
                                          const CheckOptions &check = {});

// Whether program k of a campaign is confirmed by rml-check (`--check-every N`): one in N
// by a hash of k (N = 1 all, N = 0 none), so that every shard gets its share.
bool confirmed_in_campaign(uint64_t k, int every);

// Whether rml-check accepts the program's main node (clocks, causality, productivity):
// what every shrinking step keeps. A Failure says why not (exit code 2 refused, 3 unknown).
Result<Program> accept(const std::string &name, const std::string &text, const std::string &main = "",
                       const CheckOptions &o = {});

struct Tolerance {
  int64_t ulps = 4;  // reals equal within this many units in the last place,
  double rel = 0;    // or within this relative
  double abs = 0;    // or absolute difference
};

struct Difference {
  enum class Kind { None, Cell, MissingColumn, MissingCycles, ExtraCycles };
  Kind kind = Kind::None;
  std::string stream;  // Cell, MissingColumn
  size_t cycle = 0;    // Cell: the first differing cycle; MissingCycles: the first missing
  std::string expected, got;
  std::string describe() const;
};

// The first difference of `got` from `expected` on `streams` (empty: all of expected's),
// cycle by cycle, then in the order of `streams`.
Difference compare(const Chronogram &expected, const Chronogram &got, const std::vector<std::string> &streams = {},
                   const Tolerance &t = {});

// A program and its trace, as shrinking sees them.
struct Case {
  std::string program;
  std::string trace;  // CSV
  bool operator==(const Case &) const = default;
};

struct ShrinkOptions {
  std::string main = "main";  // never removed
  bool lustre = false;
  int max_candidates = 2000;  // calls of the predicate
};

// The cases one edit smaller than `c` (the trace cut, nodes, `check`/`assume` clauses,
// equations and subexpressions removed), smallest first. Not filtered: keep those that
// accept() accepts, so that a shrunk program has one meaning.
std::vector<Case> shrink_candidates(const Case &c, const ShrinkOptions &o = {});

// A smaller case on which `still_fails` holds (the first candidate that fails, again, until
// none does or the candidate budget is spent). Candidates rml-check does not accept are
// skipped, never passed to `still_fails`.
Case shrink(const Case &c, const std::function<bool(const Case &)> &still_fails, const ShrinkOptions &o = {});

// ---------------------------------------------------------------------------------------
// Diagnostics corpora (rml corpus)

// An error of the front end as a corpus file's header states it:
// `// expect-error: LINE:COL RULE` (`// expect: ok` for a file it accepts).
struct ExpectedError {
  unsigned line = 0, column = 0;
  std::string rule;
  std::string text() const;  // "LINE:COL RULE"
  bool operator==(const ExpectedError &) const = default;
};

// A file's front-end diagnostics against its header: it passes when the errors reported
// in the file (not the prelude) are exactly the expected ones, or none for `expect: ok`.
struct ExpectationCheck {
  bool pass = false;
  bool has_header = false;               // at least one expect line
  bool rejected = false;                 // the front end reported errors
  std::vector<ExpectedError> reported;   // in source order
  std::vector<ExpectedError> missing, unexpected;
  std::string rendered;                  // every diagnostic, as rml prints them
};

// A Failure (exit 2) when the file cannot be read.
Result<ExpectationCheck> check_expectations(const std::string &file);

// ---------------------------------------------------------------------------------------
// Differential testing (rml diff)

// A back end under test, run as a command on files (docs/backend-protocol.md): one of
// rml's own ("worklist", "kleene", "compiled", "stream", "cpp"), run through the `rml`
// executable `rml`, or a command template with {program}, {inputs}, {outputs}, {main}.
struct BackEnd {
  std::string builtin;
  std::string command;
  std::string rml = "rml";
  double timeout_seconds = 0;  // one run's; 0: 10 s, 120 s for stream and cpp (they check the program again)
  std::string name() const;    // as the summary names it: "stream, built in", or the command
};

// A campaign of `rml diff`: a given program and trace, or the programs of a seed (as
// generate_in_campaign draws them), each run on the oracle and the back end and compared;
// a failure shrunk to a small case that still fails the same way.
struct DiffCampaign {
  BackEnd back_end;
  // A given program (its text, named `file` in diagnostics, and its trace's CSV text, read
  // from `trace_file`); `file` empty: generated programs.
  std::string file, program, trace_file, trace, main;
  // Where the campaign's files go (empty: none written): each failure's in FOLDER
  // (DiffFailure::folder) as cex.rml or cex.lus (the program), cex.csv (its trace),
  // cex.oracle.csv, cex.backend.out and, for a difference, cex.svg and cex.vcd; and a
  // generated campaign's summary.tsv, whatever the outcome. An earlier run's files there
  // (cex.*, fail_K folders, summary.tsv) are removed first, except `file` and `trace_file`.
  std::string dir = "rml-diff";
  uint64_t seed = 1;
  int count = 100;
  int shard_index = 1, shard_count = 1;  // `--shard K/N`: programs k with k mod N = K - 1
  GenerateOptions generate;
  int check_every = 20;        // as confirmed_in_campaign; a failing program is always checked
  bool keep_going = false;     // every failure shrunk and reported; else the first ends the campaign
  bool shrink = true;
  double shrink_seconds = 0;   // a wall-clock limit on shrinking one failure; 0: the candidate cap alone
  Tolerance tolerance;
  CheckOptions check;          // rml-check's budget for each program
  // Told as the campaign goes: programs done of this run's, failures so far.
  std::function<void(size_t done, size_t total, size_t failures)> progress;
  // What the campaign says besides its results: a draw refused and drawn again, a failing
  // draw left out because rml-check does not accept it, a failure being shrunk (rendered
  // as `rml diff` prints them).
  std::function<void(const Diagnostic &)> note;
};

// A failing program, shrunk (or as found, without shrinking): what `rml diff` prints, and
// the files written for it.
struct DiffFailure {
  uint64_t program = 0;       // its number in the campaign (0 for a given program)
  std::string label;          // "program 3 of seed 1", or the given file
  bool differs = false;       // a cell differs; else the back end failed (crashed, hung, printed no chronogram)
  std::string folder;         // where its files go, relative to the campaign's folder: "fail_K" with keep_going, else "."
  std::string extension;      // the program's: ".rml" or ".lus"
  std::string main;
  Case shrunk;                // the case reported (the found one when not shrunk)
  int equations_found = 0, cycles_found = 0, equations = 0, cycles = 0;
  int tried = 0, kept = 0;    // shrinking's candidates
  bool stopped_at_limit = false;
  std::string what;           // what the shrunk case shows, run again
  bool fails_again = true;    // false: run again, it no longer fails (a back end that does not always fail alike)
  std::string first;          // its first difference, or how the back end failed
  std::string chronogram;     // a difference: inputs and each output as the oracle and the back end give it, the first differing cell marked '*'
  std::string oracle_csv, back_end_output;
  std::string svg, vcd;       // a difference drawn and as a waveform; empty when it cannot be
  std::string base;           // its files' path without extension (DiffCampaign::dir/folder/cex), when written
};

struct DiffReport {
  int programs = 0;          // compared
  int unconfirmed = 0;       // failing draws rml-check did not accept: left out
  uint64_t cells = 0, unknown = 0;  // output cells compared; the oracle's unknown ones among them, excluded
  bool stopped = false;      // stopped at its first failure with programs left
  // The failures in the campaign's order, without their chronogram, outputs and pictures
  // (on_failure had them), so that a long campaign's report stays small.
  std::vector<DiffFailure> failures;
  std::string summary_tsv;   // a generated campaign's summary (DIR/summary.tsv, what merge_campaigns reads)
  // What `rml diff` prints last: the count and the failures' table. Empty when a failure
  // ended the campaign (without keep_going) or it ended on `ended_by`.
  std::string final_lines;
  // The campaign stopped on a program it cannot compare (rml-check does not accept it,
  // every draw refused, its files cannot be written): why, and exit_code is its.
  std::optional<Failure> ended_by;
  int exit_code = 0;         // 0 all equal, 1 a failure, 3 failing draws left out (else ended_by's)
};

// Runs the campaign; `on_failure` is told of each failure as soon as it is shrunk and its
// files written, before the next program runs (`rml diff` prints it there). An exception
// it (or `progress`, `note`) throws stops the campaign, its summary written, and the call
// fails with its message (exit 3). A Failure before anything is written: options out of
// their ranges (exit 2), a folder that cannot be made (exit 2). Two campaigns at once
// need folders of their own: each clears an earlier run's results from its folder.
Result<DiffReport> diff_campaign(const DiffCampaign &c, const std::function<void(const DiffFailure &)> &on_failure = {});

// `rml diff --merge DIR...`: the shards' summaries (DIR/summary.tsv) as one campaign: its
// text, and the exit code (0 all equal, 1 a failure in a shard, 3 shards missing or
// stopped, or draws left out). A Failure (exit 2): a summary missing or malformed, shards
// of different campaigns, a shard given twice.
struct MergedCampaign {
  std::string text;
  int exit_code = 0;
};
Result<MergedCampaign> merge_campaigns(const std::vector<std::string> &dirs);

}  // namespace rml::api
