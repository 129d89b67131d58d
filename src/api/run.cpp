// Running a program on a trace through the library: the oracle (funs by the reference
// evaluator or the compiled path) or the stream runner after rml-check's proof; the
// chronogram as values, what the run breaks or leaves open as diagnostics
// (include/rml/rml.hpp).
#include <algorithm>
#include <cmath>
#include <sstream>

#include "api/state.hpp"
#include "driver/acceptance.hpp"
#include "driver/compiled_funs.hpp"
#include "driver/limits.hpp"
#include "driver/show_names.hpp"
#include "array/eval.hpp"
#include "array/tensor.hpp"
#include "oracle/assumptions.hpp"
#include "sema/types.hpp"
#include "oracle/declared_clocks.hpp"
#include "stream/plan.hpp"
#include "stream/runner.hpp"
#include "syntax/diag.hpp"

namespace rml::api {

namespace {

Diagnostic said(Diagnostic::Severity sev, const std::string &rule, const std::string &message, Span span = {}) {
  rml::Diagnostic d{sev == Diagnostic::Severity::Error ? Severity::Error : sev == Diagnostic::Severity::Warning ? Severity::Warning : Severity::Note,
                    rule, message, span, {}};
  return from_stage(d);
}

// The streams to return: `show` as rml run --show names them (resolve_shown), else inputs
// and outputs. nullopt with `why` for a name that is no stream of the node.
std::optional<std::vector<std::string>> shown(const core::Program &prog, const std::vector<std::string> &show, std::string &why) {
  if (!show.empty()) return resolve_shown(prog, show, why);
  std::vector<std::string> vars;
  for (auto &v : prog.inputs) vars.push_back(v.name);
  for (auto &v : prog.outputs) vars.push_back(v.name);
  return vars;
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

std::string range_text(const std::vector<Cell> &col) {
  std::string ranges;
  for (size_t n = 0; n < col.size();) {
    if (col[n].kind != Cell::Kind::Unknown) {
      ++n;
      continue;
    }
    size_t m = n;
    while (m + 1 < col.size() && col[m + 1].kind == Cell::Kind::Unknown) ++m;
    ranges += (ranges.empty() ? "" : ", ") + (m == n ? std::to_string(n) : std::to_string(n) + "-" + std::to_string(m));
    n = m + 1;
  }
  return ranges;
}

// What every back end reports the same way: non-finite reals and unknown cells of what
// is returned.
void report_cells(const Chronogram &c, std::vector<Diagnostic> &out) {
  for (size_t k = 0; k < c.names.size(); ++k) {
    for (size_t n = 0; n < c.columns[k].size(); ++n) {
      const Cell &x = c.columns[k][n];
      if (x.kind != Cell::Kind::Value || x.value.type != ElementType::Real) continue;
      auto bad = std::find_if(x.value.reals.begin(), x.value.reals.end(), [](double r) { return !std::isfinite(r); });
      if (bad == x.value.reals.end()) continue;
      out.push_back(said(Diagnostic::Severity::Warning, "run.non-finite",
                         "'" + c.names[k] + "' is " + (std::isnan(*bad) ? "nan" : *bad > 0 ? "inf" : "-inf") + " at cycle " +
                             std::to_string(n) + ", its first non-finite value"));
      break;
    }
    if (std::string r = range_text(c.columns[k]); !r.empty())
      out.push_back(said(Diagnostic::Severity::Warning, "run.unknown",
                         "'" + c.names[k] + "' is unknown at cycles " + r + " (not determined by this prefix)"));
  }
}

std::string label_of(const std::unordered_map<std::string, std::string> &printed, const std::string &v) {
  auto it = printed.find(v);
  return it == printed.end() ? v : it->second;
}

Result<RunResult> run_oracle(const Program::State &s, const oracle::Inputs &in, const std::vector<std::string> &vars,
                             const RunOptions &o) {
  const core::Program &prog = s.elab.prog;
  oracle::Options opts;
  opts.max_memory = o.max_memory;
  auto funs = std::make_shared<driver::CompiledFuns>(s.frontend->checked);
  if (o.backend == Backend::OracleCompiled)
    opts.apply_fun = [funs](const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<array::Tensor> &args) {
      return funs->apply(fn, statics, args);
    };
  oracle::Oracle orc(s.frontend->checked, prog, s.elab.clocks, opts);
  orc.check_memory(in.cycles, orc.memory_needed(in.cycles), o.max_memory);
  oracle::Result res = orc.run(in, oracle::Solver::Worklist);
  auto printed = core::printed_names(prog);
  RunResult out;
  out.chronogram.cycles = res.cycles;
  for (auto &v : vars) {
    out.chronogram.names.push_back(label_of(printed, v));
    std::vector<Cell> col;
    for (size_t n = 0; n < res.cycles; ++n) col.push_back(from_oracle(res.at(v, n)));
    out.chronogram.columns.push_back(std::move(col));
  }
  for (auto &v : res.input_clock_violations) out.diagnostics.push_back(said(Diagnostic::Severity::Warning, "input.clock", "input " + v));
  report_cells(out.chronogram, out.diagnostics);
  for (auto &e : res.errors)
    out.diagnostics.push_back(said(Diagnostic::Severity::Error, "run.error-value",
                                   "error value at cycle " + std::to_string(e.cycle) + " in '" + label_of(printed, e.var) + "' [" +
                                       e.rule + "]: " + e.message, e.span));
  for (auto &v : oracle::declared_clock_violations(prog, res, [&](const std::string &x) { return label_of(printed, x); }))
    out.diagnostics.push_back(said(Diagnostic::Severity::Error, "clock.declared", v.message, v.span));
  for (auto &b : broken_assumptions(prog, res))
    for (auto &d : from_text(render_broken(b, false))) out.diagnostics.push_back(d);
  out.has_error_values = !res.errors.empty();
  return out;
}

Result<RunResult> run_stream(const Program::State &s, const oracle::Inputs &in, const std::vector<std::string> &vars,
                             const RunOptions &o) {
  const core::Program &prog = s.elab.prog;
  std::ostringstream err;
  int rc = kOk;
  std::optional<int64_t> H = accepted_horizon(*s.frontend, s.elab, s.file, s.main, CheckBudget{o.check.seconds, o.check.rlimit},
                                              "run on the stream path", err, rc, o.check.progress);
  if (!H) return failure(rc, err.str());
  stream::Plan plan = stream::build_plan(prog, s.elab.clocks);
  stream::Options sopts;
  sopts.lag = static_cast<size_t>(*H);
  sopts.max_window = 2 * static_cast<size_t>(*H) + 2;
  if (std::any_of(plan.slots.begin(), plan.slots.end(), [](const stream::Slot &x) { return x.numel != 1; }))
    stream::keep_tensor_blocks_in_heap();
  auto funs = std::make_shared<driver::CompiledFuns>(s.frontend->checked);
  sopts.fun_executable = [funs](const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<ir::Type> &types) {
    return &funs->executable(fn, statics, types);
  };
  auto printed = core::printed_names(prog);
  RunResult out;
  std::vector<int> slots;
  for (auto &v : vars) {
    out.chronogram.names.push_back(label_of(printed, v));
    out.chronogram.columns.emplace_back();
    slots.push_back(plan.slot(v));
  }
  stream::Runner runner(s.frontend->checked, plan, sopts, [&](const stream::FrameView &f) {
    for (size_t k = 0; k < slots.size(); ++k) out.chronogram.columns[k].push_back(from_oracle(f.cell(slots[k])));
  });
  for (size_t n = 0; n < in.cycles; ++n) {
    std::vector<oracle::Cell> row;
    for (auto &v : prog.inputs) row.push_back(in.streams.at(v.name)[n]);
    runner.push(row);
  }
  runner.finish();
  out.chronogram.cycles = in.cycles;
  for (auto &v : runner.input_clock_violations()) out.diagnostics.push_back(said(Diagnostic::Severity::Warning, "input.clock", "input " + v));
  report_cells(out.chronogram, out.diagnostics);
  for (auto &e : runner.errors())
    out.diagnostics.push_back(said(Diagnostic::Severity::Error, "run.error-value",
                                   "error value at cycle " + std::to_string(e.cycle) + " in '" + label_of(printed, e.var) + "' [" +
                                       e.rule + "]: " + e.message, e.span));
  out.has_error_values = !runner.errors().empty();
  return out;
}

}  // namespace

Result<RunResult> run(const Program &p, const Chronogram &inputs, const RunOptions &o) try {
  const Program::State &s = p.state();
  const core::Program &prog = s.elab.prog;
  std::string why;
  if (o.cycles > kMaxCycles) return Failure{kFrontendError, {said(Diagnostic::Severity::Error, "run.cycles", "cycles: at most " + std::to_string(kMaxCycles))}};
  auto vars = shown(prog, o.show, why);
  if (!vars) return Failure{kFrontendError, {said(Diagnostic::Severity::Error, "run.show", why)}};
  if (o.backend == Backend::Stream && o.cycles && !prog.inputs.empty())
    return Failure{kFrontendError, {said(Diagnostic::Severity::Error, "run.cycles",
                                         "cycles with the stream back end are for nodes without inputs: it runs the trace's rows")}};
  std::string rule;
  auto in = to_inputs(prog, inputs, o.cycles, rule, why);
  if (!in) return Failure{kFrontendError, {said(Diagnostic::Severity::Error, rule, why)}};
  std::ostringstream err;
  if (refuse_imported(prog, "run.imported", "no back end can run it", err, &*in)) return failure(kFrontendError, err.str());
  return o.backend == Backend::Stream ? run_stream(s, *in, *vars, o) : run_oracle(s, *in, *vars, o);
} catch (core::ElabError &e) {
  return Failure{kFrontendError, {said(Diagnostic::Severity::Error, "elab", e.message, e.span)}};
} catch (oracle::MemoryLimitError &e) {
  return Failure{kFrontendError, {said(Diagnostic::Severity::Error, "run.memory", std::string(e.what()) + "; raise max_memory or run fewer cycles")}};
} catch (oracle::ImportedError &e) {
  return Failure{kFrontendError, {said(Diagnostic::Severity::Error, "run.imported", e.what(), e.span)}};
} catch (stream::WindowLimitError &e) {
  return Failure{kUnknown, {said(Diagnostic::Severity::Error, "stream.window", e.what())}};
} catch (stream::ExactnessLost &e) {
  return Failure{kUnknown, {said(Diagnostic::Severity::Error, "stream.exactness", e.what())}};
} catch (stream::StreamError &e) {
  return Failure{kFrontendError, {said(Diagnostic::Severity::Error, "stream.input", e.what())}};
} catch (stream::PlanError &e) {
  return Failure{kUnknown, {said(Diagnostic::Severity::Error, "stream.plan", e.what())}};
} catch (std::bad_alloc &) {
  return Failure{kUnknown, {said(Diagnostic::Severity::Error, "run.memory", "out of memory while running '" + p.main() + "'")}};
} catch (std::exception &e) {  // the oracle's or the compiled path's own failure: rml cannot answer
  return Failure{kUnknown, {said(Diagnostic::Severity::Error, "run.internal", e.what())}};
}

}  // namespace rml::api
