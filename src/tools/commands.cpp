#include "tools/commands.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iomanip>
#include <set>
#include <sstream>
#include <nlohmann/json.hpp>

#include "array/lower/lower.hpp"
#include "array/ad/ad.hpp"
#include "array/bot/bot.hpp"
#include "array/exec/exec.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "oracle/trace_io.hpp"
#include "checker/checker.hpp"
#include "sema/frontend.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"
#include "tools/expectations.hpp"
#include "tools/main_node.hpp"
#include "tools/chronogram.hpp"
#include "tools/assumptions.hpp"
#include "sema/suggest.hpp"
#include "tools/grad_args.hpp"

namespace rml {

// ------------------------------------------------------------------ numeric options

std::optional<size_t> parse_cycles(const std::string &text, std::string &error) {
  // Digits only (no sign, no exponent, no spaces): the value is a count of cycles.
  size_t v = 0;
  bool ok = !text.empty() && text.size() <= 12 && std::all_of(text.begin(), text.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
  if (ok) {
    for (char ch : text) v = v * 10 + static_cast<size_t>(ch - '0');
    ok = v >= 1 && v <= kMaxCycles;
  }
  if (ok) return v;
  error = "--cycles: expected an integer from 1 to " + std::to_string(kMaxCycles) + ", got '" + text + "'";
  return std::nullopt;
}

namespace {
std::string timeout_message(const std::string &got) {
  return "--timeout: expected a number of seconds greater than 0 and at most " +
         std::to_string(static_cast<long>(kMaxTimeoutSeconds)) + ", got '" + got + "'";
}
}  // namespace

std::optional<double> parse_timeout(const std::string &text, std::string &error) {
  const char *b = text.c_str();
  char *e = nullptr;
  double v = text.empty() || std::isspace(static_cast<unsigned char>(text[0])) ? NAN : std::strtod(b, &e);
  if (e && *e == '\0' && std::isfinite(v) && v > 0 && v <= kMaxTimeoutSeconds) return v;
  error = timeout_message(text);
  return std::nullopt;
}

std::optional<uint64_t> parse_memory(const std::string &text, std::string &error) {
  // An integer, optionally followed by K, M, G or T (powers of 1024), optionally "iB" or "B".
  size_t k = 0;
  uint64_t v = 0;
  bool ok = true;
  while (k < text.size() && text[k] >= '0' && text[k] <= '9' && ok) {
    ok = v <= (UINT64_MAX - 9) / 10;
    v = v * 10 + static_cast<uint64_t>(text[k++] - '0');
  }
  ok = ok && k > 0;
  std::string unit = text.substr(k);
  static const std::pair<const char *, int> kUnits[] = {{"", 0},    {"B", 0},    {"K", 10},   {"KB", 10}, {"KiB", 10},
                                                        {"M", 20},   {"MB", 20},  {"MiB", 20}, {"G", 30},  {"GB", 30},
                                                        {"GiB", 30}, {"T", 40},   {"TB", 40},  {"TiB", 40}};
  int shift = -1;
  for (auto &[name, sh] : kUnits)
    if (unit == name) shift = sh;
  ok = ok && shift >= 0 && v <= (kMaxMaxMemory >> shift);
  if (ok) v <<= shift;
  if (ok && v >= kMinMaxMemory && v <= kMaxMaxMemory) return v;
  error = "--max-memory: expected a size from 1M to 1T (an integer, optionally followed by K, M, G or T), got '" + text + "'";
  return std::nullopt;
}

std::string format_bytes(uint64_t bytes) {
  const char *units[] = {"bytes", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
  double v = static_cast<double>(bytes);
  int u = 0;
  while (v >= 1024 && u < 6) v /= 1024, ++u;
  std::ostringstream s;
  if (u == 0) s << bytes << " bytes";
  else if (v == std::floor(v)) s << static_cast<uint64_t>(v) << " " << units[u];
  else s << std::fixed << std::setprecision(1) << v << " " << units[u];
  return s.str();
}

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

}  // namespace

int cmd_parse(const ParseCmd &c, std::ostream &out, std::ostream &err) {
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  if (!c.normalized) {
    out << print_program(r->user);
    return kOk;
  }
  // --main, else the '// main:' header, else every node that can be a main.
  std::vector<std::string> mains;
  if (!c.main_node.empty() && !check_main_name(*r, c.main_node, err)) return kFrontendError;
  if (!c.main_node.empty()) mains.push_back(c.main_node);
  else if (std::string h = header_main(*r); !h.empty()) mains.push_back(h);
  else mains = main_candidates(*r);
  // The user's constants and funs first: the elaborated nodes call the funs (and the
  // funs may name the constants), so the output parses and checks on its own.
  Program defs;
  for (auto &d : r->user.decls)
    if (!std::holds_alternative<NodeDecl>(d)) defs.decls.push_back(clone_decl(d));
  if (!defs.decls.empty()) out << print_program(defs) << (mains.empty() ? "" : "\n");
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
  // Comments are kept (format_source, src/syntax/README.md "Formatting").
  const SourceFile &src = *r->files.back();
  std::string text = format_source(r->user, src);
  if (c.check) {
    bool same = text == src.text;
    if (!same) err << c.file << ": not formatted (run 'rml fmt -i " << c.file << "')\n";
    return same ? kOk : kFalsified;
  }
  if (c.in_place) {
    if (text == src.text) return kOk;  // already formatted: leave the file untouched
    // Write a temporary file next to the original, then rename it over the original:
    // a failed write leaves the original as it was.
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::path target = fs::weakly_canonical(c.file, ec);  // through a symlink: rewrite its target
    if (ec) target = c.file;
    fs::path tmp;
    for (int k = 0; k < 1000; ++k) {
      tmp = target;
      tmp.replace_filename("." + target.filename().string() + ".rmlfmt" + std::to_string(k) + ".tmp");
      if (!fs::exists(tmp, ec)) break;
    }
    bool ok;
    {
      std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
      f << text;
      f.flush();
      ok = static_cast<bool>(f);
    }
    if (ok) {
      fs::perms mode = fs::status(target, ec).permissions();
      if (!ec) fs::permissions(tmp, mode, ec);
      ec.clear();
      fs::rename(tmp, target, ec);
      ok = !ec;
    }
    if (!ok) {
      fs::remove(tmp, ec);
      err << "rml: error: cannot write '" << c.file << "' (left unchanged)\n";
      return kFrontendError;
    }
    return kOk;
  }
  out << text;
  return kOk;
}

namespace {

// --assume: each text is a source of its own, "<--assume K>" (a diagnostic's column is the
// position inside the option), parsed as one assumption (parse_assumption) and attached to
// the main node before checking, as if written in its body.
FrontendOptions assume_options(const std::string &main, const std::vector<std::string> &assume) {
  FrontendOptions o;
  o.before_check = [main, assume](FrontendResult &r) {
    NodeDecl *node = nullptr;
    for (size_t k = r.checked.prelude_decls; k < r.checked.program.decls.size(); ++k)
      if (auto *n = std::get_if<NodeDecl>(&r.checked.program.decls[k]); n && n->name == main) node = n;
    for (size_t k = 0; k < assume.size(); ++k) {
      auto file = std::make_unique<SourceFile>("<--assume " + std::to_string(k + 1) + ">", assume[k]);
      std::optional<Assumption> a = parse_assumption(*file, r.diags);
      r.files.insert(r.files.end() - 1, std::move(file));  // the user's file stays last
      if (a && node) node->assumptions.push_back(std::move(*a));
    }
  };
  return o;
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
  if (!(c.timeout_s > 0 && c.timeout_s <= kMaxTimeoutSeconds)) {  // NaN fails too
    std::ostringstream got;
    got << c.timeout_s;
    err << "rml-check: error: " << timeout_message(got.str()) << "\n";
    return kFrontendError;
  }
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
  if (!c.main_node.empty()) {
    std::ostringstream why;
    if (!check_main_name(*r, c.main_node, why)) {
      if (!c.json) err << why.str();
      else  // the diagnostic's text, in the JSON shape of the other front-end errors
        out << nlohmann::json{{"file", c.file}, {"verdict", "error"}, {"diagnostics", nlohmann::json::array({{{"kind", "frontend"}, {"severity", "error"}, {"rule", "main.unknown"}, {"message", why.str()}}})}}.dump(2) << "\n";
      return kFrontendError;
    }
    mains.push_back(c.main_node);
  } else if (std::string h = header_main(*r); !h.empty()) mains.push_back(h);
  else mains = main_candidates(*r);
  if (c.frontend_only) {
    if (!c.json) out << c.file << ": front end ok (" << user_nodes(*r).size() << " nodes)\n";
    else out << nlohmann::json{{"file", c.file}, {"verdict", "ok"}, {"diagnostics", nlohmann::json::array()}}.dump(2) << "\n";
    return kOk;
  }
  if (mains.empty()) {  // nothing to check is not a success (README "Limits and exit codes")
    size_t n = user_nodes(*r).size();
    std::string why = n == 0 ? "the file declares no node" : std::to_string(n) + (n == 1 ? " node, generic" : " nodes, all generic") + " (static parameters)";
    if (!c.json)
      err << "rml-check: error: " << c.file << ": no node to check: " << why
          << "; --frontend-only checks names, types and shapes only\n";
    else
      out << nlohmann::json{{"file", c.file}, {"verdict", "error"}, {"diagnostics", nlohmann::json::array({{{"kind", "frontend"}, {"severity", "error"}, {"rule", "check.no-node"}, {"message", "no node to check: " + why}}})}}.dump(2) << "\n";
    return kFrontendError;
  }
  if (!c.assume.empty()) {
    if (mains.size() != 1) {
      err << "rml-check: error: --assume needs one main node (use --main)\n";
      return kFrontendError;
    }
    std::string text = r->files.back()->text;
    r = run_frontend(c.file, std::move(text), assume_options(mains[0], c.assume));
    if (r->diags.has_errors()) {
      err << "rml-check: error: in --assume:\n";
      return report(*r, err);
    }
  }
  // --cex-dir: made before checking, so that a counterexample has somewhere to go (the
  // default folder is made when the first counterexample is found).
  bool cex_dir_made = false;
  if (c.cex_dir_given && !c.no_cex_files) {
    std::error_code ec;
    std::filesystem::create_directories(c.cex_dir, ec);
    if (ec || !std::filesystem::is_directory(c.cex_dir)) {
      err << "rml-check: error: --cex-dir '" << c.cex_dir << "': cannot create the folder"
          << (ec ? ": " + ec.message() : std::string(": a file of that name exists")) << "\n";
      return kFrontendError;
    }
    cex_dir_made = true;
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
    // A limit reached while checking (the oracle's memory cap, out of memory) leaves the
    // node's properties unknown (exit 3), never falsified; the other mains are checked.
    check::Report rep;
    std::string failure;
    try {
      // The checker replays counterexamples in the oracle: a program one cycle of which
      // exceeds the oracle's memory cap (oracle::Options::max_memory) is not checked.
      oracle::Oracle probe(r->checked, prog);
      rep = check::check_program(r->checked, prog, opts);
    } catch (oracle::MemoryLimitError &e) {
      failure = std::string(e.what()) + " (rml-check runs counterexamples in the oracle)";
    } catch (oracle::OracleError &e) {
      failure = e.what();
    } catch (std::bad_alloc &) {
      failure = "out of memory while checking '" + main + "'";
    }
    if (!failure.empty()) {
      err << "rml-check: error: " << failure << ": the properties of '" << main << "' are unknown\n";
      if (worst == kOk) worst = kUnknown;
      jreports.push_back({{"main", main}, {"verdict", "unknown"}, {"error", failure}});
      continue;
    }
    int rc = rep.exit_code();
    if (rc == kFalsified || (rc == kUnknown && worst == kOk)) worst = rc;
    nlohmann::json jr;
    jr["main"] = main;
    jr["properties"] = nlohmann::json::array();
    if (!c.json) out << c.file << ": node " << main << "\n";
    size_t cex_no = 0;
    for (auto &p : rep.properties) {
      std::string chronogram, cex_file, replay_show;
      if (p.cex) {
        try {
          oracle::Oracle orc(r->checked, prog);
          oracle::Result res = orc.run(p.cex->inputs);
          std::vector<std::string> show;
          for (auto &v : prog.inputs) show.push_back(v.name);
          for (auto &v : p.cex->show)
            if (std::find(show.begin(), show.end(), v) == show.end() && res.has(v)) show.push_back(v);
          // Labelled as rml parse --normalized and rml run --show spell the variables.
          auto printed = core::printed_names(prog);
          std::vector<std::string> labels;
          for (auto &v : show) labels.push_back(printed.count(v) ? printed.at(v) : v);
          chronogram = format_chronogram(res, show, oracle::Format::Table, labels);
          // The replay shows what rml run shows by default (inputs, outputs) and the
          // variables the counterexample blames, which it would not.
          std::vector<std::string> replay = show;
          replay.resize(prog.inputs.size());
          for (auto &v : prog.outputs) replay.push_back(v.name);
          bool extra = false;
          for (auto &v : show)
            if (std::find(replay.begin(), replay.end(), v) == replay.end()) replay.push_back(v), extra = true;
          for (size_t k = 0; extra && k < replay.size(); ++k)
            replay_show += (k ? "," : " --show ") + (printed.count(replay[k]) ? printed.at(replay[k]) : replay[k]);
        } catch (oracle::OracleError &e) {
          chronogram = std::string("(not replayed: ") + e.what() + ")\n";
        } catch (std::bad_alloc &) {
          chronogram = "(not replayed: out of memory)\n";
        }
        if (!c.no_cex_files && !cex_dir_made) {
          std::error_code ec;
          std::filesystem::create_directories(c.cex_dir, ec);
          cex_dir_made = !ec && std::filesystem::is_directory(c.cex_dir);
          if (!cex_dir_made)
            err << "rml-check: error: cannot make the folder '" << c.cex_dir << "' for counterexample traces"
                << (ec ? ": " + ec.message() : std::string(": a file of that name exists")) << " (printed inline instead)\n";
        }
        if (cex_dir_made) {
          // A written trace replays exactly the counterexample's cycles with --cycles N
          // (an input-less node's CSV has no rows: the comment says so).
          cex_file = (std::filesystem::path(c.cex_dir) / (main + "." + p.kind + "." + std::to_string(++cex_no) + ".csv")).string();
          std::ofstream f(cex_file, std::ios::binary | std::ios::trunc);
          if (prog.inputs.empty())
            f << "# '" << main << "' has no inputs: replay " << p.cex->inputs.cycles << " cycles with --cycles "
              << p.cex->inputs.cycles << "\n";
          f << p.cex->csv;
          f.close();
          if (!f) {  // never lose it: say so, and print the trace inline below
            err << "rml-check: error: cannot write the counterexample trace to '" << cex_file << "': " << std::strerror(errno)
                << " (printed inline instead)\n";
            cex_file.clear();
          }
        }
      }
      // The command that replays the counterexample and fails (exit 1) as the property does.
      std::string replay_cmd;
      if (p.cex) {
        replay_cmd = "rml run " + c.file + " --main " + main;
        if (!cex_file.empty()) replay_cmd += " --inputs " + cex_file;
        else if (!prog.inputs.empty()) replay_cmd += " --inputs <this trace>";
        replay_cmd += " --cycles " + std::to_string(p.cex->inputs.cycles) + replay_show;
        if (p.cex->required) {
          auto pn = core::printed_names(prog);
          const std::string &v = p.cex->required->var;
          replay_cmd += (p.cex->required->must_be_true ? " --require-true " : " --require-known ") + (pn.count(v) ? pn.at(v) : v) +
                        "@" + std::to_string(p.cex->required->cycle);
        }
      }
      if (c.json) {
        nlohmann::json o;
        o["kind"] = p.kind;
        if (p.kind == "property") {
          o["name"] = p.name;
          if (p.span.valid()) {
            auto [l, col] = p.span.file->line_col(p.span.begin);
            o["line"] = l;
            o["col"] = col;
          }
        }
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
        if (p.cex) {
          o["counterexample"] = {{"what", p.cex->what}, {"trace_csv", p.cex->csv}, {"chronogram", chronogram}, {"cycles", p.cex->inputs.cycles}};
          if (!cex_file.empty()) o["counterexample"]["trace_file"] = cex_file;
          o["counterexample"]["replay"] = replay_cmd;
        }
        else o["counterexample"] = nullptr;
        if (c.explain) o["smt"] = p.smt;
        jr["properties"].push_back(o);
        continue;
      }
      out << "  " << p.kind;
      if (p.kind == "property") {
        out << " '" << p.name << "'";
        if (p.span.valid()) out << " (line " << p.span.file->line_col(p.span.begin).first << ")";
      }
      out << ": " << check::verdict_name(p.verdict);
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
        out << "  replay: " << replay_cmd << "\n";
        if (cex_file.empty() && !prog.inputs.empty()) {
          // Indented only: a '|' prefix would look like a source excerpt's, and be
          // copied with the trace.
          out << "  trace (CSV; save it and pass it with --inputs):\n";
          std::istringstream csv(p.cex->csv);
          while (std::getline(csv, line)) out << "    " << line << "\n";
        }
      }
      if (c.explain && !p.smt.empty()) out << p.smt;
    }
    jreports.push_back(jr);
  }
  if (c.json) out << nlohmann::json{{"file", c.file}, {"reports", jreports}}.dump(2) << "\n";
  return worst;
}

namespace {

// A bad trace as a diagnostic: FILE:LINE:COL, the rule, and the trace's line with a caret.
std::string render_trace_error(const oracle::TraceError &e, const std::string &text) {
  if (e.line == 0) return e.path + ": error[" + e.rule + "]: " + e.message + "\n";
  bool bom = text.compare(0, 3, "\xEF\xBB\xBF") == 0;  // the reader's columns skip it
  SourceFile file(e.path, bom ? text.substr(3) : text);
  Diagnostic d;
  d.rule = e.rule;
  d.message = e.message;
  uint32_t line = static_cast<uint32_t>(std::min<size_t>(e.line, file.line_starts.size()));
  uint32_t begin = file.line_starts[line - 1];
  uint32_t end = line < file.line_starts.size() ? file.line_starts[line] : static_cast<uint32_t>(file.text.size());
  uint32_t at = static_cast<uint32_t>(std::min<size_t>(begin + e.col - (e.col ? 1 : 0), end));
  d.span = Span{&file, at, at + 1};
  return render(d);
}

// A failure of the compiled path (lowering, bot, the executor) during `rml run`: not the
// user's program's fault once the front end accepted it, so it exits 3, not 2.
struct CompiledPathError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Pointwise `fun` applications through lowering + bot + simplifier + executor, with one
// executable per (fun, static arguments, argument types): a stream applies the same fun
// at the same types every cycle, so each is compiled once.
struct CompiledStats {
  std::map<std::string, std::shared_ptr<exec::Executable>> cache;
  size_t applications = 0;
};

oracle::Options::FunApply compiled_fun_apply(const CheckedProgram &cp, std::shared_ptr<CompiledStats> stats) {
  return [&cp, stats](const std::string &fn, const std::vector<StaticValue> &statics, const std::vector<array::Tensor> &args) {
    ++stats->applications;
    std::vector<ir::Type> types;
    std::string key = fn;
    for (auto &v : statics) key += "\x1f#" + v.str();
    for (auto &a : args) {
      types.push_back(ir::Type{a.elem, a.shape});
      key += "\x1f" + types.back().str();
    }
    auto &exe = stats->cache[key];
    try {
      if (!exe) {
        lower::Lowered l = lower::lower_fun(cp, fn, statics, types);
        ir::Program p = l.program();
        p.outputs[0] = bot::simplify(bot::bot(l.body));
        exe = exec::compile(p);
      }
      return exe->run(args).at(0);
    } catch (lower::LowerError &e) {
      throw CompiledPathError(std::string("cannot lower '") + fn + "':\n" + e.what());
    } catch (std::bad_alloc &) {
      throw;  // out of memory: cmd_run's diagnostic
    } catch (std::exception &e) {  // ir::IrError, exec::ExecError
      throw CompiledPathError("compiled backend, '" + fn + "' at " + key.substr(fn.size()) + ": " + e.what());
    }
  };
}

}  // namespace

int cmd_run(const RunCmd &c, std::ostream &out, std::ostream &err) {
  if (c.backend != "reference" && c.backend != "compiled") {
    err << "rml: error: --backend is reference or compiled\n";
    return kFrontendError;
  }
  std::string bad;
  if (c.cycles && !parse_cycles(std::to_string(c.cycles), bad)) {
    err << "rml: error: " << bad << "\n";
    return kFrontendError;
  }
  if (!parse_memory(std::to_string(c.max_memory), bad)) {
    err << "rml: error: " << bad << "\n";
    return kFrontendError;
  }
  auto r = load(c.file, err);
  if (!r) return kFrontendError;
  if (int rc = report(*r, err)) return rc;
  std::optional<std::string> chosen = choose_main(*r, c.main_node, err);
  if (!chosen) return kFrontendError;
  const std::string main = *chosen;
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
    opts.max_memory = c.max_memory;
    auto stats = std::make_shared<CompiledStats>();
    if (c.backend == "compiled") opts.apply_fun = compiled_fun_apply(r->checked, stats);
    oracle::Oracle orc(r->checked, prog, opts);
    for (auto &clash : orc.clocks().clashes)
      err << (clash.span.valid() ? location(clash.span) + ": " : std::string()) << "warning[clock.clash]: " << clash.message
          << " (the oracle continues with the first unification)\n";
    oracle::Solver solver = c.solver == "kleene" ? oracle::Solver::Kleene : oracle::Solver::Worklist;
    // The variables to print (--all: those of Result::vars, in its order).
    std::vector<std::string> vars;
    if (!c.show.empty()) {
      std::string why;
      auto shown = resolve_shown(prog, c.show, why);
      if (!shown) {
        err << c.file << ": error[run.show]: " << why << "\n";
        return kFrontendError;
      }
      vars = *shown;
    }
    if (c.show_all) {
      vars.clear();
      auto add = [&](const std::string &v) {
        if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
      };
      for (auto &v : prog.inputs) add(v.name);
      for (auto &v : prog.outputs) add(v.name);
      for (auto &eq : prog.equations) add(eq.lhs);
    }
    if (vars.empty()) {
      for (auto &v : prog.inputs) vars.push_back(v.name);
      for (auto &v : prog.outputs) vars.push_back(v.name);
    }
    // --require-known / --require-true VAR@CYCLE: checked after the run, named as --show
    // names variables.
    struct Required {
      std::string var;
      size_t cycle;
      bool must_be_true;
    };
    std::vector<Required> required;
    for (bool must_be_true : {false, true})
      for (auto &cell : must_be_true ? c.require_true : c.require_known) {
        const char *flag = must_be_true ? "--require-true" : "--require-known";
        size_t at = cell.rfind('@');
        std::string why, cyc = at == std::string::npos ? "" : cell.substr(at + 1);
        bool digits = !cyc.empty() && cyc.size() <= 9 && std::all_of(cyc.begin(), cyc.end(), [](char ch) { return ch >= '0' && ch <= '9'; });
        if (!digits) {
          err << "rml: error: " << flag << ": expected VAR@CYCLE (a cycle from 0 to 999999999), got '" << cell << "'\n";
          return kFrontendError;
        }
        auto var = resolve_shown(prog, {cell.substr(0, at)}, why);
        if (!var) {
          err << c.file << ": error[run.show]: " << flag << ": " << why << "\n";
          return kFrontendError;
        }
        required.push_back({var->front(), static_cast<size_t>(std::stoul(cyc)), must_be_true});
      }
    // The memory cap covers the oracle's store and inputs, and the printed chronogram (a
    // cell's text, ~26 bytes per element, held about three times while formatting).
    auto memory_check = [&](size_t cycles) {
      long double print = 48;
      for (auto &v : vars) print += 128.0L + 80.0L * static_cast<long double>(orc.cell_elements(v));
      long double need = static_cast<long double>(orc.memory_needed(cycles, solver)) + print * static_cast<long double>(cycles);
      orc.check_memory(cycles, need >= 1.8e19L ? UINT64_MAX : static_cast<uint64_t>(need), c.max_memory);
    };
    oracle::Inputs in;
    if (!c.inputs.empty()) {
      std::string io;
      auto text = read_file(c.inputs, io);
      if (!text) {
        err << "rml: error: " << io << "\n";
        return kFrontendError;
      }
      // Before reading: at most a cycle per line (CSV) or per object (JSON).
      bool json = oracle::is_json_trace(*text);
      size_t rows = json ? static_cast<size_t>(std::count(text->begin(), text->end(), '{'))
                         : static_cast<size_t>(std::count(text->begin(), text->end(), '\n')) + 1;
      memory_check(std::max(rows, c.cycles));
      try {
        in = oracle::read_trace(c.inputs, *text, prog, c.cycles);
      } catch (oracle::TraceError &e) {
        err << render_trace_error(e, *text);
        return kFrontendError;
      }
    } else if (!prog.inputs.empty()) {
      err << "rml: error: '" << main << "' has inputs: give a trace with --inputs\n";
      return kFrontendError;
    } else {
      in.cycles = c.cycles ? c.cycles : 10;
    }
    memory_check(in.cycles);
    oracle::Result res = orc.run(in, solver);
    // Every variable under the name rml parse --normalized prints (what --show accepts).
    auto printed = core::printed_names(prog);
    auto label = [&](const std::string &v) {
      auto it = printed.find(v);
      return it == printed.end() ? v : it->second;
    };
    std::vector<std::string> labels;
    for (auto &v : vars) labels.push_back(label(v));
    out << format_chronogram(res, vars, fmt, labels);
    if (c.backend == "compiled")
      err << "note: compiled backend: " << stats->cache.size() << " executable" << (stats->cache.size() == 1 ? "" : "s")
          << " (fun at argument types) for " << stats->applications << " fun application"
          << (stats->applications == 1 ? "" : "s") << "\n";
    for (auto &v : res.input_clock_violations) err << "warning[input.clock]: input " << v << "\n";
    // Non-finite reals in what is printed: not an error value of the language, but worth
    // a warning (the exit code stays 0).
    for (auto &v : vars) {
      if (orc.cell_elements(v) == 0) continue;
      for (size_t n = 0; n < res.cycles; ++n) {
        if (res.tag(v, n) != oracle::Tag::Val) continue;
        oracle::Cell cell = res.at(v, n);
        if (cell.value.elem != Scalar::Real) break;
        auto bad_elem = std::find_if(cell.value.r.begin(), cell.value.r.end(), [](double x) { return !std::isfinite(x); });
        if (bad_elem == cell.value.r.end()) continue;
        err << "warning[run.non-finite]: '" << label(v) << "' is " << (std::isnan(*bad_elem) ? "nan" : *bad_elem > 0 ? "inf" : "-inf")
            << " at cycle " << n << (cell.value.r.size() > 1 ? " (element " + std::to_string(bad_elem - cell.value.r.begin()) + ")" : "")
            << ", its first non-finite value\n";
        break;
      }
    }
    for (auto &e : res.errors)
      err << (e.span.valid() ? location(e.span) + ": " : std::string()) << "error value at cycle " << e.cycle << " in '"
          << label(e.var) << "' [" << e.rule << "]: " << e.message << "\n";
    // Unknown cells of the shown variables, as ranges.
    for (auto &v : vars) {
      std::string ranges;
      for (size_t n = 0; n < res.cycles;) {
        if (res.tag(v, n) != oracle::Tag::Bot) {
          ++n;
          continue;
        }
        size_t m = n;
        while (m + 1 < res.cycles && res.tag(v, m + 1) == oracle::Tag::Bot) ++m;
        ranges += (ranges.empty() ? "" : ", ") + (m == n ? std::to_string(n) : std::to_string(n) + "-" + std::to_string(m));
        n = m + 1;
      }
      if (!ranges.empty()) err << "unknown: '" << label(v) << "' at cycles " << ranges << " (not determined by this prefix)\n";
    }
    // The environment the main node assumes: a trace outside it runs, but is said.
    bool broken = false;
    for (auto &b : broken_assumptions(prog, res)) {
      Diagnostic d;
      d.severity = c.strict_assume ? Severity::Error : Severity::Warning;
      d.rule = "run.assume";
      d.span = b.assumption->span;
      d.message = "the input trace breaks '" + b.text + "': " + b.message +
                  (c.strict_assume ? "" : " (the run continues; --strict-assume makes this an error)");
      err << render(d);
      broken = true;
    }
    bool unknown_required = false;
    for (auto &[v, n, must_be_true] : required) {
      const char *flag = must_be_true ? "--require-true" : "--require-known";
      if (n >= res.cycles) {
        err << "error[run.unknown]: '" << label(v) << "' at cycle " << n << " is past the run's " << res.cycles << " cycles, but "
            << flag << " asks for its value\n";
        unknown_required = true;
        continue;
      }
      const oracle::Cell cell = res.at(v, n);
      if (cell.tag == oracle::Tag::Bot)
        err << "error[run.unknown]: '" << label(v) << "' at cycle " << n << " is unknown, but " << flag << " asks for its value\n";
      else if (cell.tag == oracle::Tag::Nil)
        err << "error[run.nil]: '" << label(v) << "' at cycle " << n << " is nil (the first value of a 'pre' not guarded by '->'), but "
            << flag << " asks for its value\n";
      else if (!must_be_true)
        continue;
      else if (cell.tag == oracle::Tag::Val && cell.value.elem == Scalar::Bool && cell.value.i.size() == 1 && cell.value.i[0] != 0)
        continue;
      else
        err << "error[run.false]: '" << label(v) << "' at cycle " << n << " is "
            << (cell.tag == oracle::Tag::Abs ? "absent" : cell.tag == oracle::Tag::Err ? "an error value (‖)"
                : cell.value.elem == Scalar::Bool && cell.value.i.size() == 1 ? "false" : cell.value.str() + " (not a bool)")
            << ", but --require-true asks for true\n";
      unknown_required = true;
    }
    return res.any_error() || (broken && c.strict_assume) || unknown_required ? kFalsified : kOk;
  } catch (core::ElabError &e) {
    err << (e.span.valid() ? location(e.span) + ": " : std::string("rml: ")) << "error[elab]: " << e.message << "\n";
  } catch (oracle::TraceError &e) {
    err << e.what() << "\n";
  } catch (oracle::MemoryLimitError &e) {
    err << "rml: error[run.memory]: " << e.what() << "; ";
    const char *instead = e.cycles > 1 ? "run fewer cycles" : "use smaller tensors";
    if (e.needed <= kMaxMaxMemory)
      err << "raise the limit with --max-memory (e.g. --max-memory " << ((e.needed + (1ull << 30) - 1) >> 30) << "G) or " << instead << "\n";
    else
      err << "that is more than --max-memory allows (" << format_bytes(kMaxMaxMemory) << "): " << instead << "\n";
  } catch (oracle::OracleError &e) {
    err << "rml: error: " << e.what() << "\n";
  } catch (CompiledPathError &e) {
    err << "rml: error: " << e.what() << "\n";
    return kUnknown;
  } catch (std::bad_alloc &) {
    err << "rml: error: out of memory while running '" << main << "' in the oracle: run fewer cycles or use smaller tensors\n";
    return kUnknown;
  }
  return kFrontendError;
}

// ------------------------------------------------------------------ rml grad

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
  if (c.backend != "compiled" && c.backend != "reference") {
    err << "rml: error: --backend is compiled or reference\n";
    return kFrontendError;
  }
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
    return kFrontendError;
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
    ir::Program g = c.wrt.empty() ? ad::gradient_program(l.body, l.inputs) : ad::gradient_program(l.body, l.inputs, c.wrt);
    if (c.at.empty()) {
      ir::Program v = as_program(ad::vectorise(l.body), l.inputs, "value");
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
    std::vector<array::Tensor> res = c.backend == "reference" ? ir::evaluate(g, in) : exec::compile(g)->run(in);
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
