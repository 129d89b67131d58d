// rml gen: programs drawn from a seed, built to be accepted by rml-check and confirmed by
// it in a sample (another draw from the same seed when it refuses one), written with an
// admissible trace: the library's campaign draws (include/rml/rml.hpp), written out.
#include <filesystem>
#include <fstream>
#include <vector>

#include "gen/program_gen.hpp"
#include "tools/cmd_diff.hpp"
#include "tools/commands.hpp"
#include "driver/progress.hpp"

namespace rml {

namespace {

const char *extension(const gen::GenOptions &o) { return o.dialect == gen::Dialect::Lustre ? ".lus" : ".rml"; }

}  // namespace

api::GenerateOptions generate_options(const gen::GenOptions &g) {
  api::GenerateOptions o;
  o.size = g.size, o.depth = g.depth, o.cycles = g.cycles;
  o.post = g.post, o.arrows = g.arrows, o.clocks = g.clocks, o.instances = g.instances, o.resets = g.resets;
  o.funs = g.funs, o.tensors = g.tensors, o.reals = g.reals, o.ints = g.ints;
  o.lustre = g.dialect == gen::Dialect::Lustre;
  o.lustre_v6_types = g.lustre_types;
  return o;
}

int cmd_gen(const GenCmd &c, std::ostream &out, std::ostream &err) {
  std::error_code ec;
  std::filesystem::create_directories(c.out_dir, ec);
  if (ec) {
    err << "rml: error: cannot make the folder '" << c.out_dir << "': " << ec.message() << "\n";
    return kFrontendError;
  }
  int refused = 0;
  Progress progress(err, "rml gen", !c.quiet);
  // --shard K/N: this run's share, under the numbers (and so the seeds) of the whole campaign.
  std::vector<int> mine;
  size_t confirmed = 0;  // programs rml-check confirmed (--check-every)
  for (int k = 0; k < c.count; ++k)
    if (c.shard.holds(static_cast<uint64_t>(k))) mine.push_back(k);
  const api::GenerateOptions options = generate_options(c.options);
  const api::CheckOptions budget{c.check_budget.rlimit, c.check_budget.seconds, {}};
  for (size_t n = 0; n < mine.size(); ++n) {
    const int k = mine[n];
    progress.update(std::to_string(n) + "/" + std::to_string(mine.size()) + " programs written" +
                    (refused ? " (" + std::to_string(refused) + " draws refused by rml-check)" : ""));
    const bool check = api::confirmed_in_campaign(static_cast<uint64_t>(k), c.check_every);
    confirmed += check;
    auto drawn = api::generate_in_campaign(c.seed, static_cast<uint64_t>(k), options, check, budget);
    if (!drawn) return print_failure(drawn.failure(), err);
    for (auto &note : drawn->refusals) err << note.rendered;
    refused += static_cast<int>(drawn->refusals.size());
    const api::GeneratedCase &p = drawn->generated;
    std::string base = c.out_dir + "/prog_" + std::to_string(k);
    std::ofstream(base + extension(c.options)) << p.program;
    std::ofstream(base + ".csv") << p.trace;
    if (!std::ofstream(base + ".csv", std::ios::app)) {
      err << "rml: error: cannot write '" << base << ".csv'\n";
      return kFrontendError;
    }
    if (c.print) out << p.program << "\n// trace (" << base << ".csv)\n" << p.trace << "\n";
  }
  progress.done();
  const std::string ext = extension(c.options), refusals = refused ? " (" + std::to_string(refused) + " draws refused and drawn again)" : "";
  if (mine.empty()) {
    out << "rml gen: shard " << c.shard.text() << " of " << c.count << " programs holds none (programs k with k mod " << c.shard.count
        << " = " << c.shard.index - 1 << ")\n";
    return kOk;
  }
  const std::string first = std::to_string(mine.front()), last = std::to_string(mine.back());
  const size_t m = mine.size();
  out << "rml gen: " << m << " program" << (m == 1 ? "" : "s");
  if (c.shard.count > 1)
    out << " of " << c.count << " (shard " << c.shard.text() << ": programs k with k mod " << c.shard.count << " = " << c.shard.index - 1 << ")";
  // Built to be accepted; the ones rml-check confirmed are said.
  const std::string checked = confirmed == m ? (m == 1 ? ", accepted by rml-check" : ", each accepted by rml-check")
                            : ", built to be accepted by rml-check, " + std::to_string(confirmed) + " of them confirmed by it (--check-every " +
                                  std::to_string(c.check_every) + ")";
  out << " (seed " << c.seed << ") in " << c.out_dir << ": "
      << (m == 1 ? "prog_" + first + ext + " with its trace prog_" + first + ".csv"
                 : "prog_" + first + ext + " to prog_" + last + ext + " with their traces prog_" + first + ".csv to prog_" + last + ".csv")
      << checked << refusals << "\n";
  return kOk;
}

}  // namespace rml
