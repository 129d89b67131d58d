// `rml gen` (random programs rml-check accepts, with traces) and `rml diff` (a back end
// against the oracle, cell by cell, a failure shrunk to a small counterexample).
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "diff/campaign.hpp"
#include "diff/compare.hpp"
#include "diff/draw.hpp"
#include "gen/program_gen.hpp"
#include "tools/commands.hpp"

namespace rml {

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

// The generator's options as the command line parsed them (gen_options), for the library.
api::GenerateOptions generate_options(const gen::GenOptions &g);

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
