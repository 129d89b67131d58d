#include "gen/program_gen.hpp"

#include <map>
#include <memory>
#include <set>
#include <sstream>

namespace rml::gen {

uint64_t Rng::next() {
  uint64_t z = (s_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}
int Rng::range(int lo, int hi) { return lo + static_cast<int>(next() % static_cast<uint64_t>(hi - lo + 1)); }
bool Rng::coin(int percent_true) { return range(0, 99) < percent_true; }

uint64_t program_seed(uint64_t seed, uint64_t k) {
  Rng r(seed ^ (k * 0xD1B54A32D192ED03ull));
  return r.next();
}

const char *type_name(Ty t) { return t == Ty::Real ? "real" : t == Ty::Int ? "int" : t == Ty::Bool ? "bool" : "vec"; }
std::string type_text(Ty t, int length) { return t == Ty::Vec ? "real[" + std::to_string(length) + "]" : type_name(t); }

GenOptions GenOptions::for_lustre() const {
  GenOptions o = *this;
  o.post = o.resets = o.funs = o.tensors = false;
  o.dialect = Dialect::Lustre;
  return o;
}

namespace {

// q / 4 written as a real literal ("1.25", "2.0"); q >= 0.
std::string quarters(int q) {
  static const char *frac[] = {"0", "25", "5", "75"};
  return std::to_string(q / 4) + "." + frac[q % 4];
}

// A generated expression: a small tree printed in either dialect.
struct E;
using EP = std::shared_ptr<const E>;
struct E {
  enum K { Lit, Var, Neg, Not, Bin, If, Fby, ArrowPre, When, Merge, Post, Call, Index, Tensor, MergeEnum, Record } k;
  std::string s;       // literal text, variable, operator, called node or fun; When/Merge: the clock
                       // variable (When: `Lo(m)` for an enumeration's clock); Index: the index;
                       // MergeEnum: the enumeration variable; Record: the record type

  bool positive = true;  // When
  std::string every;   // Call: the reset condition ("" none)
  std::vector<EP> a;
};
EP mk(E::K k, std::string s, std::vector<EP> a = {}) { return std::make_shared<E>(E{k, std::move(s), true, "", std::move(a)}); }

std::string print(const E &e, Dialect d) {
  auto p = [&](size_t i) { return print(*e.a[i], d); };
  switch (e.k) {
    case E::Lit:
    case E::Var: return e.s;
    case E::Neg: return "(- " + p(0) + ")";
    case E::Not: return "(not " + p(0) + ")";
    case E::Bin: return "(" + p(0) + " " + e.s + " " + p(1) + ")";
    case E::If: return "(if " + p(0) + " then " + p(1) + " else " + p(2) + ")";
    case E::Fby: return d == Dialect::Rml ? "(" + p(0) + " fby " + p(1) + ")" : "(" + p(0) + " -> pre " + p(1) + ")";
    case E::ArrowPre: return "(" + p(0) + " -> pre " + p(1) + ")";
    case E::When: return "(" + p(0) + (e.positive ? " when " : " when not ") + e.s + ")";
    case E::Merge:
      return d == Dialect::Rml ? "(merge " + e.s + " " + p(0) + " " + p(1) + ")"
                               : "(merge " + e.s + " (true -> " + p(0) + ") (false -> " + p(1) + "))";
    case E::Post: return "(post " + p(0) + ")";
    case E::Index: return "(" + p(0) + ")[" + e.s + "]";
    case E::Tensor: {  // a tensor literal of its elements: [a, b], [[a, b], [c, d]]
      std::string t = "[";
      for (size_t i = 0; i < e.a.size(); ++i) t += (i ? ", " : "") + p(i);
      return t + "]";
    }
    case E::MergeEnum:  // Lustre V6 only: over the enumeration `mode`
      return "(merge " + e.s + " (Lo -> " + p(0) + ") (Mid -> " + p(1) + ") (Hi -> " + p(2) + "))";
    case E::Record: return e.s + " { n = " + p(0) + "; b = " + p(1) + " }";
    case E::Call: {
      std::string call = e.s + "(";
      for (size_t i = 0; i < e.a.size(); ++i) call += (i ? ", " : "") + p(i);
      call += ")";
      return e.every.empty() ? call : "(" + call + " every " + e.every + ")";
    }
  }
  return "";
}

struct Local {
  std::string name;
  Ty type;
  EP rhs;
  std::string clock;  // "" base; else the Lustre declaration's clock, "when c"
};

// What an expression may read: variables at the present cycle, variables under a delay.
struct Scope {
  std::vector<std::pair<std::string, Ty>> now, delayed;
  bool allow_post = false;
};

class Generator {
 public:
  Generator(uint64_t seed, const GenOptions &o) : r_(seed), o_(o) {}

  GeneratedProgram run() {
    GeneratedProgram g;
    if (o_.reals) g.inputs.push_back({"x", Ty::Real});
    if (o_.ints) g.inputs.push_back({"y", Ty::Int});
    g.inputs.push_back({"c", Ty::Bool});
    g.inputs.push_back({"d", Ty::Bool});
    // Tensors in half of the programs that may have them: scalar programs stay as common.
    tensors_ = o_.tensors && o_.reals && o_.dialect == Dialect::Rml && r_.coin(50);
    if (tensors_) {
      n_ = r_.range(2, 3);
      g.inputs.push_back({"u", Ty::Vec, n_});
    }
    for (auto &in : g.inputs) inputs_.push_back({in.name, in.type});
    int n = r_.range(1, std::max(1, o_.size));
    int future = o_.post ? r_.range(0, (n + 1) / 2) : 0;
    int past = n - future;
    // Past locals: the names first (they may be read under a delay before their equation).
    std::vector<std::pair<std::string, Ty>> past_vars;
    for (int j = 0; j < past; ++j) past_vars.push_back({"v" + std::to_string(j), type()});
    for (int j = 0; j < past; ++j) {
      Scope s;
      s.now = inputs_;
      for (int i = 0; i < j; ++i) s.now.push_back(past_vars[i]);
      s.delayed = past_vars;
      auto [name, t] = past_vars[j];
      if (o_.clocks && r_.coin(30)) {
        locals_.push_back({name, t, clocked_block(t, s), ""});
      } else {
        locals_.push_back({name, t, expr(t, o_.depth, s), ""});
      }
    }
    // Future locals: read inputs, past locals and earlier future locals; `post` of those,
    // and backfill (their own post, cut where c holds).
    std::vector<std::pair<std::string, Ty>> seen = inputs_;
    seen.insert(seen.end(), past_vars.begin(), past_vars.end());
    bool backfill = false;
    for (int j = 0; j < future; ++j) {
      std::string name = "f" + std::to_string(j);
      Ty t = type();
      Scope s;
      s.now = seen;
      s.delayed = past_vars;
      s.allow_post = true;
      EP rhs;
      int pick = r_.range(0, 2);
      if (pick == 0) {
        shape(t, "post");
        rhs = mk(E::Post, "", {expr(t, o_.depth - 1, s)});
      } else if (pick == 1) {
        backfill = true;
        shape(t, "backfill");
        rhs = mk(E::Merge, "c", {when(expr(t, o_.depth - 1, s), "c", true), when(mk(E::Post, "", {var(name)}), "c", false)});
      } else {
        rhs = expr(t, o_.depth, s);
      }
      locals_.push_back({name, t, rhs, ""});
      seen.push_back({name, t});
    }
    // Outputs: read every local at the present cycle.
    Scope out;
    out.now = seen;
    out.delayed = past_vars;
    out.allow_post = o_.post;
    std::vector<Local> outputs;
    if (o_.reals) outputs.push_back({"o1", Ty::Real, expr(Ty::Real, o_.depth, out), ""});
    if (o_.ints) outputs.push_back({"o2", Ty::Int, expr(Ty::Int, o_.depth, out), ""});
    outputs.push_back({"o3", Ty::Bool, expr(Ty::Bool, o_.depth, out), ""});
    if (tensors_) outputs.push_back({"o4", Ty::Vec, expr(Ty::Vec, o_.depth, out), ""});
    for (auto &l : outputs) g.outputs.push_back(l.name);
    if (o_.post && (backfill || r_.coin(50))) g.within = r_.range(1, 4);
    g.text = text(g, outputs);
    g.shapes.assign(shapes_.begin(), shapes_.end());
    return g;
  }

 private:
  Rng r_;
  GenOptions o_;
  std::vector<std::pair<std::string, Ty>> inputs_;
  std::vector<Local> locals_;
  bool used_helper_[4] = {false, false, false, false};
  int blocks_ = 0;
  bool tensors_ = false;  // this program has tensor streams, of length n_
  int n_ = 0;
  // The program's own funs, drawn at their first use: g0 (real[n], real[n]) : real[n] and
  // h0 (real[n], real[n]) : real.
  EP fun_body_[2];
  std::set<std::string> shapes_;  // GeneratedProgram::shapes
  // Lustre V6 constructs (GenOptions::lustre_types): what the program declares for them.
  bool uses_k_ = false, uses_r_ = false, uses_mode_ = false, uses_pair_ = false, uses_scale_ = false;
  Ty pair_ty_ = Ty::Int;                             // the type of pair's field n
  bool uses_plus_[3] = {false, false, false};        // plus_r, plus_i, plus_b (red's node)
  std::map<std::string, std::string> declared_type_;  // locals whose type is not a Ty: "int^3", "mode", "pair"

  // Records a shape drawn, as "tensor <what>" when it carries a tensor.
  void shape(Ty t, const std::string &what) { shapes_.insert(t == Ty::Vec ? "tensor " + what : what); }

  Ty type() {
    std::vector<Ty> ts{Ty::Bool};
    if (o_.reals) ts.push_back(Ty::Real), ts.push_back(Ty::Real);
    if (o_.ints) ts.push_back(Ty::Int);
    if (tensors_) ts.push_back(Ty::Vec);
    return ts[r_.range(0, static_cast<int>(ts.size()) - 1)];
  }
  static EP var(const std::string &n) { return mk(E::Var, n); }
  static EP when(EP e, const std::string &c, bool positive) {
    auto w = std::make_shared<E>(E{E::When, c, positive, "", {std::move(e)}});
    return w;
  }
  EP lit(Ty t) {
    if (o_.lustre_types && (t == Ty::Int || t == Ty::Real) && r_.coin(12)) {  // a global constant
      (t == Ty::Int ? uses_k_ : uses_r_) = true;
      shapes_.insert("lustre constant");
      return var(t == Ty::Int ? "K" : "R");
    }
    switch (t) {
      case Ty::Real: {
        int q = r_.range(-16, 16);  // quarters in [-4, 4]
        EP l = mk(E::Lit, quarters(q < 0 ? -q : q));
        return q < 0 ? mk(E::Neg, "", {l}) : l;
      }
      case Ty::Int: {
        int v = r_.range(-5, 9);
        return v < 0 ? mk(E::Neg, "", {mk(E::Lit, std::to_string(-v))}) : mk(E::Lit, std::to_string(v));
      }
      case Ty::Bool: return mk(E::Lit, r_.coin() ? "true" : "false");
      case Ty::Vec: {
        std::vector<EP> es;
        for (int i = 0; i < n_; ++i) es.push_back(lit(Ty::Real));
        return mk(E::Tensor, "", es);
      }
    }
    return nullptr;
  }
  static std::vector<std::string> of_type(const std::vector<std::pair<std::string, Ty>> &vs, Ty t) {
    std::vector<std::string> r;
    for (auto &[n, u] : vs)
      if (u == t) r.push_back(n);
    return r;
  }
  EP atom(Ty t, const Scope &s) {
    auto vs = of_type(s.now, t);
    if (vs.empty() || r_.coin(20)) return lit(t);
    return var(vs[r_.range(0, static_cast<int>(vs.size()) - 1)]);
  }
  // A delayed read: `lit fby v` or `e -> pre v` for a past local (any, itself included).
  EP delayed(Ty t, int depth, const Scope &s) {
    auto vs = of_type(s.delayed, t);
    EP v = vs.empty() ? expr(t, depth - 1, s) : var(vs[r_.range(0, static_cast<int>(vs.size()) - 1)]);
    shape(t, "state");
    if (o_.arrows && r_.coin(40)) return mk(E::ArrowPre, "", {expr(t, depth - 1, s), v});
    return mk(E::Fby, "", {lit(t), v});
  }
  Ty numeric() {
    if (o_.reals && (!o_.ints || r_.coin(60))) return Ty::Real;
    if (o_.ints) return Ty::Int;
    return Ty::Bool;
  }
  EP op(Ty t, int depth, const Scope &s) {
    auto sub = [&](Ty u) { return expr(u, depth - 1, s); };
    switch (t) {
      case Ty::Real: {
        int k = r_.range(0, 4);
        if (k == 4) return mk(E::Neg, "", {sub(t)});
        if (k == 3) return mk(E::Bin, "/", {sub(t), mk(E::Lit, r_.coin() ? "2.0" : "4.0")});
        return mk(E::Bin, k == 0 ? "+" : k == 1 ? "-" : "*", {sub(t), sub(t)});
      }
      case Ty::Int: {
        int k = r_.range(0, 2);
        if (k == 2) return mk(E::Neg, "", {sub(t)});
        return mk(E::Bin, k == 0 ? "+" : "-", {sub(t), sub(t)});
      }
      case Ty::Bool: {
        int k = r_.range(0, 5);
        if (k == 0) return mk(E::Not, "", {sub(t)});
        if (k == 1) {
          std::vector<EP> ops{sub(t), sub(t)};
          return mk(E::Bin, r_.coin() ? "and" : "or", std::move(ops));
        }
        if (k == 2 && o_.dialect == Dialect::Rml) return mk(E::Bin, "xor", {sub(t), sub(t)});
        if (k == 2 && o_.lustre_types) {
          if (r_.coin()) {
            shapes_.insert("lustre implication");
            return mk(E::Bin, "=>", {sub(t), sub(t)});
          }
          shapes_.insert("lustre at most one");
          std::vector<EP> ops{sub(t), sub(t)};
          if (r_.coin()) ops.push_back(sub(t));
          return mk(E::Call, "#", ops);
        }
        Ty u = numeric();
        static const char *cmp[] = {"<", "<=", ">", ">=", "=", "<>"};
        const char *c = u == Ty::Bool ? (r_.coin() ? "=" : "<>") : cmp[r_.range(0, 5)];
        return mk(E::Bin, c, {sub(u), sub(u)});
      }
      case Ty::Vec: return vec_op(depth, s);
    }
    return nullptr;
  }
  // A tensor operation: elementwise arithmetic, a real broadcast, a literal of real
  // expressions; with funs, the prelude's tanh/sigmoid/matvec and the program's g0.
  EP vec_op(int depth, const Scope &s) {
    auto sub = [&](Ty u) { return expr(u, depth - 1, s); };
    switch (r_.range(0, o_.funs ? 9 : 5)) {
      case 0: return mk(E::Bin, "+", {sub(Ty::Vec), sub(Ty::Vec)});
      case 1: return mk(E::Bin, "-", {sub(Ty::Vec), sub(Ty::Vec)});
      case 2: return mk(E::Bin, "*", {sub(Ty::Vec), sub(Ty::Vec)});
      case 3: return mk(E::Bin, "*", {sub(Ty::Real), sub(Ty::Vec)});  // a real stream broadcast
      case 4: {
        std::vector<EP> es;
        for (int i = 0; i < n_; ++i) es.push_back(sub(Ty::Real));
        return mk(E::Tensor, "", es);
      }
      case 5: return mk(E::Neg, "", {sub(Ty::Vec)});
      case 6: {
        EP x = sub(Ty::Vec);
        return mk(E::Call, r_.coin() ? "tanh" : "sigmoid", {x});
      }
      case 7: {
        std::vector<EP> rows;
        for (int i = 0; i < n_; ++i) rows.push_back(lit(Ty::Vec));
        return mk(E::Call, "matvec", {mk(E::Tensor, "", rows), sub(Ty::Vec)});
      }
      default: {
        std::vector<EP> args{sub(Ty::Vec), sub(Ty::Vec)};
        return mk(E::Call, use_fun(0), std::move(args));  // use_fun draws g0's body at its first use
      }
    }
  }
  // A real read out of tensors: an element; with funs, sum, dot and the program's h0.
  EP reduction(int depth, const Scope &s) {
    auto sub = [&] { return expr(Ty::Vec, depth - 1, s); };
    switch (r_.range(0, o_.funs ? 3 : 0)) {
      case 0: {
        EP x = sub();
        return mk(E::Index, std::to_string(r_.range(0, n_ - 1)), {x});
      }
      case 1: return mk(E::Call, "sum", {sub()});
      case 2: return mk(E::Call, "dot", {sub(), sub()});
      default: {
        std::vector<EP> args{sub(), sub()};
        return mk(E::Call, use_fun(1), std::move(args));
      }
    }
  }
  // The program's fun k (0: g0, to real[n]; 1: h0, to real), its body drawn at first use.
  std::string use_fun(int k) {
    shapes_.insert(k == 0 ? "fun to a tensor" : "fun to a real");
    if (!fun_body_[k]) {
      EP body = fun_expr(2);
      if (k == 0) fun_body_[k] = body;
      else fun_body_[k] = r_.coin() ? mk(E::Call, "sum", {body}) : mk(E::Call, "dot", {body, var("b")});
    }
    return k == 0 ? "g0" : "h0";
  }
  // A real[n] expression of a fun's inputs a and b.
  EP fun_expr(int depth) {
    if (depth <= 0 || r_.coin(20)) return var(r_.coin() ? "a" : "b");
    switch (r_.range(0, 5)) {
      case 0: return mk(E::Bin, "+", {fun_expr(depth - 1), fun_expr(depth - 1)});
      case 1: return mk(E::Bin, "-", {fun_expr(depth - 1), fun_expr(depth - 1)});
      case 2: return mk(E::Bin, "*", {fun_expr(depth - 1), fun_expr(depth - 1)});
      case 3: return mk(E::Bin, "*", {lit(Ty::Real), fun_expr(depth - 1)});
      case 4: {
        EP x = fun_expr(depth - 1);
        return mk(E::Call, r_.coin() ? "tanh" : "sigmoid", {x});
      }
      default: return mk(E::Call, "relu", {fun_expr(depth - 1)});
    }
  }
  // The stateful helper of type t: an accumulator restarted where its second input holds.
  std::string helper(Ty t) {
    used_helper_[static_cast<int>(t)] = true;
    return helper_name(t);
  }
  static const char *helper_name(Ty t) { return t == Ty::Real ? "acc_r" : t == Ty::Int ? "acc_i" : t == Ty::Bool ? "acc_b" : "acc_v"; }
  EP call(Ty t, int depth, const Scope &s) {
    auto c = std::make_shared<E>(E{E::Call, helper(t), true, "", {expr(t, depth - 1, s), expr(Ty::Bool, depth - 1, s)}});
    if (o_.resets && o_.dialect == Dialect::Rml && r_.coin(40)) {
      c->every = r_.coin() ? "c" : "d";
      shape(t, "instance reset");
    }
    return c;
  }
  EP expr(Ty t, int depth, const Scope &s) {
    if (depth <= 0) return atom(t, s);
    int choice = r_.range(0, 11);
    switch (choice) {
      case 0:
      case 1: return atom(t, s);
      case 2: return delayed(t, depth, s);
      case 3: return mk(E::If, "", {expr(Ty::Bool, depth - 1, s), expr(t, depth - 1, s), expr(t, depth - 1, s)});
      case 4:
        if (o_.clocks) return inline_merge(t, depth, s);
        break;
      case 5:
        if (o_.instances) return call(t, depth, s);
        break;
      case 6:
        if (s.allow_post && o_.post) {
          shape(t, "post");
          return mk(E::Post, "", {expr(t, depth - 1, s)});
        }
        break;
      case 7:
        if (o_.funs && o_.dialect == Dialect::Rml && t == Ty::Real) return mk(E::Call, "sigmoid", {expr(t, depth - 1, s)});
        break;
      case 8:
        if (tensors_ && t == Ty::Real) return reduction(depth, s);
        break;
      case 9:
        if (o_.lustre_types && t != Ty::Vec) return lustre_construct(t, depth, s);
        break;
      default: break;
    }
    return op(t, depth, s);
  }
  // One of the Lustre V6 constructs rml elaborates away, of type t (a scalar): a merge
  // over the enumeration's clocks, an array and a read of it (an index or an iterator), a
  // record's field, a node with a static parameter, a restarted instance.
  EP lustre_construct(Ty t, int depth, const Scope &s) {
    auto sub = [&](Ty u) { return expr(u, depth - 1, s); };
    std::string k = std::to_string(blocks_++);
    switch (r_.range(0, 4)) {
      case 0: {  // m = if .. then Lo else if .. then Mid else Hi; merge m (Lo -> e when Lo(m)) ..
        uses_mode_ = true;
        shapes_.insert("lustre enumeration clock");
        std::string m = "m" + k;
        locals_.push_back({m, Ty::Int, mk(E::If, "", {sub(Ty::Bool), var("Lo"), mk(E::If, "", {sub(Ty::Bool), var("Mid"), var("Hi")})}), ""});
        declared_type_[m] = "mode";
        std::vector<EP> branches;
        for (const char *c : {"Lo", "Mid", "Hi"}) {
          EP b = when(expr(t, 1, s), std::string(c) + "(" + m + ")", true);
          if (r_.coin(30)) {  // state on the value's clock
            b = mk(E::ArrowPre, "", {lit(t), b});
            shapes_.insert("lustre state on an enumeration clock");
          }
          branches.push_back(b);
        }
        return mk(E::MergeEnum, m, branches);
      }
      case 1: {  // a = [e, e, e] or e ^ 3, read by an index or an iterator
        if (t == Ty::Vec) break;
        shapes_.insert("lustre array");
        std::string a = "a" + k;
        EP init = r_.coin(70) ? mk(E::Tensor, "", {sub(t), sub(t), sub(t)}) : mk(E::Bin, "^", {sub(t), mk(E::Lit, "3")});
        locals_.push_back({a, t, init, ""});
        declared_type_[a] = std::string(type_name(t)) + "^3";
        switch (r_.range(0, 3)) {
          case 0: return mk(E::Index, std::to_string(r_.range(0, 2)), {var(a)});
          case 1: {
            shapes_.insert("lustre iterator");
            int ti = t == Ty::Real ? 0 : t == Ty::Int ? 1 : 2;
            uses_plus_[ti] = true;
            static const char *plus[] = {"plus_r", "plus_i", "plus_b"};
            return mk(E::Call, std::string("red<<") + plus[ti] + ", 3>>", {lit(t), var(a)});
          }
          case 2:
            shapes_.insert("lustre iterator");
            return mk(E::Call, std::string("fold<<3>> ") + (t == Ty::Bool ? "(or) " : "(+) "), {var(a), lit(t)});
          default:
            shapes_.insert("lustre iterator");
            return mk(E::Index, std::to_string(r_.range(0, 2)),
                      {mk(E::Call, std::string("map<<3>> ") + (t == Ty::Bool ? "(and) " : "(-) "), {var(a), var(a)})});
        }
      }
      case 2: {  // p = pair { n = e; b = e }; p.n, p.b
        if (t != Ty::Bool && t != numeric()) break;
        if (uses_pair_ && t != Ty::Bool && t != pair_ty_) break;
        if (!uses_pair_) pair_ty_ = t == Ty::Bool ? numeric() : t;
        if (pair_ty_ == Ty::Bool) break;
        uses_pair_ = true;
        shapes_.insert("lustre record");
        std::string p = "p" + k;
        locals_.push_back({p, Ty::Int, mk(E::Record, "pair", {sub(pair_ty_), sub(Ty::Bool)}), ""});
        declared_type_[p] = "pair";
        return var(p + (t == Ty::Bool ? ".b" : ".n"));
      }
      case 3:  // scale<<k>>(e): a node with a static parameter
        if (t != Ty::Int) break;
        uses_scale_ = true;
        shapes_.insert("lustre static parameter");
        {
          EP x = sub(Ty::Int);
          return mk(E::Call, "scale<<" + std::to_string(r_.range(1, 3)) + ">>", {x});
        }
      default:  // (restart acc every c)(e, r)
        if (!o_.instances) break;
        shapes_.insert("lustre restart");
        {
          std::vector<EP> args{sub(t), sub(Ty::Bool)};
          return mk(E::Call, std::string("(restart ") + helper(t) + " every " + (r_.coin() ? "c" : "d") + ")", std::move(args));
        }
    }
    return op(t, depth, s);
  }
  // `merge k (A when k) (B when not k)`, A possibly with state on the sampled clock.
  EP inline_merge(Ty t, int depth, const Scope &s) {
    std::string k = r_.coin() ? "c" : "d";
    EP on = when(expr(t, depth - 1, s), k, true);
    if (r_.coin(40)) {  // state on clock k: it holds between ticks
      on = mk(E::Fby, "", {lit(t), on});
      shape(t, "state on a sampled clock");
    }
    EP off = when(expr(t, depth - 1, s), k, false);
    return mk(E::Merge, k, {on, off});
  }
  // Locals on a sampled clock (declared with it in Lustre), possibly a second clock nested
  // in the first, merged back to the base clock as `name`.
  EP clocked_block(Ty t, const Scope &s) {
    std::string b = "b" + std::to_string(blocks_++) + "_";
    std::string k = r_.coin() ? "c" : "d";
    std::string on_k = "when " + k;
    // s_: the block's sampled value; h_: its state on clock k (the last sampled value).
    Ty u = t == Ty::Bool ? numeric() : t;
    if (u == Ty::Bool) u = t;
    shape(u, "state on a sampled clock");
    locals_.push_back({b + "s", u, when(expr(u, 1, s), k, true), on_k});
    EP held = mk(E::Fby, "", {lit(u), var(b + "s")});
    locals_.push_back({b + "h", u, held, on_k});
    EP inner;
    if (r_.coin(60)) {
      // A condition on clock k and a merge under it: a clock nested in k.
      EP cond;
      if (u == Ty::Bool) {
        cond = mk(E::Not, "", {var(b + "s")});
      } else {
        EP bound = lit(u == Ty::Vec ? Ty::Real : u);
        EP lhs = u == Ty::Vec ? mk(E::Index, "0", {var(b + "s")}) : var(b + "s");
        cond = mk(E::Bin, r_.coin() ? ">" : "<=", {lhs, bound});
      }
      locals_.push_back({b + "k", Ty::Bool, cond, on_k});
      shape(u, "nested clock");
      std::string kk = b + "k";
      EP yes = when(mk(E::Bin, u == Ty::Bool ? "and" : "+", {var(b + "s"), var(b + "h")}), kk, true);
      EP no = when(var(b + "h"), kk, false);
      EP m = mk(E::Merge, kk, {yes, no});
      if (o_.instances && r_.coin(50)) {
        m = std::make_shared<E>(E{E::Call, helper(u), true, "", {m, var(kk)}});  // an instance on clock k
        shape(u, "instance on a nested clock");
      }
      locals_.push_back({b + "m", u, m, on_k});
      inner = var(b + "m");
    } else {
      inner = mk(E::Bin, u == Ty::Bool ? "or" : "-", {var(b + "s"), var(b + "h")});
    }
    if (u != t) {  // the block computes a number; a bool block compares it
      locals_.push_back({b + "r", u, inner, on_k});
      inner = mk(E::Bin, ">=", {var(b + "r"), lit(u)});
    }
    return mk(E::Merge, k, {inner, when(expr(t, 1, s), k, false)});
  }

  std::string text(const GeneratedProgram &g, const std::vector<Local> &outputs) {
    const bool lus = o_.dialect == Dialect::Lustre;
    std::ostringstream s;
    s << (lus ? "-- " : "// ") << "generated by rml gen (" << (lus ? "Lustre dialect" : "R(ML)2") << ")\n";
    auto sig = [&](const std::vector<std::pair<std::string, Ty>> &vs) {
      std::string r;
      for (size_t i = 0; i < vs.size(); ++i) r += (i ? (lus ? "; " : ", ") : "") + vs[i].first + ": " + type_text(vs[i].second, n_);
      return r;
    };
    const std::string vec = type_text(Ty::Vec, n_);
    if (uses_k_) s << "const K: int = 3;\n\n";
    if (uses_r_) s << "const R: real = 1.5;\n\n";
    if (uses_mode_) s << "type mode = enum { Lo, Mid, Hi };\n\n";
    if (uses_pair_) s << "type pair = struct { n: " << type_name(pair_ty_) << "; b: bool };\n\n";
    static const char *plus_name[] = {"plus_r", "plus_i", "plus_b"};
    static const char *plus_type[] = {"real", "int", "bool"};
    for (int t = 0; t < 3; ++t)
      if (uses_plus_[t])
        s << "node " << plus_name[t] << "(acc: " << plus_type[t] << "; x: " << plus_type[t] << ") returns (o: " << plus_type[t]
          << ");\nlet\n  o = acc " << (t == 2 ? "or" : "+") << " x;\ntel\n\n";
    if (uses_scale_) s << "node scale<<const k: int>>(a: int) returns (o: int);\nlet\n  o = a * k;\ntel\n\n";
    for (int k = 0; k < 2; ++k)
      if (fun_body_[k])
        s << "fun " << (k == 0 ? "g0" : "h0") << "(a: " << vec << ", b: " << vec << ") : " << (k == 0 ? vec : "real")
          << " = " << print(*fun_body_[k], o_.dialect) << ";\n\n";
    for (int t = 0; t < 4; ++t) {
      if (!used_helper_[t]) continue;
      Ty ty = static_cast<Ty>(t);
      std::string n = helper_name(ty);
      std::string T = type_text(ty, n_);
      // The state through fby (not -> pre): no nil for rml-check's initialisation proof.
      std::string zero = ty == Ty::Real ? "0.0" : ty == Ty::Int ? "0" : ty == Ty::Bool ? "false" : "zeros([" + std::to_string(n_) + "])";
      std::string plus = ty == Ty::Bool ? " or " : " + ";
      std::string body = "o = if r then a else (a" + plus + "(" + zero + (lus ? " -> pre o" : " fby o") + "));";
      if (lus)
        s << "node " << n << "(a: " << T << "; r: bool) returns (o: " << T << ");\nlet\n  " << body << "\ntel\n\n";
      else
        s << "node " << n << "(a: " << T << ", r: bool) -> (o: " << T << ")\n  " << body << "\n\n";
    }
    std::vector<std::pair<std::string, Ty>> outs;
    for (auto &o : outputs) outs.push_back({o.name, o.type});
    if (lus) {
      s << "node main(" << sig(inputs_) << ") returns (" << sig(outs) << ");\n";
      if (!locals_.empty()) {
        s << "var\n";
        for (auto &l : locals_) {
          auto d = declared_type_.find(l.name);
          s << "  " << l.name << ": " << (d != declared_type_.end() ? d->second : type_text(l.type, n_))
            << (l.clock.empty() ? "" : " " + l.clock) << ";\n";
        }
      }
      s << "let\n";
    } else {
      s << "node main(" << sig(inputs_) << ") -> (" << sig(outs) << ")\n";
      if (g.within >= 0) s << "  assume always eventually c within " << g.within << ";\n";
    }
    for (auto &l : locals_) s << "  " << l.name << " = " << print(*l.rhs, o_.dialect) << ";\n";
    for (auto &l : outputs) s << "  " << l.name << " = " << print(*l.rhs, o_.dialect) << ";\n";
    if (lus) s << "tel\n";
    return s.str();
  }
};

}  // namespace

GeneratedProgram generate_program(uint64_t seed, const GenOptions &o) {
  GenOptions opts = o.dialect == Dialect::Lustre ? o.for_lustre() : o;
  return Generator(seed, opts).run();
}

std::string generate_trace(const GeneratedProgram &p, uint64_t seed, int cycles) {
  Rng r(seed ^ 0x5851F42D4C957F2Dull);
  std::ostringstream s;
  for (size_t i = 0; i < p.inputs.size(); ++i) s << (i ? "," : "") << p.inputs[i].name;
  s << "\n";
  int since_c = 0;
  for (int n = 0; n < cycles; ++n) {
    for (size_t i = 0; i < p.inputs.size(); ++i) {
      s << (i ? "," : "");
      const InputDecl &in = p.inputs[i];
      switch (in.type) {
        case Ty::Real: {
          int q = r.range(-32, 32);
          s << (q < 0 ? "-" : "") << quarters(q < 0 ? -q : q);
          break;
        }
        case Ty::Int: s << r.range(-20, 20); break;
        case Ty::Vec: {
          s << "\"[";
          for (int e = 0; e < in.length; ++e) {
            int q = r.range(-32, 32);
            s << (e ? ", " : "") << (q < 0 ? "-" : "") << quarters(q < 0 ? -q : q);
          }
          s << "]\"";
          break;
        }
        case Ty::Bool: {
          bool v = r.coin(in.name == "c" ? 40 : 50);
          if (in.name == "c" && p.within >= 0) {
            if (since_c >= p.within) v = true;  // the assumption: c within every within + 1 cycles
            since_c = v ? 0 : since_c + 1;
          }
          s << (v ? "T" : "F");
          break;
        }
      }
    }
    s << "\n";
  }
  return s.str();
}

}  // namespace rml::gen
