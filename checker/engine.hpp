// The checker of one main node: its needs graph, clocks and options, and the analyses of
// the four properties, one file each (the method groups below name their files).
// Internal to checker/: check_program (checker.cpp) is the interface.
#pragma once
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <z3++.h>

#include "checker/budget.hpp"
#include "checker/checker.hpp"
#include "checker/dep_graph.hpp"
#include "checker/smt_session.hpp"
#include "core/clocks.hpp"

namespace rml::check {

// How messages name a user property: 'text', or "name" 'text' (user_properties.cpp).
std::string property_label(const core::CoreProperty &pp);

struct Checker {
  // The node, its clocks and needs graph (built once), the options and the budget every
  // query of the check spends.
  const CheckedProgram &cp;
  const core::Program &prog;
  Options opts;
  Budget budget;
  Budget::Watchdog watchdog{budget};  // interrupts Z3 at the deadline of a wall-clock budget
  core::Clocks clocks;
  DepGraph graph;

  Checker(const CheckedProgram &c, const core::Program &p, const core::Clocks &ck, const Options &o)
      : cp(c), prog(p), opts(o), budget(o), clocks(ck), graph(build_graph(p, clocks)) {}

  // Methods are grouped by the file that defines them (with their documentation).
  z3::expr inv_at(Smt &smt, const std::vector<z3::expr> &state);

  std::map<std::string, const core::Equation *> defs;  // def_of's index

  // The longest run of consecutive cycles where `cont` holds is at most H: returns the
  // smallest such H ≤ max_horizon that Z3 proves (with the run's shortest counterexample
  // for H - 1 kept), or nullopt.
  struct RunBound {
    std::optional<int64_t> h;
    bool falsified_at_max = false;  // a run longer than max_horizon exists (BMC from the initial state)
    std::optional<Counterexample> cex;  // inputs ending with the long run
    size_t run_start = 0;               // the cycle where that run starts
  };

  int vacuous_depth = 0;
  static constexpr int64_t kMaxSearchedHorizon = 512;
  static constexpr int kMaxBmcDepth = 256;  // the deepest run BMC looks at after the proofs fail
  static constexpr uint64_t kInductionUnits = 2'000'000;  // Z3 units of failed k-induction steps, per encoding (run_engines)
  int deep_reached = 0;  // the depth BMC reached for the property being checked, in any encoding

  // A segment: a path of instantaneous edges inside one component, from the cell a post
  // reads (its target) to the source of a post. A chain that passes cycle t in that
  // component walks one segment at t, so its guards are facts about cycle t.
  struct Segment {
    int from_post, to_post;  // edge indices
    std::vector<int> edges;
    std::vector<Lit> guards;  // all at offset 0 (the segment's cycle)
    bool exact = true;
  };

  // The cells of one component reachable from a start cell, over the frames of an
  // unrolling: an exact least-fixpoint encoding (a reached cell has a justification from a
  // cell of smaller rank, so only cells reachable by a finite path are reached), with
  // every guard read at its own cycle. Shared by the proof (free state, start at frame 0,
  // every edge) and the refutation (initial state, any start frame, real dependences only).
  struct CellReach {
    struct Why {
      int edge;
      size_t from;  // cell index (node position * frames + frame)
      z3::expr cond;
    };
    size_t frames = 0;
    std::vector<int> members;
    std::map<int, size_t> index;
    std::vector<z3::expr> sel, sel_t, reach, rank;
    std::vector<std::vector<Why>> why;
    z3::expr_vector escape;  // a post edge whose next tick is past the last frame
    std::vector<z3::expr> self;  // the start cell is reached again
    explicit CellReach(z3::context &c) : escape(c) {}
    size_t cell(int node, size_t t) const { return index.at(node) * frames + t; }
  };

  static constexpr int64_t kMaxTimeExpanded = 64;  // frames of the time-expanded query

  // Looks for a lasso: states equal at cycles i < j, `g` at every cycle of [i, j) and
  // `first` (if given) at i - 1. When the cone of `roots` is encoded exactly, repeating the
  // inputs of [i, j) repeats the states, so `g` holds forever from i: an infinite run, not
  // a long one. The unrolled trace (longer than the search bound after i) is replayed in
  // the oracle, which must show `var` unknown at cycle i + shift; else no evidence.
  struct LassoCex : Counterexample {
    size_t show_at = 0, loop_from = 0, loop_to = 0;
  };

