// What a differential or property-based test suite needs (include/rml/rml.hpp): programs
// generated from a seed, rml-check's acceptance, the comparison of two chronograms, and
// shrinking a failing case. Each is rml gen's and rml diff's own code (src/gen, src/diff).
#include <sstream>

#include "api/state.hpp"
#include "diff/accept.hpp"
#include "diff/case_hooks.hpp"
#include "diff/compare.hpp"
#include "diff/draw.hpp"
#include "diff/shrink.hpp"
#include "gen/program_gen.hpp"

namespace rml::api {

// Difference::Kind mirrors rml diff's, value for value.
static_assert(static_cast<int>(Difference::Kind::Cell) == diff::Difference::Cell &&
              static_cast<int>(Difference::Kind::ExtraCycles) == diff::Difference::ExtraCycles);

gen::GenOptions gen_options_of(const GenerateOptions &o) {
  gen::GenOptions g;
  g.size = o.size;
  g.depth = o.depth;
  g.cycles = o.cycles;
  g.post = o.post, g.arrows = o.arrows, g.clocks = o.clocks, g.instances = o.instances, g.resets = o.resets;
  g.funs = o.funs, g.tensors = o.tensors, g.reals = o.reals, g.ints = o.ints;
  if (o.lustre) {
    g = g.for_lustre();
    g.lustre_types = o.lustre_v6_types;
  }
  return g;
}

namespace {

GeneratedCase case_of(const gen::GeneratedProgram &p, uint64_t seed, const std::string &trace) {
  GeneratedCase c;
  c.seed = seed;
  c.trace = trace;
  c.program = p.text;
  c.main = p.main;
  c.outputs = p.outputs;
  c.shapes = p.shapes;
  return c;
}

// The generator's sizes refused outside rml gen's ranges (a depth past 8 grows the
// expressions exponentially).
std::optional<Failure> refused_sizes(const gen::GenOptions &g) {
  std::string why;
  if (gen_sizes_valid(g, why)) return std::nullopt;
  return failure(kFrontendError, "rml gen: error[gen.options]: size must be 1..200, depth 0..8 and cycles 1..100000 (as rml gen's "
                                 "options)\n");
}

}  // namespace

Result<GeneratedCase> generate(uint64_t seed, const GenerateOptions &o) try {
  gen::GenOptions g = gen_options_of(o);
  if (auto refused = refused_sizes(g)) return *refused;
  gen::GeneratedProgram p = gen::generate_program(seed, g);
  return case_of(p, seed, gen::generate_trace(p, seed, g.cycles));
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml gen: error: out of memory while drawing the program of seed " + std::to_string(seed) + "\n");
}

Result<CampaignCase> generate_in_campaign(uint64_t seed, uint64_t k, const GenerateOptions &o, bool confirm, const CheckOptions &check) try {
  gen::GenOptions g = gen_options_of(o);
  if (auto refused = refused_sizes(g)) return *refused;
  const uint64_t s = gen::program_seed(seed, k);
  gen::GeneratedProgram p;
  int refused = 0;
  std::ostringstream said;
  if (!draw_accepted(s, g, CheckBudget{check.seconds, check.rlimit}, p, refused, said, nullptr, confirm))
    return failure(kUnknown, said.str() + "rml gen: error: 50 draws for program " + std::to_string(k) + " were all refused by rml-check\n");
  CampaignCase c;
  c.generated = case_of(p, s, gen::generate_trace(p, s, g.cycles));
  c.refusals = from_text(said.str());
  return c;
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml gen: error: out of memory while drawing program " + std::to_string(k) + "\n");
}

bool confirmed_in_campaign(uint64_t k, int every) { return checked_draw(k, every); }

Result<Program> accept(const std::string &name, const std::string &text, const std::string &main, const CheckOptions &o) try {
  diff::Acceptance a = diff::accept(name, text, main, CheckBudget{o.seconds, o.rlimit});
  if (!a.accepted) return failure(a.rc ? a.rc : kFrontendError, a.why);
  return from_frontend(name, std::move(a.frontend), a.main);
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml: error: out of memory while checking " + name + "\n");
}

std::string Difference::describe() const {
  diff::Difference d;
  d.kind = static_cast<diff::Difference::Kind>(kind);
  d.var = stream;
  d.cycle = cycle;
  d.oracle = expected;
  d.backend = got;
  return d.describe();
}

Difference compare(const Chronogram &expected, const Chronogram &got, const std::vector<std::string> &streams, const Tolerance &t) {
  // As rml diff compares the CSV chronograms: each cell by its printed text.
  auto table = [](const Chronogram &c) {
    diff::Chronogram d;
    d.columns = c.names;
    for (size_t n = 0; n < c.cycles; ++n) {
      std::vector<std::string> row;
      for (auto &col : c.columns) row.push_back(n < col.size() ? col[n].text() : "?");
      d.rows.push_back(std::move(row));
    }
    return d;
  };
  diff::Difference d = diff::compare(table(expected), table(got), streams.empty() ? expected.names : streams,
                                     diff::Tolerance{t.ulps, t.rel, t.abs});
  Difference out;
  out.kind = static_cast<Difference::Kind>(d.kind);
  out.stream = d.var;
  out.cycle = d.cycle;
  out.expected = d.oracle;
  out.got = d.backend;
  return out;
}

std::vector<Case> shrink_candidates(const Case &c, const ShrinkOptions &o) {
  std::vector<Case> out;
  for (auto &k : diff::candidates(diff::Case{c.program, c.trace}, diff::case_hooks(o.lustre, o.main)))
    out.push_back({k.program, k.trace});
  return out;
}

Case shrink(const Case &c, const std::function<bool(const Case &)> &still_fails, const ShrinkOptions &o) {
  diff::ShrinkHooks h = diff::case_hooks(o.lustre, o.main);
  const std::string name = o.lustre ? "<case.lus>" : "<case.rml>";
  h.fails = [&](const diff::Case &k) {
    return diff::accept(name, k.program, o.main, CheckBudget{}).accepted && still_fails(Case{k.program, k.trace});
  };
  diff::ShrinkLimits lim;
  lim.max_candidates = o.max_candidates;
  diff::ShrinkStats st;
  diff::Case r = diff::shrink(diff::Case{c.program, c.trace}, h, lim, st);
  return {r.program, r.trace};
}

}  // namespace rml::api
