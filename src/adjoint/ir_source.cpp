#include "adjoint/ir_source.hpp"

#include <cmath>
#include <cstdio>
#include <functional>
#include <map>
#include <set>

#include "ops/ops.hpp"

namespace rml::adjoint {
namespace {

std::string join_ints(const std::vector<int64_t> &v) {
  std::string s;
  for (size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s;
}

// A real literal that reads back as the same double.
std::string real_literal(double v) {
  if (!std::isfinite(v)) throw IrSourceError("the constant " + std::to_string(v) + " has no R(ML)² spelling");
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  std::string s = buf;
  if (s.find_first_of(".en") == std::string::npos) s += ".0";
  return v < 0 || (v == 0 && std::signbit(v)) ? "(" + s + ")" : s;
}

std::string elem_literal(const array::Tensor &t, size_t k) {
  switch (t.elem) {
    case Scalar::Real: return real_literal(t.r[k]);
    case Scalar::Int: return t.i[k] < 0 ? "(" + std::to_string(t.i[k]) + ")" : std::to_string(t.i[k]);
    case Scalar::Bool: return t.i[k] ? "true" : "false";
  }
  return "";
}

class Printer {
 public:
  explicit Printer(const std::set<std::string> &inputs) : inputs_(inputs) {}

  // Inputs keep their names; every other name (let and lambda binders) gets a plain one.
  std::string name(const std::string &n) {
    if (inputs_.count(n)) return n;
    auto it = names_.find(n);
    if (it != names_.end()) return it->second;
    std::string s;
    do s = "v" + std::to_string(++counter_);
    while (inputs_.count(s));
    return names_[n] = s;
  }

  std::string term(const ir::Term &t) {
    using ir::Kind;
    auto kid = [&](size_t k) { return term(t->kids[k]); };
    switch (t->kind) {
      case Kind::Const: return constant(*t->value);
      case Kind::Var: return name(t->name);
      case Kind::Let: {
        std::string x = name(t->name);
        return "(let " + x + " = " + kid(0) + " in " + kid(1) + ")";
      }
      case Kind::Cond: return "(if " + kid(0) + " then " + kid(1) + " else " + kid(2) + ")";
      case Kind::Unary: {
        const auto &row = ops::row(t->un);
        if (t->un == ops::UnOp::Neg) return "(-" + kid(0) + ")";
        if (t->un == ops::UnOp::Not) return "(not " + kid(0) + ")";
        if (row.spelling != ops::Spelling::Builtin)
          throw IrSourceError("the operator '" + std::string(row.name) + "' has no R(ML)² spelling");
        return std::string(row.surface) + "(" + kid(0) + ")";
      }
      case Kind::Binary: {
        const auto &row = ops::row(t->bin);
        if (row.spelling == ops::Spelling::Operator) return "(" + kid(0) + " " + std::string(row.name) + " " + kid(1) + ")";
        if (row.spelling != ops::Spelling::Builtin)
          throw IrSourceError("the operator '" + std::string(row.name) + "' has no R(ML)² spelling");
        return std::string(row.name) + "(" + kid(0) + ", " + kid(1) + ")";
      }
      case Kind::Index: {
        std::string s = "(" + kid(0) + ")[";
        for (size_t k = 1; k < t->kids.size(); ++k) s += (k > 1 ? ", " : "") + kid(k);
        return s + "]";
      }
      case Kind::SumOuter: return "sumOuter(" + kid(0) + ")";
      case Kind::Gather:
      case Kind::Scatter: {
        // Without binders (the surface has no `\() =>`): a gather is an index, a scatter
        // scatters a one-element outer dimension.
        if (t->binders.empty() && t->kind == Kind::Gather) {
          std::string s = "(" + kid(0) + ")[";
          for (size_t k = 0; k < t->ix.size(); ++k) s += (k ? ", " : "") + term(t->ix[k]);
          return s + "]";
        }
        if (t->binders.empty()) {
          std::string s = "scatter([" + join_ints(t->shape_arg) + "], replicate(1, " + kid(0) + "), " +
                          lambda_head({fresh_binder()}) + "[";
          for (size_t k = 0; k < t->ix.size(); ++k) s += (k ? ", " : "") + term(t->ix[k]);
          return s + "])";
        }
        std::string s = std::string(t->kind == Kind::Gather ? "gather" : "scatter") + "([" + join_ints(t->shape_arg) + "], " +
                        kid(0) + ", " + lambda_head(t->binders) + "[";
        for (size_t k = 0; k < t->ix.size(); ++k) s += (k ? ", " : "") + term(t->ix[k]);
        return s + "])";
      }
      case Kind::FromList: {
        std::string s = "[";
        for (size_t k = 0; k < t->kids.size(); ++k) s += (k ? ", " : "") + kid(k);
        return s + "]";
      }
      case Kind::Replicate: return "replicate(" + std::to_string(t->k) + ", " + kid(0) + ")";
      case Kind::Transpose: return "transpose([" + join_ints(t->shape_arg) + "], " + kid(0) + ")";
      case Kind::Reshape: return "reshape([" + join_ints(t->shape_arg) + "], " + kid(0) + ")";
      case Kind::Build1: return "build(" + std::to_string(t->k) + ", " + lambda_head({t->name}) + kid(0) + ")";
      case Kind::Iota: return "iota(" + std::to_string(t->k) + ")";
      case Kind::Share: return kid(0);
    }
    throw IrSourceError("internal: unknown IR construct");
  }

 private:
  std::string fresh_binder() { return "$unused" + std::to_string(++counter_); }
  std::string lambda_head(const std::vector<std::string> &binders) {
    if (binders.size() == 1) return "\\" + name(binders[0]) + " => ";
    std::string s = "\\(";
    for (size_t k = 0; k < binders.size(); ++k) s += (k ? ", " : "") + name(binders[k]);
    return s + ") => ";
  }

  // Scalars as literals; a tensor of one repeated value as a replicate, others as a
  // list reshaped to their shape.
  std::string constant(const array::Tensor &v) {
    size_t n = v.numel();
    if (v.shape.empty()) return elem_literal(v, 0);
    bool uniform = true;
    for (size_t k = 1; k < n && uniform; ++k) uniform = elem_literal(v, k) == elem_literal(v, 0);
    std::string flat;
    if (uniform && n > 0) {
      flat = "replicate(" + std::to_string(n) + ", " + elem_literal(v, 0) + ")";
    } else {
      flat = "[";
      for (size_t k = 0; k < n; ++k) flat += (k ? ", " : "") + elem_literal(v, k);
      flat += "]";
      if (n == 0) throw IrSourceError("an empty constant tensor has no R(ML)² spelling");
    }
    return v.shape.size() == 1 ? flat : "reshape([" + join_ints(v.shape) + "], " + flat + ")";
  }

  const std::set<std::string> &inputs_;
  std::map<std::string, std::string> names_;
  int counter_ = 0;
};

}  // namespace

std::string surface_type(const ir::Type &t) {
  std::string s = scalar_name(t.elem);
  return t.shape.empty() ? s : s + "[" + join_ints(t.shape) + "]";
}

std::string fun_source(const std::string &name, const ir::Program &p, size_t output) {
  std::set<std::string> inputs;
  for (auto &in : p.inputs) inputs.insert(in.first);
  // The binds the output needs, found from the output backwards.
  std::set<std::string> needed;
  for (auto &v : ir::free_vars(p.outputs.at(output))) needed.insert(v);
  for (size_t k = p.binds.size(); k-- > 0;)
    if (needed.count(p.binds[k].first))
      for (auto &v : ir::free_vars(p.binds[k].second)) needed.insert(v);
  Printer pr(inputs);
  std::string s = "fun " + name + "(";
  for (size_t k = 0; k < p.inputs.size(); ++k) s += (k ? ", " : "") + p.inputs[k].first + ": " + surface_type(p.inputs[k].second);
  s += ") : " + surface_type(p.outputs[output]->type) + " =\n";
  for (auto &[x, u] : p.binds)
    if (needed.count(x)) {
      std::string rhs = pr.term(u);
      s += "  let " + pr.name(x) + " = " + rhs + " in\n";
    }
  return s + "  " + pr.term(p.outputs[output]) + ";\n";
}

}  // namespace rml::adjoint
