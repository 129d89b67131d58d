// rml run --backend stream: the library's streamed run (api::run_streamed): rml-check
// proves the main node, then it runs cycle by cycle in the window its horizon gives,
// reading a CSV trace row by row and writing CSV/JSON rows as they leave: memory
// independent of the trace's length. The chronogram equals the oracle's.
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>

#include "driver/progress.hpp"
#include "sema/frontend.hpp"
#include "tools/commands.hpp"

namespace rml {

int cmd_run_stream(const RunCmd &c, const api::Program &program, std::ostream &out, std::ostream &err) {
  // Options that belong to the oracle, refused in the command's own words.
  std::string refused = c.solver != oracle::Solver::Worklist ? "--solver"
                        : c.post_clock_data                   ? "--post-clock data"
                        : c.strict_when_merge                 ? "--strict-when-merge"
                        : c.lazy_if                           ? "--lazy-if"
                        : c.int_overflow_error                ? "--int-overflow error"
                        : !c.require_known.empty()            ? "--require-known"
                        : !c.require_true.empty()             ? "--require-true"
                                                              : "";
  if (!refused.empty()) {
    err << "rml: error: " << refused << " is an option of the oracle, not of --backend stream\n";
    return kFrontendError;
  }
  if (c.cycles && !program.inputs().empty()) {
    err << "rml: error: --cycles with --backend stream is for nodes without inputs: the stream path runs the trace's rows "
           "(it cannot extend a trace with unknown inputs, as the oracle does)\n";
    return kFrontendError;
  }
  api::RunOptions o;
  o.backend = api::Backend::Stream;
  o.cycles = c.cycles;
  o.show = c.show;
  o.show_all = c.show_all;
  o.max_memory = c.max_memory;
  o.strict_assume = c.strict_assume;
  o.native.on = c.native;
  // Two progress lines: the proof's, then, from the first row, the rows read (cleared
  // once all are read, before a table is printed).
  Progress proving(err, "rml", !c.quiet);
  std::optional<Progress> reading;
  o.check = {c.check_budget.rlimit, c.check_budget.seconds, [&](const std::string &line) { proving.update(line); }};
  o.progress = [&](size_t done, size_t total) {
    if (!reading) {
      proving.done();
      reading.emplace(err, "rml run", !c.quiet);
    }
    if (total && done == total) reading->done();
    else if (done) reading->update(std::to_string(done) + " cycles read");
  };
  // The trace: a file, which the run may read twice, or standard input ('-'), read once.
  std::optional<api::TraceStream> trace;
  if (!c.inputs.empty()) {
    std::error_code ec;
    trace = api::TraceStream{input_name(c.inputs), {}, c.inputs != "-" && std::filesystem::is_regular_file(c.inputs, ec)};
    trace->open = [&c](std::string &why) -> std::shared_ptr<std::istream> {
      if (c.inputs == "-") return {&std::cin, [](std::istream *) {}};
      std::error_code dir;
      if (std::filesystem::is_directory(c.inputs, dir)) {
        why = "'" + c.inputs + "' is a directory";
        return nullptr;
      }
      auto file = std::make_shared<std::ifstream>(c.inputs, std::ios::binary);
      if (!*file) {
        why = "cannot open '" + c.inputs + "': " + std::strerror(errno);
        return nullptr;
      }
      return file;
    };
  }
  const api::TextFormat format = c.format == oracle::Format::Csv    ? api::TextFormat::Csv
                                 : c.format == oracle::Format::Json ? api::TextFormat::Json
                                                                    : api::TextFormat::Table;
  auto run = api::run_streamed(program, trace, out, format, o);
  proving.done();
  if (reading) reading->done();
  if (!run) return print_failure(run.failure(), err);
  for (auto &d : run->diagnostics) err << d.rendered;
  return run->failed ? kFalsified : kOk;
}

}  // namespace rml
