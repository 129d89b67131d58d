// Laws of the stream semantics, proved by Z3 over symbolic prefixes of every length up to
// K. The rules (stream_rules.hpp) transcribe semantics.md §3-§4 and
// oracle.cpp's rule_* functions case by case; the Agreement test evaluates them on random
// concrete inputs and compares with the oracle, so the semantics proved here is the one the
// oracle implements.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <z3++.h>

#include <cstdlib>
#include <functional>
#include <iostream>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"
#include "stream_rules.hpp"

using namespace rml::proofs;


// Monotonicity of every primitive: s ⊑ s' cell-wise implies f(s) ⊑ f(s'), at every index
// of every prefix length up to K (the Kleene iteration and the worklist rely on it). Clock
// operands (of pre, post, constants and `on`) vary too, over clock cells.
TEST(StreamLaws, EveryPrimitiveIsMonotone) {
  Domain D;
  Rules R{D};
  z3::func_decl f = D.c.function("f", D.data, D.data, D.data);
  for (int len = 1; len <= K; ++len) {
    Stream x = fresh_stream(D, "x", len), y = fresh_stream(D, "y", len), c = fresh_stream(D, "c", len);
    Stream x2 = fresh_stream(D, "X", len), y2 = fresh_stream(D, "Y", len), c2 = fresh_stream(D, "C", len);
    Stream q = fresh_stream(D, "q", len), q2 = fresh_stream(D, "Q", len);  // a condition of `on`
    z3::expr below = leq(R, x, x2, false) && leq(R, y, y2, false) && leq(R, c, c2, true) && leq(R, q, q2, true);
    // c as a clock: tt, ff, ⊥ or ‖, never □ or nil (semantics.md §1).
    z3::expr clocks = is_clock(R, c) && is_clock(R, c2);
    Cell k{D.val(), D.c.constant("k", D.data), D.c.bool_val(false)};  // a constant's value
    for (int n = 0; n < len; ++n) {
      auto mono = [&](const Cell &lo, const Cell &hi, bool boolean = false, bool clocked = false) {
        return valid(D, z3::implies(below && (clocked ? clocks : D.c.bool_val(true)), leq(R, lo, hi, boolean)));
      };
      EXPECT_TRUE(mono(R.when(x[n], c[n], true), R.when(x2[n], c2[n], true))) << "when, n=" << n;
      EXPECT_TRUE(mono(R.when(x[n], c[n], false), R.when(x2[n], c2[n], false))) << "when not";
      EXPECT_TRUE(mono(R.merge(c[n], x[n], y[n]), R.merge(c2[n], x2[n], y2[n]))) << "merge";
      EXPECT_TRUE(mono(R.apply2(f, x[n], y[n]), R.apply2(f, x2[n], y2[n]))) << "op";
      EXPECT_TRUE(mono(R.select(c[n], x[n], y[n]), R.select(c2[n], x2[n], y2[n]))) << "if";
      EXPECT_TRUE(mono(R.not_(c[n]), R.not_(c2[n]), true)) << "not";
      EXPECT_TRUE(mono(R.fby_at(x, y, n), R.fby_at(x2, y2, n))) << "fby, len=" << len << " n=" << n;
      EXPECT_TRUE(mono(R.arrow_at(x, y, n), R.arrow_at(x2, y2, n))) << "->, len=" << len << " n=" << n;
      EXPECT_TRUE(mono(R.pre_at(x, c, n), R.pre_at(x2, c2, n), false, true)) << "pre, len=" << len << " n=" << n;
      EXPECT_TRUE(mono(R.post_at(x, c, n), R.post_at(x2, c2, n), false, true)) << "post, len=" << len << " n=" << n;
      EXPECT_TRUE(mono(R.constant(c[n], k), R.constant(c2[n], k), false, true)) << "const";
      EXPECT_TRUE(mono(R.clock_on(c[n], q[n], true), R.clock_on(c2[n], q2[n], true), true, true)) << "on";
    }
  }
}

namespace {
// Inputs of the laws: values or □ (no ⊥, no ‖), present together, with the clock κ of
// the present cells.
z3::expr aligned(Rules &R, const Stream &a, const Stream &b, const Stream &kappa) {
  z3::expr ok = R.c().bool_val(true);
  for (size_t n = 0; n < a.size(); ++n) {
    ok = ok && (R.present(a[n]) || R.is(a[n], kAbs)) && (R.is(a[n], kAbs) == R.is(b[n], kAbs)) &&
         (R.present(b[n]) || R.is(b[n], kAbs)) && R.is(kappa[n], kVal) && (kappa[n].b == R.present(a[n]));
  }
  return ok;
}
}  // namespace

namespace {
// The claim "post (y fby x) = x at index n" on aligned inputs of length len: x where a
// later tick exists within the prefix, ⊥ at the last tick, □ where x is absent.
z3::expr post_of_fby_is_identity(Domain &D, Rules &R, int len, int n) {
  Stream x = fresh_stream(D, "x", len), y = fresh_stream(D, "y", len), k = fresh_stream(D, "k", len);
  Stream z;
  for (int m = 0; m < len; ++m) z.push_back(R.fby_at(y, x, m));
  z3::expr later = D.c.bool_val(false);
  for (int m = n + 1; m < len; ++m) later = later || R.present(x[m]);
  Cell w = R.post_at(z, k, n);
  z3::expr want = z3::ite(R.present(x[n]), z3::ite(later, eq(R, w, x[n], false), R.is(w, kBot)), R.is(w, kAbs));
  return z3::implies(aligned(R, x, y, k), want);
}
}  // namespace

// post (y fby x) = x: wherever a later tick exists within the prefix (beyond it, ⊥).
TEST(StreamLaws, PostOfFbyIsTheIdentity) {
  Domain D;
  Rules R{D};
  for (int len = 1; len <= K; ++len)
    for (int n = 0; n < len; ++n) EXPECT_TRUE(valid(D, post_of_fby_is_identity(D, R, len, n))) << "len=" << len << " n=" << n;
}

