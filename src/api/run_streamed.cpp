// api::run_streamed (`rml run --backend stream`): a trace read as the run goes (CSV row by
// row; JSON whole, within the input limit) and the chronogram written as rows leave the
// stream back end's window (stream_run.cpp): memory independent of the trace's length.
#include <cctype>
#include <cstdio>
#include <new>

#include "api/state.hpp"
#include "api/stream_run.hpp"
#include "driver/acceptance.hpp"
#include "driver/chronogram.hpp"
#include "driver/limits.hpp"
#include "oracle/trace_io.hpp"
#include "syntax/lexer.hpp"  // Limits

namespace rml::api {

namespace {

oracle::Format format_of(TextFormat f) {
  return f == TextFormat::Csv ? oracle::Format::Csv : f == TextFormat::Json ? oracle::Format::Json : oracle::Format::Table;
}

// The trace from its start, as the run's Feed: a node without inputs runs `cycles` empty
// rows; a CSV trace is read row by row; a JSON trace is read whole, once, and kept.
struct TraceFeed {
  const core::Program &prog;
  const std::optional<TraceStream> &trace;
  size_t cycles;
  std::string json_text;  // a JSON trace, kept: it is read whole anyway
  bool json = false;
  std::shared_ptr<std::istream> first;  // opened before the first row is written

  Result<std::shared_ptr<std::istream>> open() const {
    std::string why;
    std::shared_ptr<std::istream> in = trace->open ? trace->open(why) : nullptr;
    if (!in) return failure(kFrontendError, "rml: error: " + (why.empty() ? "cannot open '" + trace->name + "'" : why) + "\n");
    return in;
  }

  std::optional<Failure> operator()(const PushCycle &push) {
    if (prog.inputs.empty()) {
      for (size_t k = 0; k < cycles; ++k) push(std::vector<oracle::Cell>{});
      return std::nullopt;
    }
    if (!json) {
      std::shared_ptr<std::istream> in = std::move(first);
      if (!in) {
        auto cannot = open();
        if (!cannot) return cannot.failure();
        in = *cannot;
      }
      // Blank lines are skipped (and counted) to see whether the trace is JSON.
      std::string blank;
      size_t blank_lines = 0;
      for (int ch; (ch = in->peek()) != EOF && std::isspace(ch);) {
        blank.push_back(static_cast<char>(in->get()));
        blank_lines += ch == '\n';
      }
      if (in->peek() != '[' && in->peek() != '{') {
        oracle::CsvTraceReader reader(trace->name, *in, prog, blank_lines);
        std::vector<oracle::Cell> cyc;
        while (reader.next(cyc)) push(cyc);
        return std::nullopt;
      }
      // Bounded as every input (read_file's limit).
      json = true;
      json_text = blank;
      char buf[65536];
      while (in->read(buf, sizeof buf) || in->gcount() > 0) {
        json_text.append(buf, static_cast<size_t>(in->gcount()));
        if (json_text.size() > Limits::kMaxFileBytes)
          return failure(kFrontendError, "rml: error: '" + trace->name +
                                             "' is larger than 16 MiB (the limit of an input: 16777216 bytes; CSV traces are read row by row, without it)\n");
      }
    }
    oracle::Inputs in;
    try {
      in = oracle::read_trace(trace->name, json_text, prog, 0);
    } catch (oracle::TraceError &e) {
      return failure(kFrontendError, render_trace_error(e, json_text));
    }
    std::vector<oracle::Cell> cyc(prog.inputs.size());
    for (size_t n = 0; n < in.cycles; ++n) {
      for (size_t k = 0; k < prog.inputs.size(); ++k) cyc[k] = in.streams.at(prog.inputs[k].name)[n];
      push(cyc);
    }
    return std::nullopt;
  }
};

}  // namespace

Result<StreamedRun> run_streamed(const Program &p, const std::optional<TraceStream> &trace, std::ostream &out, TextFormat format,
                                 const RunOptions &o) try {
  const Program::State &s = p.state();
  const core::Program &prog = s.elab.prog;
  if (o.cycles > kMaxCycles)
    return failure(kFrontendError, "rml: error[run.cycles]: cycles: at most " + std::to_string(kMaxCycles) + "\n");
  auto setup = stream_setup(s, o, nullptr);
  if (!setup) return setup.failure();
  if (!prog.inputs.empty() && !trace)
    return failure(kFrontendError, "rml: error: '" + s.main + "' has inputs: give a trace with --inputs\n");
  TraceFeed feed{prog, trace, o.cycles ? o.cycles : 10, {}, false, nullptr};
  if (!prog.inputs.empty()) {  // a trace that cannot be opened: nothing written
    auto in = feed.open();
    if (!in) return in.failure();
    feed.first = *in;
  }
  ChronogramWriter writer(out, format_of(format), setup->labels);
  writer.name_values(enum_values_of(prog, setup->vars));
  // A run stopped half-way says so: CSV and JSON rows already written are the exact cells
  // of their cycles, but the output is not whole.
  auto incomplete = [&](size_t emitted) {
    out.flush();
    if (format == TextFormat::Table) return std::string("rml: no chronogram printed (the table is printed at the end)");
    return "rml: the output above is incomplete: " +
           (emitted ? "it stops after cycle " + std::to_string(emitted - 1) : std::string("it has no cycle")) +
           (format == TextFormat::Json ? " (the JSON list is not closed)" : "");
  };
  auto rows = stream_rows(s, *setup, std::ref(feed), prog.inputs.empty() || (trace && trace->rereadable), 0,
                          [&](size_t, const std::vector<oracle::Cell> &row) { writer.row(row); }, o, incomplete);
  if (!rows) return rows.failure();
  writer.finish();
  StreamedRun done;
  done.cycles = rows->cycles;
  done.diagnostics = std::move(rows->diagnostics);
  done.has_error_values = rows->has_error_values;
  done.failed = rows->failed;
  return done;
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml: error[run.memory]: out of memory while running '" + p.main() + "'\n");
} catch (std::exception &e) {  // a callback's, an opener's or the output stream's: rml cannot answer
  return failure(kUnknown, std::string("rml: error[run.internal]: ") + e.what() + "\n");
}

}  // namespace rml::api
