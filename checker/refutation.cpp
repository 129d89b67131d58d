// Refutations of productivity: a lasso of an exactly encoded state under which a segment's
// guards hold forever, or a cell that needs itself, replayed in the oracle (a long run
// alone is never a refutation).
#include <algorithm>
#include <chrono>
#include <map>
#include <set>
#include <sstream>

#include "checker/engine.hpp"
#include "oracle/assumptions.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

namespace {
// Whether the transition system (smt_model.cpp) interprets this application exactly.
bool encoded_exactly(const core::Equation &eq) {
  switch (eq.op) {
    case core::ApplyOp::If: return true;
    case core::ApplyOp::Unary: return ops::row(eq.un).smt == ops::Smt::Encoded;
    case core::ApplyOp::Binary: return ops::row(eq.bin).smt == ops::Smt::Encoded;
    case core::ApplyOp::Index:
    case core::ApplyOp::Array:
    case core::ApplyOp::Call:
    case core::ApplyOp::Imported: return false;
  }
  return false;
}
}  // namespace

// Whether every variable that `vars` depend on (values and presence) is encoded exactly
// by the transition system: inputs, constants, bool/int memories and the operators the
// model interprets; no real or tensor value, no fun, no post prophecy.
bool Checker::exact_cone(const std::set<std::string> &vars) {
  std::map<std::string, const core::Equation *> def;
  for (auto &eq : prog.equations) def[eq.lhs] = &eq;
  std::set<std::string> seen;
  std::vector<std::string> todo(vars.begin(), vars.end());
  while (!todo.empty()) {
    std::string v = todo.back();
    todo.pop_back();
    if (!seen.insert(v).second) continue;
    for (int t = clocks.of(v); t >= 0 && clocks.terms[t].kind == core::ClockTerm::On; t = clocks.terms[t].parent)
      todo.push_back(clocks.terms[t].cond);
    auto it = def.find(v);
    if (it == def.end()) continue;  // an input: free, hence any value is admissible
    const core::Equation &eq = *it->second;
    if (eq.type.kind != Type::Tensor || !eq.type.shape.empty() || eq.type.elem == Scalar::Real) return false;
    if (eq.prim == core::Prim::Post) return false;
    if (eq.prim == core::Prim::Apply && !eq.args.empty() && !encoded_exactly(eq)) return false;
    for (auto &a : eq.args) todo.push_back(a);
  }
  return true;
}

// A refutation of a chain: inputs under which the segment's guards hold at every cycle
// from some i on.
bool Checker::refute_forever(PropertyResult &r, const Segment &sg, const std::string &chain) {
  std::set<std::string> roots;
  for (auto &l : sg.guards) roots.insert(l.cond);
  const std::string &var = graph.names[graph.edges[sg.from_post].from];
  auto g = [&](const TransitionSystem::Frame &f) {
    z3::expr d = f.err.ctx().bool_val(true);
    for (auto &l : sg.guards) d = d && f.p.at(l.cond) && (l.positive ? f.v.at(l.cond) : !f.v.at(l.cond));
    return d;
  };
  auto cx = lasso(roots, roots, g, nullptr, var, 0);
  if (!cx) return false;
  cx->what = "'" + var + "' at cycle " + std::to_string(cx->show_at) + " is unknown, and stays so: the inputs of cycles " +
             std::to_string(cx->loop_from) + ".." + std::to_string(cx->loop_to) + " repeat forever, and with them (" +
             pred_str(sg.guards) + ")";
  r.findings.push_back(Finding{"productivity.unbounded",
                               "the chain " + chain + " can go on forever: (" + pred_str(sg.guards) +
                                   ") can hold at every cycle (state a bound with 'assume always eventually ... within N;')",
                               graph.edges[sg.from_post].eq ? graph.edges[sg.from_post].eq->span : Span{}});
  r.cex = std::move(*cx);
  r.verdict = Verdict::Falsified;
  return true;
}

