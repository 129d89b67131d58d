// rml adjoint (src/adjoint): the derived training programs checked three ways.
//  1. Against the paper's hand-written training code, repaired (reference/): Figure 3's
//     diff_app / diff_app_pipe and Figure 20's diff_lstm_end, cell by cell on the oracle,
//     and Figure 3's run against an independent C++ model of online gradient descent.
//  2. Law (property): for a random differentiable stream program P with an output y, the
//     derived program's gradient d_x at cycle n equals the float64 central difference of
//     L = sum_m w_m y_m (the oracle's run of P) in x_n, where w is the cotangent given on
//     d_y: relative error <= 1e-6. Generated programs reach the shapes where adjoints go
//     wrong: fby under a when (a clocked state), recurrences cut at `end` (eager `if` and
//     lazy merge forms), post, arrows, pre, merges, a node instance reset by `every`.
//  3. Negative controls: a deliberately wrong rule (fby <-> identity; when's adjoint
//     dropped) is caught by the same comparison.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>
#include <random>
#include <sstream>

#include "adjoint/adjoint.hpp"
#include "array/ad/ad.hpp"
#include "array/ir/eval.hpp"
#include "array/lower/lower.hpp"
#include "common/sanitized.hpp"
#include "core/clocks.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "oracle/trace_io.hpp"
#include "sema/frontend.hpp"
#include "syntax/diag.hpp"

namespace rml::adjoint {
namespace {

std::string read_source(const std::string &rel) {
  std::string err;
  auto t = read_file(std::string(RML_SOURCE_DIR) + "/" + rel, err);
  if (!t) throw std::runtime_error(err);
  return *t;
}

Result derive_text(const std::string &text, const std::string &main, Mutation m = Mutation::None) {
  auto fr = run_frontend("test.rml", text);
  if (!fr->checked_ok) throw std::runtime_error(render_all(fr->diags) + text);
  Options o;
  o.mutation = m;
  return derive(*fr, "test.rml", text, main, o);
}

// A checked text and one of its nodes, elaborated, run on the oracle as often as asked.
struct Runner {
  std::unique_ptr<FrontendResult> fr;
  core::Program prog;
  std::unique_ptr<oracle::Oracle> o;
  Runner(const std::string &text, const std::string &main) {
    fr = run_frontend("run.rml", text);
    if (!fr->checked_ok) throw std::runtime_error(render_all(fr->diags) + text);
    prog = core::elaborate(fr->checked, main);
    o = std::make_unique<oracle::Oracle>(fr->checked, prog);
  }
  oracle::Result run(const std::map<std::string, std::vector<oracle::Cell>> &streams, size_t cycles,
                     oracle::Solver s = oracle::Solver::Worklist) {
    oracle::Inputs in;
    in.cycles = cycles;
    in.streams = streams;
    return o->run(in, s);
  }
};

using oracle::Cell;
using oracle::Tag;
Cell real(double v) { return Cell::of(array::Tensor::real(v)); }
Cell boolean(bool b) { return Cell::of(array::Tensor::boolean(b)); }
Cell vec(const std::vector<double> &v) {
  array::Tensor t = array::Tensor::zeros(Scalar::Real, {static_cast<int64_t>(v.size())});
  t.r = v;
  return Cell::of(t);
}

using Trace = std::map<std::string, std::vector<Cell>>;

// The derived program's trace: the forward one, bp true and the output's cotangent w.
Trace with_seed(Trace in, const std::vector<double> &w) {
  for (double x : w) in["bp"].push_back(boolean(true)), in["d_y"].push_back(real(x));
  return in;
}

// L = sum_n w_n y_n on the oracle's run of the forward node.
double weighted_loss(Runner &fwd, const Trace &in, const std::vector<double> &w) {
  auto r = fwd.run(in, w.size());
  double L = 0;
  for (size_t n = 0; n < w.size(); ++n) L += w[n] * r.at("y", n).value.r[0];
  return L;
}

// |a - b| <= rel * max(1, |a|, |b|), elementwise.
bool close(const Cell &a, const Cell &b, double rel) {
  if (a.tag != b.tag) return false;
  if (a.tag != Tag::Val) return true;
  if (a.value.r.size() != b.value.r.size()) return false;
  for (size_t k = 0; k < a.value.r.size(); ++k) {
    double x = a.value.r[k], y = b.value.r[k];
    if (!(std::abs(x - y) <= rel * std::max({1.0, std::abs(x), std::abs(y)}))) return false;
  }
  return true;
}

// ---------------------------------------------------------------- Figure 3

// The cmp nodes run the repaired hand-written training code and the derived one side by
// side; the loss gradient is Figure 3's (-learn_rate * mse_grad_i), on the cycles of bp.
const char *kFig3Cmp = R"(
node cmp_pipe(i: real, bp: bool, gt: real when bp) -> (o_hand: real, o_derived: real)
var di: real when bp; d: real when bp;
let
  o_hand = diff_app_pipe(i, bp, gt, 0.01);
  o_derived, di = app_pipe_adjoint(i, bp, d);
  d = -0.01 * mse_grad_i(o_derived when bp, gt);
tel
node cmp_app(i: real, bp: bool, gt: real when bp) -> (o_hand: real, o_derived: real)
var di: real when bp; d: real when bp;
let
  o_hand = diff_app(i, bp, gt, 0.01);
  o_derived, di = app_adjoint(i, bp, d);
  d = -0.01 * mse_grad_i(o_derived when bp, gt);
tel
)";

std::string fig3_with_derived() {
  std::string text = read_source("reference/paper/fig03_gradient_descent.rml");
  text = derive_text(text, "app_pipe").source;
  text = derive_text(text, "app").source;
  return text + kFig3Cmp;
}

TEST(Figure3, DerivedTrainingEqualsTheRepairedHandWrittenCode) {
  Runner r(fig3_with_derived(), "cmp_pipe");
  Runner r_app(fig3_with_derived(), "cmp_app");
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-2, 2);
  // bp: runs of consecutive backprop cycles (where the printed diff_fby1 went wrong), gaps,
  // and a final stretch without backprop.
  const std::vector<bool> bp = {true, true, true, false, true, true, false, false, true, false, true, true, false, false};
  const size_t T = bp.size();
  std::map<std::string, std::vector<Cell>> in;
  for (size_t n = 0; n < T; ++n) {
    in["i"].push_back(real(u(rng)));
    in["bp"].push_back(boolean(bp[n]));
    in["gt"].push_back(bp[n] ? real(u(rng)) : Cell::absent());
  }
  for (auto *run : {&r, &r_app}) {
    auto res = run->run(in, T);
    size_t defined = 0;
    for (size_t n = 0; n < T; ++n) {
      Cell h = res.at("o_hand", n), d = res.at("o_derived", n);
      EXPECT_TRUE(close(h, d, 1e-12)) << "cycle " << n << ": hand " << h.str() << ", derived " << d.str();
      defined += d.tag == Tag::Val;
    }
    EXPECT_GE(defined, T - 1);  // diff_fby1's post: the last cycle may wait for the next one
  }
}

