#include "checker/may_be_nil.hpp"

#include <map>

#include "core/primitives.hpp"

namespace rml::check {

// Two classes of may-be-nil variables, computed to a fixpoint (a variable only moves up:
// never → first → any):
//   first  nil at most at the first tick of its own clock: `pre x` of a never-nil x, and
//          what an operator computes from such operands on the same clock (their first
//          ticks are the same tick);
//   any    nil at any tick.
// `a -> e` reads e only after its first tick, so an e of class first makes no nil there
// (the idiom `0 -> pre x + 1`); a reads only at the first tick, so the arrow is at most
// first. `pre` of a first is nil at the second tick too; `x fby z` reads z at the tick
// before, so a first z is nil at its second tick. Merges, posts and when-conditions are
// kept coarse (any). Each of those same-clock facts holds on well-clocked runs only: without
// `well_clocked`, first counts as any. A reset (core/reset.hpp) is a merge of a `pre` of
// itself (any), so nothing restarted is first.
std::set<std::string> may_be_nil(const core::Program &prog, bool well_clocked) {
  enum Class : uint8_t { Never, First, Any };
  std::map<std::string, Class> cls;
  auto of = [&](const std::string &v) {
    auto it = cls.find(v);
    Class c = it == cls.end() ? Never : it->second;
    return c == First && !well_clocked ? Any : c;
  };
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto &eq : prog.equations) {
      Class now = Never;
      auto at_least = [&](Class c) { now = std::max(now, c); };
      switch (eq.prim) {
        case core::Prim::Pre: at_least(of(eq.args[0]) == Never ? First : Any); break;
        case core::Prim::Arrow:
          if (of(eq.args[0]) != Never) at_least(First);
          if (of(eq.args[1]) == Any) at_least(Any);  // a first e is nil only where the arrow reads a
          break;
        case core::Prim::Fby:  // x only at the first tick, as the arrow's a
          if (of(eq.args[0]) != Never) at_least(First);
          if (of(eq.args[1]) != Never) at_least(Any);
          break;
        case core::Prim::Copy:
        case core::Prim::Apply:
          for (auto &a : eq.args) at_least(of(a));
          break;
        case core::Prim::When:  // x when c: x's class; a nil condition is coarse
          at_least(of(eq.args[0]));
          if (of(eq.args[1]) != Never) at_least(Any);
          break;
        default:  // merge, post, const: nil flows from every operand the table marks
          if (core::info(eq.prim).makes_nil) at_least(Any);
          for (size_t k = 0; k < eq.args.size(); ++k)
            if (core::use_of(eq, k).nil_flows && of(eq.args[k]) != Never) at_least(Any);
          break;
      }
      if (now > of(eq.lhs)) {
        cls[eq.lhs] = now;
        changed = true;
      }
    }
  }
  std::set<std::string> nil;
  for (auto &[v, c] : cls)
    if (c != Never) nil.insert(v);
  return nil;
}

}  // namespace rml::check
