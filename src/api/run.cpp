// Running a program on a trace through the library: the oracle (funs by the reference
// evaluator or the compiled path) or the stream runner after rml-check's proof; the
// chronogram as values, what the run breaks or leaves open as diagnostics
// (include/rml/rml.hpp).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "api/run_findings.hpp"
#include "api/state.hpp"
#include "api/stream_run.hpp"
#include "driver/acceptance.hpp"
#include "driver/compiled_funs.hpp"
#include "driver/limits.hpp"
#include "driver/show_names.hpp"
#include "array/eval.hpp"
#include "array/tensor.hpp"
#include "oracle/assumptions.hpp"
#include "sema/types.hpp"
#include "oracle/declared_clocks.hpp"
#include "oracle/trace_io.hpp"
#include "core/normalize.hpp"
#include "syntax/diag.hpp"

namespace rml::api {

namespace {

using Sev = Diagnostic::Severity;

// A failure of the run, after what it had said already (the oracle's clock clashes).
Failure failed_with(int code, std::vector<Diagnostic> before, const std::string &printed) {
  for (auto &d : from_text(printed)) before.push_back(std::move(d));
  return Failure{code, std::move(before)};
}

struct Required {
  std::string var;  // elaborated
  RequiredCell cell;
};

// The required cells' streams; a name that is no stream of the node is said as the
// show option's error, prefixed by who asks.
std::optional<std::vector<Required>> resolve_required(const core::Program &prog, const std::string &file, const RunOptions &o,
                                                      Diagnostic &error) {
  std::vector<Required> out;
  for (auto &r : o.required) {
    std::string why;
    auto var = resolve_shown(prog, {r.stream}, why);
    if (!var) {
      error = show_error(file, r.asked_by + ": " + why);
      return std::nullopt;
    }
    out.push_back({var->front(), r});
  }
  return out;
}

// What the required cells hold, said as errors; true when one is not as asked.
bool check_required(const std::vector<Required> &required, const oracle::Result &res,
                    const std::function<std::string(const std::string &)> &label, std::vector<Diagnostic> &out) {
  bool failed = false;
  auto error = [&](const char *rule, const std::string &msg) {
    out.push_back(said_as(Sev::Error, rule, msg, std::string("error[") + rule + "]: " + msg + "\n"));
    failed = true;
  };
  for (auto &[v, r] : required) {
    const std::string at = "'" + label(v) + "' at cycle " + std::to_string(r.cycle);
    if (r.cycle >= res.cycles) {
      error("run.unknown", at + " is past the run's " + std::to_string(res.cycles) + " cycles, but " + r.asked_by + " asks for its value");
      continue;
    }
    const oracle::Cell cell = res.at(v, r.cycle);
    if (cell.tag == oracle::Tag::Bot) {
      error("run.unknown", at + " is unknown, but " + r.asked_by + " asks for its value");
    } else if (cell.tag == oracle::Tag::Nil) {
      error("run.nil", at + " is nil (the first value of a 'pre' not guarded by '->', or a 'current' before its clock first ticks), but " +
                           r.asked_by + " asks for its value");
    } else if (r.must_be_true &&
               !(cell.tag == oracle::Tag::Val && cell.value.elem == Scalar::Bool && cell.value.i.size() == 1 && cell.value.i[0] != 0)) {
      error("run.false", at + " is " +
                             (cell.tag == oracle::Tag::Abs   ? std::string("absent")
                              : cell.tag == oracle::Tag::Err ? std::string("an error value (‖)")
                              : cell.value.elem == Scalar::Bool && cell.value.i.size() == 1 ? std::string("false")
                                                                                           : cell.value.str() + " (not a bool)") +
                             ", but " + r.asked_by + " asks for true");
    }
  }
  return failed;
}

// The trace as the oracle reads it: every input given, `cycles` rows (cut, or extended
// with unknown cells as the oracle extends a trace).
std::optional<oracle::Inputs> to_inputs(const core::Program &prog, const Chronogram &c, size_t cycles, std::string &rule,
                                        std::string &why) {
  rule = "trace.header";
  oracle::Inputs in;
  in.cycles = cycles ? cycles : c.names.empty() && prog.inputs.empty() ? 10 : c.cycles;
  for (size_t k = 0; k < c.names.size(); ++k) {
    if (c.columns.size() <= k || c.columns[k].size() != c.cycles) {
      why = "the trace's column '" + c.names[k] + "' does not hold " + std::to_string(c.cycles) + " cells";
      return std::nullopt;
    }
    std::vector<oracle::Cell> cells;
    for (size_t n = 0; n < in.cycles; ++n) cells.push_back(n < c.cycles ? to_oracle(c.columns[k][n]) : oracle::Cell::bot());
    in.streams[c.names[k]] = std::move(cells);
  }
  for (auto &v : prog.inputs) {
    auto it = in.streams.find(v.name);
    if (it == in.streams.end()) {
      why = "the trace has no column for the input '" + v.name + "'";
      return std::nullopt;
    }
    // A chronogram built by hand may hold values of another type than the input's: said
    // here, as a bad trace (rml run's trace reader refuses them the same way).
    const std::vector<int64_t> shape = array::concrete_shape(v.type.shape);
    for (size_t n = 0; n < it->second.size(); ++n) {
      const oracle::Cell &x = it->second[n];
      if (x.tag == oracle::Tag::Val && (x.value.elem != v.type.elem || x.value.shape != shape ||
                                        x.value.numel() != (x.value.elem == Scalar::Real ? x.value.r.size() : x.value.i.size()))) {
        rule = "trace.cell";
        why = "the input '" + v.name + "' at cycle " + std::to_string(n) + " holds " + x.str() + ", not a value of its type " + type_str(v.type);
        return std::nullopt;
      }
    }
  }
  return in;
}

// Where the inputs of a run come from: a chronogram, or a trace's text read once the
// memory check for its rows has passed.
struct Source {
  const Chronogram *chronogram = nullptr;
  const std::string *name = nullptr, *text = nullptr;
};

Result<RunResult> run_oracle(const Program::State &s, const Source &src, const RunOptions &o) {
  const core::Program &prog = s.elab.prog;
  std::vector<Diagnostic> said;
  auto fail = [&](int code, Diagnostic d) {
    said.push_back(std::move(d));
    return Failure{code, said};
  };
  try {
    oracle::Options opts;
    opts.post_clock_data = o.post_clock_data;
    opts.strict_when_merge = o.strict_when_merge;
    opts.lazy_if = o.lazy_if;
    opts.int_overflow_error = o.int_overflow_error;
    opts.max_memory = o.max_memory;
    opts.progress = o.progress;
    auto funs = std::make_shared<driver::CompiledFuns>(s.frontend->checked);
    if (o.backend == Backend::OracleCompiled)
      opts.apply_fun = [funs](const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<array::Tensor> &args) {
        return funs->apply(fn, statics, args);
      };
    oracle::Oracle orc(s.frontend->checked, prog, s.elab.clocks, opts);
    for (auto &d : clash_warnings(orc.clocks())) said.push_back(std::move(d));
    const oracle::Solver solver = o.solver == OracleSolver::Kleene ? oracle::Solver::Kleene : oracle::Solver::Worklist;
    std::string why;
    auto vars = streams_shown(prog, o.show, o.show_all, why);
    if (!vars) return fail(kFrontendError, show_error(s.file, why));
    Diagnostic bad;
    auto required = resolve_required(prog, s.file, o, bad);
    if (!required) return fail(kFrontendError, bad);
    // The memory cap covers the oracle's store and inputs, and the returned chronogram (a
    // cell's value, and its text when printed: ~26 bytes an element, held about three
    // times while formatting).
    auto memory_check = [&](size_t cycles) {
      long double cells = 48;
      for (auto &v : *vars) cells += 128.0L + 80.0L * static_cast<long double>(orc.cell_elements(v));
      long double need = static_cast<long double>(orc.memory_needed(cycles, solver)) + cells * static_cast<long double>(cycles);
      orc.check_memory(cycles, need >= 1.8e19L ? UINT64_MAX : static_cast<uint64_t>(need), o.max_memory);
    };
    oracle::Inputs in;
    if (src.text) {
      // Before reading: at most a cycle per line (CSV) or per object (JSON).
      const std::string &text = *src.text;
      bool json = oracle::is_json_trace(text);
      size_t rows = json ? static_cast<size_t>(std::count(text.begin(), text.end(), '{'))
                         : static_cast<size_t>(std::count(text.begin(), text.end(), '\n')) + 1;
      memory_check(std::max(rows, o.cycles));
      try {
        in = oracle::read_trace(*src.name, text, prog, o.cycles);
      } catch (oracle::TraceError &e) {
        return failed_with(kFrontendError, said, render_trace_error(e, text));
      }
    } else {
      std::string rule;
      auto converted = to_inputs(prog, *src.chronogram, o.cycles, rule, why);
      if (!converted) return fail(kFrontendError, said_as(Sev::Error, rule, why, "rml: error[" + rule + "]: " + why + "\n"));
      in = std::move(*converted);
    }
    // An imported call runs on the values the trace gives for its output.
    std::ostringstream refused;
    if (refuse_imported(prog, "run.imported", "the oracle cannot run it", refused, &in)) return failed_with(kFrontendError, said, refused.str());
    memory_check(in.cycles);
    oracle::Result res = orc.run(in, solver);
    auto printed = core::printed_names(prog);
    auto label = [&](const std::string &v) {
      auto it = printed.find(v);
      return it == printed.end() ? v : it->second;
    };
    RunResult out;
    out.chronogram.cycles = res.cycles;
    RunFindings f;
    f.label = label;
    for (auto &v : *vars) {
      out.chronogram.names.push_back(label(v));
      f.labels.push_back(label(v));
      CellWatch watch;
      std::vector<Cell> col;
      col.reserve(res.cycles);
      for (size_t n = 0; n < res.cycles; ++n) {
        oracle::Cell c = res.at(v, n);
        watch.see(n, c);
        col.push_back(from_oracle(c));
      }
      watch.close(res.cycles);
      f.cells.push_back(std::move(watch));
      out.chronogram.columns.push_back(std::move(col));
    }
    if (o.backend == Backend::OracleCompiled) {
      std::string msg = "compiled backend: " + std::to_string(funs->executables()) + " executable" + (funs->executables() == 1 ? "" : "s") +
                        " (fun at argument types) for " + std::to_string(funs->applications()) + " fun application" +
                        (funs->applications() == 1 ? "" : "s");
      said.push_back(said_as(Sev::Note, "run.compiled", msg, "note: " + msg + "\n"));
    }
    f.input_clock = res.input_clock_violations;
    f.errors = res.errors;
    f.declared = oracle::declared_clock_violations(prog, res, label);
    f.broken = broken_assumptions(prog, res);
    out.diagnostics = std::move(said);
    for (auto &d : diagnostics_of(f, o.strict_assume)) out.diagnostics.push_back(std::move(d));
    bool required_failed = check_required(*required, res, label, out.diagnostics);
    out.has_error_values = res.any_error();
    out.failed = out.has_error_values || !f.declared.empty() || (!f.broken.empty() && o.strict_assume) || required_failed;
    return out;
  } catch (core::ElabError &e) {
    return failed_with(kFrontendError, said, (e.span.valid() ? location(e.span) + ": " : std::string("rml: ")) + "error[elab]: " + e.message + "\n");
  } catch (oracle::TraceError &e) {
    return failed_with(kFrontendError, said, std::string(e.what()) + "\n");
  } catch (oracle::MemoryLimitError &e) {
    std::string text = "rml: error[run.memory]: " + std::string(e.what()) + "; ";
    const char *instead = e.cycles > 1 ? "run fewer cycles" : "use smaller tensors";
    if (e.needed <= kMaxMaxMemory)
      text += "raise the limit with --max-memory (e.g. --max-memory " + std::to_string((e.needed + (1ull << 30) - 1) >> 30) + "G) or " + instead + "\n";
    else
      text += "that is more than --max-memory allows (" + format_bytes(kMaxMaxMemory) + "): " + instead + "\n";
    return failed_with(kFrontendError, said, text);
  } catch (oracle::ImportedError &e) {  // the trace's values for an imported call's output do not do
    return fail(kFrontendError, from_stage(rml::Diagnostic{Severity::Error, "run.imported", e.what(), e.span, {}}));
  } catch (oracle::OracleError &e) {  // a broken invariant: rml cannot answer
    return failed_with(kUnknown, said, "rml: error: " + std::string(e.what()) + "\n");
  } catch (driver::CompiledFunError &e) {  // the compiled path is not the user's input
    return failed_with(kUnknown, said, "rml: error: " + std::string(e.what()) + "\n");
  } catch (std::bad_alloc &) {
    return failed_with(kUnknown, said, "rml: error: out of memory while running '" + s.main + "' in the oracle: run fewer cycles or use smaller tensors\n");
  }
}

// The stream back end on a trace held whole: stream_run.cpp's run, its rows kept.
Result<RunResult> run_stream(const Program::State &s, const Source &src, const RunOptions &o) {
  const core::Program &prog = s.elab.prog;
  oracle::Inputs in;
  if (src.text) {
    try {
      in = oracle::read_trace(*src.name, *src.text, prog, o.cycles);
    } catch (oracle::TraceError &e) {
      return failure(kFrontendError, render_trace_error(e, *src.text));
    }
  } else {
    std::string rule, why;
    auto converted = to_inputs(prog, *src.chronogram, o.cycles, rule, why);
    if (!converted) return Failure{kFrontendError, {said_as(Sev::Error, rule, why, "rml: error[" + rule + "]: " + why + "\n")}};
    in = std::move(*converted);
  }
  auto setup = stream_setup(s, o, &in);
  if (!setup) return setup.failure();
  RunResult out;
  out.chronogram.names = setup->labels;
  out.chronogram.columns.resize(setup->labels.size());
  std::vector<const std::vector<oracle::Cell> *> columns;
  for (auto &v : prog.inputs) columns.push_back(&in.streams.at(v.name));
  Feed feed = [&](const PushCycle &push) -> std::optional<Failure> {
    std::vector<oracle::Cell> row(columns.size());
    for (size_t n = 0; n < in.cycles; ++n) {
      for (size_t k = 0; k < columns.size(); ++k) row[k] = (*columns[k])[n];
      push(row);
    }
    return std::nullopt;
  };
  auto keep = [&](size_t, const std::vector<oracle::Cell> &row) {
    for (size_t k = 0; k < row.size(); ++k) out.chronogram.columns[k].push_back(from_oracle(row[k]));
  };
  auto rows = stream_rows(s, *setup, feed, true, in.cycles, keep, o, [](size_t) { return std::string(); });
  if (!rows) return rows.failure();
  out.chronogram.cycles = rows->cycles;
  out.diagnostics = std::move(rows->diagnostics);
  out.has_error_values = rows->has_error_values;
  out.failed = rows->failed;
  return out;
}

Result<RunResult> run_from(const Program &p, const Source &src, const RunOptions &o) try {
  if (o.cycles > kMaxCycles)
    return failure(kFrontendError, "rml: error[run.cycles]: cycles: at most " + std::to_string(kMaxCycles) + "\n");
  const Program::State &s = p.state();
  return o.backend == Backend::Stream ? run_stream(s, src, o) : run_oracle(s, src, o);
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml: error[run.memory]: out of memory while running '" + p.main() + "'\n");
} catch (std::exception &e) {  // the compiled path's own failure: rml cannot answer
  return failure(kUnknown, std::string("rml: error[run.internal]: ") + e.what() + "\n");
}

}  // namespace

Result<RunResult> run(const Program &p, const Chronogram &inputs, const RunOptions &o) { return run_from(p, Source{&inputs, nullptr, nullptr}, o); }

Result<RunResult> run_trace(const Program &p, const std::string &name, const std::string &text, const RunOptions &o) {
  return run_from(p, Source{nullptr, &name, &text}, o);
}

}  // namespace rml::api
