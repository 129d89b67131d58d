// Shared by fuzz_trace_csv and fuzz_trace_json: a fixed program whose inputs have every
// element type, a tensor, and sampled clocks, and the checks made on every trace read.
#pragma once
#include <cstdlib>
#include <memory>
#include <string>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "oracle/trace_io.hpp"
#include "sema/frontend.hpp"

namespace rml::fuzz {

inline const char *const kTraceProgram =
    "node probe(c: bool, i: int, x: real, v: real[2, 3], y: int when c, w: real[2] when c, d: bool when c)\n"
    "  returns (o: real, p: int when c, q: real[2, 3], e: bool when c);\n"
    "let\n"
    "  o = merge c ((x when c) + w[0]) ((x when not c) * 2.0);\n"
    "  p = y + (i when c);\n"
    "  q = v;\n"
    "  e = d and (c when c);\n"
    "tel\n";

struct TraceProbe {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
  TraceProbe() {
    fe = run_frontend("probe.rml", kTraceProgram);
    if (fe->diags.has_errors()) std::abort();
    prog = core::elaborate(fe->checked, "probe");
  }
};

// "NAME:LINE:COL: ..." for this NAME (no regex: it is slow under the sanitizers).
inline bool located_at(const std::string &m, const std::string &name) {
  if (m.compare(0, name.size() + 1, name + ":") != 0) return false;
  size_t i = name.size() + 1;
  for (int part = 0; part < 2; ++part) {
    size_t b = i;
    while (i < m.size() && m[i] >= '0' && m[i] <= '9') ++i;
    if (i == b || i >= m.size() || m[i] != ':') return false;
    ++i;
  }
  return i < m.size() && m[i] == ' ';
}

// Reads `text` as the trace `path`; a TraceError must be located (but for a CSV trace
// with no header, which has no line to point at) and short; a trace read must have every input, with cells of the declared types; short
// traces are run in the oracle (its input clock checks see the sampled inputs).
inline void read_and_check(const TraceProbe &p, const std::string &path, const std::string &text) {
  oracle::Inputs in;
  try {
    in = oracle::read_trace(path, text, p.prog, 0);
  } catch (oracle::TraceError &e) {
    std::string m = e.what();
    if (m.compare(0, path.size() + 1, path + ":") != 0) std::abort();
    if (!located_at(m, path) && m != path + ": the trace is empty (it needs a header naming the inputs)") std::abort();
    if (m.size() > 600) std::abort();  // values in messages are clipped, never echoed whole
    return;
  }
  if (in.streams.size() != p.prog.inputs.size()) std::abort();
  for (auto &v : p.prog.inputs) {
    auto it = in.streams.find(v.name);
    if (it == in.streams.end() || it->second.size() != in.cycles) std::abort();
    std::vector<int64_t> shape = array::concrete_shape(v.type.shape);
    size_t n = 1;
    for (int64_t d : shape) n *= static_cast<size_t>(d);
    for (auto &cell : it->second) {
      if (cell.tag != oracle::Tag::Val) continue;
      const array::Tensor &t = cell.value;
      size_t have = t.elem == Scalar::Real ? t.r.size() : t.i.size();
      if (t.elem != v.type.elem || t.shape != shape || have != n) std::abort();
    }
  }
  if (in.cycles > 16) return;
  oracle::Oracle o(p.fe->checked, p.prog);
  oracle::Result r = o.run(in, oracle::Solver::Worklist);
  if (r.cycles != in.cycles || !r.has("o")) std::abort();
}

}  // namespace rml::fuzz
