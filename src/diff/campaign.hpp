// Campaigns of `rml gen` and `rml diff`: shards (a campaign split across machines with the
// same seeds), the failures a `--keep-going` run collects, which of them are distinct, and
// the summary each shard writes (DIR/summary.tsv) and `rml diff --merge` reads back.
#pragma once
#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace rml::diff {

// `--shard K/N`: the campaign's programs 0..count-1 are dealt round-robin, program k to
// shard k mod N + 1, so every shard gets the same mix of sizes and the programs keep the
// numbers (and seeds) they have in the unsharded campaign.
struct Shard {
  int index = 1, count = 1;  // 1 <= index <= count
  bool holds(uint64_t program) const { return program % static_cast<uint64_t>(count) == static_cast<uint64_t>(index - 1); }
  std::string text() const { return std::to_string(index) + "/" + std::to_string(count); }
};
// "K/N" with 1 <= K <= N <= 100000; nullopt with `why` otherwise.
std::optional<Shard> parse_shard(const std::string &text, std::string &why);

// One failing program of a campaign, as shrunk.
struct Failure {
  uint64_t program = 0;  // its number in the campaign
  std::string kind;      // "differs" (a cell) or "fails" (the back end crashed, hung, printed no chronogram)
  std::string first;     // the shrunk case's first difference, or how the back end failed on it
  int equations = 0, cycles = 0;  // the shrunk case's size
  std::string folder;    // its files (cex.*), relative to the campaign's folder
  std::string program_text;  // the shrunk program: two failures are the same when these are equal
  std::string campaign;  // for a merge: the shard's folder
};

// The index of the first earlier failure with the same shrunk program, or -1: a failure
// is distinct when no earlier one shrank to the same program.
std::vector<int> same_as(const std::vector<Failure> &fs);

// What one run of `rml diff` over generated programs did (one shard, or the whole campaign).
struct Summary {
  uint64_t seed = 1;
  Shard shard;
  int count = 0;           // the campaign's --count (all shards)
  int programs = 0;        // compared in this run
  int unconfirmed = 0;     // unchecked draws that failed, then were not accepted by rml-check: left out
  bool stopped = false;    // stopped at its first failure (no --keep-going)
  uint64_t cells = 0, unknown = 0;
  std::string backend;     // as the final line names it
  std::vector<Failure> failures;
};

// DIR/summary.tsv: "key<TAB>value" lines, then one "failure" line per failure (program,
// kind, first difference, equations, cycles, folder). Tabs and line breaks in a message
// become spaces.
std::string write_summary(const Summary &s);
// Reads DIR/summary.tsv and each failure's program (DIR/FOLDER/cex.rml or cex.lus); nullopt
// with `why` (the file and line) if it is missing or malformed.
std::optional<Summary> read_summary(const std::string &dir, std::string &why);

// The failures as a table: program, what failed (or "same as program J"), shrunk size, files.
// `root` prefixes each folder (the campaign's folder).
std::string failure_table(const std::vector<Failure> &fs, const std::vector<std::string> &roots);

// `rml diff --merge DIR...`: the shards' summaries as one campaign. Exit 0 every shard
// present and every program equal, 1 a failure in any shard, 2 a summary missing,
// malformed or from another campaign (seed, count, shard count or back end differ), a shard
// given twice, 3 no failure but shards missing or stopped early, or failing draws left
// out because rml-check did not confirm them (not decided).
int merge_summaries(const std::vector<std::string> &dirs, std::ostream &out, std::ostream &err);

}  // namespace rml::diff
