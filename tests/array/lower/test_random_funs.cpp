// Random well-typed `fun` bodies (surface text, type-directed: every construct of
// grammar.md §5's function layer, scalar broadcast, shadowing lets and lambda binders,
// calls into the prelude), checked by the front end, then lowered: lowering then
// ir::evaluate equals array::Evaluator on random arguments, bitwise.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include "lower_util.hpp"

using namespace rml;

namespace {

struct Ty {
  Scalar elem;
  // "z" (the fun's size variable), "2", "3". Not "n": the checker confuses a caller's size
  // variable with a callee's of the same name (`fun f(a: real[n, n], b: real[n, 2]) :
  // real[n, 2] = matmul(a, b);` is rejected; matmul's own names are m, k, n).
  std::vector<std::string> dims;
  bool operator==(const Ty &o) const { return elem == o.elem && dims == o.dims; }
};

std::string type_text(const Ty &t) {
  std::string s = scalar_name(t.elem);
  if (t.dims.empty()) return s;
  s += "[";
  for (size_t d = 0; d < t.dims.size(); ++d) s += (d ? ", " : "") + t.dims[d];
  return s + "]";
}

bool numeric(Scalar e) { return e != Scalar::Bool; }

class FunGen {
 public:
  // The fun's parameters (visible in the body unless shadowed).
  FunGen() {
    params_ = {{"a", {Scalar::Real, {"z"}}},         {"b", {Scalar::Real, {"z", "2"}}}, {"m", {Scalar::Real, {"2", "3"}}},
               {"x", {Scalar::Real, {}}},             {"i", {Scalar::Int, {}}},          {"k", {Scalar::Int, {"z"}}},
               {"p", {Scalar::Bool, {"z"}}},          {"q", {Scalar::Bool, {}}}};
    env_ = params_;
  }
  std::string signature(const Ty &result) const {
    std::string s = "fun f(";
    for (size_t k = 0; k < params_.size(); ++k) s += (k ? ", " : "") + params_[k].first + ": " + type_text(params_[k].second);
    return s + ") : " + type_text(result) + " =\n  ";
  }

  static Ty random_type(int max_rank) {
    Ty t{*rc::gen::element(Scalar::Real, Scalar::Real, Scalar::Int, Scalar::Bool), {}};
    int rank = *rc::gen::inRange(0, max_rank + 1);
    for (int d = 0; d < rank; ++d) t.dims.push_back(dim());
    return t;
  }

