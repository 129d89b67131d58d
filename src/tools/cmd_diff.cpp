// rml diff: a back end against the oracle on given or generated programs and traces. A
// difference (or a back end that crashes, hangs or prints something that is not a
// chronogram) is shrunk to a small program and trace that still fail, printed as a
// chronogram with the first differing cell, and written as files that replay it.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "codegen/emit_cpp.hpp"
#include "diff/accept.hpp"
#include "diff/backend.hpp"
#include "diff/campaign.hpp"
#include "diff/case_hooks.hpp"
#include "tools/cmd_diff.hpp"
#include "diff/shrink.hpp"
#include "formats/svg.hpp"
#include "formats/vcd.hpp"
#include "sema/frontend.hpp"
#include "tools/commands.hpp"
#include "driver/progress.hpp"

namespace rml {

namespace {

namespace fs = std::filesystem;

struct Outcome {
  enum Kind { Equal, Differs, BackendFailed, Unusable } kind = Equal;
  diff::Difference difference;
  std::string message;  // BackendFailed: how; Unusable: why the case has no meaning (not accepted)
  diff::Chronogram oracle, backend;
  std::string backend_output;
  size_t compared = 0, unknown = 0;
};

class Session {
 public:
  Session(const DiffCmd &c, std::string work, bool lustre) : c_(c), work_(std::move(work)), lustre_(lustre) {
    if (!c.backend_cmd.empty()) {
      cmd_.tmpl = c.backend_cmd;
    } else if (c.backend == "cpp") {
      // rml compile's step class and its CSV driver (rml_csv_main.cpp), built with the
      // system's C++ compiler and run on the trace.
      cmd_.tmpl = "d=\"$(dirname {outputs})/cpp\" && rm -rf \"$d\" && " + diff::shell_quote(c.self) +
                  " compile {program} --main {main} -o \"$d\" >/dev/null && ${CXX:-c++} -std=c++20 -O1 -w " + codegen::kExactFlags + " -I\"$d\" "
                  "-I\"$d/runtime\" \"$d\"/*.cpp \"$d/runtime/ops/special.cpp\" -o \"$d/run\" && \"$d/run\" {inputs}";
    } else {
      std::string flags = c.backend == "kleene" ? " --solver kleene" : c.backend == "compiled" ? " --backend compiled"
                        : c.backend == "stream" ? " --backend stream" : "";
      cmd_.tmpl = diff::shell_quote(c.self) + " run {program} --main {main} --inputs {inputs} --format csv" + flags;
    }
    // stream and cpp check the program again (rml-check: Spacer can take seconds on resets).
    cmd_.timeout_s = c.timeout_s > 0 ? c.timeout_s : c.backend == "cpp" || c.backend == "stream" ? 120 : 10;
  }
  const diff::BackendCommand &command() const { return cmd_; }
  const char *ext() const { return lustre_ ? ".lus" : ".rml"; }

  // Runs one case: accepted by rml-check, the oracle's chronogram, the back end's.
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
    RunCmd r;
    r.file = prog;
    r.main_node = a.main;
    r.inputs = in;
    r.format = oracle::Format::Csv;
    r.show = a.outputs;
    std::ostringstream oout, oerr;
    int rc = cmd_run(r, oout, oerr);
    std::string why;
    auto oracle = diff::read_chronogram(oout.str(), why);
    if ((rc != kOk && rc != kFalsified) || !oracle) {
      o.kind = Outcome::Unusable;
      o.message = "the oracle did not run the case: " + oerr.str();
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
    o.difference = diff::compare(o.oracle, o.backend, a.outputs, c_.tolerance);
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
      diff::Acceptance a = diff::accept("<case>", program, main, c_.check_budget);
      it = accepted_.emplace(key, Accepted{a.accepted, a.why, a.main, a.outputs}).first;
    }
    return it->second;
  }

  static std::string first_lines(const std::string &s, int n) {
    size_t at = 0;
    for (int i = 0; i < n && at != std::string::npos; ++i) at = s.find('\n', at + 1);
    return at == std::string::npos ? s : s.substr(0, at) + "\n...";
  }

