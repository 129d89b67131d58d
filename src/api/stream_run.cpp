#include "api/stream_run.hpp"

#include <algorithm>
#include <memory>
#include <new>
#include <sstream>

#include "api/native_run.hpp"
#include "api/run_findings.hpp"
#include "driver/acceptance.hpp"
#include "driver/compiled_funs.hpp"
#include "driver/exit_policy.hpp"
#include "driver/show_names.hpp"
#include "oracle/assumptions.hpp"
#include "oracle/declared_clocks.hpp"
#include "oracle/trace_io.hpp"
#include "stream/machine.hpp"
#include "stream/runner.hpp"

namespace rml::api {

namespace {

using Sev = Diagnostic::Severity;

// A trace error of a trace read line by line: the diagnostic's layout, with the line the
// reader kept (an excerpt of 120 characters around the column).
std::string render_streamed_trace_error(const oracle::TraceError &e) {
  if (e.line == 0) return e.path + ": error[" + e.rule + "]: " + e.message + "\n";
  std::string num = std::to_string(e.line);
  size_t col = e.col ? e.col - 1 : 0, from = col > 60 ? col - 60 : 0;
  std::string line = e.line_text.substr(std::min(from, e.line_text.size()), 120);
  for (char &ch : line)
    if (ch == '\0' || ch == '\r') ch = ' ';
  return e.path + ":" + num + ":" + std::to_string(e.col) + ": error[" + e.rule + "]: " + e.message + "\n " + num + " | " + line +
         "\n " + std::string(num.size(), ' ') + " | " + std::string(std::min(col - from, line.size()), ' ') + "^\n";
}

std::string plural(size_t n, const char *what) { return std::to_string(n) + " " + what + (n == 1 ? "" : "s"); }

}  // namespace

Result<StreamSetup> stream_setup(const Program::State &s, const RunOptions &o, const oracle::Inputs *given) {
  const core::Program &prog = s.elab.prog;
  const char *refused = o.solver != OracleSolver::Worklist ? "solver"
                        : o.post_clock_data                ? "post_clock_data"
                        : o.strict_when_merge              ? "strict_when_merge"
                        : o.lazy_if                        ? "lazy_if"
                        : o.int_overflow_error             ? "int_overflow_error"
                        : !o.required.empty()              ? "required"
                                                           : nullptr;
  if (refused) return failure(kFrontendError, std::string("rml: error[run.option]: ") + refused + " is an option of the oracle, not of the stream back end\n");
  if (o.cycles && !prog.inputs.empty())
    return failure(kFrontendError, "rml: error[run.cycles]: cycles with the stream back end are for nodes without inputs: it runs the trace's rows\n");
  std::ostringstream err;
  if (refuse_imported(prog, "run.imported", "the stream path cannot run it", err, given)) return failure(kFrontendError, err.str());
  StreamSetup setup;
  std::string why;
  auto vars = streams_shown(prog, o.show, o.show_all, why);
  if (!vars) return Failure{kFrontendError, {show_error(s.file, why)}};
  setup.vars = std::move(*vars);
  // rml-check first: the stream path runs what it proves, in the window its horizon gives.
  int rc = kOk;
  std::optional<int64_t> H = accepted_horizon(*s.frontend, s.elab, s.file, s.main, CheckBudget{o.check.seconds, o.check.rlimit},
                                              "run on the stream path", err, rc, o.check.progress);
  if (!H) return failure(rc, err.str());
  setup.horizon = *H;
  try {
    setup.plan = stream::build_plan(prog, s.elab.clocks);
  } catch (stream::PlanError &e) {
    return failure(kUnknown, std::string("rml: error[stream.plan]: ") + e.what() + "\n");
  }
  setup.window = stream_window(setup.plan, *H, s.frontend->checked);
  if (std::string too_big = window_memory_error(setup.window, o.max_memory); !too_big.empty()) return failure(kFrontendError, too_big);
  auto printed = std::make_shared<const std::unordered_map<std::string, std::string>>(core::printed_names(prog));
  setup.label = [printed](const std::string &v) {
    auto it = printed->find(v);
    return it == printed->end() ? v : it->second;
  };
  for (auto &v : setup.vars) setup.labels.push_back(setup.label(v));
  return setup;
}

Result<StreamRows> stream_rows(const Program::State &s, const StreamSetup &setup, const Feed &feed, bool rereadable,
                               size_t total, const RowSink &sink, const RunOptions &o,
                               const std::function<std::string(size_t emitted)> &incomplete) {
  const core::Program &prog = s.elab.prog;
  const stream::Plan &plan = setup.plan;
  std::vector<int> shown_slots, assumed_slots;
  for (auto &v : setup.vars) shown_slots.push_back(plan.slot(v));
  for (auto &a : prog.assumptions) assumed_slots.push_back(plan.slot_of.count(a.var) ? plan.slot(a.var) : -1);
  AssumptionMonitor assumptions(prog);
  RunFindings findings;
  findings.labels = setup.labels;
  findings.cells.resize(setup.vars.size());
  findings.label = setup.label;
  size_t emitted = 0;
  std::vector<oracle::Cell> row(setup.vars.size());
  // A cycle's row, its cells given by slot (from the runner's frame or the machine).
  auto emit_row = [&](size_t cycle, auto &&cell_of) {
    for (size_t k = 0; k < row.size(); ++k) {
      row[k] = cell_of(shown_slots[k]);
      findings.cells[k].see(cycle, row[k]);
    }
    for (size_t k = 0; k < assumed_slots.size(); ++k)
      if (assumed_slots[k] >= 0) assumptions.observe(k, cell_of(assumed_slots[k]));
    sink(cycle, row);
    ++emitted;
  };
  auto stopped = [&](int code, const std::string &rendered) {
    std::vector<Diagnostic> ds = from_text(rendered);
    return Failure{code, std::move(ds), incomplete(emitted)};
  };
  // A trace that cannot be read (again, after the machine's rows): its failure says where
  // the rows written stop too.
  auto stopped_by = [&](Failure f) {
    f.summary = incomplete(emitted);
    return f;
  };
  auto stopped_as = [&](const char *rule, const std::string &why, int code) {
    return stopped(code, std::string("rml: error[") + rule + "]: " + why + "\n");
  };

  // The native class (RunOptions::native) first, else the machine: either gives the rows
  // while it can, then hands the trace over to the runner from its start.
  std::unique_ptr<NativeRows> native;
  std::string native_why, handed_over;
  if (o.native.on) native = NativeRows::make(s, setup, o, prog.inputs.empty() || rereadable, native_why);
  std::optional<stream::Machine> machine;
  if (!native && (prog.inputs.empty() || rereadable)) try {
      machine.emplace(prog, s.elab.clocks, plan);
    } catch (stream::MachineUnsupported &) {
    }
  size_t resume_at = 0;  // the cycles the machine or the native class gave
  bool machine_ran = false, native_ran = false;
  size_t fed = 0;
  auto cycle_fed = [&] {
    if ((++fed & 1023) == 0 && o.progress) o.progress(fed, total);
  };
  if (o.progress) o.progress(0, total);
  std::unique_ptr<stream::Runner> runner;
  stream::Options sopts = setup.window.options;
  sopts.read_slots = shown_slots;  // what emit_row reads: a result may go over any other cell's block
  for (int c : assumed_slots)
    if (c >= 0) sopts.read_slots->push_back(c);
  // Declared clocks (`x: t when c`), watched on the runner's frames as the oracle checks
  // them on its streams. The machine and the native class need not: they give every row
  // only where the inputs stay on their clocks (and the assumptions hold), where rml-check's
  // proof of the clocks leaves no declaration broken.
  oracle::DeclaredClockWatch declared(prog, setup.label, [&](const std::string &v) { return plan.slot_of.count(v) > 0; });
  std::vector<int> declared_slots;
  for (auto &v : declared.vars()) declared_slots.push_back(plan.slot(v)), sopts.read_slots->push_back(declared_slots.back());
  try {
    if (native) {
      try {
        // Inputs on their clocks and the assumptions holding, rml-check's proof of the clocks
        // leaves no error value in any cell, given or not; once an assumption breaks, the
        // runtime runs the trace for the findings only it can give.
        auto give_row = [&] {
          emit_row(emitted, [&](int slot) -> const oracle::Cell & { return native->cell(slot); });
          if (assumptions.any_broken()) throw NativeStop{"an assumption broken"};
        };
        std::optional<Failure> cannot = feed([&](const std::vector<oracle::Cell> &cyc) {
          native->push(cyc, give_row);
          cycle_fed();
        });
        if (cannot) return stopped_by(std::move(*cannot));
        native->finish(give_row);
        if (assumptions.any_broken()) throw NativeStop{"an assumption broken"};
        native_ran = true;
      } catch (NativeStop &stop) {
        resume_at = emitted;
        handed_over = stop.why;
      }
    }
    if (machine) {
      struct OutsideTheClocks {};
      std::vector<stream::InputValue> iv(prog.inputs.size());
      try {
        std::optional<Failure> cannot = feed([&](const std::vector<oracle::Cell> &cyc) {
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
        if (cannot) return stopped_by(std::move(*cannot));
        machine_ran = true;
      } catch (OutsideTheClocks &) {
        resume_at = emitted;
        handed_over = "the trace leaves the clocks there";
      }
    }
    if (!machine_ran && !native_ran) {
      runner = std::make_unique<stream::Runner>(s.frontend->checked, plan, sopts, [&](const stream::FrameView &f) {
        if (!declared.empty())
          declared.observe(
              f.cycle, [&](int k) { return f.tag(declared_slots[static_cast<size_t>(k)]); },
              [&](int k) {
                oracle::Cell c = f.cell(declared_slots[static_cast<size_t>(k)]);
                return !c.value.i.empty() && c.value.i[0] != 0;
              });
        if (f.cycle >= resume_at) emit_row(f.cycle, [&](int slot) { return f.cell(slot); });
      });
      fed = 0;
      std::optional<Failure> cannot = feed([&](const std::vector<oracle::Cell> &cyc) {
        runner->push(cyc);
        cycle_fed();
      });
      if (cannot) return stopped_by(std::move(*cannot));
      runner->finish();
    }
  } catch (oracle::TraceError &e) {
    return stopped(kFrontendError, render_streamed_trace_error(e));
  } catch (stream::WindowLimitError &e) {
    return stopped_as("stream.window", e.what(), kUnknown);
  } catch (stream::ExactnessLost &e) {
    return stopped_as("stream.exactness", e.what(), kUnknown);
  } catch (stream::StreamError &e) {
    return stopped_as("stream.input", e.what(), kFrontendError);
  } catch (driver::CompiledFunError &e) {
    return stopped_as("stream.fun", e.what(), exit_for_compiled_path());
  } catch (exec::ExecError &e) {  // a fun's executable, run by the runner in place (run_raw)
    return stopped_as("stream.fun", std::string("compiled backend: ") + e.what(), exit_for_compiled_path());
  } catch (std::bad_alloc &) {
    return stopped_as("stream.memory", "out of memory", kUnknown);
  }
  if (o.progress) o.progress(emitted, emitted);
  StreamRows out;
  out.cycles = emitted;
  for (auto &w : findings.cells) w.close(emitted);
  std::string note = "stream backend: " + plural(emitted, "cycle") + ", horizon " + std::to_string(setup.horizon);
  if (machine_ran) {
    note += ", on the clock-directed machine (" + std::to_string(machine->instructions()) + " instructions a cycle, no frame held)";
  } else if (native_ran) {
    note += ", on the " + native->engine();
  } else {
    note += ", at most " + plural(runner->max_window(), "frame") + " held (window " + std::to_string(sopts.max_window) + "), on the " +
            runner->engine() +
            (machine || native ? " from cycle " + std::to_string(resume_at) + " (" + (native ? "where the native class stops: " : "") + handed_over + ")" : "");
    findings.input_clock = runner->input_clock_violations();
    findings.errors = runner->errors();  // (met in the window's order: reported in the oracle's)
    std::stable_sort(findings.errors.begin(), findings.errors.end(), oracle::origin_before);
    findings.declared = declared.violations();
  }
  out.diagnostics.push_back(said_as(Sev::Note, "run.stream", note, "note: " + note + "\n"));
  if (o.native.on && !native) {
    std::string w = "the native class is not used: " + native_why;
    out.diagnostics.push_back(said_as(Sev::Warning, "run.native", w, "warning[run.native]: " + w + "\n"));
  }
  for (auto &d : clash_warnings(s.elab.clocks)) out.diagnostics.push_back(std::move(d));  // (as the oracle's run says them)
  findings.broken = assumptions.broken();
  for (auto &d : diagnostics_of(findings, o.strict_assume)) out.diagnostics.push_back(std::move(d));
  out.has_error_values = !findings.errors.empty();
  out.failed = out.has_error_values || !findings.declared.empty() || (!findings.broken.empty() && o.strict_assume);
  return out;
}

}  // namespace rml::api