// Online gradient descent on Figure 3's pipelined network, written directly: at cycle n,
// x_n = k_n i_n + b_n, o_n = x_(n-1)^2 (o_0 = 0), the loss (o_n - gt_n)^2 at bp cycles, and
// the parameters move by -lr * dL_(n+1)/d(k_n, b_n) (the loss that x_n reaches, one cycle
// later). An independent model of what the derived program must compute.
TEST(Figure3, DerivedTrainingEqualsAnIndependentModel) {
  Runner r(fig3_with_derived(), "cmp_pipe");
  const std::vector<double> i = {1, 2, 3, 4, 5, -1, 0.5, 2};
  const std::vector<double> gt = {2, 3, 1, 4, 2, 0, 1, 3};
  const std::vector<bool> bp = {true, true, false, true, true, true, false, true};
  const size_t T = i.size();
  std::map<std::string, std::vector<Cell>> in;
  for (size_t n = 0; n < T; ++n) {
    in["i"].push_back(real(i[n]));
    in["bp"].push_back(boolean(bp[n]));
    in["gt"].push_back(bp[n] ? real(gt[n]) : Cell::absent());
  }
  auto res = r.run(in, T);
  double k = 1, b = 0, lr = 0.01;
  std::vector<double> x(T), o(T);
  for (size_t n = 0; n < T; ++n) {
    x[n] = k * i[n] + b;
    o[n] = n == 0 ? 0.0 : x[n - 1] * x[n - 1];
    if (n + 1 < T) {
      double o_next = x[n] * x[n];  // o_(n+1) depends on this cycle's parameters only
      double g = bp[n + 1] ? 2 * (o_next - gt[n + 1]) * 2 * x[n] : 0.0;  // dL_(n+1)/dx_n
      k += -lr * g * i[n];
      b += -lr * g;
    }
  }
  ASSERT_EQ(res.at("o_derived", 2).tag, Tag::Val);
  // Pinned by hand: k_1 = 1 + 0.01*2*(3-1)*2*1*1 = 1.08, b_1 = 0.08, o_2 = (1.08*2 + 0.08)^2.
  EXPECT_DOUBLE_EQ(res.at("o_derived", 2).value.r[0], 5.0176);
  for (size_t n = 0; n + 1 < T; ++n) {
    Cell d = res.at("o_derived", n);
    ASSERT_EQ(d.tag, Tag::Val) << n;
    EXPECT_NEAR(d.value.r[0], o[n], 1e-12 * std::max(1.0, std::abs(o[n]))) << "cycle " << n;
  }
}

// Inference (bp false everywhere): the derived program's outputs are the forward node's.
TEST(Figure3, InferenceLeavesTheForwardBehaviourUnchanged) {
  std::string text = read_source("reference/paper/fig03_gradient_descent.rml");
  text = derive_text(text, "app_pipe").source + R"(
node infer_derived(i: real) -> (o: real, o_fwd: real)
  o, _ = app_pipe_adjoint(i, false, 0.0);
  o_fwd = app_pipe(i);
)";
  Runner r(text, "infer_derived");
  std::map<std::string, std::vector<Cell>> in;
  for (double v : {1.0, -2.0, 0.5, 3.0, 7.0}) in["i"].push_back(real(v));
  auto res = r.run(in, 5);
  for (size_t n = 0; n < 5; ++n) EXPECT_EQ(res.at("o", n), res.at("o_fwd", n)) << n;
}

// ---------------------------------------------------------------- Figure 20

TEST(Figure20, DerivedLstmTrainingEqualsTheRepairedHandWrittenCode) {
  // Figure 20's file (hand-written diff_lstm_end, lazy fby_end) plus the forward LSTM of
  // Figure 19 (tests/adjoint/lstm_end_lazy.rml without its copy of fby_end).
  std::string hand = read_source("reference/paper/fig20_diff_lstm_end.rml");
  std::string fwd = read_source("tests/adjoint/lstm_end_lazy.rml");
  fwd = fwd.substr(fwd.find("// --- Figure 19 ---"));
  std::string text = derive_text(hand + "\n" + fwd, "check_lstm_end").source + R"(
node cmp(x: real[3], end: bool, bp: bool, dh: real[2] when bp)
  -> (h_hand: real[2], dx_hand: real[3] when bp, h_derived: real[2], dx_derived: real[3] when bp)
let
  h_hand, dx_hand = check_diff_lstm_end(x, end, bp, dh);
  h_derived, dx_derived = check_lstm_end_adjoint(x, end, bp, dh);
tel
)";
  Runner r(text, "cmp");
  std::mt19937_64 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  // Sequences of 4, 3, 5 and 2 steps; the third without backprop (the hand-written code
  // assumes `always (bp or not end)`: a sequence is trained whole or not at all).
  const std::vector<bool> end = {false, false, false, true, false, false, true, false, false, false, false, true, false, true};
  const std::vector<bool> bp = {true, true, true, true, true, true, true, false, false, false, false, false, true, true};
  const size_t T = end.size();
  std::map<std::string, std::vector<Cell>> in;
  for (size_t n = 0; n < T; ++n) {
    in["x"].push_back(vec({u(rng), u(rng), u(rng)}));
    in["end"].push_back(boolean(end[n]));
    in["bp"].push_back(boolean(bp[n]));
    in["dh"].push_back(bp[n] ? vec({0.1 * u(rng), 0.1 * u(rng)}) : Cell::absent());
  }
  auto res = r.run(in, T);
  for (size_t n = 0; n < T; ++n) {
    EXPECT_EQ(res.tag("h_derived", n), Tag::Val) << n;
    EXPECT_TRUE(close(res.at("h_hand", n), res.at("h_derived", n), 1e-12)) << "h at " << n;
    EXPECT_TRUE(close(res.at("dx_hand", n), res.at("dx_derived", n), 1e-12))
        << "dx at " << n << ": hand " << res.at("dx_hand", n).str() << ", derived " << res.at("dx_derived", n).str();
  }
}

// ---------------------------------------------------------------- the law

// A random differentiable stream program from a seed: real inputs x1, x2, bool inputs c
// and end, locals built from earlier ones, one real output y.
struct GenProgram {
  std::string text;
  bool tensor = false;
  bool has_fby = false, has_when = false, has_cut_state = false, has_clocked_fby = false, has_post = false,
       has_reset = false;
};

class Gen {
 public:
  // tensor: inputs and locals real[2] (gradient funs for matvec, index, array literals,
  // scalar broadcast, dot and sum; zeros([2]) as the zero), the output y a real.
  explicit Gen(uint64_t seed, bool tensor = false) : rng_(seed), tensor_(tensor) {}

