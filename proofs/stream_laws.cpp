// Laws of the stream semantics, proved by Z3 over symbolic prefixes of every length up to
// K (issue 6, part 1). A cell is a tag {⊥, □, ‖, value} (a Z3 enumeration) and a payload:
// uninterpreted data for data streams, a bool for conditions. The rules below transcribe
// semantics.md §4 (and oracle.cpp's rule_* functions) case by case; the Agreement tests
// evaluate them on random concrete inputs and compare with the oracle, so the semantics
// proved here is the one the oracle implements.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>
#include <z3++.h>

#include <cstdlib>
#include <functional>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"

namespace {

constexpr int K = 8;  // prefix lengths 1..K

struct Domain {
  z3::context c;
  z3::func_decl_vector tags{c}, testers{c};
  z3::sort tag_sort;
  z3::sort data;  // the payload of data streams
  explicit Domain(bool int_data = false)
      : tag_sort([&] {
          const char *names[] = {"bot", "abs", "err", "val"};
          return c.enumeration_sort("Tag", 4, names, tags, testers);
        }()),
        data(int_data ? c.int_sort() : c.uninterpreted_sort("D")) {}
  z3::expr tag(int k) { return tags[static_cast<unsigned>(k)](); }
  z3::expr bot() { return tag(0); }
  z3::expr abs() { return tag(1); }
  z3::expr err() { return tag(2); }
  z3::expr val() { return tag(3); }
};

// A cell: its tag and payload (d for data streams, b for bools).
struct Cell {
  z3::expr t, d, b;
};
using Stream = std::vector<Cell>;

struct Rules {
  Domain &D;
  bool broken_fby = false;  // for the negative control: fby forgets the state
  z3::context &c() { return D.c; }
  Cell make(const z3::expr &t, const z3::expr &d, const z3::expr &b) { return Cell{t, d, b}; }
  Cell of_tag(const z3::expr &t, const Cell &payload) { return Cell{t, payload.d, payload.b}; }
  Cell ite(const z3::expr &cond, const Cell &a, const Cell &b) {
    return Cell{z3::ite(cond, a.t, b.t), z3::ite(cond, a.d, b.d), z3::ite(cond, a.b, b.b)};
  }
  Cell fresh_payload(const Cell &like, const z3::expr &t) { return Cell{t, like.d, like.b}; }
  z3::expr is(const Cell &x, int k) { return x.t == D.tag(k); }
  z3::expr present(const Cell &x) { return is(x, 3); }

