// rml run: a node on an input trace in the oracle (pointwise funs by the reference
// evaluator or the compiled path), its chronogram, and what the run breaks or leaves unknown.
#include "tools/commands.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

#include <cstdlib>
#include <sstream>

#include "driver/compiled_funs.hpp"
#include "formats/svg.hpp"
#include "formats/vcd.hpp"
#include "driver/elaborated.hpp"
#include "core/normalize.hpp"
#include "oracle/declared_clocks.hpp"
#include "oracle/oracle.hpp"
#include "oracle/trace_io.hpp"
#include "oracle/assumptions.hpp"
#include "tools/chronogram.hpp"
#include "tools/exit_policy.hpp"
#include "driver/load.hpp"
#include "driver/main_node.hpp"
#include "driver/progress.hpp"
#include "tools/run_common.hpp"

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
  std::string bad;
  if (c.cycles && !parse_cycles(std::to_string(c.cycles), bad)) {
    err << "rml: error: " << bad << "\n";
    return kFrontendError;
  }
  if (!parse_memory(std::to_string(c.max_memory), bad)) {
    err << "rml: error: " << bad << "\n";
    return kFrontendError;
  }
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  std::optional<std::string> chosen = choose_main(*r, c.main_node, err);
  if (!chosen) return kFrontendError;
  const std::string main = *chosen;
  r = load_with_assumptions(std::move(r), c.file, main, c.assume, "rml", err);
  if (!r) return kFrontendError;
  if (c.backend == Backend::Stream) return cmd_run_stream(c, *r, main, out, err);
  const oracle::Format fmt = c.format;
  try {
    driver::Elaborated elab = driver::elaborate(r->checked, main);
    const core::Program &prog = elab.prog;
    oracle::Options opts;
    opts.post_clock_data = c.post_clock_data;
    opts.strict_when_merge = c.strict_when_merge;
    opts.lazy_if = c.lazy_if;
    opts.max_memory = c.max_memory;
    auto progress = std::make_shared<Progress>(err, "rml run", !c.quiet);
    opts.progress = [progress](size_t done, size_t cycles) {
      progress->update(std::to_string(done) + "/" + std::to_string(cycles) + " cycles computed");
    };
    auto funs = std::make_shared<driver::CompiledFuns>(r->checked);
    if (c.backend == Backend::Compiled)
      opts.apply_fun = [funs](const std::string &fn, const std::vector<StaticValue> &statics,
                              const std::vector<array::Tensor> &args) { return funs->apply(fn, statics, args); };
    oracle::Oracle orc(r->checked, prog, elab.clocks, opts);
    for (auto &clash : orc.clocks().clashes)
      err << (clash.span.valid() ? location(clash.span) + ": " : std::string()) << "warning[clock.clash]: " << clash.message
          << " (the oracle continues with the first unification)\n";
    const oracle::Solver solver = c.solver;
    // The variables to print (--all: those of Result::vars, in its order).
    std::optional<std::vector<std::string>> shown = run_variables(c, prog, err);
    if (!shown) return kFrontendError;
    const std::vector<std::string> &vars = *shown;
    // --require-known / --require-true VAR@CYCLE: checked after the run, named as --show
    // names variables.
    struct Required {
      std::string var;
      size_t cycle;
      bool must_be_true;
    };
    std::vector<Required> required;
    for (bool must_be_true : {false, true})
      for (auto &cell : must_be_true ? c.require_true : c.require_known) {
        const char *flag = must_be_true ? "--require-true" : "--require-known";
        size_t at = cell.rfind('@');
        std::string why, cyc = at == std::string::npos ? "" : cell.substr(at + 1);
        bool digits = !cyc.empty() && cyc.size() <= 9 && std::all_of(cyc.begin(), cyc.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        if (!digits) {
          err << "rml: error: " << flag << ": expected VAR@CYCLE (a cycle from 0 to 999999999), got '" << cell << "'\n";
          return kFrontendError;
        }
        auto var = resolve_shown(prog, {cell.substr(0, at)}, why);
        if (!var) {
          err << c.file << ": error[run.show]: " << flag << ": " << why << "\n";
          return kFrontendError;
        }
        required.push_back({var->front(), static_cast<size_t>(std::stoul(cyc)), must_be_true});
      }
    // The memory cap covers the oracle's store and inputs, and the printed chronogram (a
    // cell's text, ~26 bytes per element, held about three times while formatting).
    auto memory_check = [&](size_t cycles) {
      long double print = 48;
      for (auto &v : vars) print += 128.0L + 80.0L * static_cast<long double>(orc.cell_elements(v));
      long double need = static_cast<long double>(orc.memory_needed(cycles, solver)) + print * static_cast<long double>(cycles);
      orc.check_memory(cycles, need >= 1.8e19L ? UINT64_MAX : static_cast<uint64_t>(need), c.max_memory);
    };
    oracle::Inputs in;
    if (!c.inputs.empty()) {
      std::string io;
      auto text = read_file(c.inputs, io);
      if (!text) {
        err << "rml: error: " << io << "\n";
        return kFrontendError;
      }
      // Before reading: at most a cycle per line (CSV) or per object (JSON).
      bool json = oracle::is_json_trace(*text);
      size_t rows = json ? static_cast<size_t>(std::count(text->begin(), text->end(), '{'))
                         : static_cast<size_t>(std::count(text->begin(), text->end(), '\n')) + 1;
      memory_check(std::max(rows, c.cycles));
      try {
        in = oracle::read_trace(c.inputs, *text, prog, c.cycles);
      } catch (oracle::TraceError &e) {
        err << render_trace_error(e, *text);
        return kFrontendError;
      }
    } else if (!prog.inputs.empty()) {
      err << "rml: error: '" << main << "' has inputs: give a trace with --inputs\n";
      return kFrontendError;
    } else {
      in.cycles = c.cycles ? c.cycles : 10;
    }
    // An imported call runs on the values the trace gives for its output.
    if (refuse_imported(prog, "run.imported", "the oracle cannot run it", err, &in)) return kFrontendError;
    memory_check(in.cycles);
    oracle::Result res = orc.run(in, solver);
    progress->done();
    // Every variable under the name rml parse --normalized prints (what --show accepts).
    auto printed = core::printed_names(prog);
    auto label = [&](const std::string &v) {
      auto it = printed.find(v);
      return it == printed.end() ? v : it->second;
    };
    std::vector<std::string> labels;
    for (auto &v : vars) labels.push_back(label(v));
    out << format_chronogram(res, vars, fmt, labels, &prog);
    if (c.backend == Backend::Compiled)
      err << "note: compiled backend: " << funs->executables() << " executable" << (funs->executables() == 1 ? "" : "s")
          << " (fun at argument types) for " << funs->applications() << " fun application"
          << (funs->applications() == 1 ? "" : "s") << "\n";
    for (auto &v : res.input_clock_violations) err << "warning[input.clock]: input " << v << "\n";
    // Non-finite reals in what is printed: not an error value of the language, but worth
    // a warning (the exit code stays 0).
    for (auto &v : vars) {
      if (orc.cell_elements(v) == 0) continue;
      for (size_t n = 0; n < res.cycles; ++n) {
        if (res.tag(v, n) != oracle::Tag::Val) continue;
        oracle::Cell cell = res.at(v, n);
        if (cell.value.elem != Scalar::Real) break;
        auto bad_elem = std::find_if(cell.value.r.begin(), cell.value.r.end(), [](double x) { return !std::isfinite(x); });
        if (bad_elem == cell.value.r.end()) continue;
        err << "warning[run.non-finite]: '" << label(v) << "' is " << (std::isnan(*bad_elem) ? "nan" : *bad_elem > 0 ? "inf" : "-inf")
            << " at cycle " << n << (cell.value.r.size() > 1 ? " (element " + std::to_string(bad_elem - cell.value.r.begin()) + ")" : "")
            << ", its first non-finite value\n";
        break;
      }
    }
    for (auto &e : res.errors)
      err << (e.span.valid() ? location(e.span) + ": " : std::string()) << "error value at cycle " << e.cycle << " in '"
          << label(e.var) << "' [" << e.rule << "]: " << e.message << "\n";
    // A declaration the run breaks (Lustre's meaning of `x: t when c`): a clock error of
    // the program, like an error value, though no cell is ‖ (semantics.md §9.1).
    auto declared = oracle::declared_clock_violations(prog, res, label);
    for (auto &v : declared) err << render(Diagnostic{Severity::Error, "clock.declared", v.message, v.span, {}});
    // Unknown cells of the shown variables, as ranges.
    for (auto &v : vars) {
      std::string ranges;
      for (size_t n = 0; n < res.cycles;) {
        if (res.tag(v, n) != oracle::Tag::Bot) {
          ++n;
          continue;
        }
        size_t m = n;
        while (m + 1 < res.cycles && res.tag(v, m + 1) == oracle::Tag::Bot) ++m;
        ranges += (ranges.empty() ? "" : ", ") + (m == n ? std::to_string(n) : std::to_string(n) + "-" + std::to_string(m));
        n = m + 1;
      }
      if (!ranges.empty()) err << "unknown: '" << label(v) << "' at cycles " << ranges << " (not determined by this prefix)\n";
    }
    // The environment the main node assumes: a trace outside it runs, but is said.
    bool broken = false;
    for (auto &b : broken_assumptions(prog, res)) {
      err << render_broken(b, c.strict_assume);
      broken = true;
    }
    bool unknown_required = false;
    for (auto &[v, n, must_be_true] : required) {
      const char *flag = must_be_true ? "--require-true" : "--require-known";
      if (n >= res.cycles) {
        err << "error[run.unknown]: '" << label(v) << "' at cycle " << n << " is past the run's " << res.cycles << " cycles, but "
            << flag << " asks for its value\n";
        unknown_required = true;
        continue;
      }
      const oracle::Cell cell = res.at(v, n);
      if (cell.tag == oracle::Tag::Bot)
        err << "error[run.unknown]: '" << label(v) << "' at cycle " << n << " is unknown, but " << flag << " asks for its value\n";
      else if (cell.tag == oracle::Tag::Nil)
        err << "error[run.nil]: '" << label(v) << "' at cycle " << n << " is nil (the first value of a 'pre' not guarded by '->', or a 'current' before its clock first ticks), but "
            << flag << " asks for its value\n";
      else if (!must_be_true)
        continue;
      else if (cell.tag == oracle::Tag::Val && cell.value.elem == Scalar::Bool && cell.value.i.size() == 1 && cell.value.i[0] != 0)
        continue;
      else
        err << "error[run.false]: '" << label(v) << "' at cycle " << n << " is "
            << (cell.tag == oracle::Tag::Abs ? "absent" : cell.tag == oracle::Tag::Err ? "an error value (‖)"
                : cell.value.elem == Scalar::Bool && cell.value.i.size() == 1 ? "false" : cell.value.str() + " (not a bool)")
            << ", but --require-true asks for true\n";
      unknown_required = true;
    }
    return res.any_error() || !declared.empty() || (broken && c.strict_assume) || unknown_required ? kFalsified : kOk;
  } catch (core::ElabError &e) {
    err << (e.span.valid() ? location(e.span) + ": " : std::string("rml: ")) << "error[elab]: " << e.message << "\n";
  } catch (oracle::TraceError &e) {
    err << e.what() << "\n";
  } catch (oracle::MemoryLimitError &e) {
    err << "rml: error[run.memory]: " << e.what() << "; ";
    const char *instead = e.cycles > 1 ? "run fewer cycles" : "use smaller tensors";
    if (e.needed <= kMaxMaxMemory)
      err << "raise the limit with --max-memory (e.g. --max-memory " << ((e.needed + (1ull << 30) - 1) >> 30) << "G) or " << instead << "\n";
    else
      err << "that is more than --max-memory allows (" << format_bytes(kMaxMaxMemory) << "): " << instead << "\n";
  } catch (oracle::ImportedError &e) {  // the trace's values for an imported call's output do not do
    Diagnostic d;
    d.rule = "run.imported";
    d.span = e.span;
    d.message = e.what();
    err << render(d);
  } catch (oracle::OracleError &e) {
    err << "rml: error: " << e.what() << "\n";
    return exit_for(e);
  } catch (driver::CompiledFunError &e) {
    err << "rml: error: " << e.what() << "\n";
    return exit_for_compiled_path();
  } catch (std::bad_alloc &) {
    err << "rml: error: out of memory while running '" << main << "' in the oracle: run fewer cycles or use smaller tensors\n";
    return kUnknown;
  }
  return kFrontendError;
}

}  // namespace rml
