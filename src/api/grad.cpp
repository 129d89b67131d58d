// `rml grad` through the library: a fun's value and gradient at a point, or its vectorised
// objective and gradient program printed (include/rml/rml.hpp).
#include <functional>
#include <set>
#include <sstream>

#include "api/state.hpp"
#include "array/ir/ir.hpp"
#include "driver/exit_policy.hpp"
#include "driver/fun_pipeline.hpp"
#include "driver/grad_args.hpp"
#include "sema/suggest.hpp"

namespace rml::api {

namespace {

// `fun` names no fun: the file's funs listed, and the closest name pointed at.
std::string unknown_fun(const FrontendResult &r, const std::string &file, const std::string &fun) {
  std::ostringstream err;
  const CheckedProgram &cp = r.checked;
  std::vector<std::string> user;
  for (size_t k = cp.prelude_decls; k < cp.program.decls.size(); ++k)
    if (std::holds_alternative<FunDecl>(cp.program.decls[k])) user.push_back(decl_name(cp.program.decls[k]));
  if (const Decl *d = cp.find(fun)) {  // a node or a constant: point at it
    rml::Diagnostic diag;
    diag.rule = "grad.not-a-fun";
    diag.span = std::holds_alternative<NodeDecl>(*d) ? std::get<NodeDecl>(*d).name_span : std::get<ConstDecl>(*d).name_span;
    diag.message = "'" + fun + "' is a " + (std::holds_alternative<NodeDecl>(*d) ? "node" : "constant") +
                   "; rml grad differentiates a fun (funs of " + file + ": " + join_names(user) + ")";
    return render(diag);
  }
  err << file << ": error[grad.unknown-fun]: no fun '" << fun << "' in " << file << " or the prelude (funs of " << file << ": "
      << join_names(user) << ")\n";
  // The user's funs first: a misspelt name of theirs is not a prelude function's.
  std::vector<std::string> prelude;
  for (size_t k = 0; k < cp.prelude_decls; ++k)
    if (std::holds_alternative<FunDecl>(cp.program.decls[k])) prelude.push_back(decl_name(cp.program.decls[k]));
  std::string best = suggest_name(fun, user, prelude);
  if (!best.empty() && cp.find(best)) {
    rml::Diagnostic note;
    note.severity = Severity::Note;
    note.rule = "grad.unknown-fun";
    note.span = std::get<FunDecl>(*cp.find(best)).name_span;
    note.message = "did you mean '" + best + "'?";
    err << location(note.span) << ": note: " << note.message << "\n";
    std::string text = render(note);
    err << text.substr(text.find('\n') + 1);
  }
  return err.str();
}

// A term as a program for printing: its top-level lets become binds, and so do the lets
// at the top of their values, as long as no name is bound twice (so nothing is captured).
ir::Program as_program(const ir::Term &t, const std::vector<std::pair<std::string, ir::Type>> &inputs, const std::string &label) {
  ir::Program p;
  p.inputs = inputs;
  std::set<std::string> bound;
  for (auto &in : inputs) bound.insert(in.first);
  std::function<ir::Term(ir::Term)> hoist = [&](ir::Term u) {
    while (u->kind == ir::Kind::Let && !bound.count(u->name)) {
      ir::Term value = hoist(u->kids[0]);
      p.binds.emplace_back(u->name, value);
      bound.insert(u->name);
      u = u->kids[1];
    }
    return u;
  };
  p.outputs = {hoist(t)};
  p.output_names = {label};
  return p;
}

// The arguments, read once the fun is known (GradArgError for a wrong one; nullopt, with
// `printed` said, for a file that cannot be read).
using ReadArgs = std::function<std::optional<GradArgs>(const CheckedProgram &, std::string &printed)>;

// What every route shares: the front end, the fun, its arguments, `wrt`, the fun lowered at
// the arguments' types and its result a real scalar.
struct Lowered {
  std::shared_ptr<FrontendResult> frontend;
  GradArgs args;
  lower::Lowered lowered;
  std::vector<Diagnostic> warnings;
};

Failure refused_with(const FrontendResult &r, const std::string &printed, int exit_code) {
  Failure f = refused(r, printed);
  f.exit_code = exit_code;
  return f;
}

Result<Lowered> lower_at(const std::string &name, const std::string &text, const GradOptions &o, const ReadArgs &read_args) {
  Lowered out;
  out.frontend = run_frontend(name, text);
  const FrontendResult &r = *out.frontend;
  if (r.diags.has_errors()) return frontend_failure(r);
  for (auto &d : r.diags.all())
    if (d.severity == Severity::Warning) out.warnings.push_back(from_stage(d));
  const CheckedProgram &cp = r.checked;
  const Decl *decl = cp.find(o.fun);
  if (!decl || !std::holds_alternative<FunDecl>(*decl)) return refused(r, unknown_fun(r, name, o.fun));
  const FunDecl &f = std::get<FunDecl>(*decl);
  try {
    std::string printed;
    std::optional<GradArgs> ga = read_args(cp, printed);
    if (!ga) return refused(r, printed);
    out.args = std::move(*ga);
  } catch (GradArgError &e) {
    return refused(r, e.where + ": error[grad.arguments]: " + e.message + "\n");
  }
  // wrt: each name a real parameter of the fun (located at its parameters: the names do
  // not come from the file).
  const Signature &sig = cp.sigs.at(o.fun);
  for (auto &w : o.wrt) {
    const VarDecl *param = nullptr;
    for (auto &p : f.params)
      if (p.name == w) param = &p;
    const Param *sp = nullptr;
    for (auto &p : sig.inputs)
      if (p.name == w) sp = &p;
    std::vector<std::string> reals;
    for (auto &p : sig.inputs)
      if (!p.is_const && !(p.type.kind == Type::Tensor && p.type.elem != Scalar::Real)) reals.push_back(p.name);
    std::string why;
    if (!param || !sp) why = "'" + w + "' is not a parameter of '" + o.fun + "'";
    else if (sp->is_const || (sp->type.kind == Type::Tensor && sp->type.elem != Scalar::Real))
      why = "'" + w + "' is not a real parameter of '" + o.fun + "': an int, bool or const parameter has no gradient";
    if (why.empty()) continue;
    rml::Diagnostic d;
    d.rule = "grad.wrt";
    d.span = param ? param->span : f.name_span;
    std::string near = closest_name(w, reals);
    d.message = "--wrt " + w + ": " + why + " (its real parameters: " + join_names(reals) + ")" +
                (near.empty() ? "" : "; did you mean '" + near + "'?");
    return refused(r, render(d));
  }
  try {
    out.lowered = lower::lower_fun(cp, o.fun, out.args.statics, out.args.types);
  } catch (lower::LowerError &e) {
    return refused_with(r, std::string(e.what()) + "\n", exit_for(e));
  }
  if (out.lowered.body->type != ir::Type{Scalar::Real, {}}) {
    rml::Diagnostic d;
    d.rule = "grad.objective";
    d.span = f.result.span.valid() ? f.result.span : f.name_span;
    d.message = "'" + o.fun + "' returns " + out.lowered.body->type.str() + " here; rml grad differentiates a real scalar objective";
    return refused(r, render(d));
  }
  return out;
}

// What escaped the steps of a grad call (called in a catch block): nothing leaves the
// library, and nothing here is the user's input, so exit 3.
Failure escaped(const std::string &fun) {
  try {
    throw;
  } catch (std::bad_alloc &) {
    return failure(kUnknown, "rml: error: out of memory while computing the gradient of '" + fun + "'\n");
  } catch (std::exception &e) {
    return failure(kUnknown, "rml: error: computing the gradient of '" + fun + "' failed: " + e.what() + "\n");
  } catch (...) {
    return failure(kUnknown, "rml: error: computing the gradient of '" + fun + "' failed\n");
  }
}

// The gradient program (and the vectorised objective, to print), compiled for the
// executor or not.
driver::CompiledFun programs_of(const Lowered &l, const GradOptions &o, bool objective, bool compile) {
  driver::FunRequest request;
  request.objective = objective;
  request.gradient = true;
  request.wrt = o.wrt;
  request.compile = compile;
  return driver::compile_lowered(l.lowered, request);
}

Failure computing_failed(const FrontendResult &r, const std::string &fun, const std::exception &e) {
  // ir::IrError from AD, exec::ExecError: not the user's fault.
  return refused_with(r, "rml: error: computing the gradient of '" + fun + "' failed: " + e.what() + "\n", kUnknown);
}

// The fun lowered at its arguments, then `make` on it: what `make` throws is said as the
// computation's failure (with the front end's warnings), what escapes before as escaped().
template <class T, class Make>
Result<T> computed(const std::string &name, const std::string &text, const GradOptions &o, const ReadArgs &read_args, Make make) try {
  Result<Lowered> l = lower_at(name, text, o, read_args);
  if (!l) return l.failure();
  try {
    T out = make(*l);
    out.warnings = l->warnings;
    return out;
  } catch (std::exception &e) {  // out of memory included
    return computing_failed(*l->frontend, o.fun, e);
  }
} catch (...) {
  return escaped(o.fun);
}

Result<Gradient> grad_with(const std::string &name, const std::string &text, const GradOptions &o, const ReadArgs &read_args) {
  return computed<Gradient>(name, text, o, read_args, [&](const Lowered &l) {
    const bool compiled = o.evaluator == GradOptions::Evaluator::Compiled;
    driver::CompiledFun cf = programs_of(l, o, /*objective=*/false, compiled);
    const ir::Program &g = cf.gradient;
    std::vector<array::Tensor> in = l.args.values;
    in.push_back(array::Tensor::real(1.0));  // the cotangent of the objective
    std::vector<array::Tensor> res = compiled ? cf.gradient_exe->run(in) : ir::evaluate(g, in);
    Gradient out;
    auto value = [](const array::Tensor &t) { return from_oracle(oracle::Cell::of(t)).value; };
    out.value = value(res.at(0));
    for (size_t k = 1; k < res.size(); ++k)
      out.gradient.emplace_back(k < g.output_names.size() ? g.output_names[k] : std::to_string(k), value(res[k]));
    return out;
  });
}

}  // namespace

Result<Gradient> grad_text(const std::string &name, const std::string &text, const std::string &at_name, const std::string &at,
                           const GradOptions &o) {
  return grad_with(name, text, o, [&](const CheckedProgram &cp, std::string &) {
    return std::optional<GradArgs>(read_grad_args(at_name, at, cp, o.fun));
  });
}

Result<Gradient> grad_file(const std::string &file, const std::string &at_file, const GradOptions &o) {
  std::string io;
  auto text = read_file(file, io);
  if (!text) return failure(kFrontendError, "rml: error: " + io + "\n");
  return grad_with(file, *text, o, [&](const CheckedProgram &cp, std::string &printed) -> std::optional<GradArgs> {
    std::string why;
    auto at = read_file(at_file, why);
    if (!at) {
      printed = "rml: error: " + why + "\n";
      return std::nullopt;
    }
    return read_grad_args(at_file, *at, cp, o.fun);
  });
}

Result<GradPrograms> grad_programs(const std::string &name, const std::string &text, const std::vector<std::string> &sizes,
                                   const GradOptions &o) {
  auto read_sizes = [&](const CheckedProgram &cp, std::string &) { return std::optional<GradArgs>(read_grad_sizes(sizes, cp, o.fun)); };
  return computed<GradPrograms>(name, text, o, read_sizes, [&](const Lowered &l) {
    driver::CompiledFun cf = programs_of(l, o, /*objective=*/true, /*compile=*/false);
    ir::Program v = as_program(cf.objective.outputs.at(0), l.lowered.inputs, "value");
    std::vector<std::string> fixed;  // the static names the programs are specialised to
    for (auto &[n, p] : l.lowered.statics.sizes) fixed.push_back(n + " = " + p.str());
    for (auto &[n, sh] : l.lowered.statics.shapes) fixed.push_back(n + " = " + shape_str(sh));
    std::string at = fixed.empty() ? "" : " at " + join_names(fixed);
    GradPrograms out;
    out.text = "-- " + o.fun + at + ": vectorised objective\n" + ir::print(v) + "-- " + o.fun + at +
               ": gradient program (inputs: the arguments, then the cotangent of the value)\n" + ir::print(cf.gradient);
    return out;
  });
}

}  // namespace rml::api
