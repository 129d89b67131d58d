// Soundness of elaboration (src/core/normalize.cpp, semantics.md §2.1 and §5).
//
// The source semantics is compositional: an expression denotes a stream transformer built
// from the rules of §4, an equation system denotes its least fixpoint, and a node instance
// denotes the least fixpoint of the callee's system applied to the arguments and the
// instance's base clock (§5, "Node" and "Instantiation"). The elaborated program is one
// flat system, one primitive per equation. The proofs below take small source systems
// that cover every rewrite of normalize.cpp, normalise them with a transcription of
// Elaborator::expr / call / body, and prove with Z3 that both least fixpoints agree on
// every variable of the main node, for every input prefix of length N: every cell of every
// input ranges over ⊥ □ ‖ nil and values, with uninterpreted data, and the main base clock
// over tt ff ⊥ ‖.
//
// Least fixpoints are computed symbolically by chaotic (Gauss-Seidel) iteration from ⊥:
// every iterate is below the lfp (the rules are monotone, stream_laws.cpp), so an iterate
// that a full round leaves unchanged, for every input (a Z3 validity check), is the lfp.
// The lattice has finite height (a cell rises at most twice), which bounds the rounds.
//
// The meta-level arguments (Bekić's lemma, fresh-name hygiene) are in normalisation.md;
// the oracle checks at the end run the implementation itself.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <z3++.h>

#include <cctype>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <sstream>

#include "common/stream_prog_gen.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"
#include "stream_rules.hpp"

using namespace rml::proofs;

namespace {

// ------------------------------------------------------------------ the source language
// The expressions of the front end that reach elaboration, one constructor per primitive.
// `clock` names the clock stream a constant, pre, post or `on` reads (inside a node,
// "base" is the node's base clock β), and, for a call, the instance's base clock κ_f in
// the caller (what clock inference gives β_i, §2.2).
enum class Kd { Var, Const, Add, Lt, Not, If, When, Merge, Fby, Pre, Arrow, Post, On, Tuple, Call };
struct Ex;
using ExP = std::shared_ptr<const Ex>;
struct Ex {
  Kd k;
  std::vector<ExP> args;  // When: {x, c}; Merge: {c, a, b}; On: {c}; Call: actual arguments
  std::string name;       // Var: the variable; Call: the node
  std::string clock;
  bool positive = true;   // When, On
  int lit = 0;            // Const: which constant
};
ExP mk(Kd k, std::vector<ExP> a = {}, std::string name = "", std::string clock = "", bool pos = true, int lit = 0) {
  return std::make_shared<const Ex>(Ex{k, std::move(a), std::move(name), std::move(clock), pos, lit});
}
ExP V(const std::string &x) { return mk(Kd::Var, {}, x); }
ExP C(int lit, const std::string &clock = "base") { return mk(Kd::Const, {}, "", clock, true, lit); }
ExP add(ExP a, ExP b) { return mk(Kd::Add, {a, b}); }
ExP lt(ExP a, ExP b) { return mk(Kd::Lt, {a, b}); }
ExP not_(ExP a) { return mk(Kd::Not, {a}); }
ExP if_(ExP c, ExP a, ExP b) { return mk(Kd::If, {c, a, b}); }
ExP when(ExP x, ExP c, bool pos = true) { return mk(Kd::When, {x, c}, "", "", pos); }
ExP merge(ExP c, ExP a, ExP b) { return mk(Kd::Merge, {c, a, b}); }
ExP fby(ExP a, ExP b) { return mk(Kd::Fby, {a, b}); }
ExP pre(ExP a, const std::string &clock = "base") { return mk(Kd::Pre, {a}, "", clock); }
ExP arrow(ExP a, ExP b) { return mk(Kd::Arrow, {a, b}); }
ExP post(ExP a, const std::string &clock = "base") { return mk(Kd::Post, {a}, "", clock); }
ExP on(const std::string &clock, ExP c, bool pos = true) { return mk(Kd::On, {c}, "", clock, pos); }
ExP tuple(std::vector<ExP> a) { return mk(Kd::Tuple, std::move(a)); }
ExP call(const std::string &node, std::vector<ExP> a, const std::string &clock = "base") {
  return mk(Kd::Call, std::move(a), node, clock);
}

struct Eqn {
  std::vector<std::string> lhs;
  ExP rhs;
};
struct NodeDef {
  std::vector<std::string> in, out, locals;
  std::vector<Eqn> eqs;
};
// A main node: data and bool inputs, the base clock stream "base" (an input: any clock
// cells), and its equations. `bools` lists the variables of type bool (conditions and
// clocks), whose payload is the bool.
struct Prog {
  std::map<std::string, NodeDef> nodes;
  std::vector<std::string> data_in, bool_in;
  std::vector<Eqn> eqs;
  std::set<std::string> bools;
};

// ------------------------------------------------------------------ the semantics
using Env = std::map<std::string, Stream>;

struct Sem {
  Domain &D;
  Rules R;
  const Prog &P;
  int N;
  z3::func_decl plus, less;  // the operators: uninterpreted
  std::vector<z3::expr> lits;
  int lfp_rounds = 0;  // statistics: rounds of every lfp computed
  std::vector<z3::model> witnesses;  // inputs on which some round changed a cell