  std::string expr(const Ty &t, int depth) {
    if (depth <= 0) return leaf(t);
    for (;;) {
      switch (*rc::gen::inRange(0, 22)) {
        case 0: return leaf(t);
        case 1:  // arithmetic, one side possibly a broadcast scalar
          if (numeric(t.elem)) {
            std::string op = t.elem == Scalar::Real ? *rc::gen::element<std::string>("+", "-", "*", "/")
                                                    : *rc::gen::element<std::string>("+", "-", "*", "/", "div", "mod");
            Ty s = t;
            if (!t.dims.empty() && *rc::gen::arbitrary<bool>()) s.dims.clear();
            bool swap = *rc::gen::arbitrary<bool>();
            std::string l = expr(swap ? s : t, depth - 1), r = expr(swap ? t : s, depth - 1);
            return "(" + l + " " + op + " " + r + ")";
          }
          break;
        case 2:  // comparisons
          if (t.elem == Scalar::Bool) {
            Scalar e = *rc::gen::element(Scalar::Real, Scalar::Int, Scalar::Bool);
            std::string op = e == Scalar::Bool ? *rc::gen::element<std::string>("=", "<>")
                                               : *rc::gen::element<std::string>("=", "<>", "<", "<=", ">", ">=");
            Ty o{e, t.dims}, s{e, *rc::gen::arbitrary<bool>() ? std::vector<std::string>{} : t.dims};
            return "(" + expr(o, depth - 1) + " " + op + " " + expr(s, depth - 1) + ")";
          }
          break;
        case 3:  // logic
          if (t.elem == Scalar::Bool) {
            if (*rc::gen::arbitrary<bool>()) return "(not " + expr(t, depth - 1) + ")";
            std::string op = *rc::gen::element<std::string>("and", "or", "xor");
            return "(" + expr(t, depth - 1) + " " + op + " " + expr(t, depth - 1) + ")";
          }
          break;
        case 4:  // elementwise builtins
          if (t.elem == Scalar::Real) return *rc::gen::element<std::string>("exp", "log", "sqrt", "tanh", "abs") + "(" + expr(t, depth - 1) + ")";
          if (t.elem == Scalar::Int) return "abs(" + expr(t, depth - 1) + ")";
          break;
        case 5:
          if (numeric(t.elem)) {
            Ty s = t;
            if (*rc::gen::arbitrary<bool>()) s.dims.clear();
            return *rc::gen::element<std::string>("max", "min") + "(" + expr(t, depth - 1) + ", " + expr(s, depth - 1) + ")";
          }
          break;
        case 6:  // conversions
          if (t.elem == Scalar::Real) return "real(" + expr({Scalar::Int, t.dims}, depth - 1) + ")";
          if (t.elem == Scalar::Int) return *rc::gen::element<std::string>("int", "floor") + "(" + expr({Scalar::Real, t.dims}, depth - 1) + ")";
          break;
        case 7:  // strict if
          return "(if " + expr({Scalar::Bool, {}}, depth - 1) + " then " + expr(t, depth - 1) + " else " + expr(t, depth - 1) + ")";
        case 8: {  // let, sometimes shadowing a parameter with another type
          std::string name = *rc::gen::arbitrary<bool>() ? *rc::gen::element<std::string>("a", "x", "i", "p") : fresh("v");
          Ty u = random_type(2);
          std::string value = expr(u, depth - 1);
          env_.emplace_back(name, u);
          std::string body = expr(t, depth - 1);
          env_.pop_back();
          return "(let " + name + " = " + value + " in " + body + ")";
        }
        case 9: {  // index, in or out of bounds
          Ty base = t;
          base.dims.insert(base.dims.begin(), dim());
          return "(" + expr(base, depth - 1) + ")[" + index(depth - 1) + "]";
        }
        case 10:
          if (!t.dims.empty()) {  // build, the binder sometimes shadowing a variable
            Ty body{t.elem, std::vector<std::string>(t.dims.begin() + 1, t.dims.end())};
            std::string b = *rc::gen::arbitrary<bool>() ? *rc::gen::element<std::string>("i", "a", "k") : fresh("j");
            env_.emplace_back(b, Ty{Scalar::Int, {}});
            std::string e = expr(body, depth - 1);
            env_.pop_back();
            return "build(" + t.dims[0] + ", \\" + b + " => " + e + ")";
          }
          break;
        case 11:
          if (t.dims.size() >= 2 && *rc::gen::arbitrary<bool>()) {  // nested build over two dims
            Ty body{t.elem, std::vector<std::string>(t.dims.begin() + 2, t.dims.end())};
            std::string b1 = fresh("r"), b2 = fresh("c");
            env_.emplace_back(b1, Ty{Scalar::Int, {}});
            env_.emplace_back(b2, Ty{Scalar::Int, {}});
            std::string e = expr(body, depth - 1);
            env_.resize(env_.size() - 2);
            return "build([" + t.dims[0] + ", " + t.dims[1] + "], \\(" + b1 + ", " + b2 + ") => " + e + ")";
          }
          if (numeric(t.elem)) {  // sumOuter
            Ty src = t;
            src.dims.insert(src.dims.begin(), dim());
            return "sumOuter(" + expr(src, depth - 1) + ")";
          }
          break;
        case 12:
          if (numeric(t.elem)) {  // sum(t) or sum(#axis, t)
            if (t.dims.empty() && *rc::gen::arbitrary<bool>()) return "sum(" + expr(random_type_of(t.elem, 3), depth - 1) + ")";
            Ty src = t;
            size_t axis = *rc::gen::inRange<size_t>(0, t.dims.size() + 1);
            src.dims.insert(src.dims.begin() + static_cast<long>(axis), dim());
            return "sum(" + std::to_string(axis) + ", " + expr(src, depth - 1) + ")";
          }
          break;
        case 13:
          if (t.dims.size() >= 2) {  // tr or a generalised transpose
            Ty src = t;
            if (t.dims.size() >= 3 && *rc::gen::arbitrary<bool>()) {
              // out dim p = in dim perm[p], perm = [2, 0, 1]: in = [out1, out2, out0]
              src.dims = {t.dims[1], t.dims[2], t.dims[0]};
              src.dims.insert(src.dims.end(), t.dims.begin() + 3, t.dims.end());
              return "transpose([2, 0, 1], " + expr(src, depth - 1) + ")";
            }
            std::swap(src.dims[0], src.dims[1]);
            return "tr(" + expr(src, depth - 1) + ")";
          }
          break;
        case 14:
          if (!t.dims.empty()) {
            Ty inner{t.elem, std::vector<std::string>(t.dims.begin() + 1, t.dims.end())};
            return "replicate(" + t.dims[0] + ", " + expr(inner, depth - 1) + ")";
          }
          break;
        case 15:
          if (!t.dims.empty()) {  // gather / scatter with arithmetic index functions (in and out of bounds)
            bool scatter = numeric(t.elem) && *rc::gen::arbitrary<bool>();
            Ty src = t;
            src.dims[0] = dim();
            std::string b = fresh("g");
            env_.emplace_back(b, Ty{Scalar::Int, {}});
            std::string ix = index(depth - 1);
            env_.pop_back();
            std::string sh = "[";
            for (size_t d = 0; d < t.dims.size(); ++d) sh += (d ? ", " : "") + t.dims[d];
            sh += "]";
            return std::string(scatter ? "scatter(" : "gather(") + sh + ", " + expr(src, depth - 1) + ", \\(" + b + ") => [" + ix + "])";
          }
          break;
        case 16:
          if (!t.dims.empty() && t.dims[0] != "z") {  // literal array
            Ty inner{t.elem, std::vector<std::string>(t.dims.begin() + 1, t.dims.end())};
            int len = std::stoi(t.dims[0]);
            std::string s = "[";
            for (int q = 0; q < len; ++q) s += (q ? ", " : "") + expr(inner, depth - 1);
            return s + "]";
          }
          break;
        case 17:
          if (t.elem == Scalar::Int && t.dims.size() == 1) return "iota(" + t.dims[0] + ")";
          break;
        case 18:
          if (t.elem == Scalar::Real && t.dims.size() <= 1) {  // prelude calls
            if (t.dims.empty()) {
              std::string d = dim();
              std::string f = *rc::gen::element<std::string>("dot", "mse", "logsumexp", "maximum");
              if (f == "dot" || f == "mse") return f + "(" + expr({Scalar::Real, {d}}, depth - 1) + ", " + expr({Scalar::Real, {d}}, depth - 1) + ")";
              return f + "(" + expr({Scalar::Real, {d}}, depth - 1) + ")";
            }
            std::string d2 = dim();
            switch (*rc::gen::inRange(0, 4)) {
              case 0: return "matvec(" + expr({Scalar::Real, {t.dims[0], d2}}, depth - 1) + ", " + expr({Scalar::Real, {d2}}, depth - 1) + ")";
              case 1: return "softmax(" + expr(t, depth - 1) + ")";
              case 2: return "sigmoid(" + expr(t, depth - 1) + ")";
              default: return "relu(" + expr(t, depth - 1) + ")";
            }
          }
          if (t.elem == Scalar::Real && t.dims.size() == 2) {
            std::string k = dim();
            return "matmul(" + expr({Scalar::Real, {t.dims[0], k}}, depth - 1) + ", " + expr({Scalar::Real, {k, t.dims[1]}}, depth - 1) + ")";
          }
          break;
        case 19:
          if (t.elem == Scalar::Real && !t.dims.empty() && t.dims.size() <= 2) {  // reshape
            std::string flat = "(" + t.dims[0] + (t.dims.size() == 2 ? " * " + t.dims[1] : "") + ")";
            std::string sh = "[";
            for (size_t d = 0; d < t.dims.size(); ++d) sh += (d ? ", " : "") + t.dims[d];
            sh += "]";
            // real[a * b] is not a generated type: reshape a build over the product.
            std::string b = fresh("f");
            env_.emplace_back(b, Ty{Scalar::Int, {}});
            std::string e = expr({t.elem, {}}, depth - 1);
            env_.pop_back();
            return "reshape(" + sh + ", build(" + flat + ", \\" + b + " => " + e + "))";
          }
          break;
        case 20:
          if (t.elem == Scalar::Int && t.dims.empty()) return *rc::gen::element<std::string>("z", "(z * 2 - i)", "rank([2, z])", "prod([z, 3])");
          break;
        default:
          if (t.elem == Scalar::Real && t.dims.empty()) return "(-" + expr(t, depth - 1) + ")";
          break;
      }
    }
  }