// y fby (post x) = x except at the first tick, where it is y: exact on every prefix.
TEST(StreamLaws, FbyOfPostIsTheIdentityButTheFirstTick) {
  Domain D;
  Rules R{D};
  for (int len = 1; len <= K; ++len) {
    Stream x = fresh_stream(D, "x", len), y = fresh_stream(D, "y", len), k = fresh_stream(D, "k", len);
    Stream p;
    for (int n = 0; n < len; ++n) p.push_back(R.post_at(x, k, n));
    for (int n = 0; n < len; ++n) {
      z3::expr earlier = D.c.bool_val(false);
      for (int m = 0; m < n; ++m) earlier = earlier || R.present(x[m]);
      Cell w = R.fby_at(y, p, n);
      z3::expr want = z3::ite(R.present(x[n]), z3::ite(earlier, eq(R, w, x[n], false), eq(R, w, y[n], false)), R.is(w, kAbs));
      EXPECT_TRUE(valid(D, z3::implies(aligned(R, x, y, k), want))) << "len=" << len << " n=" << n;
    }
  }
}

// merge c (x when c) (x when not c) = x, for c and x present at the same cycles.
TEST(StreamLaws, MergeOfWhensReconstructs) {
  Domain D;
  Rules R{D};
  Stream x = fresh_stream(D, "x", 1), c = fresh_stream(D, "c", 1);
  z3::expr ok = (R.present(x[0]) || R.is(x[0], kAbs)) && (R.is(c[0], kVal) == R.present(x[0])) && (R.is(c[0], kVal) || R.is(c[0], kAbs));
  Cell w = R.merge(c[0], R.when(x[0], c[0], true), R.when(x[0], c[0], false));
  EXPECT_TRUE(valid(D, z3::implies(ok, eq(R, w, x[0], false))));  // index-wise: one cell suffices
}

// The stream form of fby (fby# then pre#, rules F1-F5 / P1-P5 of semantics.md §4.6), as a
// state machine over the prefix, equals the index-wise form the oracle implements, on
// every input (⊥, □, ‖ and values) at every index.
namespace {
// The claim "stream form = index form at every index" for one prefix length.
z3::expr fby_forms_agree(Domain &D, Rules &R, int len) {
  Stream i = fresh_stream(D, "i", len), e = fresh_stream(D, "e", len);
  z3::expr in_pre = D.c.bool_val(false);  // false: fby#, true: pre#(v)
  Cell v = i[0];                           // the pre# state (meaningful once in_pre)
  z3::expr claim = D.c.bool_val(true);
  for (int n = 0; n < len; ++n) {
    const Cell &in = i[n], &en = e[n];
    Cell bot = R.of_tag(D.bot(), in), abs = R.of_tag(D.abs(), in), err = R.of_tag(D.err(), in);
    z3::expr c1 = R.is(in, kBot);                                        // F1 / P1
    z3::expr c2 = R.is(in, kAbs) && (R.is(en, kAbs) || R.is(en, kBot));  // F2 / P2
    z3::expr c3 = R.present(in) && (R.present(en) || R.is(en, kBot));    // F3 / P3
    z3::expr c4 = R.is(in, kAbs) && (R.present(en) || R.is(en, kErr));   // F4 / P4
    // F5 / P5: otherwise.
    Cell y = R.ite(c1, bot, R.ite(c2, abs, R.ite(c3, R.ite(in_pre, v, in), err)));
    claim = claim && eq(R, y, R.fby_at(i, e, n), false);
    Cell next_v = R.ite(c1, bot, R.ite(c2 || c4, v, R.ite(c3, en, err)));
    z3::expr next_pre = z3::ite(c2 || c4, in_pre, D.c.bool_val(true));
    v = next_v;
    in_pre = next_pre;
  }
  return claim;
}
}  // namespace

TEST(StreamLaws, FbyStreamFormEqualsIndexForm) {
  Domain D;
  Rules R{D};
  for (int len = 1; len <= K; ++len) EXPECT_TRUE(valid(D, fby_forms_agree(D, R, len))) << "len=" << len;
}

// Negative control: the same proof fails on a broken fby (one that forgets its state).
TEST(StreamLaws, ABrokenRuleIsCaught) {
  Domain D;
  Rules R{D};
  R.broken_fby = true;
  bool some_failure = false;
  for (int len = 2; len <= 4; ++len)
    for (int n = 0; n < len; ++n) some_failure |= !valid(D, post_of_fby_is_identity(D, R, len, n));
  EXPECT_TRUE(some_failure);
  // and the broken index form no longer equals the stream form.
  bool forms_differ = false;
  for (int len = 2; len <= 4; ++len) forms_differ |= !valid(D, fby_forms_agree(D, R, len));
  EXPECT_TRUE(forms_differ);
}

// ------------------------------------------------- Lustre initialisation: pre and ->
// semantics.md §4.7 (rule_arrow) and §4.8 (rule_pre). κ is pre's clock stream (what the
// oracle reads from clocks.of(lhs)): any clock cells, tt ff ⊥ ‖.
namespace {

using Shown = std::vector<std::pair<std::string, std::pair<Stream, bool>>>;

// The conclusion of the clock soundness theorem (proofs/clock_calculus_soundness.md §1)
// for a stream s on clock κ: no ‖, and wherever s is defined, κ is tt or ff and s is
// present iff κ ticks. ⊥ cells are allowed anywhere (non-productive programs).
z3::expr on_clock(Rules &R, const Stream &s, const Stream &kappa) {
  z3::expr ok = is_clock(R, kappa);
  for (size_t n = 0; n < s.size(); ++n)
    ok = ok && !R.is(s[n], kErr) && !R.is(kappa[n], kErr) &&
         z3::implies(!R.is(s[n], kBot), R.is(kappa[n], kVal) && R.present(s[n]) == kappa[n].b);
  return ok;
}
// κ = pres(s) exactly: tt where s is present, ff where □, and ⊥/‖ where s is ⊥/‖.
z3::expr is_presence_of(Rules &R, const Stream &kappa, const Stream &s) {
  z3::expr ok = is_clock(R, kappa);
  for (size_t n = 0; n < s.size(); ++n)
    ok = ok && z3::ite(R.present(s[n]), R.tt(kappa[n]),
               z3::ite(R.is(s[n], kAbs), R.ff(kappa[n]), kappa[n].t == s[n].t));
  return ok;
}
z3::expr no_bot(Rules &R, const Stream &s) {
  z3::expr ok = R.c().bool_val(true);
  for (auto &c : s) ok = ok && !R.is(c, kBot);
  return ok;
}
// The constant stream c^κ (rule_const) of one value cell.
Stream constant(Rules &R, const Stream &kappa, const Cell &value) {
  return R.each(kappa, [&](int n) { return R.constant(kappa[n], value); });
}

// pre^κ x = nil^κ fby x (semantics.md §4.8), at one length.
z3::expr pre_is_nil_fby(Domain &D, Rules &R, int len) {
  Stream x = fresh_stream(D, "x", len), k = fresh_stream(D, "k", len);
  Stream nils = R.each(k, [&](int n) { return R.constant(k[n], R.nil(x[n])); });
  return z3::implies(is_clock(R, k), eq(R, R.pre(x, k), R.fby(nils, x), false));
}
// y0 fby x = y0 -> pre^κ x where κ is the presence of y0, at one length.
z3::expr fby_is_arrow_pre(Domain &D, Rules &R, int len) {
  Stream y0 = fresh_stream(D, "y", len), x = fresh_stream(D, "x", len), k = fresh_stream(D, "k", len);
  return z3::implies(is_presence_of(R, k, y0), eq(R, R.fby(y0, x), R.arrow(y0, R.pre(x, k)), false));
}

}  // namespace