  Sem(Domain &d, const Prog &p, int n)
      : D(d), R{d}, P(p), N(n), plus(d.c.function("plus", d.data, d.data, d.data)),
        less(d.c.function("less", d.data, d.data, d.c.bool_sort())) {
    for (int k = 0; k < 4; ++k) lits.push_back(d.c.constant(("lit" + std::to_string(k)).c_str(), d.data));
  }

  Stream bottom() {
    Cell b{D.bot(), D.c.constant("bot_d", D.data), D.c.bool_val(false)};
    return Stream(static_cast<size_t>(N), b);
  }
  template <class F>
  Stream each(F f) {
    Stream s;
    for (int n = 0; n < N; ++n) s.push_back(f(n));
    return s;
  }

  // ⟦e⟧ in the environment: one stream per value (a tuple or a call may have several).
  std::vector<Stream> eval(const Ex &e, const Env &env) {
    auto arg = [&](size_t k) { return eval(*e.args.at(k), env).at(0); };
    auto ck = [&]() -> const Stream & { return env.at(e.clock); };
    switch (e.k) {
      case Kd::Var: return {env.at(e.name)};
      case Kd::Const: {
        Cell v{D.val(), lits.at(static_cast<size_t>(e.lit)), D.c.bool_val(false)};
        const Stream &k = ck();
        return {each([&](int n) { return R.constant(k[n], v); })};
      }
      case Kd::Add: {
        Stream a = arg(0), b = arg(1);
        return {each([&](int n) { return R.apply2(plus, a[n], b[n]); })};
      }
      case Kd::Lt: {
        Stream a = arg(0), b = arg(1);
        return {each([&](int n) { return R.rel2(less, a[n], b[n]); })};
      }
      case Kd::Not: {
        Stream a = arg(0);
        return {each([&](int n) { return R.not_(a[n]); })};
      }
      case Kd::If: {
        Stream c = arg(0), a = arg(1), b = arg(2);
        return {each([&](int n) { return R.select(c[n], a[n], b[n]); })};
      }
      case Kd::When: {
        Stream x = arg(0), c = arg(1);
        return {each([&](int n) { return R.when(x[n], c[n], e.positive); })};
      }
      case Kd::Merge: {
        Stream c = arg(0), a = arg(1), b = arg(2);
        return {each([&](int n) { return R.merge(c[n], a[n], b[n]); })};
      }
      case Kd::Fby: return {R.fby(arg(0), arg(1))};
      case Kd::Arrow: return {R.arrow(arg(0), arg(1))};
      case Kd::Pre: return {R.pre(arg(0), ck())};
      case Kd::Post: return {R.post(arg(0), ck())};
      case Kd::On: {
        Stream c = arg(0);
        const Stream &k = ck();
        return {each([&](int n) { return R.clock_on(k[n], c[n], e.positive); })};
      }
      case Kd::Tuple: {
        std::vector<Stream> out;
        for (size_t k = 0; k < e.args.size(); ++k) out.push_back(arg(k));
        return out;
      }
      case Kd::Call: {  // ⟦f⟧(⟦args⟧, κ_f): the callee's own least fixpoint (§5)
        const NodeDef &f = P.nodes.at(e.name);
        Env inner;
        for (size_t k = 0; k < f.in.size(); ++k) inner[f.in[k]] = arg(k);
        inner["base"] = ck();
        Env fix = lfp(f.eqs, inner);
        std::vector<Stream> out;
        for (auto &o : f.out) out.push_back(fix.at(o));
        return out;
      }
    }
    throw std::logic_error("eval");
  }

  // The least fixpoint of `eqs` over `env` (inputs bound), by Gauss-Seidel rounds from ⊥
  // until a round changes no cell for any input. Later equations of the same variable
  // replace earlier ones (only the broken normaliser produces such duplicates).
  Env lfp(const std::vector<Eqn> &eqs, Env env) {
    std::map<std::string, size_t> last;
    for (size_t i = 0; i < eqs.size(); ++i)
      for (auto &x : eqs[i].lhs) last[x] = i;
    for (auto &[x, i] : last) env[x] = bottom();
    const int bound = 2 * N * static_cast<int>(last.size()) + 1;  // the height of the lattice
    for (int round = 0; round < bound; ++round) {
      ++lfp_rounds;
      Env before = env;
      for (size_t i = 0; i < eqs.size(); ++i) {
        std::vector<Stream> v = eval(*eqs[i].rhs, env);
        for (size_t j = 0; j < eqs[i].lhs.size(); ++j)
          if (last.at(eqs[i].lhs[j]) == i) env[eqs[i].lhs[j]] = simplified(v.at(j));
      }
      if (unchanged(before, env, last)) break;
    }
    return env;
  }

  static Stream simplified(Stream s) {
    for (auto &c : s) c = Cell{c.t.simplify(), c.d.simplify(), c.b.simplify()};
    return s;
  }