  GenProgram program() {
    GenProgram g;
    g_ = &g;
    g.tensor = tensor_;
    atoms_ = {"x1", "x2"};
    std::string locals, eqs;
    int nlocals = pick(3, 6);
    for (int k = 0; k < nlocals; ++k) {
      std::string v = "v" + std::to_string(k);
      int kind = pick(0, 9);
      if (kind <= 1) {  // a recurrence cut at end: eager fby_end (if) or lazy (merge on rst)
        std::string sp = "sp" + std::to_string(k), sn = "sn" + std::to_string(k), cut = "sc" + std::to_string(k);
        locals += "  " + sp + ": " + T() + "; " + sn + ": " + T() + "; " + cut + ": " + T() + ";\n";
        eqs += "  " + sn + " = tanh(" + lit() + " * " + sp + " + " + expr(2) + ");\n";
        if (kind == 0) {
          eqs += "  " + cut + " = if end then " + Z() + " else " + sn + ";\n";
          eqs += "  " + sp + " = " + Z() + " fby " + cut + ";\n";
        } else {
          eqs += "  " + cut + " = " + Z() + " fby " + sn + ";\n";
          eqs += "  " + sp + " = merge rst (" + vlit() + " when rst) (" + cut + " when not rst);\n";
        }
        g.has_cut_state = g.has_fby = true;
        atoms_.push_back(sp);
        atoms_.push_back(sn);
        continue;
      }
      if (kind == 2) {  // a clocked state (fby under a when, merged back) in an instance reset by `every`
        locals += "  " + v + ": " + T() + ";\n";
        eqs += "  " + v + " = cstate(c, " + expr(2) + ", " + expr(1) + ") every rst;\n";
        g.has_clocked_fby = g.has_when = g.has_fby = g.has_reset = true;
        atoms_.push_back(v);
        continue;
      }
      if (kind == 3) {  // a node instance reset by `every`
        locals += "  " + v + ": " + T() + ";\n";
        eqs += "  " + v + " = leaky(" + expr(2) + ") every rst;\n";
        g.has_reset = g.has_fby = true;
        atoms_.push_back(v);
        continue;
      }
      locals += "  " + v + ": " + T() + ";\n";
      eqs += "  " + v + " = " + expr(3) + ";\n";
      atoms_.push_back(v);
    }
    auto later = [&] { return atoms_[pick(2, static_cast<int>(atoms_.size()) - 1)]; };
    std::string y = tensor_ ? "sum(" + atoms_.back() + ")" : atoms_.back();
    for (int k = 0; k < 2; ++k)
      y += " + " + lit() + " * " + (tensor_ ? "dot(" + later() + ", " + atom() + ")" : later());
    const std::string t = T(), z = Z();
    g.text = "node leaky(u: " + t + ") -> (o: " + t + ")\n  o = u + 0.5 * (" + z + " fby o);\n\n"
             "node cstate(c: bool, u: " + t + ", z: " + t + ") -> (o: " + t + ")\nvar w: " + t + " when c;\nlet\n"
             "  w = " + vlit() + " fby (tanh(u) when c);\n  o = merge c (w * (z when c)) (z when not c);\ntel\n\n"
             "node f(x1: " + t + ", x2: " + t + ", c: bool, end: bool) -> (y: real)\nvar\n  rst: bool;\n" +
             locals + "let\n  rst = true fby end;\n" + eqs + "  y = " + y + ";\ntel\n";
    return g;
  }