  // invariants.cpp
  // The horizon productivity proved (0 until then, or when it did not): how many cycles
  // a post's prophecy may wait for its confirmation, so smt_invariant's lookahead.
  int64_t proved_horizon = 0;
  // The values every transition system of this check leaves free
  // (TransitionSystem::free_values): the variables on an instantaneous cycle when
  // causality is not valid, every post when productivity is not. Set by check_program
  // after those two, before any other SMT proof; each Smt the checker makes takes it.
  std::set<std::string> free_values;
  int lookahead() const;  // cycles checked after a candidate bad one (invariants.cpp)
  z3::expr main_ticks(const TransitionSystem::Frame &f) const;  // some input present (true without inputs)
  static z3::expr inv_of(Smt &smt, const std::vector<Interval> &invariants, const std::vector<z3::expr> &state);
  void discover_invariants(Smt &smt);
  // Houdini's invariants by kind of system (TransitionSystem::state_key and the latches),
  // proved once and shared by every property whose encoding has that kind.
  std::map<std::string, std::vector<Interval>> houdini_done_;
  const std::map<std::string, std::pair<int64_t, int64_t>> &observed_ranges(const Budget &b);
  std::optional<std::map<std::string, std::pair<int64_t, int64_t>>> observed_ranges_;
  // The values of the memories' sources on the base clock over the runs of
  // observed_ranges and sparser ones (bools mostly false, as protocol models' one-event
  // environments want): the samples of affine relations among int memories, computed
  // once per guard (the empty name: none; else a latch's source, over the cycles where it
  // holds) and proposed to Houdini.
  struct ObservedRelation {
    std::vector<std::pair<std::string, int64_t>> terms;
    int64_t constant = 0;
  };
  // The largest difference `a − b` of two int columns over every row, for the ordered
  // pairs whose difference is not the same on every row (that is an affine relation).
  struct ObservedDifference {
    std::string a, b;
    int64_t max = 0;
  };
  struct ObservedRuns {
    std::vector<std::string> ints, bools;  // the columns
    struct Row {
      std::vector<int64_t> ints;        // every int column has a value
      std::vector<signed char> bools;   // 1 true, 0 false, -1 no value
    };
    std::vector<Row> rows;
    std::map<std::string, std::vector<ObservedRelation>> relations;  // by guard
    std::optional<std::vector<ObservedDifference>> differences;
  };
  ObservedRuns observed_runs_;
  const std::vector<ObservedRelation> &observed_relations(const std::string &guard);
  const std::vector<ObservedDifference> &observed_differences();
  void difference_candidates(const std::vector<TransitionSystem::Memory> &mems, const std::set<int64_t> &consts,
                             std::vector<Interval> &out);
  void real_candidates(const std::vector<TransitionSystem::Memory> &mems, std::vector<Interval> &out);
  void smt_invariant(PropertyResult &r, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                     const std::string &what,
                     const std::function<bool(const oracle::Result &, Counterexample &)> &confirm,
                     bool ticking = false, const std::set<std::string> *roots = nullptr, bool reals = false,
                     bool values_free_first = false);
  // `invariant`: where to put Spacer's invariant when it proves; num/den: its part of what is left.
  void one_lane(PropertyResult &r, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad, const std::string &what,
                const std::function<bool(const oracle::Result &, Counterexample &)> &confirm, bool ticking,
                const std::set<std::string> *roots, bool reals, bool values_free_first);
  std::optional<bool> pdr_proves(Smt &smt, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad, bool ticking,
                                 std::optional<z3::expr> *invariant = nullptr, int num = 2, int den = 3);
  bool cover_is_invariant(Smt &smt, const z3::expr &cover, const std::function<z3::expr(const TransitionSystem::Frame &)> *bad,
                          bool ticking);
  enum class EngineEnd { Decided, Unknown, Wraps };
  // How far one encoding went through the engines, so that a caller may run its BMC and
  // k-induction, try another encoding, and come back for Spacer and deeper BMC.
  struct EngineProgress {
    int bmc_done = 0, induction_done = 0;
    uint64_t steps_cost = 0;       // Z3 units of the failed k-induction steps (kInductionUnits)
    bool spurious = false;         // a bounded run the oracle did not reproduce
    bool induction_over = false;   // BMC and k-induction done (or their slice ran out)
    bool finished = false;         // every engine tried
    bool spacer_only = false;      // the second lane: Houdini and IC3/PDR on the whole budget, nothing else
  };
  EngineEnd run_engines(PropertyResult &r, Smt &smt, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                        const std::string &what, const std::function<bool(const oracle::Result &, Counterexample &)> &confirm,
                        bool ticking, bool wraps, bool deep, EngineProgress *progress = nullptr, bool induction_only = false);
  bool lia_applies() const;
  bool spacer_proves(PropertyResult &r, Smt &smt, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad_only,
                     const std::function<z3::expr(const TransitionSystem::Frame &)> &bad, const std::string &what,
                     const std::string &over, bool ticking, bool wraps, int num, int den);
  // The second lane's work (portfolio.cpp): IC3/PDR over integers, then modulo 2^64.
  void spacer_lane(PropertyResult &r, const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                   const std::string &what, bool ticking, const std::set<std::string> *roots, bool reals);