  bool unchanged(const Env &a, const Env &b, const std::map<std::string, size_t> &vars) {
    z3::expr all = D.c.bool_val(true);
    bool syntactic = true;
    for (auto &[x, i] : vars)
      for (int n = 0; n < N; ++n) {
        const Cell &p = a.at(x)[static_cast<size_t>(n)], &q = b.at(x)[static_cast<size_t>(n)];
        if (z3::eq(p.t, q.t) && z3::eq(p.d, q.d) && z3::eq(p.b, q.b)) continue;
        syntactic = false;
        // Same tag, and the same payloads where the tag is a value (payloads of other
        // cells are never read).
        all = all && p.t == q.t && z3::implies(R.is(p, kVal), p.d == q.d && p.b == q.b);
      }
    if (syntactic) return true;
    // An input on which an earlier round still changed often shows a change again: try
    // the earlier witnesses before asking the solver.
    for (auto it = witnesses.rbegin(); it != witnesses.rend(); ++it)
      if (it->eval(!all, true).is_true()) return false;
    z3::solver s(D.c);
    s.add(!all);
    if (s.check() == z3::unsat) return true;
    witnesses.push_back(s.get_model());
    return false;
  }
};

// ------------------------------------------------------------------ the normaliser
// A transcription of Elaborator (normalize.cpp): expr() names every non-variable operand
// with a fresh `prefix$k`, writes the equation's own primitive into its destination, and
// call() inlines an instance under the prefix `f$k.`, renaming formal inputs to the actual
// arguments' variables, outputs to the destinations, locals and β to the caller's names.
struct Normaliser {
  const Prog &P;
  std::vector<Eqn> out;
  int temp_count = 0;
  std::map<std::string, int> instance_count;
  // Variants: both are sound and are proved equal to the source too.
  bool copy_inputs = false;   // a copy `f$k.a = actual` per formal input instead of renaming
  bool copy_outputs = false;  // outputs in `f$k.o`, then a copy into the destination
  // Deliberately broken, for the negative control only.
  bool broken_base = false;   // an inlined instance runs on the main base clock, not κ_f
  bool broken_fresh = false;  // the fresh counter does not advance: temporaries collide

  struct Frame {
    std::string prefix;
    std::map<std::string, std::string> rename;
  };

  explicit Normaliser(const Prog &p) : P(p) {}

  std::string fresh(const Frame &f) {
    if (!broken_fresh || temp_count == 0) ++temp_count;
    return f.prefix + "$" + std::to_string(temp_count);
  }
  std::string emit(ExP e, const Frame &f, const std::optional<std::string> &dest) {
    std::string lhs = dest ? *dest : fresh(f);
    out.push_back(Eqn{{lhs}, std::move(e)});
    return lhs;
  }

  std::vector<std::string> expr(const Ex &e, Frame &f, const std::vector<std::optional<std::string>> &dests) {
    auto dest = [&](size_t k) { return k < dests.size() ? dests[k] : std::nullopt; };
    auto one = [&](size_t k) { return V(expr(*e.args.at(k), f, {}).at(0)); };
    auto ck = [&] { return f.rename.at(e.clock); };
    switch (e.k) {
      case Kd::Var: {
        std::string src = f.rename.at(e.name);
        if (!dest(0)) return {src};
        return {emit(V(src), f, dest(0))};  // Prim::Copy
      }
      case Kd::Const: return {emit(C(e.lit, ck()), f, dest(0))};
      case Kd::On: return {emit(on(ck(), one(0), e.positive), f, dest(0))};
      case Kd::Pre: return {emit(pre(one(0), ck()), f, dest(0))};
      case Kd::Post: return {emit(post(one(0), ck()), f, dest(0))};
      case Kd::Not: return {emit(not_(one(0)), f, dest(0))};
      case Kd::Add:
      case Kd::Lt:
      case Kd::When:
      case Kd::Fby:
      case Kd::Arrow: {
        ExP a = one(0), b = one(1);  // left to right, as normalize.cpp
        return {emit(mk(e.k, {a, b}, "", "", e.positive), f, dest(0))};
      }
      case Kd::If:
      case Kd::Merge: {
        ExP a = one(0), b = one(1), c = one(2);
        return {emit(mk(e.k, {a, b, c}), f, dest(0))};
      }
      case Kd::Tuple: {
        std::vector<std::string> outs;
        for (size_t k = 0; k < e.args.size(); ++k) outs.push_back(expr(*e.args[k], f, {dest(k)}).at(0));
        return outs;
      }
      case Kd::Call: return call(e, f, dests);
    }
    throw std::logic_error("normalise");
  }

  std::vector<std::string> call(const Ex &e, Frame &f, const std::vector<std::optional<std::string>> &dests) {
    const NodeDef &callee = P.nodes.at(e.name);
    Frame g;
    g.prefix = f.prefix + e.name + "$" + std::to_string(++instance_count[e.name]) + ".";
    for (size_t k = 0; k < callee.in.size(); ++k) {
      std::string a = expr(*e.args.at(k), f, {}).at(0);
      if (copy_inputs) g.rename[callee.in[k]] = emit(V(a), g, g.prefix + callee.in[k]);
      else g.rename[callee.in[k]] = a;
    }
    g.rename["base"] = broken_base ? std::string("base") : f.rename.at(e.clock);
    std::vector<std::string> outs;
    for (size_t k = 0; k < callee.out.size(); ++k) {
      std::optional<std::string> d = k < dests.size() ? dests[k] : std::nullopt;
      std::string name = d && !copy_outputs ? *d : g.prefix + callee.out[k];
      g.rename[callee.out[k]] = name;
      outs.push_back(name);
    }
    body(callee, g);
    if (copy_outputs)
      for (size_t k = 0; k < outs.size(); ++k)
        if (k < dests.size() && dests[k]) outs[k] = emit(V(outs[k]), f, dests[k]);
    return outs;
  }

