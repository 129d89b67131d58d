#include "codegen/emit_tagless.hpp"

#include <cstdint>
#include <functional>
#include <sstream>
#include <stdexcept>

#include "codegen/cpp_text.hpp"

namespace rml::codegen {

namespace {

using stream::StepKind;

struct Facts {  // what the emission asks of the plan, computed once
  std::vector<int> producer;  // per slot: its step, or -1 (an input)
  std::vector<int> position;  // per step: its place in the push's order
  int base = -1;              // the base clock's slot
};

Facts facts(const stream::Plan &plan, const stream::Retiming &rt) {
  Facts f;
  f.producer.assign(plan.slots.size(), -1);
  f.position.assign(plan.steps.size(), 0);
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    f.producer[static_cast<size_t>(plan.steps[k].out)] = static_cast<int>(k);
    if (plan.steps[k].kind == StepKind::ClockBase) f.base = plan.steps[k].out;
  }
  for (size_t q = 0; q < rt.order.size(); ++q) f.position[static_cast<size_t>(rt.order[q])] = static_cast<int>(q);
  return f;
}

// Which slots may hold nil: a pre's, and what takes a value from one (the rules pass nil on
// through operators, when, merge, fby, -> and post; a nil condition is an error instead).
std::vector<bool> may_be_nil(const stream::Plan &plan) {
  std::vector<bool> nil(plan.slots.size(), false);
  for (bool changed = true; changed;) {
    changed = false;
    for (auto &st : plan.steps) {
      bool n = false;
      switch (st.kind) {
        case StepKind::Pre: n = true; break;
        case StepKind::Apply:
          for (int c : st.in) n = n || nil[static_cast<size_t>(c)];
          break;
        case StepKind::Copy:
        case StepKind::When:
        case StepKind::Post: n = nil[static_cast<size_t>(st.in[0])]; break;
        case StepKind::Merge: n = nil[static_cast<size_t>(st.in[1])] || nil[static_cast<size_t>(st.in[2])]; break;
        case StepKind::Fby:
        case StepKind::Arrow: n = nil[static_cast<size_t>(st.in[0])] || nil[static_cast<size_t>(st.in[1])]; break;
        default: break;
      }
      if (n && !nil[static_cast<size_t>(st.out)]) nil[static_cast<size_t>(st.out)] = changed = true;
    }
  }
  return nil;
}

// The state steps whose ticks leave() remembers (as the runtime's kept steps).
bool kept(const stream::Step &st) {
  return st.kind == StepKind::Fby || st.kind == StepKind::Arrow || st.kind == StepKind::Pre || st.kind == StepKind::Post;
}

}  // namespace

std::string window_apply_expression(const stream::Plan &plan, const stream::Step &st, const std::vector<std::string> &operand) {
  Scalar arg = plan.slots[static_cast<size_t>(st.in.at(0))].elem, res = plan.slots[static_cast<size_t>(st.out)].elem;
  const std::string &a = operand.at(0), b = operand.size() > 1 ? operand[1] : std::string();
  if (st.scalar == stream::ScalarOp::If) return a + " ? " + b + " : " + operand.at(2);
  if (st.scalar == stream::ScalarOp::Unary) {
    std::string op = std::string("rml::ops::UnOp::") + unop_enumerator(st.un);
    if (arg == Scalar::Real && res == Scalar::Real) return "rml::ops::real_unary(" + op + ", " + a + ")";
    if (arg == Scalar::Real) return "rml::ops::real_to_int(" + op + ", " + a + ")";
    if (res == Scalar::Real) return "static_cast<double>(" + a + ")";
    if (res == Scalar::Bool) return "rml::ops::int_unary(" + op + ", " + a + " != 0) != 0";
    return "rml::ops::int_unary(" + op + ", " + a + ")";
  }
  std::string op = std::string("rml::ops::BinOp::") + binop_enumerator(st.bin);
  bool cmp = ops::is_comparison(st.bin);
  if (arg == Scalar::Real) return std::string(cmp ? "rml::ops::compare(" : "rml::ops::real_binary(") + op + ", " + a + ", " + b + ")";
  if (arg == Scalar::Bool) return "rml::ops::int_binary(" + op + ", " + a + " != 0, " + b + " != 0) != 0";
  return "rml::ops::int_binary(" + op + ", " + a + ", " + b + ")" + (cmp ? " != 0" : "");
}