 private:
  std::vector<std::pair<std::string, Ty>> params_, env_;
  int counter_ = 0;

  std::string fresh(const std::string &base) { return base + std::to_string(++counter_); }
  static std::string dim() { return *rc::gen::element<std::string>("z", "2", "3"); }
  static Ty random_type_of(Scalar e, int max_rank) {
    Ty t = random_type(max_rank);
    t.elem = e;
    return t;
  }

  // Visible variables of type t (the innermost binding of each name).
  std::vector<std::string> visible(const Ty &t) const {
    std::vector<std::string> out, seen;
    for (auto it = env_.rbegin(); it != env_.rend(); ++it) {
      if (std::count(seen.begin(), seen.end(), it->first)) continue;
      seen.push_back(it->first);
      if (it->second == t) out.push_back(it->first);
    }
    return out;
  }

  std::string literal(Scalar e) {
    switch (e) {
      case Scalar::Real: return *rc::gen::element<std::string>("0.0", "1.5", "2.0", "0.25", "3.0");
      case Scalar::Int: return *rc::gen::element<std::string>("0", "1", "2", "3", "7");
      case Scalar::Bool: return *rc::gen::element<std::string>("true", "false");
    }
    return "0";
  }

  std::string leaf(const Ty &t) {
    auto vars = visible(t);
    if (!vars.empty() && *rc::gen::inRange(0, 4) != 0) return *rc::gen::elementOf(vars);
    if (t.dims.empty()) return literal(t.elem);
    Ty inner{t.elem, std::vector<std::string>(t.dims.begin() + 1, t.dims.end())};
    return "replicate(" + t.dims[0] + ", " + leaf(inner) + ")";
  }

