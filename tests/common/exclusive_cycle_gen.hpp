// A generator of post-free nodes whose instantaneous dependencies form cycles that only
// exclusive when/merge branches break: `v1 .. vN` each `merge c (A when c) (B when not c)`
// where, at the same cycle, A reads only lower-numbered v's and B only higher-numbered ones
// (so the graph has cycles, and every valuation of c cuts them). Such a node has no static
// order for clock-directed code; rml compile makes it a window class with horizon 0 whose
// worklist runs each cycle to its fixpoint, and the stream runner sweeps and repairs it.
// Around the cycle: state (fby, `->`/pre), a nested merge on a
// second clock d inside the not-c branch, a node instance, sampled clocks, and values of
// type int, real or real[2] (tensor state on the cycle).
//
// The program is `node main(c: bool, d: bool, x: int, y: real, t: real[2]) -> (...)`.
#pragma once
#include <rapidcheck.h>

#include <string>
#include <vector>

namespace rml::testgen {

struct ExclusiveCycleGen {
  enum class Ty { Int, Real, Tensor };
  Ty ty = Ty::Int;
  int vars = 0;               // N
  bool nested = false;        // some not-c branch is a merge on d
  bool stateful = false;      // some v is read through fby or pre on the cycle
  bool instance = false;      // some branch calls the helper node

  static int uniform(int lo, int hi) { return *rc::gen::resize(100, rc::gen::inRange(lo, hi)); }

  std::string type() const { return ty == Ty::Int ? "int" : ty == Ty::Real ? "real" : "real[2]"; }
  std::string constant() const {
    int k = uniform(-3, 4);
    if (ty == Ty::Int) return k < 0 ? "(" + std::to_string(k) + ")" : std::to_string(k);
    std::string r = std::to_string(k) + ".5";
    if (k < 0) r = "(" + r + ")";
    return ty == Ty::Real ? r : "[" + r + ", 1.0]";
  }
  std::string input() const { return ty == Ty::Int ? "x" : ty == Ty::Real ? "y" : "t"; }

  // An expression on the base clock; at the same cycle it reads v_j only for j in [lo, hi).
  std::string expr(int lo, int hi, int depth) {
    int k = uniform(0, depth > 0 ? 10 : 6);
    auto var = [&](int a, int b) { return "v" + std::to_string(uniform(a, b)); };
    switch (k) {
      case 0: return input();
      case 1: return constant();
      case 2:
      case 3:
        if (lo < hi) return var(lo, hi);
        return input();
      case 4: stateful = true; return "(" + constant() + " fby " + var(1, vars + 1) + ")";
      case 5: stateful = true; return "(" + input() + " -> pre " + var(1, vars + 1) + ")";  // (a bare pre: nil outputs, rejected)
      case 6:
        if (ty == Ty::Int) return "(if c then " + expr(lo, hi, 0) + " else " + constant() + ")";
        return "(" + expr(lo, hi, 0) + " * " + constant() + ")";
      case 7: instance = true; return "step(" + expr(lo, hi, depth - 1) + ", " + input() + ")";
      case 8: return "(" + expr(lo, hi, depth - 1) + " - " + expr(lo, hi, depth - 1) + ")";
      default: return "(" + expr(lo, hi, depth - 1) + " + " + expr(lo, hi, depth - 1) + ")";
    }
  }

  std::string program() {
    ty = static_cast<Ty>(uniform(0, 3));
    vars = uniform(2, 6);
    std::string T = type();
    std::string s = "node step(a: " + T + ", b: " + T + ") -> (o: " + T + ")\n  o = a + (b fby a);\n\n";
    s += "node main(c: bool, d: bool, x: int, y: real, t: real[2]) -> (o: " + T + ", p: " + T + ", q: " + T + ")\n";
    // The cycle v1 -> vN -> vN-1 -> .. -> v1 is always there: vi reads vi-1 when c, v1
    // reads vN when not c (around it, random reads in the same directions).
    for (int i = 1; i <= vars; ++i) {
      std::string own = i > 1 ? "v" + std::to_string(i - 1) + " + " : "";
      std::string on_c = "(" + own + expr(1, i, 2) + ") when c";
      std::string off_c;
      if (uniform(0, 4) == 0) {  // a merge on d inside the not-c branch, both sides reading higher v's
        nested = true;
        off_c = "(merge d ((" + std::string(i == 1 ? "v" + std::to_string(vars) + " - " : "") + expr(i + 1, vars + 1, 1) + ") when d) ((" + expr(i + 1, vars + 1, 1) + ") when not d)) when not c";
      } else {
        off_c = "(" + std::string(i == 1 ? "v" + std::to_string(vars) + " - " : "") + expr(i + 1, vars + 1, 2) + ") when not c";
      }
      s += "  v" + std::to_string(i) + " = merge c (" + on_c + ") (" + off_c + ");\n";
    }
    // Outputs: a v, a sum of two, and state over the last (read at the next cycle).
    s += "  o = v" + std::to_string(uniform(1, vars + 1)) + ";\n";
    s += "  p = v1 + v" + std::to_string(vars) + ";\n";
    s += "  q = " + constant() + " fby v" + std::to_string(uniform(1, vars + 1)) + ";\n";
    return s;
  }
};

}  // namespace rml::testgen
