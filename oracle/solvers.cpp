// The two solvers over a finite prefix: Kleene iteration (the literal least fixpoint) and
// the worklist (changes travel along the readers); a cell is written once it is known, and
// error origins are recorded where a rule produces ‖.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <string_view>
#include <unordered_set>

#include "core/primitives.hpp"
#include "oracle/impl.hpp"
#include "ops/scalar_ops.hpp"

namespace rml::oracle {

// Writes a rule's result; returns whether the cell changed. Values only go up in the
// flat order ⊥ ⊑ v ⊑ ‖ (a rule that broke monotonicity is a bug, reported loudly).
bool Oracle::Impl::commit(Store &s, const Node &nd, size_t n, const Out &o) {
  const Column &col = s.cols[nd.out];
  Tag &cell = s.tag_at(nd.out, n);
  const Tag old = cell;
  if (o.tag == Tag::Val) {
    if (col.elem == Scalar::Real) {
      if (o.r.size() != col.numel) throw OracleError("internal: result of '" + col.name + "' has the wrong size");
    } else {
      if (o.i.size() != col.numel) throw OracleError("internal: result of '" + col.name + "' has the wrong size");
    }
  }
  // The payload is compared only when the tag is the same: a cell's first write (from ⊥,
  // nearly every write) then never reads its old payload, a cache miss per cell on a large
  // program.
  if (old == o.tag) {
    if (o.tag != Tag::Val) return false;
    bool same_payload = col.elem == Scalar::Real ? std::memcmp(s.reals(nd.out, n), o.r.data(), col.numel * sizeof(double)) == 0
                                                 : std::equal(o.i.begin(), o.i.end(), s.ints(nd.out, n));
    if (same_payload) return false;
  }
  if (opts.check_monotone && old != Tag::Bot && o.tag != Tag::Err)
    throw OracleError("internal: non-monotone update of '" + col.name + "' at cycle " + std::to_string(n) + " (" +
                      (old == Tag::Err ? "error" : "value") + " replaced)");
  if (old == Tag::Err) return false;  // monotonicity off: never leave ‖
  cell = o.tag;
  if (o.tag == Tag::Val) {
    if (col.elem == Scalar::Real) std::copy(o.r.begin(), o.r.end(), s.reals(nd.out, n));
    else std::copy(o.i.begin(), o.i.end(), s.ints(nd.out, n));
  }
  if (o.tag == Tag::Err && o.rule) note_origin(nd, o.origin == SIZE_MAX ? n : o.origin, o);
  return true;
}

void Oracle::Impl::note_origin(const Node &nd, size_t n, const Out &o) {
  auto &seen = origin_seen[nd.out];
  if (seen.empty()) seen.assign(origin_cycles, 0);  // made at a column's first ‖: most have none
  if (seen[n]) return;
  seen[n] = 1;
  ErrorOrigin e;
  e.var = templ[nd.out].name;
  e.cycle = n;
  e.rule = o.rule;
  e.message = o.why;
  if (nd.eq) e.span = nd.eq->span;
  origins.push_back(std::move(e));
}

Store Oracle::Impl::fresh_store(const Inputs &in) {
  Store s;
  s.cols = templ;
  s.init(in.cycles);
  for (size_t k = 0; k < prog.inputs.size(); ++k) {
    const core::Var &v = prog.inputs[k];
    auto it = in.streams.find(v.name);
    if (it == in.streams.end()) throw OracleError("no stream given for the input '" + v.name + "'");
    if (it->second.size() != s.N)
      throw OracleError("the input '" + v.name + "' has " + std::to_string(it->second.size()) + " cells, expected " +
                        std::to_string(s.N));
    const int ic = input_cols[k];
    const Column &col = s.cols[ic];
    for (size_t n = 0; n < s.N; ++n) {
      const Cell &c = it->second[n];
      s.tag_at(ic, n) = c.tag;
      if (c.tag != Tag::Val) continue;
      if (c.value.elem != col.elem || c.value.shape != col.shape)
        throw OracleError("the input '" + v.name + "' at cycle " + std::to_string(n) + " has a value of the wrong type");
      if (col.elem == Scalar::Real) std::copy(c.value.r.begin(), c.value.r.end(), s.reals(ic, n));
      else std::copy(c.value.i.begin(), c.value.i.end(), s.ints(ic, n));
    }
  }
  // Any other stream gives the outputs of an imported call (Inputs).
  given.assign(s.cols.size(), nullptr);
  imported_returns.clear();
  std::set<std::string> input_names;
  for (auto &v : prog.inputs) input_names.insert(v.name);
  std::map<std::string, const Node *> imported_calls;
  for (auto &nd : nodes)
    if (nd.eq && nd.eq->prim == core::Prim::Apply && nd.eq->op == core::ApplyOp::Imported) imported_calls[nd.eq->lhs] = &nd;
  for (auto &[name, cells] : in.streams) {
    if (input_names.count(name)) continue;
    auto call = imported_calls.find(name);
    if (call == imported_calls.end()) throw OracleError("'" + name + "' is not an input of '" + prog.main + "'");
    if (cells.size() != s.N)
      throw OracleError("the output '" + name + "' of the imported '" + call->second->eq->fn + "' has " +
                        std::to_string(cells.size()) + " cells, expected " + std::to_string(s.N));
    const Column &col = s.cols[static_cast<size_t>(call->second->out)];
    for (size_t n = 0; n < s.N; ++n)
      if (cells[n].tag == Tag::Val && (cells[n].value.elem != col.elem || cells[n].value.shape != col.shape))
        throw OracleError("the output '" + name + "' of the imported '" + call->second->eq->fn + "' at cycle " +
                          std::to_string(n) + " has a value of the wrong type");
    given[static_cast<size_t>(call->second->out)] = &cells;
  }
  origin_seen.assign(s.cols.size(), {});
  origin_cycles = s.N;
  origins.clear();
  evaluations = 0;
  return s;
}

// The executable definition: Jacobi iteration φ^k(⊥) until nothing changes.
uint64_t Oracle::Impl::solve_kleene(Store &s) {
  uint64_t rounds = 0;
  Out o;
  for (;;) {
    ++rounds;
    Store prev = s;  // every rule reads the previous iterate only
    bool changed = false;
    for (size_t n = 0; n < s.N; ++n)
      for (const Node &nd : nodes) {
        apply_rule(nd, n, prev, o);
        changed |= commit(s, nd, n, o);
      }
    if (!changed) return rounds;
    // Each cell rises at most twice (⊥ → v → ‖): the iteration is bounded.
    if (rounds > 2 * s.N * nodes.size() + 2) throw OracleError("internal: Kleene iteration does not converge");
  }
}

// Chaotic iteration: one sweep in cycle order (producers first), plus a queue that
// re-evaluates every already-visited cell whose inputs changed. The limit is the same
// least fixpoint (every rule is monotone; tested against solve_kleene).
void Oracle::Impl::solve_worklist(Store &s) {
  const size_t N = s.N;
  std::vector<uint8_t> queued(nodes.size() * N, 0);  // [node * N + cycle]
  std::vector<int> pos(nodes.size());
  for (size_t k = 0; k < topo.size(); ++k) pos[topo[k]] = static_cast<int>(k);
  std::deque<std::pair<int, size_t>> fifo;
  std::vector<int> order = topo;
  std::mt19937_64 rng(opts.shuffle_seed);
  if (opts.shuffle_seed) {
    std::shuffle(order.begin(), order.end(), rng);
    for (size_t k = 0; k < order.size(); ++k) pos[order[k]] = static_cast<int>(k);
  }
  size_t cur_n = 0;
  int cur_pos = -1;
  auto visited = [&](int node, size_t m) { return m < cur_n || (m == cur_n && pos[node] <= cur_pos); };
  auto push = [&](int node, size_t m) {
    if (m >= N || !visited(node, m) || queued[static_cast<size_t>(node) * N + m]) return;
    queued[static_cast<size_t>(node) * N + m] = 1;
    fifo.emplace_back(node, m);
  };
  auto changed_cell = [&](int c, size_t n) {
    for (const Reader &r : readers[c]) {
      push(r.node, n);
      if (r.mode == Mode::Fwd) {
        for (size_t m = n + 1; m < N; ++m) {
          push(r.node, m);
          if (!skip(s, r.scan, m)) break;
        }
      } else if (r.mode == Mode::Back) {
        for (size_t m = n; m-- > 0;) {
          push(r.node, m);
          if (!skip(s, r.scan, m)) break;
        }
      }
    }
  };
  Out o;
  auto run = [&](int node, size_t m) {
    apply_rule(nodes[node], m, s, o);
    if (commit(s, nodes[node], m, o)) changed_cell(nodes[node].out, m);
  };
  for (cur_n = 0; cur_n < N; ++cur_n) {
    if (opts.progress && cur_n && (cur_n & 1023) == 0) opts.progress(cur_n, N);
    for (cur_pos = 0; cur_pos < static_cast<int>(order.size()); ++cur_pos) {
      run(order[cur_pos], cur_n);
      while (!fifo.empty()) {
        if (opts.shuffle_seed) std::swap(fifo.front(), fifo[rng() % fifo.size()]);
        auto [node, m] = fifo.front();
        fifo.pop_front();
        queued[static_cast<size_t>(node) * N + m] = 0;
        run(node, m);
      }
    }
  }
}

Result Oracle::Impl::run(const Inputs &in, Solver solver) {
  check_memory(in.cycles, memory_needed(in.cycles, solver), opts.max_memory);
  Store s = fresh_store(in);
  Result r;
  r.cycles = s.N;
  auto solve = [&] {
    if (solver == Solver::Kleene) r.rounds = solve_kleene(s);
    else solve_worklist(s);
  };
  given_returns.clear();
  if (opts.free_imported && std::any_of(given.begin(), given.end(), [](auto *g) { return g != nullptr; })) {
    // Options::free_imported: a first run learns the outputs given for each function's
    // arguments (chosen ones record nothing), which the chosen outputs of the second take.
    choosing = true;
    solve();
    choosing = false;
    given_returns = std::move(imported_returns);
    s = fresh_store(in);
  }
  solve();
  r.store_bytes += s.bytes();
  if (solver == Solver::Worklist) r.store_bytes += nodes.size() * s.N;  // the queued bitmap
  r.evaluations = evaluations;
  // Inputs, outputs, then the other equations' variables, each once (a set: a linear
  // search per name made every run quadratic in the node's size).
  std::unordered_set<std::string_view> listed;
  auto list = [&](const std::string &v) {
    if (listed.insert(v).second) r.vars.push_back(v);
  };
  for (auto &v : prog.inputs) list(v.name);
  for (auto &v : prog.outputs) list(v.name);
  for (auto &eq : prog.equations) list(eq.lhs);
  std::sort(origins.begin(), origins.end(), origin_before);
  r.errors = origins;
  // Input clock assumptions A_P: an input is present exactly where its clock ticks.
  for (auto &v : prog.inputs) {
    int c = col(v.name), k = clock_col[static_cast<size_t>(clocks.of(v.name))];
    for (size_t n = 0; n < s.N; ++n) {
      Tag kt = s.tag(k, n), xt = s.tag(c, n);
      if (kt != Tag::Val || xt == Tag::Bot || xt == Tag::Err) continue;
      bool ticks = s.bval(k, n), present = xt == Tag::Val || xt == Tag::Nil;
      if (ticks != present) {
        r.input_clock_violations.push_back(v.name + " at cycle " + std::to_string(n) + ": " +
                                           (present ? "present where its clock " + clocks.str(clocks.of(v.name)) + " is false"
                                                    : "absent where its clock " + clocks.str(clocks.of(v.name)) + " is true"));
        break;
      }
    }
  }
  auto data = std::make_shared<Result::Data>();
  data->col_of = col_of;
  data->store = std::move(s);
  r.data = std::move(data);
  return r;
}

}  // namespace rml::oracle
