// rml run --backend stream: the main node, once rml-check accepts it (clocks, causality,
// productivity valid), run cycle by cycle in src/stream's window of 2H + 2 frames (H:
// the proved horizon), reading a CSV trace row by row and writing CSV/JSON rows as frames
// leave: memory independent of the trace's length. The chronogram equals the oracle's.
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <fstream>
#include <memory>

#include "api/run_findings.hpp"
#include "api/stream_window.hpp"
#include "syntax/lexer.hpp"
#include "driver/compiled_funs.hpp"
#include "driver/elaborated.hpp"
#include "oracle/trace_io.hpp"
#include "stream/machine.hpp"
#include "stream/plan.hpp"
#include "stream/runner.hpp"
#include "oracle/assumptions.hpp"
#include "tools/chronogram.hpp"
#include "driver/exit_policy.hpp"
#include "driver/progress.hpp"
#include "tools/run_common.hpp"

namespace rml {

namespace {

// A trace error of a trace read line by line: the diagnostic's layout, with the line the
// reader kept (an excerpt of 120 characters around the column).
std::string render_streamed_trace_error(const oracle::TraceError &e, const std::string &line0) {
  if (e.line == 0) return e.path + ": error[" + e.rule + "]: " + e.message + "\n";
  std::string num = std::to_string(e.line);
  size_t col = e.col ? e.col - 1 : 0, from = col > 60 ? col - 60 : 0;
  std::string line = line0.substr(std::min(from, line0.size()), 120);
  for (char &ch : line)
    if (ch == '\0' || ch == '\r') ch = ' ';
  return e.path + ":" + num + ":" + std::to_string(e.col) + ": error[" + e.rule + "]: " + e.message + "\n " + num + " | " + line +
         "\n " + std::string(num.size(), ' ') + " | " + std::string(std::min(col - from, line.size()), ' ') + "^\n";
}

}  // namespace

int cmd_run_stream(const RunCmd &c, const FrontendResult &r, const std::string &main, std::ostream &out, std::ostream &err) {
  // Options that belong to the oracle.
  std::string refused = c.solver != oracle::Solver::Worklist ? "--solver"
                        : c.post_clock_data                   ? "--post-clock data"
                        : c.strict_when_merge                 ? "--strict-when-merge"
                        : c.lazy_if                           ? "--lazy-if"
                        : !c.require_known.empty()            ? "--require-known"
                        : !c.require_true.empty()             ? "--require-true"
                                                              : "";
  if (!refused.empty()) {
    err << "rml: error: " << refused << " is an option of the oracle, not of --backend stream\n";
    return kFrontendError;
  }
  driver::Elaborated elab;
  try {
    elab = driver::elaborate(r.checked, main);
  } catch (core::ElabError &e) {
    err << (e.span.valid() ? location(e.span) + ": " : std::string("rml: ")) << "error[elab]: " << e.message << "\n";
    return kFrontendError;
  }
  const core::Program &prog = elab.prog;
  if (refuse_imported(prog, "run.imported", "the stream path cannot run it", err)) return kFrontendError;
  if (c.cycles && !prog.inputs.empty()) {
    err << "rml: error: --cycles with --backend stream is for nodes without inputs: the stream path runs the trace's rows "
           "(it cannot extend a trace with unknown inputs, as the oracle does)\n";
    return kFrontendError;
  }
  std::optional<std::vector<std::string>> shown = run_variables(c, prog, err);
  if (!shown) return kFrontendError;
  const std::vector<std::string> &vars = *shown;

  // rml-check first: the stream path runs what it proves, in the window its horizon gives.
  int refused_rc = kOk;
  std::optional<int64_t> horizon;
  {
    Progress proving(err, "rml", !c.quiet);
    horizon = accepted_horizon(r, elab, c.file, main, c.check_budget, "run on the stream path", err, refused_rc,
                               [&](const std::string &line) { proving.update(line); });
  }
  if (!horizon) return refused_rc;
  const int64_t H = *horizon;
  stream::Plan plan;
  try {
    plan = stream::build_plan(prog, elab.clocks);
  } catch (stream::PlanError &e) {
    err << "rml: error[stream.plan]: " << e.what() << "\n";
    return kUnknown;
  }
  api::StreamWindow window = api::stream_window(plan, H, r.checked);
  if (std::string too_big = api::window_memory_error(window, c.max_memory); !too_big.empty()) {
    err << too_big;
    return kFrontendError;
  }
  const stream::Options &sopts = window.options;

  auto printed = core::printed_names(prog);
  auto label = [&](const std::string &v) {
    auto it = printed.find(v);
    return it == printed.end() ? v : it->second;
  };
  std::vector<std::string> labels;
  std::vector<int> shown_slots, assumed_slots;
  for (auto &v : vars) labels.push_back(label(v)), shown_slots.push_back(plan.slot(v));
  for (auto &a : prog.assumptions) assumed_slots.push_back(plan.slot_of.count(a.var) ? plan.slot(a.var) : -1);
  ChronogramWriter writer(out, c.format, labels);
  writer.name_values(enum_values_of(prog, vars));
  AssumptionMonitor assumptions(prog);
  // What the run says after its rows, watched as they leave (api/run_findings.hpp).
  api::RunFindings findings;
  findings.labels = labels;
  findings.cells.resize(vars.size());
  findings.label = label;
  size_t emitted = 0;
  std::vector<oracle::Cell> row(vars.size());
  // A cycle's row, its cells given by slot (from the runner's frame or the machine).
  auto emit_row = [&](size_t cycle, auto &&cell_of) {
    for (size_t k = 0; k < vars.size(); ++k) {
      row[k] = cell_of(shown_slots[k]);
      findings.cells[k].see(cycle, row[k]);
    }
    for (size_t k = 0; k < assumed_slots.size(); ++k)
      if (assumed_slots[k] >= 0) assumptions.observe(k, cell_of(assumed_slots[k]));
    writer.row(row);
    ++emitted;
  };
  // A run stopped half-way says so: CSV and JSON rows already written are the exact cells
  // of their cycles, but the output is not whole.
  auto incomplete = [&] {
    out.flush();
    if (c.format == oracle::Format::Table) return std::string("rml: no chronogram printed (the table is printed at the end)\n");
    return "rml: the output above is incomplete: " +
           (emitted ? "it stops after cycle " + std::to_string(emitted - 1) : std::string("it has no cycle")) +
           (c.format == oracle::Format::Json ? " (the JSON list is not closed)\n" : "\n");
  };
  auto stopped = [&](const std::string &why, int code) {
    std::string tail = incomplete();
    err << "rml: error[" << why << "\n" << tail;
    return code;
  };
  if (!prog.inputs.empty() && c.inputs.empty()) {
    err << "rml: error: '" << main << "' has inputs: give a trace with --inputs\n";
    return kFrontendError;
  }
  // The trace, cycle by cycle, from its start: a file (CSV row by row; JSON, read whole),
  // standard input ('-', read once), or the cycles of a node without inputs. Returns an
  // exit code for a source that cannot be read; trace errors are thrown.
  std::string json_text;  // a JSON trace, kept: it is read whole anyway
  auto feed = [&](auto &&push) -> std::optional<int> {
    if (prog.inputs.empty()) {
      size_t n = c.cycles ? c.cycles : 10;
      for (size_t k = 0; k < n; ++k) push(std::vector<oracle::Cell>{});
      return std::nullopt;
    }
    std::ifstream file;
    std::istream *in = &std::cin;
    if (json_text.empty()) {
      if (c.inputs != "-") {
        std::error_code ec;
        if (std::filesystem::is_directory(c.inputs, ec)) {
          err << "rml: error: '" << c.inputs << "' is a directory\n";
          return kFrontendError;
        }
        file.open(c.inputs, std::ios::binary);
        if (!file) {
          err << "rml: error: cannot open '" << c.inputs << "': " << std::strerror(errno) << "\n";
          return kFrontendError;
        }
        in = &file;
      }
      // Blank lines are skipped (and counted) to see whether the trace is JSON.
      std::string blank;
      size_t blank_lines = 0;
      for (int ch; (ch = in->peek()) != EOF && std::isspace(ch);) {
        blank.push_back(static_cast<char>(in->get()));
        blank_lines += ch == '\n';
      }
      if (in->peek() != '[' && in->peek() != '{') {
        oracle::CsvTraceReader reader(input_name(c.inputs), *in, prog, blank_lines);
        std::vector<oracle::Cell> cyc;
        while (reader.next(cyc)) push(cyc);
        return std::nullopt;
      }
      // Bounded as every input (read_file's limit).
      json_text = blank;
      char buf[65536];
      while (in->read(buf, sizeof buf) || in->gcount() > 0) {
        json_text.append(buf, static_cast<size_t>(in->gcount()));
        if (json_text.size() > Limits::kMaxFileBytes) {
          err << "rml: error: '" << input_name(c.inputs) << "' is larger than 16 MiB (the limit of an input: 16777216 bytes; CSV traces are read row by row, without it)\n";
          return kFrontendError;
        }
      }
    }
    oracle::Inputs trace;
    try {
      trace = oracle::read_trace(input_name(c.inputs), json_text, prog, 0);
    } catch (oracle::TraceError &e) {
      err << render_trace_error(e, json_text);
      return kFrontendError;
    }
    std::vector<oracle::Cell> cyc(prog.inputs.size());
    for (size_t n = 0; n < trace.cycles; ++n) {
      for (size_t k = 0; k < prog.inputs.size(); ++k) cyc[k] = trace.streams.at(prog.inputs[k].name)[n];
      push(cyc);
    }
    return std::nullopt;
  };

  // A post-free scalar node runs on the clock-directed machine (stream/machine.hpp), which
  // equals the oracle on a trace inside the clocks. At a cycle outside them (an input out
  // of its clock, or unknown) the machine stops; the rows before are exact, and the runner
  // takes over from the trace's start, writing the rows from that cycle on, so the output
  // is the oracle's whatever the trace. What cannot be read twice (standard input, a pipe):
  // the runner.
  std::optional<stream::Machine> machine;
  std::error_code ec;
  if (prog.inputs.empty() || (c.inputs != "-" && std::filesystem::is_regular_file(c.inputs, ec))) try {
      machine.emplace(prog, elab.clocks, plan);
    } catch (stream::MachineUnsupported &) {
    }
  size_t resume_at = 0;  // the cycles the machine wrote
  bool machine_ran = false;
  Progress progress(err, "rml run", !c.quiet);
  size_t fed = 0;
  auto cycle_fed = [&] {
    if ((++fed & 1023) == 0) progress.update(std::to_string(fed) + " cycles read");
  };
  std::unique_ptr<stream::Runner> runner;
  try {
    if (machine) {
      struct OutsideTheClocks {};
      std::vector<stream::InputValue> iv(prog.inputs.size());
      try {
        std::optional<int> rc = feed([&](const std::vector<oracle::Cell> &cyc) {
          for (size_t k = 0; k < cyc.size(); ++k) {
            const oracle::Cell &x = cyc[k];
            if (x.tag != oracle::Tag::Val && x.tag != oracle::Tag::Abs) throw OutsideTheClocks{};
            iv[k] = {x.tag == oracle::Tag::Val, 0, 0};
            if (iv[k].present && x.value.elem == Scalar::Real) iv[k].r = x.value.r.at(0);
            else if (iv[k].present) iv[k].i = x.value.i.at(0);
          }
          if (machine->step(iv) != stream::Machine::Status::Ok) throw OutsideTheClocks{};
          emit_row(emitted, [&](int slot) { return machine->cell(slot); });
          cycle_fed();
        });
        if (rc) return *rc;
        machine_ran = true;
      } catch (OutsideTheClocks &) {
        resume_at = emitted;
      }
    }
    if (!machine_ran) {
      runner = std::make_unique<stream::Runner>(r.checked, plan, sopts, [&](const stream::FrameView &f) {
        if (f.cycle >= resume_at) emit_row(f.cycle, [&](int slot) { return f.cell(slot); });
      });
      fed = 0;
      std::optional<int> rc = feed([&](const std::vector<oracle::Cell> &cyc) {
        runner->push(cyc);
        cycle_fed();
      });
      if (rc) return *rc;
      runner->finish();
    }
  } catch (oracle::TraceError &e) {
    std::string tail = incomplete();
    err << render_streamed_trace_error(e, e.line_text) << tail;
    return kFrontendError;
  } catch (stream::WindowLimitError &e) {
    return stopped(std::string("stream.window]: ") + e.what(), kUnknown);
  } catch (stream::ExactnessLost &e) {
    return stopped(std::string("stream.exactness]: ") + e.what(), kUnknown);
  } catch (stream::StreamError &e) {
    return stopped(std::string("stream.input]: ") + e.what(), kFrontendError);
  } catch (driver::CompiledFunError &e) {
    return stopped(std::string("stream.fun]: ") + e.what(), exit_for_compiled_path());
  } catch (exec::ExecError &e) {  // a fun's executable, run by the runner in place (run_raw)
    return stopped(std::string("stream.fun]: compiled backend: ") + e.what(), exit_for_compiled_path());
  } catch (std::bad_alloc &) {
    return stopped("stream.memory]: out of memory", kUnknown);
  }
  progress.done();
  writer.finish();
  for (auto &w : findings.cells) w.close(emitted);
  if (machine_ran) {
    err << "note: stream backend: " << emitted << " cycle" << (emitted == 1 ? "" : "s") << ", horizon " << H
        << ", on the clock-directed machine (" << machine->instructions() << " instructions a cycle, no frame held)\n";
  } else {
    err << "note: stream backend: " << emitted << " cycle" << (emitted == 1 ? "" : "s") << ", horizon " << H << ", at most "
        << runner->max_window() << " frame" << (runner->max_window() == 1 ? "" : "s") << " held (window " << sopts.max_window << ")"
        << (machine ? ", on the runner from cycle " + std::to_string(resume_at) + " (the trace leaves the clocks there)" : "") << "\n";
  }
  if (runner) findings.input_clock = runner->input_clock_violations(), findings.errors = runner->errors();
  findings.broken = assumptions.broken();
  for (auto &d : api::diagnostics_of(findings, c.strict_assume)) err << d.rendered;
  return !findings.errors.empty() || (!findings.broken.empty() && c.strict_assume) ? kFalsified : kOk;
}

}  // namespace rml
