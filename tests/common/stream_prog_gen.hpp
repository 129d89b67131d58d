// A generator of random well-typed stream programs, as source text: a node `main(x: real,
// y: int, c: bool) -> (o1: real, o2: bool)` over fby, pre/->, post, when, merge, eager if,
// arithmetic, a node instance and prelude functions. Clocks are not necessarily correct:
// the programs exercise every rule, including the error cases.
#pragma once
#include <rapidcheck.h>

#include <string>
#include <vector>

namespace rml::testgen {

enum class Ty { Real, Int, Bool };

struct ProgGen {
  bool well_clocked = false;  // only base-clock expressions: merge of complementary whens
  // With well_clocked: merges may hold state on the sampled clock (a fby, -> pre or post
  // of sampled operands), the shapes a modular reset must reach between two ticks.
  bool sub_clocked_state = false;
  // Calls of the stateful `helper` may be restarted (`helper(a, b) every c`), and o1
  // reads one restarted instance.
  bool resets = false;
  int locals = 0;
  std::vector<Ty> local_ty;

  std::string var_of(Ty t, int upto) {
    std::vector<std::string> c;
    if (t == Ty::Real) c.push_back("x");
    if (t == Ty::Int) c.push_back("y");
    if (t == Ty::Bool) c.push_back("c");
    for (int j = 0; j < upto; ++j)
      if (local_ty[j] == t) c.push_back("v" + std::to_string(j));
    return c[*rc::gen::inRange<size_t>(0, c.size())];
  }
  std::string lit(Ty t) {
    switch (t) {
      case Ty::Real: return std::to_string(*rc::gen::inRange(0, 100)) + ".5";
      case Ty::Int: return std::to_string(*rc::gen::inRange(0, 100));
      case Ty::Bool: return *rc::gen::arbitrary<bool>() ? "true" : "false";
    }
    return "";
  }
  // Any local may be referenced under fby (a delayed use), earlier ones directly.
  std::string expr(Ty t, int depth, int self) {
    int choice = *rc::gen::inRange(0, depth <= 0 ? 2 : 12);
    auto sub = [&](Ty u) { return expr(u, depth - 1, self); };
    switch (choice) {
      case 0: return var_of(t, self);
      case 1: return lit(t);
      case 2: return "(" + lit(t) + " fby " + var_of(t, locals) + ")";
      case 3: return "(if " + sub(Ty::Bool) + " then " + sub(t) + " else " + sub(t) + ")";
      case 4:
        if (well_clocked) {
          std::string c = var_of(Ty::Bool, self);
          std::string on_c = "(" + sub(t) + " when " + c + ")";
          if (sub_clocked_state) switch (*rc::gen::inRange(0, 4)) {
              case 0: on_c = "(" + lit(t) + " fby " + on_c + ")"; break;
              case 1: on_c = "(" + on_c + " -> pre (" + sub(t) + " when " + c + "))"; break;
              case 2: on_c = "(post " + on_c + ")"; break;
              default: break;
            }
          return "(merge " + c + " " + on_c + " (" + sub(t) + " when not " + c + "))";
        }
        return "(" + sub(t) + " when " + var_of(Ty::Bool, self) + ")";
      case 5:
        if (well_clocked) return "(if " + sub(Ty::Bool) + " then " + sub(t) + " else " + sub(t) + ")";
        return "(merge " + var_of(Ty::Bool, self) + " " + var_of(t, self) + " " + var_of(t, self) + ")";
      case 6: return "(post " + sub(t) + ")";
      case 7: return "(" + sub(t) + " -> pre " + sub(t) + ")";
      default: break;
    }
    switch (t) {
      case Ty::Real:
        switch (choice) {
          case 8: return "(" + sub(Ty::Real) + " + " + sub(Ty::Real) + ")";
          case 9: return "sigmoid(" + sub(Ty::Real) + ")";
          case 10: return "real(" + sub(Ty::Int) + ")";
          default:
            return "helper(" + sub(Ty::Real) + ", " + sub(Ty::Bool) + ")" +
                   (resets && *rc::gen::arbitrary<bool>() ? " every " + var_of(Ty::Bool, self) : "");
        }
      case Ty::Int:
        switch (choice) {
          case 8: return "(" + sub(Ty::Int) + " * " + sub(Ty::Int) + ")";
          case 9: return "(-" + sub(Ty::Int) + ")";
          case 10: return "floor(" + sub(Ty::Real) + ")";
          default: return "(" + sub(Ty::Int) + " mod 7)";
        }
      case Ty::Bool:
        switch (choice) {
          case 8: return "(" + sub(Ty::Real) + " < " + sub(Ty::Real) + ")";
          case 9: return "(not " + sub(Ty::Bool) + ")";
          case 10: return "(" + sub(Ty::Bool) + " and " + sub(Ty::Bool) + ")";
          default: return "(" + sub(Ty::Int) + " = " + sub(Ty::Int) + ")";
        }
    }
    return "";
  }
  std::string program() {
    locals = *rc::gen::inRange(1, 8);
    for (int j = 0; j < locals; ++j) local_ty.push_back(static_cast<Ty>(*rc::gen::inRange(0, 3)));
    std::string s =
        "node helper(a: real, b: bool) -> (o: real)\n"
        "  t = if b then a else 0.0 fby a;\n"
        "  o = t * 2.0;\n"
        "node main(x: real, y: int, c: bool) -> (o1: real, o2: bool)\n";
    for (int j = 0; j < locals; ++j) s += "  v" + std::to_string(j) + " = " + expr(local_ty[j], 3, j) + ";\n";
    s += "  o1 = " + expr(Ty::Real, 2, locals);
    if (resets)  // one restarted instance in every program, whose output o1 reads
      s += " + helper(" + expr(Ty::Real, 1, locals) + ", " + expr(Ty::Bool, 1, locals) + ") every " +
           var_of(Ty::Bool, locals);
    s += ";\n";
    s += "  o2 = " + expr(Ty::Bool, 2, locals) + ";\n";
    return s;
  }
};


}  // namespace rml::testgen