  void body(const NodeDef &n, Frame &f) {
    for (auto &l : n.locals)
      if (!f.rename.count(l)) f.rename[l] = f.prefix + l;
    for (auto &eq : n.eqs) {
      std::vector<std::optional<std::string>> dests;
      for (auto &x : eq.lhs) dests.push_back(f.rename.at(x));
      expr(*eq.rhs, f, dests);
    }
  }

  // The main node, as elaborate(): inputs, outputs, locals and the base clock keep their
  // names.
  std::vector<Eqn> run() {
    Frame f;
    f.rename["base"] = "base";
    for (auto &x : P.data_in) f.rename[x] = x;
    for (auto &x : P.bool_in) f.rename[x] = x;
    for (auto &eq : P.eqs)
      for (auto &x : eq.lhs) f.rename[x] = x;
    for (auto &eq : P.eqs) {
      std::vector<std::optional<std::string>> dests(eq.lhs.begin(), eq.lhs.end());
      expr(*eq.rhs, f, dests);
    }
    return out;
  }
};

// One primitive per equation, every operand a variable: the normal form of §2.1.
bool is_normal(const std::vector<Eqn> &eqs) {
  for (auto &eq : eqs) {
    if (eq.lhs.size() != 1 || eq.rhs->k == Kd::Tuple || eq.rhs->k == Kd::Call) return false;
    for (auto &a : eq.rhs->args)
      if (a->k != Kd::Var) return false;
  }
  return true;
}

struct Check {
  bool holds;
  std::string counterexample;
  int rounds;
};

// Does the normal form of `p` (made by a Normaliser set up by `variant`) have the same
// least fixpoint as `p` on every variable of the main node, for every input prefix of
// length N? With `against`, the comparison is with a second normal form instead of `p`.
Check same_meaning(const Prog &p, int N, const std::function<void(Normaliser &)> &variant = {},
                   const std::function<void(Normaliser &)> *against = nullptr) {
  Domain D;
  Sem S(D, p, N);
  Env in;
  for (auto &x : p.data_in) in[x] = fresh_stream(D, x, N);
  for (auto &x : p.bool_in) in[x] = fresh_stream(D, x, N);
  in["base"] = fresh_stream(D, "base", N);
  auto normal_form = [&](const std::function<void(Normaliser &)> &v) {
    Normaliser norm(p);
    if (v) v(norm);
    std::vector<Eqn> flat = norm.run();
    EXPECT_TRUE(is_normal(flat));
    return flat;
  };
  Env src = against ? S.lfp(normal_form(*against), in) : S.lfp(p.eqs, in);
  Env nf = S.lfp(normal_form(variant), in);
  const std::string left = against ? " (other normal form)" : " (source)";
  z3::expr claim = D.c.bool_val(true);
  std::vector<std::pair<std::string, std::pair<Stream, bool>>> shown;
  for (auto &x : p.data_in) shown.push_back({x, {in[x], false}});
  for (auto &x : p.bool_in) shown.push_back({x, {in[x], true}});
  shown.push_back({"base", {in["base"], true}});
  std::set<std::string> seen;
  for (auto &e : p.eqs)
    for (auto &x : e.lhs) {
      if (!seen.insert(x).second) continue;
      bool boolean = p.bools.count(x) > 0;
      claim = claim && eq(S.R, src.at(x), nf.at(x), boolean);
      shown.push_back({x + left, {src.at(x), boolean}});
      shown.push_back({x + " (normal form)", {nf.at(x), boolean}});
    }
  claim = z3::implies(is_clock(S.R, in["base"]), claim);
  std::string cex = counterexample(D, claim, shown);
  return {cex.empty(), cex, S.lfp_rounds};
}

}  // namespace