 private:
  int pick(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  std::string lit() {
    static const char *ls[] = {"0.5", "1.5", "(-0.75)", "2.0", "(-1.25)"};
    return ls[pick(0, 4)];
  }
  std::string atom() { return atoms_[pick(0, static_cast<int>(atoms_.size()) - 1)]; }
  std::string T() const { return tensor_ ? "real[2]" : "real"; }
  std::string Z() const { return tensor_ ? "zeros([2])" : "0.0"; }
  // A literal of the locals' type.
  std::string vlit() {
    if (!tensor_) return lit();
    return "[" + lit() + ", " + lit() + "]";
  }
  std::string expr(int depth) {
    if (depth == 0) return pick(0, 5) == 0 ? vlit() : atom();
    if (tensor_ && pick(0, 3) == 0) {  // the tensor applications: gradient funs from the symbolic AD
      switch (pick(0, 3)) {
        case 0: return "matvec([[" + lit() + ", " + lit() + "], [" + lit() + ", " + lit() + "]], " + expr(depth - 1) + ")";
        case 1: {
          std::string e = expr(depth - 1);
          return "[(" + e + ")[1], (" + e + ")[0]]";
        }
        case 2: return "(" + lit() + " * " + expr(depth - 1) + ")";
        default: return "(" + expr(depth - 1) + " * dot(" + expr(depth - 1) + ", " + atom() + "))";
      }
    }
    switch (pick(0, 13)) {
      case 0: return "(" + expr(depth - 1) + " + " + expr(depth - 1) + ")";
      case 1: return "(" + expr(depth - 1) + " - " + expr(depth - 1) + ")";
      case 2:
      case 3: return "(" + expr(depth - 1) + " * " + expr(depth - 1) + ")";
      case 4: return "(-" + expr(depth - 1) + ")";
      case 5: return "tanh(" + expr(depth - 1) + ")";
      case 6: return "sigmoid(" + expr(depth - 1) + ")";
      case 7: return "(if c then " + expr(depth - 1) + " else " + expr(depth - 1) + ")";
      case 8:
        g_->has_when = true;
        return "(merge c (" + expr(depth - 1) + " when c) (" + expr(depth - 1) + " when not c))";
      // Delays are cut at `end` (as fby_end cuts them): a delay that carries a value
      // into the next sequence makes each sequence's gradient wait for the next one's,
      // which no finite trace (and no productive program) provides.
      case 9: g_->has_fby = true; return "(" + Z() + " fby (if end then " + Z() + " else " + expr(depth - 1) + "))";
      case 10: return "(" + expr(depth - 1) + " -> " + expr(depth - 1) + ")";
      case 11: g_->has_fby = true; return "(" + vlit() + " -> pre (if end then " + Z() + " else " + expr(depth - 1) + "))";
      case 12: g_->has_post = true; return "(post " + expr(depth - 1) + ")";
      default: return atom();
    }
  }
  std::mt19937_64 rng_;
  bool tensor_;
  std::vector<std::string> atoms_;
  GenProgram *g_ = nullptr;
};

struct Comparison {
  size_t compared = 0, mismatches = 0;
  std::string first;  // the first mismatch, said
};

// The law on one program and one trace: derived d_x1, d_x2 against central differences.
Comparison compare_with_finite_differences(const GenProgram &g, uint64_t seed, Mutation m = Mutation::None) {
  Result d = derive_text(g.text, "f", m);
  Runner fwd(g.text, "f");
  Runner adj(d.source, d.node);
  for (auto &clash : core::infer_clocks(adj.prog).clashes) ADD_FAILURE() << clash.message << "\n" << d.derived;
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  // Sequences end at cycle 2 and at the last cycle, and at random between: the lazy
  // cuts (merge on rst, `every rst`) leave the last sequence's gradient unknown (it
  // waits for the cycle after), the earlier ones are complete.
  const size_t T = 8;
  auto value = [&] { return g.tensor ? vec({u(rng), u(rng)}) : real(u(rng)); };
  std::map<std::string, std::vector<Cell>> in;
  for (size_t n = 0; n < T; ++n) {
    in["x1"].push_back(value());
    in["x2"].push_back(value());
    in["c"].push_back(boolean(rng() % 2));
    in["end"].push_back(boolean(n == 2 || n + 1 == T || rng() % 4 == 0));
  }
  auto base = fwd.run(in, T);
  // w_m: the cotangent of y_m; zero where y_m is unknown (a post at the last cycle), so
  // that the loss is the same function for the derivative and the differences.
  std::vector<double> w(T);
  for (size_t n = 0; n < T; ++n) w[n] = base.tag("y", n) == Tag::Val ? u(rng) : 0.0;
  auto loss = [&](const oracle::Result &r, bool &ok) {
    double L = 0;
    for (size_t n = 0; n < T; ++n)
      if (w[n] != 0) {
        if (r.tag("y", n) != Tag::Val) ok = false;
        else L += w[n] * r.at("y", n).value.r[0];
      }
    return L;
  };
  auto ain = in;
  for (size_t n = 0; n < T; ++n) {
    ain["bp"].push_back(boolean(true));
    ain["d_y"].push_back(real(w[n]));
  }
  auto ad = adj.run(ain, T);
  Comparison c;
  for (const char *x : {"x1", "x2"}) {
    std::string dx = std::string("d_") + x;
    for (size_t n = 0; n < T; ++n) {
      if (ad.tag(dx, n) != Tag::Val) continue;  // its backward chain leaves the trace
      for (size_t e = 0; e < in[x][n].value.r.size(); ++e) {
        double got = ad.at(dx, n).value.r[e];
        double x0 = in[x][n].value.r[e], h = 1e-5 * std::max(1.0, std::abs(x0));
        auto p = in, q = in;
        p[x][n].value.r[e] = x0 + h;
        q[x][n].value.r[e] = x0 - h;
        bool ok = true;
        double lp = loss(fwd.run(p, T), ok), lm = loss(fwd.run(q, T), ok), fd = (lp - lm) / (2 * h);
        if (!ok) continue;
        ++c.compared;
        // Relative 1e-6, plus what rounding L can do to a difference quotient: about ten
        // ulps of L, divided by h. Without it, a small derivative of a large L (degree-16
        // polynomials arise) is below the differences' resolution.
        double tol = 1e-6 * std::max({1.0, std::abs(got), std::abs(fd)}) + 2e-15 * std::max(std::abs(lp), std::abs(lm)) / h;
        if (!(std::abs(got - fd) <= tol)) {
          if (!c.mismatches++) {
            std::ostringstream os;
            os << dx << "[" << e << "] at cycle " << n << ": derived " << got << ", central difference " << fd;
            c.first = os.str();
          }
        }
      }
    }
  }
  return c;
}

RC_GTEST_PROP(AdjointLaw, GradientEqualsCentralDifferencesOfTheOracle, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  GenProgram g = Gen(seed).program();
  RC_TAG(g.has_cut_state ? "cut recurrence" : "no recurrence");
  RC_TAG(g.has_clocked_fby ? "fby under when" : "no clocked state");
  Comparison c = compare_with_finite_differences(g, seed ^ 0x9e3779b97f4a7c15ull);
  RC_LOG() << g.text << c.first << "\n";
  RC_CLASSIFY(c.compared >= 8, "8+ gradient cells compared");
  RC_ASSERT(c.mismatches == 0u);
  RC_ASSERT(c.compared > 0u);
}

// The same law on tensor programs: real[2] streams through matvec, index and array
// literals, scalar broadcast, dot and sum, whose adjoints are gradient funs written back
// from the symbolic AD.
RC_GTEST_PROP(AdjointLaw, TensorGradientEqualsCentralDifferencesOfTheOracle, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  GenProgram g = Gen(seed, true).program();
  Comparison c = compare_with_finite_differences(g, seed ^ 0x9e3779b97f4a7c15ull);
  RC_LOG() << g.text << c.first << "\n";
  RC_ASSERT(c.mismatches == 0u);
  RC_ASSERT(c.compared > 0u);
}

// Found by the 10^4-program run: a derivative of 7.4984e-4 of a loss of 2.7e5 (degree-16
// polynomials), which central differences with h = 1e-5 resolve only to ~6e-6 (ten
// ulps of L over h): they give 7.4797e-4; with h = 1e-3, where rounding matters less,
// 7.4989e-4. The law's tolerance includes the differences' rounding. Pinned so that it
// keeps covering this case.
TEST(AdjointLaw, SmallDerivativeOfALargeLossIsWithinTheDifferencesResolution) {
  const uint64_t seed = 1201275852510320829ull;
  Comparison c = compare_with_finite_differences(Gen(seed, true).program(), seed ^ 0x9e3779b97f4a7c15ull);
  EXPECT_EQ(c.mismatches, 0u) << c.first;
  EXPECT_GT(c.compared, 0u);
}

// The generator reaches the shapes the law is about, within its first programs.
TEST(AdjointLaw, GeneratorReachesTheHardShapes) {
  int fby = 0, when = 0, cut = 0, clocked = 0, post = 0, reset = 0;
  for (uint64_t s = 1; s <= 40; ++s) {
    GenProgram g = Gen(s).program();
    fby += g.has_fby, when += g.has_when, cut += g.has_cut_state, clocked += g.has_clocked_fby, post += g.has_post,
        reset += g.has_reset;
  }
  EXPECT_GE(fby, 20);
  EXPECT_GE(when, 10);
  EXPECT_GE(cut, 10);
  EXPECT_GE(clocked, 5);
  EXPECT_GE(post, 5);
  EXPECT_GE(reset, 5);
}

// Negative controls: the law fails on a wrong rule. Each mutation is caught within the
// first programs that use the primitive it breaks.
void expect_caught(Mutation m, bool GenProgram::*uses, bool tensor = false) {
  int tried = 0;
  for (uint64_t s = 1; s <= 60 && tried < 12; ++s) {
    GenProgram g = Gen(s, tensor).program();
    if (!(g.*uses)) continue;
    ++tried;
    if (compare_with_finite_differences(g, s, m).mismatches > 0) return;
  }
  ADD_FAILURE() << "the mutated rule was not caught in " << tried << " programs";
}
TEST(AdjointLaw, NegativeControlFbyAsIdentityIsCaught) { expect_caught(Mutation::FbyIdentity, &GenProgram::has_fby); }
TEST(AdjointLaw, NegativeControlPostAsIdentityIsCaught) { expect_caught(Mutation::PostIdentity, &GenProgram::has_post); }
TEST(AdjointLaw, NegativeControlGradientFunDroppedIsCaught) {
  expect_caught(Mutation::GradientFunDropped, &GenProgram::tensor, true);
}
TEST(AdjointLaw, NegativeControlWhenAdjointDroppedIsCaught) {
  expect_caught(Mutation::WhenDropped, &GenProgram::has_when);
}

// ---------------------------------------------------------------- unrolled, one fun

// The node unrolled over a trace whose bool inputs are known, by symbolic execution of the
// elaborated equations (an implementation of its own, not the oracle): a real cell is an
// IR term over the real input cells, a bool cell a value; presence comes from the inferred
// clocks. The loss L = sum_n w_n y_n is then one term, which the symbolic reverse AD
// (ad::gradient_program) differentiates: the law says the derived program's d_x equals
// that gradient wherever the derived program knows it.
class Unroller {
 public:
  struct Val {
    enum Kind { Abs, Undef, Real, Bool } kind = Undef;
    ir::Term t;
    bool b = false;
  };
  Unroller(const CheckedProgram &cp, const core::Program &p, size_t T, const std::map<std::string, std::vector<Cell>> &in)
      : cp_(cp), T_(T), in_(in), clocks_(core::infer_clocks(p)) {
    for (auto &eq : p.equations) def_[eq.lhs] = &eq;
    for (auto &v : p.inputs) input_[v.name] = &v;
  }
  Val value(const std::string &v, size_t n) {
    if (n >= T_) return {};
    auto key = std::make_pair(v, n);
    if (auto it = memo_.find(key); it != memo_.end()) return it->second;
    Val r = compute(v, n);
    memo_[key] = r;
    return r;
  }
  std::string cell_name(const std::string &v, size_t n) { return v + "@" + std::to_string(n); }