  // latches.cpp
  // Bool memories that, once false, stay false and keep `bad` false: a wrap while one is
  // down is not counted by the integer encoding (set by smt_invariant for its run).
  static constexpr int kMaxLatchCandidates = 32;
  std::vector<std::string> wrap_latches(const std::function<z3::expr(const TransitionSystem::Frame &)> &bad,
                                        const std::set<std::string> *roots, bool reals, const Budget &share);
  struct Latches {
    std::vector<TransitionSystem::Memory> mems;
    std::vector<size_t> starts, nils;  // every started flag and memory nil flag of the system
  };
  static Latches settled_slots(const TransitionSystem &ts);
  static Latches latch_memories(const TransitionSystem &ts, const std::vector<std::string> &sources);
  static z3::expr latch_down(const std::vector<z3::expr> &state, const Latches &l, const TransitionSystem::Memory &m);
  static z3::expr latch_down(const TransitionSystem::Frame &f, const Latches &latches);
  std::vector<std::string> latches_;  // the integer attempts' latches (wraps not counted, Houdini's guards); empty otherwise
  RunBound bound_runs(const std::function<z3::expr(const TransitionSystem::Frame &)> &cont,
                      const std::set<std::string> &roots, std::optional<int64_t> search = std::nullopt);
  bool assumptions_vacuous();

  // initialisation.cpp
  const core::Equation *def_of(const std::string &v);
  std::set<std::string> may_be_nil();
  // The variables that can be nil on the runs the check considers (a clash of clocks
  // keeps a pre's own first nil: may_be_nil.hpp), computed once.
  const std::set<std::string> &may_be_nil_here();
  std::optional<std::set<std::string>> may_be_nil_here_;
  PropertyResult check_initialisation();

  // clocks.cpp
  PropertyResult check_clocks();
  bool silent_clock_cex(int t, const std::string &var, PropertyResult &r);

  // causality.cpp
  PropertyResult check_causality();

  // overflow.cpp (--int-overflow error, Options::int_overflow_error)
  PropertyResult check_overflow();
  // While set, the transition systems say where an int operation overflows
  // (TransitionSystem::overflow_errors; run_engines sets it on each).
  bool encode_overflow = false;
  // While set, the check is about that reading (the overflow property, user properties):
  // replays run the oracle with ‖ on overflow, and over mathematical integers an operation
  // that would overflow has its exact value, no wrap counted
  // (TransitionSystem::overflow_exact). Clocks, causality, productivity and initialisation
  // keep the wrapping reading their encodings prove.
  bool overflow_reading = false;
  oracle::Options replay_options() const {
    oracle::Options o;
    o.int_overflow_error = overflow_reading;
    return o;
  }

  // user_properties.cpp
  PropertyResult check_property(const core::CoreProperty &pp);
  std::vector<std::string> read_by(const std::string &var);  // the named variables a property reads

