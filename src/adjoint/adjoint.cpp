#include "adjoint/adjoint.hpp"

#include <map>
#include <set>
#include <unordered_map>

#include "adjoint/activity.hpp"
#include "adjoint/apply_vjp.hpp"
#include "adjoint/ir_source.hpp"
#include "array/lower/lower.hpp"
#include "driver/elaborated.hpp"
#include "syntax/diag.hpp"

namespace rml::adjoint {
namespace {

using core::Equation;
using core::Prim;

// Names no declaration of the file (or the prelude) and no variable of the node uses.
class Fresh {
 public:
  void take(const std::string &n) { used_.insert(n); }
  std::string operator()(const std::string &hint) {
    std::string s = hint;
    for (int k = 1; used_.count(s); ++k) s = hint + "_" + std::to_string(k);
    used_.insert(s);
    return s;
  }

 private:
  std::set<std::string> used_;
};

// The zero of a real type: `0.0`, or `zeros([2, 3])`.
std::string zero_of(const Type &t) {
  auto it = lower::concrete_type(t, {});
  if (!it || it->shape.empty()) return "0.0";
  std::string s;
  for (size_t k = 0; k < it->shape.size(); ++k) s += (k ? ", " : "") + std::to_string(it->shape[k]);
  return "zeros([" + s + "])";
}

// Equations whose operands' cotangents are written directly (without a gradient fun):
// the linear operators and products of operands of one type.
bool direct_rule(const Equation &eq, const std::function<const Type &(const std::string &)> &type_of) {
  if (eq.prim != Prim::Apply) return true;
  switch (eq.op) {
    case core::ApplyOp::If: return true;
    case core::ApplyOp::Unary: return eq.un == ops::UnOp::Neg;
    case core::ApplyOp::Binary: {
      if (eq.bin != ops::BinOp::Add && eq.bin != ops::BinOp::Sub && eq.bin != ops::BinOp::Mul) return false;
      const Type &a = type_of(eq.args[0]), &b = type_of(eq.args[1]);
      return a.elem == b.elem && a.shape == b.shape;
    }
    default: return false;
  }
}

struct Deriver {
  const FrontendResult &fr;
  const core::Program &p;
  const core::Clocks &clocks;
  Options opts;
  std::unordered_map<std::string, std::string> printed;
  std::unordered_map<std::string, const Type *> types;
  std::map<std::string, std::string> params;
  Activity act;
  Fresh fresh;
  std::map<std::string, std::string> adj;  // active variable -> its cotangent variable
  // Contributions to each cotangent, in the order of the equations, each with the
  // forward equation it comes from (for the provenance comment).
  std::map<std::string, std::vector<std::pair<std::string, std::string>>> contrib;
  std::vector<std::pair<std::string, std::string>> extra_locals;  // (name, the variable whose clock it has)
  std::vector<std::string> extra_eqs;

  const Type &type_of(const std::string &v) const { return *types.at(v); }
  std::string N(const std::string &v) const {
    auto it = printed.find(v);
    return it == printed.end() ? v : it->second;
  }
  std::string where(const Equation &eq) const {
    if (!eq.span.valid()) return N(eq.lhs);
    auto [line, col] = eq.span.file->line_col(eq.span.begin);
    (void)col;
    return N(eq.lhs) + " (line " + std::to_string(line) + ")";
  }
  void add(const std::string &x, const Equation &from, std::string term) {
    if (!act.active(x)) return;
    contrib[x].emplace_back(std::move(term), where(from));
  }
  // A fresh bool local true at the first tick of the clock where it is used.
  std::string first_tick(const Equation &eq) {
    std::string f = fresh("adj_first");
    extra_locals.emplace_back(f, eq.lhs);
    extra_eqs.push_back(f + " = true -> false;");
    return f;
  }

