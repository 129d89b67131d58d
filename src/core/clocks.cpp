#include "core/clocks.hpp"

#include <functional>
#include <map>
#include <set>

namespace rml::core {

std::string Clocks::str(int t) const {
  const ClockTerm &c = terms[t];
  switch (c.kind) {
    case ClockTerm::Base: return "base";
    case ClockTerm::Never: return "never";
    case ClockTerm::On: return str(c.parent) + (c.positive ? " on " : " on not ") + c.cond;
  }
  return "?";
}

namespace {

// Union-find arena of clock terms with variables.
struct Solver {
  struct Node {
    enum Kind : uint8_t { Var, Base, Never, On };
    Kind kind = Var;
    int parent = -1;  // On
    bool positive = true;
    std::string cond;
    int link = -1;      // union-find
    int instance = 0;   // Var: default instance
  };
  std::vector<Node> nodes;
  const Program &p;
  std::unordered_map<std::string, const Equation *> def;
  std::unordered_map<std::string, int> var_node;
  std::vector<int> inst_base;
  std::vector<ClockClash> clashes;

  explicit Solver(const Program &prog) : p(prog) {
    for (auto &eq : p.equations) def[eq.lhs] = &eq;
    nodes.push_back(make(Node::Base));
    nodes.push_back(make(Node::Never));
    for (size_t i = 0; i < p.instances.size(); ++i) inst_base.push_back(i == 0 ? 0 : fresh(static_cast<int>(i)));
  }

  static Node make(Node::Kind k) {
    Node n;
    n.kind = k;
    return n;
  }
  int fresh(int instance) {
    Node n = make(Node::Var);
    n.instance = instance;
    nodes.push_back(n);
    return static_cast<int>(nodes.size()) - 1;
  }
  int find(int a) {
    while (nodes[a].link >= 0) {
      if (nodes[nodes[a].link].link >= 0) nodes[a].link = nodes[nodes[a].link].link;
      a = nodes[a].link;
    }
    return a;
  }

  // Follows copies `x = y` so that aliases sample the same condition.
  std::string alias(const std::string &x) {
    std::string v = x;
    for (int guard = 0; guard < 1000; ++guard) {
      auto it = def.find(v);
      if (it == def.end() || it->second->prim != Prim::Copy) break;
      v = it->second->args[0];
    }
    return v;
  }
  // `k on b x`, with literal simplification: on a literal equal to b it is k, otherwise never.
  int on(int k, bool positive, const std::string &x) {
    std::string c = alias(x);
    auto it = def.find(c);
    if (it != def.end() && it->second->prim == Prim::Const && it->second->lit.type == Scalar::Bool)
      return it->second->lit.b == positive ? k : 1;
    Node n = make(Node::On);
    n.parent = k;
    n.positive = positive;
    n.cond = c;
    nodes.push_back(n);
    return static_cast<int>(nodes.size()) - 1;
  }
  int ck(const std::string &v, int instance) {
    auto it = var_node.find(v);
    if (it != var_node.end()) return it->second;
    int n = fresh(instance);
    var_node[v] = n;
    return n;
  }

  bool occurs(int var, int t) {
    t = find(t);
    if (t == var) return true;
    return nodes[t].kind == Node::On && occurs(var, nodes[t].parent);
  }
  bool unify(int a, int b) {
    a = find(a);
    b = find(b);
    if (a == b) return true;
    if (nodes[a].kind == Node::Var) {
      if (occurs(a, b)) return false;
      nodes[a].link = b;
      return true;
    }
    if (nodes[b].kind == Node::Var) return unify(b, a);
    if (nodes[a].kind != nodes[b].kind) return false;
    if (nodes[a].kind != Node::On) return true;
    if (nodes[a].positive != nodes[b].positive || nodes[a].cond != nodes[b].cond) return false;
    return unify(nodes[a].parent, nodes[b].parent);
  }
  std::string show(int t) {
    t = find(t);
    switch (nodes[t].kind) {
      case Node::Var: return "'ck" + std::to_string(t);
      case Node::Base: return "base";
      case Node::Never: return "never";
      case Node::On: return show(nodes[t].parent) + (nodes[t].positive ? " on " : " on not ") + nodes[t].cond;
    }
    return "?";
  }
  void constrain(int got, int want, Span span) {
    std::string g = show(got), w = show(want);
    if (!unify(got, want))
      clashes.push_back({span, "clock clash: this expression has clock " + g + ", but is expected to have clock " + w});
  }

