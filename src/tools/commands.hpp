// Subcommand implementations shared by `rml` and `rml-check` (CLI11 stays in the mains).
#pragma once
#include <ostream>
#include <string>
#include <vector>

namespace rml {

// Documented exit codes (README "Exit codes").
enum Exit : int { kOk = 0, kFalsified = 1, kFrontendError = 2, kUnknown = 3 };

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
  bool json = false;
  double timeout_s = 20;
  std::vector<std::string> assume;  // extra assumptions, e.g. "always eventually bp within 8"
  bool explain = false;             // print the SMT-LIB obligations
  std::string cex_dir;              // write counterexample traces there
  bool frontend_only = false;
};
int cmd_check(const CheckCmd &c, std::ostream &out, std::ostream &err);

struct RunCmd {
  std::string file, main_node, inputs;
  size_t cycles = 0;                 // 0: the trace's length (10 when the node has no inputs)
  std::vector<std::string> show;     // empty: inputs and outputs
  bool show_all = false;
  std::string format = "table";      // table | csv | json
  std::string solver = "worklist";   // worklist | kleene
  bool post_clock_data = false, strict_when_merge = false, lazy_if = false;
  // reference: pointwise `fun` applications by array::Evaluator; compiled: lowering +
  // bot + simplifier + executor, one executable per (fun, static arguments, argument types).
  std::string backend = "reference";
};
int cmd_run(const RunCmd &c, std::ostream &out, std::ostream &err);

// `rml grad FILE --fun F`: the vectorised objective and its gradient program; with
// `--at ARGS.json`, their values at a point as JSON (src/tools/README.md).
struct GradCmd {
  std::string file, fun;
  std::string at;                  // JSON object: argument name -> value (nested lists)
  std::vector<std::string> sizes;  // without --at: "n=3", "s=[2,3]" fix the static names
  std::string backend = "compiled";  // compiled (executor) | reference (ir::evaluate)
};
int cmd_grad(const GradCmd &c, std::ostream &out, std::ostream &err);

struct CorpusCmd {
  std::string dir;
  bool verbose = false;
};
int cmd_corpus(const CorpusCmd &c, std::ostream &out, std::ostream &err);

}  // namespace rml