  // The rule of each primitive: what the equation y = f(x..) adds to the cotangent of
  // each active operand x, given dy (semantics/adjoint.md, one row per primitive).
  void rule(const Equation &eq, const ApplyGradient *g) {
    const std::string dy = adj.at(eq.lhs);
    const std::string Z = zero_of(eq.type);
    auto a = [&](size_t k) { return eq.args.at(k); };
    switch (eq.prim) {
      case Prim::Const: return;
      case Prim::Copy:
        // A parameter being trained is a leaf (its init gets no cotangent); a frozen one
        // is the identity it is in the forward node.
        if (params.count(eq.lhs) && opts.params == ParamMode::Update) return;
        add(a(0), eq, dy);
        return;
      case Prim::When:  // y = x when c: dx = merge c dy 0 (the adjoint of sampling is a merge with zero)
        if (opts.mutation == Mutation::WhenDropped) return;
        add(a(0), eq, eq.positive ? "merge " + N(a(1)) + " " + dy + " " + Z : "merge " + N(a(1)) + " " + Z + " " + dy);
        return;
      case Prim::Merge:  // y = merge c a b: da = dy when c, db = dy when not c
        add(a(1), eq, dy + " when " + N(a(0)));
        add(a(2), eq, dy + " when not " + N(a(0)));
        return;
      case Prim::Fby: {  // y = a fby b: db = post dy (the adjoint of a delay is an advance); da at the first tick
        add(a(1), eq, opts.mutation == Mutation::FbyIdentity ? dy : "post " + dy);
        if (act.active(a(0))) {
          std::string f = first_tick(eq);
          add(a(0), eq, "merge " + f + " (" + dy + " when " + f + ") " + Z);
        }
        return;
      }
      case Prim::Pre:  // y = pre x: dx = post dy
        add(a(0), eq, "post " + dy);
        return;
      case Prim::Arrow: {  // y = a -> b: a's cotangent at the first tick, b's at the later ones
        if (!act.active(a(0)) && !act.active(a(1))) return;
        std::string f = first_tick(eq);
        add(a(0), eq, "merge " + f + " (" + dy + " when " + f + ") " + Z);
        add(a(1), eq, "merge " + f + " " + Z + " (" + dy + " when not " + f + ")");
        return;
      }
      case Prim::Post:  // y = post x: dx = 0 fby dy (the adjoint of an advance is a delay)
        add(a(0), eq, opts.mutation == Mutation::PostIdentity ? dy : Z + " fby " + dy);
        return;
      case Prim::Apply: break;
    }
    if (g) {  // a gradient fun per active operand: dx_k += d_f_k(operands.., dy)
      std::string call_args;
      for (auto &o : g->operands) call_args += N(o) + ", ";
      for (auto &[x, fun] : g->funs)
        if (opts.mutation != Mutation::GradientFunDropped || x != g->funs.front().first) add(x, eq, fun + "(" + call_args + dy + ")");
      return;
    }
    switch (eq.op) {
      case core::ApplyOp::If:  // lazy in dy: the unselected branch's cotangent is never read
        add(a(1), eq, "merge " + N(a(0)) + " (" + dy + " when " + N(a(0)) + ") " + zero_of(type_of(a(1))));
        add(a(2), eq, "merge " + N(a(0)) + " " + zero_of(type_of(a(2))) + " (" + dy + " when not " + N(a(0)) + ")");
        return;
      case core::ApplyOp::Unary:  // -x
        add(a(0), eq, "(-" + dy + ")");
        return;
      case core::ApplyOp::Binary:
        if (eq.bin == ops::BinOp::Add) {
          add(a(0), eq, dy);
          add(a(1), eq, dy);
        } else if (eq.bin == ops::BinOp::Sub) {
          add(a(0), eq, dy);
          add(a(1), eq, "(-" + dy + ")");
        } else {  // a * b of one type
          add(a(0), eq, dy + " * " + N(a(1)));
          add(a(1), eq, N(a(0)) + " * " + dy);
        }
        return;
      default: throw AdjointError(eq.span, "adjoint.internal", "no rule for this application");
    }
  }
};

std::string clock_annotation(const core::Clocks &clocks, const std::string &v,
                             const std::function<std::string(const std::string &)> &N) {
  auto it = clocks.of_var.find(v);
  if (it == clocks.of_var.end()) return "";
  std::vector<std::string> on;
  for (int t = it->second; t >= 0 && clocks.terms[t].kind == core::ClockTerm::On; t = clocks.terms[t].parent)
    on.push_back((clocks.terms[t].positive ? " when " : " when not ") + N(clocks.terms[t].cond));
  std::string s;
  for (auto k = on.rbegin(); k != on.rend(); ++k) s += *k;
  return s;
}

}  // namespace

Result derive(const FrontendResult &fr, const std::string &path, const std::string &text, const std::string &main,
              const Options &opts) {
  driver::Elaborated el = driver::elaborate(fr.checked, main);
  const core::Program &p = el.prog;
  Deriver d{fr, p, el.clocks, opts, core::printed_names(p), {}, {}, {}, {}, {}, {}, {}, {}};
  for (auto *vs : {&p.inputs, &p.outputs, &p.locals})
    for (auto &v : *vs) d.types[v.name] = &v.type;
  for (auto &[v, n] : d.printed) d.fresh.take(n);
  // Every global name (nodes, funs, constants, types, enumeration constructors, the
  // prelude's): a derived name never shadows one.
  for (auto &[name, sig] : fr.checked.sigs) d.fresh.take(name);
  for (auto &[name, k] : fr.checked.decls) d.fresh.take(name);
  for (auto &[name, e] : fr.checked.enum_ctors) d.fresh.take(name);
  auto N = [&](const std::string &v) { return d.N(v); };
  auto param_var = [&](const std::string &printed) -> const std::string & {
    for (auto &[v, init] : d.params)
      if (d.N(v) == printed) return v;
    throw AdjointError({}, "adjoint.internal", "no parameter " + printed);
  };
  auto type_of = [&](const std::string &v) -> const Type & { return d.type_of(v); };

  // The interface: real inputs and outputs on the node's base clock (their cotangents are
  // on the clock of bp).
  Span node_span = p.instances.at(0).call;
  for (auto *vs : {&p.inputs, &p.outputs})
    for (auto &v : *vs)
      if (is_real(v.type) && !clock_annotation(el.clocks, v.name, N).empty())
        throw AdjointError(node_span, "adjoint.interface-clock",
                           "'" + N(v.name) + "' is a real " + (vs == &p.inputs ? "input" : "output") +
                               " on a sampled clock; rml adjoint derives nodes whose real inputs and outputs are on "
                               "the base clock (wrap the node: sample inside it)");

  d.params = find_params(p);
  d.act = analyse(p, d.params, opts.params == ParamMode::Update);
  for (auto *vs : {&p.inputs, &p.outputs, &p.locals})
    for (auto &v : *vs)
      if (d.act.active(v.name)) d.adj[v.name] = d.fresh("adj_" + N(v.name));

  Result res;
  res.node = d.fresh(opts.name.empty() ? main + "_adjoint" : opts.name);
  res.bp = d.fresh("bp");
  for (auto &v : p.outputs)
    if (is_real(v.type)) res.seeds.emplace_back(N(v.name), d.fresh("d_" + N(v.name)));
  for (auto &v : p.inputs)
    if (is_real(v.type)) res.gradients.emplace_back(N(v.name), d.fresh("d_" + N(v.name)));
  for (auto &[v, init] : d.params) {
    res.params.push_back(N(v));
    if (opts.params == ParamMode::Gradient) res.param_gradients.emplace_back(N(v), d.fresh("d_" + N(v)));
  }

  // Gradient funs for the applications without a direct rule.
  std::vector<ApplyRequest> requests;
  std::vector<size_t> request_of(p.equations.size(), SIZE_MAX);
  for (size_t k = 0; k < p.equations.size(); ++k) {
    const Equation &eq = p.equations[k];
    if (!d.act.active(eq.lhs) || direct_rule(eq, type_of)) continue;
    ApplyRequest r{&eq, {}};
    for (auto &x : eq.args)
      if (d.act.active(x)) r.wanted.insert(x);
    if (r.wanted.empty()) continue;
    request_of[k] = requests.size();
    requests.push_back(std::move(r));
  }
  std::string funs;
  auto grads = derive_apply_gradients(requests, path, text, type_of, [&](const std::string &h) { return d.fresh(h); }, funs);

  // Seeds: an output's cotangent is the caller's at the cycles of bp, zero elsewhere.
  for (size_t k = 0; k < p.outputs.size(); ++k) {
    const auto &v = p.outputs[k];
    if (!d.act.active(v.name)) continue;
    for (auto &[out, seed] : res.seeds)
      if (out == N(v.name))
        d.contrib[v.name].emplace_back("merge " + res.bp + " " + seed + " " + zero_of(v.type), "the output " + out);
  }
  for (size_t k = 0; k < p.equations.size(); ++k) {
    const Equation &eq = p.equations[k];
    if (!d.act.active(eq.lhs)) continue;
    d.rule(eq, request_of[k] == SIZE_MAX ? nullptr : &grads[request_of[k]]);
  }

  // The derived node.
  std::string node;
  auto decl = [&](const core::Var &v) { return N(v.name) + ": " + type_str(v.type) + clock_annotation(el.clocks, v.name, N); };
  node += "// The training program of '" + main + "', derived by rml adjoint (structural reverse AD over streams,\n";
  node += "// semantics/adjoint.md). Every cotangent is pre-scaled, as in the paper: pass\n";
  node += "// d_y = -learning_rate * dL/dy at the cycles where " + res.bp + " is true; " +
          (opts.params == ParamMode::Update ? std::string("each param p of the\n// forward node becomes p = init fby (p + adj_p)")
                                            : std::string("each param p of the\n// forward node keeps its value and d_p is its gradient")) +
          ", and d_x is the gradient of input x.\n";
  node += "// Forward equations are the elaborated node's (rml parse --normalized); adj_v is the\n";
  node += "// cotangent of v, summed over the equations that read v (named in the comments).\n";
  node += "node " + res.node + "(";
  std::string sep;
  for (auto &v : p.inputs) node += sep + decl(v), sep = ", ";
  node += sep + res.bp + ": bool";
  for (auto &[out, seed] : res.seeds)
    for (auto &v : p.outputs)
      if (N(v.name) == out) node += ", " + seed + ": " + type_str(v.type) + " when " + res.bp;
  node += ")\n  -> (";
  sep.clear();
  for (auto &v : p.outputs) node += sep + decl(v), sep = ", ";
  for (auto &[in, g] : res.gradients)
    for (auto &v : p.inputs)
      if (N(v.name) == in) node += sep + g + ": " + type_str(v.type) + " when " + res.bp, sep = ", ";
  for (auto &[prm, g] : res.param_gradients)
    node += sep + g + ": " + type_str(d.type_of(param_var(prm))) + " when " + res.bp, sep = ", ";
  node += ")\n";
  std::string locals;
  for (auto &v : p.locals) locals += "  " + decl(v) + ";\n";
  for (auto *vs : {&p.inputs, &p.outputs, &p.locals})
    for (auto &v : *vs)
      if (d.adj.count(v.name))  // a local's clock is the base clock unless declared: v's clock
        locals += "  " + d.adj.at(v.name) + ": " + type_str(v.type) + clock_annotation(el.clocks, v.name, N) + ";\n";
  for (auto &[n, on] : d.extra_locals) locals += "  " + n + ": bool" + clock_annotation(el.clocks, on, N) + ";\n";
  if (!locals.empty()) node += "var\n" + locals;
  node += "let\n";
  for (auto &a : p.assumptions)
    node += std::string("  assume always ") + (a.eventually ? "eventually " : "") + N(a.var) +
            (a.within >= 0 ? " within " + std::to_string(a.within) : "") + ";\n";
  // Provenance: the equations of each node instance under a comment naming it and its
  // call; the backward pass in the reverse order of the forward equations.
  auto header = [&](int inst) {
    if (inst == 0) return std::string("  // -- ") + main + "\n";
    const core::Instance &in = p.instances.at(static_cast<size_t>(inst));
    std::string inst_path = in.path.substr(0, in.path.size() - 1);
    std::string where = in.call.valid() ? ", called at line " + std::to_string(in.call.file->line_col(in.call.begin).first) : "";
    return "  // -- instance " + inst_path + where + "\n";
  };
  node += "  // forward\n";
  int last = -1;
  for (auto &eq : p.equations) {
    if (eq.instance != last) node += header(last = eq.instance);
    auto pit = d.params.find(eq.lhs);
    if (pit != d.params.end() && d.act.active(eq.lhs) && opts.params == ParamMode::Update)
      node += "  " + N(eq.lhs) + " = " + N(pit->second) + " fby (" + N(eq.lhs) + " + " + d.adj.at(eq.lhs) +
              ");  // param: a gradient step\n";
    else
      node += "  " + N(eq.lhs) + " = " + core::print_rhs(eq, N) + ";\n";
  }
  node += "  // backward (cotangents, in the reverse order of the forward equations)\n";
  auto backward = [&](const std::string &v, const Type &t) {
    auto &cs = d.contrib[v];
    std::string rhs, from;
    for (size_t k = 0; k < cs.size(); ++k) {
      bool simple = cs[k].first.find(' ') == std::string::npos;
      rhs += (k ? " + " : "") + (simple || cs.size() == 1 ? cs[k].first : "(" + cs[k].first + ")");
      from += (k ? ", " : "") + cs[k].second;
    }
    if (cs.empty()) rhs = zero_of(t), from = "nothing reads it";
    node += "  " + d.adj.at(v) + " = " + rhs + ";  // " + from + "\n";
  };
  last = -1;
  for (auto it = p.equations.rbegin(); it != p.equations.rend(); ++it) {
    if (!d.adj.count(it->lhs)) continue;
    if (it->instance != last) node += header(last = it->instance);
    backward(it->lhs, it->type);
  }
  if (last != 0) node += header(0);
  for (auto &v : p.inputs)
    if (d.adj.count(v.name)) backward(v.name, v.type);
  for (auto &e : d.extra_eqs) node += "  " + e + "\n";
  for (auto &[in, g] : res.gradients)
    for (auto &v : p.inputs)
      if (N(v.name) == in)
        node += "  " + g + " = " + (d.adj.count(v.name) ? d.adj.at(v.name) : zero_of(v.type)) + " when " + res.bp + ";\n";
  for (auto &[prm, g] : res.param_gradients) {
    // A parameter on a sampled clock (inside a when branch): its gradient is zero where
    // the parameter is absent, merged up to the base clock before it is sampled on bp.
    const std::string &v = param_var(prm);
    std::string e = d.adj.count(v) ? d.adj.at(v) : zero_of(d.type_of(v));
    auto it = el.clocks.of_var.find(v);
    for (int t = it == el.clocks.of_var.end() ? 0 : it->second; t >= 0 && el.clocks.terms[t].kind == core::ClockTerm::On;
         t = el.clocks.terms[t].parent) {
      const auto &term = el.clocks.terms[t];
      const std::string Z = zero_of(d.type_of(v));
      e = "merge " + N(term.cond) + " " + (term.positive ? "(" + e + ") " + Z : Z + " (" + e + ")");
    }
    node += "  " + g + " = (" + e + ") when " + res.bp + ";\n";
  }
  node += "tel\n";

  res.derived = (funs.empty() ? "" : "// Gradient funs (symbolic reverse AD of each application, rml adjoint).\n" + funs + "\n") + node;
  res.source = text + (text.empty() || text.back() == '\n' ? "" : "\n") + "\n" + res.derived;
  // The derived text must check: anything else is rml adjoint's bug.
  auto check = run_frontend(path, res.source);
  if (!check->checked_ok)
    throw AdjointError(node_span, "adjoint.internal",
                       "the derived program does not check (a bug of rml adjoint):\n" + render_all(check->diags) + "\n" +
                           res.derived);
  return res;
}

}  // namespace rml::adjoint
