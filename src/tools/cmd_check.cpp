// rml-check / rml check: the properties of each node with properties, their
// counterexamples written as traces with the commands that replay them, as text or JSON:
// the library's check_file (include/rml/rml.hpp), printed.
#include "tools/commands.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <set>
#include <sstream>
#include <unistd.h>
#include <nlohmann/json.hpp>

#include "driver/progress.hpp"
#include "formats/svg.hpp"
#include "formats/vcd.hpp"
#include "tools/check_formats.hpp"
#include "api/chronogram_text.hpp"

namespace rml {

namespace {

// A finding with a place is rendered with its excerpt (an error when the property is
// falsified, else a warning); one without is a line of its own.
void print_findings(const api::Property &p, std::ostream &out) {
  for (auto &f : p.findings) {
    if (f.line) out << f.rendered;
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
void write_pictures(const std::string &cex_csv, const std::string &csv, const std::string &title, const api::Property &p,
                    const std::string &main) {
  formats::ChronogramTable t;
  std::string why;
  if (csv.empty() || !formats::read_csv_chronogram(csv, t, why)) return;
  std::string base = cex_csv.substr(0, cex_csv.size() - 4);
  std::vector<formats::CellMark> marks;
  if (auto &cell = p.counterexample_cell) {
    auto col = std::find(t.names.begin(), t.names.end(), cell->stream);
    if (col != t.names.end()) marks.push_back({static_cast<size_t>(col - t.names.begin()), cell->cycle});
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

// The stems of the counterexample files of one node's report (`<stem>.csv`, `.vcd`,
// `.svg`), one per property with a counterexample, else empty: NODE.KIND.N, N counting the
// node's counterexamples of properties without a name, and NODE.property.NAME for a named
// property (NAME made file-safe; a stem already taken, compared without case as some file
// systems do, gets -2, -3, ...).
std::vector<std::string> cex_stems(const api::NodeCheck &node) {
  const std::vector<api::Property> &ps = node.properties;
  std::vector<std::string> stems(ps.size());
  std::set<std::string> taken;
  auto lower = [](std::string t) {
    for (char &ch : t) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return t;
  };
  size_t number = 0;
  for (size_t k = 0; k < ps.size(); ++k) {
    if (!ps[k].counterexample || ps[k].named) continue;
    stems[k] = node.node + "." + ps[k].kind + "." + std::to_string(++number);
    taken.insert(lower(stems[k]));
  }
  for (size_t k = 0; k < ps.size(); ++k) {
    if (!ps[k].counterexample || !ps[k].named) continue;
    std::string base = node.node + ".property." + file_safe(ps[k].name), stem = base;
    for (int n = 2; taken.count(lower(stem)); ++n) stem = base + "-" + std::to_string(n);
    stems[k] = stem;
    taken.insert(lower(stem));
  }
  return stems;
}

// The diagnostics of a failure as the JSON report's front-end errors.
nlohmann::json json_diagnostics(const api::Failure &f) {
  nlohmann::json j = nlohmann::json::array();
  for (auto &d : f.diagnostics) {
    using S = api::Diagnostic::Severity;
    nlohmann::json o{{"kind", "frontend"},
                     {"severity", d.severity == S::Error ? "error" : d.severity == S::Warning ? "warning" : "note"},
                     {"rule", d.rule.empty() ? "check.error" : d.rule},
                     {"message", d.message}};
    if (d.line) {
      o["file"] = d.file;
      o["line"] = d.line;
      o["col"] = d.column;
    }
    j.push_back(o);
  }
  return j;
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
  auto report_json = [&](const nlohmann::json &j) { out << render_check_report(j, c.format, c.version); };
  // --cex-dir: made before checking, so that a counterexample has somewhere to go (the
  // default folder is made when the first counterexample is found).
  bool cex_dir_made = false;
  if (c.cex_dir_given && !c.no_cex_files && !c.frontend_only) {
    std::error_code ec;
    std::filesystem::create_directories(c.cex_dir, ec);
    if (ec || !std::filesystem::is_directory(c.cex_dir)) {
      err << "rml-check: error: --cex-dir '" << c.cex_dir << "': cannot create the folder"
          << (ec ? ": " + ec.message() : std::string(": a file of that name exists")) << "\n";
      return kFrontendError;
    }
    cex_dir_made = true;
  }
  api::FileCheckOptions o;
  o.main = c.main_node;
  o.assume = c.assume;
  o.check.rlimit = c.budget.rlimit;
  o.check.seconds = c.budget.seconds;
  o.check.explain = c.explain;
  o.check.pre_any = c.pre_any;
  o.check.int_overflow_error = c.int_overflow_error;
  o.frontend_only = c.frontend_only;
  o.jobs = c.jobs;
  Progress progress(err, "rml-check", !c.quiet);
  o.check.progress = [&](const std::string &what) {
    char t[32];
    std::snprintf(t, sizeof t, " (%.0f s)", progress.seconds());
    progress.update(what + t);
  };
  // Each node's report is printed (its counterexample files written) as soon as the node
  // and those before it are checked, the front end's warnings before the first.
  nlohmann::json jreports = nlohmann::json::array();
  bool warned = false;
  auto warn = [&](const api::FileCheckReport &r) {
    if (warned) return;
    for (auto &w : r.warnings) err << w.rendered;
    warned = true;
  };
  auto report_node = [&](const api::NodeCheck &node) {
    const std::string &main = node.node;
    if (!node.error.empty()) {  // a limit reached: the node's properties are unknown (exit 3), never falsified
      err << "rml-check: error: " << node.error << ": the properties of '" << main << "' are unknown\n";
      jreports.push_back({{"main", main}, {"verdict", "unknown"}, {"error", node.error}});
      return;
    }
    nlohmann::json jr;
    jr["main"] = main;
    jr["properties"] = nlohmann::json::array();
    if (!c.json) out << c.file << ": node " << main << "\n";
    const std::vector<std::string> stems = cex_stems(node);
    for (size_t at = 0; at < node.properties.size(); ++at) {
      const api::Property &p = node.properties[at];
      std::string chronogram, chronogram_csv, cex_file;
      if (p.counterexample) {
        if (p.replay) {
          std::ostringstream table, csv;
          api::write_chronogram(*node.program, *p.replay, oracle::Format::Table, table);
          api::write_chronogram(*node.program, *p.replay, oracle::Format::Csv, csv);
          chronogram = table.str();
          chronogram_csv = csv.str();
        } else {
          chronogram = "(not replayed: " + p.replay_error + ")\n";
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
          if (node.program->inputs().empty())
            text = "# '" + main + "' has no inputs: replay " + std::to_string(p.counterexample->cycles) + " cycles with --cycles " +
                   std::to_string(p.counterexample->cycles) + "\n";
          text += p.counterexample_csv;
          if (!write_own_file(cex_file, text)) {  // never lose it: say so, and print the trace inline below
            err << "rml-check: error: cannot write the counterexample trace to '" << cex_file << "': " << std::strerror(errno)
                << " (printed inline instead)\n";
            cex_file.clear();
          } else {
            write_pictures(cex_file, chronogram_csv,
                           main + ": " + p.kind + (p.named ? " \"" + p.name + "\"" : std::string()) + " " + api::verdict_name(p.verdict), p,
                           main);
          }
        }
      }
      // The command that replays the counterexample and fails (exit 1) as the property does.
      std::string replay_cmd;
      if (p.counterexample) {
        replay_cmd = "rml run " + c.file + " --main " + main;
        if (!cex_file.empty()) replay_cmd += " --inputs " + cex_file;
        else if (!node.program->inputs().empty()) replay_cmd += " --inputs <this trace>";
        replay_cmd += " --cycles " + std::to_string(p.counterexample->cycles);
        if (c.int_overflow_error && (p.kind == "overflow" || p.kind == "property")) replay_cmd += " --int-overflow error";
        for (size_t k = 0; k < p.replay_show.size(); ++k) replay_cmd += (k ? "," : " --show ") + p.replay_show[k];
        if (auto &cell = p.counterexample_cell)
          replay_cmd += (cell->must_be_true ? " --require-true " : " --require-known ") + cell->stream + "@" + std::to_string(cell->cycle);
      }
      if (c.json) {
        nlohmann::json j;
        j["kind"] = p.kind;
        if (p.kind == "property") {
          j["name"] = p.name;  // unnamed: the text is the property's name
          if (p.named) j["text"] = p.text;
          if (p.line) {
            j["line"] = p.line;
            j["col"] = p.column;
          }
        }
        j["verdict"] = api::verdict_name(p.verdict);
        j["method"] = p.method;
        j["horizon"] = p.horizon ? nlohmann::json(*p.horizon) : nlohmann::json(nullptr);
        j["resources"] = p.resources;  // Z3 resource units spent: what --rlimit bounds
        j["findings"] = nlohmann::json::array();
        for (auto &f : p.findings) {
          nlohmann::json fj{{"rule", f.rule}, {"message", f.message}};
          if (f.line) {
            fj["file"] = f.file;
            fj["line"] = f.line;
            fj["col"] = f.column;
          }
          j["findings"].push_back(fj);
        }
        if (p.counterexample) {
          j["counterexample"] = {{"what", p.counterexample_what}, {"trace_csv", p.counterexample_csv}, {"chronogram", chronogram},
                                 {"cycles", p.counterexample->cycles}};
          if (!cex_file.empty()) j["counterexample"]["trace_file"] = cex_file;
          j["counterexample"]["replay"] = replay_cmd;
        } else {
          j["counterexample"] = nullptr;
        }
        if (c.explain) j["smt"] = p.smt;
        jr["properties"].push_back(j);
        continue;
      }
      out << "  " << p.kind;
      if (p.kind == "property") {
        if (p.named) out << " \"" << p.name << "\"";
        out << " '" << p.text << "'";
        if (p.line) out << " (line " << p.line << ")";
      }
      out << ": " << api::verdict_name(p.verdict);
      if (p.horizon)
        out << " (horizon " << *p.horizon << (*p.horizon == 1 ? " cycle" : " cycles")
            << (*p.horizon ? ", buffering " + std::to_string(*p.horizon + 1) + " cycles" : "") << ")";
      out << " -- " << p.method << "\n";
      print_findings(p, out);
      if (p.counterexample) {
        out << "  counterexample: " << p.counterexample_what << "\n";
        std::istringstream lines(chronogram);
        std::string line;
        while (std::getline(lines, line)) out << "    " << line << "\n";
        out << "  replay: " << replay_cmd << "\n";
        if (cex_file.empty() && !node.program->inputs().empty()) {
          // Indented only: a '|' prefix would look like a source excerpt's, and be
          // copied with the trace.
          out << "  trace (CSV; save it and pass it with --inputs):\n";
          std::istringstream csv(p.counterexample_csv);
          while (std::getline(csv, line)) out << "    " << line << "\n";
        }
      }
      if (c.explain && !p.smt.empty()) out << p.smt;
    }
    jreports.push_back(jr);
  };
  o.on_node = [&](const api::FileCheckReport &so_far, size_t k) {
    progress.done();
    warn(so_far);
    report_node(so_far.checked[k]);
    out.flush();
  };
  auto checked = api::check_file(c.file, o);
  progress.done();
  if (!checked) {
    if (!c.json) return print_failure(checked.failure(), err);
    report_json({{"file", c.file}, {"verdict", "error"}, {"diagnostics", json_diagnostics(checked.failure())}});
    return checked.failure().exit_code;
  }
  const api::FileCheckReport &rep = *checked;
  warn(rep);
  if (c.frontend_only) {
    if (!c.json) out << c.file << ": front end ok (" << rep.nodes.size() << " nodes)\n";
    else report_json({{"file", c.file}, {"verdict", "ok"}, {"diagnostics", nlohmann::json::array()}});
    return kOk;
  }
  if (c.json) report_json({{"file", c.file}, {"reports", jreports}});
  return rep.exit_code();
}

}  // namespace

}  // namespace rml
