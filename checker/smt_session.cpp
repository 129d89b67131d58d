#include "checker/smt_session.hpp"

#include "checker/smt_reals.hpp"

#include <algorithm>
#include <sstream>

namespace rml::check {

Smt::~Smt() { budget.leave(ctx); }

namespace {
// Z3 takes both limits per query as 32-bit numbers.
unsigned clamp32(uint64_t v) { return static_cast<unsigned>(std::min<uint64_t>(v, 0xFFFFFFF0ULL)); }

// The resource limit; the time limit is the budget's Alarm (budget.hpp says why).
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
  z3::solver s(ctx);
  limit(ctx, s, budget);
  return s;
}

z3::check_result Smt::check(z3::solver &s) {
  if (budget.exhausted()) budget.fail();
  limit(ctx, s, budget);
  z3::check_result c = z3::unknown;
  try {
    Budget::Alarm alarm(budget, ctx);
    c = s.check();
  } catch (z3::exception &) {  // interrupted at the deadline ("canceled"), or a real failure
    budget.charge(resources_counted(s), counted);
    if (budget.exhausted()) budget.fail();
    throw;
  }
  budget.charge(resources_counted(s), counted);
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

oracle::Inputs model_inputs(const core::Program &p, const std::vector<TransitionSystem::Frame> &fs, z3::model &m) {
  oracle::Inputs in;
  in.cycles = fs.size();
  for (auto &v : p.inputs) {
    auto &cells = in.streams[v.name];
    for (auto &f : fs) {
      bool present = m.eval(f.p.at(v.name), true).is_true();
      if (!present) {
        cells.push_back(oracle::Cell::absent());
        continue;
      }
      std::vector<int64_t> shape = array::concrete_shape(v.type.shape);
      array::Tensor t = array::Tensor::zeros(v.type.elem, shape);
      auto it = f.v.find(v.name);
      if (it != f.v.end()) {
        z3::expr val = m.eval(it->second, true);
        if (v.type.elem == Scalar::Bool) t.i[0] = val.is_true();
        else if (v.type.elem == Scalar::Real) t.r[0] = real_of(m, it->second);
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
      cells.push_back(oracle::Cell::of(std::move(t)));
    }
  }
  return in;
}

std::string trace_csv(const core::Program &p, const oracle::Inputs &in) {
  std::string s;
  for (size_t k = 0; k < p.inputs.size(); ++k) s += (k ? "," : "") + p.inputs[k].name;
  s += "\n";
  for (size_t n = 0; n < in.cycles; ++n) {
    for (size_t k = 0; k < p.inputs.size(); ++k) {
      std::string c = in.streams.at(p.inputs[k].name)[n].str();
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
