#include "driver/grad_args.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <nlohmann/json.hpp>

#include "array/lower/lower.hpp"
#include "oracle/json_input.hpp"

namespace rml {

std::string join_names(const std::vector<std::string> &v) {
  std::string s;
  for (auto &x : v) s += (s.empty() ? "" : ", ") + x;
  return s.empty() ? "(none)" : s;
}

namespace {

// Where a value of the --at file is ("FILE:LINE:COL"), from its path in the document.
using Locator = std::function<std::string(const json_input::Path &)>;

// A tensor from nested JSON lists: regular (no ragged lists), every leaf of the element
// kind `elem` (reals accept integers and the strings "nan", "inf", "-inf"). A type
// variable's kind (`elem` empty) is inferred: all bools, all integers, else reals.
// The dims that nested lists show along their first elements; an empty list ends them
// (`[]` for a real[0, 3] shows only the 0).
std::vector<int64_t> json_dims(const nlohmann::json &j) {
  std::vector<int64_t> shape;
  for (const nlohmann::json *p = &j; p->is_array(); p = &(*p)[0]) {
    shape.push_back(static_cast<int64_t>(p->size()));
    if (p->empty()) break;
  }
  return shape;
}

// `shape`: json_dims(j), completed after an empty list (from the signature). `base` is
// the path of `j` in its document, for `where`.
array::Tensor json_tensor(const nlohmann::json &j, std::optional<Scalar> elem, const std::vector<int64_t> &shape,
                          const std::string &what, const json_input::Path &base, const Locator &where) {
  std::vector<const nlohmann::json *> leaves;
  std::vector<json_input::Path> paths;  // of the leaves, below `base`
  auto pointer = [](const json_input::Path &at) {  // "/1/0", for messages
    std::string s;
    for (auto &step : at) s += "/" + step;
    return s;
  };
  auto located = [&](const json_input::Path &at, const std::string &m) {
    json_input::Path full = base;
    full.insert(full.end(), at.begin(), at.end());
    return GradArgError(where(full), m);
  };
  json_input::Path at;
  // Depth: the shape's rank, the document's at most json_input::kMaxDepth.
  std::function<void(const nlohmann::json &, size_t)> walk = [&](const nlohmann::json &v, size_t d) {
    std::string here = what + (at.empty() ? "" : " at " + pointer(at));
    if (d < shape.size()) {
      if (!v.is_array())
        throw located(at, here + " is " + json_input::shown(v) + " where a list of " + std::to_string(shape[d]) +
                              " elements is expected (the lists are not regular)");
      if (static_cast<int64_t>(v.size()) != shape[d])
        throw located(at, here + " has " + std::to_string(v.size()) + " element" + (v.size() == 1 ? "" : "s") + " where " +
                              std::to_string(shape[d]) + " are expected (ragged lists)");
      for (size_t q = 0; q < v.size(); ++q) {
        at.push_back(std::to_string(q));
        walk(v[q], d + 1);
        at.pop_back();
      }
      return;
    }
    if (v.is_array()) throw located(at, here + " is a list where a scalar is expected (ragged lists)");
    leaves.push_back(&v);
    paths.push_back(at);
  };
  walk(j, 0);
  auto is_real = [](const nlohmann::json &v) {
    return v.is_number() || (v.is_string() && (v == "nan" || v == "inf" || v == "-inf"));
  };
  auto is_int = [](const nlohmann::json &v) { return v.is_number_integer() && !(v.is_number_unsigned() && v.get<uint64_t>() > INT64_MAX); };
  if (!elem) {
    bool all_bool = std::all_of(leaves.begin(), leaves.end(), [](auto *v) { return v->is_boolean(); });
    bool all_int = std::all_of(leaves.begin(), leaves.end(), [&](auto *v) { return is_int(*v); });
    elem = !leaves.empty() && all_bool ? Scalar::Bool : all_int ? Scalar::Int : Scalar::Real;
  }
  array::Tensor t = array::Tensor::zeros(*elem, shape);
  for (size_t q = 0; q < leaves.size(); ++q) {
    const nlohmann::json &v = *leaves[q];
    bool ok = *elem == Scalar::Real ? is_real(v) : *elem == Scalar::Int ? is_int(v) : v.is_boolean();
    if (!ok)
      throw located(paths[q], what + " is " + (shape.empty() ? "" : "a tensor of ") + scalar_name(*elem) + ", but " +
                                  (paths[q].empty() ? "it" : "its element " + pointer(paths[q])) + " is " + json_input::shown(v));
    if (*elem == Scalar::Real) t.r[q] = v.is_string() ? (v == "nan" ? NAN : v == "inf" ? INFINITY : -INFINITY) : v.get<double>();
    else if (*elem == Scalar::Int) t.i[q] = v.get<int64_t>();
    else t.i[q] = v.get<bool>() ? 1 : 0;
  }
  return t;
}

// A static value from JSON (an int, or a list of ints for a shape) or from --size text;
// `base` is its path in the document, for `where`.
StaticValue json_static(const nlohmann::json &v, const Param &p, const json_input::Path &base, const Locator &where) {
  auto size = [&](const nlohmann::json &x, const json_input::Path &at) -> int64_t {
    if (!x.is_number_integer() || x.get<int64_t>() < 0 || x.get<int64_t>() > kMaxStaticSize)
      throw GradArgError(where(at), "static '" + p.name + "': " + json_input::shown(x) + " is not a size (an integer in 0..2^31)");
    return x.get<int64_t>();
  };
  if (p.static_kind == StaticValue::Int) {
    if (v.is_array()) throw GradArgError(where(base), "static '" + p.name + "' is an int, given the list " + json_input::shown(v));
    return StaticValue::of_int(Poly::constant(size(v, base)));
  }
  if (!v.is_array()) throw GradArgError(where(base), "static '" + p.name + "' is a shape (a list of sizes), given " + json_input::shown(v));
  Shape sh;
  for (size_t k = 0; k < v.size(); ++k) {
    json_input::Path at = base;
    at.push_back(std::to_string(k));
    sh.push_back(Poly::constant(size(v[k], at)));
  }
  return StaticValue::of_shape(sh);
}

// The static names of a fun: const parameters, then implicit size and shape variables.
std::vector<std::string> static_names(const Signature &sig) {
  std::vector<std::string> out;
  for (auto &p : sig.inputs)
    if (p.is_const) out.push_back(p.name);
  out.insert(out.end(), sig.size_vars.begin(), sig.size_vars.end());
  out.insert(out.end(), sig.shape_vars.begin(), sig.shape_vars.end());
  return out;
}

}  // namespace

GradArgs read_grad_sizes(const std::vector<std::string> &sizes, const CheckedProgram &cp, const std::string &fun) {
  const Signature &sig = cp.sigs.at(fun);
  lower::FunParams fp = lower::fun_params(cp, fun);
  GradArgs out;
  // The static names from --size NAME=N or NAME=[d, ...]; then every argument type must be concrete.
  StaticSubst s;
  std::vector<std::string> names = static_names(sig);
  for (auto &text : sizes) {
    size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0) throw GradArgError("--size", "'" + text + "' is not NAME=N or NAME=[N, ...]");
    std::string name = text.substr(0, eq);
    nlohmann::json v;
    try {
      v = json_input::parse("--size", text.substr(eq + 1));
    } catch (json_input::Error &e) {
      throw GradArgError("--size", "'" + text + "' is not NAME=N or NAME=[N, ...] (" + e.message + ")");
    }
    if (std::find(names.begin(), names.end(), name) == names.end())
      throw GradArgError("--size", "'" + name + "' is not a static name of '" + fun + "' (its static names: " + join_names(names) + ")");
    Param as;
    as.name = name;
    bool is_shape = std::count(sig.shape_vars.begin(), sig.shape_vars.end(), name) > 0;
    for (auto *p : fp.statics)
      if (p->name == name) is_shape = p->static_kind == StaticValue::ShapeV;
    as.static_kind = is_shape ? StaticValue::ShapeV : StaticValue::Int;
    StaticValue sv = json_static(v, as, {}, [](const json_input::Path &) { return std::string("--size"); });
    if (is_shape) s.shapes[name] = sv.shape;
    else s.sizes[name] = sv.size;
  }
  std::vector<std::string> missing;
  for (auto &n : names)
    if (!s.sizes.count(n) && !s.shapes.count(n)) missing.push_back(n);
  for (auto *p : fp.statics) {
    if (!s.sizes.count(p->name) && !s.shapes.count(p->name)) continue;
    out.statics.push_back(p->static_kind == StaticValue::Int ? StaticValue::of_int(s.sizes[p->name])
                                                             : StaticValue::of_shape(s.shapes[p->name]));
  }
  for (auto *p : fp.values) {
    if (p->type.kind != Type::Tensor)
      throw GradArgError("--size", "argument '" + p->name + "' has the type variable " + p->type.tyvar + ": give its value with --at");
    auto t = lower::concrete_type(p->type, s);
    if (!t || out.statics.size() != fp.statics.size())
      throw GradArgError("--size", "the static names of '" + fun + "' are not all fixed: give --size for " + join_names(missing) +
                                       " (or the arguments with --at ARGS.json)");
    out.types.push_back(*t);
  }
  if (out.statics.size() != fp.statics.size())
    throw GradArgError("--size", "the static names of '" + fun + "' are not all fixed: give --size for " + join_names(missing));
  return out;
}

