// api::diff_campaign and api::merge_campaigns (`rml diff`), as a harness calls them: a
// back end run as a command against the oracle, its failures reported with their files,
// a campaign split in shards and merged, and what the campaign refuses.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include <unistd.h>

#include "rml/rml.hpp"

namespace api = rml::api;
namespace fs = std::filesystem;

namespace {

const char *kCounter = R"(node counter(x: int, c: bool) -> (s: int)
let
  s = 0 -> pre s + (if c then x else 0);
tel
)";
const char *kCounterTrace = "x,c\n1,T\n2,F\n3,T\n4,T\n";

std::string slurp(const fs::path &p) {
  std::ifstream in(p);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// A fresh folder of the test's own under the build's temporary directory.
fs::path scratch(const std::string &name) {
  fs::path d = fs::temp_directory_path() / ("rml-api-diff-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  return d;
}

// The oracle run as `rml run` on the case, its CSV piped through `sed EXPR`: a back end
// whose fault is known.
api::BackEnd sed_back_end(const std::string &expr) {
  api::BackEnd b;
  b.timeout_seconds = 3600;  // a limit for a hang only: a busy machine must not turn a slow run into a failure
  b.command = std::string("'") + RML_EXE + "' run {program} --main {main} --inputs {inputs} --format csv | sed '" + expr + "'";
  return b;
}

api::DiffCampaign given(const fs::path &dir, const api::BackEnd &b) {
  api::DiffCampaign c;
  c.back_end = b;
  c.file = "counter.rml";
  c.program = kCounter;
  c.trace = kCounterTrace;
  c.dir = dir.string();
  return c;
}

}  // namespace

// A back end that writes one wrong cell: the failure is reported at that cell (s at
// cycle 2: the oracle's 3, the back end's 9), shrunk to a case that still shows it, and
// its files written: the program, the trace, the oracle's CSV (rml run's text on the
// shrunk case), the back end's output, a drawing. Negative control: the right back end
// (sed changing nothing) gives no failure and no files.
TEST(DiffCampaign, AWrongCellIsReportedShrunkAndWritten) {
  fs::path dir = scratch("cell");
  std::vector<api::DiffFailure> seen;
  std::vector<std::string> notes;
  api::DiffCampaign wrong = given(dir, sed_back_end("s/^3,T,3$/3,T,9/"));
  wrong.note = [&](const api::Diagnostic &d) { notes.push_back(d.rule); };
  auto r = api::diff_campaign(wrong, [&](const api::DiffFailure &f) { seen.push_back(f); });
  EXPECT_EQ(notes, std::vector<std::string>{"diff.shrinking"});
  ASSERT_TRUE(r.ok()) << r.failure().text();
  EXPECT_FALSE(r->ended_by) << r->ended_by->text();
  EXPECT_EQ(r->exit_code, 1);
  ASSERT_EQ(seen.size(), 1u);
  const api::DiffFailure &f = seen[0];
  EXPECT_TRUE(f.differs);
  EXPECT_EQ(f.label, "counter.rml");
  EXPECT_EQ(f.first, "'s' at cycle 2: the oracle says 3, the back end 9") << f.first;
  EXPECT_EQ(f.folder, ".");
  EXPECT_EQ(f.cycles_found, 4);
  EXPECT_LE(f.cycles, 3);  // the trace cut after the differing cycle at most
  EXPECT_NE(f.chronogram.find("9*"), std::string::npos) << f.chronogram;
  EXPECT_FALSE(f.svg.empty());
  EXPECT_EQ(f.base, (dir / "cex").string());
  EXPECT_EQ(slurp(dir / "cex.rml"), f.shrunk.program);
  EXPECT_EQ(slurp(dir / "cex.csv"), f.shrunk.trace);
  EXPECT_EQ(slurp(dir / "cex.backend.out"), f.back_end_output);
  EXPECT_EQ(slurp(dir / "cex.svg"), f.svg);
  // The oracle's file is rml run's CSV of the shrunk case.
  auto p = api::load_text("cex.rml", f.shrunk.program, {f.main, {}});
  ASSERT_TRUE(p.ok()) << p.failure().text();
  api::RunOptions o;
  o.show = {"s"};
  auto run = api::run_trace(*p, "cex.csv", f.shrunk.trace, o);
  ASSERT_TRUE(run.ok()) << run.failure().text();
  EXPECT_EQ(slurp(dir / "cex.oracle.csv"), run->chronogram.csv());
  ASSERT_EQ(r->failures.size(), 1u);
  EXPECT_TRUE(r->failures[0].svg.empty()) << "the report keeps no pictures";
  EXPECT_EQ(r->failures[0].first, f.first);

  fs::path clean = scratch("clean");
  auto ok = api::diff_campaign(given(clean, sed_back_end("s/^$//")), [&](const api::DiffFailure &) { ADD_FAILURE(); });
  ASSERT_TRUE(ok.ok()) << ok.failure().text();
  EXPECT_EQ(ok->exit_code, 0);
  EXPECT_EQ(ok->programs, 1);
  EXPECT_EQ(ok->cells, 4u);
  EXPECT_EQ(ok->final_lines.rfind("rml diff: 1 program, all equal (4 output cells compared, 0 unknown", 0), 0u) << ok->final_lines;
  EXPECT_FALSE(fs::exists(clean / "cex.rml"));
  fs::remove_all(dir);
  fs::remove_all(clean);
}

// Shards of a generated campaign hold the programs k with k mod N = K - 1 under their
// campaign numbers; a back end that crashes on every program with a merge fails on the
// same programs whichever shard runs them, and the merged summaries are the campaign of
// one run. Without a folder nothing is written.
TEST(DiffCampaign, ShardsMergeIntoTheCampaignOfOneRun) {
  api::BackEnd crash;
  crash.timeout_seconds = 3600;  // as sed_back_end's
  crash.command = std::string("grep -q 'merge ' {program} && kill -SEGV $$ || '") + RML_EXE +
                  "' run {program} --main {main} --inputs {inputs} --format csv";
  auto campaign = [&](int k, int n, const fs::path &dir) {
    api::DiffCampaign c;
    c.back_end = crash;
    c.seed = 1, c.count = 8;
    c.generate.size = 3, c.generate.cycles = 4;
    c.keep_going = true, c.shrink = false;
    c.shard_index = k, c.shard_count = n;
    c.dir = dir.string();
    return c;
  };
  fs::path whole = scratch("whole");
  std::vector<uint64_t> failed_whole;
  auto all = api::diff_campaign(campaign(1, 1, whole), [&](const api::DiffFailure &f) { failed_whole.push_back(f.program); });
  ASSERT_TRUE(all.ok()) << all.failure().text();
  ASSERT_FALSE(failed_whole.empty());
  EXPECT_LT(failed_whole.size(), 8u) << "a program without a merge is equal";
  std::vector<uint64_t> failed_shards;
  std::vector<std::string> dirs;
  for (int k : {2, 1}) {
    fs::path d = scratch("shard" + std::to_string(k));
    dirs.push_back(d.string());
    auto r = api::diff_campaign(campaign(k, 2, d), [&](const api::DiffFailure &f) {
      EXPECT_EQ(f.program % 2, static_cast<uint64_t>(k - 1));
      EXPECT_EQ(f.folder, "fail_" + std::to_string(f.program));
      EXPECT_TRUE(fs::exists(d / f.folder / "cex.rml"));
      failed_shards.push_back(f.program);
    });
    ASSERT_TRUE(r.ok()) << r.failure().text();
    EXPECT_EQ(r->programs, 4);
    EXPECT_EQ(slurp(d / "summary.tsv"), r->summary_tsv);
  }
  std::sort(failed_shards.begin(), failed_shards.end());
  EXPECT_EQ(failed_shards, failed_whole);
  auto merged = api::merge_campaigns(dirs);
  ASSERT_TRUE(merged.ok()) << merged.failure().text();
  EXPECT_EQ(merged->exit_code, 1);
  EXPECT_NE(merged->text.find("2 of 2 shards of seed 1: 8 of 8 programs compared, " + std::to_string(failed_whole.size()) + " failed"),
            std::string::npos)
      << merged->text;
  auto half = api::merge_campaigns({dirs[0]});
  ASSERT_TRUE(half.ok());
  EXPECT_NE(half->text.find("shards missing: 1/2"), std::string::npos) << half->text;
  auto mixed = api::merge_campaigns({dirs[0], whole.string()});
  ASSERT_FALSE(mixed.ok());
  EXPECT_EQ(mixed.failure().exit_code, 2);
  EXPECT_NE(mixed.failure().text().find("are shards of different campaigns"), std::string::npos) << mixed.failure().text();

  api::DiffCampaign nowhere = campaign(1, 3, "");
  auto quiet = api::diff_campaign(nowhere, [&](const api::DiffFailure &f) { EXPECT_TRUE(f.base.empty()); });
  ASSERT_TRUE(quiet.ok()) << quiet.failure().text();
  EXPECT_EQ(quiet->programs, 3);
  for (auto &d : dirs) fs::remove_all(d);
  fs::remove_all(whole);
}

// Refused before anything runs or is written: no back end or two, an unknown built-in,
// keep_going or shards on a given program, a shard out of range. A program rml-check does
// not accept ends the campaign (diff.unchecked, exit 2: a causality error). A report that
// throws stops the campaign with its message (exit 3), before any later program.
TEST(DiffCampaign, RefusalsAndEndings) {
  fs::path dir = scratch("refused");
  struct Bad {
    std::function<void(api::DiffCampaign &)> edit;
    const char *says;
  };
  const Bad bads[] = {
      {[](api::DiffCampaign &c) { c.back_end = {}; }, "give one back end"},
      {[](api::DiffCampaign &c) { c.back_end.builtin = "stream"; }, "give one back end"},
      {[](api::DiffCampaign &c) { c.back_end = {"gpu", "", "rml", 0}; }, "expected worklist, kleene, compiled, stream or cpp, got 'gpu'"},
      {[](api::DiffCampaign &c) { c.keep_going = true; }, "--keep-going and --shard are for generated programs"},
      {[](api::DiffCampaign &c) { c.shard_count = 2; }, "--keep-going and --shard are for generated programs"},
      {[](api::DiffCampaign &c) { c.file.clear(), c.shard_index = 3, c.shard_count = 2; }, "--shard: expected K/N"},
      {[](api::DiffCampaign &c) { c.file.clear(), c.count = 0; }, "--count: expected 1 or more"},
      {[](api::DiffCampaign &c) { c.file.clear(), c.generate.depth = 9; }, "--depth 0..8"},
  };
  for (const Bad &b : bads) {
    api::DiffCampaign c = given(dir, sed_back_end("s/^$//"));
    b.edit(c);
    auto r = api::diff_campaign(c);
    ASSERT_FALSE(r.ok()) << b.says;
    EXPECT_EQ(r.failure().exit_code, 2);
    EXPECT_NE(r.failure().text().find(b.says), std::string::npos) << r.failure().text();
    EXPECT_FALSE(fs::exists(dir)) << b.says;
  }
  api::DiffCampaign cyclic = given(dir, sed_back_end("s/^$//"));
  cyclic.program = "node cyc(x: int) -> (o: int)\n  o = o + x;\n";
  cyclic.trace = "x\n1\n";
  auto r = api::diff_campaign(cyclic);
  ASSERT_TRUE(r.ok()) << r.failure().text();
  ASSERT_TRUE(r->ended_by);
  EXPECT_EQ(r->exit_code, 2);
  EXPECT_EQ(r->ended_by->exit_code, 2);
  EXPECT_EQ(r->ended_by->diagnostics.back().rule, "diff.unchecked") << r->ended_by->text();

  api::DiffCampaign gen;
  gen.back_end.command = "kill -SEGV $$";
  gen.back_end.timeout_seconds = 3600;
  gen.seed = 1, gen.count = 3, gen.shrink = false;
  gen.generate.size = 3, gen.generate.cycles = 4;
  gen.dir = (dir / "gen").string();
  // Without keep_going the first failure ends the campaign: the programs after it are not
  // run, the summary says it stopped, and there are no final lines.
  auto first = api::diff_campaign(gen);
  ASSERT_TRUE(first.ok()) << first.failure().text();
  EXPECT_EQ(first->exit_code, 1);
  EXPECT_EQ(first->programs, 1);
  EXPECT_TRUE(first->stopped);
  EXPECT_EQ(first->final_lines, "");
  EXPECT_NE(first->summary_tsv.find("stopped\tyes"), std::string::npos) << first->summary_tsv;
  gen.keep_going = true;
  int reports = 0;
  auto stopped = api::diff_campaign(gen, [&](const api::DiffFailure &) {
    ++reports;
    throw std::runtime_error("the disk is full");
  });
  ASSERT_FALSE(stopped.ok());
  EXPECT_EQ(stopped.failure().exit_code, 3);
  EXPECT_NE(stopped.failure().text().find("the disk is full"), std::string::npos) << stopped.failure().text();
  EXPECT_EQ(reports, 1);
  EXPECT_NE(slurp(dir / "gen" / "summary.tsv").find("programs\t1"), std::string::npos) << "the summary is written still";
  fs::remove_all(dir);
}