// ------------------------------------------------------------------ the proofs
namespace {

Eqn def(std::string x, ExP e) { return Eqn{{std::move(x)}, std::move(e)}; }
Eqn defs(std::vector<std::string> xs, ExP e) { return Eqn{std::move(xs), std::move(e)}; }

// The nodes the instance cases call; "base" is the node's base clock β.
std::map<std::string, NodeDef> library() {
  std::map<std::string, NodeDef> n;
  n["acc"] = {{"a"}, {"o"}, {}, {def("o", fby(C(0), add(V("o"), V("a"))))}};          // a constant on β, feedback
  n["d"] = {{"a"}, {"o"}, {}, {def("o", fby(C(1), V("a")))}};                          // not strict in a
  n["sw"] = {{"a", "b"}, {"p", "q"}, {}, {def("p", V("b")), def("q", fby(C(1), V("a")))}};  // two outputs, a copy
  n["fut"] = {{"a"}, {"o"}, {"t"}, {def("t", post(V("a"))), def("o", add(V("t"), V("a")))}};  // post on β, a local
  n["both"] = {{"a", "c"}, {"o"}, {"k"},                                               // a clock local, a constant on it
               {def("k", on("base", V("c"))),
                def("o", merge(V("c"), add(when(V("a"), V("c")), C(0, "k")), when(V("a"), V("c"), false)))}};
  n["twice"] = {{"a"}, {"o"}, {}, {def("o", call("acc", {call("acc", {V("a")})}))}};    // nested instances
  n["cnt"] = {{"r"}, {"n"}, {},                                                        // Lustre counter with reset
              {def("n", if_(V("r"), C(0), arrow(C(0), add(pre(V("n")), C(1)))))}};
  return n;
}

struct Case {
  std::string name;
  Prog prog;
};

// Sub-expression naming (Elaborator::expr), and every primitive in operand position.
std::vector<Case> naming_cases() {
  std::vector<Case> cs;
  auto prog = [](std::vector<std::string> data, std::vector<std::string> bools_in, std::vector<Eqn> eqs,
                 std::set<std::string> bools = {}) {
    Prog p;
    p.data_in = std::move(data);
    p.bool_in = std::move(bools_in);
    p.eqs = std::move(eqs);
    p.bools = std::move(bools);
    return p;
  };
  cs.push_back({"o = (y + z) when (y < z)", prog({"y", "z"}, {}, {def("o", when(add(V("y"), V("z")), lt(V("y"), V("z"))))})});
  cs.push_back({"o = 0 fby (o + y)", prog({"y"}, {}, {def("o", fby(C(0), add(V("o"), V("y"))))})});
  cs.push_back({"o = 0 -> (pre o + y)", prog({"y"}, {}, {def("o", arrow(C(0), add(pre(V("o")), V("y"))))})});
  cs.push_back({"o = merge c (y when c) ((post o) whenot c)",
                prog({"y"}, {"c"}, {def("o", merge(V("c"), when(V("y"), V("c")), when(post(V("o")), V("c"), false)))})});
  cs.push_back({"o = (o + y) + z (instantaneous loop)", prog({"y", "z"}, {}, {def("o", add(add(V("o"), V("y")), V("z")))})});
  cs.push_back({"o = if not c then y else (1 fby o)",
                prog({"y"}, {"c"}, {def("o", if_(not_(V("c")), V("y"), fby(C(1), V("o"))))})});
  cs.push_back({"k = base on c; o = merge c ((y when c) + 0^k) (z whenot c)",
                prog({"y", "z"}, {"c"},
                     {def("k", on("base", V("c"))),
                      def("o", merge(V("c"), add(when(V("y"), V("c")), C(0, "k")), when(V("z"), V("c"), false)))},
                     {"k"})});
  cs.push_back({"(p, q) = (y + z, pre p); r = q (tuple, copy)",
                prog({"y", "z"}, {}, {defs({"p", "q"}, tuple({add(V("y"), V("z")), pre(V("p"))})), def("r", V("q"))})});
  return cs;
}

// Node instances (Elaborator::call): inlining under a prefix, with renaming.
std::vector<Case> instance_cases() {
  std::vector<Case> cs;
  auto prog = [](std::vector<std::string> data, std::vector<std::string> bools_in, std::vector<Eqn> eqs,
                 std::set<std::string> bools = {}) {
    Prog p;
    p.nodes = library();
    p.data_in = std::move(data);
    p.bool_in = std::move(bools_in);
    p.eqs = std::move(eqs);
    p.bools = std::move(bools);
    return p;
  };
  cs.push_back({"k = base on c; o = acc(y when c) on k",
                prog({"y"}, {"c"}, {def("k", on("base", V("c"))), def("o", call("acc", {when(V("y"), V("c"))}, "k"))}, {"k"})});
  cs.push_back({"o = d(o + y) (feedback through an instance)", prog({"y"}, {}, {def("o", call("d", {add(V("o"), V("y"))}))})});
  cs.push_back({"(p, q) = sw(y + q, post y)",
                prog({"y"}, {}, {defs({"p", "q"}, call("sw", {add(V("y"), V("q")), post(V("y"))}))})});
  cs.push_back({"(p, q) = sw(q, p) (the destinations as the arguments)", prog({}, {}, {defs({"p", "q"}, call("sw", {V("q"), V("p")}))})});
  cs.push_back({"(p, q) = sw(y, y) (one variable, two formals)", prog({"y"}, {}, {defs({"p", "q"}, call("sw", {V("y"), V("y")}))})});
  cs.push_back({"o = fut(y) (post on the instance's clock)", prog({"y"}, {}, {def("o", call("fut", {V("y")}))})});
  cs.push_back({"o = both(y, c) (a clock local)", prog({"y"}, {"c"}, {def("o", call("both", {V("y"), V("c")}))})});
  cs.push_back({"o = twice(y) (nested instances)", prog({"y"}, {}, {def("o", call("twice", {V("y")}))})});
  cs.push_back({"o = cnt(c) + y (pre, ->, if)", prog({"y"}, {"c"}, {def("o", add(call("cnt", {V("c")}), V("y")))})});
  return cs;
}

constexpr int kNamingN = 4;    // prefix length for the naming cases
constexpr int kInstanceN = 3;  // and for the instances (nested fixpoints cost more)

}  // namespace

// Naming sub-expressions with fresh `$k` equations preserves the least fixpoint, on every
// input prefix: recursion through fby, pre/->, post, an instantaneous loop (⊥ both ways),
// eager if, a clock equation with a constant on it, tuples and copies.
TEST(Normalisation, NamingSubexpressionsPreservesTheMeaning) {
  for (auto &c : naming_cases()) {
    Check r = same_meaning(c.prog, kNamingN);
    EXPECT_TRUE(r.holds) << c.name << "\n" << r.counterexample;
  }
}

