// Plain scalar dual numbers (array-ad.md §2; seed 004 Figs. 3 and 5), applied to the
// original term with arrays expanded to their elements ("D[Array sh R] = Array sh D[R]",
// §3). Independent of the Delta tape, D, bot and the IR's passes: it shares only the
// reference evaluator's operators, so it is an oracle for the array paths.
#include <cmath>
#include <map>

#include "array/ad/ad.hpp"
#include "ops/derivative.hpp"
#include "ops/scalar_ops.hpp"

namespace rml::ad {

using ir::BinOp;
using ir::Elem;
using ir::IrError;
using ir::Kind;
using ir::Tensor;
using ir::Term;
using ir::Type;
using ir::UnOp;

namespace {

// Delta = Zero | Input (input, element) | Add | Scale r | Share ID, as a node vector.
enum class SK : uint8_t { Zero, Input, Add, Scale, Share };
struct SNode {
  SK kind;
  double r = 0;
  int32_t a = -1, b = -1;
  int64_t id = 0;  // Share: from genID
  int input = -1;
  int64_t elem = -1;
};

struct SVal {
  Tensor p;
  std::vector<int32_t> d;  // one Delta per element when real
};

class ScalarAD {
 public:
  std::vector<SNode> nodes{SNode{SK::Zero}};  // node 0 is Zero
  int64_t next_id = 1;
  std::vector<int64_t> *trace = nullptr;

  void log(int64_t v) {
    if (trace) trace->push_back(v);
  }
  void log(const std::vector<int64_t> &vs) {
    if (trace) trace->insert(trace->end(), vs.begin(), vs.end());
  }
  Tensor discrete(const Term &t) {
    Tensor v = ir::evaluate(t, penv);
    log(v.i);
    return v;
  }

  int32_t push(SNode n) {
    nodes.push_back(n);
    return static_cast<int32_t>(nodes.size() - 1);
  }
  int32_t add(int32_t a, int32_t b) { return push(SNode{SK::Add, 0, a, b}); }
  int32_t scale(double r, int32_t a) { return push(SNode{SK::Scale, r, a}); }
  int32_t share(int32_t a) {
    SNode n{SK::Share, 0, a};
    n.id = next_id++;  // after the operands' IDs: Invariant 1
    return push(n);
  }

  void bind(const std::string &x, SVal v) {
    penv.emplace_back(x, v.p);
    env.emplace_back(x, std::move(v));
  }
  void unbind() {
    penv.pop_back();
    env.pop_back();
  }