  // §4.4 when^b (non-strict in the discarded data).
  Cell when(const Cell &x, const Cell &cnd, bool positive) {
    const Cell &X = x;
    z3::expr selected = positive ? cnd.b : !cnd.b;
    Cell bot = of_tag(D.bot(), X), abs = of_tag(D.abs(), X), err = of_tag(D.err(), X);
    return ite(is(cnd, 0), bot,
           ite(is(cnd, 2), err,
           ite(is(cnd, 1), ite(is(X, 0) || is(X, 1), abs, err),
           ite(selected, ite(present(X), X, ite(is(X, 0), bot, err)),
               ite(present(X) || is(X, 0), abs, err)))));
  }
  // §4.5 merge (non-strict in the discarded branch, which must still be absent).
  Cell merge(const Cell &cnd, const Cell &a, const Cell &b) {
    Cell bot = of_tag(D.bot(), a), abs = of_tag(D.abs(), a), err = of_tag(D.err(), a);
    auto absentish = [&](const Cell &x) { return is(x, 0) || is(x, 1); };
    auto pick = [&](const Cell &sel, const Cell &oth) {
      return ite(!absentish(oth), err, ite(present(sel), sel, ite(is(sel, 0), bot, err)));
    };
    return ite(is(cnd, 0), bot,
           ite(is(cnd, 2), err,
           ite(is(cnd, 1), ite(absentish(a) && absentish(b), abs, err),
           ite(cnd.b, pick(a, b), pick(b, a)))));
  }
  // §4.3 a binary operator f (uninterpreted): ⊥ first, then all-□, then all present.
  Cell apply2(const z3::func_decl &f, const Cell &a, const Cell &b) {
    Cell v{D.val(), f(a.d, b.d), a.b};
    Cell bot = of_tag(D.bot(), a), abs = of_tag(D.abs(), a), err = of_tag(D.err(), a);
    return ite(is(a, 0) || is(b, 0), bot, ite(is(a, 1) && is(b, 1), abs, ite(present(a) && present(b), v, err)));
  }
  // §4.6 i fby e, index-wise: y_n from i_n, e_n and the previous non-absent tick k of i.
  Cell fby_at(const Stream &i, const Stream &e, int n) {
    const Cell &in = i[n], &en = e[n];
    Cell bot = of_tag(D.bot(), in), abs = of_tag(D.abs(), in), err = of_tag(D.err(), in);
    // The state: scan back to the previous non-absent i.
    Cell state = in;  // no previous tick: i_n
    for (int k = 0; k < n; ++k) {  // the last k < n with i_k ≠ □ wins
      Cell at_k = ite(is(i[k], 0), bot, ite(is(i[k], 2), err,
                  ite(present(e[k]), broken_fby ? e[n] : e[k], ite(is(e[k], 0), bot, err))));
      state = ite(is(i[k], 1), state, at_k);
    }
    return ite(is(in, 0), bot,
           ite(is(in, 1), ite(is(en, 1) || is(en, 0), abs, err),
           ite(is(in, 2), err,
           ite(is(en, 1) || is(en, 2), err, state))));
  }
  // §4.7 post^κ x: x at the next tick of κ; ⊥ beyond the prefix.
  Cell post_at(const Stream &x, const Stream &kappa, int n) {
    const Cell &xn = x[n], &kn = kappa[n];
    Cell bot = of_tag(D.bot(), xn), abs = of_tag(D.abs(), xn), err = of_tag(D.err(), xn);
    Cell look = bot;  // beyond the prefix
    for (int m = static_cast<int>(x.size()) - 1; m > n; --m) {
      const Cell &km = kappa[m], &xm = x[m];
      Cell here = ite(present(xm), xm, ite(is(xm, 0), bot, err));
      look = ite(is(km, 0), bot, ite(is(km, 2), err, ite(km.b, here, look)));
    }
    return ite(is(kn, 0), bot,
           ite(is(kn, 2), err,
           ite(!kn.b, ite(is(xn, 1) || is(xn, 0), abs, err),
           ite(is(xn, 1) || is(xn, 2), err, look))));
  }
};

Stream fresh_stream(Domain &D, const std::string &name, int len) {
  Stream s;
  for (int n = 0; n < len; ++n)
    s.push_back(Cell{D.c.constant((name + "_t" + std::to_string(n)).c_str(), D.tag_sort),
                     D.c.constant((name + "_d" + std::to_string(n)).c_str(), D.data),
                     D.c.bool_const((name + "_b" + std::to_string(n)).c_str())});
  return s;
}

// x ⊑ y in the flat order: x = ⊥, y = ‖, or equal cells.
z3::expr leq(Rules &R, const Cell &x, const Cell &y, bool boolean) {
  z3::expr same = x.t == y.t && z3::implies(R.present(x), boolean ? x.b == y.b : x.d == y.d);
  return R.is(x, 0) || R.is(y, 2) || same;
}
z3::expr eq(Rules &R, const Cell &x, const Cell &y, bool boolean) {
  return x.t == y.t && z3::implies(R.present(x), boolean ? x.b == y.b : x.d == y.d);
}

// Valid iff the negation is unsat.
bool valid(Domain &D, const z3::expr &claim) {
  z3::solver s(D.c);
  s.add(!claim);
  return s.check() == z3::unsat;
}

}  // namespace

