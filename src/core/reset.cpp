#include "core/reset.hpp"

#include <map>

#include "core/clocks.hpp"

namespace rml::core {
namespace {

struct Expander {
  Program &p;
  const Clocks &ck;
  int &temps;
  std::vector<Equation> added;
  std::map<std::pair<std::string, int>, std::string> pending_memo;  // (reset var, clock) -> pending
  std::map<std::pair<int, int>, std::string> start_memo;            // (instance, clock) -> st

  static Type boolean() { return Type::scalar(Scalar::Bool); }

  std::string emit(Equation eq, int instance, const Span &span) {
    eq.lhs = p.instances[static_cast<size_t>(instance)].path + "$" + std::to_string(++temps);
    eq.instance = instance;
    eq.span = span;
    p.locals.push_back(Var{eq.lhs, eq.type});
    added.push_back(eq);
    return eq.lhs;
  }
  std::string constant(bool b, int inst, const Span &sp) {
    Equation eq;
    eq.prim = Prim::Const;
    eq.lit.type = Scalar::Bool;
    eq.lit.b = b;
    eq.type = boolean();
    return emit(std::move(eq), inst, sp);
  }
  std::string make(Prim prim, std::vector<std::string> args, Type t, int inst, const Span &sp, bool positive = true) {
    Equation eq;
    eq.prim = prim;
    eq.args = std::move(args);
    eq.type = std::move(t);
    eq.positive = positive;
    return emit(std::move(eq), inst, sp);
  }

  // a or b, lazy in b where a is true: merge a (true when a) (b when not a). A strict `or`
  // would be unknown where b is, although a alone decides (found by the segment law).
  std::string lazy_or(const std::string &a, const std::string &b, int inst, const Span &sp) {
    std::string t = make(Prim::When, {constant(true, inst, sp), a}, boolean(), inst, sp, true);
    std::string f = make(Prim::When, {b, a}, boolean(), inst, sp, false);
    return make(Prim::Merge, {a, t, f}, boolean(), inst, sp);
  }
  // a and b, lazy in b where a is false.
  std::string lazy_and(const std::string &a, const std::string &b, int inst, const Span &sp) {
    std::string t = make(Prim::When, {b, a}, boolean(), inst, sp, true);
    std::string f = make(Prim::When, {constant(false, inst, sp), a}, boolean(), inst, sp, false);
    return make(Prim::Merge, {a, t, f}, boolean(), inst, sp);
  }

  int clock_of(const std::string &v) const {
    auto it = ck.of_var.find(v);
    return it == ck.of_var.end() ? -1 : it->second;
  }

  // True at the ticks of clock `term` where `r` was true at a tick of r's clock since the
  // previous tick of `term` (this one included). Empty if `term` is not below r's clock.
  std::string pending(const std::string &r, int term, int inst, const Span &sp) {
    int rc = clock_of(r);
    if (term == rc) return r;
    if (term < 0 || ck.terms[static_cast<size_t>(term)].kind != ClockTerm::On) return "";
    if (auto it = pending_memo.find({r, term}); it != pending_memo.end()) return it->second;
    const ClockTerm &t = ck.terms[static_cast<size_t>(term)];
    std::string up = pending(r, t.parent, inst, sp);
    if (up.empty()) return "";
    // On the parent clock: acc = up or (false fby (acc and not tick)), tick = `c` or `not c`.
    // acc is defined through d, which reads it one tick late.
    std::string f = constant(false, inst, sp);
    Equation d_eq;
    d_eq.prim = Prim::Fby;
    d_eq.type = boolean();
    std::string d = emit(d_eq, inst, sp);  // its args are set below, once g exists
    size_t d_at = added.size() - 1;
    std::string acc = lazy_or(up, d, inst, sp);
    std::string no_tick = t.positive ? negation(t.cond, inst, sp) : t.cond;
    // Decided by the tick first: a tick clears the pending reset even where acc is unknown.
    std::string g = lazy_and(no_tick, acc, inst, sp);
    added[d_at].args = {f, g};
    std::string out = make(Prim::When, {acc, t.cond}, boolean(), inst, sp, t.positive);
    pending_memo[{r, term}] = out;
    return out;
  }

  // The resets that apply to an instance: its own and its ancestors'.
  std::vector<std::string> resets_of(int inst) const {
    std::vector<std::string> rs;
    for (int i = inst; i >= 0; i = p.instances[static_cast<size_t>(i)].parent)
      if (!p.instances[static_cast<size_t>(i)].reset.empty()) rs.push_back(p.instances[static_cast<size_t>(i)].reset);
    return rs;
  }