// Law: pre^κ x = nil^κ fby x, on every input and every clock stream (semantics.md §4.8):
// `prev` and `back` scan the same cells.
TEST(InitLaws, PreIsNilFby) {
  Domain D;
  Rules R{D};
  for (int len = 1; len <= K; ++len) EXPECT_TRUE(valid(D, pre_is_nil_fby(D, R, len))) << "len=" << len;
}

// Law: y0 fby x = y0 -> pre^κ x, where κ is the clock of the `->` (and of the `pre`, by
// the clock calculus). Exact on every x, ⊥/‖/□/nil cells included, when κ = pres(y0).
TEST(InitLaws, FbyIsArrowOfPre) {
  Domain D;
  Rules R{D};
  for (int len = 1; len <= K; ++len) EXPECT_TRUE(valid(D, fby_is_arrow_pre(D, R, len))) << "len=" << len;
}

// The same law under what the clock calculus guarantees (y0 and x on κ, no ‖, ⊥ allowed):
// exact. With only y0 on κ, the `->` form is above the fby form and can be strictly above:
// `pre x` reads κ, not y0, so it sees a misaligned x while y0 is still ⊥.
TEST(InitLaws, FbyIsArrowOfPreOnClockedStreams) {
  Domain D;
  Rules R{D};
  for (int len = 1; len <= 6; ++len) {
    Stream y0 = fresh_stream(D, "y", len), x = fresh_stream(D, "x", len), k = fresh_stream(D, "k", len);
    Stream f = R.fby(y0, x), a = R.arrow(y0, R.pre(x, k));
    EXPECT_TRUE(valid(D, z3::implies(on_clock(R, y0, k) && on_clock(R, x, k), eq(R, f, a, false)))) << "len=" << len;
    EXPECT_TRUE(valid(D, z3::implies(on_clock(R, y0, k), leq(R, f, a, false)))) << "len=" << len;
    if (len >= 2) {
      std::string cex = counterexample(D, z3::implies(on_clock(R, y0, k), eq(R, f, a, false)),
                                       Shown{{"y0", {y0, false}}, {"x", {x, false}}, {"k", {k, true}},
                                             {"y0 fby x", {f, false}}, {"y0 -> pre x", {a, false}}});
      EXPECT_FALSE(cex.empty()) << "len=" << len;
      if (len == 2) std::cout << "finding (fby ⊏ -> pre with x off its clock):\n" << cex;
    }
  }
}

// Laws: (a -> b) -> c = a -> c and a -> (b -> c) = a -> c on streams on one clock whose
// a and b are ⊥-free; with ⊥ cells the left sides are only below a -> c, since the inner
// `->` is strict in b at later ticks (and in a's earlier ticks through its scan).
TEST(InitLaws, ArrowAbsorbsItsRightInitialisation) {
  Domain D;
  Rules R{D};
  for (int len = 1; len <= 6; ++len) {
    Stream a = fresh_stream(D, "a", len), b = fresh_stream(D, "b", len), c = fresh_stream(D, "c", len),
           k = fresh_stream(D, "k", len);
    Stream l1 = R.arrow(R.arrow(a, b), c), l2 = R.arrow(a, R.arrow(b, c)), r = R.arrow(a, c);
    z3::expr clocked = on_clock(R, a, k) && on_clock(R, b, k) && on_clock(R, c, k);
    EXPECT_TRUE(valid(D, z3::implies(clocked && no_bot(R, a) && no_bot(R, b), eq(R, l1, r, false) && eq(R, l2, r, false))))
        << "len=" << len;
    EXPECT_TRUE(valid(D, z3::implies(clocked, leq(R, l1, r, false) && leq(R, l2, r, false)))) << "len=" << len;
    if (len == 2) {
      Shown shown{{"a", {a, false}}, {"b", {b, false}}, {"c", {c, false}}, {"(a -> b) -> c", {l1, false}}, {"a -> c", {r, false}}};
      std::string cex = counterexample(D, z3::implies(clocked, eq(R, l1, r, false)), shown);
      EXPECT_FALSE(cex.empty());
      std::cout << "finding ((a -> b) -> c ⊏ a -> c with ⊥ in b):\n" << cex;
      // On arbitrary (misaligned) streams neither side is below the other.
      EXPECT_FALSE(valid(D, leq(R, l1, r, false)));
      EXPECT_FALSE(valid(D, leq(R, r, l1, false)));
    }
  }
}