 private:
  bool present(int t, size_t n) {
    const auto &term = clocks_.terms[static_cast<size_t>(t)];
    if (term.kind == core::ClockTerm::Base) return true;
    if (term.kind == core::ClockTerm::Never) return false;
    if (!present(term.parent, n)) return false;
    Val c = value(term.cond, n);
    if (c.kind != Val::Bool) throw std::runtime_error("clock condition " + term.cond + " unknown");
    return c.b == term.positive;
  }
  bool present(const std::string &v, size_t n) { return present(clocks_.of(v), n); }
  // The previous / next cycle where v's clock ticks, or SIZE_MAX.
  size_t tick_before(const std::string &v, size_t n) {
    for (size_t m = n; m-- > 0;)
      if (present(v, m)) return m;
    return SIZE_MAX;
  }
  size_t tick_after(const std::string &v, size_t n) {
    for (size_t m = n + 1; m < T_; ++m)
      if (present(v, m)) return m;
    return SIZE_MAX;
  }
  Val real(ir::Term t) { return Val{Val::Real, std::move(t), false}; }
  Val compute(const std::string &v, size_t n) {
    if (!present(v, n)) return Val{Val::Abs, nullptr, false};
    if (auto it = input_.find(v); it != input_.end()) {
      const Cell &c = in_.at(v).at(n);
      if (it->second->type.elem == Scalar::Bool) return Val{Val::Bool, nullptr, c.value.i[0] != 0};
      return real(ir::var(cell_name(v, n), ir::Type{Scalar::Real, {}}));
    }
    const core::Equation &eq = *def_.at(v);
    auto arg = [&](size_t k, size_t m) { return value(eq.args.at(k), m); };
    switch (eq.prim) {
      case core::Prim::Const:
        if (eq.lit.type == Scalar::Bool) return Val{Val::Bool, nullptr, eq.lit.b};
        if (eq.lit.type == Scalar::Real) return real(ir::real_scalar(eq.lit.r));
        break;
      case core::Prim::Copy:
      case core::Prim::When: return arg(0, n);
      case core::Prim::Merge: {
        Val c = arg(0, n);
        return c.kind == Val::Bool ? arg(c.b ? 1 : 2, n) : Val{};
      }
      case core::Prim::Fby: {
        size_t m = tick_before(v, n);
        return m == SIZE_MAX ? arg(0, n) : arg(1, m);
      }
      case core::Prim::Pre: {
        size_t m = tick_before(v, n);
        return m == SIZE_MAX ? Val{} : arg(0, m);
      }
      case core::Prim::Arrow: return arg(tick_before(v, n) == SIZE_MAX ? 0 : 1, n);
      case core::Prim::Post: {
        size_t m = tick_after(v, n);
        return m == SIZE_MAX ? Val{} : arg(0, m);
      }
      case core::Prim::Apply: return apply(eq, n);
    }
    throw std::runtime_error("unroll: unsupported equation for " + v);
  }
  Val apply(const core::Equation &eq, size_t n) {
    std::vector<Val> a;
    for (size_t k = 0; k < eq.args.size(); ++k) {
      a.push_back(value(eq.args[k], n));
      if (a.back().kind == Val::Undef) return {};  // strict
    }
    switch (eq.op) {
      case core::ApplyOp::Unary:
        if (eq.un == ops::UnOp::Not) return Val{Val::Bool, nullptr, !a[0].b};
        return real(ir::unary(eq.un, a[0].t));
      case core::ApplyOp::Binary:
        if (a[0].kind == Val::Bool) {
          bool x = a[0].b, y = a[1].b;
          switch (eq.bin) {
            case ops::BinOp::And: return Val{Val::Bool, nullptr, x && y};
            case ops::BinOp::Or: return Val{Val::Bool, nullptr, x || y};
            default: throw std::runtime_error("unroll: a bool operator");
          }
        }
        return real(ir::broadcast_binary(eq.bin, a[0].t, a[1].t));
      case core::ApplyOp::If:
        if (a[1].kind == Val::Bool) return a[0].b ? a[1] : a[2];
        return a[0].b ? a[1] : a[2];
      case core::ApplyOp::Call: {
        std::vector<ir::Type> types;
        for (auto &x : a) types.push_back(x.t->type);
        lower::Lowered low = lower::lower_fun(cp_, eq.fn, eq.static_args, types);
        ir::Term t = low.body;
        for (size_t k = 0; k < a.size(); ++k) t = ir::substitute(t, low.inputs[k].first, a[k].t);
        return real(t);
      }
      default: throw std::runtime_error("unroll: an index or array literal");
    }
  }
  const CheckedProgram &cp_;
  size_t T_;
  const std::map<std::string, std::vector<Cell>> &in_;
  core::Clocks clocks_;
  std::map<std::string, const core::Equation *> def_;
  std::map<std::string, const core::Var *> input_;
  std::map<std::pair<std::string, size_t>, Val> memo_;
};

// The derived d_x1, d_x2 against the reverse AD of the unrolled program, on one trace.
Comparison compare_with_unrolled(const GenProgram &g, uint64_t seed, Mutation m = Mutation::None) {
  Result d = derive_text(g.text, "f", m);
  Runner fwd(g.text, "f"), adj(d.source, d.node);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.5, 1.5);
  const size_t T = 8;
  std::map<std::string, std::vector<Cell>> in;
  for (size_t n = 0; n < T; ++n) {
    in["x1"].push_back(real(u(rng)));
    in["x2"].push_back(real(u(rng)));
    in["c"].push_back(boolean(rng() % 2));
    in["end"].push_back(boolean(n == 2 || n + 1 == T || rng() % 4 == 0));
  }
  Unroller un(fwd.fr->checked, fwd.prog, T, in);
  ir::Term L;
  std::vector<double> w(T, 0.0);
  for (size_t n = 0; n < T; ++n) {
    auto y = un.value("y", n);
    if (y.kind != Unroller::Val::Real) continue;
    w[n] = u(rng);
    ir::Term term = ir::binary(ops::BinOp::Mul, ir::real_scalar(w[n]), y.t);
    L = L ? ir::binary(ops::BinOp::Add, L, term) : term;
  }
  Comparison c;
  if (!L) return c;
  ad::Inputs inputs;
  std::vector<array::Tensor> args;
  for (const char *x : {"x1", "x2"})
    for (size_t n = 0; n < T; ++n) {
      inputs.emplace_back(un.cell_name(x, n), ir::Type{Scalar::Real, {}});
      args.push_back(in[x][n].value);
    }
  ir::Program gp = ad::gradient_program(L, inputs);
  args.push_back(array::Tensor::real(1.0));
  auto out = ir::evaluate(gp, args);
  auto ain = in;
  for (size_t n = 0; n < T; ++n) ain["bp"].push_back(boolean(true)), ain["d_y"].push_back(real(w[n]));
  auto res = adj.run(ain, T);
  for (size_t k = 0; k < 2; ++k)
    for (size_t n = 0; n < T; ++n) {
      std::string dx = k == 0 ? "d_x1" : "d_x2";
      if (res.tag(dx, n) != Tag::Val) continue;
      double got = res.at(dx, n).value.r[0], want = out.at(1 + k * T + n).r[0];
      ++c.compared;
      if (!(std::abs(got - want) <= 1e-9 * std::max({1.0, std::abs(got), std::abs(want)})) && !c.mismatches++) {
        std::ostringstream os;
        os << dx << " at cycle " << n << ": derived " << got << ", reverse AD of the unrolled program " << want;
        c.first = os.str();
      }
    }
  return c;
}

