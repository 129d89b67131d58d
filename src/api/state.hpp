// What a public api::Program holds (include/rml/rml.hpp), and the conversions between the
// library's types and the stages' own: diagnostics, cells, chronograms.
#pragma once
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include "driver/elaborated.hpp"
#include "gen/program_gen.hpp"
#include "oracle/oracle.hpp"
#include "rml/rml.hpp"
#include "sema/frontend.hpp"

namespace rml::api {

struct Program::State {
  std::string file;
  // Owns the text every span points into; shared by the nodes of one file (check_file).
  std::shared_ptr<const FrontendResult> frontend;
  std::string main;
  driver::Elaborated elab;
  std::vector<Variable> inputs, outputs;

  using Names = std::unordered_map<std::string, std::string>;
  // Streams as `rml parse --normalized` and `rml run --show` spell them
  // (core::printed_names), and back: made once, when first asked (every chronogram of a
  // check's report needs them, and a large node's take a while).
  const Names &labels() const;
  const Names &vars_of_labels() const;

 private:
  mutable std::once_flag names_once_;
  mutable Names labels_, vars_of_labels_;
  void make_names() const;
};

// A Program over a front end's result (its main node chosen): elaborated here.
Result<Program> from_frontend(const std::string &file, std::shared_ptr<const FrontendResult> r, const std::string &main);

// A counterexample's inputs (or any oracle trace) as a chronogram: the main node's inputs
// in order, then any other stream the trace gives.
Chronogram from_inputs(const core::Program &prog, const oracle::Inputs &in);

// A located diagnostic of a stage, as the library reports it.
Diagnostic from_stage(const rml::Diagnostic &d);

// What a stage printed on an error stream, cut into diagnostics: a new one starts at each
// line `[FILE:LINE:COL: ]error|warning|note|unknown[RULE]: MESSAGE` (or `TOOL: error...`);
// the lines after it (the caret excerpt) belong to it.
std::vector<Diagnostic> from_text(const std::string &printed);

// The front end's errors (and warnings) as a Failure (exit 2), with "N errors" after them.
Failure frontend_failure(const FrontendResult &r);

// A refusal after the front end (exit 2) with the diagnostics of `printed`, the front
// end's warnings first.
Failure refused(const FrontendResult &r, const std::string &printed);

// A Failure with `exit_code` and the diagnostics of `printed`.
Failure failure(int exit_code, const std::string &printed);

// The generator's options as src/gen takes them (a Lustre draw without what Lustre
// cannot say); the sizes are checked by the caller (gen_sizes_valid).
gen::GenOptions gen_options_of(const GenerateOptions &o);

Cell from_oracle(const oracle::Cell &c);
oracle::Cell to_oracle(const Cell &c);

}  // namespace rml::api
