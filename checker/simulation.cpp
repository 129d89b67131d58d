// Runs of the oracle on inputs that respect the assumptions: the cheap falsifier that goes
// before any solver (boundary and random values of each input's assumed range), the
// candidates of real invariants, and the shrinking of counterexamples toward short runs
// of small, round numbers. Every trace used is checked in the oracle: an assumption false
// (or not a value) at any of its cycles and the trace is not used.
#include <algorithm>
#include <cmath>
#include <limits>

#include "array/eval.hpp"
#include "checker/engine.hpp"
#include "oracle/trace_io.hpp"

namespace rml::check {

namespace {
constexpr double kInfinity = std::numeric_limits<double>::infinity();

// xorshift64: the same traces on every machine.
struct Rng {
  uint64_t s = 0x9e3779b97f4a7c15ull;
  uint64_t next() {
    s ^= s << 13;
    s ^= s >> 7;
    s ^= s << 17;
    return s;
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)
  size_t below(size_t n) { return static_cast<size_t>(next() % n); }
};

// Numbers a person reads: integers, then one or two decimals.
double round_to(double v, double scale) { return std::round(v * scale) / scale; }

// Whether a is simpler to read than b: fewer decimals, then nearer zero (a strict order,
// so shrinking ends).
bool simpler(double a, double b) {
  auto decimals = [](double v) {
    if (!std::isfinite(v)) return 4;
    for (int d = 0; d < 3; ++d)
      if (round_to(v, std::pow(10.0, d)) == v) return d;
    return 3;
  };
  int da = decimals(a), db = decimals(b);
  if (da != db) return da < db;
  return std::isfinite(b) ? std::fabs(a) < std::fabs(b) : false;
}
}  // namespace

// The constant value of a variable defined by literals, negation and copies, if any.
std::optional<double> Checker::constant_of(const std::string &v, int depth) {
  const core::Equation *eq = def_of(v);
  if (!eq || depth > 8) return std::nullopt;
  if (eq->prim == core::Prim::Const)
    return eq->lit.type == Scalar::Real ? eq->lit.r : static_cast<double>(eq->lit.i);
  if (eq->prim == core::Prim::Copy) return constant_of(eq->args[0], depth + 1);
  if (eq->prim == core::Prim::Apply && eq->op == core::ApplyOp::Unary && eq->un == ops::UnOp::Neg)
    if (auto c = constant_of(eq->args[0], depth + 1)) return -*c;
  return std::nullopt;
}

// Bounds of the main node's inputs that the assumptions state as conjunctions of
// comparisons with constants (`assume always x >= -1.0 and x <= 1.0`), and the subranges
// of int inputs: where random and boundary values are drawn. Only a guide: every trace is
// checked against all assumptions in the oracle.
std::map<std::string, std::pair<double, double>> Checker::assumed_ranges() {
  std::map<std::string, std::pair<double, double>> out;
  std::set<std::string> inputs;
  for (auto &v : prog.inputs) {
    inputs.insert(v.name);
    out[v.name] = {-kInfinity, kInfinity};
    if (v.type.range) {
      if (v.type.range->first != INT64_MIN) out[v.name].first = static_cast<double>(v.type.range->first);
      if (v.type.range->second != INT64_MAX) out[v.name].second = static_cast<double>(v.type.range->second);
    }
  }
  // An input, or an element `x[i, j]` of a tensor input at constant indices ("x#k", k its
  // row-major position), through copies.
  auto input_of = [&](std::string v) -> std::optional<std::string> {
    for (int d = 0; d < 8; ++d) {
      if (inputs.count(v)) return v;
      const core::Equation *eq = def_of(v);
      if (eq && eq->prim == core::Prim::Apply && eq->op == core::ApplyOp::Index && inputs.count(eq->args[0])) {
        const core::Var *in = nullptr;
        for (auto &x : prog.inputs)
          if (x.name == eq->args[0]) in = &x;
        std::vector<int64_t> dims = array::concrete_shape(in->type.shape);
        if (dims.size() + 1 != eq->args.size()) return std::nullopt;
        int64_t k = 0;
        for (size_t i = 0; i < dims.size(); ++i) {
          auto c = constant_of(eq->args[i + 1]);
          if (!c || *c < 0 || *c >= static_cast<double>(dims[i])) return std::nullopt;
          k = k * dims[i] + static_cast<int64_t>(*c);
        }
        return eq->args[0] + "#" + std::to_string(k);
      }
      if (!eq || eq->prim != core::Prim::Copy) return std::nullopt;
      v = eq->args[0];
    }
    return std::nullopt;
  };
  std::function<void(const std::string &, int)> walk = [&](const std::string &v, int depth) {
    const core::Equation *eq = def_of(v);
    if (!eq || depth > 64 || eq->prim != core::Prim::Apply || eq->op != core::ApplyOp::Binary) return;
    if (eq->bin == ops::BinOp::And) {
      walk(eq->args[0], depth + 1);
      walk(eq->args[1], depth + 1);
      return;
    }
    ops::BinOp op = eq->bin;
    auto x = input_of(eq->args[0]);
    auto c = constant_of(eq->args[1]);
    if (!x || !c) {  // c op x: mirrored
      x = input_of(eq->args[1]);
      c = constant_of(eq->args[0]);
      if (!x || !c) return;
      switch (op) {
        case ops::BinOp::Lt: op = ops::BinOp::Gt; break;
        case ops::BinOp::Le: op = ops::BinOp::Ge; break;
        case ops::BinOp::Gt: op = ops::BinOp::Lt; break;
        case ops::BinOp::Ge: op = ops::BinOp::Le; break;
        default: break;
      }
    }
    auto &[lo, hi] = out.try_emplace(*x, -kInfinity, kInfinity).first->second;
    switch (op) {
      case ops::BinOp::Ge:
      case ops::BinOp::Gt: lo = std::max(lo, *c); break;
      case ops::BinOp::Le:
      case ops::BinOp::Lt: hi = std::min(hi, *c); break;
      case ops::BinOp::Eq: lo = std::max(lo, *c), hi = std::min(hi, *c); break;
      default: break;
    }
  };
  for (auto &a : prog.assumptions)
    if (!a.eventually) walk(a.var, 0);
  return out;
}

// Whether the oracle's run keeps every assumption (all `always`: a value, true, wherever
// present) at each of its cycles.
bool Checker::keeps_assumptions(const oracle::Result &res) const {
  for (auto &a : prog.assumptions) {
    if (!res.has(a.var)) return false;
    for (size_t n = 0; n < res.cycles; ++n) {
      oracle::Tag t = res.tag(a.var, n);
      if (t == oracle::Tag::Abs) continue;
      if (t != oracle::Tag::Val) return false;
      if (res.at(a.var, n).value.i.at(0) == 0) return false;
    }
  }
  return true;
}

// The traces: each input held at one of its values (bounds, zero, ±1, ...), alternating
// between its bounds, then random values; every input on the base clock. None when an
// assumption is a liveness one (a finite trace cannot show it kept) or an input is
// sampled; fewer when a cycle of the node is large (a fixed count of evaluated elements).
const Checker::Simulation &Checker::simulate() {
  if (simulation_) return *simulation_;
  simulation_.emplace();
  Simulation &sim = *simulation_;
  for (auto &a : prog.assumptions)
    if (a.eventually) return sim;
  for (auto &v : prog.inputs)
    if (clocks.terms[static_cast<size_t>(clocks.of(v.name))].kind != core::ClockTerm::Base) return sim;
  auto ranges = assumed_ranges();
  // The values of each input: its bounds, then numbers inside them.
  std::map<std::string, std::vector<double>> pool;
  Rng rng;
  for (auto &v : prog.inputs) {
    const double lo = ranges[v.name].first, hi = ranges[v.name].second;  // captured below (no bindings: clang 14)
    std::vector<double> &p = pool[v.name];
    auto add = [&](double x) {
      if (v.type.elem != Scalar::Real) {
        if (!std::isfinite(x)) return;
        x = std::round(std::clamp(x, -9.0e18, 9.0e18));
      }
      if (x >= lo && x <= hi && std::find(p.begin(), p.end(), x) == p.end()) p.push_back(x);
    };
    if (v.type.elem == Scalar::Bool) {
      p = {0, 1};
      continue;
    }
    for (double x : {lo, hi, 0.0, 1.0, -1.0}) add(x);
    if (std::isfinite(lo) && std::isfinite(hi)) add(lo + (hi - lo) / 2);
    for (double x : {0.5, -0.5, 2.0, -2.0, 3.0, -3.0, 10.0, -10.0, 0.1, 1e16, -1e16, 1e308, -1e308}) add(x);
    if (v.type.elem == Scalar::Real) {
      if (std::isinf(hi)) add(kInfinity);
      if (std::isinf(lo)) add(-kInfinity);
      if (std::isinf(lo) && std::isinf(hi)) p.push_back(std::numeric_limits<double>::quiet_NaN());  // no comparison bounds it
    }
    if (p.empty()) add(std::isfinite(lo) ? lo : hi);
  }
  auto draw = [&](const core::Var &v) {
    auto [lo, hi] = ranges[v.name];
    if (v.type.elem == Scalar::Bool) return static_cast<double>(rng.next() & 1);
    if (rng.below(3) == 0) return pool[v.name][rng.below(pool[v.name].size())];
    double a = std::max(lo, -100.0), b = std::min(hi, 100.0);
    if (a > b) return pool[v.name][0];
    double x = a + (b - a) * rng.unit();
    if (v.type.elem != Scalar::Real) x = std::round(x);
    if (rng.below(2) == 0) x = round_to(x, 10);  // readable, and near the round constants
    return std::clamp(x, lo, hi);
  };
  const double per_cycle = cycle_size();
  const size_t cycles = 48 + static_cast<size_t>(lookahead());  // slow drifts too (shrinking cuts the run)
  const size_t max_traces = static_cast<size_t>(std::clamp(4.0e6 / (per_cycle * static_cast<double>(cycles)), 0.0, 160.0));
  size_t widest = 1;
  for (auto &[name, p] : pool) widest = std::max(widest, p.size());
  // In the user's reading of ints (--int-overflow error: ‖ where an operation overflows):
  // the runs falsify user properties and the overflow property, which claim that reading;
  // other uses take values only (candidates, which the solver then proves).
  oracle::Options in_reading;
  in_reading.int_overflow_error = opts.int_overflow_error;
  oracle::Oracle orc(cp, prog, clocks, in_reading);
  for (size_t k = 0; k < max_traces; ++k) {
    if (budget.exhausted()) break;  // rml's own work: looked at per run
    oracle::Inputs in;
    in.cycles = cycles;
    for (auto &v : prog.inputs) {
      const std::vector<double> &p = pool[v.name];
      auto &cells = in.streams[v.name];
      for (size_t n = 0; n < cycles; ++n) {
        double x;
        if (k < widest) x = p[k % p.size()];                                   // held
        else if (k < 2 * widest) x = p[(k + n) % std::min<size_t>(p.size(), 2)];  // alternating bounds
        else x = draw(v);
        array::Tensor t = array::Tensor::zeros(v.type.elem, array::concrete_shape(v.type.shape));
        for (auto &e : t.r) e = x;
        for (auto &e : t.i) e = static_cast<int64_t>(x);
        // A tensor: each element in its own assumed range (held: the same end of it).
        for (size_t e = 0; e < t.r.size() + t.i.size() && !v.type.shape.empty(); ++e) {
          auto r = ranges.find(v.name + "#" + std::to_string(e));
          double y = x;
          if (k >= 2 * widest) y = draw(v);
          if (r != ranges.end()) {
            auto [elo, ehi] = r->second;
            if (k < 2 * widest) y = ((k + n) % 2 == 0 || !std::isfinite(ehi)) && std::isfinite(elo) ? elo : ehi;
            else if (std::isfinite(elo) && std::isfinite(ehi)) y = elo + (ehi - elo) * rng.unit();
            if (!std::isfinite(y) || y < elo || y > ehi) y = std::isfinite(elo) ? elo : std::isfinite(ehi) ? ehi : 0.0;
          }
          if (!t.r.empty()) t.r[e] = y;
          else t.i[e] = static_cast<int64_t>(y);
        }
        cells.push_back(oracle::Cell::of(std::move(t)));
      }
    }
    try {
      oracle::Result res = orc.run(in);
      if (!keeps_assumptions(res)) continue;
      sim.traces.push_back(std::move(in));
      sim.results.push_back(std::move(res));
    } catch (std::exception &) {
      break;  // an imported function, a run too large, an evaluation error: no simulation
    }
  }
  return sim;
}

// Elements the oracle evaluates in one cycle of the node, to keep the oracle's work
// bounded on large nodes (ADBench's LSTM, generated Lustre of thousands of equations).
double Checker::cycle_size() const {
  double per_cycle = 1;
  for (auto &eq : prog.equations) {
    double n = 1;
    for (int64_t d : array::concrete_shape(eq.type.shape)) n *= static_cast<double>(d);
    per_cycle += n;
  }
  return per_cycle;
}

// Makes a counterexample easier to read, keeping what `fails` says of its replay (and the
// assumptions): cut after the first failing cycle (and the lookahead a post needs), then
// each input value replaced by 0, ±1 or a rounder number when the failure stays.
void Checker::shrink(Counterexample &cx, const std::function<bool(const oracle::Result &, Counterexample &)> &fails) {
  oracle::Oracle orc(cp, prog, clocks, replay_options());
  size_t runs = 0;
  // At most 400 replays and 10^6 evaluated elements, none past the budget: once done, no
  // candidate is even built (a candidate is a copy of the whole trace).
  const double per_cycle = cycle_size();
  double work = 0;
  auto done = [&] { return runs >= 400 || work > 1.0e6 || budget.exhausted(); };
  auto still = [&](const oracle::Inputs &in) {
    if (done()) return false;
    ++runs;
    work += per_cycle * static_cast<double>(in.cycles);
    try {
      oracle::Result res = orc.run(in);
      Counterexample probe;  // what `fails` says of the candidate (it reads no inputs)
      return keeps_assumptions(res) && fails(res, probe);
    } catch (std::exception &) {  // as in simulate(): that candidate is not a counterexample
      return false;
    }
  };
  if (cx.required) {
    size_t want = cx.required->cycle + 1 + static_cast<size_t>(lookahead());
    if (want < cx.inputs.cycles) {
      oracle::Inputs cut = cx.inputs;
      cut.cycles = want;
      for (auto &kv : cut.streams) kv.second.resize(want);
      if (still(cut)) cx.inputs = std::move(cut);
    }
  }
  for (size_t n = 0; n < cx.inputs.cycles && !done(); ++n)
    for (auto &v : prog.inputs) {
      // No reference into cx.inputs is kept: an accepted candidate replaces it.
      const oracle::Cell &first = cx.inputs.streams.at(v.name)[n];
      if (first.tag != oracle::Tag::Val || v.type.elem == Scalar::Bool) continue;
      const size_t elements = first.value.r.size() + first.value.i.size();
      const bool real = !first.value.r.empty();
      for (size_t e = 0; e < elements && !done(); ++e) {
        // Toward zero while the failure stays: zero, ±1, rounder, then halving and one
        // step (x = 10 becomes 5 where 5 fails and 4 does not).
        for (int step = 0; step < 64; ++step) {
          oracle::Cell &cell_now = cx.inputs.streams.at(v.name)[n];
          double cur = real ? cell_now.value.r[e] : static_cast<double>(cell_now.value.i[e]);
          double half = real ? round_to(cur / 2, 100) : std::trunc(cur / 2);
          double toward = std::fabs(cur) >= 1 ? cur - std::copysign(1.0, cur) : 0.0;
          bool moved = false;
          for (double cand : {0.0, 1.0, -1.0, round_to(cur, 1), round_to(cur, 10), round_to(cur, 100), half, toward}) {
            if (!std::isfinite(cand) || !simpler(cand, cur)) continue;
            oracle::Inputs t = cx.inputs;
            oracle::Cell &c2 = t.streams.at(v.name)[n];
            if (real) c2.value.r[e] = cand;
            else c2.value.i[e] = static_cast<int64_t>(cand);
            if (!still(t)) continue;
            cx.inputs = std::move(t);
            moved = true;
            break;
          }
          if (!moved) break;
        }
      }
    }
  oracle::Result res = orc.run(cx.inputs);
  fails(res, cx);  // the description of the final run
  cx.csv = trace_csv(prog, cx.inputs);
}

// A run of the simulation where the property fails, shrunk.
std::optional<Counterexample> Checker::falsify_by_simulation(
    const std::function<bool(const oracle::Result &, Counterexample &)> &fails) {
  const Simulation &sim = simulate();
  for (size_t k = 0; k < sim.results.size(); ++k) {
    Counterexample cx;
    if (!fails(sim.results[k], cx)) continue;
    cx.inputs = sim.traces[k];
    shrink(cx, fails);
    return cx;
  }
  return std::nullopt;
}

}  // namespace rml::check