 private:
  const DiffCmd &c_;
  std::string work_;
  bool lustre_;
  diff::BackendCommand cmd_;
  std::map<std::pair<std::string, std::string>, Accepted> accepted_;
};

// The chronogram of a failing case: inputs, then each output as the oracle and the back
// end give it, the first differing cell marked with '*'.
std::string chronogram(const diff::Case &k, const Outcome &o, const std::vector<std::string> &outputs) {
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

// Inputs, then for each output its oracle column (`o`) and back-end column (`o_backend`).
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

}  // namespace

int cmd_diff(const DiffCmd &c, std::ostream &out, std::ostream &err) {
  if (!c.merge.empty()) return diff::merge_summaries(c.merge, out, err);
  if (c.backend.empty() == c.backend_cmd.empty()) {
    err << "rml diff: error: give one back end: --backend worklist|kleene|compiled|stream|cpp, or --backend-cmd 'CMD {program} {inputs} > {outputs}'\n";
    return kFrontendError;
  }
  static const char *builtins[] = {"worklist", "kleene", "compiled", "stream", "cpp"};
  if (!c.backend.empty() && std::find(std::begin(builtins), std::end(builtins), c.backend) == std::end(builtins)) {
    err << "rml diff: error: --backend: expected worklist, kleene, compiled, stream or cpp, got '" << c.backend << "'\n";
    return kFrontendError;
  }
  if (!c.file.empty() && c.inputs.empty()) {
    err << "rml diff: error: a given program needs its trace: --inputs TRACE.csv\n";
    return kFrontendError;
  }
  if (!c.file.empty() && (c.keep_going || c.shard.count > 1)) {
    err << "rml diff: error: --keep-going and --shard are for generated programs (--count), not a given one\n";
    return kFrontendError;
  }
  std::error_code ec;
  fs::create_directories(c.out_dir, ec);
  // The scratch folder under $TMPDIR (std::filesystem's temporary directory), not /tmp.
  std::error_code tec;
  std::string tmpl = (fs::temp_directory_path(tec) / "rml-diff-XXXXXX").string();
  const char *work = tec ? nullptr : ::mkdtemp(tmpl.data());
  if (ec || !work) {
    err << "rml diff: error: " << (ec ? "cannot make the folder '" + c.out_dir + "': " + ec.message()
                                       : "cannot make a scratch folder '" + tmpl + "' (TMPDIR)") << "\n";
    return kFrontendError;
  }
  struct Cleanup {
    std::string dir;
    ~Cleanup() {
      std::error_code e;
      fs::remove_all(dir, e);
    }
  } cleanup{work};
  clear_earlier_results(c.out_dir, {c.file, c.inputs});
  bool lustre = c.file.empty() ? c.options.dialect == gen::Dialect::Lustre
                               : fs::path(c.file).extension() == ".lus";
  Session s(c, work, lustre);

  // Printing a shrinking candidate in the back end's dialect, and reading one back.
  diff::ShrinkHooks hooks = diff::case_hooks(lustre);

  gen::GenOptions gen_options = c.options;
  const bool generated = c.file.empty();
  const std::string backend_name = c.backend.empty() ? s.command().tmpl : c.backend + ", built in";
  diff::Summary summary;
  summary.seed = c.seed;
  summary.shard = c.shard;
  summary.count = generated ? c.count : 1;
  summary.backend = backend_name;

  // This run's programs: all of a given file's one, or the shard's share of --count.
  std::vector<uint64_t> mine;
  for (int k = 0; k < (generated ? c.count : 1); ++k)
    if (c.shard.holds(static_cast<uint64_t>(k))) mine.push_back(static_cast<uint64_t>(k));
  const std::string shard_note = c.shard.count > 1 ? " (shard " + c.shard.text() + " of " + std::to_string(c.count) + ")" : "";

  int refused = 0;
  Progress progress(err, "rml diff", !c.quiet);
  // A generated campaign's summary, written whatever the outcome (rml diff --merge reads it).
  auto write_summary = [&] {
    if (generated) std::ofstream(c.out_dir + "/summary.tsv") << diff::write_summary(summary);
  };
  for (size_t n = 0; n < mine.size(); ++n) {
    const uint64_t k = mine[n];
    if (n) {
      char rate[32];
      std::snprintf(rate, sizeof rate, "%.2f", static_cast<double>(n) / std::max(progress.seconds(), 1e-9));
      progress.update(std::to_string(n) + "/" + std::to_string(mine.size()) + " programs, " + std::to_string(summary.failures.size()) +
                      " failed (" + rate + " programs/s)");
    }
    diff::Case cs;
    diff::Acceptance drawn;
    std::string main = c.main_node, label;
    uint64_t seed = 0;
    if (!generated) {
      std::string io;
      auto text = read_file(c.file, io), trace = read_file(c.inputs, io);
      if (!text || !trace) {
        err << "rml: error: " << io << "\n";
        return kFrontendError;
      }
      cs = {*text, *trace};
      label = c.file;
    } else {
      seed = gen::program_seed(c.seed, k);
      gen::GeneratedProgram p;
      if (!draw_accepted(seed, gen_options, c.check_budget, p, refused, err, &drawn, checked_draw(k, c.check_every))) {
        err << "rml diff: error: 50 draws for program " << k << " were all refused by rml-check\n";
        write_summary();
        return kUnknown;
      }
      cs = {p.text, gen::generate_trace(p, seed, c.options.cycles)};
      main = p.main;
      label = "program " + std::to_string(k) + " of seed " + std::to_string(c.seed);
    }
    Outcome o = s.run(cs, main, generated ? &drawn : nullptr);
    if (o.kind == Outcome::Unusable) {
      diff::Acceptance a = diff::accept(generated ? "<generated>" : c.file, cs.program, main, c.check_budget);
      err << (a.why.empty() ? o.message : a.why);
      err << "rml diff: error[diff.unchecked]: " << label << " is not accepted by rml-check, so it has no one meaning to compare\n";
      write_summary();
      return a.rc ? a.rc : kUnknown;
    }
    diff::Acceptance a0;
    if (o.kind != Outcome::Equal) {
      // A failure counts only on a program rml-check accepts: a draw it did not check
      // (--check-every) is checked now.
      a0 = diff::accept("<case>", cs.program, main, c.check_budget);
      if (!a0.accepted) {
        progress.done();
        err << "rml diff: note: " << label << " fails, but rml-check does not accept it ("
            << (a0.rc == kUnknown ? "unknown" : "rejected") << "), so it has no one meaning to compare: left out\n";
        ++summary.unconfirmed;
        continue;
      }
    }
    ++summary.programs;
    summary.cells += o.compared;
    summary.unknown += o.unknown;
    if (o.kind == Outcome::Equal) continue;

    // A failure: shrink it, keeping the kind of failure (a difference stays a difference).
    progress.done();
    if (!c.quiet && c.shrink)
      err << "rml diff: " << label << (o.kind == Outcome::Differs ? " differs" : " fails") << "; shrinking it (at most 2000 candidates"
          << (c.shrink_seconds > 0 ? " or " + std::to_string(static_cast<int>(c.shrink_seconds)) + " s" : "") << ")\n";
    const std::string main_name = a0.main;
    const int eqs0 = diff::count_equations(hooks, cs.program), cyc0 = diff::count_cycles(cs.trace);
    const Outcome::Kind kind = o.kind;
    diff::ShrinkStats st;
    diff::Case small = cs;
    if (c.shrink) {
      hooks.main = main_name;
      hooks.fails = [&](const diff::Case &cand) { return s.run(cand, main_name).kind == kind; };
      diff::ShrinkLimits lim;
      lim.seconds = c.shrink_seconds;
      small = diff::shrink(cs, hooks, lim, st);
    }
    Outcome f = s.run(small, main_name);  // the shrunk case, run again: the report and the files describe it
    diff::Acceptance af = diff::accept("<case>", small.program, main_name, c.check_budget);
    // --keep-going: each failure in its own folder, DIR/fail_K.
    const std::string folder = c.keep_going ? "fail_" + std::to_string(k) : ".";
    const std::string dir = folder == "." ? c.out_dir : c.out_dir + "/" + folder;
    fs::create_directories(dir, ec);
    std::string base = dir + "/cex";
    std::ofstream(base + s.ext()) << small.program;
    std::ofstream(base + ".csv") << small.trace;
    std::ofstream(base + ".oracle.csv") << [&] {
      std::string t;
      for (size_t i = 0; i < f.oracle.columns.size(); ++i) t += (i ? "," : "") + f.oracle.columns[i];
      t += "\n";
      for (auto &r : f.oracle.rows) {
        for (size_t i = 0; i < r.size(); ++i) t += (i ? "," : "") + r[i];
        t += "\n";
      }
      return t;
    }();
    std::ofstream(base + ".backend.out") << f.backend_output;
    if (!std::ofstream(base + ".backend.out", std::ios::app)) {
      err << "rml diff: error: cannot write the counterexample's files in '" << dir << "'\n";
      return kFrontendError;
    }
    // The same chronogram as a waveform and a drawing (inputs, then each output as the
    // oracle and the back end give it; the first difference marked in the drawing).
    std::string pictures;
    if (f.kind == Outcome::Differs) {
      formats::ChronogramTable t = side_by_side(small, f, af.outputs);
      std::vector<formats::CellMark> marks;
      auto col = std::find(t.names.begin(), t.names.end(), f.difference.var + "_backend");
      if (f.difference.kind == diff::Difference::Cell && col != t.names.end())
        marks.push_back({static_cast<size_t>(col - t.names.begin()), f.difference.cycle});
      try {
        std::string svg = formats::write_svg(t, "rml diff: " + label, marks);
        std::ofstream(base + ".svg") << svg;
        pictures = ", " + base + ".svg";
      } catch (formats::SvgError &) {
        // too long to draw: the CSV files hold it
      }
      try {
        std::string vcd = formats::write_vcd(t, main_name, "rml diff: " + label);
        std::ofstream(base + ".vcd") << vcd;
        pictures += ", " + base + ".vcd";
      } catch (formats::VcdError &) {
        // values a waveform cannot hold (enumerations): the CSV files and the drawing hold them
      }
    }
    // What the shrunk case shows (its kind is the found one's: shrinking keeps it).
    const std::string what = f.kind == Outcome::Differs ? "the back end differs from the oracle: " + f.difference.describe()
                           : f.kind == Outcome::Equal   ? "the shrunk case no longer fails when run again (a back end that does not always fail alike)"
                                                        : f.message;
    diff::Failure rec;
    rec.program = k;
    rec.kind = kind == Outcome::Differs ? "differs" : "fails";
    rec.first = f.kind == Outcome::Differs ? f.difference.describe() : what;
    rec.equations = diff::count_equations(hooks, small.program);
    rec.cycles = diff::count_cycles(small.trace);
    rec.folder = folder;
    rec.program_text = small.program;
    summary.failures.push_back(rec);

    out << "rml diff: " << label << ": " << what << "\n";
    if (c.shrink)
      out << "shrunk from " << eqs0 << " equations and " << cyc0 << " cycles to " << rec.equations << " equations and " << rec.cycles
          << " cycles (" << st.tried << " candidates tried, " << st.kept << " kept"
          << (st.stopped_at_limit ? "; stopped at the shrinking limit" : "") << "):\n";
    out << "\n" << small.program << "\n";
    if (f.kind == Outcome::Differs) {
      out << chronogram(small, f, af.outputs) << "\n";
      out << "first difference: " << f.difference.describe() << "\n";
    } else {
      out << f.message << "\n";
    }
    out << "files: " << base << s.ext() << " (program), " << base << ".csv (trace), " << base << ".oracle.csv, " << base
        << ".backend.out" << pictures << "\n";
    out << "replay: rml diff " << base << s.ext() << " --inputs " << base << ".csv --main " << main_name
        << (c.backend_cmd.empty() ? " --backend " + c.backend : " --backend-cmd " + diff::shell_quote(c.backend_cmd)) << "\n";
    if (!c.keep_going) {
      summary.stopped = n + 1 < mine.size();
      write_summary();
      return kFalsified;
    }
    out << "\n";
  }
  progress.done();
  write_summary();
  const int ran = summary.programs;
  if (summary.unconfirmed)
    out << "rml diff: " << summary.unconfirmed << " draw" << (summary.unconfirmed == 1 ? "" : "s")
        << " not confirmed by rml-check left out (each said above)\n";
  if (summary.failures.empty()) {
    out << "rml diff: " << ran << " program" << (ran == 1 ? "" : "s") << shard_note << ", all equal (" << summary.cells
        << " output cells compared, " << summary.unknown << " unknown cells of the oracle excluded; back end: " << backend_name << ")\n";
    return summary.unconfirmed ? kUnknown : kOk;  // a failure left out is not "all equal"
  }
  auto dup = diff::same_as(summary.failures);
  int distinct = static_cast<int>(std::count(dup.begin(), dup.end(), -1));
  out << "rml diff: " << ran << " program" << (ran == 1 ? "" : "s") << shard_note << ", " << summary.failures.size() << " failed ("
      << distinct << " distinct: " << (c.shrink ? "shrunk programs" : "programs") << " that differ), " << summary.cells << " output cells compared, " << summary.unknown
      << " unknown cells of the oracle excluded; back end: " << backend_name << "\n"
      << diff::failure_table(summary.failures, std::vector<std::string>(summary.failures.size(), c.out_dir))
      << "summary: " << c.out_dir << "/summary.tsv\n";
  return kFalsified;
}

}  // namespace rml
