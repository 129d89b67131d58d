// The stream rules of semantics.md §3-§4 as Z3 terms over symbolic cells, shared by the
// proofs (stream_laws.cpp, normalisation_laws.cpp). A cell is a tag {⊥, □, ‖, value, nil}
// (a Z3 enumeration) and a payload: uninterpreted data for data streams, a bool for
// conditions and clocks. Each rule transcribes the oracle's rule_* function case by case;
// stream_laws.cpp's Agreement test evaluates them on random concrete inputs and compares
// with the oracle, so the semantics proved here is the one the oracle implements.
//
// Debian 12's Z3 4.8.12 C++ header has no datatype constructors, hence the tag enumeration
// with payload fields (equivalent to the datatype V = P ⊎ {⊥, □, ‖}).
#pragma once
#include <z3++.h>

#include <map>
#include <string>
#include <vector>

namespace rml::proofs {

constexpr int K = 8;  // prefix lengths 1..K for the laws of one primitive

enum TagIx : int { kBot = 0, kAbs = 1, kErr = 2, kVal = 3, kNil = 4 };

struct Domain {
  z3::context c;
  z3::func_decl_vector tags{c}, testers{c};
  z3::sort tag_sort;
  z3::sort data;  // the payload of data streams
  explicit Domain(bool int_data = false)
      : tag_sort([&] {
          const char *names[] = {"bot", "abs", "err", "val", "nil"};
          return c.enumeration_sort("Tag", 5, names, tags, testers);
        }()),
        data(int_data ? c.int_sort() : c.uninterpreted_sort("D")) {}
  z3::expr tag(int k) { return tags[static_cast<unsigned>(k)](); }
  z3::expr bot() { return tag(kBot); }
  z3::expr abs() { return tag(kAbs); }
  z3::expr err() { return tag(kErr); }
  z3::expr val() { return tag(kVal); }
  z3::expr nil() { return tag(kNil); }
};

// A cell: its tag and payload (d for data streams, b for bools and clocks). The payload of
// a cell whose tag is not `val` is meaningless: eq/leq ignore it.
struct Cell {
  z3::expr t, d, b;
};
using Stream = std::vector<Cell>;

struct Rules {
  Domain &D;
  // Deliberately broken rules, for the negative controls only.
  bool broken_fby = false;  // fby forgets its state: e_n instead of e_k
  bool broken_pre = false;  // pre forgets its state: x_n instead of x_p
  bool old_arrow = false;   // the first `->` (semantics.md §4.7, §8): a_k = ‖ falls through to b_n
  bool lax_fby = false;     // fby outputs its state where i_n = ⊥, as if i_n were present
  bool short_circuit_and = false;  // `a and b` is ff where a is ff, without reading b

  z3::context &c() { return D.c; }
  Cell of_tag(const z3::expr &t, const Cell &payload) { return Cell{t, payload.d, payload.b}; }
  Cell ite(const z3::expr &cond, const Cell &a, const Cell &b) {
    return Cell{z3::ite(cond, a.t, b.t), z3::ite(cond, a.d, b.d), z3::ite(cond, a.b, b.b)};
  }
  z3::expr is(const Cell &x, int k) { return x.t == D.tag(k); }
  z3::expr present(const Cell &x) { return is(x, kVal) || is(x, kNil); }  // P = T ⊎ {nil}
  z3::expr absentish(const Cell &x) { return is(x, kBot) || is(x, kAbs); }
  Cell bot(const Cell &like) { return of_tag(D.bot(), like); }
  Cell abs(const Cell &like) { return of_tag(D.abs(), like); }
  Cell err(const Cell &like) { return of_tag(D.err(), like); }
  Cell nil(const Cell &like) { return of_tag(D.nil(), like); }
  // A clock cell (tt, ff, ⊥ or ‖: never □ or nil) ticks / does not tick.
  z3::expr tt(const Cell &k) { return is(k, kVal) && k.b; }
  z3::expr ff(const Cell &k) { return is(k, kVal) && !k.b; }

  // A clock cell tt/ff (the data payload is meaningless).
  Cell clock_cell(const z3::expr &ticks, const Cell &like) { return Cell{D.val(), like.d, ticks}; }

  // §2.4 ⟦base⟧ of the main node (rule_clock_base) from its inputs' cells at one index: tt if
  // some input is present (a value or nil), ff if all are □, ‖ if none is present and one
  // is ‖, ⊥ otherwise. Without inputs it is tt (`like` only gives the payload).
  Cell clock_base(const std::vector<Cell> &inputs, const Cell &like) {
    if (inputs.empty()) return clock_cell(c().bool_val(true), like);
    z3::expr any_present = c().bool_val(false), all_abs = c().bool_val(true), any_err = c().bool_val(false);
    for (auto &x : inputs) {
      any_present = any_present || present(x);
      all_abs = all_abs && is(x, kAbs);
      any_err = any_err || is(x, kErr);
    }
    return ite(any_present, clock_cell(c().bool_val(true), like),
           ite(all_abs, clock_cell(c().bool_val(false), like), ite(any_err, err(like), bot(like))));
  }

