#include "checker/smt_session.hpp"
#include "checker/trace.hpp"

#include "checker/context_reaper.hpp"
#include "checker/smt_reals.hpp"
#include "oracle/trace_io.hpp"

#include <algorithm>
#include <sstream>

namespace rml::check {

std::unique_ptr<z3::context> Smt::fresh_context(const Budget &b) {
  if (b.exhausted()) b.fail();
  return std::make_unique<z3::context>();
}

Smt::~Smt() {
  // What refers to terms of this context and stays here is released first, on this thread;
  // then only the reaper touches the context. Members go in reverse order of declaration:
  // the transition system's terms before their context.
  probe.reset();
  covers.clear();
  struct Remains {
    std::unique_ptr<z3::context> ctx;
    std::unique_ptr<TransitionSystem> ts;
  };
  try {
    auto remains = std::make_shared<Remains>();
    remains->ctx = std::move(owned_ctx_);
    remains->ts = std::move(ts);
    dispose_later(std::move(remains));
  } catch (...) {  // no memory or no thread for the hand-over: freed here, as members are
  }
}

namespace {
// Z3 takes both limits per query as 32-bit numbers.
unsigned clamp32(uint64_t v) { return static_cast<unsigned>(std::min<uint64_t>(v, 0xFFFFFFF0ULL)); }

// The resource limit; the time limit is the budget's Query (budget.hpp says why).
void limit(z3::context &ctx, z3::solver &s, const Budget &b) {
  z3::params prm(ctx);
  if (auto units = b.units_left()) prm.set("rlimit", clamp32(std::max<uint64_t>(*units, 1)));
  s.set(prm);
}
}  // namespace

// Every query charges what it spent when it ends, so the meter is up to date between
// queries.
z3::solver Smt::solver() {
  if (budget.exhausted()) budget.fail();
  z3::solver s = simple ? z3::solver(ctx, z3::solver::simple()) : z3::solver(ctx);
  limit(ctx, s, budget);
  return s;
}

z3::check_result Smt::check(z3::solver &s) {
  if (budget.exhausted()) budget.fail();
  limit(ctx, s, budget);
  z3::check_result c = z3::unknown;
  const uint64_t before = budget.spent();
  auto traced = [&](const char *answer) {
    if (!trace::on()) return;
    const char *encoding = !ts->lia_ints ? "bit-vectors" : ts->lia_modular ? "ints mod 2^64" : "integers";
    trace::line(trace::stage() + " [" + encoding + "]: " + answer + ", " + std::to_string(budget.spent() - before) + " units");
  };
  try {
    Budget::Query query(budget, ctx);
    c = s.check();
  } catch (z3::exception &) {  // interrupted at the deadline ("canceled"), or a real failure
    budget.charge(resources_counted(s), counted);
    traced("interrupted");
    if (budget.exhausted()) budget.fail();
    throw;
  }
  budget.charge(resources_counted(s), counted);
  traced(c == z3::sat ? "sat" : c == z3::unsat ? "unsat" : "unknown");
  if (c == z3::unknown && budget.exhausted()) budget.fail();
  return c;
}

Smt::ScopedLimit::ScopedLimit(Smt &s, int num, int den) : smt(s), part(s.budget.slice(num, den)) {
  if (smt.budget.exhausted()) smt.budget.fail();
  if (auto units = part.units_left()) smt.ctx.set("rlimit", std::to_string(clamp32(std::max<uint64_t>(*units, 1))).c_str());
  ms = part.ms_left();
  if (ms) *ms = std::max<uint64_t>(*ms, 1);
}

Smt::ScopedLimit::~ScopedLimit() {
  try {
    smt.ctx.set("rlimit", "0");
    if (!smt.probe) {
      smt.probe.emplace(smt.ctx);
      smt.probe->check();  // once, so that its statistics are cheap to read from now on
    }
    smt.budget.charge(resources_counted(*smt.probe), smt.counted);
  } catch (z3::exception &) {
  }
}

namespace {
// The model's cell of a scalar variable at one frame (a zero tensor of its type when the
// model has no value for it: a tensor, or a variable no constraint reads).
oracle::Cell model_cell(z3::model &m, const TransitionSystem::Frame &f, const std::string &name, const Type &type) {
  if (!m.eval(f.p.at(name), true).is_true()) return oracle::Cell::absent();
  std::vector<int64_t> shape = array::concrete_shape(type.shape);
  array::Tensor t = array::Tensor::zeros(type.elem, shape);
  auto it = f.v.find(name);
  if (it != f.v.end()) {
    z3::expr val = m.eval(it->second, true);
    if (type.elem == Scalar::Bool) t.i[0] = val.is_true();
    else if (type.elem == Scalar::Real) t.r[0] = real_of(m, it->second);
    else if (val.is_int()) {  // the LIA encoding keeps inputs in the 64-bit range
      int64_t i = 0;
      val.is_numeral_i64(i);
      t.i[0] = i;
    } else {
      uint64_t u = 0;
      val.is_numeral_u64(u);
      t.i[0] = static_cast<int64_t>(u);
    }
  }
  return oracle::Cell::of(std::move(t));
}
}  // namespace

oracle::Inputs model_inputs(const CheckedProgram &cp, const core::Program &p, const core::Clocks &clocks,
                            const std::vector<TransitionSystem::Frame> &fs, z3::model &m) {
  oracle::Inputs in;
  in.cycles = fs.size();
  for (auto &v : p.inputs) {
    auto &cells = in.streams[v.name];
    for (auto &f : fs) cells.push_back(model_cell(m, f, v.name, v.type));
  }
  // The outputs of imported calls as the model chose them, which the replay takes as given
  // (oracle::Inputs): a counterexample holds for an imported node or function that computes
  // these. An output the model does not keep (a tensor, or one outside the cone of what was
  // asked: the system is sliced) is chosen by a run of the oracle (Options::free_imported:
  // a function's output for arguments given one elsewhere, else zero) and written down, so
  // that the trace gives every one; the replay then says whether the failure needs another.
  bool chosen = false;
  for (auto &eq : p.equations) {
    if (eq.prim != core::Prim::Apply || eq.op != core::ApplyOp::Imported) continue;
    auto &cells = in.streams[eq.lhs];
    const bool kept = eq.type.shape.empty() && !fs.empty() && fs[0].p.count(eq.lhs) && fs[0].v.count(eq.lhs);
    chosen |= !kept;
    for (auto &f : fs) cells.push_back(kept ? model_cell(m, f, eq.lhs, eq.type) : oracle::Cell::bot());
  }
  if (!chosen) return in;
  std::optional<oracle::Result> res;
  try {
    oracle::Options o;
    o.free_imported = true;
    res = oracle::Oracle(cp, p, clocks, o).run(in);
  } catch (oracle::OracleError &) {  // no run: zeros, which the replay judges
  }
  for (auto &eq : p.equations) {
    if (eq.prim != core::Prim::Apply || eq.op != core::ApplyOp::Imported) continue;
    auto &cells = in.streams[eq.lhs];
    for (size_t n = 0; n < cells.size(); ++n) {
      if (cells[n].tag != oracle::Tag::Bot) continue;
      oracle::Cell c = res && res->has(eq.lhs) ? res->at(eq.lhs, n) : oracle::Cell::bot();
      cells[n] = c.tag == oracle::Tag::Val ? c : oracle::Cell::of(array::Tensor::zeros(eq.type.elem, array::concrete_shape(eq.type.shape)));
    }
  }
  return in;
}

std::string trace_csv(const core::Program &p, const oracle::Inputs &in) {
  // The inputs, then the outputs of imported calls the trace gives (under their printed
  // names, which rml run reads back).
  std::vector<std::pair<std::string, const std::vector<oracle::Cell> *>> columns;
  for (auto &v : p.inputs) columns.emplace_back(v.name, &in.streams.at(v.name));
  for (auto &io : oracle::imported_outputs(p))
    if (auto it = in.streams.find(io.var); it != in.streams.end()) columns.emplace_back(io.printed, &it->second);
  std::string s;
  for (size_t k = 0; k < columns.size(); ++k) s += (k ? "," : "") + columns[k].first;
  s += "\n";
  for (size_t n = 0; n < in.cycles; ++n) {
    for (size_t k = 0; k < columns.size(); ++k) {
      std::string c = (*columns[k].second)[n].str();
      if (c.find(',') != std::string::npos) c = "\"" + c + "\"";
      s += (k ? "," : "") + c;
    }
    s += "\n";
  }
  return s;
}

z3::expr_vector free_constants(z3::context &ctx, const std::vector<z3::expr> &roots) {
  z3::expr_vector out(ctx);
  std::set<unsigned> seen;
  std::vector<z3::expr> todo(roots.begin(), roots.end());
  while (!todo.empty()) {
    z3::expr e = todo.back();
    todo.pop_back();
    if (!seen.insert(e.id()).second || !e.is_app()) continue;
    if (e.num_args() == 0 && e.decl().decl_kind() == Z3_OP_UNINTERPRETED) out.push_back(e);
    for (unsigned i = 0; i < e.num_args(); ++i) todo.push_back(e.arg(i));
  }
  return out;
}

}  // namespace rml::check
