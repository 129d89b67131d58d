// Campaigns (src/diff/campaign.*): --shard's parsing and partition, which failures are the
// same, the shards' summary.tsv written and read back, and --merge over shards, with each
// refusal (another campaign, a shard twice, a malformed or missing summary) pinned.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "diff/campaign.hpp"

using namespace rml::diff;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string &name) {
  fs::path d = fs::temp_directory_path() / ("rml-campaign-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

void write(const fs::path &p, const std::string &text) {
  fs::create_directories(p.parent_path());
  std::ofstream(p) << text;
}

Failure failure(uint64_t program, const std::string &text, const std::string &first = "'o' at cycle 0") {
  Failure f;
  f.program = program;
  f.kind = "differs";
  f.first = first;
  f.equations = 2;
  f.cycles = 1;
  f.folder = "fail_" + std::to_string(program);
  f.program_text = text;
  return f;
}

// A shard's folder as rml diff leaves it: summary.tsv and each failure's program.
void write_shard(const fs::path &dir, Summary s) {
  for (auto &f : s.failures) write(dir / f.folder / "cex.rml", f.program_text);
  write(dir / "summary.tsv", write_summary(s));
}

Summary shard(int index, int count, std::vector<Failure> fs = {}) {
  Summary s;
  s.seed = 7;
  s.shard = {index, count};
  s.count = 10;
  s.programs = 0;
  for (int k = 0; k < 10; ++k) s.programs += s.shard.holds(static_cast<uint64_t>(k));
  s.cells = 100;
  s.unknown = 1;
  s.backend = "stream, built in";
  s.failures = std::move(fs);
  return s;
}

int merge(const std::vector<fs::path> &dirs, std::string &out, std::string &err) {
  std::vector<std::string> ds;
  for (auto &d : dirs) ds.push_back(d.string());
  std::ostringstream o, e;
  int rc = merge_summaries(ds, o, e);
  out = o.str();
  err = e.str();
  return rc;
}

}  // namespace

TEST(Campaign, ShardIsParsedAtItsBounds) {
  std::string why;
  for (auto [text, k, n] : std::vector<std::tuple<std::string, int, int>>{{"1/1", 1, 1}, {"3/4", 3, 4}, {"100000/100000", 100000, 100000}}) {
    auto s = parse_shard(text, why);
    ASSERT_TRUE(s) << text;
    EXPECT_EQ(s->index, k);
    EXPECT_EQ(s->count, n);
    EXPECT_EQ(s->text(), text);
  }
  for (std::string bad : {"0/1", "2/1", "1/0", "1/100001", "1/2x", "+1/2", "-1/2", "1/", "/2", "12", "", "1/2/3", " 1/2"}) {
    why.clear();
    EXPECT_FALSE(parse_shard(bad, why)) << bad;
    EXPECT_EQ(why, "--shard: expected K/N with 1 <= K <= N <= 100000 (this run's share of the campaign: programs k with k mod N = K-1), got '" + bad + "'");
  }
}

// Law: the N shards of a campaign partition its programs: each program in exactly one.
TEST(Campaign, ShardsPartitionThePrograms) {
  for (int n : {1, 2, 3, 7}) {
    for (uint64_t k = 0; k < 50; ++k) {
      int owners = 0;
      for (int i = 1; i <= n; ++i) owners += Shard{i, n}.holds(k);
      EXPECT_EQ(owners, 1) << k << " of " << n;
    }
  }
  EXPECT_TRUE((Shard{1, 3}.holds(0)));
  EXPECT_TRUE((Shard{2, 3}.holds(1)));
  EXPECT_TRUE((Shard{3, 3}.holds(5)));
  EXPECT_FALSE((Shard{1, 3}.holds(5)));
}

TEST(Campaign, AFailureIsTheSameAsTheFirstWithItsShrunkProgram) {
  std::vector<Failure> fs{failure(2, "A"), failure(5, "B"), failure(6, "A"), failure(9, "B"), failure(11, "C")};
  EXPECT_EQ(same_as(fs), (std::vector<int>{-1, -1, 0, 1, -1}));
  EXPECT_EQ(same_as({}), std::vector<int>{});
  // The table names the earlier program, not an index.
  std::string t = failure_table(fs, std::vector<std::string>(fs.size(), "out"));
  EXPECT_NE(t.find("same as program 2"), std::string::npos) << t;
  EXPECT_NE(t.find("same as program 5"), std::string::npos) << t;
  EXPECT_NE(t.find("out/fail_11"), std::string::npos) << t;
  EXPECT_EQ(t.find("same as program 11"), std::string::npos) << t;
}

TEST(Campaign, SummaryIsReadBackAsWritten) {
  fs::path d = scratch("roundtrip");
  Summary s = shard(2, 3, {failure(1, "node main() returns (o: int)\n  o = 1;\n", "the back end\texited\nwith status 3\n")});
  s.stopped = true;
  write_shard(d, s);
  std::string why;
  auto r = read_summary(d.string(), why);
  ASSERT_TRUE(r) << why;
  EXPECT_EQ(r->seed, 7u);
  EXPECT_EQ(r->shard.text(), "2/3");
  EXPECT_EQ(r->count, 10);
  EXPECT_EQ(r->programs, 3);
  EXPECT_TRUE(r->stopped);
  EXPECT_EQ(r->cells, 100u);
  EXPECT_EQ(r->unknown, 1u);
  EXPECT_EQ(r->backend, "stream, built in");
  ASSERT_EQ(r->failures.size(), 1u);
  EXPECT_EQ(r->failures[0].program, 1u);
  EXPECT_EQ(r->failures[0].first, "the back end exited with status 3");  // tab and line break made spaces
  EXPECT_EQ(r->failures[0].program_text, "node main() returns (o: int)\n  o = 1;\n");
  EXPECT_EQ(r->failures[0].campaign, d.string());
  fs::remove_all(d);
}

TEST(Campaign, AMalformedSummaryIsRefusedWithItsLine) {
  fs::path d = scratch("malformed");
  std::string good = write_summary(shard(1, 1));
  std::string why;
  EXPECT_FALSE(read_summary(d.string(), why));  // no summary.tsv at all
  EXPECT_EQ(why, (d / "summary.tsv").string() + ": cannot read it (a folder written by rml diff over generated programs holds one)");
  auto refused = [&](const std::string &text, const std::string &want) {
    write(d / "summary.tsv", text);
    why.clear();
    EXPECT_FALSE(read_summary(d.string(), why)) << text;
    EXPECT_EQ(why, (d / "summary.tsv").string() + want) << text;
  };
  std::string no_seed = good.substr(0, good.find("seed")) + good.substr(good.find('\n', good.find("seed")) + 1);
  refused(no_seed, ": no 'seed' line");
  refused(good + "seed\t8\n", ":11: 'seed' given twice");
  refused(good + "colour\tred\n", ":11: unknown key 'colour'");
  refused("seed\t-1\n", ":1: 'seed': malformed value '-1'");
  refused("shard\t3/2\n", ":1: 'shard': malformed value '3/2'");
  refused("stopped\tmaybe\n", ":1: 'stopped': malformed value 'maybe'");
  refused("seed 7\n", ":1: expected 'key<TAB>value'");
  refused(good + "failure\t1\tdiffers\tx\t2\n", ":11: a failure line has 7 cells, this one 5");
  refused(good + "failure\tone\tdiffers\tx\t2\t1\tfail_1\n", ":11: a failure's program, equations and cycles are numbers");
  refused(good + "failure\t1\tdiffers\tx\t2\t1\tfail_1\n",
          ":11: program 1's counterexample " + (d / "fail_1" / "cex.rml").string() + " is missing");
  fs::remove_all(d);
}

TEST(Campaign, MergedShardsReportOneCampaign) {
  fs::path root = scratch("merge");
  // Programs 0..9 over 3 shards; 1 and 7 (shards 2 and 2) and 3 (shard 1) fail, 7 as 1 does.
  write_shard(root / "s1", shard(1, 3, {failure(3, "P3")}));
  write_shard(root / "s2", shard(2, 3, {failure(7, "P1"), failure(1, "P1")}));
  write_shard(root / "s3", shard(3, 3));
  std::string out, err;
  EXPECT_EQ(merge({root / "s3", root / "s1", root / "s2"}, out, err), 1) << err;
  EXPECT_NE(out.find("rml diff: 3 of 3 shards of seed 7: 10 of 10 programs compared, 3 failed (2 distinct), 300 output cells compared, "
                     "3 unknown cells of the oracle excluded; back end: stream, built in"),
            std::string::npos)
      << out;
  // In program order: 1 first, so 7 is "same as program 1", whatever the shards' order.
  size_t p1 = out.find((root / "s2" / "fail_1").string()), p3 = out.find((root / "s1" / "fail_3").string());
  EXPECT_NE(p1, std::string::npos) << out;
  EXPECT_LT(p1, p3) << out;
  EXPECT_NE(out.find("same as program 1"), std::string::npos) << out;
  EXPECT_EQ(out.find("shards missing"), std::string::npos) << out;

  // All equal and complete: 0. A shard missing: 3, and which. Stopped early: 3.
  write_shard(root / "e1", shard(1, 2));
  write_shard(root / "e2", shard(2, 2));
  EXPECT_EQ(merge({root / "e1", root / "e2"}, out, err), 0) << err;
  EXPECT_NE(out.find("10 of 10 programs compared, 0 failed (0 distinct)"), std::string::npos) << out;
  EXPECT_EQ(merge({root / "e2"}, out, err), 3);
  EXPECT_NE(out.find("rml diff: 1 of 2 shards of seed 7: 5 of 10 programs"), std::string::npos) << out;
  EXPECT_NE(out.find("shards missing: 1/2\n"), std::string::npos) << out;
  Summary stopped = shard(2, 2);
  stopped.stopped = true;
  write_shard(root / "e2", stopped);
  EXPECT_EQ(merge({root / "e1", root / "e2"}, out, err), 3);
  EXPECT_NE(out.find("shards stopped at their first failure (run with --keep-going for all): 2/2"), std::string::npos) << out;

  // Refusals: another campaign, a shard twice, an unreadable summary.
  Summary other = shard(2, 2);
  other.seed = 8;
  write_shard(root / "o2", other);
  EXPECT_EQ(merge({root / "e1", root / "o2"}, out, err), 2);
  EXPECT_NE(err.find("are shards of different campaigns (seed 8 and 7"), std::string::npos) << err;
  other = shard(2, 2);
  other.backend = "kleene, built in";
  write_shard(root / "o3", other);
  EXPECT_EQ(merge({root / "e1", root / "o3"}, out, err), 2);
  EXPECT_NE(err.find("back end 'kleene, built in' and 'stream, built in'"), std::string::npos) << err;
  EXPECT_EQ(merge({root / "e1", root / "e1"}, out, err), 2);
  EXPECT_EQ(err, "rml diff: error: shard 1/2 is given twice: " + (root / "e1").string() + " and " + (root / "e1").string() + "\n");
  EXPECT_EQ(merge({root / "e1", root / "nowhere"}, out, err), 2);
  EXPECT_NE(err.find((root / "nowhere" / "summary.tsv").string() + ": cannot read it"), std::string::npos) << err;
  fs::remove_all(root);
}