// Laws of `pre` on a constant c^κ, for every clock stream κ:
//   pre c = nil -> c;  c -> pre c = c fby c;  c -> pre c = c if κ is total (tt/ff), and
//   below c if κ has no ‖ (a ⊥ tick of κ makes the later ticks ⊥: the scan stops there).
TEST(InitLaws, PreOfAConstant) {
  Domain D;
  Rules R{D};
  Cell v{D.val(), D.c.constant("c", D.data), D.c.bool_val(false)};
  for (int len = 1; len <= K; ++len) {
    Stream k = fresh_stream(D, "k", len);
    Stream c = constant(R, k, v), nils = R.each(k, [&](int n) { return R.constant(k[n], R.nil(v)); });
    Stream init = R.arrow(c, R.pre(c, k));
    z3::expr total = D.c.bool_val(true), no_err = D.c.bool_val(true);
    for (auto &cell : k) {
      total = total && R.is(cell, kVal);
      no_err = no_err && !R.is(cell, kErr);
    }
    EXPECT_TRUE(valid(D, z3::implies(is_clock(R, k), eq(R, R.pre(c, k), R.arrow(nils, c), false)))) << "len=" << len;
    EXPECT_TRUE(valid(D, z3::implies(is_clock(R, k), eq(R, init, R.fby(c, c), false)))) << "len=" << len;
    EXPECT_TRUE(valid(D, z3::implies(is_clock(R, k) && total, eq(R, init, c, false)))) << "len=" << len;
    EXPECT_TRUE(valid(D, z3::implies(is_clock(R, k) && no_err, leq(R, init, c, false)))) << "len=" << len;
    if (len >= 2) {
      EXPECT_FALSE(valid(D, z3::implies(is_clock(R, k) && no_err, eq(R, init, c, false)))) << "len=" << len;
    }
  }
}

// Law: pre f(x, y) = f(pre x, pre y) for x and y on pre's clock (⊥ allowed): at the first
// tick both sides are nil because operators propagate nil (§4.3 case 4). On misaligned
// streams it fails (the right side checks the alignment of x and y at the previous tick
// only through pre, the left side at every tick).
TEST(InitLaws, PreCommutesWithOperators) {
  Domain D;
  Rules R{D};
  z3::func_decl f = D.c.function("f", D.data, D.data, D.data);
  for (int len = 1; len <= K; ++len) {
    Stream x = fresh_stream(D, "x", len), y = fresh_stream(D, "y", len), k = fresh_stream(D, "k", len);
    Stream fxy = R.each(x, [&](int n) { return R.apply2(f, x[n], y[n]); });
    Stream px = R.pre(x, k), py = R.pre(y, k);
    Stream l = R.pre(fxy, k), r = R.each(x, [&](int n) { return R.apply2(f, px[n], py[n]); });
    EXPECT_TRUE(valid(D, z3::implies(on_clock(R, x, k) && on_clock(R, y, k), eq(R, l, r, false)))) << "len=" << len;
    if (len == 1) {
      EXPECT_FALSE(valid(D, z3::implies(is_clock(R, k), eq(R, l, r, false))));
    }
  }
}

// Non-laws (findings, asserted so): sampling does not commute with initialisation, even
// on ⊥-free well-clocked inputs, because the first tick of `x when c` is a later tick of x.
//   pre (x when c) ≠ (pre x) when c;   (a -> b) when c ≠ (a when c) -> (b when c).
TEST(InitLaws, SamplingDoesNotCommuteWithInitialisation) {
  Domain D;
  Rules R{D};
  const int len = 2;
  Stream x = fresh_stream(D, "x", len), b = fresh_stream(D, "b", len), c = fresh_stream(D, "c", len),
         k = fresh_stream(D, "k", len);
  z3::expr ok = D.c.bool_val(true);  // k total; x, b, c present exactly on k; c a bool
  for (int n = 0; n < len; ++n)
    ok = ok && R.is(k[n], kVal) && z3::ite(k[n].b, R.is(x[n], kVal) && R.is(b[n], kVal) && R.is(c[n], kVal),
                                           R.is(x[n], kAbs) && R.is(b[n], kAbs) && R.is(c[n], kAbs));
  Stream kc = R.each(k, [&](int n) { return R.clock_on(k[n], c[n], true); });
  Stream xw = R.each(x, [&](int n) { return R.when(x[n], c[n], true); });
  Stream bw = R.each(b, [&](int n) { return R.when(b[n], c[n], true); });
  Stream px = R.pre(x, k), ab = R.arrow(x, b);
  Stream l1 = R.pre(xw, kc), r1 = R.each(x, [&](int n) { return R.when(px[n], c[n], true); });
  Stream l2 = R.each(x, [&](int n) { return R.when(ab[n], c[n], true); }), r2 = R.arrow(xw, bw);
  std::string cex1 = counterexample(D, z3::implies(ok, eq(R, l1, r1, false)),
                                    Shown{{"x", {x, false}}, {"c", {c, true}}, {"pre (x when c)", {l1, false}}, {"(pre x) when c", {r1, false}}});
  std::string cex2 = counterexample(D, z3::implies(ok, eq(R, l2, r2, false)),
                                    Shown{{"a", {x, false}}, {"b", {b, false}}, {"c", {c, true}},
                                          {"(a -> b) when c", {l2, false}}, {"(a when c) -> (b when c)", {r2, false}}});
  EXPECT_FALSE(cex1.empty());
  EXPECT_FALSE(cex2.empty());
  std::cout << "non-law:\n" << cex1 << "non-law:\n" << cex2;
}

// Negative controls: a `pre` that forgets its state falsifies pre = nil fby; the first,
// non-monotone `->` (a_k = ‖ fell through to b_n; semantics.md §8) fails monotonicity.
TEST(InitLaws, BrokenRulesAreCaught) {
  Domain D;
  Rules R{D};
  R.broken_pre = true;
  bool pre_caught = false;
  for (int len = 2; len <= 3; ++len) pre_caught |= !valid(D, pre_is_nil_fby(D, R, len));
  EXPECT_TRUE(pre_caught);
  bool arrow_caught = false;
  for (int len = 2; len <= 3; ++len) arrow_caught |= !valid(D, fby_is_arrow_pre(D, R, len));
  EXPECT_TRUE(arrow_caught);  // the broken pre also breaks fby = -> pre
  R.broken_pre = false;
  R.old_arrow = true;
  Stream a = fresh_stream(D, "a", 2), b = fresh_stream(D, "b", 2), a2 = fresh_stream(D, "A", 2), b2 = fresh_stream(D, "B", 2);
  z3::expr below = leq(R, a, a2, false) && leq(R, b, b2, false);
  std::string cex = counterexample(D, z3::implies(below, leq(R, R.arrow_at(a, b, 1), R.arrow_at(a2, b2, 1), false)),
                                   Shown{{"a", {a, false}}, {"b", {b, false}}, {"a'", {a2, false}}, {"b'", {b2, false}}});
  EXPECT_FALSE(cex.empty());
  std::cout << "the old -> is not monotone:\n" << cex;
}

