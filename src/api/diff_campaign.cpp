// api::diff_campaign and api::merge_campaigns (`rml diff`): a back end, run as a command on
// files, against the oracle on a given program or a seed's generated ones. A difference
// (or a back end that crashes, hangs or prints something that is not a chronogram) is
// shrunk to a small program and trace that still fail the same way, and reported with
// what `rml diff` prints and writes: the chronogram side by side, the oracle's CSV, the
// back end's output, a drawing and a waveform.
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "api/chronogram_text.hpp"
#include "api/state.hpp"
#include "codegen/emit_cpp.hpp"
#include "diff/accept.hpp"
#include "diff/backend.hpp"
#include "diff/campaign.hpp"
#include "diff/case_hooks.hpp"
#include "diff/compare.hpp"
#include "diff/draw.hpp"
#include "diff/shrink.hpp"
#include "formats/svg.hpp"
#include "formats/vcd.hpp"

namespace rml::api {

namespace {

namespace fs = std::filesystem;
using Sev = Diagnostic::Severity;

bool is_builtin(const std::string &name) {
  for (const char *b : {"worklist", "kleene", "compiled", "stream", "cpp"})
    if (name == b) return true;
  return false;
}

// A case's run: accepted by rml-check, the oracle's chronogram, the back end's.
struct Outcome {
  enum Kind { Equal, Differs, BackendFailed, Unusable } kind = Equal;
  diff::Difference difference;
  std::string message;  // BackendFailed: how; Unusable: why the case has no meaning (not accepted)
  diff::Chronogram oracle, backend;
  std::string oracle_csv, backend_output;
  size_t compared = 0, unknown = 0;
};

std::string first_lines(const std::string &s, int n) {
  size_t at = 0;
  for (int i = 0; i < n && at != std::string::npos; ++i) at = s.find('\n', at + 1);
  return at == std::string::npos ? s : s.substr(0, at) + "\n...";
}

// The back end as a command in a scratch folder of its own, and rml-check's answers.
class Session {
 public:
  Session(const DiffCampaign &c, std::string work, bool lustre) : c_(c), work_(std::move(work)), lustre_(lustre) {
    const BackEnd &b = c.back_end;
    if (!b.command.empty()) {
      cmd_.tmpl = b.command;
    } else if (b.builtin == "cpp") {
      // rml compile's step class and its CSV driver (rml_csv_main.cpp), built with the
      // system's C++ compiler and run on the trace.
      cmd_.tmpl = "d=\"$(dirname {outputs})/cpp\" && rm -rf \"$d\" && " + diff::shell_quote(b.rml) +
                  " compile {program} --main {main} -o \"$d\" >/dev/null && ${CXX:-c++} -std=c++20 -O1 -w " + codegen::kExactFlags + " -I\"$d\" "
                  "-I\"$d/runtime\" \"$d\"/*.cpp \"$d/runtime/ops/special.cpp\" -o \"$d/run\" && \"$d/run\" {inputs}";
    } else {
      std::string flags = b.builtin == "kleene" ? " --solver kleene" : b.builtin == "compiled" ? " --backend compiled"
                        : b.builtin == "stream" ? " --backend stream" : "";
      cmd_.tmpl = diff::shell_quote(b.rml) + " run {program} --main {main} --inputs {inputs} --format csv" + flags;
    }
    // stream and cpp check the program again (rml-check: Spacer can take seconds on resets).
    cmd_.timeout_s = b.timeout_seconds > 0 ? b.timeout_seconds : b.builtin == "cpp" || b.builtin == "stream" ? 120 : 10;
  }
  const char *ext() const { return lustre_ ? ".lus" : ".rml"; }
  CheckBudget budget() const { return CheckBudget{c_.check.seconds, c_.check.rlimit}; }

