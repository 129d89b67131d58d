// `rml gen` (random programs rml-check accepts, with traces) and `rml diff` (a back end
// against the oracle, cell by cell, a failure shrunk to a small counterexample).
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "diff/accept.hpp"
#include "diff/campaign.hpp"
#include "diff/compare.hpp"
#include "gen/program_gen.hpp"

namespace rml {

// The generator's options from `--size`, `--cycles`, `--without FEATURE,...`, `--dialect`;
// false with `error` for an unknown feature or dialect.
bool gen_options(const std::vector<std::string> &without, const std::string &dialect, gen::GenOptions &o, std::string &error);

// Draws the program of `seed` until rml-check accepts it (at most 50 draws, each refusal
// said on `err`): programs are built to be accepted, so a refusal is rare. `accepted`
// receives the check's result (main node, outputs). With `check` false the first draw is
// taken unchecked (accepted by construction; `accepted` then holds the generator's own
// main node and outputs).
bool draw_accepted(uint64_t seed, const gen::GenOptions &o, const CheckBudget &budget, gen::GeneratedProgram &p, int &refused,
                   std::ostream &err, diff::Acceptance *accepted = nullptr, bool check = true);

// `--check-every N`: whether program k of a campaign is confirmed by rml-check before it
// is used: one program in N, those whose number hashes to 0 mod N (N = 1 all, N = 0 none).
// A hash, not k mod N, so that every shard of a campaign (k mod shards) gets its share of
// the checks. The generator builds its programs to be accepted, and a law of its tests
// says it does; the sample keeps it honest at a twentieth of the cost.
inline bool checked_draw(uint64_t k, int every) {
  if (every <= 1) return every == 1;
  return gen::program_seed(0x636865636b ^ static_cast<uint64_t>(every), k) % static_cast<uint64_t>(every) == 0;
}

struct GenCmd {
  uint64_t seed = 1;
  int count = 1;
  std::string out_dir = "rml-gen";
  gen::GenOptions options;
  CheckBudget check_budget;  // rml-check's, for each program
  bool print = false;  // also print each program and trace on stdout
  bool quiet = false;  // no progress line on stderr
  diff::Shard shard;   // --shard K/N: only programs k with k mod N = K-1, under their own numbers
  int check_every = 20;  // --check-every N: rml-check confirms one program in N (checked_draw; 0: none)
};
int cmd_gen(const GenCmd &c, std::ostream &out, std::ostream &err);

struct DiffCmd {
  std::string file, inputs, main_node;  // a given program and trace; else generated ones
  int count = 100;
  uint64_t seed = 1;
  gen::GenOptions options;
  std::string backend;       // a built-in back end: worklist, kleene, compiled, stream
  std::string backend_cmd;   // or a command template ({program} {inputs} {outputs} {main})
  double timeout_s = 0;      // per back-end run; 0: 10 s, 120 s for stream and cpp (they check the program again)
  CheckBudget check_budget;  // rml-check's, for each program
  diff::Tolerance tolerance;
  std::string out_dir = "rml-diff";
  bool shrink = true;
  double shrink_seconds = 0;  // --shrink-time; 0: only the candidate cap (shrink.hpp)
  std::string self;          // this executable (built-in back ends run `SELF run ...`)
  bool quiet = false;        // no progress line on stderr
  bool keep_going = false;   // every failure shrunk and written to DIR/fail_K, a table at the end
  int check_every = 20;      // --check-every N, as rml gen's (a failing program is always checked)
  diff::Shard shard;         // --shard K/N, as rml gen's
  std::vector<std::string> merge;  // --merge DIR...: the shards' summaries as one campaign (nothing run)
};
int cmd_diff(const DiffCmd &c, std::ostream &out, std::ostream &err);

}  // namespace rml