// ------------------------------------------------------------- the exactness lemma (§6.2)
// The two facts semantics.md §6.2 uses to show that the oracle's arrays of length N
// compute the restriction of lfp Φ_{I⊥}: (1) every rule is strict in one operand at the
// same index (the table of §6.2); (2) only `post` reads indices above n, and where its
// scan leaves a prefix it meets ⊥.
namespace {

// Both payloads equal too (a cell of a bool stream and of a data stream alike).
z3::expr same_cell(Rules &R, const Cell &a, const Cell &b) { return eq(R, a, b, false) && eq(R, a, b, true); }

// "out is ⊥ wherever every cell of `operands` is ⊥", for all values of every other free
// cell: the other operands, the other indices, all five kinds of cells, any payload.
z3::expr strict_claim(Rules &R, const std::vector<Cell> &operands, const Cell &out) {
  z3::expr all_bot = R.c().bool_val(true);
  for (auto &o : operands) all_bot = all_bot && R.is(o, kBot);
  return z3::implies(all_bot, R.is(out, kBot));
}
bool strict(Domain &D, Rules &R, const std::vector<Cell> &operands, const Cell &out) {
  return valid(D, strict_claim(R, operands, out));
}

// The first len cells of s.
Stream take(const Stream &s, int len) { return Stream(s.begin(), s.begin() + len); }
// s at indices ≤ n, t's cells above n.
Stream splice(const Stream &s, const Stream &t, int n) {
  Stream r = take(s, n + 1);
  r.insert(r.end(), t.begin() + n + 1, t.end());
  return r;
}

// The rows of the table at index n of prefixes of length len: each rule is strict in its
// listed operand. Returns the names of the rows that fail (empty: all proved).
std::vector<std::string> strictness_failures(Domain &D, Rules &R, int len, int n) {
  z3::func_decl f = D.c.function("f", D.data, D.data, D.data);
  z3::func_decl lt = D.c.function("lt", D.data, D.data, D.c.bool_sort());
  z3::func_decl g = D.c.function("g", D.data, D.data, D.data, D.data);
  // Every operand is a free stream; clock operands are free too (any cell, not only the
  // clock cells tt ff ⊥ ‖), so each row holds a fortiori on clocks.
  Stream x = fresh_stream(D, "x", len), y = fresh_stream(D, "y", len), z = fresh_stream(D, "z", len),
         c = fresh_stream(D, "c", len), k = fresh_stream(D, "k", len);
  Cell v{D.val(), D.c.constant("v", D.data), D.c.bool_const("vb")};  // a constant's value
  std::vector<std::pair<std::string, z3::expr>> rows;
  auto row = [&](const std::string &name, const std::vector<Cell> &operands, const Cell &out) {
    rows.emplace_back(name, strict_claim(R, operands, out));
  };
  // base: jointly in its inputs (k = 1, 2, 3). Without inputs it is tt^N ⊥^ω by definition.
  row("base (1 input)", {x[n]}, R.clock_base({x[n]}, x[n]));
  row("base (2 inputs)", {x[n], y[n]}, R.clock_base({x[n], y[n]}, x[n]));
  row("base (3 inputs)", {x[n], y[n], z[n]}, R.clock_base({x[n], y[n], z[n]}, x[n]));
  row("never", {k[n]}, R.clock_never(k[n]));
  row("on", {k[n]}, R.clock_on(k[n], c[n], true));
  row("on not", {k[n]}, R.clock_on(k[n], c[n], false));
  // A constant and a zero-argument apply (the oracle's rule_apply calls rule_const).
  row("constant", {k[n]}, R.constant(k[n], v));
  row("constant nil", {k[n]}, R.constant(k[n], R.nil(v)));
  row("copy", {x[n]}, R.copy(x[n]));
  // op, k >= 1: in any argument.
  row("op/1 not", {c[n]}, R.not_(c[n]));
  row("op/2 f arg 1", {x[n]}, R.apply2(f, x[n], y[n]));
  row("op/2 f arg 2", {y[n]}, R.apply2(f, x[n], y[n]));
  row("op/2 < arg 1", {x[n]}, R.rel2(lt, x[n], y[n]));
  row("op/2 < arg 2", {y[n]}, R.rel2(lt, x[n], y[n]));
  row("op/2 and arg 1", {c[n]}, R.and_(c[n], y[n]));
  row("op/2 and arg 2", {y[n]}, R.and_(c[n], y[n]));
  Cell g3{D.val(), g(x[n].d, y[n].d, z[n].d), x[n].b};
  std::vector<Cell> args3{x[n], y[n], z[n]};
  for (size_t a = 0; a < args3.size(); ++a) row("op/3 g arg " + std::to_string(a + 1), {args3[a]}, R.apply(args3, g3));
  row("op/3 if arg c", {c[n]}, R.select(c[n], x[n], y[n]));
  row("op/3 if arg then", {x[n]}, R.select(c[n], x[n], y[n]));
  row("op/3 if arg else", {y[n]}, R.select(c[n], x[n], y[n]));
  row("when", {c[n]}, R.when(x[n], c[n], true));
  row("when not", {c[n]}, R.when(x[n], c[n], false));
  row("merge", {c[n]}, R.merge(c[n], x[n], y[n]));
  row("fby", {x[n]}, R.fby_at(x, y, n));
  row("->", {x[n]}, R.arrow_at(x, y, n));
  row("pre", {k[n]}, R.pre_at(x, k, n));
  row("post", {k[n]}, R.post_at(x, k, n));
  row("--post-clock-data", {x[n]}, R.post_data_at(x, n));
  // One query for all rows; only if it fails, one per row to name the failing ones.
  z3::expr all = D.c.bool_val(true);
  for (auto &r : rows) all = all && r.second;
  std::vector<std::string> bad;
  if (valid(D, all)) return bad;
  for (auto &r : rows)
    if (!valid(D, r.second)) bad.push_back(r.first);
  return bad;
}

}  // namespace