// Inlining an instance (renaming its inputs to the actual arguments, its outputs to the
// destinations, its locals under the prefix, its base clock to κ_f) has the meaning of
// applying the node's own least fixpoint (§5: Bekić), including feedback through the
// instance, several outputs, post/pre/constants on the instance's clock, clock locals and
// nested instances.
TEST(Normalisation, InliningInstancesPreservesTheMeaning) {
  for (auto &c : instance_cases()) {
    Check r = same_meaning(c.prog, kInstanceN);
    EXPECT_TRUE(r.holds) << c.name << "\n" << r.counterexample;
  }
}

// Renaming a formal input to the actual's variable (no copy) and writing outputs straight
// into the destinations are copy eliminations (normalisation.md, L3): the normal form
// with copy equations `f$k.a = actual`, `dest = f$k.o` has the same least fixpoint as the
// one normalize.cpp makes.
TEST(Normalisation, RenamingEqualsCopying) {
  const std::function<void(Normaliser &)> copies = [](Normaliser &n) {
    n.copy_inputs = true;
    n.copy_outputs = true;
  };
  for (auto &c : instance_cases()) {
    Check r = same_meaning(c.prog, kInstanceN, {}, &copies);
    EXPECT_TRUE(r.holds) << c.name << "\n" << r.counterexample;
  }
}

// Negative controls: a normaliser that runs inlined instances on the main base clock, and
// one whose fresh names collide, are refuted (with Z3's counterexample).
TEST(Normalisation, BrokenNormalisersAreCaught) {
  auto inst = instance_cases();
  Check wrong_base = same_meaning(inst.at(0).prog, kInstanceN, [](Normaliser &n) { n.broken_base = true; });
  EXPECT_FALSE(wrong_base.holds);
  std::cout << "instance on the wrong clock (" << inst.at(0).name << "):\n" << wrong_base.counterexample;
  auto nm = naming_cases();
  Check collide = same_meaning(nm.at(0).prog, kNamingN, [](Normaliser &n) { n.broken_fresh = true; });
  EXPECT_FALSE(collide.holds);
  std::cout << "colliding fresh names (" << nm.at(0).name << "):\n" << collide.counterexample;
}

// Eager `if` stays a pointwise application (§4.3, [paper]); it is not the Lustre reading
// `merge c (a when c) (b when not c)`. The two agree where c is a bool or absent and the
// branches are values aligned with it, but not when the discarded branch is nil: nil
// propagates through operators (§4.3 case 4 comes before case 5, select), so
// `if c then x else pre x` is nil at the first tick even where c is true. A finding.
TEST(Normalisation, EagerIfIsMergeOfWhensOnlyWithoutNil) {
  Domain D;
  Rules R{D};
  Stream a = fresh_stream(D, "a", 1), b = fresh_stream(D, "b", 1), c = fresh_stream(D, "c", 1);
  Cell i = R.select(c[0], a[0], b[0]), m = R.merge(c[0], R.when(a[0], c[0], true), R.when(b[0], c[0], false));
  z3::expr aligned = (R.is(c[0], kVal) && R.is(a[0], kVal) && R.is(b[0], kVal)) ||
                     (R.is(c[0], kAbs) && R.is(a[0], kAbs) && R.is(b[0], kAbs));
  EXPECT_TRUE(valid(D, z3::implies(aligned, eq(R, i, m, false))));
  z3::expr with_nil = (R.is(c[0], kVal) && R.present(a[0]) && R.present(b[0])) ||
                      (R.is(c[0], kAbs) && R.is(a[0], kAbs) && R.is(b[0], kAbs));
  std::string cex = counterexample(D, z3::implies(with_nil, eq(R, i, m, false)),
                                   {{"c", {c, true}}, {"a", {a, false}}, {"b", {b, false}},
                                    {"if c then a else b", {{i}, false}}, {"merge c (a when c) (b whenot c)", {{m}, false}}});
  EXPECT_FALSE(cex.empty());
  std::cout << "finding (eager if propagates the discarded nil):\n" << cex;
}