RC_GTEST_PROP(AdjointLaw, GradientEqualsReverseAdOfTheUnrolledProgram, ()) {
  const auto seed = *rc::gen::arbitrary<uint64_t>();
  GenProgram g = Gen(seed).program();
  Comparison c = compare_with_unrolled(g, seed);
  RC_CLASSIFY(c.compared >= 8, "8+ gradient cells compared");
  RC_LOG() << g.text << c.first << "\n";
  RC_ASSERT(c.mismatches == 0u);
  RC_ASSERT(c.compared > 0u);
}

// The same comparison catches a wrong rule (its negative control).
TEST(AdjointLaw, NegativeControlUnrolledComparisonCatchesFbyAsIdentity) {
  for (uint64_t s = 1; s <= 60; ++s) {
    GenProgram g = Gen(s).program();
    if (g.has_fby && compare_with_unrolled(g, s, Mutation::FbyIdentity).mismatches > 0) return;
  }
  ADD_FAILURE() << "fby <-> identity was not caught";
}

// ---------------------------------------------------------------- ADBench LSTM

// The ADBench LSTM file as the stream program's input trace (reference/adbench/lstm.rml),
// as benchmarks/adbench/to_json lstm --derived writes it.
struct LstmData {
  std::vector<double> main, extra, state;  // 4 x 56, 3 x 14, 4 x 14
  std::vector<std::vector<double>> seq;    // c x 14
};
LstmData read_lstm(const std::string &rel) {
  std::istringstream in(read_source(rel));
  int l, c, b;
  in >> l >> c >> b;
  EXPECT_EQ(l, 2);
  EXPECT_EQ(b, 14);
  LstmData d;
  auto take = [&](std::vector<double> &v, size_t n) {
    v.resize(n);
    for (auto &x : v) in >> x;
  };
  take(d.main, 8 * l * b);
  take(d.extra, 3 * b);
  take(d.state, 2 * l * b);
  d.seq.resize(c);
  for (auto &r : d.seq) take(r, b);
  EXPECT_TRUE(static_cast<bool>(in));
  return d;
}
Cell tensor(const std::vector<double> &v, std::vector<int64_t> shape) {
  array::Tensor t = array::Tensor::zeros(Scalar::Real, shape);
  t.r = v;
  return Cell::of(t);
}
std::map<std::string, std::vector<Cell>> lstm_trace(const LstmData &d, size_t cycles, bool derived) {
  std::map<std::string, std::vector<Cell>> in;
  const std::vector<double> z56(4 * 56, 0.0), z42(42, 0.0), zs(56, 0.0);
  for (size_t t = 0; t < cycles; ++t) {
    in["x"].push_back(vec(d.seq[t]));
    in["ygold"].push_back(vec(d.seq[t + 1]));
    in["end"].push_back(boolean(t + 1 == cycles));
    in["count"].push_back(real(static_cast<double>(cycles * 14)));
    in["main"].push_back(tensor(t == 0 ? d.main : z56, {4, 56}));
    in["extra"].push_back(tensor(t == 0 ? d.extra : z42, {3, 14}));
    in["state"].push_back(tensor(t == 0 ? d.state : zs, {4, 14}));
    if (derived) {
      in["bp"].push_back(boolean(true));
      in["d_objective"].push_back(real(t + 1 == cycles ? 1.0 : 0.0));
    }
  }
  return in;
}
double rho(double a, double b) { return std::abs(a - b) / std::max(1.0, std::abs(a) + std::abs(b)); }

// The objective of the stream program is ADBench's (0.66666518, rho <= 1e-7), and the
// gradient that the derived program computes (BPTT through post chains, at cycle 0 where
// the weights are latched) is ADBench's recorded gradient (rho <= 1e-8) and central
// differences of the oracle's objective (rho <= 1e-6, ADBench's own finite-difference
// check).
TEST(AdbenchLstm, DerivedGradientIsAdbenchsGoldenGradient) {
  const std::string text = read_source("reference/adbench/lstm.rml");
  LstmData d = read_lstm("data/adbench/lstm/lstm_l2_c1024.txt");
  const size_t T = d.seq.size() - 1;
  Result r = derive_text(text, "adbench_lstm_l2");
  Runner fwd(text, "adbench_lstm_l2"), adj(r.source, r.node);
  auto f = fwd.run(lstm_trace(d, T, false), T);
  ASSERT_EQ(f.tag("objective", T - 1), Tag::Val);
  EXPECT_LE(rho(f.at("objective", T - 1).value.r[0], 0.66666518), 1e-7);
  auto g = adj.run(lstm_trace(d, T, true), T);
  ASSERT_EQ(g.tag("d_main", 0), Tag::Val);
  std::vector<double> grad = g.at("d_main", 0).value.r;
  for (double v : g.at("d_extra", 0).value.r) grad.push_back(v);
  std::istringstream golden(read_source("tests/adjoint/adbench_lstm_l2_c1024_gradient.txt"));
  std::vector<double> want;
  for (std::string line; std::getline(golden, line);)
    if (!line.empty() && line[0] != '#') want.push_back(std::stod(line));
  ASSERT_EQ(want.size(), 266u);
  ASSERT_EQ(grad.size(), 266u);
  for (size_t k = 0; k < 266; ++k) EXPECT_LE(rho(grad[k], want[k]), 1e-8) << "entry " << k << ": " << grad[k] << " vs " << want[k];
  // Central differences on a sample of entries (every 19th), ADBench's step cbrt(eps);
  // Release only (two runs of 1023 cycles each take ~4 s under the sanitizers).
  for (size_t k = 3; k < (rml::test::kSanitized ? 0 : 266); k += 19) {
    auto plus = d, minus = d;
    double &p = k < 224 ? plus.main[k] : plus.extra[k - 224], &m = k < 224 ? minus.main[k] : minus.extra[k - 224];
    double h = 6.0554544523933395e-06 * std::max(1.0, std::abs(p));
    p += h;
    m -= h;
    double lp = fwd.run(lstm_trace(plus, T, false), T).at("objective", T - 1).value.r[0];
    double lm = fwd.run(lstm_trace(minus, T, false), T).at("objective", T - 1).value.r[0];
    EXPECT_LE(rho((lp - lm) / (2 * h), grad[k]), 1e-6) << "entry " << k;
  }
}