// Fact 1 (semantics.md §6.2, the table): at every index n of every prefix of length 1..K,
// for all other inputs, the listed operand ⊥ at n makes the output ⊥ at n.
TEST(ExactnessLemma, EveryRuleIsStrictInItsListedOperand) {
  Domain D;
  Rules R{D};
  for (int len = 1; len <= K; ++len)
    for (int n = 0; n < len; ++n) {
      auto bad = strictness_failures(D, R, len, n);
      std::string names;
      for (auto &b : bad) names += " " + b;
      EXPECT_TRUE(bad.empty()) << "len=" << len << " n=" << n << ", not strict:" << names;
    }
  // The listed operand is the one the table can give: base is strict in its inputs only
  // jointly (a present input makes it tt), when/merge are not strict in their data, fby
  // and -> not in their second operand, pre/post not in x (their presence is κ's).
  Stream x = fresh_stream(D, "x", 2), y = fresh_stream(D, "y", 2), c = fresh_stream(D, "c", 2), k = fresh_stream(D, "k", 2);
  EXPECT_FALSE(strict(D, R, {x[0]}, R.clock_base({x[0], y[0]}, x[0])));
  EXPECT_FALSE(strict(D, R, {x[0]}, R.when(x[0], c[0], true)));
  EXPECT_FALSE(strict(D, R, {x[0]}, R.merge(c[0], x[0], y[0])));
  EXPECT_FALSE(strict(D, R, {y[1]}, R.fby_at(x, y, 1)));
  EXPECT_FALSE(strict(D, R, {y[0]}, R.arrow_at(x, y, 0)));
  EXPECT_FALSE(strict(D, R, {x[0]}, R.pre_at(x, k, 0)));
  EXPECT_FALSE(strict(D, R, {x[0]}, R.post_at(x, k, 0)));
}

// Fact 2 (causality): for every rule but post, the output at n is a function of the
// inputs at indices 0..n. For streams s, s' of length len (every operand, clocks included)
// that agree at 0..n, f(s)_n = f(s')_n; and f computed on the prefix s|n+1 of length n+1
// gives the same cell at n as f on s. Together: a rule run on an array of length N
// computes the restriction of the rule on any longer stream, whatever its later cells.
// (The index-wise rules, base never on constant copy op when merge, take only the cells
// at n in their encoding and in the oracle: the claim is immediate; it is proved for the
// rules that scan, fby, -> and pre.) post and --post-clock-data read later indices: the
// same claim has counterexamples (the check is not vacuous).
TEST(ExactnessLemma, OnlyPostReadsLaterIndices) {
  Domain D;
  Rules R{D};
  for (int len = 1; len <= K; ++len) {
    Stream x = fresh_stream(D, "x", len), y = fresh_stream(D, "y", len), k = fresh_stream(D, "k", len);
    Stream x2 = fresh_stream(D, "X", len), y2 = fresh_stream(D, "Y", len), k2 = fresh_stream(D, "K", len);
    for (int n = 0; n < len; ++n) {
      Stream xs = splice(x, x2, n), ys = splice(y, y2, n), ks = splice(k, k2, n);  // = s at 0..n
      Stream xt = take(x, n + 1), yt = take(y, n + 1), kt = take(k, n + 1);          // s|n+1
      auto causal = [&](const std::function<Cell(const Stream &, const Stream &, const Stream &)> &rule) {
        Cell at = rule(x, y, k);
        return same_cell(R, at, rule(xs, ys, ks)) && same_cell(R, at, rule(xt, yt, kt));
      };
      z3::expr fby = causal([&](const Stream &a, const Stream &b, const Stream &) { return R.fby_at(a, b, n); });
      z3::expr arrow = causal([&](const Stream &a, const Stream &b, const Stream &) { return R.arrow_at(a, b, n); });
      z3::expr pre = causal([&](const Stream &a, const Stream &, const Stream &kk) { return R.pre_at(a, kk, n); });
      if (!valid(D, fby && arrow && pre)) {  // one query; then name the failing rule
        EXPECT_TRUE(valid(D, fby)) << "fby len=" << len << " n=" << n;
        EXPECT_TRUE(valid(D, arrow)) << "-> len=" << len << " n=" << n;
        EXPECT_TRUE(valid(D, pre)) << "pre len=" << len << " n=" << n;
      }
      if (n + 1 < len) {
        EXPECT_FALSE(valid(D, causal([&](const Stream &a, const Stream &, const Stream &kk) { return R.post_at(a, kk, n); })))
            << "post len=" << len << " n=" << n;
        EXPECT_FALSE(valid(D, causal([&](const Stream &a, const Stream &, const Stream &) { return R.post_data_at(a, n); })))
            << "post data len=" << len << " n=" << n;
      }
    }
  }
}

// Fact 2, post's part: where post's scan leaves a prefix of length L, it meets ⊥ in the
// lfp too, since the clock κ (or, with --post-clock-data, x) is ⊥ at L. For every
// L < len ≤ K and n < L: if κ_L = ⊥ (resp. x_L = ⊥), post on the prefix s|L equals post
// on s at n, whatever the cells after L. And at the last tick within a prefix
// (κ_n = tt, κ_m = ff for n < m < L), post is ⊥, or ‖ if x_n is □ or ‖.
TEST(ExactnessLemma, PostMeetsBotWhereItLeavesThePrefix) {
  Domain D;
  Rules R{D};
  for (int len = 2; len <= K; ++len) {
    Stream x = fresh_stream(D, "x", len), k = fresh_stream(D, "k", len);
    for (int L = 1; L < len; ++L) {
      Stream xl = take(x, L), kl = take(k, L);
      z3::expr post = D.c.bool_val(true), post_data = D.c.bool_val(true);
      for (int n = 0; n < L; ++n) {
        post = post && z3::implies(R.is(k[L], kBot), same_cell(R, R.post_at(xl, kl, n), R.post_at(x, k, n)));
        post_data = post_data && z3::implies(R.is(x[L], kBot), same_cell(R, R.post_data_at(xl, n), R.post_data_at(x, n)));
      }
      EXPECT_TRUE(valid(D, post)) << "post L=" << L << " len=" << len;
      EXPECT_TRUE(valid(D, post_data)) << "post data L=" << L << " len=" << len;
    }
  }
  for (int len = 1; len <= K; ++len) {
    Stream x = fresh_stream(D, "x", len), k = fresh_stream(D, "k", len);
    z3::expr all = D.c.bool_val(true);
    for (int n = 0; n < len; ++n) {
      z3::expr last = R.tt(k[n]);
      for (int m = n + 1; m < len; ++m) last = last && R.ff(k[m]);
      Cell p = R.post_at(x, k, n);
      z3::expr want = z3::ite(R.is(x[n], kAbs) || R.is(x[n], kErr), R.is(p, kErr), R.is(p, kBot));
      all = all && z3::implies(last, want);
    }
    EXPECT_TRUE(valid(D, all)) << "len=" << len;
  }
}

