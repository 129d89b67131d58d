// Oracle runs on small random inputs whose values Houdini's candidates come from
// (invariants.cpp): the range of each int and bool memory, and the affine relations among
// int memories (affine_relations.hpp), over all cycles or over the cycles where a latch
// holds, and the largest difference of each pair of them. Deterministic: the same runs on
// every machine.
#include <algorithm>
#include <limits>

#include "array/eval.hpp"
#include "checker/affine_relations.hpp"
#include "checker/engine.hpp"

namespace rml::check {

// The range of values each int or bool memory of the node stores, over 8 oracle runs of
// 64 cycles on random small inputs: computed once per check (every encoding's Houdini
// reads it), none when an imported node stops the runs. The same runs and 8 sparser ones
// fill observed_runs_ (the samples of affine relations).
const std::map<std::string, std::pair<int64_t, int64_t>> &Checker::observed_ranges(const Budget &b) {
  if (observed_ranges_) return *observed_ranges_;
  std::set<std::string> sources, int_sources, bool_sources;
  for (auto &eq : prog.equations)
    if ((eq.prim == core::Prim::Fby || eq.prim == core::Prim::Pre) && eq.type.kind == Type::Tensor && eq.type.shape.empty() &&
        eq.type.elem != Scalar::Real) {
      const std::string &src = eq.prim == core::Prim::Pre ? eq.args[0] : eq.args[1];
      sources.insert(src);
      // Relations are looked for among sources on the base clock: their memories are all
      // written at every tick, so a relation of the sources at a cycle is one of the
      // memories after it.
      if (clocks.terms[static_cast<size_t>(clocks.of(src))].kind == core::ClockTerm::Base)
        (eq.type.elem == Scalar::Int ? int_sources : bool_sources).insert(src);
    }
  // At most kRelationColumns ints (the elimination is cubic in their number).
  constexpr size_t kRelationColumns = 48;
  ObservedRuns &obs = observed_runs_;
  if (int_sources.size() >= 2 && int_sources.size() <= kRelationColumns) {
    obs.ints.assign(int_sources.begin(), int_sources.end());
    obs.bools.assign(bool_sources.begin(), bool_sources.end());
  }
  size_t n_bools = 0;
  for (auto &v : prog.inputs)
    if (v.type.elem == Scalar::Bool) n_bools += array::Tensor::zeros(Scalar::Bool, array::concrete_shape(v.type.shape)).i.size();
  std::map<std::string, std::pair<int64_t, int64_t>> range;
  uint64_t seed = 0x9e3779b97f4a7c15ull;
  auto rnd = [&] { seed ^= seed << 13; seed ^= seed >> 7; seed ^= seed << 17; return seed; };
  oracle::Oracle orc(cp, prog, clocks);
  const int runs = obs.ints.empty() ? 8 : 16;
  for (int run = 0; run < runs && !sources.empty(); ++run) {
    if (b.exhausted()) b.fail();  // oracle runs: rml's own work, looked at per run
    // Runs 8..15 (relations only) are sparse, as protocol models' environments want (one
    // event at a time, parameters that stay): in 8..11 at most one bool input element is
    // true at each cycle and each int element keeps one value, in 12..15 each bool is true
    // once in 2·n_bools draws; their ints are drawn from 1..6 (two runs in four), 0..6 or
    // -3..3.
    const bool sparse = run >= 8, one_hot = run < 12;
    const int64_t int_lo = !sparse || run % 4 == 3 ? -3 : run % 4 == 2 ? 0 : 1, int_hi = int_lo < 0 ? 3 : 6;
    oracle::Inputs in;
    in.cycles = 64;
    std::vector<size_t> hot(in.cycles);  // the one bool element true at each cycle (n_bools: none)
    if (sparse && one_hot)
      for (auto &h : hot) h = rnd() % (n_bools + 1);
    size_t bool_at = 0;  // the position of the next bool element among all of them
    for (auto &v : prog.inputs) {
      auto &cells = in.streams[v.name];
      const size_t first = bool_at;
      for (size_t n = 0; n < in.cycles; ++n) {
        array::Tensor t = array::Tensor::zeros(v.type.elem, array::concrete_shape(v.type.shape));
        bool_at = first;
        for (auto &x : t.i)
          if (v.type.elem != Scalar::Bool)
            x = sparse && one_hot && n > 0 ? cells.front().value.i[static_cast<size_t>(&x - t.i.data())]
                                           : int_lo + static_cast<int64_t>(rnd() % static_cast<uint64_t>(int_hi - int_lo + 1));
          else if (!sparse) x = static_cast<int64_t>(rnd() & 1);
          else if (one_hot) x = hot[n] == bool_at++;
          else x = rnd() % (2 * std::max<size_t>(n_bools, 1)) == 0;
        for (auto &x : t.r) x = static_cast<double>(rnd() % 7) - 3;
        cells.push_back(oracle::Cell::of(t));
      }
    }
    oracle::Result res;
    try {
      res = orc.run(in);
    } catch (oracle::ImportedError &) {
      break;  // an imported node's values are unknown: no run to propose ranges from
    }
    for (size_t n = 0; n < res.cycles && !obs.ints.empty(); ++n) {
      ObservedRuns::Row row;
      for (auto &src : obs.ints) {
        if (!res.has(src)) break;
        oracle::Cell c = res.at(src, n);
        if (c.tag != oracle::Tag::Val || c.value.i.size() != 1) break;
        row.ints.push_back(c.value.i[0]);
      }
      if (row.ints.size() != obs.ints.size()) continue;
      for (auto &src : obs.bools) {
        oracle::Cell c = res.has(src) ? res.at(src, n) : oracle::Cell{};
        row.bools.push_back(c.tag == oracle::Tag::Val && c.value.i.size() == 1 ? static_cast<signed char>(c.value.i[0] != 0)
                                                                               : static_cast<signed char>(-1));
      }
      obs.rows.push_back(std::move(row));
    }
    if (sparse) continue;
    for (auto &src : sources) {
      if (!res.has(src)) continue;
      for (size_t n = 0; n < res.cycles; ++n) {
        oracle::Cell c = res.at(src, n);
        if (c.tag != oracle::Tag::Val || c.value.i.size() != 1) continue;
        int64_t x = c.value.i[0];
        auto it = range.find(src);
        if (it == range.end()) range[src] = {x, x};
        else it->second = {std::min(it->second.first, x), std::max(it->second.second, x)};
      }
    }
  }
  observed_ranges_ = std::move(range);
  return *observed_ranges_;
}

// The affine relations among the int columns of observed_runs_ over its rows (with a
// guard: the rows where that bool column is true), computed once per guard. Relations of
// one term (a constant memory) are left to the range candidates.
auto Checker::observed_relations(const std::string &guard) -> const std::vector<ObservedRelation> & {
  ObservedRuns &obs = observed_runs_;
  if (auto it = obs.relations.find(guard); it != obs.relations.end()) return it->second;
  std::vector<ObservedRelation> &out = obs.relations[guard];
  size_t g = obs.bools.size();
  if (!guard.empty()) {
    g = static_cast<size_t>(std::find(obs.bools.begin(), obs.bools.end(), guard) - obs.bools.begin());
    if (g == obs.bools.size()) return out;
  }
  std::vector<std::vector<int64_t>> samples;
  for (auto &row : obs.rows)
    if (g == obs.bools.size() || row.bools[g] == 1) samples.push_back(row.ints);
  for (auto &rel : affine_relations(obs.ints.size(), samples)) {
    ObservedRelation o;
    o.constant = rel.constant;
    for (size_t i = 0; i < obs.ints.size(); ++i)
      if (rel.coeffs[i] != 0) o.terms.emplace_back(obs.ints[i], rel.coeffs[i]);
    if (o.terms.size() >= 2) out.push_back(std::move(o));
  }
  return out;
}

// The largest difference of each ordered pair of int columns of observed_runs_ over its
// rows, for the pairs whose difference varies. A pair whose difference does not fit in an
// int64 on some row is left out (its bound would say little).
auto Checker::observed_differences() -> const std::vector<ObservedDifference> & {
  ObservedRuns &obs = observed_runs_;
  if (obs.differences) return *obs.differences;
  std::vector<ObservedDifference> &out = obs.differences.emplace();
  if (obs.rows.empty()) return out;
  const size_t n = obs.ints.size();
  for (size_t a = 0; a < n; ++a)
    for (size_t b = 0; b < n; ++b) {
      if (a == b) continue;
      int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min(), d = 0;
      bool fits = true;
      for (auto &row : obs.rows) {
        fits = fits && !__builtin_sub_overflow(row.ints[a], row.ints[b], &d);
        lo = std::min(lo, d), hi = std::max(hi, d);
      }
      if (fits && lo != hi) out.push_back(ObservedDifference{obs.ints[a], obs.ints[b], hi});
    }
  return out;
}

}  // namespace rml::check
