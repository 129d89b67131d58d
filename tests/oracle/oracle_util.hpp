// Helpers for oracle tests: run a node on a trace written as strings, with both solvers.
#pragma once
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "checker/checker.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "oracle/trace_io.hpp"
#include "sema/frontend.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"

namespace rml::test {

using Vec = std::vector<std::string>;

struct Run {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
  oracle::Result worklist, kleene;
};

inline std::string read_source(const std::string &rel) {
  std::string err;
  auto t = read_file(std::string(RML_SOURCE_DIR) + "/" + rel, err);
  if (!t) throw std::runtime_error(err);
  return *t;
}

// The canonical print of a program, and that it parses back to the same AST.
inline std::string reprint_program(const std::string &text) {
  SourceFile f("p.lus", text);
  Diagnostics d;
  Program p = parse_program(f, d);
  if (d.has_errors()) return "<error>";
  std::string out = print_program(p);
  SourceFile g("q.lus", out);
  Diagnostics d2;
  Program q = parse_program(g, d2);
  EXPECT_FALSE(d2.has_errors()) << out;
  EXPECT_TRUE(ast_equal(p, q)) << out;
  return out;
}

// rml-check's report on `main` of `text` (20 s budget); the text must read without errors.
inline check::Report check_text_report(const std::string &text, const std::string &main) {
  auto fe = run_frontend("test.rml", text);
  EXPECT_FALSE(fe->diags.has_errors()) << render_all(fe->diags);
  core::Program prog = core::elaborate(fe->checked, main);
  check::Options o;
  o.rlimit = 20'000'000;
  return check::check_program(fe->checked, prog, o);
}

// The verdicts of a report's user properties, in order.
inline std::vector<check::Verdict> user_property_verdicts(const check::Report &r) {
  std::vector<check::Verdict> out;
  for (auto &p : r.properties)
    if (p.kind == "property") out.push_back(p.verdict);
  return out;
}

// Runs `main` of `text` on the given input vectors (cells as in traces: values, `_`, `?`)
// with both solvers, and checks that they agree on every stream.
inline Run run_both(const std::string &text, const std::string &main, const std::map<std::string, Vec> &inputs,
                    size_t cycles = 0, oracle::Options opts = {}) {
  Run r;
  r.fe = run_frontend("golden.rml", text);
  if (r.fe->diags.has_errors()) throw std::runtime_error(render_all(r.fe->diags));
  r.prog = core::elaborate(r.fe->checked, main);
  oracle::Inputs in;
  for (auto &v : r.prog.inputs) {
    auto it = inputs.find(v.name);
    if (it == inputs.end()) throw std::runtime_error("no vector for input " + v.name);
    for (auto &s : it->second) {
      std::string err;
      in.streams[v.name].push_back(oracle::parse_cell(s, v.type, err));
      if (!err.empty()) throw std::runtime_error(err);
    }
    in.cycles = it->second.size();
  }
  if (cycles) in.cycles = cycles;
  oracle::Oracle o(r.fe->checked, r.prog, opts);
  r.worklist = o.run(in, oracle::Solver::Worklist);
  r.kleene = o.run(in, oracle::Solver::Kleene);
  return r;
}

// Parses the expected cells with the variable's type and compares.
inline void expect_stream(const Run &r, const std::string &var, const Vec &want) {
  ASSERT_TRUE(r.worklist.has(var)) << "no variable " << var;
  const auto got = r.worklist.stream(var);
  ASSERT_EQ(got.size(), want.size()) << var;
  Type t;
  for (auto &v : r.prog.inputs) if (v.name == var) t = v.type;
  for (auto &v : r.prog.outputs) if (v.name == var) t = v.type;
  for (auto &v : r.prog.locals) if (v.name == var) t = v.type;
  for (auto &e : r.prog.equations) if (e.lhs == var) t = e.type;
  for (size_t n = 0; n < want.size(); ++n) {
    std::string err;
    oracle::Cell w = oracle::parse_cell(want[n], t, err);
    ASSERT_TRUE(err.empty()) << err;
    EXPECT_EQ(got[n], w) << var << " at cycle " << n << ": got " << got[n].str() << ", want " << want[n];
  }
}

// The two solvers computed the same least fixpoint.
inline void expect_solvers_agree(const Run &r) {
  for (auto &name : r.worklist.vars) {
    const auto cells = r.worklist.stream(name), k = r.kleene.stream(name);
    for (size_t n = 0; n < cells.size(); ++n)
      EXPECT_EQ(cells[n], k[n]) << name << " at cycle " << n << ": worklist " << cells[n].str() << ", kleene " << k[n].str();
  }
}

}  // namespace rml::test
