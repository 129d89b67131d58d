// rml-check / rml check: the properties of each main node, their counterexamples written
// as traces with the commands that replay them, as text or JSON.
#include "tools/commands.hpp"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>
#include <unordered_map>
#include <nlohmann/json.hpp>

#include "formats/svg.hpp"
#include "formats/vcd.hpp"
#include "tools/check_formats.hpp"

#include "checker/checker.hpp"
#include "core/normalize.hpp"
#include "driver/elaborated.hpp"
#include "oracle/oracle.hpp"
#include "oracle/trace_io.hpp"
#include "syntax/parser.hpp"
#include "tools/chronogram.hpp"
#include "driver/load.hpp"
#include "driver/main_node.hpp"
#include "driver/progress.hpp"

namespace rml {

namespace {

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

// Writes `text` to `path` as a file of its own: a symbolic link already at `path` is
// replaced, never followed (--cex-dir may hold links to the user's files). Returns false
// with errno set when the file cannot be written.
bool write_own_file(const std::string &path, const std::string &text) {
  for (int attempt = 0; attempt < 2; ++attempt) {
    int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      if (errno == ELOOP && attempt == 0 && ::unlink(path.c_str()) == 0) continue;  // a link: removed, then written
      return false;
    }
    size_t done = 0;
    while (done < text.size()) {
      ssize_t w = ::write(fd, text.data() + done, text.size() - done);
      if (w < 0) {
        if (errno == EINTR) continue;
        int e = errno;
        ::close(fd);
        errno = e;
        return false;
      }
      done += static_cast<size_t>(w);
    }
    return ::close(fd) == 0;
  }
  return false;
}

// Next to a counterexample's trace NAME.csv, its replayed chronogram as a waveform
// (NAME.vcd, a signal per tensor element) and a drawing (NAME.svg, the failing cell boxed);
// a picture that cannot be made (too long to draw) is left out, never the trace.
void write_pictures(const std::string &cex_csv, const std::string &csv, const std::string &title, const check::PropertyResult &p,
                    const std::string &main, const std::unordered_map<std::string, std::string> &printed) {
  formats::ChronogramTable t;
  std::string why;
  if (csv.empty() || !formats::read_csv_chronogram(csv, t, why)) return;
  std::string base = cex_csv.substr(0, cex_csv.size() - 4);
  std::vector<formats::CellMark> marks;
  if (p.cex->required) {
    const std::string &v = p.cex->required->var;
    auto col = std::find(t.names.begin(), t.names.end(), printed.count(v) ? printed.at(v) : v);
    if (col != t.names.end()) marks.push_back({static_cast<size_t>(col - t.names.begin()), p.cex->required->cycle});
  }
  try {
    write_own_file(base + ".svg", formats::write_svg(t, title, marks));
  } catch (formats::SvgError &) {
  }
  try {
    write_own_file(base + ".vcd", formats::write_vcd(t, main, title));
  } catch (formats::VcdError &) {
  }
}

// A property's name as a part of a file name: each run of bytes other than ASCII letters,
// digits, '_' and '-' becomes one '_' (no path separator, no dot, no space, no control
// character), at most 64 bytes.
std::string file_safe(const std::string &name) {
  std::string out;
  for (char ch : name) {
    unsigned char u = static_cast<unsigned char>(ch);
    bool keep = (u < 0x80 && std::isalnum(u)) || ch == '_' || ch == '-';
    if (keep) out += ch;
    else if (out.empty() || out.back() != '_') out += '_';
    if (out.size() >= 64) break;
  }
  return out.empty() ? std::string("_") : out;
}

// The user property a result judges (null for clocks, causality, ...): by its index, since
// the obligations of one call share that call's span.
const core::CoreProperty *user_property(const check::PropertyResult &p, const core::Program &prog) {
  return p.kind == "property" && p.index >= 0 ? &prog.properties.at(static_cast<size_t>(p.index)) : nullptr;
}

// The stems of the counterexample files of one node's report (`<stem>.csv`, `.vcd`,
// `.svg`), one per result with a counterexample, else empty: MAIN.KIND.N, N counting the
// node's counterexamples of results without a name, and MAIN.property.NAME for a named
// property (NAME made file-safe; a stem already taken, compared without case as some file
// systems do, gets -2, -3, ...).
std::vector<std::string> cex_stems(const check::Report &rep, const core::Program &prog) {
  std::vector<std::string> stems(rep.properties.size());
  std::set<std::string> taken;
  auto lower = [](std::string t) {
    for (char &ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return t;
  };
  size_t number = 0;
  for (size_t k = 0; k < rep.properties.size(); ++k) {
    const check::PropertyResult &p = rep.properties[k];
    const core::CoreProperty *pp = user_property(p, prog);
    if (!p.cex || (pp && !pp->name.empty())) continue;
    stems[k] = prog.main + "." + p.kind + "." + std::to_string(++number);
    taken.insert(lower(stems[k]));
  }
  for (size_t k = 0; k < rep.properties.size(); ++k) {
    const check::PropertyResult &p = rep.properties[k];
    const core::CoreProperty *pp = user_property(p, prog);
    if (!p.cex || !pp || pp->name.empty()) continue;
    std::string base = prog.main + ".property." + file_safe(pp->name), stem = base;
    for (int n = 2; taken.count(lower(stem)); ++n) stem = base + "-" + std::to_string(n);
    stems[k] = stem;
    taken.insert(lower(stem));
  }
  return stems;
}

int check_files(const CheckCmd &c, std::ostream &out, std::ostream &err);

}  // namespace

// With a structured report, every outcome is one: an error said only on stderr (a file
// that cannot be read, a bad --assume, an elaboration error, a --cex-dir that cannot be
// made) is also the report's diagnostic, so that a CI consumer never parses stderr.
int cmd_check(const CheckCmd &c, std::ostream &out, std::ostream &err) {
  if (!c.json) return check_files(c, out, err);
  std::ostringstream report, said;
  int rc = check_files(c, report, said);
  err << said.str();
  if (rc == kFrontendError && report.str().empty()) {
    std::string text = said.str();
    while (!text.empty() && text.back() == '\n') text.pop_back();
    std::string rule = "check.error";
    if (size_t at = text.find("error["); at != std::string::npos)
      if (size_t end = text.find(']', at); end != std::string::npos) rule = text.substr(at + 6, end - at - 6);
    nlohmann::json d{{"kind", "frontend"}, {"severity", "error"}, {"rule", rule}, {"message", text}};
    out << render_check_report(nlohmann::json{{"file", c.file}, {"verdict", "error"}, {"diagnostics", nlohmann::json::array({d})}},
                               c.format, c.version);
  } else {
    out << report.str();
  }
  return rc;
}

namespace {

int check_files(const CheckCmd &c, std::ostream &out, std::ostream &err) {
  if (c.budget.seconds && !(*c.budget.seconds > 0 && *c.budget.seconds <= kMaxTimeoutSeconds)) {  // NaN fails too
    std::ostringstream got;
    got << *c.budget.seconds;
    err << "rml-check: error: " << timeout_message(got.str()) << "\n";
    return kFrontendError;
  }
  // --timeout is the whole file's: every node checked gets what is left of it.
  const auto started = std::chrono::steady_clock::now();
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
    out << render_check_report(nlohmann::json{{"file", c.file}, {"verdict", "error"}, {"diagnostics", j}}, c.format, c.version);
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
        out << render_check_report(nlohmann::json{{"file", c.file}, {"verdict", "error"}, {"diagnostics", nlohmann::json::array({{{"kind", "frontend"}, {"severity", "error"}, {"rule", "main.unknown"}, {"message", why.str()}}})}}, c.format, c.version);
      return kFrontendError;
    }
    mains.push_back(c.main_node);
  } else if (std::string h = header_main(*r); !h.empty()) mains.push_back(h);
  else mains = main_candidates(*r);
  if (c.frontend_only) {
    if (!c.json) out << c.file << ": front end ok (" << user_nodes(*r).size() << " nodes)\n";
    else out << render_check_report(nlohmann::json{{"file", c.file}, {"verdict", "ok"}, {"diagnostics", nlohmann::json::array()}}, c.format, c.version);
    return kOk;
  }
  if (mains.empty()) {  // nothing to check is not a success (README "Limits and exit codes")
    size_t n = user_nodes(*r).size();
    std::string why = n == 0 ? "the file declares no node" : std::to_string(n) + (n == 1 ? " node, generic" : " nodes, all generic") + " (static parameters)";
    if (!c.json)
      err << "rml-check: error: " << c.file << ": no node to check: " << why
          << "; --frontend-only checks names, types and shapes only\n";
    else
      out << render_check_report(nlohmann::json{{"file", c.file}, {"verdict", "error"}, {"diagnostics", nlohmann::json::array({{{"kind", "frontend"}, {"severity", "error"}, {"rule", "check.no-node"}, {"message", "no node to check: " + why}}})}}, c.format, c.version);
    return kFrontendError;
  }
  if (!c.assume.empty()) {
    if (mains.size() != 1) {
      err << "rml-check: error: --assume needs one main node (use --main)\n";
      return kFrontendError;
    }
    r = load_with_assumptions(std::move(r), c.file, mains[0], c.assume, "rml-check", err);
    if (!r) return kFrontendError;
  }
  // Properties are checked wherever they are written: a node of the file with a property
  // that is not among the nodes chosen is checked too, in its own context (its own
  // assumptions, any inputs: what holds there holds wherever it is called). A generic
  // node (static parameters) has no values of its own: its properties are said unchecked.
  std::vector<const NodeDecl *> generic_with_properties;
  for (auto &d : r->user.decls) {
    auto *n = std::get_if<NodeDecl>(&d);
    // An imported node's contract is assumed at its calls: it has nothing to check alone.
    if (!n || n->imported || std::find(mains.begin(), mains.end(), n->name) != mains.end()) continue;
    if (std::none_of(n->assumptions.begin(), n->assumptions.end(), [](const Assumption &a) { return a.property; })) continue;
    if (core::can_be_main(r->checked, n->name)) mains.push_back(n->name);
    else generic_with_properties.push_back(n);
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
  check::Options opts = c.budget.options();
  opts.explain = c.explain;
  Progress progress(err, "rml-check", !c.quiet);
  std::string node_now;
  opts.starting = [&](const std::string &what) {
    char t[32];
    std::snprintf(t, sizeof t, " (%.0f s)", progress.seconds());
    progress.update("node " + node_now + ": " + what + t);
  };
  int worst = kOk;
  nlohmann::json jreports = nlohmann::json::array();
  for (auto &main : mains) {
    driver::Elaborated elab;
    try {
      elab = driver::elaborate(r->checked, main);
    } catch (core::ElabError &e) {
      err << (e.span.valid() ? location(e.span) + ": " : std::string("rml-check: ")) << "error[elab]: " << e.message << "\n";
      return kFrontendError;
    }
    const core::Program &prog = elab.prog;
    // A limit reached while checking (the oracle's memory cap, out of memory) leaves the
    // node's properties unknown (exit 3), never falsified; the other mains are checked.
    check::Report rep;
    std::string failure;
    if (c.budget.seconds) {  // a node reached after the deadline has a budget already spent
      double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
      opts.timeout_s = std::max(*c.budget.seconds - used, 1e-3);
    }
    try {
      // The checker replays counterexamples in the oracle: a program one cycle of which
      // exceeds the oracle's memory cap (oracle::Options::max_memory) is not checked.
      oracle::Oracle probe(r->checked, prog, elab.clocks);
      node_now = main;
      rep = check::check_program(r->checked, prog, elab.clocks, opts);
      progress.done();
    } catch (oracle::MemoryLimitError &e) {
      failure = std::string(e.what()) + " (rml-check runs counterexamples in the oracle)";
    } catch (oracle::OracleError &e) {
      failure = e.what();  // exit_for(e): kUnknown, as every failure here
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
    const std::vector<std::string> stems = cex_stems(rep, prog);
    // Variables as rml parse --normalized and rml run --show spell them (once a node: a
    // large node's map takes a while).
    const auto printed = core::printed_names(prog);
    for (size_t at = 0; at < rep.properties.size(); ++at) {
      const check::PropertyResult &p = rep.properties[at];
      // A named property (`check "P1" e;`) is reported by its name and its text.
      const core::CoreProperty *named = user_property(p, prog);
      if (named && named->name.empty()) named = nullptr;
      std::string chronogram, chronogram_csv, cex_file, replay_show;
      if (p.cex) {
        try {
          oracle::Oracle orc(r->checked, prog, elab.clocks);
          oracle::Result res = orc.run(p.cex->inputs);
          std::vector<std::string> show;
          for (auto &v : prog.inputs) show.push_back(v.name);
          for (auto &v : p.cex->show)
            if (std::find(show.begin(), show.end(), v) == show.end() && res.has(v)) show.push_back(v);
          // Labelled as rml parse --normalized and rml run --show spell the variables.
          std::vector<std::string> labels;
          for (auto &v : show) labels.push_back(printed.count(v) ? printed.at(v) : v);
          chronogram = format_chronogram(res, show, oracle::Format::Table, labels, &prog);
          chronogram_csv = format_chronogram(res, show, oracle::Format::Csv, labels, &prog);
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
          cex_file = (std::filesystem::path(c.cex_dir) / (stems[at] + ".csv")).string();
          std::string text;
          if (prog.inputs.empty())
            text = "# '" + main + "' has no inputs: replay " + std::to_string(p.cex->inputs.cycles) + " cycles with --cycles " +
                   std::to_string(p.cex->inputs.cycles) + "\n";
          text += p.cex->csv;
          if (!write_own_file(cex_file, text)) {  // never lose it: say so, and print the trace inline below
            err << "rml-check: error: cannot write the counterexample trace to '" << cex_file << "': " << std::strerror(errno)
                << " (printed inline instead)\n";
            cex_file.clear();
          } else {
            write_pictures(cex_file, chronogram_csv,
                           main + ": " + p.kind + (named ? " \"" + named->name + "\"" : std::string()) + " " +
                               check::verdict_name(p.verdict),
                           p, prog.main, printed);
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
          const std::string &v = p.cex->required->var;
          replay_cmd += (p.cex->required->must_be_true ? " --require-true " : " --require-known ") + (printed.count(v) ? printed.at(v) : v) +
                        "@" + std::to_string(p.cex->required->cycle);
        }
      }
      if (c.json) {
        nlohmann::json o;
        o["kind"] = p.kind;
        if (p.kind == "property") {
          o["name"] = named ? named->name : p.name;  // unnamed: the text is the property's name
          if (named) o["text"] = p.name;
          if (p.span.valid()) {
            auto [l, col] = p.span.file->line_col(p.span.begin);
            o["line"] = l;
            o["col"] = col;
          }
        }
        o["verdict"] = check::verdict_name(p.verdict);
        o["method"] = p.method;
        o["horizon"] = p.horizon ? nlohmann::json(*p.horizon) : nlohmann::json(nullptr);
        o["resources"] = p.resources;  // Z3 resource units spent: what --rlimit bounds
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
        if (named) out << " \"" << named->name << "\"";
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
  for (const NodeDecl *n : generic_with_properties) {
    const std::string why = "not checked: '" + n->name + "' has static parameters, so no values of its own; a property "
                            "is checked in its node's own context (state it on an instance's outputs in a node that calls it)";
    nlohmann::json jr{{"main", n->name}, {"properties", nlohmann::json::array()}};
    if (!c.json) out << c.file << ": node " << n->name << "\n";
    for (auto &a : n->assumptions) {
      if (!a.property) continue;
      std::string text = a.cond && a.cond->span.valid() ? core::property_text(a.cond->span) : std::string("property");
      size_t line = a.span.valid() ? a.span.file->line_col(a.span.begin).first : 0;
      if (c.json) {
        nlohmann::json o{{"kind", "property"}, {"name", a.name.empty() ? text : a.name}, {"verdict", "unknown"}, {"method", why},
                         {"horizon", nullptr}, {"resources", 0}, {"findings", nlohmann::json::array()}, {"counterexample", nullptr}};
        if (!a.name.empty()) o["text"] = text;
        if (a.span.valid()) {
          o["line"] = line;
          o["col"] = a.span.file->line_col(a.span.begin).second;
        }
        jr["properties"].push_back(o);
      } else {
        out << "  property " << (a.name.empty() ? std::string() : "\"" + a.name + "\" ") << "'" << text << "'" << (line ? " (line " + std::to_string(line) + ")" : std::string()) << ": unknown -- "
            << why << "\n";
      }
    }
    jreports.push_back(jr);
    if (worst == kOk) worst = kUnknown;
  }
  if (c.json) out << render_check_report(nlohmann::json{{"file", c.file}, {"reports", jreports}}, c.format, c.version);
  return worst;
}

}  // namespace

}  // namespace rml