  // §3 ⟦never⟧ (rule_clock_never): ff where the base clock is known (tt or ff), ‖ where it is
  // ‖, ⊥ otherwise.
  Cell clock_never(const Cell &base) {
    return ite(is(base, kVal), clock_cell(c().bool_val(false), base), ite(is(base, kErr), err(base), bot(base)));
  }

  // A copy equation `y = x` (the oracle's K::Copy): the cell of x.
  Cell copy(const Cell &x) { return x; }

  // §4.1 c^κ: the constant's cell `value` (tag val or nil) where κ ticks.
  Cell constant(const Cell &kappa, const Cell &value) {
    return ite(is(kappa, kBot), bot(value), ite(is(kappa, kErr), err(value), ite(kappa.b, value, abs(value))));
  }

  // §3 κ on^b x.
  Cell clock_on(const Cell &kappa, const Cell &x, bool positive) {
    z3::expr hit = positive ? x.b : !x.b;
    Cell tick{D.val(), x.d, hit};
    return ite(is(kappa, kBot), bot(kappa), ite(is(kappa, kErr), err(kappa), ite(!kappa.b, kappa,
           ite(is(x, kBot), bot(kappa), ite(is(x, kVal), tick, err(kappa))))));
  }

  // §4.4 x when^b c (non-strict in the discarded data).
  Cell when(const Cell &x, const Cell &cnd, bool positive) {
    z3::expr selected = positive ? cnd.b : !cnd.b;
    return ite(is(cnd, kBot), bot(x),
           ite(is(cnd, kErr), err(x),
           ite(is(cnd, kAbs), ite(absentish(x), abs(x), err(x)),
           ite(is(cnd, kNil), err(x),
           ite(selected, ite(present(x), x, ite(is(x, kBot), bot(x), err(x))),
               ite(present(x) || is(x, kBot), abs(x), err(x)))))));
  }

  // §4.5 merge (non-strict in the discarded branch, which must still be absent).
  Cell merge(const Cell &cnd, const Cell &a, const Cell &b) {
    auto pick = [&](const Cell &sel, const Cell &oth) {
      return ite(!absentish(oth), err(a), ite(present(sel), sel, ite(is(sel, kBot), bot(a), err(a))));
    };
    return ite(is(cnd, kBot), bot(a),
           ite(is(cnd, kErr), err(a),
           ite(is(cnd, kNil), err(a),
           ite(is(cnd, kAbs), ite(absentish(a) && absentish(b), abs(a), err(a)),
           ite(cnd.b, pick(a, b), pick(b, a))))));
  }

  // §4.3 pointwise application: ⊥ first, then all-□, then all present, nil propagates;
  // `value` is the result cell when every argument is a value.
  Cell apply(const std::vector<Cell> &args, const Cell &value) {
    z3::expr any_bot = c().bool_val(false), all_abs = c().bool_val(true), all_present = c().bool_val(true),
             any_nil = c().bool_val(false);
    for (auto &a : args) {
      any_bot = any_bot || is(a, kBot);
      all_abs = all_abs && is(a, kAbs);
      all_present = all_present && present(a);
      any_nil = any_nil || is(a, kNil);
    }
    const Cell &l = args.at(0);
    return ite(any_bot, bot(l), ite(all_abs, abs(l), ite(!all_present, err(l), ite(any_nil, nil(l), value))));
  }
  // A binary data operator f (uninterpreted).
  Cell apply2(const z3::func_decl &f, const Cell &a, const Cell &b) { return apply({a, b}, Cell{D.val(), f(a.d, b.d), a.b}); }
  // The boolean `and` (an operator like any other: strict in both arguments). With
  // short_circuit_and (a negative control) it is ff where a is ff, whatever b is.
  Cell and_(const Cell &a, const Cell &b) {
    Cell strict = apply({a, b}, Cell{D.val(), a.d, a.b && b.b});
    return short_circuit_and ? ite(is(a, kVal) && !a.b, a, strict) : strict;
  }
  // A data -> bool relation r (uninterpreted), e.g. `<`.
  Cell rel2(const z3::func_decl &r, const Cell &a, const Cell &b) { return apply({a, b}, Cell{D.val(), a.d, r(a.d, b.d)}); }
  Cell not_(const Cell &a) { return apply({a}, Cell{D.val(), a.d, !a.b}); }
  // Eager `if c then a else b`: case 5 with f = select (strict in both branches).
  Cell select(const Cell &cnd, const Cell &a, const Cell &b) {
    return apply({cnd, a, b}, Cell{D.val(), z3::ite(cnd.b, a.d, b.d), z3::ite(cnd.b, a.b, b.b)});
  }