std::string tagless_refusal(const stream::Plan &plan, const stream::Retiming &rt, const core::Clocks &clocks,
                            const std::function<bool(const core::Equation &)> &by_function) {
  if (!clocks.clashes.empty()) return "the clocks clash (presence is not the clocks')";
  const Facts f = facts(plan, rt);
  if (f.base < 0) return "no base clock";
  for (int c : plan.input_clock_slots)
    if (c != f.base) return "an input on a sampled clock";
  for (auto &s : plan.slots)
    if (s.numel != 1 || !s.shape.empty()) return "'" + s.name + "' is a tensor";
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const stream::Step &st = plan.steps[k];
    const std::string what = "'" + plan.slots[static_cast<size_t>(st.out)].name + "'";
    if (st.kind == StepKind::Apply && ((st.eq && by_function(*st.eq)) || st.scalar == stream::ScalarOp::None || st.in.empty()))
      return what + " is computed by a function";
    if (st.kind == StepKind::ClockOn) {
      const stream::Slot &x = plan.slots[static_cast<size_t>(st.in[1])];
      if (x.clock || x.elem != Scalar::Bool) return "a clock on a non-boolean";
    }
    if (plan.slots[static_cast<size_t>(st.out)].clock) continue;
    // Presence is the clock's word: the clock's cell is known when this one is (the tags
    // written at a hand-over), and before it within the push where a state step reads it.
    const int cs = plan.clock_of[static_cast<size_t>(st.out)];
    if (cs < 0 || f.producer[static_cast<size_t>(cs)] < 0) return what + " has no clock";
    const int kc = f.producer[static_cast<size_t>(cs)];
    const int lc = rt.lag[static_cast<size_t>(kc)], lk = rt.lag[k];
    const bool before = lc < lk || (lc == lk && f.position[static_cast<size_t>(kc)] < f.position[k]);
    // (a state step on the base clock reads no clock word: its previous tick is the cycle before)
    const bool state = (st.kind == StepKind::Fby || st.kind == StepKind::Arrow || st.kind == StepKind::Pre) && cs != f.base;
    if (lc > lk || (state && !before)) return "the clock of " + what + " is computed after it";
  }
  return "";
}

std::string tagless_members(const stream::Plan &plan) {
  size_t n = 0;
  for (auto &st : plan.steps) n += kept(st);
  const std::string N = std::to_string(std::max<size_t>(1, n));
  std::ostringstream h;
  h << "  // The tagless sweep (src/codegen/README.md) runs while rml_tagless_. Per state step (fby, ->,\n"
    << "  // pre, post): the cycle of its last tick + 1 (0: none yet), and what leave() would remember\n"
    << "  // of the frames that left (whether one ticked; the operand's word, and whether nil).\n"
    << "#ifdef RML_NO_TAGLESS  // the tagged sweep only (tests compare the two)\n  bool rml_tagless_ = false;\n#else\n  bool rml_tagless_ = true;\n#endif\n"
    << "  struct {\n    size_t last[" << N << "] = {};\n    uint64_t mem[" << N << "] = {};\n    bool mem_nil[" << N << "] = {}, has[" << N << "] = {};\n  } rml_tl_;\n"
    << "  bool rml_tagless_push(const Inputs &in, rml::Status &status);\n"
    << "  bool rml_tagless_pop(Outputs &out);\n  void rml_to_tags();\n"
    << "  rml::Status rml_push_tagged(const Inputs &in);  // push() and pop() once the sweep has left\n"
    << "  bool rml_pop_tagged(Outputs &out);\n";
  return h.str();
}

