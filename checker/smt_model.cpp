#include "checker/smt_model.hpp"


#include <optional>
#include <tuple>

#include "checker/smt_ints.hpp"
#include "checker/smt_reals.hpp"
#include "core/primitives.hpp"
#include "ops/ops.hpp"

namespace rml::check {

namespace {
// The symbol of an imported function's output (the same in every frame).
std::string imported_symbol(const core::Equation &eq) { return "rml_imported!" + eq.fn + "!" + std::to_string(eq.output); }

}  // namespace

TransitionSystem::TransitionSystem(z3::context &ctx, const core::Program &prog, const core::Clocks &clocks,
                                   const std::set<std::string> *roots, bool reals, bool ints)
    : ctx_(ctx), prog_(prog), clocks_(clocks) {
  for (auto &eq : prog.equations) def_[eq.lhs] = &eq;
  // Declared ranges: of the main node's inputs and outputs, whose types the user always
  // writes. A local's type may be inferred (rml's syntax), and inference lets an operand
  // lend its range to an expression (`t = s + x` gets `s`'s).
  for (auto *vars : {&prog.inputs, &prog.outputs})
    for (auto &d : *vars)
      if (d.type.range) declared_range_[d.name] = *d.type.range;
  // The cone of influence.
  std::vector<std::string> work;
  auto need = [&](const std::string &v) {
    if (cone_.insert(v).second) work.push_back(v);
  };
  if (roots) {
    for (auto &r : *roots) need(r);
    for (auto &v : prog.inputs) need(v.name);
    for (auto &a : prog.assumptions) need(a.var);
  } else {
    for (auto &v : prog.inputs) need(v.name);
    for (auto &eq : prog.equations) need(eq.lhs);
  }
  while (!work.empty()) {
    std::string v = work.back();
    work.pop_back();
    for (int t = clocks.of(v); t >= 0 && clocks.terms[t].kind == core::ClockTerm::On; t = clocks.terms[t].parent)
      need(clocks.terms[t].cond);
    auto it = def_.find(v);
    if (it != def_.end())
      for (auto &a : it->second->args) need(a);
  }
  term_needed_.assign(clocks.terms.size(), false);
  for (auto &v : cone_)
    for (int t = clocks.of(v); t >= 0; t = clocks.terms[t].kind == core::ClockTerm::On ? clocks.terms[t].parent : -1)
      term_needed_[static_cast<size_t>(t)] = true;
  auto track = [&](const std::string &name, const Type &t) {
    if (t.kind == Type::Tensor && t.shape.empty() && (reals || t.elem != Scalar::Real) && (ints || t.elem != Scalar::Int))
      scalar_[name] = t.elem;
  };
  for (auto &v : prog.inputs) track(v.name, v.type);
  for (auto &eq : prog.equations) track(eq.lhs, eq.type);
  for (auto &v : prog.outputs) track(v.name, v.type);
  for (auto &v : prog.locals) track(v.name, v.type);
  // A pre or fby that repeats an earlier one (same operands, same clock: `pre x` written
  // in ten guards) reads that one's memory: ten memories of one value would be ten times
  // the state for k-induction and Spacer to relate.
  std::map<std::tuple<core::Prim, std::vector<std::string>, int>, size_t> first_memory;
  repeats_.assign(prog.equations.size(), -1);
  for (size_t e = 0; e < prog.equations.size(); ++e) {
    const core::Equation &eq = prog.equations[e];
    if (!in_cone(eq.lhs) || (eq.prim != core::Prim::Pre && eq.prim != core::Prim::Fby)) continue;
    auto [it, fresh_memory] = first_memory.try_emplace({eq.prim, eq.args, clocks.of(eq.lhs)}, e);
    if (!fresh_memory) repeats_[e] = static_cast<int>(it->second);
  }
  for (size_t e = 0; e < prog.equations.size(); ++e) {
    const core::Equation &eq = prog.equations[e];
    int k = -1;
    if (!in_cone(eq.lhs) || repeats_[e] >= 0) {
      state_base_.push_back(-1);
      continue;
    }
    if (core::info(eq.prim).state_slots > 0) k = core::info(eq.prim).state_slots;  // core/primitives.hpp
    state_base_.push_back(k < 0 ? -1 : state_size_);
    if (k > 0) state_size_ += k;
  }
  eq_state_size_ = state_size_;
  for (size_t k = 0; k < prog.equations.size(); ++k) {
    const core::Equation &eq = prog.equations[k];
    const bool is_if = eq.prim == core::Prim::Apply && eq.op == core::ApplyOp::If;
    for (size_t i = 0; i < eq.args.size(); ++i) {
      const std::string &a = eq.args[i];
      if (is_if && i > 0) branch_reads_[a].emplace_back(k, i == 1 ? Takes::Then : Takes::Else);
      else if (eq.prim == core::Prim::Arrow) branch_reads_[a].emplace_back(k, i == 0 ? Takes::Before : Takes::After);
      else if (eq.prim == core::Prim::Fby && i == 0) branch_reads_[a].emplace_back(k, Takes::Before);
      else read_otherwise_.insert(a);
    }
  }
  for (auto &t : clocks.terms)
    if (t.kind == core::ClockTerm::On) read_otherwise_.insert(t.cond);
  for (auto &v : prog.outputs) read_otherwise_.insert(v.name);
  for (auto &pp : prog.properties) read_otherwise_.insert(pp.var);
  for (auto &a : prog.assumptions) read_otherwise_.insert(a.var);
  for (auto &d : prog.declared)
    for (auto &on : d.on) read_otherwise_.insert(on.second);
  // steers_: backward from the conditions and assumptions through every value an equation reads.
  std::vector<std::string> todo;
  auto steer = [&](const std::string &v) {
    if (steers_.insert(v).second) todo.push_back(v);
  };
  for (auto &t : clocks.terms)
    if (t.kind == core::ClockTerm::On) steer(t.cond);
  for (auto &eq : prog.equations) {
    if (eq.prim == core::Prim::When) steer(eq.args[1]);
    if (eq.prim == core::Prim::Merge) steer(eq.args[0]);
  }
  for (auto &a : prog.assumptions) steer(a.var);
  for (auto &d : prog.declared)
    for (auto &on : d.on) steer(on.second);
  while (!todo.empty()) {
    std::string v = todo.back();
    todo.pop_back();
    auto it = def_.find(v);
    if (it != def_.end())
      for (auto &a : it->second->args) steer(a);
  }
  for (auto &a : prog.assumptions)
    if (a.eventually && a.within >= 0) ++state_size_;  // the run-length monitor
}

std::vector<TransitionSystem::Memory> TransitionSystem::memories() const {
  std::vector<Memory> out;
  for (size_t k = 0; k < prog_.equations.size(); ++k) {
    const core::Equation &eq = prog_.equations[k];
    if (state_base_[k] < 0 || (eq.prim != core::Prim::Fby && eq.prim != core::Prim::Pre)) continue;
    const std::string &src = eq.prim == core::Prim::Pre ? eq.args[0] : eq.args[1];
    if (!tracked(eq.lhs) || !tracked(src)) continue;
    size_t s = static_cast<size_t>(state_base_[k]);
    out.push_back(Memory{s + 1, s, src, scalar_.at(src), s + 2});
  }
  return out;
}

std::optional<std::pair<int64_t, int64_t>> TransitionSystem::declared_range(const std::string &v) const {
  auto it = declared_range_.find(v);
  if (it == declared_range_.end()) return std::nullopt;
  return it->second;
}

std::string TransitionSystem::state_key() const {
  std::string key = std::to_string(lia_ints) + std::to_string(lia_modular) + std::to_string(exact_reals) +
                    std::to_string(static_cast<bool>(fun_body)) + std::to_string(uninterpreted_functions) + ":" +
                    std::to_string(state_size_) + ":";
  for (auto &v : free_values) key += v + ";";
  key += ":";
  for (size_t k = 0; k < state_base_.size(); ++k) key += std::to_string(state_base_[k]) + "," + std::to_string(repeats_[k]) + ";";
  for (auto &m : memories()) key += m.source + "/" + std::to_string(static_cast<int>(m.type)) + ";";
  // Whether reals and ints are tracked (every variable of a tracked type is, cone or not).
  std::map<Scalar, size_t> tracked_of;
  for (auto &[name, s] : scalar_) ++tracked_of[s];
  for (auto &[s, n] : tracked_of) key += std::to_string(static_cast<int>(s)) + "x" + std::to_string(n) + ";";
  return key;
}

std::vector<size_t> TransitionSystem::arrow_started() const {
  std::vector<size_t> out;
  for (size_t k = 0; k < prog_.equations.size(); ++k)
    if (state_base_[k] >= 0 && prog_.equations[k].prim == core::Prim::Arrow) out.push_back(static_cast<size_t>(state_base_[k]));
  return out;
}

z3::sort TransitionSystem::sort_of(Scalar s) const {
  if (s == Scalar::Real) return exact_reals ? ctx_.real_sort() : real_sort(ctx_);
  if (s == Scalar::Bool) return ctx_.bool_sort();
  return lia_ints ? ctx_.int_sort() : ctx_.bv_sort(64);
}

z3::expr TransitionSystem::fresh(const std::string &name, const z3::sort &s, int n) {
  return ctx_.constant((name + "@" + std::to_string(n)).c_str(), s);
}

// Whether y's value can reach anything at this cycle: always if some reader takes it at
// every cycle; else when a reader that takes it at this cycle does and its own value
// matters; never if nothing reads it. A wrap in a value no reader takes changes no other
// value (semantics/int_encoding.md). `visiting` guards against instantaneous cycles
// (where causality failed): there, it always matters. `memo` holds the frame's answers.
z3::expr TransitionSystem::wrap_matters(const Frame &f, const std::string &y, std::set<std::string> &visiting,
                                        std::map<std::string, z3::expr> &memo) const {
  z3::context &c = ctx_;
  if (auto m = memo.find(y); m != memo.end()) return m->second;
  if (read_otherwise_.count(y) || !visiting.insert(y).second) return c.bool_val(true);
  auto it = branch_reads_.find(y);
  z3::expr_vector taken(c);
  if (it != branch_reads_.end())
    for (auto [k, takes] : it->second) {
      const core::Equation &eq = prog_.equations[k];
      if (!in_cone(eq.lhs)) continue;  // not encoded: reads nothing
      z3::expr when = c.bool_val(true);
      if (takes == Takes::Then || takes == Takes::Else) {
        auto v = f.v.find(eq.args[0]);
        if (v != f.v.end() && v->second.is_bool()) when = takes == Takes::Then ? v->second : !v->second;
      } else if (int base = state_base_[repeats_[k] >= 0 ? static_cast<size_t>(repeats_[k]) : k]; base >= 0) {
        z3::expr started = f.state_in[static_cast<size_t>(base)];
        when = takes == Takes::After ? started : !started;
      }
      taken.push_back(when && wrap_matters(f, eq.lhs, visiting, memo));
    }
  visiting.erase(y);
  z3::expr out = taken.empty() ? c.bool_val(false) : z3::mk_or(taken);
  memo.emplace(y, out);
  return out;
}

z3::expr TransitionSystem::holds(const Frame &f, const std::string &var) const {
  return f.p.at(var) && f.v.at(var);
}

TransitionSystem::Frame TransitionSystem::frame(int n, const Frame *prev, bool initial) {
  Frame f(ctx_);
  f.n = n;
  z3::context &c = ctx_;
  auto add = [&](const z3::expr &e) { f.constraints.push_back(e); };
  auto err = [&](const std::string &what, const z3::expr &cond) { f.err_parts.emplace_back(what, cond); };

  // Variables of this cycle.
  std::vector<std::string> names;
  for (auto &v : prog_.inputs) names.push_back(v.name);
  for (auto &eq : prog_.equations)
    if (in_cone(eq.lhs)) names.push_back(eq.lhs);
  for (auto &name : names) {
    f.p.emplace(name, fresh("p:" + name, c.bool_sort(), n));
    f.nil.emplace(name, fresh("nil:" + name, c.bool_sort(), n));
    if (tracked(name)) f.v.emplace(name, fresh("v:" + name, sort_of(scalar_.at(name)), n));
  }
  // State on entry.
  std::vector<z3::sort> state_sorts;
  for (size_t k = 0; k < prog_.equations.size(); ++k) {
    if (state_base_[k] < 0) continue;
    const core::Equation &eq = prog_.equations[k];
    z3::sort vs = tracked(eq.lhs) ? sort_of(scalar_.at(eq.lhs)) : c.bool_sort();
    if (eq.prim == core::Prim::Arrow) {
      state_sorts.push_back(c.bool_sort());
    } else {
      state_sorts.push_back(c.bool_sort());  // started / pending
      state_sorts.push_back(vs);             // mem / prophecy value
      state_sorts.push_back(c.bool_sort());  // mem nil / prophecy nil
    }
  }
  for (auto &a : prog_.assumptions)
    if (a.eventually && a.within >= 0) state_sorts.push_back(c.int_sort());
  if (prev) {
    f.state_in = prev->state_out;
  } else {
    for (size_t k = 0; k < state_sorts.size(); ++k) f.state_in.push_back(fresh("s" + std::to_string(k), state_sorts[k], n));
    // A memory holds a value some cycle computed, which a run without wraps keeps in range
    // (the assumption windows' counters are not ints of the program). With overflow_exact
    // a run may hold an exact result out of range: any integer.
    if (lia_ints && !overflow_exact)
      for (size_t k = 0; k < static_cast<size_t>(eq_state_size_); ++k)
        if (state_sorts[k].is_int()) add(in_int64(f.state_in[k]));
  }
  f.state_out = f.state_in;
  if (initial) {
    // Nothing has ticked; no prophecy is pending; no assumption window is open.
    size_t k = 0;
    for (size_t e = 0; e < prog_.equations.size(); ++e) {
      if (state_base_[e] < 0) continue;
      add(!f.state_in[k]);
      k += core::info(prog_.equations[e].prim).state_slots;
    }
    for (; k < state_sorts.size(); ++k) add(f.state_in[k] == 0);
  }

  // Clocks (semantics.md §3).
  z3::expr base = c.bool_val(prog_.inputs.empty());
  for (auto &v : prog_.inputs) base = base || f.p.at(v.name);
  for (size_t t = 0; t < clocks_.terms.size(); ++t) {
    const core::ClockTerm &ct = clocks_.terms[t];
    if (!term_needed_[t]) {
      f.ck.push_back(c.bool_val(false));  // outside the cone: never read
      continue;
    }
    if (ct.kind == core::ClockTerm::Base) f.ck.push_back(base);
    else if (ct.kind == core::ClockTerm::Never) f.ck.push_back(c.bool_val(false));
    else {
      z3::expr parent = f.ck[static_cast<size_t>(ct.parent)];
      const z3::expr &pc = f.p.at(ct.cond);
      err("the condition '" + ct.cond + "' of clock " + clocks_.str(static_cast<int>(t)) + " is absent where its parent ticks",
          parent && !pc);
      err("the condition '" + ct.cond + "' of clock " + clocks_.str(static_cast<int>(t)) + " is nil", parent && pc && f.nil.at(ct.cond));
      z3::expr val = f.v.at(ct.cond);
      f.ck.push_back(parent && (ct.positive ? val : !val));
    }
  }
  auto ck_of = [&](const std::string &v) { return f.ck[static_cast<size_t>(clocks_.of(v))]; };

  // Inputs: present exactly on their clock (A_P); never nil.
  for (auto &v : prog_.inputs) {
    add(f.p.at(v.name) == ck_of(v.name));
    add(!f.nil.at(v.name));
  }
  // With lia_ints, a value no equation computes is a 64-bit number; the conditions under
  // which a computed one wraps are collected in `wraps`.
  z3::expr_vector wraps(c), overflows(c);
  auto int64_free = [&](const std::string &x) {
    auto it = f.v.find(x);
    if (lia_ints && it != f.v.end() && it->second.is_int()) add(in_int64(it->second));
  };
  for (auto &v : prog_.inputs) int64_free(v.name);
  LiaOps eq_ops(c, lia_modular);  // the current equation's wraps, gated by wrap_matters
  z3::expr_vector &eq_wraps = eq_ops.wraps;
  std::map<std::string, z3::expr> matters_memo;
  LiaOps *wrap_sink = lia_ints ? &eq_ops : nullptr;
  auto int_lit = [&](int64_t i) { return lia_ints ? c.int_val(i) : c.bv_val(i, 64); };
  auto int_le = [&](const z3::expr &a, const z3::expr &b) { return lia_ints ? a <= b : z3::sle(a, b); };

  auto val = [&](const std::string &x) { return f.v.at(x); };
  auto same = [&](const std::string &y, const std::string &x) {  // value and nil copied
    if (tracked(y) && tracked(x)) add(val(y) == val(x));
    add(f.nil.at(y) == f.nil.at(x));
  };
  for (size_t k = 0; k < prog_.equations.size(); ++k) {
    const core::Equation &eq = prog_.equations[k];
    const std::string &y = eq.lhs;
    if (!in_cone(y)) continue;
    // A value left free (free_values): while its own equation is encoded, y counts as
    // untracked, and every value constraint of the encoding is gated on tracked(y), so
    // none is added; its readers see the frame's variable, unconstrained. Restored when
    // the iteration ends.
    struct Untrack {
      std::map<std::string, Scalar> &scalars;
      const std::string *var = nullptr;
      Scalar kept{};
      ~Untrack() {
        if (var) scalars[*var] = kept;
      }
    } untrack{scalar_};
    if (free_values.count(y) && tracked(y)) {
      untrack.var = &y;
      untrack.kept = scalar_.at(y);
      scalar_.erase(y);
      int64_free(y);
    }
    const z3::expr py = f.p.at(y);
    if (repeats_[k] >= 0) {  // the earlier pre or fby's presence, nil flag and value
      const std::string &first = prog_.equations[static_cast<size_t>(repeats_[k])].lhs;
      add(py == f.p.at(first));
      same(y, first);
      continue;
    }
    auto p = [&](size_t i) { return f.p.at(eq.args.at(i)); };
    auto nil = [&](size_t i) { return f.nil.at(eq.args.at(i)); };
    std::string at = "'" + y + "' (" + core::prim_name(eq.prim) + ")";
    switch (eq.prim) {
      case core::Prim::Const:
        add(py == ck_of(y));
        add(!f.nil.at(y));
        if (tracked(y))
          add(val(y) == (eq.lit.type == Scalar::Bool   ? c.bool_val(eq.lit.b)
                         : eq.lit.type == Scalar::Real ? (exact_reals ? c.real_val(std::to_string(eq.lit.r).c_str()) : real_val(c, eq.lit.r))
                                                       : int_lit(static_cast<int64_t>(eq.lit.i))));
        break;
      case core::Prim::Copy:
        add(py == p(0));
        same(y, eq.args[0]);
        break;
      case core::Prim::Apply: {
        // An imported node's output of a subrange or enumeration type is in its range (the
        // declared codomain; main inputs get the same as an assumption).
        if (eq.op == core::ApplyOp::Imported && tracked(y) && eq.type.range) {
          auto [lo, hi] = *eq.type.range;  // INT64_MIN / INT64_MAX: unbounded
          if (lo != INT64_MIN) add(int_le(int_lit(lo), val(y)));
          if (hi != INT64_MAX) add(int_le(val(y), int_lit(hi)));
        }
        if (eq.args.empty()) {  // a constant on its context's clock
          add(py == ck_of(y));
          add(!f.nil.at(y));
          if (eq.op == core::ApplyOp::Imported && !eq.imported_node && uninterpreted_functions && tracked(y))
            add(val(y) == c.constant(imported_symbol(eq).c_str(), val(y).get_sort()));  // a free constant
          int64_free(y);
          break;
        }
        add(py == p(0));
        z3::expr any_nil = c.bool_val(false);
        for (size_t i = 0; i < eq.args.size(); ++i) {
          if (i > 0) err(at + ": operands present at different cycles", p(i) != p(0));
          any_nil = any_nil || nil(i);
        }
        add(f.nil.at(y) == any_nil);
        bool args_tracked = true;
        for (auto &a : eq.args) args_tracked &= tracked(a);
        const bool overflow_here = overflow_errors && core::may_overflow(eq);
        // An operation the system cannot say overflows or not (a tensor, a value left free)
        // may, wherever it is present: a free condition, so no proof ignores it.
        auto may_overflow_freely = [&] {
          overflow_unencoded = true;
          overflows.push_back(py && !f.nil.at(y) && fresh("overflow:" + y, c.bool_sort(), n));
        };
        if (overflow_here && (!tracked(y) || !args_tracked)) may_overflow_freely();
        if (!tracked(y)) break;
        // With lia_ints, an int no operation below computes exactly (a fresh value, an
        // imported function's) is a 64-bit number: in range, which a computed one need not be.
        bool computed = args_tracked && (eq.op == core::ApplyOp::If || eq.op == core::ApplyOp::Unary ||
                                         eq.op == core::ApplyOp::Binary || eq.op == core::ApplyOp::Call);
        if (!computed) int64_free(y);
        if (!args_tracked) break;  // a fresh value: over-approximation
        // An int constant operand as its numeral, so that a product or quotient by it is
        // linear for the solver (and for LiaOps::nonlinear).
        // A machine integer's width and a constant shift as numerals on bit-vectors too (an
        // extraction instead of a mask computed by the solver).
        bool bit_width = eq.op == core::ApplyOp::Binary &&
                         (eq.bin == ops::BinOp::WrapUnsigned || eq.bin == ops::BinOp::WrapSigned ||
                          eq.bin == ops::BinOp::ShiftLeft || eq.bin == ops::BinOp::ShiftRight);
        auto a = [&](size_t i) {
          auto d = def_.find(eq.args.at(i));
          if (d != def_.end() && d->second->prim == core::Prim::Const && d->second->lit.type == Scalar::Int &&
              (lia_ints ? val(eq.args.at(i)).is_int() : bit_width && val(eq.args.at(i)).is_bv()))
            return int_lit(static_cast<int64_t>(d->second->lit.i));
          return val(eq.args.at(i));
        };
        if (overflow_here) {  // present, its operands values, the exact result outside the range
          auto o = eq.op == core::ApplyOp::Unary ? int_overflow(eq.un, a(0)) : int_overflow(eq.bin, a(0), a(1));
          if (o) overflows.push_back(py && !f.nil.at(y) && *o);
          else may_overflow_freely();
        }
        switch (eq.op) {
          case core::ApplyOp::If: add(val(y) == z3::ite(a(0), a(1), a(2))); break;
          case core::ApplyOp::Unary: {
            z3::expr_vector facts(c);
            if (auto e = encode_unary(eq.un, a(0), facts, wrap_sink)) add(val(y) == *e);
            else int64_free(y);  // not encoded: a fresh value
            for (auto fact : facts) add(fact);
            break;
          }
          case core::ApplyOp::Binary:
            if (auto e = encode_binary(eq.bin, a(0), a(1), wrap_sink)) add(val(y) == *e);
            else int64_free(y);
            break;
          case core::ApplyOp::Imported:
            if (eq.imported_node || !uninterpreted_functions) break;  // a fresh value
            {
              z3::sort_vector sorts(c);
              z3::expr_vector vals(c);
              for (size_t i = 0; i < eq.args.size(); ++i) sorts.push_back(a(i).get_sort()), vals.push_back(a(i));
              add(val(y) == c.function(imported_symbol(eq).c_str(), sorts, val(y).get_sort())(vals));
            }
            break;
          case core::ApplyOp::Call: {  // through its body, when it has a scalar one
            if (!fun_body) {
              int64_free(y);
              break;
            }
            std::vector<Scalar> types;
            std::vector<z3::expr> vals;
            for (size_t i = 0; i < eq.args.size(); ++i) types.push_back(scalar_.at(eq.args[i])), vals.push_back(a(i));
            auto ft = fun_body(eq, types);
            if (!ft) {  // a fresh value
              int64_free(y);
              break;
            }
            z3::expr_vector facts(c);
            LiaOps body_ops(c, lia_modular);
            if (auto e = encode_fun_term(*ft, vals, facts, lia_ints ? &body_ops : nullptr)) {
              add(val(y) == *e);
              for (auto fact : facts) add(fact);
              for (auto w : body_ops.wraps) eq_wraps.push_back(w);
              eq_ops.nonlinear |= body_ops.nonlinear;
            } else {
              int64_free(y);
            }
            break;
          }
          case core::ApplyOp::Index:
          case core::ApplyOp::Array: break;  // a fresh value
        }
        break;
      }
      case core::Prim::When: {
        const std::string &cv = eq.args[1];
        z3::expr selected = eq.positive ? val(cv) : !val(cv);
        add(py == (p(1) && selected));
        err(at + ": '" + eq.args[0] + "' and the condition '" + cv + "' are present at different cycles", p(0) != p(1));
        err(at + ": the condition '" + cv + "' is nil", p(1) && nil(1));
        same(y, eq.args[0]);
        break;
      }
      case core::Prim::Merge: {
        const std::string &cv = eq.args[0];
        add(py == p(0));
        err(at + ": the condition '" + cv + "' is nil", p(0) && nil(0));
        err(at + ": branch '" + eq.args[1] + "' is not present exactly when the condition is true", p(1) != (p(0) && val(cv)));
        err(at + ": branch '" + eq.args[2] + "' is not present exactly when the condition is false", p(2) != (p(0) && !val(cv)));
        if (tracked(y)) add(val(y) == z3::ite(val(cv), val(eq.args[1]), val(eq.args[2])));
        add(f.nil.at(y) == z3::ite(val(cv), nil(1), nil(2)));
        break;
      }
      case core::Prim::Fby:
      case core::Prim::Pre:
      case core::Prim::Arrow: {
        size_t s = static_cast<size_t>(state_base_[k]);
        z3::expr started = f.state_in[s];
        bool pre = eq.prim == core::Prim::Pre;
        z3::expr tick = pre ? ck_of(y) : p(0);
        add(py == tick);
        if (pre) err(at + ": '" + eq.args[0] + "' is not present exactly on its clock", p(0) != tick);
        else err(at + ": the operands are present at different cycles", p(0) != p(1));
        if (eq.prim == core::Prim::Arrow) {
          if (tracked(y)) add(val(y) == z3::ite(started, val(eq.args[1]), val(eq.args[0])));
          add(f.nil.at(y) == z3::ite(started, nil(1), nil(0)));
          f.state_out[s] = started || tick;
          break;
        }
        z3::expr mem = f.state_in[s + 1], memnil = f.state_in[s + 2];
        const std::string &src = pre ? eq.args[0] : eq.args[1];
        if (pre) {
          if (tracked(y)) add(z3::implies(started, val(y) == mem));
          if (lia_ints && tracked(y) && val(y).is_int()) add(z3::implies(!started, in_int64(val(y))));  // the free first value
          // ... a value of its type (Kind 2's reading of it, Options::pre_any; in rml's it is nil,
          // and its value is read by nothing): the declared range of the main node's input or
          // output it reads. Not the range of the equation's inferred type, which an
          // expression's operand can lend it (`s + x` has the type of `s`).
          // A machine integer's is its width's (every value of a machine type is in it).
          std::optional<std::pair<int64_t, int64_t>> range = declared_range(eq.args[0]);
          if (!range && eq.type.machine) range = std::make_pair(eq.type.machine->lo(), eq.type.machine->hi());
          if (tracked(y) && range) {
            auto [lo, hi] = *range;  // INT64_MIN / INT64_MAX: unbounded
            if (lo != INT64_MIN) add(z3::implies(!started, int_le(int_lit(lo), val(y))));
            if (hi != INT64_MAX) add(z3::implies(!started, int_le(val(y), int_lit(hi))));
          }
          add(f.nil.at(y) == (!started || memnil));
        } else {
          if (tracked(y)) add(val(y) == z3::ite(started, mem, val(eq.args[0])));
          add(f.nil.at(y) == z3::ite(started, memnil, nil(0)));
        }
        f.state_out[s] = started || tick;
        if (tracked(y) && tracked(src)) f.state_out[s + 1] = z3::ite(tick, val(src), mem);
        else f.state_out[s + 1] = mem;  // untracked: the next value is free anyway
        f.state_out[s + 2] = z3::ite(tick, f.nil.at(src), memnil);
        break;
      }
      case core::Prim::Post: {
        size_t s = static_cast<size_t>(state_base_[k]);
        z3::expr pending = f.state_in[s], pval = f.state_in[s + 1], pnil = f.state_in[s + 2];
        z3::expr tick = ck_of(y);
        add(py == tick);
        err(at + ": '" + eq.args[0] + "' is not present exactly on its clock", p(0) != tick);
        // The prophecy made at the previous tick is the value of x at this tick.
        if (tracked(y) && tracked(eq.args[0])) add(z3::implies(tick && pending, val(eq.args[0]) == pval));
        add(z3::implies(tick && pending, nil(0) == pnil));
        f.state_out[s] = pending || tick;
        if (tracked(y)) f.state_out[s + 1] = z3::ite(tick, val(y), pval);
        f.state_out[s + 2] = z3::ite(tick, f.nil.at(y), pnil);
        break;
      }
    }
    if (overflow_exact && core::may_overflow(eq)) eq_wraps.resize(0);  // never a wrapped value: ‖ instead
    if (!eq_wraps.empty()) {  // this equation's operations wrap where its value matters
      std::set<std::string> visiting;
      z3::expr matters = wrap_matters(f, y, visiting, matters_memo);
      if (!steers_.count(y) && !nil_values_read) matters = matters && !f.nil.at(y);  // a nil value steers nothing
      for (auto w : eq_wraps) wraps.push_back(w && matters);
      eq_wraps.resize(0);
    }
  }
  // Environment assumptions of the main node.
  size_t monitor = static_cast<size_t>(eq_state_size_);
  for (auto &a : prog_.assumptions) {
    z3::expr h = f.p.at(a.var) && f.v.at(a.var);
    if (!a.eventually) {
      add(z3::implies(f.p.at(a.var), f.v.at(a.var)));
    } else if (a.within >= 0) {
      z3::expr r = f.state_in[monitor];
      z3::expr next = z3::ite(h, c.int_val(0), r + 1);
      add(next <= c.int_val(static_cast<int64_t>(a.within)));
      add(r >= 0);
      f.state_out[monitor++] = next;
    }
  }
  // One n-ary disjunction: a chain of binary ones is as deep as the node has equations,
  // and Z3 4.8 frees deep terms in quadratic time (minutes on large nodes, past any
  // --timeout).
  z3::expr_vector errs(c);
  for (auto &[what, cond] : f.err_parts) errs.push_back(cond);
  f.err = errs.empty() ? c.bool_val(false) : z3::mk_or(errs);
  if (!wraps.empty()) f.wrap = z3::mk_or(wraps);
  if (!overflows.empty()) f.overflow = z3::mk_or(overflows);
  nonlinear_ints |= eq_ops.nonlinear;
  return f;
}

}  // namespace rml::check
