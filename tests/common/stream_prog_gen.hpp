// A generator of random well-typed stream programs, as source text: a node `main(x: real,
// y: int, c: bool) -> (o1: real, o2: bool)` over fby, pre/->, post, when, merge, eager if,
// every operator and builtin of the operator table (src/ops/ops.hpp, read here: a new row
// is generated without an edit), a node instance and prelude functions. Clocks are not
// necessarily correct: the programs exercise every rule, including the error cases.
// tests/frontend/test_generator_coverage.cpp checks that the programs reach every row of
// the operator table and of the primitive table (src/core/primitives.hpp).
#pragma once
#include <rapidcheck.h>

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "ops/ops.hpp"

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
  // Without `post` (its draws become the variable case) and without prelude `fun` calls
  // (sigmoid becomes helper): what `rml compile` generates today. Both true by default.
  bool with_post = true, with_funs = true;
  int locals = 0;
  std::vector<Ty> local_ty;
  std::set<std::string> skip_ops;  // operator names never generated (the coverage test's negative control)

  static ops::Scalar scalar(Ty t) {
    return t == Ty::Real ? ops::Scalar::Real : t == Ty::Int ? ops::Scalar::Int : ops::Scalar::Bool;
  }
  // An application of a row of the operator table whose result has type t, the row drawn
  // uniformly (then an operand type its typing rule accepts), written with the row's
  // surface spelling; nothing when no row fits.
  template <class Sub>
  std::optional<std::string> table_op(Ty t, Sub &&sub) {
    struct Row {
      std::string_view spelling;
      bool binary, infix;
      std::vector<Ty> ins;  // operand types giving t
    };
    std::vector<Row> rows;
    auto consider = [&](std::string_view spelling, bool binary, ops::Spelling how, ops::Typing typing) {
      if (how == ops::Spelling::IrOnly || skip_ops.count(std::string(spelling))) return;
      Row r{spelling, binary, how == ops::Spelling::Operator, {}};
      for (Ty in : {Ty::Real, Ty::Int, Ty::Bool})
        if (ops::result_type(typing, scalar(in)) == scalar(t)) r.ins.push_back(in);
      if (!r.ins.empty()) rows.push_back(std::move(r));
    };
    for (const ops::UnaryRow &r : ops::kUnary) consider(r.surface, false, r.spelling, r.typing);
    for (const ops::BinaryRow &r : ops::kBinary) consider(r.name, true, r.spelling, r.typing);
    if (rows.empty()) return std::nullopt;
    const Row &r = rows[*rc::gen::inRange<size_t>(0, rows.size())];
    Ty in = r.ins[*rc::gen::inRange<size_t>(0, r.ins.size())];
    std::string op(r.spelling);
    if (!r.binary) return r.infix ? "(" + op + (op == "-" ? "" : " ") + sub(in) + ")" : op + "(" + sub(in) + ")";
    std::string a = sub(in), b = sub(in);
    return r.infix ? "(" + a + " " + op + " " + b + ")" : op + "(" + a + ", " + b + ")";
  }

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
    if (choice == 6 && !with_post) choice = 0;
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
              case 2: on_c = with_post ? "(post " + on_c + ")" : on_c; break;
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
    if (choice == 8 || choice == 10 || (t == Ty::Bool && choice >= 8))
      if (auto e = table_op(t, sub)) return *e;
    switch (t) {
      case Ty::Real:
        if (choice == 9 && with_funs) return "sigmoid(" + sub(Ty::Real) + ")";  // a prelude fun
        return "helper(" + sub(Ty::Real) + ", " + sub(Ty::Bool) + ")" +
               (resets && *rc::gen::arbitrary<bool>() ? " every " + var_of(Ty::Bool, self) : "");
      case Ty::Int: return "(" + sub(Ty::Int) + " mod 7)";  // small ints for the operators above
      case Ty::Bool: return lit(t);  // not reached: every bool operator is a row
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
        "node main(x: real, y: int, c: bool) -> (o1: real, o2: bool";
    // An output on a sampled clock, declared so (an undeclared output is on the base clock,
    // and rml-check's clocks property holds it to that): the shape whose absent cells
    // every back end must print as the oracle does.
    bool sampled_o2 = !well_clocked && *rc::gen::inRange(0, 3) == 0;
    s += sampled_o2 ? " when c)\n" : ")\n";
    for (int j = 0; j < locals; ++j) s += "  v" + std::to_string(j) + " = " + expr(local_ty[j], 3, j) + ";\n";
    s += "  o1 = " + expr(Ty::Real, 2, locals);
    if (resets)  // one restarted instance in every program, whose output o1 reads
      s += " + helper(" + expr(Ty::Real, 1, locals) + ", " + expr(Ty::Bool, 1, locals) + ") every " +
           var_of(Ty::Bool, locals);
    s += ";\n";
    s += "  o2 = " + (sampled_o2 ? "(" + expr(Ty::Bool, 2, locals) + ") when c" : expr(Ty::Bool, 2, locals)) + ";\n";
    return s;
  }
};


}  // namespace rml::testgen
