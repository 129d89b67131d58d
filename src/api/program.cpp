// Loading a program (load_file, load_text), its main node chosen and elaborated once, and
// reading a trace of its inputs (include/rml/rml.hpp).
#include <sstream>

#include "api/state.hpp"
#include "core/normalize.hpp"
#include "driver/acceptance.hpp"
#include "driver/load.hpp"
#include "driver/main_node.hpp"
#include "sema/types.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"

namespace rml::api {

Failure frontend_failure(const FrontendResult &r) {
  Failure f(kFrontendError, {});
  for (auto &d : r.diags.all()) f.diagnostics.push_back(from_stage(d));
  size_t n = r.diags.error_count();
  f.summary = std::to_string(n) + " error" + (n == 1 ? "" : "s") + (n >= Diagnostics::kMaxErrors ? " (stopped at the limit)" : "");
  return f;
}

// A refusal after the front end (exit 2): its warnings first, as a command's output
// would say them.
Failure refused(const FrontendResult &r, const std::string &printed) {
  Failure f = failure(kFrontendError, printed);
  std::vector<Diagnostic> warnings;
  for (auto &d : r.diags.all())
    if (d.severity == Severity::Warning) warnings.push_back(from_stage(d));
  f.diagnostics.insert(f.diagnostics.begin(), warnings.begin(), warnings.end());
  return f;
}

namespace {

std::vector<Variable> variables(const std::vector<core::Var> &vs) {
  std::vector<Variable> out;
  for (auto &v : vs) out.push_back({v.name, type_str(v.type)});
  return out;
}

Result<Program> finish(const std::string &file, std::unique_ptr<FrontendResult> r, const LoadOptions &o) {
  if (r->diags.has_errors()) return frontend_failure(*r);
  std::ostringstream err;
  if (!o.main.empty() && !check_main_name(*r, o.main, err)) return refused(*r, err.str());
  std::optional<std::string> chosen = choose_main(*r, o.main, err);
  if (!chosen) return refused(*r, err.str());
  if (!o.assume.empty()) {
    std::string text = r->files.back()->text;
    r = run_frontend(file, std::move(text), assume_options(*chosen, o.assume));
    if (r->diags.has_errors()) return frontend_failure(*r);
  }
  return from_frontend(file, std::move(r), *chosen);
}

}  // namespace

void Program::State::make_names() const {
  std::call_once(names_once_, [this] {
    labels_ = core::printed_names(elab.prog);
    for (auto &[var, label] : labels_) vars_of_labels_[label] = var;
  });
}

const Program::State::Names &Program::State::labels() const {
  make_names();
  return labels_;
}

const Program::State::Names &Program::State::vars_of_labels() const {
  make_names();
  return vars_of_labels_;
}

Result<Program> from_frontend(const std::string &file, std::shared_ptr<const FrontendResult> r, const std::string &main) {
  auto s = std::make_shared<Program::State>();
  s->file = file;
  s->main = main;
  try {
    s->elab = driver::elaborate(r->checked, main);
  } catch (core::ElabError &e) {
    rml::Diagnostic d{Severity::Error, "elab", e.message, e.span, {}};
    return Failure{kFrontendError, {from_stage(d)}};
  }
  s->inputs = variables(s->elab.prog.inputs);
  s->outputs = variables(s->elab.prog.outputs);
  s->frontend = std::move(r);
  return Program(std::move(s));
}

Result<Program> load_text(const std::string &name, const std::string &text, const LoadOptions &o) try {
  return finish(name, run_frontend(name, text), o);
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml: error: out of memory while reading " + name + "\n");
}

Result<Program> load_file(const std::string &file, const LoadOptions &o) {
  std::string io;
  auto text = read_file(file, io);
  if (!text) return failure(kFrontendError, "rml: error: " + io + "\n");
  return load_text(file, *text, o);
}

const std::string &Program::file() const { return s_->file; }
const std::string &Program::main() const { return s_->main; }
const std::vector<Variable> &Program::inputs() const { return s_->inputs; }
const std::vector<Variable> &Program::outputs() const { return s_->outputs; }
std::vector<std::string> Program::nodes() const { return user_nodes(*s_->frontend); }

std::vector<Diagnostic> Program::warnings() const {
  std::vector<Diagnostic> out;
  for (auto &d : s_->frontend->diags.all())
    if (d.severity == Severity::Warning) out.push_back(from_stage(d));
  return out;
}

std::string Program::normalized() const {
  // As `rml parse --normalized`: the user's constants and funs, then the elaborated node.
  rml::Program defs;
  for (auto &d : s_->frontend->user.decls)
    if (!std::holds_alternative<NodeDecl>(d)) defs.decls.push_back(clone_decl(d));
  return (defs.decls.empty() ? std::string() : print_program(defs) + "\n") + core::print_core(s_->elab.prog);
}

Result<Printed> print_text(const std::string &name, const std::string &text, const PrintOptions &o) try {
  std::unique_ptr<FrontendResult> r = run_frontend(name, text);
  if (r->diags.has_errors()) return frontend_failure(*r);
  Printed out;
  for (auto &d : r->diags.all())
    if (d.severity == Severity::Warning) out.warnings.push_back(from_stage(d));
  if (!o.normalized) {
    out.text = print_program(r->user);
    return out;
  }
  std::ostringstream why;
  std::optional<std::vector<std::string>> chosen = chosen_mains(*r, o.main, why);
  if (!chosen) return refused(*r, why.str());
  std::vector<std::string> mains = std::move(*chosen);
  // The user's constants and funs first: the elaborated nodes call the funs (and the funs
  // may name the constants), so the output parses and checks on its own.
  rml::Program defs;
  for (auto &d : r->user.decls)
    if (!std::holds_alternative<NodeDecl>(d)) defs.decls.push_back(clone_decl(d));
  if (!defs.decls.empty()) out.text += print_program(defs) + (mains.empty() ? "" : "\n");
  bool first = true;
  for (auto &main : mains) {
    try {
      core::Program p = core::elaborate(r->checked, main);
      out.text += (first ? "" : "\n") + core::print_core(p);
      first = false;
    } catch (core::ElabError &e) {
      out.diagnostics.push_back(from_stage(rml::Diagnostic{Severity::Error, "elab", e.message, e.span, {}}));
      out.failed = true;
    }
  }
  return out;
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml: error: out of memory while reading " + name + "\n");
}

Result<std::string> format_text(const std::string &name, const std::string &text) try {
  FrontendOptions opts;
  opts.check = false;
  std::unique_ptr<FrontendResult> r = run_frontend(name, text, opts);
  if (r->diags.has_errors()) return frontend_failure(*r);
  // Comments are kept (format_source, src/syntax/README.md "Formatting"). Contracts and
  // statement blocks are expanded by the parser: printed, each would become the locals,
  // equations, assumptions and properties it stands for, what was written lost.
  struct Expanded {
    const std::vector<Span> &where;
    const char *rule, *what;
  };
  for (const Expanded &e : {Expanded{r->user.contracts, "fmt.contract", "Kind 2 contracts or refinement types"},
                            Expanded{r->user.statement_blocks, "fmt.block", "Kind 2 if statements, when, cond or frame blocks"},
                            Expanded{r->user.datatypes, "fmt.datatype", "Kind 2 datatypes, matches, testers, quantifiers, activations, type ascriptions or 'any { x: T | P }'"}}) {
    if (e.where.empty()) continue;
    rml::Diagnostic d;
    d.rule = e.rule;
    d.span = e.where.front();
    d.message = std::string("rml fmt does not format a file with ") + e.what +
                " (it would write each as what it stands for); the file is left unchanged";
    return Failure(kFrontendError, {from_stage(d)});
  }
  return format_source(r->user, *r->files.back());
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml: error: out of memory while formatting " + name + "\n");
}

Result<Chronogram> parse_trace(const Program &p, const std::string &name, const std::string &text) try {
  const core::Program &prog = p.state().elab.prog;
  oracle::Inputs in = oracle::read_trace(name, text, prog, 0);
  Chronogram c;
  c.cycles = in.cycles;
  for (auto &v : prog.inputs) {
    auto it = in.streams.find(v.name);
    if (it == in.streams.end()) continue;
    c.names.push_back(v.name);
    std::vector<Cell> col;
    for (auto &x : it->second) col.push_back(from_oracle(x));
    c.columns.push_back(std::move(col));
  }
  for (auto &[var, cells] : in.streams) {  // an imported call's outputs, given by the trace
    if (c.column(var)) continue;
    c.names.push_back(var);
    std::vector<Cell> col;
    for (auto &x : cells) col.push_back(from_oracle(x));
    c.columns.push_back(std::move(col));
  }
  return c;
} catch (oracle::TraceError &e) {
  return failure(kFrontendError, render_trace_error(e, text));
}

}  // namespace rml::api