GradArgs read_grad_args(const std::string &file, const std::string &text, const CheckedProgram &cp, const std::string &fun) {
  const Signature &sig = cp.sigs.at(fun);
  lower::FunParams fp = lower::fun_params(cp, fun);
  GradArgs out;
  nlohmann::json j;
  try {
    j = json_input::parse(file, text);
  } catch (json_input::Error &e) {
    throw GradArgError(e.where, e.message);
  }
  Locator where = [&](const json_input::Path &p) { return json_input::where(file, text, p); };
  if (!j.is_object()) throw GradArgError(where({}), "expected a JSON object: argument name -> value, found " + json_input::shown(j));
  std::vector<std::string> params, missing, extra;
  for (auto &p : sig.inputs) params.push_back(p.name);
  for (auto &n : params)
    if (!j.contains(n)) missing.push_back(n);
  // The unknown keys: the first few (a file may hold any number), located at the first.
  constexpr size_t kShownKeys = 3;
  std::string first_extra;
  size_t n_extra = 0;
  for (auto &[k, v] : j.items())
    if (std::find(params.begin(), params.end(), k) == params.end()) {
      if (n_extra == 0) first_extra = k;
      if (++n_extra <= kShownKeys) extra.push_back(json_input::quoted(k));
    }
  std::string unknown = join_names(extra);
  if (n_extra > kShownKeys) unknown += " and " + std::to_string(n_extra - kShownKeys) + " more";
  if (!missing.empty() || n_extra)
    throw GradArgError(n_extra ? json_input::where(file, text, {first_extra}, true) : where({}),
                       "the arguments of '" + fun + "' are " + join_names(params) +
                           (missing.empty() ? "" : "; missing: " + join_names(missing)) + (n_extra ? "; unknown: " + unknown : ""));
  for (auto *p : fp.statics) out.statics.push_back(json_static(j[p->name], *p, {p->name}, where));
  // Shapes: what the lists show; dims after an empty list (real[0, 3] is `[]`) come
  // from the signature, once the other arguments have fixed its sizes.
  StaticSubst s;
  for (size_t k = 0; k < fp.statics.size(); ++k) {
    if (out.statics[k].kind == StaticValue::Int) s.sizes[fp.statics[k]->name] = out.statics[k].size;
    else s.shapes[fp.statics[k]->name] = out.statics[k].shape;
  }
  std::vector<std::vector<int64_t>> dims;
  for (auto *p : fp.values) dims.push_back(json_dims(j[p->name]));
  auto fixed_rank = [](const Type &t) {  // the formal shape, if it splices no shape
    return t.kind == Type::Tensor &&
           std::none_of(t.shape.begin(), t.shape.end(), [](const DimItem &d) { return std::holds_alternative<ShapeSym>(d); });
  };
  for (size_t k = 0; k < fp.values.size(); ++k) {
    if (!fixed_rank(fp.values[k]->type)) continue;
    Shape formal = s.apply(fp.values[k]->type.shape);
    for (size_t d = 0; d < formal.size() && d < dims[k].size(); ++d)
      if (auto sym = std::get<Poly>(formal[d]).as_symbol(); sym && !s.sizes.count(*sym)) s.sizes[*sym] = Poly::constant(dims[k][d]);
  }
  for (size_t k = 0; k < fp.values.size(); ++k) {
    const Param &p = *fp.values[k];
    if (fixed_rank(p.type) && !dims[k].empty() && dims[k].back() == 0 && dims[k].size() < p.type.shape.size()) {
      Shape formal = s.apply(p.type.shape);
      for (size_t d = dims[k].size(); d < formal.size(); ++d) {
        auto *q = std::get_if<Poly>(&formal[d]);
        if (!q || !q->is_const())
          throw GradArgError(where({p.name}), "argument '" + p.name +
                                                  "' is an empty list: the other arguments do not fix the rest of its shape " +
                                                  shape_str(formal));
        dims[k].push_back(q->const_value());
      }
    }
    std::optional<Scalar> elem;
    if (p.type.kind == Type::Tensor) elem = p.type.elem;
    out.values.push_back(json_tensor(j[p.name], elem, dims[k], "argument '" + p.name + "'", {p.name}, where));
    out.types.push_back(ir::Type{out.values.back().elem, out.values.back().shape});
  }
  return out;
}

}  // namespace rml
