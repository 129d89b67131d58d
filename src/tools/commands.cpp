#include "tools/commands.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "oracle/trace_io.hpp"
#include "checker/checker.hpp"
#include "sema/frontend.hpp"
#include "syntax/printer.hpp"
#include "tools/expectations.hpp"

namespace rml {

namespace {

std::unique_ptr<FrontendResult> load(const std::string &file, std::ostream &err, const FrontendOptions &opts = {}) {
  std::string io;
  auto text = read_file(file, io);
  if (!text) {
    err << "rml: error: " << io << "\n";
    return nullptr;
  }
  return run_frontend(file, std::move(*text), opts);
}

int report(const FrontendResult &r, std::ostream &err) {
  err << render_all(r.diags);
  if (r.diags.has_errors()) {
    size_t n = r.diags.error_count();
    err << n << " error" << (n == 1 ? "" : "s") << (n >= Diagnostics::kMaxErrors ? " (stopped at the limit)" : "") << "\n";
    return kFrontendError;
  }
  return kOk;
}

std::vector<std::string> user_nodes(const FrontendResult &r) {
  std::vector<std::string> out;
  for (auto &d : r.user.decls)
    if (std::holds_alternative<NodeDecl>(d)) out.push_back(decl_name(d));
  return out;
}

}  // namespace

int cmd_parse(const ParseCmd &c, std::ostream &out, std::ostream &err) {
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  if (!c.normalized) {
    out << print_program(r->user);
    return kOk;
  }
  std::vector<std::string> mains;
  if (!c.main_node.empty()) mains.push_back(c.main_node);
  else
    for (auto &n : user_nodes(*r))
      if (core::can_be_main(r->checked, n)) mains.push_back(n);
  int rc = kOk;
  for (size_t i = 0; i < mains.size(); ++i) {
    try {
      core::Program p = core::elaborate(r->checked, mains[i]);
      if (i) out << "\n";
      out << print_core(p);
    } catch (core::ElabError &e) {
      err << (e.span.valid() ? location(e.span) + ": " : std::string("rml: ")) << "error[elab]: " << e.message << "\n";
      rc = kFrontendError;
    }
  }
  return rc;
}

int cmd_fmt(const FmtCmd &c, std::ostream &out, std::ostream &err) {
  FrontendOptions opts;
  opts.check = false;
  auto r = load(c.file, err, opts);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  std::string text = print_program(r->user);
  if (c.check) {
    bool same = text == r->files.back()->text;
    if (!same) err << c.file << ": not formatted (run 'rml fmt -i " << c.file << "')\n";
    return same ? kOk : kFalsified;
  }
  if (c.in_place) {
    std::ofstream f(c.file, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) {
      err << "rml: error: cannot write '" << c.file << "'\n";
      return kFrontendError;
    }
    return kOk;
  }
  out << text;
  return kOk;
}

namespace {

// Inserts `assume ...;` lines at the end of the main node's body (for --assume).
std::optional<std::string> with_assumptions(const FrontendResult &r, const std::string &main,
                                            const std::vector<std::string> &assume, std::string &why) {
  const std::string &text = r.files.back()->text;
  for (auto &d : r.user.decls) {
    auto *n = std::get_if<NodeDecl>(&d);
    if (!n || n->name != main) continue;
    uint32_t at = n->name_span.end;
    for (auto &eq : n->equations) at = std::max(at, eq.span.end);
    for (auto &a : n->assumptions) at = std::max(at, a.span.end);
    std::string ins;
    for (auto &a : assume) ins += "\n  assume " + a + ";";
    if (n->has_let && n->equations.empty()) {
      why = "--assume needs a main node with at least one equation";
      return std::nullopt;
    }
    return text.substr(0, at) + ins + text.substr(at);
  }
  why = "no node '" + main + "'";
  return std::nullopt;
}

void print_findings(const check::PropertyResult &p, std::ostream &out) {
  for (auto &f : p.findings) {
    Diagnostic d;
    d.severity = p.verdict == check::Verdict::Falsified ? Severity::Error : Severity::Warning;
    d.rule = f.rule;
    d.message = f.message;
    d.span = f.span;
    if (f.span.valid()) out << render(d);
    else out << "  " << f.rule << ": " << f.message << "\n";
  }
}

}  // namespace

int cmd_check(const CheckCmd &c, std::ostream &out, std::ostream &err) {
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (c.json && r->diags.has_errors()) {
    nlohmann::json j = nlohmann::json::array();
    for (auto &d : r->diags.all()) {
      nlohmann::json o;
      o["kind"] = "frontend";
      o["severity"] = d.severity == Severity::Error ? "error" : d.severity == Severity::Warning ? "warning" : "note";
      o["rule"] = d.rule;
      o["message"] = d.message;
      if (d.span.valid()) {
        auto [l, col] = d.span.file->line_col(d.span.begin);
        o["file"] = d.span.file->path;
        o["line"] = l;
        o["col"] = col;
      }
      j.push_back(o);
    }
    out << nlohmann::json{{"file", c.file}, {"verdict", "error"}, {"diagnostics", j}}.dump(2) << "\n";
    return kFrontendError;
  }
  if (int rc = report(*r, err)) return rc;
  // Which nodes: --main, the file's `// main:` header, or every node that can be a main.
  std::vector<std::string> mains;
  if (!c.main_node.empty()) mains.push_back(c.main_node);
  else {
    Expectations ex = parse_expectations(r->files.back()->text);
    if (!ex.main_node.empty() && core::can_be_main(r->checked, ex.main_node)) mains.push_back(ex.main_node);
    else
      for (auto &n : user_nodes(*r))
        if (core::can_be_main(r->checked, n)) mains.push_back(n);
  }
  if (c.frontend_only || mains.empty()) {
    if (!c.json) out << c.file << ": front end ok (" << user_nodes(*r).size() << " nodes" << (mains.empty() ? "; none can be a main node: generic)" : ")") << "\n";
    else out << nlohmann::json{{"file", c.file}, {"verdict", "ok"}, {"diagnostics", nlohmann::json::array()}}.dump(2) << "\n";
    return kOk;
  }
  if (!c.assume.empty()) {
    if (mains.size() != 1) {
      err << "rml-check: error: --assume needs one main node (use --main)\n";
      return kFrontendError;
    }
    std::string why;
    auto text = with_assumptions(*r, mains[0], c.assume, why);
    if (!text) {
      err << "rml-check: error: " << why << "\n";
      return kFrontendError;
    }
    r = run_frontend(c.file, *text);
    if (r->diags.has_errors()) {
      err << "rml-check: error: in --assume:\n";
      return report(*r, err);
    }
  }
  check::Options opts;
  opts.timeout_s = c.timeout_s;
  opts.explain = c.explain;
  int worst = kOk;
  nlohmann::json jreports = nlohmann::json::array();
  for (auto &main : mains) {
    core::Program prog;
    try {
      prog = core::elaborate(r->checked, main);
    } catch (core::ElabError &e) {
      err << (e.span.valid() ? location(e.span) + ": " : std::string("rml-check: ")) << "error[elab]: " << e.message << "\n";
      return kFrontendError;
    }
    check::Report rep;
    try {
      rep = check::check_program(r->checked, prog, opts);
    } catch (oracle::OracleError &e) {
      err << "rml-check: error: " << e.what() << "\n";
      return kUnknown;
    }
    int rc = rep.exit_code();
    if (rc == kFalsified || (rc == kUnknown && worst == kOk)) worst = rc;
    nlohmann::json jr;
    jr["main"] = main;
    jr["properties"] = nlohmann::json::array();
    if (!c.json) out << c.file << ": node " << main << "\n";
    size_t cex_no = 0;
    for (auto &p : rep.properties) {
      std::string chronogram, cex_file;
      if (p.cex) {
        oracle::Oracle orc(r->checked, prog);
        oracle::Result res = orc.run(p.cex->inputs);
        std::vector<std::string> show;
        for (auto &v : prog.inputs) show.push_back(v.name);
        for (auto &v : p.cex->show)
          if (std::find(show.begin(), show.end(), v) == show.end() && res.has(v)) show.push_back(v);
        chronogram = oracle::format_result(res, show, oracle::Format::Table);
        if (!c.cex_dir.empty()) {
          cex_file = c.cex_dir + "/" + main + "." + p.kind + "." + std::to_string(++cex_no) + ".csv";
          std::ofstream f(cex_file);
          f << p.cex->csv;
        }
      }
      if (c.json) {
        nlohmann::json o;
        o["kind"] = p.kind;
        o["verdict"] = check::verdict_name(p.verdict);
        o["method"] = p.method;
        o["horizon"] = p.horizon ? nlohmann::json(*p.horizon) : nlohmann::json(nullptr);
        o["findings"] = nlohmann::json::array();
        for (auto &f : p.findings) {
          nlohmann::json fj{{"rule", f.rule}, {"message", f.message}};
          if (f.span.valid()) {
            auto [l, col] = f.span.file->line_col(f.span.begin);
            fj["file"] = f.span.file->path;
            fj["line"] = l;
            fj["col"] = col;
          }
          o["findings"].push_back(fj);
        }
        if (p.cex) o["counterexample"] = {{"what", p.cex->what}, {"trace_csv", p.cex->csv}, {"chronogram", chronogram}};
        else o["counterexample"] = nullptr;
        if (c.explain) o["smt"] = p.smt;
        jr["properties"].push_back(o);
        continue;
      }
      out << "  " << p.kind << ": " << check::verdict_name(p.verdict);
      if (p.horizon)
        out << " (horizon " << *p.horizon << (*p.horizon == 1 ? " cycle" : " cycles")
            << (*p.horizon ? ", buffering " + std::to_string(*p.horizon + 1) + " cycles" : "") << ")";
      out << " -- " << p.method << "\n";
      print_findings(p, out);
      if (p.cex) {
        out << "  counterexample: " << p.cex->what << "\n";
        std::istringstream lines(chronogram);
        std::string line;
        while (std::getline(lines, line)) out << "    " << line << "\n";
        if (prog.inputs.empty()) {
          out << "  replay: rml run " << c.file << " --main " << main << " --cycles " << p.cex->inputs.cycles << "\n";
        } else {
          out << "  replay: rml run " << c.file << " --main " << main << " --inputs "
              << (cex_file.empty() ? "<this trace>" : cex_file) << "\n";
        }
        if (cex_file.empty() && !prog.inputs.empty()) {
          std::istringstream csv(p.cex->csv);
          while (std::getline(csv, line)) out << "    | " << line << "\n";
        }
      }
      if (c.explain && !p.smt.empty()) out << p.smt;
    }
    jreports.push_back(jr);
  }
  if (c.json) out << nlohmann::json{{"file", c.file}, {"reports", jreports}}.dump(2) << "\n";
  return worst;
}

int cmd_run(const RunCmd &c, std::ostream &out, std::ostream &err) {
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  std::string main = c.main_node;
  if (main.empty()) {
    Expectations ex = parse_expectations(r->files.back()->text);
    main = ex.main_node;
  }
  if (main.empty()) {
    err << "rml: error: name the node to run with --main\n";
    return kFrontendError;
  }
  oracle::Format fmt;
  if (c.format == "table") fmt = oracle::Format::Table;
  else if (c.format == "csv") fmt = oracle::Format::Csv;
  else if (c.format == "json") fmt = oracle::Format::Json;
  else {
    err << "rml: error: --format is table, csv or json\n";
    return kFrontendError;
  }
  try {
    core::Program prog = core::elaborate(r->checked, main);
    oracle::Options opts;
    opts.post_clock_data = c.post_clock_data;
    opts.strict_when_merge = c.strict_when_merge;
    opts.lazy_if = c.lazy_if;
    oracle::Oracle orc(r->checked, prog, opts);
    for (auto &clash : orc.clocks().clashes)
      err << (clash.span.valid() ? location(clash.span) + ": " : std::string()) << "warning[clock.clash]: " << clash.message
          << " (the oracle continues with the first unification)\n";
    oracle::Inputs in;
    if (!c.inputs.empty()) {
      std::string io;
      auto text = read_file(c.inputs, io);
      if (!text) {
        err << "rml: error: " << io << "\n";
        return kFrontendError;
      }
      in = oracle::read_trace(c.inputs, *text, prog, c.cycles);
    } else if (!prog.inputs.empty()) {
      err << "rml: error: '" << main << "' has inputs: give a trace with --inputs\n";
      return kFrontendError;
    } else {
      in.cycles = c.cycles ? c.cycles : 10;
    }
    oracle::Result res = orc.run(in, c.solver == "kleene" ? oracle::Solver::Kleene : oracle::Solver::Worklist);
    std::vector<std::string> vars = c.show;
    if (c.show_all) vars = res.vars;
    if (vars.empty()) {
      for (auto &v : prog.inputs) vars.push_back(v.name);
      for (auto &v : prog.outputs) vars.push_back(v.name);
    }
    for (auto &v : vars)
      if (!res.has(v)) {
        err << "rml: error: no variable '" << v << "' in the elaborated '" << main << "' (see rml parse --normalized)\n";
        return kFrontendError;
      }
    out << oracle::format_result(res, vars, fmt);
    for (auto &v : res.input_clock_violations) err << "warning[input.clock]: input " << v << "\n";
    for (auto &e : res.errors)
      err << (e.span.valid() ? location(e.span) + ": " : std::string()) << "error value at cycle " << e.cycle << " in '"
          << e.var << "' [" << e.rule << "]: " << e.message << "\n";
    // Unknown cells of the shown variables, as ranges.
    for (auto &v : vars) {
      auto cells = res.stream(v);
      std::string ranges;
      for (size_t n = 0; n < cells.size();) {
        if (cells[n].tag != oracle::Tag::Bot) {
          ++n;
          continue;
        }
        size_t m = n;
        while (m + 1 < cells.size() && cells[m + 1].tag == oracle::Tag::Bot) ++m;
        ranges += (ranges.empty() ? "" : ", ") + (m == n ? std::to_string(n) : std::to_string(n) + "-" + std::to_string(m));
        n = m + 1;
      }
      if (!ranges.empty()) err << "unknown: '" << v << "' at cycles " << ranges << " (not determined by this prefix)\n";
    }
    return res.any_error() ? kFalsified : kOk;
  } catch (core::ElabError &e) {
    err << (e.span.valid() ? location(e.span) + ": " : std::string("rml: ")) << "error[elab]: " << e.message << "\n";
  } catch (oracle::TraceError &e) {
    err << e.what() << "\n";
  } catch (oracle::OracleError &e) {
    err << "rml: error: " << e.what() << "\n";
  }
  return kFrontendError;
}

int cmd_corpus(const CorpusCmd &c, std::ostream &out, std::ostream &err) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(c.dir, ec)) {
    err << "rml: error: '" << c.dir << "' is not a folder\n";
    return kFrontendError;
  }
  std::vector<fs::path> files;
  for (auto &e : fs::recursive_directory_iterator(c.dir, ec))
    if (e.is_regular_file() && e.path().extension() == ".rml") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  size_t pass = 0, fail = 0;
  for (auto &p : files) {
    auto r = load(p.string(), err);
    if (!r) {
      ++fail;
      continue;
    }
    Expectations ex = parse_expectations(r->files.back()->text);
    ExpectationCheck chk = compare(ex, *r);
    std::string verdict = r->diags.has_errors() ? "rejected" : "accepted";
    out << (chk.pass ? "PASS  " : "FAIL  ") << p.string() << "  " << verdict;
    if (r->diags.has_errors()) {
      out << " (";
      auto errs = reported_errors(*r);
      for (size_t i = 0; i < errs.size() && i < 4; ++i) out << (i ? ", " : "") << errs[i].str();
      if (errs.size() > 4) out << ", ...";
      out << ")";
    }
    out << "\n";
    if (!ex.has_header) out << "      no '// expect:' header\n";
    for (auto &m : chk.missing) out << "      expected but not reported: " << m.str() << "\n";
    for (auto &u : chk.unexpected) out << "      reported but not expected: " << u.str() << "\n";
    if (c.verbose || !chk.pass) {
      std::string text = render_all(r->diags);
      if (!text.empty() && (c.verbose || !chk.unexpected.empty())) out << text;
    }
    (chk.pass ? pass : fail)++;
  }
  out << pass << " passed, " << fail << " failed\n";
  return fail == 0 ? kOk : kFalsified;
}

}  // namespace rml
