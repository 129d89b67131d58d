// Drawing programs for rml gen and rml diff: the generator's options from the command
// line, and a draw kept once rml-check accepts it (draw.hpp).
#include "diff/draw.hpp"

namespace rml {

bool gen_options(const std::vector<std::string> &without, const std::string &dialect, gen::GenOptions &o, std::string &error) {
  for (auto &f : without) {
    bool *flag = f == "post" ? &o.post : f == "arrows" ? &o.arrows : f == "clocks" ? &o.clocks : f == "instances" ? &o.instances
               : f == "resets" ? &o.resets : f == "funs" ? &o.funs : f == "tensors" ? &o.tensors : f == "reals" ? &o.reals
               : f == "ints" ? &o.ints : nullptr;
    if (!flag) {
      error = "--without: unknown feature '" + f + "' (post, arrows, clocks, instances, resets, funs, tensors, reals, ints)";
      return false;
    }
    *flag = false;
  }
  if (dialect == "lustre" || dialect == "lustre-v6") {
    o = o.for_lustre();
    o.lustre_types = dialect == "lustre-v6";
  } else if (dialect != "rml") {
    error = "--dialect: expected rml, lustre or lustre-v6, got '" + dialect + "'";
    return false;
  }
  return gen_sizes_valid(o, error);
}

bool gen_sizes_valid(const gen::GenOptions &o, std::string &error) {
  if (o.size < 1 || o.size > 200 || o.depth < 0 || o.depth > 8 || o.cycles < 1 || o.cycles > 100000) {
    error = "--size must be 1..200, --depth 0..8 and --cycles 1..100000";
    return false;
  }
  return true;
}

namespace {

const char *extension(const gen::GenOptions &o) { return o.dialect == gen::Dialect::Lustre ? ".lus" : ".rml"; }

}  // namespace

bool draw_accepted(uint64_t seed, const gen::GenOptions &o, const CheckBudget &budget, gen::GeneratedProgram &p, int &refused,
                   std::ostream &err, diff::Acceptance *accepted, bool check) {
  if (!check) {
    p = gen::generate_program(gen::program_seed(seed, 0), o);
    if (accepted) {
      accepted->accepted = true;
      accepted->main = p.main;
      accepted->outputs = p.outputs;
    }
    return true;
  }
  for (int attempt = 0; attempt < 50; ++attempt) {
    p = gen::generate_program(gen::program_seed(seed, static_cast<uint64_t>(attempt)), o);
    diff::Acceptance a = diff::accept(std::string("<generated") + extension(o) + ">", p.text, p.main, budget);
    if (a.accepted) {
      if (accepted) *accepted = std::move(a);
      return true;
    }
    ++refused;
    // A refused draw is not written: its diagnostic is quoted without the location in a
    // file the user cannot open.
    std::string why = a.why.substr(0, a.why.find('\n'));
    const std::string label = std::string("<generated") + extension(o) + ">:";
    if (why.rfind(label, 0) == 0) {
      size_t rule = why.find(": ", label.size());
      why = rule == std::string::npos ? why.substr(label.size()) : why.substr(rule + 2);
    }
    err << "rml gen: note: draw " << attempt << " was refused by rml-check (" << (a.rc == kUnknown ? "unknown" : "rejected")
        << ") and not written, drawn again: " << why << "\n";
  }
  return false;
}

}  // namespace rml
