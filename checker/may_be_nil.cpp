#include "checker/may_be_nil.hpp"

#include <map>

#include "core/primitives.hpp"

namespace rml::check {

std::set<std::string> may_be_nil(const core::Program &prog, bool well_clocked) {
  std::map<std::string, const core::Equation *> def;
  for (auto &eq : prog.equations) def[eq.lhs] = &eq;
  std::set<std::string> nil;
  bool changed = true;
  while (changed) {
    changed = false;
    for (auto &eq : prog.equations) {
      if (nil.count(eq.lhs)) continue;
      // Nil comes from pre's first value and flows through the operands the primitive
      // table marks (core/primitives.hpp). An operand read only at later ticks that is a
      // `pre x` (the idiom a -> pre x) has x's nil, not the pre's own first-tick nil.
      bool n = core::info(eq.prim).makes_nil;
      for (size_t k = 0; k < eq.args.size() && !n; ++k) {
        const core::OperandUse &u = core::use_of(eq, k);
        if (!u.nil_flows) continue;
        auto d = u.ticks == core::Ticks::Later && well_clocked ? def.find(eq.args[k]) : def.end();
        n = d != def.end() && d->second->prim == core::Prim::Pre ? nil.count(d->second->args[0]) > 0
                                                                  : nil.count(eq.args[k]) > 0;
      }
      if (n) {
        nil.insert(eq.lhs);
        changed = true;
      }
    }
  }
  return nil;
}

}  // namespace rml::check
