// rml run: a node on an input trace in the oracle (pointwise funs by the reference
// evaluator or the compiled path), its chronogram, and what the run breaks or leaves
// unknown: the library's run (include/rml/rml.hpp), printed. The stream back end is
// cmd_run_stream.cpp.
#include "tools/commands.hpp"

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <sstream>

#include "api/state.hpp"
#include "driver/progress.hpp"
#include "formats/svg.hpp"
#include "formats/vcd.hpp"
#include "api/chronogram_text.hpp"

namespace rml {

int cmd_run(const RunCmd &c, std::ostream &out, std::ostream &err) {
  if (c.picture != Picture::None) {
    // Drawn from the CSV chronogram, whichever backend computed it; the cells named by
    // --require-known/--require-true are marked in the SVG.
    RunCmd csv = c;
    csv.picture = Picture::None;
    csv.format = oracle::Format::Csv;
    std::ostringstream text;
    int rc = cmd_run(csv, text, err);
    formats::ChronogramTable t;
    std::string why;
    if (text.str().empty() || !formats::read_csv_chronogram(text.str(), t, why)) return rc ? rc : kUnknown;
    std::string title = c.file + (c.main_node.empty() ? "" : " (" + c.main_node + ")");
    if (c.picture == Picture::Vcd) {
      try {
        out << formats::write_vcd(t, "main", "rml run " + title);
      } catch (formats::VcdError &e) {
        err << "rml: error: --format vcd: " << e.what() << "\n";
        return kFrontendError;
      }
      return rc;
    }
    std::vector<formats::CellMark> marks;
    for (auto *cells : {&c.require_known, &c.require_true})
      for (auto &cell : *cells) {
        size_t at = cell.rfind('@');
        auto col = std::find(t.names.begin(), t.names.end(), cell.substr(0, at));
        if (at != std::string::npos && col != t.names.end())
          marks.push_back({static_cast<size_t>(col - t.names.begin()), std::strtoul(cell.c_str() + at + 1, nullptr, 10)});
      }
    try {
      out << formats::write_svg(t, title, marks);
    } catch (formats::SvgError &e) {
      err << "rml: error: --format svg: " << e.what() << "\n";
      return kFrontendError;
    }
    return rc;
  }
  if (c.native && c.backend != Backend::Stream) {
    err << "rml: error: --native runs the stream back end's generated class: it needs --backend stream\n";
    return kFrontendError;
  }
  std::string bad;
  if (c.cycles && !parse_cycles(std::to_string(c.cycles), bad)) {
    err << "rml: error: " << bad << "\n";
    return kFrontendError;
  }
  if (!parse_memory(std::to_string(c.max_memory), bad)) {
    err << "rml: error: " << bad << "\n";
    return kFrontendError;
  }
  auto program = api::load_file(c.file, {c.main_node, c.assume});
  if (!program) return print_failure(program.failure(), err);
  for (auto &w : program->warnings()) err << w.rendered;  // the front end's, as every command says them
  if (c.backend == Backend::Stream) return cmd_run_stream(c, *program, out, err);
  // --require-known / --require-true VAR@CYCLE: the run checks the cells, named as --show
  // names streams.
  api::RunOptions o;
  for (bool must_be_true : {false, true})
    for (auto &cell : must_be_true ? c.require_true : c.require_known) {
      const char *flag = must_be_true ? "--require-true" : "--require-known";
      size_t at = cell.rfind('@');
      std::string cyc = at == std::string::npos ? "" : cell.substr(at + 1);
      bool digits = !cyc.empty() && cyc.size() <= 9 && std::all_of(cyc.begin(), cyc.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
      if (!digits) {
        err << "rml: error: " << flag << ": expected VAR@CYCLE (a cycle from 0 to 999999999), got '" << cell << "'\n";
        return kFrontendError;
      }
      o.required.push_back({cell.substr(0, at), static_cast<size_t>(std::stoul(cyc)), must_be_true, flag});
    }
  o.backend = c.backend == Backend::Compiled ? api::Backend::OracleCompiled : api::Backend::Oracle;
  o.cycles = c.cycles;
  o.show = c.show;
  o.show_all = c.show_all;
  o.max_memory = c.max_memory;
  o.solver = c.solver == oracle::Solver::Kleene ? api::OracleSolver::Kleene : api::OracleSolver::Worklist;
  o.post_clock_data = c.post_clock_data;
  o.strict_when_merge = c.strict_when_merge;
  o.lazy_if = c.lazy_if;
  o.int_overflow_error = c.int_overflow_error;
  o.strict_assume = c.strict_assume;
  Progress progress(err, "rml run", !c.quiet);
  o.progress = [&](size_t done, size_t cycles) { progress.update(std::to_string(done) + "/" + std::to_string(cycles) + " cycles computed"); };
  std::optional<api::Result<api::RunResult>> run;
  if (!c.inputs.empty()) {
    std::string io;
    auto text = read_file(c.inputs, io);
    if (!text) {
      err << "rml: error: " << io << "\n";
      return kFrontendError;
    }
    run.emplace(api::run_trace(*program, c.inputs, *text, o));
  } else if (!program->inputs().empty()) {
    err << "rml: error: '" << program->main() << "' has inputs: give a trace with --inputs\n";
    return kFrontendError;
  } else {
    run.emplace(api::run(*program, api::Chronogram{}, o));
  }
  progress.done();
  if (!*run) return print_failure(run->failure(), err);
  const api::RunResult &result = **run;
  api::write_chronogram(*program, result.chronogram, c.format, out);
  for (auto &d : result.diagnostics) err << d.rendered;
  return result.failed ? kFalsified : kOk;
}

}  // namespace rml