  // §4.6 i fby e, index-wise: y_n from i_n, e_n and the previous non-absent tick k of i.
  Cell fby_at(const Stream &i, const Stream &e, int n) {
    const Cell &in = i[n], &en = e[n];
    Cell state = in;  // no previous tick: i_n
    for (int k = 0; k < n; ++k) {  // the last k < n with i_k ≠ □ wins
      Cell at_k = ite(is(i[k], kBot), bot(in), ite(is(i[k], kErr), err(in),
                  ite(present(e[k]), broken_fby ? e[n] : e[k], ite(is(e[k], kBot), bot(in), err(in)))));
      state = ite(is(i[k], kAbs), state, at_k);
    }
    return ite(is(in, kBot), lax_fby ? state : bot(in),
           ite(is(in, kAbs), ite(absentish(en), abs(in), err(in)),
           ite(is(in, kErr), err(in),
           ite(is(en, kAbs) || is(en, kErr), err(in), state))));
  }

  // §4.7 a -> b: a at the first tick (the first non-□ cell of a), then b; presence from a.
  Cell arrow_at(const Stream &a, const Stream &b, int n) {
    const Cell &an = a[n], &bn = b[n];
    Cell first = an;  // first(n): no previous tick
    for (int k = 0; k < n; ++k) {
      Cell then_b = ite(is(bn, kBot), bot(an), bn);
      Cell at_k = ite(is(a[k], kBot), bot(an), old_arrow ? then_b : ite(is(a[k], kErr), err(an), then_b));
      first = ite(is(a[k], kAbs), first, at_k);
    }
    return ite(is(an, kBot), bot(an),
           ite(is(an, kAbs), ite(absentish(bn), abs(an), err(an)),
           ite(is(an, kErr), err(an),
           ite(is(bn, kAbs) || is(bn, kErr), err(an), first))));
  }

  // §4.8 pre^κ x: nil at the first tick of κ, then x at the previous tick of κ.
  Cell pre_at(const Stream &x, const Stream &kappa, int n) {
    const Cell &xn = x[n], &kn = kappa[n];
    Cell back = nil(xn);  // back(n): no previous tick
    for (int p = 0; p < n; ++p) {  // the last p < n with κ_p ≠ ff wins
      const Cell &xp = broken_pre ? xn : x[p];
      Cell at_p = ite(is(kappa[p], kBot), bot(xn), ite(is(kappa[p], kErr), err(xn),
                  ite(present(xp), xp, ite(is(xp, kBot), bot(xn), err(xn)))));
      back = ite(ff(kappa[p]), back, at_p);
    }
    return ite(is(kn, kBot), bot(xn),
           ite(is(kn, kErr), err(xn),
           ite(!kn.b, ite(absentish(xn), abs(xn), err(xn)),
           ite(is(xn, kAbs) || is(xn, kErr), err(xn), back))));
  }

  // §4.9 post^κ x: x at the next tick of κ; ⊥ beyond the prefix.
  Cell post_at(const Stream &x, const Stream &kappa, int n) {
    const Cell &xn = x[n], &kn = kappa[n];
    Cell look = bot(xn);  // beyond the prefix
    for (int m = static_cast<int>(x.size()) - 1; m > n; --m) {
      const Cell &km = kappa[m], &xm = x[m];
      Cell here = ite(present(xm), xm, ite(is(xm, kBot), bot(xn), err(xn)));
      look = ite(is(km, kBot), bot(xn), ite(is(km, kErr), err(xn), ite(km.b, here, look)));
    }
    return ite(is(kn, kBot), bot(xn),
           ite(is(kn, kErr), err(xn),
           ite(!kn.b, ite(absentish(xn), abs(xn), err(xn)),
           ite(is(xn, kAbs) || is(xn, kErr), err(xn), look))));
  }

  // --post-clock-data (rule_post_data; refuted, semantics.md §2.3, §4.10): presence from x
  // itself, x at its next present cell; ⊥ beyond the prefix.
  Cell post_data_at(const Stream &x, int n) {
    const Cell &xn = x[n];
    Cell look = bot(xn);  // beyond the prefix
    for (int m = static_cast<int>(x.size()) - 1; m > n; --m) {
      const Cell &xm = x[m];
      look = ite(is(xm, kAbs), look, ite(present(xm), xm, ite(is(xm, kBot), bot(xn), err(xn))));
    }
    return ite(is(xn, kBot), bot(xn), ite(is(xn, kAbs), abs(xn), ite(is(xn, kErr), err(xn), look)));
  }