// ------------------------------------------------------------------ the implementation
// The checks above are about a transcription of the elaborator. The ones below run the
// front end, elaborate() and the oracle themselves.
namespace {

const bool kRcParams = [] {
  const char *cur = std::getenv("RC_PARAMS");
  std::string v = cur ? cur : "";
  if (v.find("max_success") == std::string::npos) setenv("RC_PARAMS", (v.empty() ? "" : v + " ").append("max_success=1000").c_str(), 1);
  return true;
}();

struct Compiled {
  std::unique_ptr<rml::FrontendResult> fe;
  rml::core::Program prog;
};
Compiled compile(const std::string &text, const std::string &main = "main") {
  Compiled c;
  c.fe = rml::run_frontend("norm.rml", text);
  if (c.fe->diags.has_errors()) throw std::runtime_error("front end errors in:\n" + text);
  c.prog = rml::core::elaborate(c.fe->checked, main);
  return c;
}

// A random value of a scalar type.
rml::oracle::Cell value_cell(rml::Scalar t) {
  using rml::oracle::Cell;
  switch (t) {
    case rml::Scalar::Bool: return Cell::of(rml::array::Tensor::boolean(*rc::gen::arbitrary<bool>()));
    case rml::Scalar::Int: return Cell::of(rml::array::Tensor::integer(*rc::gen::inRange(-3, 4)));
    case rml::Scalar::Real: return Cell::of(rml::array::Tensor::real(*rc::gen::inRange(-3, 4) + 0.5));
  }
  return Cell::bot();
}
// A random input cell of every kind: ⊥, □, ‖, nil or a small value.
rml::oracle::Cell any_cell(rml::Scalar t) {
  using rml::oracle::Cell;
  switch (*rc::gen::inRange(0, 8)) {
    case 0: return Cell::bot();
    case 1: return Cell::absent();
    case 2: return Cell::error();
    case 3: return Cell{rml::oracle::Tag::Nil, {}};
    default: return value_cell(t);
  }
}
// Random prefixes for the inputs of an elaborated main; `well_clocked`: values or □ only,
// all inputs present at the same cycles (the admissible inputs of a program on base).
rml::oracle::Inputs random_inputs(const rml::core::Program &p, size_t len, bool well_clocked = false) {
  rml::oracle::Inputs in;
  in.cycles = len;
  std::vector<bool> ticks;
  for (size_t n = 0; n < len; ++n) ticks.push_back(*rc::gen::inRange(0, 4) != 1);
  for (auto &v : p.inputs)
    for (size_t n = 0; n < len; ++n) {
      if (!well_clocked) in.streams[v.name].push_back(any_cell(v.type.elem));
      else in.streams[v.name].push_back(ticks[n] ? value_cell(v.type.elem) : rml::oracle::Cell::absent());
    }
  return in;
}

// Source programs and their normal forms written by hand (inlined, one primitive per
// equation, the desugarings undone): the oracle gives the same streams on every input.
struct HandPair {
  std::string name, source, normal;
  std::vector<std::string> compared;  // variables present in both
};
std::vector<HandPair> hand_pairs() {
  return {
      {"an instance on a sampled clock, whenot",
       "node acc(a: int) -> (o: int)\n  o = 0 fby (o + a);\n"
       "node main(y: int, c: bool) -> (o: int)\n  o = merge c (acc(y when c)) (y whenot c);\n",
       "node main(y: int, c: bool) -> (o: int)\n"
       "  t1 = y when c;\n  z = 0;\n  s = ao + t1;\n  ao = z fby s;\n  t3 = y when not c;\n  o = merge c ao t3;\n",
       {"o"}},
      {"Lustre clause merge, pre, ->, if, an instance",
       "node cnt(r: bool) -> (n: int)\n  n = if r then 0 else (0 -> pre n + 1);\n"
       "node main(c: bool, r: bool) -> (o: int)\n  o = merge c (false -> (pre o) whenot c) (true -> cnt(r when c));\n",
       "node main(c: bool, r: bool) -> (o: int)\n"
       "  rc = r when c;\n  z0 = 0;\n  z1 = 0;\n  one = 1;\n  pn = pre n;\n  inc = pn + one;\n  rest = z1 -> inc;\n"
       "  n = if rc then z0 else rest;\n  po = pre o;\n  back = po when not c;\n  o = merge c n back;\n",
       {"o"}},
      {"two outputs into destinations, feedback through the instance, post",
       "node sw(a: int, b: int) -> (p: int, q: int)\n  p = b;\n  q = 1 fby a;\n"
       "node main(y: int) -> (o: int, u: int)\n  (o, u) = sw(y + u, post y);\n",
       "node main(y: int) -> (o: int, u: int)\n  t1 = y + u;\n  t2 = post y;\n  o = t2;\n  one = 1;\n  u = one fby t1;\n",
       {"o", "u"}},
      {"nested instances",
       "node both(a: int, c: bool) -> (o: int)\n  o = merge c ((a when c) + 1) (a whenot c);\n"
       "node twice(a: int, c: bool) -> (o: int)\n  o = both(both(a, c), c);\n"
       "node main(y: int, c: bool) -> (o: int)\n  o = twice(y, c);\n",
       "node main(y: int, c: bool) -> (o: int)\n"
       "  w1 = y when c;\n  k1 = 1;\n  s1 = w1 + k1;\n  n1 = y when not c;\n  b1 = merge c s1 n1;\n"
       "  w2 = b1 when c;\n  k2 = 1;\n  s2 = w2 + k2;\n  n2 = b1 when not c;\n  o = merge c s2 n2;\n",
       {"o"}},
  };
}

// `print_core` of an elaborated program, read back as a source program: the `var`
// section is dropped (paper-form locals get their clocks by inference, as the elaborated
// temporaries do, rather than from the annotations print_core writes). `names` receives
// how print_core spells the names made by elaboration (`$k` -> `tk`, `f$k.x` -> `f_k_x`:
// core::printed_names).
std::string reprint(const rml::core::Program &p, std::map<std::string, std::string> &names) {
  std::istringstream lines(rml::core::print_core(p));
  std::string line, text;
  bool in_var = false;
  while (std::getline(lines, line)) {
    if (line == "var") in_var = true;
    else if (line == "let") in_var = false;
    if (!in_var) text += line + "\n";
  }
  for (auto &[name, spelt] : rml::core::printed_names(p))
    if (name != spelt) names[name] = spelt;
  return text;
}

}  // namespace