  void run() {
    // Declared clocks first: they are what the programmer wrote. The main node's before
    // the instances': its inputs' clocks are what the environment follows (A_P), so
    // where a call clashes with them, the call is the clash.
    std::vector<const DeclaredClock *> declared;
    for (auto &dc : p.declared)
      if (dc.instance == 0) declared.push_back(&dc);
    for (auto &dc : p.declared)
      if (dc.instance != 0) declared.push_back(&dc);
    for (const DeclaredClock *dcp : declared) {
      const DeclaredClock &dc = *dcp;
      if (dc.inferred) continue;  // Heptagon: a declaration without a clock is inferred
      // Lustre's reading (Lustre V6, Heptagon, Vélus): `x: t when c` is on clock(c) on c,
      // whatever clock c is on; a chain `when c1 when c2` needs c2 on clock(c1) on c1.
      // (It once read `base on c`, which refuted valid programs with `c: bool when b`.)
      int k = inst_base[dc.instance];
      for (size_t i = 0; i < dc.on.size(); ++i) {
        auto &[pos, c] = dc.on[i];
        // `when c` refines the clock c itself is on: without this, a term `κ on c` could
        // exist with c on another clock (found by the soundness proof).
        if (i == 0) k = ck(c, dc.instance);
        else constrain(ck(c, dc.instance), k, dc.span);
        k = on(k, pos, c);
      }
      constrain(ck(dc.var, dc.instance), k, dc.span);
    }
    // `f(args) every c`: c is on the clock of the instance it restarts.
    for (size_t i = 1; i < p.instances.size(); ++i)
      if (!p.instances[i].reset.empty())
        constrain(ck(p.instances[i].reset, p.instances[i].parent), inst_base[i], p.instances[i].reset_span);
    for (auto &v : p.inputs) constrain(ck(v.name, 0), ck(v.name, 0), {});
    for (auto &eq : p.equations) {
      int y = ck(eq.lhs, eq.instance);
      auto arg = [&](size_t i) { return ck(eq.args.at(i), eq.instance); };
      switch (eq.prim) {
        case Prim::Const: break;  // takes the clock of its context
        case Prim::Copy:
        case Prim::Pre:
        case Prim::Post: constrain(arg(0), y, eq.span); break;
        case Prim::Apply:
          for (size_t i = 0; i < eq.args.size(); ++i) constrain(arg(i), y, eq.span);
          break;
        case Prim::Fby:
        case Prim::Arrow:
          constrain(arg(0), y, eq.span);
          constrain(arg(1), y, eq.span);
          break;
        case Prim::When: {
          int k = arg(1);
          constrain(arg(0), k, eq.span);
          constrain(y, on(k, eq.positive, eq.args[1]), eq.span);
          break;
        }
        case Prim::Merge: {
          int k = arg(0);
          constrain(arg(1), on(k, true, eq.args[0]), eq.span);
          constrain(arg(2), on(k, false, eq.args[0]), eq.span);
          constrain(y, k, eq.span);
          break;
        }
      }
    }
  }

  // Free variables: an instance's free base is its caller's base; other free clocks are
  // their instance's base (a constant no one samples is present when its node runs).
  std::set<int> closing_;  // terms being closed: a free base defined through itself
  int close(int t, std::map<int, int> &memo, std::vector<ClockTerm> &out) {
    t = find(t);
    if (auto it = memo.find(t); it != memo.end()) return it->second;
    if (!closing_.insert(t).second) return 0;  // a cycle through free variables: base
    struct Done { std::set<int> &s; int t; ~Done() { s.erase(t); } } done{closing_, t};
    int r = 0;
    switch (nodes[t].kind) {
      case Node::Base: r = 0; break;
      case Node::Never: r = 1; break;
      case Node::Var: {
        int inst = nodes[t].instance;
        int b = find(inst_base[inst]);
        if (b == t) {
          int parent = p.instances[inst].parent;
          r = parent < 0 ? 0 : close(inst_base[parent], memo, out);
        } else {
          r = close(inst_base[inst], memo, out);
        }
        break;
      }
      case Node::On: {
        int parent = close(nodes[t].parent, memo, out);
        ClockTerm c{ClockTerm::On, parent, nodes[t].positive, nodes[t].cond};
        // Share equal terms.
        r = -1;
        for (size_t i = 2; i < out.size(); ++i)
          if (out[i].kind == ClockTerm::On && out[i].parent == parent && out[i].positive == c.positive &&
              out[i].cond == c.cond)
            r = static_cast<int>(i);
        if (r < 0) {
          out.push_back(c);
          r = static_cast<int>(out.size()) - 1;
        }
        break;
      }
    }
    memo[t] = r;
    return r;
  }
};

}  // namespace

Clocks infer_clocks(const Program &p) {
  Solver s(p);
  s.run();
  Clocks c;
  ClockTerm base, never;
  never.kind = ClockTerm::Never;
  c.terms.push_back(base);
  c.terms.push_back(never);
  std::map<int, int> memo;
  auto all = [&](const std::vector<Var> &vs) {
    for (auto &v : vs) c.of_var[v.name] = s.close(s.ck(v.name, 0), memo, c.terms);
  };
  all(p.inputs);
  for (auto &eq : p.equations) c.of_var[eq.lhs] = s.close(s.ck(eq.lhs, eq.instance), memo, c.terms);
  all(p.outputs);
  all(p.locals);
  c.clashes = std::move(s.clashes);
  return c;
}

}  // namespace rml::core