  // Whole-stream forms.
  Stream fby(const Stream &i, const Stream &e) { return each(i, [&](int n) { return fby_at(i, e, n); }); }
  Stream arrow(const Stream &a, const Stream &b) { return each(a, [&](int n) { return arrow_at(a, b, n); }); }
  Stream pre(const Stream &x, const Stream &kappa) { return each(x, [&](int n) { return pre_at(x, kappa, n); }); }
  Stream post(const Stream &x, const Stream &kappa) { return each(x, [&](int n) { return post_at(x, kappa, n); }); }
  template <class F>
  Stream each(const Stream &like, F f) {
    Stream s;
    for (int n = 0; n < static_cast<int>(like.size()); ++n) s.push_back(f(n));
    return s;
  }
};

inline Stream fresh_stream(Domain &D, const std::string &name, int len) {
  Stream s;
  for (int n = 0; n < len; ++n)
    s.push_back(Cell{D.c.constant((name + "_t" + std::to_string(n)).c_str(), D.tag_sort),
                     D.c.constant((name + "_d" + std::to_string(n)).c_str(), D.data),
                     D.c.bool_const((name + "_b" + std::to_string(n)).c_str())});
  return s;
}

// Equal cells: same tag, and the same payload if it is a value.
inline z3::expr eq(Rules &R, const Cell &x, const Cell &y, bool boolean) {
  return x.t == y.t && z3::implies(R.is(x, kVal), boolean ? x.b == y.b : x.d == y.d);
}
// x ⊑ y in the flat order: x = ⊥, y = ‖, or equal cells.
inline z3::expr leq(Rules &R, const Cell &x, const Cell &y, bool boolean) {
  return R.is(x, kBot) || R.is(y, kErr) || eq(R, x, y, boolean);
}
inline z3::expr eq(Rules &R, const Stream &x, const Stream &y, bool boolean) {
  z3::expr all = R.c().bool_val(true);
  for (size_t n = 0; n < x.size(); ++n) all = all && eq(R, x[n], y[n], boolean);
  return all;
}
inline z3::expr leq(Rules &R, const Stream &x, const Stream &y, bool boolean) {
  z3::expr all = R.c().bool_val(true);
  for (size_t n = 0; n < x.size(); ++n) all = all && leq(R, x[n], y[n], boolean);
  return all;
}

// A clock stream holds tt, ff, ⊥ or ‖: never □ or nil (semantics.md §1).
inline z3::expr is_clock(Rules &R, const Stream &k) {
  z3::expr ok = R.c().bool_val(true);
  for (auto &c : k) ok = ok && !R.is(c, kAbs) && !R.is(c, kNil);
  return ok;
}

// Valid iff the negation is unsat.
inline bool valid(Domain &D, const z3::expr &claim) {
  z3::solver s(D.c);
  s.add(!claim);
  return s.check() == z3::unsat;
}

// A counterexample to `claim`, printed stream by stream ("" if the claim is valid): cells
// as ? _ ‖ nil, data values as v0, v1, ... (distinct values of the uninterpreted sort), and
// booleans/clocks as T/F.
inline std::string counterexample(Domain &D, const z3::expr &claim,
                                  const std::vector<std::pair<std::string, std::pair<Stream, bool>>> &shown) {
  z3::solver s(D.c);
  s.add(!claim);
  if (s.check() != z3::sat) return "";
  z3::model m = s.get_model();
  std::map<std::string, std::string> names;  // data values, by Z3's printing
  std::string out;
  for (auto &[name, sb] : shown) {
    auto &[st, boolean] = sb;
    out += name + " =";
    for (auto &cell : st) {
      z3::expr t = m.eval(cell.t, true);
      std::string cs;
      for (int k = 0; k < 5; ++k)
        if (z3::eq(t, D.tag(k))) cs = k == kBot ? "?" : k == kAbs ? "_" : k == kErr ? "\u2016" : k == kNil ? "nil" : "";
      if (z3::eq(t, D.val())) {
        if (boolean) cs = m.eval(cell.b, true).is_true() ? "T" : "F";
        else {
          std::string v = m.eval(cell.d, true).to_string();
          if (!names.count(v)) names[v] = "v" + std::to_string(names.size());
          cs = names[v];
        }
      }
      out += " " + cs;
    }
    out += "\n";
  }
  return out;
}

}  // namespace rml::proofs
