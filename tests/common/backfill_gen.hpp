// A generator of the hard shapes for rml-check's productivity proof: backward recurrences
// (`post`) cut by a condition, where the cutting branch may read the chain's own stream
// back in time (fby, `->`/pre, a node instance, another stream, another post), the
// continuing branch may alternate between several posts, the cut may be an input under a
// `within` assumption or a counter, and the recurrence may run on a sampled clock (a node
// instance called on `d`). The soundness property once missed every one of these.
//
// The program is `node main(x: real, y: int, c: bool, d: bool) -> (o: real)`, plus the
// helper nodes it instantiates. Assumptions are stated on inputs or on expressions of
// them; `admissible` tells whether a finite input prefix respects them (in every window of
// N + 1 cycles that lies inside the prefix, the condition holds once).
#pragma once
#include <rapidcheck.h>

#include <string>
#include <vector>

namespace rml::testgen {

struct BackfillGen {
  // What was generated (for RC_TAG and for generating admissible inputs).
  std::string cut;             // the condition that selects the cutting branch
  bool counter = false;        // the cut is a counter reaching its bound
  bool sampled = false;        // the recurrence runs in a node instance on clock d
  bool reads_back = false;     // the cutting branch reads the chain's own stream
  bool alternates = false;     // the continuing side is a merge of two posts
  std::string param;           // a parameter w updated with the chain's value (as in training code)
  int within = -1;             // the assumption's bound, or -1 without one
  std::string assumed;         // the assumed condition (an input or an expression of inputs)

  // Uniform choices at every test size (RapidCheck scales inRange with the size, which
  // would leave the rare shapes to the last cases).
  static int uniform(int lo, int hi) { return *rc::gen::resize(100, rc::gen::inRange(lo, hi)); }
  static std::string pick(const std::vector<std::string> &v) { return v[static_cast<size_t>(uniform(0, static_cast<int>(v.size())))]; }

  // The cutting branch: a value on the chain's clock, possibly reading `o` back in time.
  std::string cutting(const std::string &self) {
    int k = uniform(0, 11);
    reads_back = k >= 2;
    switch (k) {
      case 0: return "xx";
      case 1: return "(xx + 1.0)";
      case 2: return "(0.0 fby " + self + ")";
      case 3: return "(0.0 -> pre " + self + ")";
      case 4: return "delay(" + self + ")";
      case 5: return "back";  // a local stream: back = 0.0 fby o, read through another equation
      case 6: return "(post (0.0 fby (0.0 fby " + self + ")))";
      case 7: return "(xx + (0.0 fby (0.0 fby " + self + ")))";
      // A parameter w that takes the chain's value at cuts (Figure 3's diff_app_pipe,
      // Figure 20): the chain and w's fby form one component. Read only at cuts (lazy
      // merge) it is productive; read at every cycle (eager if) a cell needs itself.
      case 8: param = "  w = 1.0 fby w1;\n  w1 = merge k ((w + " + self + ") when k) (w when not k);\n"; return "(xx * w)";
      case 9: param = "  w = 1.0 fby w1;\n  w1 = merge k ((w * 0.5 + " + self + ") when k) (w when not k);\n"; return "(xx + w)";
      default: param = "  w = 1.0 fby w1;\n  w1 = if k then w + " + self + " else w;\n"; return "(xx * w)";
    }
  }
  // The continuing branch: needs the chain's next value.
  std::string continuing(const std::string &self, const std::string &k) {
    int j = uniform(0, 5);
    switch (j) {
      case 0: return "post " + self;
      case 1: return "post (" + self + " + xx)";
      case 2: return "(post " + self + ") * 0.5";
      case 3: alternates = true; return "merge d2 ((post " + self + ") when d2) ((post (" + self + " + 1.0)) when not d2)";
      default: return "post (if " + k + " then xx else " + self + ")";
    }
  }

  // The body of the recurrence node: inputs xx (real), k (the cut), d2 (bool).
  std::string recurrence() {
    std::string s = "node rec(xx: real, k: bool, d2: bool) -> (r: real)\n";
    std::string cont = continuing("r", "k");
    std::string cutb = cutting("r");
    if (cutb == "back") s += "  back = 0.0 fby r;\n";
    s += param;
    s += "  r = merge k ((" + cutb + ") when k) ((" + cont + ") when not k);\n";
    return s;
  }

  std::string program() {
    std::string s =
        "node delay(a: real) -> (b: real)\n"
        "  b = 0.0 fby a;\n";
    s += recurrence();
    s += "node main(x: real, y: int, c: bool, d: bool) -> (o: real)\n";
    int kind = uniform(0, 6);
    counter = kind == 5;
    if (counter) {
      int P = uniform(1, 5);
      s += "  cnt = 0 fby (if cnt = " + std::to_string(P) + " then 0 else cnt + 1);\n";
      cut = "cnt = " + std::to_string(P);
    } else {
      cut = pick({"c", "not c", "c and d", "c or d", "d"});
    }
    if (!counter && uniform(0, 5) != 0) {
      within = uniform(1, 6);
      assumed = uniform(0, 3) == 0 ? pick({"c", "c and d", "not c"}) : cut;
      s += "  assume always eventually " + assumed + " within " + std::to_string(within) + ";\n";
    }
    sampled = uniform(0, 4) == 0;
    if (sampled) {
      s += "  kk = " + cut + ";\n";
      s += "  o = merge d (rec(x when d, kk when d, (c when d))) (0.0 when not d);\n";
    } else {
      s += "  o = rec(x, " + cut + ", c or d);\n";
    }
    return s;
  }
};

}  // namespace rml::testgen
