// Helpers for the stream path's tests: a program compiled once, run in the stream runner
// and in the oracle, and compared cell by cell.
#pragma once
#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"
#include "stream/plan.hpp"
#include "stream/runner.hpp"

namespace rml::test {

// A file of the repository, by its path from the root.
inline std::string read_text(const std::string &rel) {
  std::string err;
  auto t = read_file(std::string(RML_SOURCE_DIR) + "/" + rel, err);
  if (!t) throw std::runtime_error(err);
  return *t;
}

struct StreamProgram {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
  core::Clocks clocks;
  stream::Plan plan;
};

inline StreamProgram compile_stream(const std::string &text, const std::string &main) {
  StreamProgram p;
  p.fe = run_frontend("stream.rml", text);
  if (p.fe->diags.has_errors()) throw std::runtime_error(render_all(p.fe->diags));
  p.prog = core::elaborate(p.fe->checked, main);
  p.clocks = core::infer_clocks(p.prog);
  p.plan = stream::build_plan(p.prog, p.clocks);
  return p;
}

struct StreamRun {
  std::map<std::string, std::vector<oracle::Cell>> cells;  // every variable, every cycle
  std::vector<oracle::ErrorOrigin> errors;
  std::vector<std::string> clock_violations;
  size_t max_window = 0;
  bool outputs_only = false;  // cells holds the outputs only (the runner told so: Options::read_slots)
  uint64_t reused = 0;        // results written over an operand's block (Runner::reused)
  bool dead_left = false;     // Runner::dead_left: the in-place accounting broken
};

// Runs the plan on `in` (whole trace pushed, then finish), collecting every variable.
// With `outputs_only`, the outputs only, and the runner is told that only their slots are
// read (so that results may go over the other cells' blocks: in place).
inline StreamRun run_stream_checked(const CheckedProgram &cp, const StreamProgram &p, const oracle::Inputs &in,
                                    stream::Options opts = {}, bool outputs_only = false) {
  StreamRun out;
  out.outputs_only = outputs_only;
  std::vector<std::pair<std::string, int>> vars;
  if (outputs_only) {
    opts.read_slots.emplace();
    for (auto &v : p.prog.outputs) vars.emplace_back(v.name, p.plan.slot(v.name)), opts.read_slots->push_back(p.plan.slot(v.name));
  } else {
    for (auto &[name, slot] : p.plan.slot_of) vars.emplace_back(name, slot);
  }
  size_t expected = 0;
  stream::Runner r(cp, p.plan, std::move(opts), [&](const stream::FrameView &f) {
    if (f.cycle != expected++) throw std::runtime_error("frames emitted out of order");
    for (auto &[name, slot] : vars) out.cells[name].push_back(f.cell(slot));
  });
  for (size_t n = 0; n < in.cycles; ++n) {
    std::vector<oracle::Cell> cyc;
    for (auto &v : p.prog.inputs) cyc.push_back(in.streams.at(v.name).at(n));
    r.push(cyc);
  }
  r.finish();
  out.errors = r.errors();
  out.clock_violations = r.input_clock_violations();
  out.max_window = r.max_window();
  out.reused = r.reused();
  out.dead_left = r.dead_left();
  return out;
}

inline StreamRun run_stream(const StreamProgram &p, const oracle::Inputs &in, stream::Options opts = {}, bool outputs_only = false) {
  return run_stream_checked(p.fe->checked, p, in, std::move(opts), outputs_only);
}

// "" when the stream run equals the oracle's result on every variable and cycle, with the
// same error origins (variable, cycle, rule: see below) and input clock violations; else the first
// difference.
inline std::string stream_vs_oracle(const StreamRun &s, const oracle::Result &o) {
  for (auto &v : o.vars) {
    auto it = s.cells.find(v);
    if (it == s.cells.end() && s.outputs_only) continue;
    if (it == s.cells.end()) return "'" + v + "' missing from the stream run";
    if (it->second.size() != o.cycles) return "'" + v + "' has " + std::to_string(it->second.size()) + " cycles in the stream run";
    for (size_t n = 0; n < o.cycles; ++n)
      if (!(it->second[n] == o.at(v, n)))
        return "'" + v + "' at cycle " + std::to_string(n) + ": stream " + it->second[n].str() + ", oracle " + o.at(v, n).str();
  }
  // Where a ‖ is first produced depends on the evaluation order when an error feeds back
  // into itself (both implementations are right to name any cell whose rule produced it):
  // both name an origin when there is a ‖, and each origin the stream names is a ‖ cell
  // (clock terms, "ck:...", are not variables of the result).
  if (s.errors.empty() != o.errors.empty())
    return "error origins differ: stream " + std::to_string(s.errors.size()) + ", oracle " + std::to_string(o.errors.size()) +
           (s.errors.empty() ? "" : " (stream: '" + s.errors[0].var + "' at cycle " + std::to_string(s.errors[0].cycle) + ", " + s.errors[0].message + ")") +
           (o.errors.empty() ? "" : " (oracle: '" + o.errors[0].var + "' at cycle " + std::to_string(o.errors[0].cycle) + ", " + o.errors[0].message + ")");
  for (auto &e : s.errors) {
    if (o.has(e.var) && o.tag(e.var, e.cycle) != oracle::Tag::Err)
      return "the stream names an error origin in '" + e.var + "' at cycle " + std::to_string(e.cycle) + ", not ‖ in the oracle";
    for (auto &f : o.errors)  // a cell both name: its one equation's rule
      if (f.var == e.var && f.cycle == e.cycle && std::string(f.rule) != e.rule)
        return "'" + e.var + "' at cycle " + std::to_string(e.cycle) + ": the stream names rule " + e.rule + ", the oracle " + f.rule;
  }
  if (s.clock_violations != o.input_clock_violations) return "input clock violations differ";
  return "";
}

}  // namespace rml::test