// Monotonicity of every primitive: s ⊑ s' cell-wise implies f(s) ⊑ f(s'), at every index
// of every prefix length up to K (the Kleene iteration and the worklist rely on it).
TEST(StreamLaws, EveryPrimitiveIsMonotone) {
  Domain D;
  Rules R{D};
  z3::func_decl f = D.c.function("f", D.data, D.data, D.data);
  for (int len = 1; len <= K; ++len) {
    Stream x = fresh_stream(D, "x", len), y = fresh_stream(D, "y", len), c = fresh_stream(D, "c", len);
    Stream x2 = fresh_stream(D, "X", len), y2 = fresh_stream(D, "Y", len), c2 = fresh_stream(D, "C", len);
    z3::expr below = D.c.bool_val(true);
    for (int n = 0; n < len; ++n)
      below = below && leq(R, x[n], x2[n], false) && leq(R, y[n], y2[n], false) && leq(R, c[n], c2[n], true);
    for (int n = 0; n < len; ++n) {
      EXPECT_TRUE(valid(D, z3::implies(below, leq(R, R.when(x[n], c[n], true), R.when(x2[n], c2[n], true), false)))) << "when, n=" << n;
      EXPECT_TRUE(valid(D, z3::implies(below, leq(R, R.when(x[n], c[n], false), R.when(x2[n], c2[n], false), false)))) << "when not";
      EXPECT_TRUE(valid(D, z3::implies(below, leq(R, R.merge(c[n], x[n], y[n]), R.merge(c2[n], x2[n], y2[n]), false)))) << "merge";
      EXPECT_TRUE(valid(D, z3::implies(below, leq(R, R.apply2(f, x[n], y[n]), R.apply2(f, x2[n], y2[n]), false)))) << "op";
      EXPECT_TRUE(valid(D, z3::implies(below, leq(R, R.fby_at(x, y, n), R.fby_at(x2, y2, n), false)))) << "fby, len=" << len << " n=" << n;
      // A clock stream holds tt, ff, ⊥ or ‖, never □ (semantics.md §1).
      z3::expr clocks = D.c.bool_val(true);
      for (int m = 0; m < len; ++m) clocks = clocks && !R.is(c[m], 1) && !R.is(c2[m], 1);
      EXPECT_TRUE(valid(D, z3::implies(below && clocks, leq(R, R.post_at(x, c, n), R.post_at(x2, c2, n), false)))) << "post, n=" << n;
    }
  }
}

namespace {
// Inputs of the laws: values or □ (no ⊥, no ‖), present together, with the clock κ of
// the present cells.
z3::expr aligned(Rules &R, const Stream &a, const Stream &b, const Stream &kappa) {
  z3::expr ok = R.c().bool_val(true);
  for (size_t n = 0; n < a.size(); ++n) {
    ok = ok && (R.present(a[n]) || R.is(a[n], 1)) && (R.is(a[n], 1) == R.is(b[n], 1)) &&
         (R.present(b[n]) || R.is(b[n], 1)) && R.present(kappa[n]) && (kappa[n].b == R.present(a[n]));
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
  z3::expr want = z3::ite(R.present(x[n]), z3::ite(later, eq(R, w, x[n], false), R.is(w, 0)), R.is(w, 1));
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
      z3::expr want = z3::ite(R.present(x[n]), z3::ite(earlier, eq(R, w, x[n], false), eq(R, w, y[n], false)), R.is(w, 1));
      EXPECT_TRUE(valid(D, z3::implies(aligned(R, x, y, k), want))) << "len=" << len << " n=" << n;
    }
  }
}

