// rml diff: a back end against the oracle on given or generated programs and traces,
// through the library's campaign (api::diff_campaign): a difference (or a back end that
// crashes, hangs or prints something that is not a chronogram) is shrunk to a small
// program and trace that still fail, written as files that replay it, and printed here as
// a chronogram with the first differing cell.
#include <algorithm>
#include <cstdio>

#include "diff/backend.hpp"
#include "driver/progress.hpp"
#include "sema/frontend.hpp"
#include "tools/cmd_diff.hpp"
#include "tools/commands.hpp"

namespace rml {

int cmd_diff(const DiffCmd &c, std::ostream &out, std::ostream &err) {
  if (!c.merge.empty()) {
    auto merged = api::merge_campaigns(c.merge);
    if (!merged) return print_failure(merged.failure(), err);
    out << merged->text;
    return merged->exit_code;
  }
  if (c.out_dir.empty()) {
    err << "rml diff: error: -o: give a folder for the counterexamples\n";
    return kFrontendError;
  }
  if (!c.file.empty() && c.inputs.empty()) {
    err << "rml diff: error: a given program needs its trace: --inputs TRACE.csv\n";
    return kFrontendError;
  }
  api::DiffCampaign campaign;
  campaign.back_end = {c.backend, c.backend_cmd, c.self, c.timeout_s};
  campaign.file = c.file;
  campaign.trace_file = c.inputs;
  campaign.main = c.main_node;
  campaign.seed = c.seed;
  campaign.count = c.count;
  campaign.shard_index = c.shard.index, campaign.shard_count = c.shard.count;
  campaign.generate = generate_options(c.options);
  campaign.check_every = c.check_every;
  campaign.keep_going = c.keep_going;
  campaign.shrink = c.shrink;
  campaign.shrink_seconds = c.shrink_seconds;
  campaign.tolerance = {c.tolerance.ulps, c.tolerance.rel, c.tolerance.abs};
  campaign.check = {c.check_budget.rlimit, c.check_budget.seconds, {}};
  campaign.dir = c.out_dir;
  if (!c.file.empty()) {
    std::string io;
    auto text = read_file(c.file, io), trace = text ? read_file(c.inputs, io) : std::nullopt;
    if (!text || !trace) {
      err << "rml: error: " << io << "\n";
      return kFrontendError;
    }
    campaign.program = *text;
    campaign.trace = *trace;
  }
  Progress progress(err, "rml diff", !c.quiet);
  campaign.progress = [&](size_t done, size_t total, size_t failures) {
    char rate[32];
    std::snprintf(rate, sizeof rate, "%.2f", static_cast<double>(done) / std::max(progress.seconds(), 1e-9));
    progress.update(std::to_string(done) + "/" + std::to_string(total) + " programs, " + std::to_string(failures) + " failed (" + rate +
                    " programs/s)");
  };
  campaign.note = [&](const api::Diagnostic &d) {
    if (d.rule == "diff.shrinking" && c.quiet) return;
    progress.done();
    err << d.rendered;
  };
  auto on_failure = [&](const api::DiffFailure &f) {
    progress.done();
    out << "rml diff: " << f.label << ": " << f.what << "\n";
    if (c.shrink)
      out << "shrunk from " << f.equations_found << " equations and " << f.cycles_found << " cycles to " << f.equations << " equations and "
          << f.cycles << " cycles (" << f.tried << " candidates tried, " << f.kept << " kept"
          << (f.stopped_at_limit ? "; stopped at the shrinking limit" : "") << "):\n";
    out << "\n" << f.shrunk.program << "\n";
    if (!f.chronogram.empty()) {
      out << f.chronogram << "\n";
      out << "first difference: " << f.first << "\n";
    } else {
      out << (f.fails_again ? f.what : "") << "\n";
    }
    const std::string &base = f.base;
    out << "files: " << base << f.extension << " (program), " << base << ".csv (trace), " << base << ".oracle.csv, " << base
        << ".backend.out" << (f.svg.empty() ? "" : ", " + base + ".svg") << (f.vcd.empty() ? "" : ", " + base + ".vcd") << "\n";
    out << "replay: rml diff " << base << f.extension << " --inputs " << base << ".csv --main " << f.main
        << (c.backend_cmd.empty() ? " --backend " + c.backend : " --backend-cmd " + diff::shell_quote(c.backend_cmd)) << "\n";
    if (c.keep_going) out << "\n";
  };
  auto report = api::diff_campaign(campaign, on_failure);
  progress.done();
  if (!report) return print_failure(report.failure(), err);
  if (report->ended_by) return print_failure(*report->ended_by, err);
  out << report->final_lines;
  return report->exit_code;
}

}  // namespace rml
