// rml gen: programs drawn from a seed, each kept only once rml-check accepts it (another
// draw from the same seed otherwise), written with an admissible trace.
#include <filesystem>
#include <fstream>
#include <vector>

#include "diff/accept.hpp"
#include "diff/draw.hpp"
#include "tools/cmd_diff.hpp"
#include "tools/commands.hpp"
#include "driver/progress.hpp"

namespace rml {

namespace {

const char *extension(const gen::GenOptions &o) { return o.dialect == gen::Dialect::Lustre ? ".lus" : ".rml"; }

}  // namespace

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
  for (size_t n = 0; n < mine.size(); ++n) {
    const int k = mine[n];
    progress.update(std::to_string(n) + "/" + std::to_string(mine.size()) + " programs written" +
                    (refused ? " (" + std::to_string(refused) + " draws refused by rml-check)" : ""));
    uint64_t seed = gen::program_seed(c.seed, static_cast<uint64_t>(k));
    gen::GeneratedProgram p;
    const bool check = checked_draw(static_cast<uint64_t>(k), c.check_every);
    confirmed += check;
    if (!draw_accepted(seed, c.options, c.check_budget, p, refused, err, nullptr, check)) {
      err << "rml gen: error: 50 draws for program " << k << " were all refused by rml-check\n";
      return kUnknown;
    }
    std::string trace = gen::generate_trace(p, seed, c.options.cycles);
    std::string base = c.out_dir + "/prog_" + std::to_string(k);
    std::ofstream(base + extension(c.options)) << p.text;
    std::ofstream(base + ".csv") << trace;
    if (!std::ofstream(base + ".csv", std::ios::app)) {
      err << "rml: error: cannot write '" << base << ".csv'\n";
      return kFrontendError;
    }
    if (c.print) out << p.text << "\n// trace (" << base << ".csv)\n" << trace << "\n";
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