  SVal go(const Term &t) {
    // Int and Bool values carry no Delta: the reference evaluator computes them.
    if (t->type.elem != Elem::Real && t->kind != Kind::Var && t->kind != Kind::Let) return {discrete(t), {}};
    switch (t->kind) {
      case Kind::Const: return {*t->value, std::vector<int32_t>(t->value->numel(), 0)};
      case Kind::Var:
        for (auto it = env.rbegin(); it != env.rend(); ++it)
          if (it->first == t->name) return it->second;
        throw IrError("ad.scalar: unbound variable '" + t->name + "'");
      case Kind::Let: {
        bind(t->name, go(t->kids[0]));
        SVal v = go(t->kids[1]);
        unbind();
        return v;
      }
      case Kind::Cond: {
        bool b = discrete(t->kids[0]).i.at(0) != 0;
        SVal u = go(t->kids[1]), v = go(t->kids[2]);  // strict
        return b ? u : v;
      }
      case Kind::Unary: return unary(t);
      case Kind::Binary: return binary(t);
      case Kind::SumOuter: {
        SVal a = go(t->kids[0]);
        SVal out{ir::evaluate(ir::sum_outer(ir::constant(a.p)), {}), {}};
        size_t inner = out.p.numel(), rows = static_cast<size_t>(a.p.shape[0]);
        for (size_t r = 0; r < inner; ++r) {
          if (rows == 0) {
            out.d.push_back(0);
            continue;
          }
          int32_t acc = a.d[r];
          for (size_t j = 1; j < rows; ++j) acc = add(acc, a.d[j * inner + r]);
          out.d.push_back(share(acc));
        }
        return out;
      }
      case Kind::Scatter: return scatter(t);
      case Kind::Index:
      case Kind::Gather:
      case Kind::Transpose:
      case Kind::Replicate:
      case Kind::Reshape: return moved(t);
      case Kind::FromList: {
        std::vector<Term> ps;
        std::vector<int32_t> ds;
        for (auto &k : t->kids) {
          SVal v = go(k);
          ps.push_back(ir::constant(v.p));
          ds.insert(ds.end(), v.d.begin(), v.d.end());
        }
        return {ir::evaluate(ir::from_list(ps), {}), ds};
      }
      case Kind::Build1: {
        Tensor p = Tensor::zeros(Elem::Real, t->type.shape);
        std::vector<int32_t> ds;
        size_t inner = static_cast<size_t>(ir::numel(t->kids[0]->type.shape));
        for (int64_t j = 0; j < t->k; ++j) {
          bind(t->name, {Tensor::integer(j), {}});
          SVal v = go(t->kids[0]);
          unbind();
          std::copy(v.p.r.begin(), v.p.r.end(), p.r.begin() + static_cast<long>(static_cast<size_t>(j) * inner));
          ds.insert(ds.end(), v.d.begin(), v.d.end());
        }
        return {p, ds};
      }
      case Kind::Share: {
        if (auto it = shared.find(t->k); it != shared.end()) return it->second;
        SVal v = go(t->kids[0]);
        shared.emplace(t->k, v);
        return v;
      }
      case Kind::Iota: break;
    }
    throw IrError("ad.scalar: unexpected node");
  }

  std::vector<std::pair<std::string, SVal>> env;
  ir::Bindings penv;  // the primals of env, for the reference evaluator
  std::map<int64_t, SVal> shared;

 private:
  SVal unary(const Term &t) {
    SVal a = go(t->kids[0]);
    Tensor p = ir::apply_unary(t->un, a.p);
    if (t->un == UnOp::ToReal) return {p, std::vector<int32_t>(p.numel(), 0)};
    std::vector<int32_t> ds;
    // The table's derivative recipe (ops/derivative.hpp) on doubles: the same
    // definition D instantiates with IR builders.
    struct Doubles {
      double constant(double c) { return c; }
      double filled(double c) { return c; }
      double add(double x, double y) { return x + y; }
      double sub(double x, double y) { return x - y; }
      double mul(double x, double y) { return x * y; }
      double div(double x, double y) { return x / y; }
      double neg(double x) { return -x; }
      double apply(UnOp g, double x) { return ops::real_unary(g, x); }
      double step(double x) { return x >= 0 || std::isnan(x) ? 1.0 : 0.0; }
      double emit(double x) { return x; }
      [[noreturn]] void missing(const ops::UnaryRow &r) {
        throw IrError(std::string("ad.scalar: no derivative for ") + std::string(r.name) +
                      (r.missing_why.empty() ? "" : " (" + std::string(r.missing_why) + ")"));
      }
    } alg;
    for (size_t e = 0; e < p.numel(); ++e) {
      double dx = ops::derivative(alg, t->un, a.p.r[e], p.r[e]);
      ds.push_back(share(scale(dx, a.d[e])));
    }
    return {p, ds};
  }