  // "This tick of `term` starts a segment of the instance": a pending reset, or the first tick.
  std::string start(int inst, int term, const std::vector<std::string> &rs, const Span &sp) {
    if (auto it = start_memo.find({inst, term}); it != start_memo.end()) return it->second;
    std::string any;
    for (auto &r : rs) {
      std::string pr = pending(r, term, inst, sp);
      if (pr.empty()) {
        // Not below r's clock: the clock calculus has refused the program (the reset's
        // condition is not on the clock of its call). Read r as it is, so that the oracle
        // shows the error (‖) where r is absent, as for any operand on the wrong clock.
        if (ck.clashes.empty())
          throw ElabError{sp, "internal: this state is not on a sub-clock of its instance's reset condition"};
        pr = r;
      }
      any = any.empty() ? pr : lazy_or(any, pr, inst, sp);
    }
    // st = any or (true -> false), lazy: where a reset is pending the tick starts a
    // segment whether or not it is the clock's first, which may not be known.
    std::string first = make(Prim::Arrow, {constant(true, inst, sp), constant(false, inst, sp)}, boolean(), inst, sp);
    std::string st = lazy_or(any, first, inst, sp);
    start_memo[{inst, term}] = st;
    return st;
  }

  std::string negation(const std::string &a, int inst, const Span &sp) {
    Equation eq;
    eq.prim = Prim::Apply;
    eq.op = ApplyOp::Unary;
    eq.un = ops::UnOp::Not;
    eq.args = {a};
    eq.type = boolean();
    return emit(std::move(eq), inst, sp);
  }

  // y = merge s (a when s) (b when not s)
  void select(Equation &eq, const std::string &s, const std::string &a, const std::string &b) {
    std::string ya = make(Prim::When, {a, s}, eq.type, eq.instance, eq.span, true);
    std::string yb = make(Prim::When, {b, s}, eq.type, eq.instance, eq.span, false);
    eq.prim = Prim::Merge;
    eq.args = {s, ya, yb};
    eq.fn.clear();
  }
  std::string nil(const Equation &eq) {  // n = pre n: nil at every tick
    Equation n;
    n.prim = Prim::Pre;
    n.type = eq.type;
    std::string v = emit(n, eq.instance, eq.span);
    added.back().args = {v};
    return v;
  }

  void rewrite(Equation &eq, const std::string &st) {
    switch (eq.prim) {
      case Prim::Fby: {
        std::string prev = make(Prim::Pre, {eq.args[1]}, eq.type, eq.instance, eq.span);
        select(eq, st, eq.args[0], prev);
        return;
      }
      case Prim::Arrow: select(eq, st, eq.args[0], eq.args[1]); return;
      case Prim::Pre: {
        std::string prev = make(Prim::Pre, {eq.args[0]}, eq.type, eq.instance, eq.span);
        select(eq, st, nil(eq), prev);
        return;
      }
      case Prim::Post: {
        std::string ps = make(Prim::Post, {st}, boolean(), eq.instance, eq.span);
        std::string next = make(Prim::Post, {eq.args[0]}, eq.type, eq.instance, eq.span);
        select(eq, ps, nil(eq), next);
        return;
      }
      case Prim::Const:
      case Prim::Copy:
      case Prim::Apply:
      case Prim::When:
      case Prim::Merge: return;  // no state
    }
  }
};

}  // namespace

void expand_resets(Program &p, int &temps) {
  bool any = false;
  for (auto &in : p.instances) any |= !in.reset.empty();
  if (!any) return;
  Clocks ck = infer_clocks(p);
  Expander x{p, ck, temps, {}, {}, {}};
  size_t n = p.equations.size();
  for (size_t k = 0; k < n; ++k) {
    Equation &eq = p.equations[k];
    if (eq.prim != Prim::Fby && eq.prim != Prim::Pre && eq.prim != Prim::Arrow && eq.prim != Prim::Post) continue;
    std::vector<std::string> rs = x.resets_of(eq.instance);
    if (rs.empty()) continue;
    int term = x.clock_of(eq.lhs);
    if (term == 1) continue;  // on `never`: it never ticks, so its reset is never seen
    std::string st = x.start(eq.instance, term, rs, eq.span);
    Equation copy = eq;  // `added` may grow while we rewrite; p.equations does not
    x.rewrite(copy, st);
    p.equations[k] = std::move(copy);
  }
  for (auto &eq : x.added) p.equations.push_back(std::move(eq));
  if (p.equations.size() > kMaxEquations)
    throw ElabError{p.instances.size() > 1 ? p.instances[1].call : Span{},
                    "the elaborated program exceeds " + std::to_string(kMaxEquations) +
                        " equations once its resets are expanded"};
}

}  // namespace rml::core