  std::string index(int depth) {
    // Small int expressions: in bounds mostly, sometimes out (negative or too large).
    if (depth <= 0 || *rc::gen::arbitrary<bool>()) {
      auto vars = visible({Scalar::Int, {}});
      if (!vars.empty() && *rc::gen::arbitrary<bool>()) return *rc::gen::elementOf(vars) + " " + *rc::gen::element<std::string>("+ 1", "- 1", "* 2", "mod 3", "+ 0");
      return *rc::gen::element<std::string>("0", "1", "2", "-1", "z", "z - 1");
    }
    return expr({Scalar::Int, {}}, depth);
  }
};

RC_GTEST_PROP(RandomFuns, LoweringThenEvaluateEqualsTheEvaluator, ()) {
  FunGen g;
  Ty result = FunGen::random_type(2);
  int depth = *rc::gen::inRange(1, 5);
  std::string text = g.signature(result) + g.expr(result, depth) + ";\n";
  RC_LOG() << text;
  auto r = run_frontend("random.rml", text);
  RC_LOG() << render_all(r->diags);
  RC_ASSERT(r->checked_ok);  // the generator writes well-typed funs only
  const CheckedProgram &cp = r->checked;
  test::FunCase c = test::gen_fun_case(cp, "f", 3);
  RC_LOG() << "arguments: " << c.str() << "\n";
  std::string why_ref, why_low;
  auto want = test::reference_value(cp, "f", c, why_ref);
  RC_LOG() << "evaluator: " << (want ? want->str() : why_ref) << "\n";
  ir::Term term;
  auto got = test::lowered_value(cp, "f", c, why_low, &term);
  RC_LOG() << "lowered: " << (got ? got->str() : why_low) << "\n";
  RC_ASSERT(want.has_value() == got.has_value());
  if (want) {
    RC_LOG() << "term: " << ir::print(term) << "\n";
    RC_ASSERT(test::same_values(*got, *want));  // bitwise, any NaN = any NaN
  }
}

}  // namespace