  // `known`: the case's program is already accepted (a fresh draw), with these outputs.
  Outcome run(const diff::Case &k, const std::string &main, const diff::Acceptance *known = nullptr) {
    Outcome o;
    const Accepted &a = known ? Accepted{true, "", known->main, known->outputs} : acceptance(k.program, main);
    if (!a.accepted) {
      o.kind = Outcome::Unusable;
      o.message = a.why;
      return o;
    }
    std::string prog = work_ + "/program" + ext(), in = work_ + "/inputs.csv", outp = work_ + "/outputs.csv";
    std::ofstream(prog) << k.program;
    std::ofstream(in) << k.trace;
    // The oracle, through the library as `rml run --format csv --show OUTPUTS` runs it.
    std::string said;
    auto p = load_text(prog, k.program, {a.main, {}});
    std::optional<Result<RunResult>> r;
    if (p) {
      RunOptions ro;
      ro.show = a.outputs;
      r.emplace(run_trace(*p, in, k.trace, ro));
    }
    if (!p || !*r) {
      o.kind = Outcome::Unusable;
      o.message = "the oracle did not run the case: " + (p ? (*r).failure().text() : p.failure().text());
      return o;
    }
    std::ostringstream csv;
    write_chronogram(*p, (**r).chronogram, oracle::Format::Csv, csv);
    o.oracle_csv = csv.str();
    std::string why;
    auto oracle = diff::read_chronogram(o.oracle_csv, why);
    if (!oracle) {
      o.kind = Outcome::Unusable;
      o.message = "the oracle did not run the case: " + why + "\n";
      return o;
    }
    o.oracle = *oracle;
    diff::BackendRun b = diff::run_backend(cmd_, prog, in, outp, a.main);
    o.backend_output = b.output;
    if (b.status != diff::BackendRun::Ok) {
      o.kind = Outcome::BackendFailed;
      o.message = "the back end " + b.describe() + (b.stderr_text.empty() ? "" : ": " + first_lines(b.stderr_text, 6));
      return o;
    }
    auto back = diff::read_chronogram(b.output, why);
    if (!back) {
      o.kind = Outcome::BackendFailed;
      o.message = "the back end's output is not a chronogram (CSV: a header, a row per cycle): " + why;
      return o;
    }
    o.backend = *back;
    o.difference = diff::compare(o.oracle, o.backend, a.outputs, diff::Tolerance{c_.tolerance.ulps, c_.tolerance.rel, c_.tolerance.abs});
    for (auto &row : o.oracle.rows)
      for (auto &v : a.outputs) {
        int col = o.oracle.column(v);
        if (col < 0) continue;
        ++o.compared;
        if (row[static_cast<size_t>(col)] == "?") ++o.unknown;
      }
    o.kind = o.difference.kind == diff::Difference::None ? Outcome::Equal : Outcome::Differs;
    return o;
  }

  // rml-check's answer for a program, once per program text: it does not depend on the
  // trace, and shrinking tries many traces (prefixes) of one program.
  struct Accepted {
    bool accepted;
    std::string why, main;
    std::vector<std::string> outputs;
  };
  const Accepted &acceptance(const std::string &program, const std::string &main) {
    auto key = std::make_pair(program, main);
    auto it = accepted_.find(key);
    if (it == accepted_.end()) {
      if (accepted_.size() >= 4096) accepted_.clear();  // a long campaign's failures: memory stays bounded
      diff::Acceptance a = diff::accept("<case>", program, main, budget());
      it = accepted_.emplace(key, Accepted{a.accepted, a.why, a.main, a.outputs}).first;
    }
    return it->second;
  }

