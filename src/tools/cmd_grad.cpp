// rml grad: the vectorised objective and gradient program of a fun, or their values at a
// point (--at) as JSON.
#include "tools/commands.hpp"

#include <functional>
#include <set>
#include <nlohmann/json.hpp>

#include "array/ir/ir.hpp"
#include "driver/fun_pipeline.hpp"
#include "oracle/oracle.hpp"
#include "sema/suggest.hpp"
#include "tools/chronogram.hpp"
#include "tools/exit_policy.hpp"
#include "tools/grad_args.hpp"
#include "driver/load.hpp"

namespace rml {

namespace {

using ojson = nlohmann::ordered_json;

// `--fun` names no fun: list the file's funs, and point at the closest name.
void unknown_fun(const FrontendResult &r, const GradCmd &c, std::ostream &err) {
  const CheckedProgram &cp = r.checked;
  std::vector<std::string> user;
  for (size_t k = cp.prelude_decls; k < cp.program.decls.size(); ++k)
    if (std::holds_alternative<FunDecl>(cp.program.decls[k])) user.push_back(decl_name(cp.program.decls[k]));
  if (const Decl *d = cp.find(c.fun)) {  // a node or a constant: point at it
    Diagnostic diag;
    diag.rule = "grad.not-a-fun";
    diag.span = std::holds_alternative<NodeDecl>(*d) ? std::get<NodeDecl>(*d).name_span : std::get<ConstDecl>(*d).name_span;
    diag.message = "'" + c.fun + "' is a " + (std::holds_alternative<NodeDecl>(*d) ? "node" : "constant") +
                   "; rml grad differentiates a fun (funs of " + c.file + ": " + join_names(user) + ")";
    err << render(diag);
    return;
  }
  err << c.file << ": error[grad.unknown-fun]: no fun '" << c.fun << "' in " << c.file << " or the prelude (funs of "
      << c.file << ": " << join_names(user) << ")\n";
  // The user's funs first: a misspelt name of theirs is not a prelude function's.
  std::vector<std::string> prelude;
  for (size_t k = 0; k < cp.prelude_decls; ++k)
    if (std::holds_alternative<FunDecl>(cp.program.decls[k])) prelude.push_back(decl_name(cp.program.decls[k]));
  std::string best = suggest_name(c.fun, user, prelude);
  if (!best.empty() && cp.find(best)) {
    Diagnostic note;
    note.severity = Severity::Note;
    note.rule = "grad.unknown-fun";
    note.span = std::get<FunDecl>(*cp.find(best)).name_span;
    note.message = "did you mean '" + best + "'?";
    err << location(note.span) << ": note: " << note.message << "\n";
    std::string text = render(note);
    err << text.substr(text.find('\n') + 1);
  }
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

}  // namespace

int cmd_grad(const GradCmd &c, [[maybe_unused]] std::ostream &out, std::ostream &err) {
  if (!c.at.empty() && !c.sizes.empty()) {
    err << "rml: error: --size is for printing the programs; with --at the sizes come from the arguments\n";
    return kFrontendError;
  }
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  const CheckedProgram &cp = r->checked;
  const Decl *decl = cp.find(c.fun);
  if (!decl || !std::holds_alternative<FunDecl>(*decl)) {
    unknown_fun(*r, c, err);
    return kFrontendError;
  }
  const FunDecl &f = std::get<FunDecl>(*decl);
  GradArgs ga;
  try {
    if (c.at.empty()) {
      ga = read_grad_sizes(c.sizes, cp, c.fun);
    } else {
      std::string io;
      auto text = read_file(c.at, io);
      if (!text) {
        err << "rml: error: " << io << "\n";
        return kFrontendError;
      }
      ga = read_grad_args(c.at, *text, cp, c.fun);
    }
  } catch (GradArgError &e) {
    err << e.where << ": error[grad.arguments]: " << e.message << "\n";
    return kFrontendError;
  }
  const std::vector<StaticValue> &statics = ga.statics;
  const std::vector<array::Tensor> &args = ga.values;
  const std::vector<ir::Type> &types = ga.types;
  const Signature &sig = cp.sigs.at(c.fun);
  // --wrt: each name a real parameter of F (located at F's parameters: the names come
  // from the command line).
  for (auto &w : c.wrt) {
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
    if (!param || !sp) why = "'" + w + "' is not a parameter of '" + c.fun + "'";
    else if (sp->is_const || (sp->type.kind == Type::Tensor && sp->type.elem != Scalar::Real))
      why = "'" + w + "' is not a real parameter of '" + c.fun + "': an int, bool or const parameter has no gradient";
    if (why.empty()) continue;
    Diagnostic d;
    d.rule = "grad.wrt";
    d.span = param ? param->span : f.name_span;
    std::string near = closest_name(w, reals);
    d.message = "--wrt " + w + ": " + why + " (its real parameters: " + join_names(reals) + ")" +
                (near.empty() ? "" : "; did you mean '" + near + "'?");
    err << render(d);
    return kFrontendError;
  }
  lower::Lowered l;
  try {
    l = lower::lower_fun(cp, c.fun, statics, types);
  } catch (lower::LowerError &e) {
    err << e.what() << "\n";
    return exit_for(e);
  }
  if (l.body->type != ir::Type{Scalar::Real, {}}) {
    Diagnostic d;
    d.rule = "grad.objective";
    d.span = f.result.span.valid() ? f.result.span : f.name_span;
    d.message = "'" + c.fun + "' returns " + l.body->type.str() + " here; rml grad differentiates a real scalar objective";
    err << render(d);
    return kFrontendError;
  }
  try {
    // The value program is printed (not compiled) without --at; the gradient program is
    // evaluated by the reference IR evaluator or compiled (--backend).
    driver::FunRequest request;
    request.objective = c.at.empty();
    request.gradient = true;
    request.wrt = c.wrt;
    request.compile = !c.at.empty() && c.backend == Backend::Compiled;
    driver::CompiledFun cf = driver::compile_lowered(l, request);
    const ir::Program &g = cf.gradient;
    if (c.at.empty()) {
      ir::Program v = as_program(cf.objective.outputs.at(0), l.inputs, "value");
      std::vector<std::string> fixed;  // the static names the programs are specialised to
      for (auto &[n, p] : l.statics.sizes) fixed.push_back(n + " = " + p.str());
      for (auto &[n, sh] : l.statics.shapes) fixed.push_back(n + " = " + shape_str(sh));
      std::string at = fixed.empty() ? "" : " at " + join_names(fixed);
      out << "-- " << c.fun << at << ": vectorised objective\n" << ir::print(v);
      out << "-- " << c.fun << at << ": gradient program (inputs: the arguments, then the cotangent of the value)\n"
          << ir::print(g);
      return kOk;
    }
    std::vector<array::Tensor> in = args;
    in.push_back(array::Tensor::real(1.0));  // the cotangent of the objective
    std::vector<array::Tensor> res = c.backend == Backend::Reference ? ir::evaluate(g, in) : cf.gradient_exe->run(in);
    // One line per tensor: the layout of the object, compact values.
    // Numbers spelt as rml run spells them (array::format_real: round-trip exact).
    auto text = [](const array::Tensor &t) { return cell_json_text(oracle::Cell::of(t), ","); };
    out << "{\n  \"value\": " << text(res.at(0)) << ",\n  \"gradient\": {";
    for (size_t k = 1; k < res.size(); ++k)
      out << (k > 1 ? "," : "") << "\n    " << ojson(k < g.output_names.size() ? g.output_names[k] : std::to_string(k)).dump()
          << ": " << text(res[k]);
    out << (res.size() > 1 ? "\n  }\n}\n" : "}\n}\n");
    return kOk;
  } catch (std::exception &e) {  // ir::IrError from AD, exec::ExecError: not the user's fault
    err << "rml: error: computing the gradient of '" << c.fun << "' failed: " << e.what() << "\n";
    return kUnknown;
  }
}

}  // namespace rml