  SVal binary(const Term &t) {
    SVal a = go(t->kids[0]), b = go(t->kids[1]);
    Tensor p = ir::apply_binary(t->bin, a.p, b.p);
    std::vector<int32_t> ds;
    for (size_t e = 0; e < p.numel(); ++e) {
      double x = a.p.r[e], y = b.p.r[e];
      int32_t da = a.d[e], db = b.d[e], d = 0;  // d: set by every case below (the others throw)
      switch (t->bin) {
        case BinOp::Add: d = add(da, db); break;
        case BinOp::Sub: d = add(da, scale(-1, db)); break;
        case BinOp::Mul: d = add(scale(y, da), scale(x, db)); break;
        case BinOp::Div: d = add(scale(1 / y, da), scale(-x / (y * y), db)); break;
        case BinOp::Max:
        case BinOp::Min: {
          // The first operand takes the derivative on ties (and NaN), as in D.
          bool first = (t->bin == BinOp::Max ? x >= y : y >= x) || std::isnan(x - y);
          log(first);
          d = add(scale(first ? 1 : 0, da), scale(first ? 0 : 1, db));
          break;
        }
        case BinOp::IDiv:
        case BinOp::Mod:
        case BinOp::Eq:
        case BinOp::Ne:
        case BinOp::Lt:
        case BinOp::Le:
        case BinOp::Gt:
        case BinOp::Ge:
        case BinOp::And:
        case BinOp::Or:
        case BinOp::Xor:
        case BinOp::Implies:
        case BinOp::WrapUnsigned:
        case BinOp::WrapSigned:
        case BinOp::BitAnd:
        case BinOp::BitOr:
        case BinOp::ShiftLeft:
        case BinOp::ShiftRight: throw IrError(std::string("ad.scalar: no derivative for ") + ir::op_name(t->bin));  // results not real
      }
      ds.push_back(share(d));
    }
    return {p, ds};
  }

  // Index, gather, transpose, replicate, reshape only move elements: the same operation
  // applied to the (1-based) element positions says where each result element comes
  // from (0: out of bounds, a constant zero).
  SVal moved(const Term &t) {
    SVal a = go(t->kids[0]);
    std::vector<Term> kids = t->kids;
    kids[0] = ir::constant(a.p);
    Tensor p = ir::evaluate(ir::with_kids(t, kids, t->ix), penv);
    Tensor pos = Tensor::zeros(Elem::Int, a.p.shape);
    for (size_t e = 0; e < pos.numel(); ++e) pos.i[e] = static_cast<int64_t>(e) + 1;
    kids[0] = ir::constant(pos);
    Tensor from = ir::evaluate(ir::with_kids(t, kids, t->ix), penv);
    log(from.i);
    std::vector<int32_t> ds;
    for (auto f : from.i) ds.push_back(f == 0 ? 0 : a.d[static_cast<size_t>(f - 1)]);
    return {p, ds};
  }

  SVal scatter(const Term &t) {
    SVal a = go(t->kids[0]);
    Tensor p = ir::evaluate(ir::scatter(t->shape_arg, ir::constant(a.p), t->binders, t->ix), penv);
    size_t m1 = t->binders.size(), m2 = t->ix.size();
    ir::Shape dom(a.p.shape.begin(), a.p.shape.begin() + static_cast<long>(m1));
    size_t inner = static_cast<size_t>(ir::numel(ir::Shape(a.p.shape.begin() + static_cast<long>(m1), a.p.shape.end())));
    std::vector<std::vector<int32_t>> contrib(p.numel());
    if (ir::numel(dom) > 0) {
      std::vector<int64_t> at(m1, 0);
      size_t src = 0;
      do {
        for (size_t q = 0; q < m1; ++q) penv.emplace_back(t->binders[q], Tensor::integer(at[q]));
        int64_t off = 0;
        bool in = true;
        for (size_t q = 0; q < m2; ++q) {
          int64_t v = ir::evaluate(t->ix[q], penv).i.at(0);
          if (v < 0 || v >= t->shape_arg[q]) in = false;
          off = off * t->shape_arg[q] + v;
        }
        penv.resize(penv.size() - m1);
        log(in ? off : -1);
        if (in)
          for (size_t r = 0; r < inner; ++r) contrib[static_cast<size_t>(off) * inner + r].push_back(a.d[src + r]);
        src += inner;
      } while (ir::next_index(at, dom));
    }
    std::vector<int32_t> ds;
    for (auto &c : contrib) {
      if (c.empty()) {
        ds.push_back(0);
        continue;
      }
      int32_t acc = c[0];
      for (size_t j = 1; j < c.size(); ++j) acc = add(acc, c[j]);
      ds.push_back(share(acc));
    }
    return {p, ds};
  }
};

// Fig. 5: grad, dfrag and accum as Maps; backprop takes the highest pending ID.
struct Backprop {
  const std::vector<SNode> &nodes;
  ScalarStats *stats;
  std::map<std::pair<int, int64_t>, double> grad;
  std::map<int64_t, int32_t> dfrag;
  std::map<int64_t, double> accum;