 private:
  const DiffCampaign &c_;
  std::string work_;
  bool lustre_;
  diff::BackendCommand cmd_;
  std::map<std::pair<std::string, std::string>, Accepted> accepted_;
};

// The chronogram of a failing case: inputs, then each output as the oracle and the back
// end give it, the first differing cell marked with '*'.
std::string side_by_side_text(const diff::Case &k, const Outcome &o, const std::vector<std::string> &outputs) {
  std::string why;
  auto in = diff::read_chronogram(k.trace, why);
  std::vector<std::vector<std::string>> rows;
  size_t cycles = o.oracle.rows.size();
  std::vector<std::string> head{"cycle"};
  for (size_t n = 0; n < cycles; ++n) head.push_back(std::to_string(n));
  rows.push_back(head);
  if (in)
    for (size_t j = 0; j < in->columns.size(); ++j) {
      std::vector<std::string> r{in->columns[j]};
      for (size_t n = 0; n < cycles; ++n) r.push_back(n < in->rows.size() ? in->rows[n][j] : "");
      rows.push_back(r);
    }
  for (auto &v : outputs) {
    int oc = o.oracle.column(v), bc = o.backend.column(v);
    std::vector<std::string> ro{v + " (oracle)"}, rb{v + " (back end)"};
    for (size_t n = 0; n < cycles; ++n) {
      ro.push_back(oc < 0 ? "" : o.oracle.rows[n][static_cast<size_t>(oc)]);
      std::string cell = bc >= 0 && n < o.backend.rows.size() ? o.backend.rows[n][static_cast<size_t>(bc)] : "";
      if (o.difference.kind == diff::Difference::Cell && o.difference.var == v && o.difference.cycle == n) cell += "*";
      rb.push_back(cell);
    }
    rows.push_back(ro);
    if (bc >= 0) rows.push_back(rb);
  }
  std::vector<size_t> width;
  for (auto &r : rows)
    for (size_t i = 0; i < r.size(); ++i) {
      if (width.size() <= i) width.push_back(0);
      width[i] = std::max(width[i], r[i].size());
    }
  std::string s;
  for (auto &r : rows) {
    std::string line = "    ";
    for (size_t i = 0; i < r.size(); ++i) line += r[i] + std::string(width[i] - r[i].size() + 2, ' ');
    while (!line.empty() && line.back() == ' ') line.pop_back();
    s += line + "\n";
  }
  return s;
}

// Inputs, then for each output its oracle column (`o`) and back-end column (`o_backend`):
// the table the drawing and the waveform show.
formats::ChronogramTable side_by_side(const diff::Case &k, const Outcome &o, const std::vector<std::string> &outputs) {
  formats::ChronogramTable t;
  std::string why;
  auto in = diff::read_chronogram(k.trace, why);
  size_t cycles = o.oracle.rows.size();
  t.rows.assign(cycles, {});
  if (in)
    for (size_t j = 0; j < in->columns.size(); ++j) {
      t.names.push_back(in->columns[j]);
      for (size_t n = 0; n < cycles; ++n) t.rows[n].push_back(n < in->rows.size() ? in->rows[n][j] : "?");
    }
  for (auto &v : outputs) {
    int oc = o.oracle.column(v), bc = o.backend.column(v);
    if (oc < 0) continue;
    t.names.push_back(v);
    for (size_t n = 0; n < cycles; ++n) t.rows[n].push_back(o.oracle.rows[n][static_cast<size_t>(oc)]);
    if (bc < 0) continue;
    t.names.push_back(v + "_backend");
    for (size_t n = 0; n < cycles; ++n)
      t.rows[n].push_back(n < o.backend.rows.size() ? o.backend.rows[n][static_cast<size_t>(bc)] : "?");
  }
  return t;
}

// The files of an earlier run in `dir` (cex.*, and a campaign's fail_K/ folders and
// summary.tsv), removed so that the folder holds this run's results only. Nothing else is
// touched: a fail_K folder with other files in it stays, and so do the files this run
// reads (`keep`: replaying DIR/cex.rml with -o DIR must not delete it first).
void clear_earlier_results(const std::string &dir, const std::vector<std::string> &keep) {
  auto kept = [&](const fs::path &p) {
    for (auto &k : keep) {
      std::error_code e;
      if (!k.empty() && fs::equivalent(p, k, e)) return true;
    }
    return false;
  };
  auto remove = [&](const fs::path &p) {
    std::error_code e;
    if (!kept(p)) fs::remove(p, e);
  };
  auto clear_case = [&](const fs::path &d) {
    for (const char *name : {"cex.rml", "cex.lus", "cex.csv", "cex.oracle.csv", "cex.backend.out", "cex.svg", "cex.vcd"})
      remove(d / name);
  };
  clear_case(dir);
  remove(fs::path(dir) / "summary.tsv");
  std::error_code e;
  for (auto it = fs::directory_iterator(dir, e); !e && it != fs::directory_iterator(); it.increment(e)) {
    std::string name = it->path().filename().string();
    std::error_code e2;
    if (name.rfind("fail_", 0) != 0 || name.size() == 5 ||
        name.find_first_not_of("0123456789", 5) != std::string::npos || !it->is_directory(e2))
      continue;
    clear_case(it->path());
    fs::remove(it->path(), e2);  // only if now empty
  }
}

// A failure's files (DiffCampaign::dir); false when they cannot be written.
bool write_failure_files(DiffFailure &f, const std::string &dir) {
  const std::string folder = f.folder == "." ? dir : dir + "/" + f.folder;
  std::error_code ec;
  fs::create_directories(folder, ec);
  f.base = folder + "/cex";
  std::ofstream(f.base + f.extension) << f.shrunk.program;
  std::ofstream(f.base + ".csv") << f.shrunk.trace;
  std::ofstream(f.base + ".oracle.csv") << f.oracle_csv;
  std::ofstream(f.base + ".backend.out") << f.back_end_output;
  if (!std::ofstream(f.base + ".backend.out", std::ios::app)) return false;
  if (!f.svg.empty()) std::ofstream(f.base + ".svg") << f.svg;
  if (!f.vcd.empty()) std::ofstream(f.base + ".vcd") << f.vcd;
  return true;
}

Diagnostic note_of(const std::string &rule, const std::string &message, const std::string &rendered) {
  Diagnostic d;
  d.severity = Sev::Note;
  d.rule = rule;
  d.message = message;
  d.rendered = rendered;
  return d;
}

}  // namespace

std::string BackEnd::name() const { return command.empty() ? builtin + ", built in" : command; }

Result<DiffReport> diff_campaign(const DiffCampaign &c, const std::function<void(const DiffFailure &)> &on_failure) try {
  const bool generated = c.file.empty();
  if (c.back_end.builtin.empty() == c.back_end.command.empty())
    return failure(kFrontendError, "rml diff: error: give one back end: --backend worklist|kleene|compiled|stream|cpp, or --backend-cmd 'CMD {program} {inputs} > {outputs}'\n");
  if (!c.back_end.builtin.empty() && !is_builtin(c.back_end.builtin))
    return failure(kFrontendError, "rml diff: error: --backend: expected worklist, kleene, compiled, stream or cpp, got '" + c.back_end.builtin + "'\n");
  if (!generated && (c.keep_going || c.shard_count > 1))
    return failure(kFrontendError, "rml diff: error: --keep-going and --shard are for generated programs (--count), not a given one\n");
  if (c.shard_index < 1 || c.shard_index > c.shard_count)
    return failure(kFrontendError, "rml diff: error: --shard: expected K/N with 1 <= K <= N\n");
  const gen::GenOptions gen_options = gen_options_of(c.generate);
  {
    std::string why;
    if (generated && !gen_sizes_valid(gen_options, why)) return failure(kFrontendError, "rml diff: error: " + why + "\n");
    if (generated && c.count < 1) return failure(kFrontendError, "rml diff: error: --count: expected 1 or more\n");
    if (c.check_every < 0) return failure(kFrontendError, "rml diff: error: --check-every: expected 0 or more\n");
    if (!(c.back_end.timeout_seconds >= 0) || !(c.shrink_seconds >= 0))
      return failure(kFrontendError, "rml diff: error: a time limit must be 0 (the default) or more seconds\n");
  }
  std::error_code ec;
  if (!c.dir.empty()) fs::create_directories(c.dir, ec);
  // The scratch folder under $TMPDIR (std::filesystem's temporary directory), not /tmp.
  std::error_code tec;
  std::string tmpl = (fs::temp_directory_path(tec) / "rml-diff-XXXXXX").string();
  const char *work = tec ? nullptr : ::mkdtemp(tmpl.data());
  if (ec || !work)
    return failure(kFrontendError, "rml diff: error: " + (ec ? "cannot make the folder '" + c.dir + "': " + ec.message()
                                                             : "cannot make a scratch folder '" + tmpl + "' (TMPDIR)") + "\n");
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{work};
  if (!c.dir.empty()) clear_earlier_results(c.dir, {c.file, c.trace_file});
  const bool lustre = generated ? c.generate.lustre : fs::path(c.file).extension() == ".lus";
  Session s(c, work, lustre);
  // Printing a shrinking candidate in the back end's dialect, and reading one back.
  diff::ShrinkHooks hooks = diff::case_hooks(lustre);

  const diff::Shard shard{c.shard_index, c.shard_count};
  diff::Summary summary;
  summary.seed = c.seed;
  summary.shard = shard;
  summary.count = generated ? c.count : 1;
  summary.backend = c.back_end.name();
  DiffReport report;
  // A generated campaign's summary, whatever the outcome (merge_campaigns reads it).
  auto ended = [&](int code, const std::string &printed) {
    report.programs = summary.programs, report.unconfirmed = summary.unconfirmed;
    report.cells = summary.cells, report.unknown = summary.unknown, report.stopped = summary.stopped;
    if (generated) {
      report.summary_tsv = diff::write_summary(summary);
      if (!c.dir.empty()) std::ofstream(c.dir + "/summary.tsv") << report.summary_tsv;
    }
    report.exit_code = code;
    if (!printed.empty()) report.ended_by = failure(code, printed);
    return report;
  };

  // This run's programs: all of a given file's one, or the shard's share of count.
  std::vector<uint64_t> mine;
  for (int k = 0; k < (generated ? c.count : 1); ++k)
    if (shard.holds(static_cast<uint64_t>(k))) mine.push_back(static_cast<uint64_t>(k));
  const std::string shard_note = shard.count > 1 ? " (shard " + shard.text() + " of " + std::to_string(c.count) + ")" : "";
  int refused = 0;
  // An exception from a callback (or a stage) ends the campaign with its summary written.
  try {
  for (size_t n = 0; n < mine.size(); ++n) {
    const uint64_t k = mine[n];
    if (n && c.progress) c.progress(n, mine.size(), summary.failures.size());
    diff::Case cs;
    diff::Acceptance drawn;
    std::string main = c.main, label;
    if (!generated) {
      cs = {c.program, c.trace};
      label = c.file;
    } else {
      const uint64_t seed = gen::program_seed(c.seed, k);
      gen::GeneratedProgram p;
      std::ostringstream refusals;
      bool ok = draw_accepted(seed, gen_options, s.budget(), p, refused, refusals, &drawn, checked_draw(k, c.check_every));
      if (c.note)
        for (auto &d : from_text(refusals.str())) c.note(d);
      if (!ok) return ended(kUnknown, "rml diff: error: 50 draws for program " + std::to_string(k) + " were all refused by rml-check\n");
      cs = {p.text, gen::generate_trace(p, seed, c.generate.cycles)};
      main = p.main;
      label = "program " + std::to_string(k) + " of seed " + std::to_string(c.seed);
    }
    Outcome o = s.run(cs, main, generated ? &drawn : nullptr);
    if (o.kind == Outcome::Unusable) {
      diff::Acceptance a = diff::accept(generated ? "<generated>" : c.file, cs.program, main, s.budget());
      return ended(a.rc ? a.rc : kUnknown, (a.why.empty() ? o.message : a.why) + "rml diff: error[diff.unchecked]: " + label +
                                              " is not accepted by rml-check, so it has no one meaning to compare\n");
    }
    diff::Acceptance a0;
    if (o.kind != Outcome::Equal) {
      // A failure counts only on a program rml-check accepts: a draw it did not check
      // (check_every) is checked now.
      a0 = diff::accept("<case>", cs.program, main, s.budget());
      if (!a0.accepted) {
        std::string msg = label + " fails, but rml-check does not accept it (" + (a0.rc == kUnknown ? "unknown" : "rejected") +
                          "), so it has no one meaning to compare: left out";
        if (c.note) c.note(note_of("diff.unconfirmed", msg, "rml diff: note: " + msg + "\n"));
        ++summary.unconfirmed;
        continue;
      }
    }
    ++summary.programs;
    summary.cells += o.compared;
    summary.unknown += o.unknown;
    if (o.kind == Outcome::Equal) continue;

    // A failure: shrink it, keeping the kind of failure (a difference stays a difference).
    if (c.shrink && c.note) {
      std::string msg = label + (o.kind == Outcome::Differs ? " differs" : " fails") + "; shrinking it (at most 2000 candidates" +
                        (c.shrink_seconds > 0 ? " or " + std::to_string(static_cast<int>(c.shrink_seconds)) + " s" : "") + ")";
      c.note(note_of("diff.shrinking", msg, "rml diff: " + msg + "\n"));
    }
    DiffFailure rec;
    rec.program = k;
    rec.label = label;
    rec.main = a0.main;
    rec.extension = s.ext();
    rec.equations_found = diff::count_equations(hooks, cs.program);
    rec.cycles_found = diff::count_cycles(cs.trace);
    const Outcome::Kind kind = o.kind;
    diff::ShrinkStats st;
    diff::Case small = cs;
    if (c.shrink) {
      hooks.main = rec.main;
      hooks.fails = [&](const diff::Case &cand) { return s.run(cand, rec.main).kind == kind; };
      diff::ShrinkLimits lim;
      lim.seconds = c.shrink_seconds;
      small = diff::shrink(cs, hooks, lim, st);
    }
    Outcome f = s.run(small, rec.main);  // the shrunk case, run again: the report and the files describe it
    diff::Acceptance af = diff::accept("<case>", small.program, rec.main, s.budget());
    rec.folder = c.keep_going ? "fail_" + std::to_string(k) : ".";
    rec.shrunk = {small.program, small.trace};
    rec.tried = st.tried, rec.kept = st.kept, rec.stopped_at_limit = st.stopped_at_limit;
    rec.differs = kind == Outcome::Differs;
    rec.oracle_csv = f.oracle_csv;
    rec.back_end_output = f.backend_output;
    if (f.kind == Outcome::Differs) {
      rec.chronogram = side_by_side_text(small, f, af.outputs);
      // The same chronogram as a drawing and a waveform (the first difference marked in
      // the drawing).
      formats::ChronogramTable t = side_by_side(small, f, af.outputs);
      std::vector<formats::CellMark> marks;
      auto col = std::find(t.names.begin(), t.names.end(), f.difference.var + "_backend");
      if (f.difference.kind == diff::Difference::Cell && col != t.names.end())
        marks.push_back({static_cast<size_t>(col - t.names.begin()), f.difference.cycle});
      try {
        rec.svg = formats::write_svg(t, "rml diff: " + label, marks);
      } catch (formats::SvgError &) {
        // too long to draw: the CSV files hold it
      }
      try {
        rec.vcd = formats::write_vcd(t, rec.main, "rml diff: " + label);
      } catch (formats::VcdError &) {
        // values a waveform cannot hold (enumerations): the CSV files and the drawing hold them
      }
    }
    // What the shrunk case shows (its kind is the found one's: shrinking keeps it).
    rec.fails_again = f.kind != Outcome::Equal;
    rec.what = f.kind == Outcome::Differs ? "the back end differs from the oracle: " + f.difference.describe()
             : f.kind == Outcome::Equal   ? "the shrunk case no longer fails when run again (a back end that does not always fail alike)"
                                          : f.message;
    rec.first = f.kind == Outcome::Differs ? f.difference.describe() : rec.what;
    rec.equations = diff::count_equations(hooks, small.program);
    rec.cycles = diff::count_cycles(small.trace);
    if (f.kind != Outcome::Differs) rec.chronogram.clear();
    diff::Failure row;
    row.program = k;
    row.kind = rec.differs ? "differs" : "fails";
    row.first = rec.first;
    row.equations = rec.equations;
    row.cycles = rec.cycles;
    row.folder = rec.folder;
    row.program_text = small.program;
    summary.failures.push_back(row);
    if (!c.dir.empty() && !write_failure_files(rec, c.dir)) {
      report.failures.push_back(rec);
      return ended(kFrontendError, "rml diff: error: cannot write the counterexample's files in '" +
                                       (rec.folder == "." ? c.dir : c.dir + "/" + rec.folder) + "'\n");
    }
    if (on_failure) on_failure(rec);
    // Kept for the report without what on_failure had to write.
    rec.chronogram.clear(), rec.oracle_csv.clear(), rec.back_end_output.clear(), rec.svg.clear(), rec.vcd.clear();
    report.failures.push_back(std::move(rec));
    if (!c.keep_going) {
      summary.stopped = n + 1 < mine.size();
      return ended(kFalsified, "");
    }
  }
  } catch (std::bad_alloc &) {
    throw;
  } catch (std::exception &e) {
    ended(kUnknown, "");
    return failure(kUnknown, std::string("rml diff: error: ") + e.what() + "\n");
  } catch (...) {
    ended(kUnknown, "");
    return failure(kUnknown, "rml diff: error: a callback stopped the campaign\n");
  }
  const int ran = summary.programs;
  std::string last;
  if (summary.unconfirmed)
    last += "rml diff: " + std::to_string(summary.unconfirmed) + " draw" + (summary.unconfirmed == 1 ? "" : "s") +
            " not confirmed by rml-check left out (each said above)\n";
  if (summary.failures.empty()) {
    last += "rml diff: " + std::to_string(ran) + " program" + (ran == 1 ? "" : "s") + shard_note + ", all equal (" +
            std::to_string(summary.cells) + " output cells compared, " + std::to_string(summary.unknown) +
            " unknown cells of the oracle excluded; back end: " + summary.backend + ")\n";
    DiffReport r = ended(summary.unconfirmed ? kUnknown : kOk, "");  // a failure left out is not "all equal"
    r.final_lines = last;
    return r;
  }
  auto dup = diff::same_as(summary.failures);
  int distinct = static_cast<int>(std::count(dup.begin(), dup.end(), -1));
  last += "rml diff: " + std::to_string(ran) + " program" + (ran == 1 ? "" : "s") + shard_note + ", " + std::to_string(summary.failures.size()) +
          " failed (" + std::to_string(distinct) + " distinct: " + (c.shrink ? "shrunk programs" : "programs") + " that differ), " +
          std::to_string(summary.cells) + " output cells compared, " + std::to_string(summary.unknown) +
          " unknown cells of the oracle excluded; back end: " + summary.backend + "\n" +
          diff::failure_table(summary.failures, std::vector<std::string>(summary.failures.size(), c.dir)) + (c.dir.empty() ? "" : "summary: " + c.dir + "/summary.tsv\n");
  DiffReport r = ended(kFalsified, "");
  r.final_lines = last;
  return r;
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml diff: error: out of memory\n");
} catch (std::exception &e) {
  return failure(kUnknown, std::string("rml diff: error: ") + e.what() + "\n");
}

Result<MergedCampaign> merge_campaigns(const std::vector<std::string> &dirs) try {
  std::ostringstream out, err;
  int rc = diff::merge_summaries(dirs, out, err);
  if (rc == kFrontendError) return failure(rc, err.str());
  return MergedCampaign{out.str(), rc};
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml diff: error: out of memory\n");
} catch (std::exception &e) {
  return failure(kUnknown, std::string("rml diff: error: ") + e.what() + "\n");
}

}  // namespace rml::api