// Negative controls: rules that are not strict in their listed operand are refuted by the
// same check. An fby that, where i_n = ⊥, outputs its state (as if i_n were present), and
// an `and` that short-circuits (ff where a is ff, without reading b).
TEST(ExactnessLemma, NonStrictRulesAreCaught) {
  Domain D;
  Rules R{D};
  R.lax_fby = true;
  R.short_circuit_and = true;
  bool fby_caught = false, and_caught = false, others_hold = true;
  for (int n = 0; n < 2; ++n)
    for (auto &b : strictness_failures(D, R, 2, n)) {
      fby_caught |= b == "fby";
      and_caught |= b == "op/2 and arg 2";
      others_hold &= b == "fby" || b == "op/2 and arg 2";
    }
  EXPECT_TRUE(fby_caught);
  EXPECT_TRUE(and_caught);
  EXPECT_TRUE(others_hold);  // nothing else is reported
  Stream i = fresh_stream(D, "i", 2), e = fresh_stream(D, "e", 2);
  // (with i_0 and e_0 present, for a readable counterexample)
  std::string cex = counterexample(D, z3::implies(R.present(i[0]) && R.present(e[0]), strict_claim(R, {i[1]}, R.fby_at(i, e, 1))),
                                   Shown{{"i", {i, false}}, {"e", {e, false}}, {"lax i fby e", {R.fby(i, e), false}}});
  EXPECT_FALSE(cex.empty());
  std::cout << "a non-strict fby is refuted:\n" << cex;
  R.lax_fby = false;
  EXPECT_TRUE(strict(D, R, {i[1]}, R.fby_at(i, e, 1)));  // the real one is strict
}

// ---------------------------------------------------------------- agreement with the oracle
namespace {

const bool kRcParams = [] {
  const char *cur = std::getenv("RC_PARAMS");
  std::string v = cur ? cur : "";
  if (v.find("max_success") == std::string::npos) setenv("RC_PARAMS", (v.empty() ? "" : v + " ").append("max_success=1000").c_str(), 1);
  return true;
}();

// A random input cell: ⊥, □, ‖, nil or a small value (an int, or a bool for conditions).
rml::oracle::Cell random_cell(bool boolean) {
  int k = *rc::gen::inRange(0, 7);
  if (k == 0) return rml::oracle::Cell::bot();
  if (k == 1) return rml::oracle::Cell::absent();
  if (k == 2) return rml::oracle::Cell::error();
  if (k == 3) return rml::oracle::Cell{rml::oracle::Tag::Nil, {}};
  if (boolean) return rml::oracle::Cell::of(rml::array::Tensor::boolean(*rc::gen::arbitrary<bool>()));
  return rml::oracle::Cell::of(rml::array::Tensor::integer(*rc::gen::inRange(-3, 4)));
}

int tag_ix(const rml::oracle::Cell &c) {
  switch (c.tag) {
    case rml::oracle::Tag::Bot: return kBot;
    case rml::oracle::Tag::Abs: return kAbs;
    case rml::oracle::Tag::Err: return kErr;
    case rml::oracle::Tag::Val: return kVal;
    case rml::oracle::Tag::Nil: return kNil;
  }
  return kBot;
}

Cell concrete(Domain &D, const rml::oracle::Cell &c) {
  int64_t v = c.tag == rml::oracle::Tag::Val ? c.value.i[0] : 0;
  return Cell{D.tag(tag_ix(c)), D.c.int_val(v), D.c.bool_val(v != 0)};
}

// The Z3 rule's cell, evaluated, equals the oracle's cell.
bool same(Domain &D, const Cell &w, const rml::oracle::Cell &o, bool boolean) {
  int tag = tag_ix(o);
  if (!(w.t == D.tag(tag)).simplify().is_true()) return false;
  if (tag != kVal) return true;
  if (boolean) return w.b.simplify().is_true() == (o.value.i[0] != 0);
  int64_t v = 0;
  return w.d.simplify().is_numeral_i64(v) && v == o.value.i[0];
}

struct Fixture {
  std::unique_ptr<rml::FrontendResult> fe;
  rml::core::Program prog;
  std::unique_ptr<rml::oracle::Oracle> oracle;
  Fixture(const std::string &text, const std::string &main, rml::oracle::Options opts = {}) {
    fe = rml::run_frontend("law.rml", text);
    prog = rml::core::elaborate(fe->checked, main);
    oracle = std::make_unique<rml::oracle::Oracle>(fe->checked, prog, opts);
  }
};

}  // namespace