// merge c (x when c) (x when not c) = x, for c and x present at the same cycles.
TEST(StreamLaws, MergeOfWhensReconstructs) {
  Domain D;
  Rules R{D};
  Stream x = fresh_stream(D, "x", 1), c = fresh_stream(D, "c", 1);
  z3::expr ok = (R.present(x[0]) || R.is(x[0], 1)) && (R.present(c[0]) == R.present(x[0])) && (R.present(c[0]) || R.is(c[0], 1));
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
    z3::expr c1 = R.is(in, 0);                                      // F1 / P1
    z3::expr c2 = R.is(in, 1) && (R.is(en, 1) || R.is(en, 0));      // F2 / P2
    z3::expr c3 = R.present(in) && (R.present(en) || R.is(en, 0));  // F3 / P3
    z3::expr c4 = R.is(in, 1) && (R.present(en) || R.is(en, 2));    // F4 / P4
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

// ---------------------------------------------------------------- agreement with the oracle
namespace {

const bool kRcParams = [] {
  const char *cur = std::getenv("RC_PARAMS");
  std::string v = cur ? cur : "";
  if (v.find("max_success") == std::string::npos) setenv("RC_PARAMS", (v.empty() ? "" : v + " ").append("max_success=1000").c_str(), 1);
  return true;
}();

// A random input cell: ⊥, □, ‖ or a small value (an int, or a bool for conditions).
rml::oracle::Cell random_cell(bool boolean) {
  int k = *rc::gen::inRange(0, 6);
  if (k == 0) return rml::oracle::Cell::bot();
  if (k == 1) return rml::oracle::Cell::absent();
  if (k == 2) return rml::oracle::Cell::error();
  if (boolean) return rml::oracle::Cell::of(rml::array::Tensor::boolean(*rc::gen::arbitrary<bool>()));
  return rml::oracle::Cell::of(rml::array::Tensor::integer(*rc::gen::inRange(-3, 4)));
}

Cell concrete(Domain &D, const rml::oracle::Cell &c) {
  int tag = c.tag == rml::oracle::Tag::Bot ? 0 : c.tag == rml::oracle::Tag::Abs ? 1 : c.tag == rml::oracle::Tag::Err ? 2 : 3;
  int64_t v = c.tag == rml::oracle::Tag::Val ? c.value.i[0] : 0;
  return Cell{D.tag(tag), D.c.int_val(v), D.c.bool_val(v != 0)};
}

// The Z3 rule's cell, evaluated, equals the oracle's cell.
bool same(Domain &D, const Cell &w, const rml::oracle::Cell &o, bool boolean) {
  int tag = o.tag == rml::oracle::Tag::Bot ? 0 : o.tag == rml::oracle::Tag::Abs ? 1 : o.tag == rml::oracle::Tag::Err ? 2 : 3;
  if (!(w.t == D.tag(tag)).simplify().is_true()) return false;
  if (tag != 3) return true;
  if (boolean) return w.b.simplify().is_true() == (o.value.i[0] != 0);
  int64_t v = 0;
  return w.d.simplify().is_numeral_i64(v) && v == o.value.i[0];
}

struct Fixture {
  std::unique_ptr<rml::FrontendResult> fe;
  rml::core::Program prog;
  Fixture(const std::string &text, const std::string &main) {
    fe = rml::run_frontend("law.rml", text);
    prog = rml::core::elaborate(fe->checked, main);
  }
};

}  // namespace

// Each encoded rule computes, on random concrete inputs (all four kinds of cells), exactly
// what the oracle computes for the one-primitive program.
RC_GTEST_PROP(Agreement, EncodedRulesEqualTheOracle, ()) {
  static Fixture fw("node w(x: int, c: bool) -> (y: int) y = x when c;\n", "w");
  static Fixture fm("node m(c: bool, a: int, b: int) -> (y: int) y = merge c a b;\n", "m");
  static Fixture ff("node f(i: int, e: int) -> (y: int) y = i fby e;\n", "f");
  static Fixture fp("node p(x: int) -> (y: int) y = post x;\n", "p");
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
  {  // when
    auto in = inputs({{"x", false}, {"c", true}});
    auto res = rml::oracle::Oracle(fw.fe->checked, fw.prog).run(in);
    Stream x = z3s(in, "x"), c = z3s(in, "c");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.when(x[n], c[n], true), res.at("y", n), false));
  }
  {  // merge (the branches' declared clocks do not matter to the rule)
    auto in = inputs({{"c", true}, {"a", false}, {"b", false}});
    auto res = rml::oracle::Oracle(fm.fe->checked, fm.prog).run(in);
    Stream c = z3s(in, "c"), a = z3s(in, "a"), b = z3s(in, "b");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.merge(c[n], a[n], b[n]), res.at("y", n), false));
  }
  {  // fby
    auto in = inputs({{"i", false}, {"e", false}});
    auto res = rml::oracle::Oracle(ff.fe->checked, ff.prog).run(in);
    Stream i = z3s(in, "i"), e = z3s(in, "e");
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.fby_at(i, e, n), res.at("y", n), false));
  }
  {  // post, on the main node's base clock (clocks_of the single input, semantics.md §3)
    auto in = inputs({{"x", false}});
    auto res = rml::oracle::Oracle(fp.fe->checked, fp.prog).run(in);
    Stream x = z3s(in, "x"), k;
    for (auto &c : in.streams.at("x")) {
      int tag = c.tag == rml::oracle::Tag::Val ? 3 : c.tag == rml::oracle::Tag::Abs ? 3 : c.tag == rml::oracle::Tag::Err ? 2 : 0;
      k.push_back(Cell{D.tag(tag), D.c.int_val(0), D.c.bool_val(c.tag == rml::oracle::Tag::Val)});
    }
    for (int n = 0; n < len; ++n) RC_ASSERT(same(D, R.post_at(x, k, n), res.at("y", n), false));
  }
}