  void eval(double c, int32_t d) {
    if (stats) ++stats->eval_calls;
    const SNode &n = nodes[static_cast<size_t>(d)];
    switch (n.kind) {
      case SK::Zero: return;
      case SK::Input: grad[{n.input, n.elem}] += c; return;
      case SK::Add:
        eval(c, n.a);
        eval(c, n.b);
        return;
      case SK::Scale: eval(c * n.r, n.a); return;
      case SK::Share:
        dfrag[n.id] = n.a;
        accum[n.id] += c;
        return;
    }
  }

  void run() {
    while (!accum.empty()) {
      auto it = std::prev(accum.end());  // maxViewWithKey
      int64_t id = it->first;
      double c = it->second;
      accum.erase(it);
      int32_t d = dfrag.at(id);
      dfrag.erase(id);
      if (stats) ++stats->body_visits.at(static_cast<size_t>(id));
      eval(c, d);
    }
  }
};

}  // namespace

Gradient scalar_gradient(const Term &t, const Inputs &inputs, const std::vector<Tensor> &args, const Tensor &ctg, ScalarStats *stats) {
  if (t->type.elem != Elem::Real) throw IrError("ad.scalar: the objective has type " + t->type.str() + " (real expected)");
  if (ctg.elem != Elem::Real || ctg.shape != t->type.shape) throw IrError("ad.scalar: cotangent of the wrong type");
  if (args.size() != inputs.size()) throw IrError("ad.scalar: wrong number of arguments");
  ir::typecheck(t, inputs);
  ScalarAD ad;
  if (stats) ad.trace = stats->trace;
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (Type{args[k].elem, args[k].shape} != inputs[k].second) throw IrError("ad.scalar: argument '" + inputs[k].first + "' of the wrong type");
    SVal v{args[k], {}};
    if (args[k].elem == Elem::Real)
      for (size_t e = 0; e < args[k].numel(); ++e) {
        SNode n{SK::Input};
        n.input = static_cast<int>(k);
        n.elem = static_cast<int64_t>(e);
        v.d.push_back(ad.push(n));
      }
    ad.bind(inputs[k].first, std::move(v));
  }
  SVal out = ad.go(t);
  if (stats) {
    stats->shares = static_cast<size_t>(ad.next_id - 1);
    stats->body_visits.assign(static_cast<size_t>(ad.next_id), 0);
  }
  Backprop bp{ad.nodes, stats, {}, {}, {}};
  for (size_t e = 0; e < out.d.size(); ++e) bp.eval(ctg.r[e], out.d[e]);
  bp.run();
  Gradient g{out.p, {}};
  for (size_t k = 0; k < inputs.size(); ++k) {
    if (inputs[k].second.elem != Elem::Real) continue;
    Tensor gk = Tensor::zeros(Elem::Real, inputs[k].second.shape);
    for (auto &[key, v] : bp.grad)
      if (key.first == static_cast<int>(k)) gk.r[static_cast<size_t>(key.second)] += v;
    g.grads.push_back(std::move(gk));
  }
  return g;
}

}  // namespace rml::ad
