// Oracle::Impl: the network of one elaborated node, built once (build.cpp), the rules of
// semantics.md §4 one function each (rules.cpp), and the two solvers that apply them
// to a finite prefix (solvers.cpp). Internal to oracle/.
#pragma once
#include <functional>
#include <map>
#include <vector>

#include "array/eval.hpp"
#include "core/clocks.hpp"
#include "oracle/network.hpp"

namespace rml::oracle {

struct Oracle::Impl {
  const CheckedProgram &cp;
  const core::Program &prog;
  Options opts;
  core::Clocks clocks;
  std::vector<Node> nodes;
  std::vector<std::vector<Reader>> readers;  // per column
  std::unordered_map<std::string, int> col_of;
  std::vector<int> clock_col;                // per clock term
  std::vector<int> input_cols;
  std::vector<Column> templ;                 // column layout
  std::vector<int> topo;                     // node evaluation order within a cycle
  array::Evaluator eval;
  uint64_t evaluations = 0;
  std::vector<ErrorOrigin> origins;
  std::vector<std::vector<uint8_t>> origin_seen;  // per column (empty until its first ‖), per cycle
  size_t origin_cycles = 0;                       // the run's cycles: an origin_seen row's length
  // The given outputs of imported calls (Inputs::streams), per column (null: none), and
  // what each imported function has returned in this run, by its arguments' bytes.
  std::vector<const std::vector<Cell> *> given;
  std::map<std::string, array::Tensor> imported_returns;
  // Options::free_imported: the outputs given for each function's arguments in a first
  // run, which a chosen (⊥) output of the same arguments takes in the second.
  std::map<std::string, array::Tensor> given_returns;
  bool choosing = false;  // the first run: chosen outputs are not recorded

  Impl(const CheckedProgram &c, const core::Program &p, const core::Clocks &ck, Options o)
      : cp(c), prog(p), opts(o), clocks(ck), eval(c) {
    build();
  }

  // build.cpp
  int add_col(const std::string &name, const Type &t, bool clock);
  void build();
  int col(const std::string &v) const;
  static array::Tensor literal(const core::Literal &l);
  void order_nodes();
  uint64_t memory_needed(size_t cycles, Solver solver) const;
  void check_memory(size_t cycles, uint64_t needed, uint64_t limit) const;

  // rules.cpp
  void rule_clock_base(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_clock_on(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_clock_never(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_const(const Node &nd, size_t n, const Store &s, Out &o);
  bool operands_hold_values(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_apply(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_imported(const Node &nd, size_t n, const Store &s, Out &o);
  array::Tensor apply(const core::Equation &eq, const std::vector<array::Tensor> &args);
  void scalar_apply(const Node &nd, size_t n, const Store &s, Out &o);
  bool overflow(const Node &nd, size_t n, const Store &s, Out &o) const;
  void rule_lazy_if(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_when(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_merge(const Node &nd, size_t n, const Store &s, Out &o);
  static long prev_tick(const Store &s, int c, size_t n);
  void rule_fby(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_arrow(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_pre(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_post(const Node &nd, size_t n, const Store &s, Out &o);
  void rule_post_data(const Node &nd, size_t n, const Store &s, Out &o);
  void apply_rule(const Node &nd, size_t n, const Store &s, Out &o);

  // solvers.cpp
  bool commit(Store &s, const Node &nd, size_t n, const Out &o);
  void note_origin(const Node &nd, size_t n, const Out &o);
  Store fresh_store(const Inputs &in);
  uint64_t solve_kleene(Store &s);
  void solve_worklist(Store &s);
  Result run(const Inputs &in, Solver solver);
};

}  // namespace rml::oracle