// ---------------------------------------------------------------- training end to end

// The derived program of a forward loss node, run on its trace (reference/training); the
// loss stream and the last values of `show`.
std::vector<double> train(const std::string &rml, const std::string &main, const std::string &csv,
                          std::map<std::string, double> *last = nullptr) {
  Result d = derive_text(read_source(rml), main);
  Runner r(d.source, d.node);
  auto in = oracle::read_trace(csv, read_source(csv), r.prog, 0);
  auto res = r.o->run(in, oracle::Solver::Worklist);
  std::vector<double> loss;
  for (size_t n = 0; n < in.cycles; ++n) {
    EXPECT_EQ(res.tag("loss", n), Tag::Val) << n;
    if (res.tag("loss", n) == Tag::Val) loss.push_back(res.at("loss", n).value.r[0]);
  }
  if (last)
    for (auto &[v, x] : *last) x = res.at(v, in.cycles - 1).value.r[0];
  return loss;
}
double mean(const std::vector<double> &v, size_t from, size_t to) {
  double s = 0;
  for (size_t k = from; k < to; ++k) s += v[k];
  return s / static_cast<double>(to - from);
}

TEST(Training, Figure3Converges) {
  std::map<std::string, double> params{{"app_pipe_1_dense_1_k", 0}, {"app_pipe_1_dense_1_b", 0}};
  auto loss = train("reference/training/fig03_sgd.rml", "app_pipe_loss", "reference/training/fig03_sgd.csv", &params);
  ASSERT_EQ(loss.size(), 200u);
  EXPECT_GT(mean(loss, 0, 25), 1.0);
  EXPECT_LT(mean(loss, 175, 200), 1e-8);
  EXPECT_NEAR(params["app_pipe_1_dense_1_k"], 2.0, 1e-4);
  EXPECT_NEAR(params["app_pipe_1_dense_1_b"], 1.0, 1e-4);
}

TEST(Training, LstmSineLossFalls) {
  auto loss = train("reference/training/lstm_sine.rml", "lstm_sine", "reference/training/lstm_sine.csv");
  ASSERT_EQ(loss.size(), 1200u);
  double first = mean(loss, 0, 80), last = mean(loss, 1120, 1200);
  EXPECT_GT(first, 0.4);
  EXPECT_LT(last, 0.04);
  EXPECT_LT(last, first / 10);
}

// ---------------------------------------------------------------- --params gradient

// FractalTensor's vanilla RNN cell (reference/fractaltensor/vanilla_rnn.rml) in a
// recurrence cut at `end`, its bias a param initialised from an input.
const char *kRnn = R"(
fun vecmat(x: real[n], w: real[n, m]) : real[m] = matvec(tr(w), x);
fun vanilla_cell(state: real[k], cur: real[d], i2h: real[d, h], h2h: real[k, h], bias: real[h]) : real[h]
  = tanh(vecmat(cur, i2h) + vecmat(state, h2h) + bias);
node rnn(x: real[3], end: bool, b0: real[2]) -> (y: real)
var h: real[2]; s: real[2]; i2h: real[3, 2]; h2h: real[2, 2]; bias: real[2];
let
  i2h = param(glorot_uniform([3, 2]));
  h2h = param(orthogonal([2, 2]));
  bias = param(b0);
  h = vanilla_cell(s, x, i2h, h2h, bias);
  s = zeros([2]) fby (if end then zeros([2]) else h);
  y = dot(h, h);
tel
)";

std::map<std::string, std::vector<Cell>> rnn_trace(size_t T, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::map<std::string, std::vector<Cell>> in;
  for (size_t n = 0; n < T; ++n) {
    in["x"].push_back(vec({u(rng), u(rng), u(rng)}));
    in["end"].push_back(boolean(n == 2 || n + 1 == T));
    in["b0"].push_back(vec({0.1 * u(rng), 0.1 * u(rng)}));
  }
  return in;
}

// With --params gradient the parameters keep their values: the derived program computes
// the gradient at fixed parameters, d_x and d_b0 equal central differences, and the
// gradient output of the bias param is d_b0 (the param is the copy of b0).
TEST(ParamsGradientMode, RnnGradientsEqualCentralDifferences) {
  auto fr = run_frontend("rnn.rml", kRnn);
  ASSERT_TRUE(fr->checked_ok) << render_all(fr->diags);
  Options o;
  o.params = ParamMode::Gradient;
  Result d = derive(*fr, "rnn.rml", kRnn, "rnn", o);
  ASSERT_EQ(d.param_gradients.size(), 3u);
  std::string dbias;
  for (auto &[p, g] : d.param_gradients)
    if (p == "bias") dbias = g;
  ASSERT_FALSE(dbias.empty());
  Runner fwd(kRnn, "rnn"), adj(d.source, d.node);
  const size_t T = 6;
  auto in = rnn_trace(T, 5);
  std::vector<double> w = {0.5, -1.0, 0.25, 1.5, -0.75, 1.0};
  auto ad = adj.run(with_seed(in, w), T);
  auto loss = [&](const Trace &i) { return weighted_loss(fwd, i, w); };
  for (size_t n = 0; n < T; ++n) {
    ASSERT_EQ(ad.tag("d_x", n), Tag::Val) << n;
    EXPECT_EQ(ad.at(dbias, n), ad.at("d_b0", n)) << n;
    EXPECT_EQ(ad.at("y", n), fwd.run(in, T).at("y", n)) << "forward unchanged at " << n;
    for (const char *v : {"x", "b0"}) {
      for (size_t e = 0; e < in[v][n].value.r.size(); ++e) {
        auto p = in, q = in;
        const double h = 1e-5;
        p[v][n].value.r[e] += h;
        q[v][n].value.r[e] -= h;
        double fd = (loss(p) - loss(q)) / (2 * h), got = ad.at(std::string("d_") + v, n).value.r[e];
        EXPECT_NEAR(got, fd, 1e-6 * std::max({1.0, std::abs(got), std::abs(fd)})) << v << "[" << e << "] at " << n;
      }
    }
  }
}

// With the default (--params update) the same node is not productive: a parameter read
// at every cycle is updated at every cycle, and its update at n needs the sequence's
// backward chain, which needs the forward values after n, which need the update at n.
// The oracle leaves those cells unknown (semantics/adjoint.md §4: such parameters need
// param_end, which reads them once per sequence).
TEST(ParamsGradientMode, OnlineUpdatesOfARecurrentNetworkAreNotCausal) {
  Result d = derive_text(kRnn, "rnn");
  Runner adj(d.source, d.node);
  const size_t T = 6;
  auto ain = rnn_trace(T, 5);
  for (size_t n = 0; n < T; ++n) ain["bp"].push_back(boolean(true)), ain["d_y"].push_back(real(1.0));
  auto ad = adj.run(ain, T);
  EXPECT_EQ(ad.tag("y", 0), Tag::Val);
  EXPECT_EQ(ad.tag("y", 1), Tag::Bot);
}

// ---------------------------------------------------------------- the reference corpus