TaglessCode tagless_functions(const stream::Plan &plan, const stream::Retiming &rt, const TaglessClass &c) {
  const Facts f = facts(plan, rt);
  const std::vector<bool> nil = may_be_nil(plan);
  const size_t S = plan.slots.size();
  auto sz = [](int x) { return static_cast<size_t>(x); };
  auto is_real = [&](int x) { return !plan.slots[sz(x)].clock && plan.slots[sz(x)].elem == Scalar::Real; };
  auto off = [&](int x) { return std::to_string(c.offset[sz(x)]); };
  auto M = [&](int x, const std::string &lag) { return std::string(is_real(x) ? "F" : "I") + lag + "[" + off(x) + "]"; };  // a word of frame `lag` back
  auto lag_of = [&](int x) { return f.producer[sz(x)] < 0 ? 0 : rt.lag[sz(f.producer[sz(x)])]; };
  // Whether a state step ticks on the base clock (every cycle the tagless sweep runs): its
  // previous tick is the cycle before, and what leave() would remember of it is in the frame
  // before the oldest held, which the runtime keeps while tagless.
  auto on_base = [&](const stream::Step &st) {
    const int x = st.ticks;
    return x == f.base || (!plan.slots[sz(x)].clock && (f.producer[sz(x)] < 0 || plan.clock_of[sz(x)] == f.base));
  };
  std::vector<int> reg(plan.steps.size(), -1);
  int registers = 0;
  for (size_t k = 0; k < plan.steps.size(); ++k)  // the state steps leave() remembers
    if (kept(plan.steps[k])) reg[k] = registers++;
  std::ostringstream s;
  bool handover = false;  // some cell may send the push to the tagged sweep

  // ---- the push ----
  s << "// A push without tags (src/codegen/emit_tagless.hpp): each cell at its lag, its value only\n"
    << "// (and, where a pre's nil may reach, whether it is nil, in the tag's byte). False (nothing\n"
    << "// pushed, the tags written) where the tagless sweep cannot go on.\n"
    << "// (Inline in the header, as push() and pop() are while tagless: the calls were a third of a\n"
    << "// cycle of Figure 3's train on one machine, and the caller's loop now overlaps the cycles.)\n"
    << "[[gnu::always_inline]] inline bool " << c.cls << "::rml_tagless_push(const Inputs &in, rml::Status &status) {\n"
    << "  using namespace rml::window;\n";
  std::string all_present;
  for (auto &name : c.inputs) all_present += (all_present.empty() ? "" : " && ") + ("in." + name + ".kind == rml::Kind::Value");
  if (!all_present.empty()) s << "  if (!(" << all_present << ")) return rml_to_tags(), false;  // the base clock must tick, the inputs on it\n";
  s << "  (void)in;\n  Runner &R = rml_runner_;\n  const size_t t = R.tagless_frame(), front = R.front();\n  (void)front;\n";
  for (int l = 0; l <= rt.max_lag + 1; ++l) {  // lags 0 .. max_lag, and the cycle before for fby and pre
    std::string L = std::to_string(l), at = l == 0 ? "t" : "t - " + L, ok = l == 0 ? "true" : "t >= " + L;
    s << "  [[maybe_unused]] double *F" << L << " = " << ok << " ? R.sweep_reals(" << at << ") : nullptr;\n"
      << "  [[maybe_unused]] int64_t *I" << L << " = " << ok << " ? R.sweep_ints(" << at << ") : nullptr;\n"
      << "  [[maybe_unused]] uint8_t *T" << L << " = " << ok << " ? R.sweep_tags(" << at << ") : nullptr;\n";
  }
  // A scalar computed in the push is kept in a local (v), read by the cells after it there,
  // and so is its nil flag (n, false where absent: a present cell reads present operands).
  std::vector<bool> done(S, false);
  for (size_t x = 0; x < S; ++x) {
    s << "  [[maybe_unused]] " << (is_real(static_cast<int>(x)) ? "double" : "int64_t") << " v" << x << " = 0;\n";
    if (nil[x]) s << "  [[maybe_unused]] bool n" << x << " = false;\n";
  }
  for (size_t j = 0; j < plan.input_slots.size(); ++j) {
    int x = plan.input_slots[j];
    const std::string v = "in." + c.inputs[j] + ".value";
    s << "  v" << x << " = " << (plan.slots[sz(x)].elem == Scalar::Bool ? v + " ? 1 : 0" : v) << ", " << M(x, "0") << " = v" << x << ";\n";
    done[sz(x)] = true;
  }
  auto local = [&](int x, int lag) { return lag_of(x) == lag && done[sz(x)]; };
  auto W = [&](int x, int lag) { return local(x, lag) ? "v" + std::to_string(x) : M(x, std::to_string(lag)); };
  auto NF = [&](int x, int lag) {  // whether the cell is nil
    if (!nil[sz(x)]) return std::string("false");
    return local(x, lag) ? "n" + std::to_string(x) : "(T" + std::to_string(lag) + "[" + std::to_string(x) + "] == Nil)";
  };
  auto available = [&](int x, int lag) { return lag_of(x) < lag || (lag_of(x) == lag && done[sz(x)]); };
  auto ticks = [&](int x, int lag) {  // whether slot x ticks at the cycle `lag` back (a clock true, a variable present)
    int k = plan.slots[sz(x)].clock ? x : plan.clock_of[sz(x)];
    return f.producer[sz(x)] < 0 || k == f.base ? std::string("true") : W(k, lag) + " != 0";
  };
  // The frames' words some read (a later push, the frames leaving, the registers, the
  // hand-over's tags): the others are computed again when the tags are written.
  std::vector<bool> stored(S, false);
  for (int x : plan.input_slots) stored[sz(x)] = true;
  for (size_t x = 0; x < S; ++x) stored[x] = stored[x] || plan.slots[x].clock;  // presence
  for (auto &[name, x] : c.outputs) stored[sz(x)] = true;
  for (auto &st : plan.steps) {
    if (st.kind == StepKind::Fby || st.kind == StepKind::Arrow || st.kind == StepKind::Pre || st.kind == StepKind::Post) stored[sz(st.out)] = true;
    if (st.kind == StepKind::Fby) stored[sz(st.in[1])] = true;  // remembered
    if (st.kind == StepKind::Pre) stored[sz(st.in[0])] = true;
  }
  std::vector<bool> read_from_frame(S, false);
  auto Wr = [&](int x, int lag) {  // W, noting a read of the frame
    if (!local(x, lag)) read_from_frame[sz(x)] = true;
    return W(x, lag);
  };
  auto NFr = [&](int x, int lag) {
    if (nil[sz(x)] && !local(x, lag)) read_from_frame[sz(x)] = true;
    return NF(x, lag);
  };
  // An instant cell's value and nil flag from its operands' (read by `w` and `nf`), and the
  // test of a nil condition (`bail`): the same in the push and when the tags are written.
  using Read = std::function<std::string(int)>;
  auto instant = [&](const stream::Step &st, const Read &w, const Read &nf, const std::function<std::string(int)> &bail) {
    const std::string v = "v" + std::to_string(st.out), n = "n" + std::to_string(st.out);
    auto set = [&](const std::string &value, const std::string &is_nil) {
      return v + " = " + value + ";" + (nil[sz(st.out)] ? " " + n + " = " + is_nil + ";" : "");
    };
    const std::string pos = st.positive ? "true" : "false";
    switch (st.kind) {
      case StepKind::ClockBase: return v + " = 1;";
      case StepKind::ClockNever: return v + " = 0;";
      case StepKind::ClockOn: return bail(st.in[1]) + v + " = " + w(st.in[0]) + " != 0 && ((" + w(st.in[1]) + " != 0) == " + pos + ");";
      case StepKind::Const: {
        const core::Literal &lit = st.eq->lit;
        return v + " = " + (lit.type == Scalar::Real ? real_literal(lit.r) : lit.type == Scalar::Bool ? std::string(lit.b ? "1" : "0") : literal(lit)) + ";";
      }
      case StepKind::Copy: return set(w(st.in[0]), nf(st.in[0]));
      case StepKind::When: return bail(st.in[1]) + set(w(st.in[0]), "(" + w(st.in[1]) + " != 0) == " + pos + " && " + nf(st.in[0]));
      case StepKind::Apply: {
        std::vector<std::string> ops;
        std::string any_nil;
        for (int x : st.in) {
          ops.push_back(w(x));
          if (nil[sz(x)]) any_nil += (any_nil.empty() ? "" : " || ") + nf(x);
        }
        return set(window_apply_expression(plan, st, ops), any_nil.empty() ? "false" : any_nil);
      }
      case StepKind::Merge: return bail(st.in[0]) + set(w(st.in[0]) + " != 0 ? " + w(st.in[1]) + " : " + w(st.in[2]), w(st.in[0]) + " != 0 ? " + nf(st.in[1]) + " : " + nf(st.in[2]));
      default: return std::string();
    }
  };
  std::vector<std::string> bodies(plan.steps.size());
  for (int k : rt.order) {
    const stream::Step &st = plan.steps[sz(k)];
    const int L = rt.lag[sz(k)], out = st.out;
    const std::string l = std::to_string(L), v = "v" + std::to_string(out), n = "n" + std::to_string(out);
    const bool nl = nil[sz(out)];
    auto in = [&](size_t j) { return Wr(st.in.at(j), L); };
    auto set = [&](const std::string &value, const std::string &is_nil) {  // value and nil flag
      return v + " = " + value + ";" + (nl ? " " + n + " = " + is_nil + ";" : "");
    };
    auto bail_if_nil = [&](int cond) {  // a nil condition: an error, the tagged sweep's to give
      if (!nil[sz(cond)]) return std::string();
      handover = true;
      std::string test = NFr(cond, L);
      if (test.front() == '(' && test.back() == ')') test = test.substr(1, test.size() - 2);  // (no doubled parentheses)
      return "if (" + test + ") goto rml_handover;\n    ";
    };
    std::string body;
    switch (st.kind) {
      case StepKind::Fby:
      case StepKind::Arrow:
      case StepKind::Pre: {
        // The previous tick: on the base clock the cycle before (held, or left: its memory);
        // else the register's cycle. Fby and pre take the remembered operand's value there
        // (the second's, pre's only), -> its second operand's now; at the first tick fby and
        // -> take the first operand's, pre a nil.
        const int x = st.kind == StepKind::Fby ? st.in[1] : st.in[0];  // what fby and pre remember
        const int j = reg[sz(k)];
        const std::string first = st.kind == StepKind::Pre ? (nl ? n + " = true;" : "") : set(in(0), NFr(st.in[0], L));
        const std::string rem = is_real(x) ? "std::bit_cast<double>(rml_tl_.mem[" + std::to_string(j) + "])" : "static_cast<int64_t>(rml_tl_.mem[" + std::to_string(j) + "])";
        const std::string rem_nil = "rml_tl_.mem_nil[" + std::to_string(j) + "]";
        const std::string last = "rml_tl_.last[" + std::to_string(j) + "]";
        const bool base = on_base(st);
        std::string later;
        if (st.kind == StepKind::Arrow) {
          later = set(in(1), NFr(st.in[1], L));
        } else if (base) {  // (the frame before the oldest held stays: Runner::tagless_frame)
          later = "{\n      " + set(Wr(x, L + 1), NFr(x, L + 1)) + "\n    }";
        } else {
          const std::string p = "(" + last + " - 1)";
          std::string word = "R.sweep_" + std::string(is_real(x) ? "reals(" : "ints(") + p + ")[" + off(x) + "]";
          std::string flag = nil[sz(x)] ? "R.sweep_tags(" + p + ")[" + std::to_string(x) + "] == Nil" : "false";
          later = "if (" + p + " >= front) {\n        " + set(word, flag) + "\n      } else {\n        " + set(rem, rem_nil) + "\n      }";
        }
        if (base) {
          body = "if (t == " + l + ") {\n      " + first + "\n    } else " + (st.kind == StepKind::Arrow ? "{\n      " + later + "\n    }" : later);
        } else {
          std::string tick = ticks(st.ticks, L);
          if (tick != "true") read_from_frame[sz(plan.slots[sz(st.ticks)].clock ? st.ticks : plan.clock_of[sz(st.ticks)])] = true;  // (a clock: stored)
          body = (nl ? n + " = false;\n    " : "") + "if (" + tick + ") {\n      if (" + last + " == 0) {\n        " + first + "\n      } else " +
                 (st.kind == StepKind::Arrow ? "{\n        " + later + "\n      }" : later) + "\n      " + last + " = t - " + l + " + 1;\n    }";
        }
        break;
      }
      case StepKind::Post: {
        const int kc = st.clock, x = st.in[0];
        if (kc == f.base) {
          body = set(Wr(x, L - 1), NFr(x, L - 1));
          break;
        }
        // Its clock's next tick within what this push has computed (the retiming reaches the
        // horizon); beyond, the tagged sweep takes over (it leaves the cell to the worklist).
        std::string scan;
        for (int j = 1; j <= L && available(kc, L - j) && available(x, L - j); ++j)
          scan += std::string(j == 1 ? "if (" : " else if (") + Wr(kc, L - j) + " != 0) {\n      " + set(Wr(x, L - j), NFr(x, L - j)) + "\n    }";
        handover = true;
        body = (nl ? n + " = false;\n    " : "") + "if (" + Wr(kc, L) + " != 0) {\n    " + scan + (scan.empty() ? "" : " else {\n      ") + "goto rml_handover;" +
               (scan.empty() ? "" : "\n    }") + "\n    }";
        break;
      }
      default:
        body = instant(st, [&](int x) { return Wr(x, L); }, [&](int x) { return NFr(x, L); }, bail_if_nil);
        break;
    }
    bodies[sz(k)] = body;
    done[sz(out)] = true;
  }
  for (size_t x = 0; x < S; ++x) stored[x] = stored[x] || read_from_frame[x];
  for (int k : rt.order) {
    const int L = rt.lag[sz(k)], out = plan.steps[sz(k)].out;
    const std::string l = std::to_string(L);
    s << "  // " << plan.slots[sz(out)].name << " (step " << k << ", lag " << L << ")" << (stored[sz(out)] ? "" : ", not stored") << "\n  ";
    if (L > 0) s << "if (t >= " << L << ") ";
    s << "{\n    " << bodies[sz(k)];
    if (stored[sz(out)]) {
      s << "\n    " << M(out, l) << " = v" << out << ";";
      if (nil[sz(out)]) s << "\n    T" << l << "[" << out << "] = n" << out << " ? Nil : Val;";
    }
    s << "\n  }\n";
  }
  // (The tagged push's Status::Window needs more than kWindow frames held and the oldest
  // not ready: here a frame is ready once kMaxLag + kHorizon + 1 are held, no more than kWindow.)
  s << "  static_assert(kWindow >= kMaxLag + kHorizon + 1);\n  status = rml::Status::Ok;\n  return true;\n"
    << (handover ? "rml_handover:\n  R.tagless_unpush();\n  rml_to_tags();\n  return false;\n" : "") << "}\n\n";

  // ---- frames leaving ----
  // On a frame (its ints I, its tags T): whether slot x ticks, and a cell's tag.
  auto ticks_at = [&](int x) {
    if (plan.slots[sz(x)].clock) return "I[" + off(x) + "] != 0";
    int k = plan.clock_of[sz(x)];
    return f.producer[sz(x)] < 0 || k == f.base ? std::string("true") : "I[" + off(k) + "] != 0";
  };
  auto tag_at = [&](int x) {
    if (plan.slots[sz(x)].clock || f.producer[sz(x)] < 0) return std::string("Val");
    std::string present = nil[sz(x)] ? "(T[" + std::to_string(x) + "] == Nil ? Nil : Val)" : "Val";
    std::string t = ticks_at(x);
    return t == "true" ? present : "(" + t + " ? " + present + " : Abs)";
  };
  s << "// The oldest frame out once it and kHorizon frames after it are final: kMaxLag cycles after\n"
    << "// its cycle every cell of it is known. The state its ticks leave is remembered.\n"
    << "[[gnu::always_inline]] inline bool " << c.cls << "::rml_tagless_pop([[maybe_unused]] Outputs &out) {\n"
    << "  using namespace rml::window;\n  Runner &R = rml_runner_;\n"
    << "  if (R.back() - R.front() < static_cast<size_t>(kMaxLag + kHorizon + 1)) return false;\n"
    << "  [[maybe_unused]] const double *F = R.sweep_reals(R.front());\n  [[maybe_unused]] const int64_t *I = R.sweep_ints(R.front());\n"
    << "  [[maybe_unused]] const uint8_t *T = R.sweep_tags(R.front());\n";
  for (auto &[name, x] : c.outputs) s << "  rml_cell_into(out." << name << ", " << tag_at(x) << ", &" << M(x, "") << ");\n";
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const stream::Step &st = plan.steps[k];
    if (!kept(st)) continue;
    const int x = st.kind == StepKind::Fby ? st.in[1] : st.kind == StepKind::Pre ? st.in[0] : -1;
    if (on_base(st)) continue;  // (remembered when the tags are written)
    const std::string j = std::to_string(reg[k]), t = ticks_at(st.ticks);
    std::string keep = "rml_tl_.has[" + j + "] = true;";
    if (x >= 0) keep += " std::memcpy(&rml_tl_.mem[" + j + "], &" + M(x, "") + ", 8);";
    if (x >= 0 && nil[sz(x)]) keep += " rml_tl_.mem_nil[" + j + "] = T[" + std::to_string(x) + "] == Nil;";
    s << "  " << (t == "true" ? "" : "if (" + t + ") ") << "{ " << keep << " }\n";
  }
  s << "  R.tagless_leave();\n  return true;\n}\n\n";
  TaglessCode code;
  code.inline_functions = s.str();
  s.str("");

  // ---- back to tags ----
  s << "// Leaving the tagless sweep: every held frame's tags as the tagged sweep would have them (a\n"
    << "// cell known once its lag has passed, present where its clock is true).\n"
    << "void " << c.cls << "::rml_to_tags() {\n  rml_tagless_ = false;\n  Runner &R = rml_runner_;\n"
    << "  for (size_t m = R.front(); m < R.back(); ++m) {\n    [[maybe_unused]] const size_t after = R.back() - 1 - m;  // cycles pushed since\n"
    << "    uint8_t *T = R.sweep_tags(m);\n    [[maybe_unused]] const int64_t *I = R.sweep_ints(m);\n";
  for (int x : plan.input_slots) s << "    T[" << x << "] = Val;\n";
  // The cells not stored, computed again from their operands at the frame's cycle (once its
  // lag has passed, as the tags below say), in the push's order.
  bool remat = false;
  for (int k : rt.order) {
    const stream::Step &st = plan.steps[sz(k)];
    if (stored[sz(st.out)]) continue;
    if (!remat) s << "    [[maybe_unused]] double *F = R.sweep_reals(m);\n    [[maybe_unused]] int64_t *W = R.sweep_ints(m);\n", remat = true;
    auto w = [&](int x) { return std::string(is_real(x) ? "F" : "W") + "[" + off(x) + "]"; };
    auto nf = [&](int x) { return nil[sz(x)] ? "(T[" + std::to_string(x) + "] == Nil)" : std::string("false"); };
    std::string body = instant(st, w, nf, [](int) { return std::string(); });
    const int L = rt.lag[sz(k)], out = st.out;
    s << "    " << (L == 0 ? "" : "if (after >= " + std::to_string(L) + ") ") << "{\n      "
      << (is_real(out) ? "double" : "int64_t") << " v" << out << " = 0;" << (nil[sz(out)] ? " bool n" + std::to_string(out) + " = false;" : "") << "\n      "
      << body << "\n      " << w(out) << " = v" << out << ";" << (nil[sz(out)] ? " T[" + std::to_string(out) + "] = n" + std::to_string(out) + " ? Nil : Val;" : "")
      << "\n    }\n";
  }
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const int x = plan.steps[k].out, L = rt.lag[k];
    s << "    T[" << x << "] = " << (L == 0 ? "" : "after >= " + std::to_string(L) + " ? ") << tag_at(x) << (L == 0 ? "" : " : Bot") << ";\n";
  }
  s << "  }\n";
  for (size_t k = 0; k < plan.steps.size(); ++k) {
    const stream::Step &st = plan.steps[k];
    if (!kept(st)) continue;
    const int x = st.kind == StepKind::Fby ? st.in[1] : st.kind == StepKind::Pre ? st.in[0] : -1;
    const std::string j = std::to_string(reg[k]);
    if (on_base(st)) {  // its last tick that left: the frame before the oldest
      std::string word = x < 0 ? "nullptr" : "&R.sweep_" + std::string(is_real(x) ? "reals" : "ints") + "(R.front() - 1)[" + off(x) + "]";
      std::string is_nil = x >= 0 && nil[sz(x)] ? ", R.sweep_tags(R.front() - 1)[" + std::to_string(x) + "] == Nil" : "";
      s << "  if (R.front() > 0) R.remember(" << k << ", " << word << is_nil << ");\n";
    } else {
      s << "  if (rml_tl_.has[" << j << "]) R.remember(" << k << ", " << (x < 0 ? "nullptr" : "&rml_tl_.mem[" + j + "], rml_tl_.mem_nil[" + j + "]") << ");\n";
    }
  }
  s << "  R.tags_written();\n}\n\n";
  code.source_functions = s.str();
  return code;
}

}  // namespace rml::codegen