// Each encoded rule computes, on random concrete inputs (all five kinds of cells), exactly
// what the oracle computes for the one-primitive program.
RC_GTEST_PROP(Agreement, EncodedRulesEqualTheOracle, ()) {
  static Fixture fw("node w(x: int, c: bool) -> (y: int) y = x when c;\n", "w");
  static Fixture fwn("node w(x: int, c: bool) -> (y: int) y = x whenot c;\n", "w");
  static Fixture fm("node m(c: bool, a: int, b: int) -> (y: int) y = merge c a b;\n", "m");
  static Fixture fo("node o(a: int, b: int) -> (y: int) y = a + b;\n", "o");
  static Fixture fi("node i(c: bool, a: int, b: int) -> (y: int) y = if c then a else b;\n", "i");
  static Fixture ff("node f(i: int, e: int) -> (y: int) y = i fby e;\n", "f");
  static Fixture fa("node a(a: int, b: int) -> (y: int) y = a -> b;\n", "a");
  static Fixture fp("node p(x: int) -> (y: int) y = post x;\n", "p");
  static Fixture fr("node r(x: int) -> (y: int) y = pre x;\n", "r");
  static Fixture fk("node k(x: int) -> (y: int) y = 7;\n", "k");
  // Clock terms, seen through constants on them (clock columns are not in the Result): y
  // and z on `base on c` and `base on not c`, base from three inputs; k on `never` (the
  // literal simplification of `base on f` with f = false), f on base from one input, and
  // a copy.
  static Fixture fon("node o(x: int, c: bool, w: int) -> (y: int when c, z: int when not c) y = 7; z = 8;\n", "o");
  static Fixture fnv("node v(x: int) -> (y: int) var f: bool; k: int when f; let f = false; k = 7; y = x; tel\n", "v");
  static Fixture fand("node n(a: bool, b: bool) -> (y: bool) y = a and b;\n", "n");
  static Fixture fpd("node p(x: int) -> (y: int) y = post x;\n", "p", [] {
    rml::oracle::Options o;
    o.post_clock_data = true;
    return o;
  }());
  int len = *rc::gen::inRange(1, 7);
  Domain D(true);
  Rules R{D};
  auto inputs = [&](std::vector<std::pair<std::string, bool>> names) {
    rml::oracle::Inputs in;
    in.cycles = static_cast<size_t>(len);
    for (auto &[n, b] : names)
      for (int k = 0; k < len; ++k) in.streams[n].push_back(random_cell(b));
    return in;
  };
  auto z3s = [&](const rml::oracle::Inputs &in, const std::string &n) {
    Stream s;
    for (auto &c : in.streams.at(n)) s.push_back(concrete(D, c));
    return s;
  };
  // The main node's base clock with one input x (rule_clock_base, semantics.md §2.4): tt
  // where x is present (a value or nil), ff where □, ‖ where ‖, ⊥ where ⊥.
  auto base_of = [&](const rml::oracle::Inputs &in, const std::string &n) {
    Stream k;
    for (auto &c : in.streams.at(n)) {
      int t = tag_ix(c);
      bool ticks = t == kVal || t == kNil;
      k.push_back(Cell{D.tag(ticks || t == kAbs ? kVal : t), D.c.int_val(0), D.c.bool_val(ticks)});
    }
    return k;
  };
  auto run = [](Fixture &fx, const rml::oracle::Inputs &in) { return fx.oracle->run(in); };
  {  // when, when not
    auto in = inputs({{"x", false}, {"c", true}});
    auto res = run(fw, in), resn = run(fwn, in);
    Stream x = z3s(in, "x"), c = z3s(in, "c");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.when(x[n], c[n], true), res.at("y", n), false));
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.when(x[n], c[n], false), resn.at("y", n), false));
  }
  {  // merge (the branches' declared clocks do not matter to the rule)
    auto in = inputs({{"c", true}, {"a", false}, {"b", false}});
    auto res = run(fm, in);
    Stream c = z3s(in, "c"), a = z3s(in, "a"), b = z3s(in, "b");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.merge(c[n], a[n], b[n]), res.at("y", n), false));
  }
  {  // a binary operator (nil propagates)
    auto in = inputs({{"a", false}, {"b", false}});
    auto res = run(fo, in);
    Stream a = z3s(in, "a"), b = z3s(in, "b");
    for (int n = 0; n < len; ++n)
      RC_ASSERT(same(D, R.apply({a[n], b[n]}, Cell{D.val(), a[n].d + b[n].d, a[n].b}), res.at("y", n), false));
  }
  {  // eager if (nil propagates, even from the discarded branch)
    auto in = inputs({{"c", true}, {"a", false}, {"b", false}});
    auto res = run(fi, in);
    Stream c = z3s(in, "c"), a = z3s(in, "a"), b = z3s(in, "b");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.select(c[n], a[n], b[n]), res.at("y", n), false));
  }
  {  // fby
    auto in = inputs({{"i", false}, {"e", false}});
    auto res = run(ff, in);
    Stream i = z3s(in, "i"), e = z3s(in, "e");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.fby_at(i, e, n), res.at("y", n), false));
  }
  {  // ->
    auto in = inputs({{"a", false}, {"b", false}});
    auto res = run(fa, in);
    Stream a = z3s(in, "a"), b = z3s(in, "b");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.arrow_at(a, b, n), res.at("y", n), false));
  }
  {  // post, pre and a constant, on the main node's base clock
    auto in = inputs({{"x", false}});
    auto rp = run(fp, in), rr = run(fr, in), rk = run(fk, in);
    Stream x = z3s(in, "x"), k = base_of(in, "x");
    Cell seven{D.val(), D.c.int_val(7), D.c.bool_val(true)};
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.post_at(x, k, n), rp.at("y", n), false));
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.pre_at(x, k, n), rr.at("y", n), false));
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.constant(k[n], seven), rk.at("y", n), false));
  }
  {  // base of three inputs, on, on not (through constants on the clocks)
    auto in = inputs({{"x", false}, {"c", true}, {"w", false}});
    auto res = run(fon, in);
    Stream x = z3s(in, "x"), c = z3s(in, "c"), w = z3s(in, "w");
    Cell seven{D.val(), D.c.int_val(7), D.c.bool_val(true)}, eight{D.val(), D.c.int_val(8), D.c.bool_val(true)};
    for (int n = 0; n < len; ++n) {
      Cell base = R.clock_base({x[n], c[n], w[n]}, x[n]);
      RC_ASSERT(same(D, R.constant(R.clock_on(base, c[n], true), seven), res.at("y", n), false));
      RC_ASSERT(same(D, R.constant(R.clock_on(base, c[n], false), eight), res.at("z", n), false));
    }
  }
  {  // never, base of one input, copy
    auto in = inputs({{"x", false}});
    auto res = run(fnv, in);
    Stream x = z3s(in, "x");
    Cell seven{D.val(), D.c.int_val(7), D.c.bool_val(true)}, no{D.val(), D.c.int_val(0), D.c.bool_val(false)};
    for (int n = 0; n < len; ++n) {
      Cell base = R.clock_base({x[n]}, x[n]);
      RC_ASSERT(same(D, R.constant(base, no), res.at("f", n), true));
      RC_ASSERT(same(D, R.constant(R.clock_never(base), seven), res.at("k", n), false));
      RC_ASSERT(same(D, R.copy(x[n]), res.at("y", n), false));
    }
  }
  {  // and (a boolean operator)
    auto in = inputs({{"a", true}, {"b", true}});
    auto res = run(fand, in);
    Stream a = z3s(in, "a"), b = z3s(in, "b");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.and_(a[n], b[n]), res.at("y", n), true));
  }
  {  // post under --post-clock-data
    auto in = inputs({{"x", false}});
    auto res = run(fpd, in);
    Stream x = z3s(in, "x");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.post_data_at(x, n), res.at("y", n), false));
  }
}
