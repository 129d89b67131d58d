// Programs drawn for rml gen and rml diff: the generator's options as the command line
// gives them, a draw kept once rml-check accepts it, and which draws of a campaign are
// confirmed by rml-check.
#pragma once
#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "diff/accept.hpp"
#include "gen/program_gen.hpp"

namespace rml {

// The generator's options from `--size`, `--cycles`, `--without FEATURE,...`, `--dialect`;
// false with `error` for an unknown feature or dialect.
bool gen_options(const std::vector<std::string> &without, const std::string &dialect, gen::GenOptions &o, std::string &error);

// The generator's sizes within their limits (--size 1..200, --depth 0..8, --cycles
// 1..100000); false with `error` otherwise. gen_options checks them too.
bool gen_sizes_valid(const gen::GenOptions &o, std::string &error);

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

}  // namespace rml