  // The scalar bodies of funs, lowered once per application (fun_terms.hpp), for the
  // transition systems (TransitionSystem::fun_body) and the interval analysis.
  std::map<std::pair<const core::Equation *, std::vector<Scalar>>, std::optional<FunTerm>> fun_terms_;
  std::map<const core::Equation *, std::optional<FunTerm>> lowered_;  // any shapes, for the intervals
  std::function<std::optional<FunTerm>(const core::Equation &, const std::vector<Scalar> &)> fun_body();

  // intervals.cpp
  // Bounds of every scalar variable over all the cycles where it is present (binary64
  // interval arithmetic, assumptions as input bounds); a property whose every value is true
  // there is proved.
  struct Bounds {
    double lo = 0, hi = 0;  // reals and ints: [lo, hi] (empty when lo > hi); ±inf included
    bool nan = false;       // reals: may be NaN
    bool t = false, f = false;  // bools: may be true, may be false
    // When the value may be nil: 0 never, 1 only at the first tick of its clock (pre x with
    // x never nil), 2 at any tick.
    int nil = 0;
  };
  std::optional<std::map<std::string, Bounds>> bounds_;
  const std::map<std::string, Bounds> &bounds();
  bool proved_by_bounds(const std::string &var);

  // simulation.cpp
  // Oracle runs on inputs that keep the assumptions (boundary and random values of each
  // input's assumed range), made once per check.
  struct Simulation {
    std::vector<oracle::Inputs> traces;
    std::vector<oracle::Result> results;
  };
  std::optional<Simulation> simulation_;
  const Simulation &simulate();
  std::optional<double> constant_of(const std::string &v, int depth = 0);
  std::map<std::string, std::pair<double, double>> assumed_ranges();
  bool keeps_assumptions(const oracle::Result &res) const;
  double cycle_size() const;
  void shrink(Counterexample &cx, const std::function<bool(const oracle::Result &, Counterexample &)> &fails);
  std::optional<Counterexample> falsify_by_simulation(const std::function<bool(const oracle::Result &, Counterexample &)> &fails);

  // productivity.cpp
  PropertyResult check_productivity(const PropertyResult &causality);
  void drop_dead_edges();
  PropertyResult productivity_of_chains(PropertyResult r);
  bool has_unbounded_assumption() const;
  int64_t max_h() const;

  // backward_chains.cpp
  std::vector<Segment> segments(const std::vector<int> &comp, int c, const std::vector<int> &posts, bool &truncated);
  std::string describe_segment(const Segment &sg);
  static std::string pred_str(const std::vector<Lit> &lits);
  std::optional<int64_t> backward_component(PropertyResult &r, const std::vector<int> &comp, int c,
                                            const std::vector<int> &edges, bool &truncated, bool &no_chain,
                                            bool &bound_is_own);

  // time_expanded.cpp
  CellReach cell_reach(Smt &smt, z3::solver &s, const std::vector<TransitionSystem::Frame> &fs, const std::vector<int> &members,
                       const std::vector<int> &inner, int start_node, bool any_start, bool real_only);
  std::string describe_path(const CellReach &R, z3::model &m, size_t to);
  std::optional<bool> cells_escape(const std::vector<int> &members, const std::vector<int> &inner, const std::set<std::string> &roots,
                                   int64_t B, const Budget &b, std::string &reason, int &self_node);
  std::set<std::string> cell_roots(const std::vector<int> &inner);
  int64_t tighten_horizon(int64_t H);
  std::optional<int64_t> time_expanded_component(PropertyResult &r, const std::vector<int> &comp, int c,
                                                 const std::vector<int> &edges);
  bool refute_self_dependence(PropertyResult &r, const std::vector<int> &members, const std::vector<int> &inner,
                              const std::set<std::string> &roots, int start_node);

  // refutation.cpp
  bool exact_cone(const std::set<std::string> &vars);
  bool refute_forever(PropertyResult &r, const Segment &sg, const std::string &chain);
  std::optional<LassoCex> lasso(const std::set<std::string> &exact_roots, const std::set<std::string> &roots,
                                const std::function<z3::expr(const TransitionSystem::Frame &)> &g,
                                const std::function<z3::expr(const TransitionSystem::Frame &)> &first, const std::string &var,
                                int shift);
  bool attach_unproductive_cex(PropertyResult &r);
};

}  // namespace rml::check