// Every main node of reference/ (its `// main:` header) derives, in both parameter modes,
// a program that the front end accepts (derive checks it) and whose clocks unify (no
// clash: the derived program is well-clocked); the two nodes with a real input or output
// on a sampled clock are refused with adjoint.interface-clock. Productivity is rml-check's
// (scripts/adjoint-reference.sh).
TEST(AdjointReference, EveryMainDerivesAWellClockedProgram) {
  size_t derived = 0, refused = 0;
  for (auto &e : std::filesystem::recursive_directory_iterator(std::string(RML_SOURCE_DIR) + "/reference")) {
    const std::string path = e.path().string();
    if (e.path().extension() != ".rml" || path.find(".printed.") != std::string::npos) continue;
    std::string rel = path.substr(std::string(RML_SOURCE_DIR).size() + 1), text = read_source(rel);
    auto at = text.find("// main: ");
    if (at == std::string::npos) continue;
    std::string main = text.substr(at + 9, text.find_first_of(" \n", at + 9) - at - 9);
    // Under the sanitizers (20x slower) the update mode only: the modes share the code.
    std::vector<ParamMode> modes = {ParamMode::Update};
    if (!rml::test::kSanitized) modes.push_back(ParamMode::Gradient);
    for (ParamMode mode : modes) {
      SCOPED_TRACE(rel + " " + main + (mode == ParamMode::Update ? " (update)" : " (gradient)"));
      auto fr = run_frontend(rel, text);
      ASSERT_TRUE(fr->checked_ok);
      Options o;
      o.params = mode;
      try {
        Result d = derive(*fr, rel, text, main, o);
        auto fr2 = run_frontend("derived.rml", d.source);
        ASSERT_TRUE(fr2->checked_ok);
        // The static clock calculus leaves a clash to rml-check's semantic (Z3) clock
        // check in a few flattened forward nodes (Figure 3's train samples on the
        // constant true inside an instance): the derived node, flat too, must have none
        // where the flattened forward node (rml parse --normalized) has none.
        auto flat = run_frontend("flat.rml", text + "\n" + core::print_core(core::elaborate(fr->checked, main)).replace(5, main.size(), main + "_flat"));
        ASSERT_TRUE(flat->checked_ok) << render_all(flat->diags);
        auto fwd = core::infer_clocks(core::elaborate(flat->checked, main + "_flat"));
        auto clocks = core::infer_clocks(core::elaborate(fr2->checked, d.node));
        if (fwd.clashes.empty())
          for (auto &c : clocks.clashes) ADD_FAILURE() << c.message << "\n" << d.derived;
        ++derived;
      } catch (AdjointError &err) {
        // lus/lstm_reset's model has a real output on a sampled clock, Figure 20's main is
        // a training program already (its gradient input dh_next is on bp).
        EXPECT_EQ(err.rule, "adjoint.interface-clock") << err.what();
        EXPECT_TRUE(rel.find("lstm_reset") != std::string::npos || rel.find("fig20") != std::string::npos) << err.what();
        ++refused;
      }
    }
  }
  EXPECT_GE(derived, rml::test::kSanitized ? 20u : 40u);
  EXPECT_EQ(refused, rml::test::kSanitized ? 2u : 4u);
}

// ---------------------------------------------------------------- errors and shapes

TEST(Adjoint, RealInterfaceOnASampledClockIsRefused) {
  const char *text = "node f(c: bool, x: real when c) -> (y: real when c)\n  y = 2.0 * x;\n";
  try {
    derive_text(text, "f");
    FAIL() << "accepted";
  } catch (AdjointError &e) {
    EXPECT_EQ(e.rule, "adjoint.interface-clock");
    EXPECT_NE(std::string(e.what()).find("'x'"), std::string::npos) << e.what();
  }
}

// Derived names never shadow a global (a constant named like a cotangent or like bp).
TEST(Adjoint, DerivedNamesAvoidEveryGlobalName) {
  const char *text = "const adj_x = 2.0;\nconst bp = 1.0;\nnode f(x: real) -> (y: real)\n  y = adj_x * x * bp;\n";
  Result d = derive_text(text, "f");
  EXPECT_EQ(d.bp, "bp_1");
  EXPECT_NE(d.derived.find("adj_x_1 = "), std::string::npos) << d.derived;
  auto fr = run_frontend("d.rml", d.source);
  for (auto &diag : fr->diags.all()) ADD_FAILURE() << render(diag);
}

TEST(Adjoint, ParamsAreFoundAndBecomeGradientSteps) {
  std::string text = read_source("reference/paper/fig03_gradient_descent.rml");
  Result r = derive_text(text, "app_pipe");
  EXPECT_EQ(r.params.size(), 2u);
  EXPECT_NE(r.derived.find("fby (dense_1_k + adj_dense_1_k)"), std::string::npos) << r.derived;
  EXPECT_NE(r.derived.find("adj_x = post adj_y;"), std::string::npos) << r.derived;
  EXPECT_EQ(r.gradients.size(), 1u);
  EXPECT_EQ(r.seeds.size(), 1u);
}

// The gradient of a tensor application comes from the symbolic AD, written as a fun: the
// law on a tensor program (tanh of a matrix-vector product, an index), by central
// differences per element.
TEST(Adjoint, TensorApplicationsDifferentiateThroughGradientFuns) {
  const char *text = R"(
node g(x: real[3], end: bool) -> (y: real)
var h: real[2]; hp: real[2]; hc: real[2];
let
  h = tanh(matvec([[0.5, -1.0, 0.25], [1.5, 0.75, -0.5]], x) + 0.8 * hp);
  hc = if end then zeros([2]) else h;
  hp = zeros([2]) fby hc;
  y = h[0] * h[1] + dot(h, h);
tel
)";
  Result d = derive_text(text, "g");
  EXPECT_NE(d.derived.find("fun d_matvec"), std::string::npos) << d.derived;
  Runner fwd(text, "g"), adj(d.source, d.node);
  const size_t T = 5;
  std::mt19937_64 rng(3);
  std::uniform_real_distribution<double> u(-1, 1);
  std::map<std::string, std::vector<Cell>> in;
  for (size_t n = 0; n < T; ++n) {
    in["x"].push_back(vec({u(rng), u(rng), u(rng)}));
    in["end"].push_back(boolean(n == 2 || n + 1 == T));
  }
  std::vector<double> w(T);
  for (auto &v : w) v = u(rng);
  auto ad = adj.run(with_seed(in, w), T);
  auto loss = [&](const Trace &i) { return weighted_loss(fwd, i, w); };
  for (size_t n = 0; n < T; ++n) {
    ASSERT_EQ(ad.tag("d_x", n), Tag::Val) << n;
    for (size_t e = 0; e < 3; ++e) {
      auto p = in, q = in;
      double h = 1e-5;
      p["x"][n].value.r[e] += h;
      q["x"][n].value.r[e] -= h;
      double fd = (loss(p) - loss(q)) / (2 * h);
      double got = ad.at("d_x", n).value.r[e];
      EXPECT_NEAR(got, fd, 1e-6 * std::max({1.0, std::abs(got), std::abs(fd)})) << "d_x[" << e << "] at " << n;
    }
  }
}

}  // namespace
}  // namespace rml::adjoint