// The desugarings of the parser reach elaboration as one primitive: `x whenot c` and
// `x when not c` are `When` with positive = false; the Lustre clause merges, in either
// order, are `merge c a b`; eager `if` is a pointwise `Apply`.
TEST(Normalisation, DesugaringsGiveTheSameCoreProgram) {
  auto core = [](const std::string &body) {
    return rml::core::print_core(compile("node main(x: int, y: int, c: bool) -> (o: int)\n" + body).prog);
  };
  EXPECT_EQ(core("  o = merge c (x when c) (y whenot c);\n"), core("  o = merge c (x when c) (y when not c);\n"));
  EXPECT_EQ(core("  o = merge c (true -> x when c) (false -> y when not c);\n"),
            core("  o = merge c (x when c) (y when not c);\n"));
  EXPECT_EQ(core("  o = merge c (false -> y when not c) (true -> x when c);\n"),
            core("  o = merge c (x when c) (y when not c);\n"));
  Compiled i = compile("node main(x: int, y: int, c: bool) -> (o: int)\n  o = if c then x else y;\n");
  ASSERT_EQ(i.prog.equations.size(), 1u);
  EXPECT_EQ(i.prog.equations[0].prim, rml::core::Prim::Apply);
  EXPECT_EQ(i.prog.equations[0].op, rml::core::ApplyOp::If);
}

// The hand-normalised programs mean what their sources mean, according to the oracle, on
// random inputs with every kind of cell.
RC_GTEST_PROP(Normalisation, HandNormalisedProgramsAgreeWithTheirSources, ()) {
  static const std::vector<HandPair> pairs = hand_pairs();
  static std::vector<std::pair<Compiled, Compiled>> compiled = [] {
    std::vector<std::pair<Compiled, Compiled>> v;
    for (auto &h : pairs) v.emplace_back(compile(h.source), compile(h.normal));
    return v;
  }();
  size_t k = *rc::gen::inRange<size_t>(0, pairs.size());
  auto &[src, nf] = compiled[k];
  rml::oracle::Inputs in = random_inputs(src.prog, *rc::gen::inRange<size_t>(1, 9));
  auto a = rml::oracle::Oracle(src.fe->checked, src.prog).run(in);
  auto b = rml::oracle::Oracle(nf.fe->checked, nf.prog).run(in);
  for (auto &x : pairs[k].compared)
    for (size_t n = 0; n < in.cycles; ++n) RC_ASSERT(a.at(x, n) == b.at(x, n));
}

// Elaboration is idempotent in meaning: the elaborated program, printed and read back as a
// source program, gives the same stream for every variable, on random programs with
// every primitive and a node instance (tests/common/stream_prog_gen.hpp). Clock inference
// runs again on the flat program, without the instance's declared interface: the clocks
// it gives constants, pre and post inside the inlined instance must be the ones the
// instance's base clock gave them. Programs with clock clashes are skipped (their clocks
// depend on the order of unification).
RC_GTEST_PROP(Normalisation, ReadingBackTheNormalFormPreservesEveryStream, ()) {
  rml::testgen::ProgGen g;
  g.well_clocked = *rc::gen::arbitrary<bool>();
  std::string text = g.program();
  RC_LOG() << text;
  Compiled src = compile(text);
  std::map<std::string, std::string> names;
  std::string flat = reprint(src.prog, names);
  RC_LOG() << flat;
  Compiled nf = compile(flat);
  rml::oracle::Oracle os(src.fe->checked, src.prog), on(nf.fe->checked, nf.prog);
  bool clash = !os.clocks().clashes.empty() || !on.clocks().clashes.empty();
  RC_CLASSIFY(clash, "clock clash: skipped");
  if (clash) return;
  rml::oracle::Inputs in = random_inputs(src.prog, *rc::gen::inRange<size_t>(1, 9), *rc::gen::arbitrary<bool>());
  auto a = os.run(in), b = on.run(in);
  for (auto &x : a.vars) {
    auto it = names.find(x);
    const std::string &y = it == names.end() ? x : it->second;
    RC_ASSERT(b.has(y));
    for (size_t n = 0; n < in.cycles; ++n) RC_ASSERT(a.at(x, n) == b.at(y, n));
  }
}

// The finding above, on the oracle itself: `if c then x else pre x` is nil at the first
// tick, where c is true.
TEST(Normalisation, EagerIfOfPreIsNilAtTheFirstTick) {
  Compiled p = compile("node main(c: bool, x: int) -> (o: int)\n  o = if c then x else pre x;\n");
  rml::oracle::Inputs in;
  in.cycles = 2;
  in.streams["c"] = {rml::oracle::Cell::of(rml::array::Tensor::boolean(true)), rml::oracle::Cell::of(rml::array::Tensor::boolean(true))};
  in.streams["x"] = {rml::oracle::Cell::of(rml::array::Tensor::integer(5)), rml::oracle::Cell::of(rml::array::Tensor::integer(6))};
  auto r = rml::oracle::Oracle(p.fe->checked, p.prog).run(in);
  EXPECT_EQ(r.at("o", 0).tag, rml::oracle::Tag::Nil);
  EXPECT_EQ(r.at("o", 1), in.streams["x"][1]);
}