auto Checker::lasso(const std::set<std::string> &exact_roots, const std::set<std::string> &roots,
                    const std::function<z3::expr(const TransitionSystem::Frame &)> &g,
                    const std::function<z3::expr(const TransitionSystem::Frame &)> &first, const std::string &var, int shift)
    -> std::optional<LassoCex> {
  if (!exact_cone(exact_roots)) return std::nullopt;
  Smt smt(prog, clocks, budget, &roots);
  smt.ts->free_values = free_values;  // Checker::free_values
  z3::solver s = smt.solver();
  int depth = opts.max_depth + 4;
  auto fs = smt.unroll(depth, true, s);
  auto same = [&](size_t i, size_t j) {
    z3::expr d = smt.ctx.bool_val(true);
    z3::expr_vector eqs(smt.ctx);  // n-ary: as many as the state has slots
    for (size_t k = 0; k < fs[i].state_in.size(); ++k) eqs.push_back(fs[i].state_in[k] == fs[j].state_in[k]);
    if (!eqs.empty()) d = z3::mk_and(eqs);
    return d;
  };
  auto loop = [&](size_t i, size_t j) {
    z3::expr run = same(i, j);
    if (first) run = run && first(fs[i - 1]);
    for (size_t t = i; t < j; ++t) run = run && g(fs[t]);
    return run;
  };
  z3::expr any = smt.ctx.bool_val(false);
  for (size_t i = 1; i < fs.size(); ++i)
    for (size_t j = i + 1; j < fs.size(); ++j) any = any || loop(i, j);
  s.add(any);
  if (smt.check(s) != z3::sat) return std::nullopt;
  z3::model m = s.get_model();
  oracle::Inputs base = model_inputs(cp, prog, clocks, fs, m);
  for (size_t i = 1; i < fs.size(); ++i)
    for (size_t j = i + 1; j < fs.size(); ++j) {
      if (!m.eval(loop(i, j), true).is_true()) continue;
      size_t period = j - i, len = i + static_cast<size_t>(max_h()) + 2;
      len += period - (len - i) % period;
      LassoCex cx;
      cx.inputs.cycles = len;
      for (auto &[name, cells] : base.streams) {
        auto &out = cx.inputs.streams[name];
        for (size_t n = 0; n < len; ++n) out.push_back(cells[n < j ? n : i + (n - i) % period]);
      }
      size_t at = static_cast<size_t>(static_cast<int64_t>(i) + shift);
      oracle::Result res = oracle::Oracle(cp, prog, clocks, replay_options()).run(cx.inputs);
      if (!res.has(var) || res.at(var, at).tag != oracle::Tag::Bot) return std::nullopt;  // not replayed
      cx.csv = trace_csv(prog, cx.inputs);
      cx.show = {var};
      cx.show_at = at;
      cx.required = Counterexample::Cell{var, at, false};
      cx.loop_from = i;
      cx.loop_to = j - 1;
      cx.loop = std::make_pair(i, j - 1);
      return cx;
    }
  return std::nullopt;
}

// A non-productive program: any admissible input shows the unknown cells.
// Evidence for a chain that never ends (proved statically): the earliest unknown cell
// under some input, one that keeps the node's assumptions where one of a few simple ones
// does (bools all false, all true, alternating; numbers 0), else the first, said to break
// them. True when one was found.
bool Checker::attach_unproductive_cex(PropertyResult &r) {
  if (r.cex) return true;
  std::optional<Counterexample> breaking;
  for (int pattern = 0; pattern < 4; ++pattern) {
    oracle::Inputs in;
    in.cycles = 8;
    for (auto &v : prog.inputs) {
      auto &cells = in.streams[v.name];
      for (size_t n = 0; n < in.cycles; ++n) {
        array::Tensor t = array::Tensor::zeros(v.type.elem, array::concrete_shape(v.type.shape));
        bool b = pattern == 1 || (pattern == 2 && n % 2 == 0) || (pattern == 3 && n % 2 == 1);
        if (v.type.elem == Scalar::Bool) std::fill(t.i.begin(), t.i.end(), b ? 1 : 0);
        cells.push_back(oracle::Cell::of(std::move(t)));
      }
    }
    oracle::Result res = oracle::Oracle(cp, prog, clocks, replay_options()).run(in);
    std::vector<BrokenAssumption> broken = broken_assumptions(prog, res);
    for (size_t n = 0; n < in.cycles; ++n)
      for (auto &v : res.vars) {
        if (res.at(v, n).tag != oracle::Tag::Bot) continue;
        Counterexample cx;
        cx.inputs = in;
        cx.csv = trace_csv(prog, in);
        cx.show = {v};
        cx.required = Counterexample::Cell{v, n, false};
        cx.what = "'" + v + "' is unknown at cycle " + std::to_string(n) + " (and stays so for any prefix length)";
        if (broken.empty()) {
          r.cex = cx;
          return true;
        }
        if (!breaking) {
          breaking = std::move(cx);
          breaking->what += "; this trace breaks '" + broken[0].text + "' (" + broken[0].message +
                            "), and no simple trace that keeps the assumptions was found";
        }
        n = in.cycles;  // the earliest unknown cell of this pattern only
        break;
      }
  }
  if (!breaking) return false;
  r.cex = std::move(breaking);
  return true;
}

}  // namespace rml::check
