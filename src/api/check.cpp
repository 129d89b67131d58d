// rml-check through the library: a node's report as verdicts per property, each
// counterexample as a chronogram of inputs and its replay in the oracle; and a whole
// file's, every node with a property checked as `rml-check FILE` does (include/rml/rml.hpp).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <mutex>
#include <optional>
#include <sstream>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "api/state.hpp"
#include "checker/checker.hpp"
#include "core/normalize.hpp"
#include "driver/acceptance.hpp"
#include "driver/load.hpp"
#include "driver/main_node.hpp"
#include "syntax/parser.hpp"

namespace rml::api {

const char *verdict_name(Verdict v) {
  return v == Verdict::Valid ? "valid" : v == Verdict::Falsified ? "falsified" : "unknown";
}

namespace {

// 1 when a property is falsified, else 3 when one is unknown, else 0.
int worst_of(const std::vector<Property> &ps, int worst = kOk) {
  for (auto &p : ps) {
    if (p.verdict == Verdict::Falsified) return kFalsified;
    if (p.verdict == Verdict::Unknown && worst == kOk) worst = kUnknown;
  }
  return worst;
}

}  // namespace

int CheckReport::exit_code() const { return worst_of(properties); }

int FileCheckReport::exit_code() const {
  int worst = kOk;
  for (auto &n : checked) {
    if (!n.error.empty() && worst == kOk) worst = kUnknown;
    worst = worst_of(n.properties, worst);
    if (worst == kFalsified) return worst;
  }
  return worst;
}

Chronogram from_inputs(const core::Program &prog, const oracle::Inputs &in) {
  Chronogram c;
  c.cycles = in.cycles;
  auto add = [&](const std::string &name, const std::vector<oracle::Cell> &cells) {
    c.names.push_back(name);
    std::vector<Cell> col;
    for (auto &x : cells) col.push_back(from_oracle(x));
    c.columns.push_back(std::move(col));
  };
  for (auto &v : prog.inputs)
    if (auto it = in.streams.find(v.name); it != in.streams.end()) add(v.name, it->second);
  for (auto &[name, cells] : in.streams)
    if (!c.column(name)) add(name, cells);
  return c;
}

namespace {

using Labels = std::unordered_map<std::string, std::string>;

std::string label_of(const Labels &printed, const std::string &var) {
  auto it = printed.find(var);
  return it == printed.end() ? var : it->second;
}

// The counterexample run in the oracle: its inputs, then the streams it blames, each named
// as `rml run --show` names it; and the --show that makes `rml run` print the same.
// `orc` is the node's oracle, built once for every replay (building it takes a large node
// a tenth of a second).
void replay(const check::Counterexample &cex, const Program::State &s, oracle::Oracle &orc, const Labels &printed,
            Property &q) try {
  const core::Program &prog = s.elab.prog;
  oracle::Result res = orc.run(cex.inputs);
  std::vector<std::string> show;
  for (auto &v : prog.inputs) show.push_back(v.name);
  for (auto &v : cex.show)
    if (std::find(show.begin(), show.end(), v) == show.end() && res.has(v)) show.push_back(v);
  Chronogram c;
  c.cycles = res.cycles;
  for (auto &v : show) {
    c.names.push_back(label_of(printed, v));
    std::vector<Cell> col;
    for (size_t n = 0; n < res.cycles; ++n) col.push_back(from_oracle(res.at(v, n)));
    c.columns.push_back(std::move(col));
  }
  q.replay = std::move(c);
  // `rml run` shows the inputs and outputs by default: --show only when a blamed stream
  // is neither, and then all of them.
  std::vector<std::string> shown(show.begin(), show.begin() + static_cast<std::ptrdiff_t>(prog.inputs.size()));
  for (auto &v : prog.outputs) shown.push_back(v.name);
  bool extra = false;
  for (auto &v : show)
    if (std::find(shown.begin(), shown.end(), v) == shown.end()) shown.push_back(v), extra = true;
  if (extra)
    for (auto &v : shown) q.replay_show.push_back(label_of(printed, v));
} catch (oracle::OracleError &e) {
  q.replay_error = e.what();
} catch (std::bad_alloc &) {
  q.replay_error = "out of memory";
}

Property to_property(const check::PropertyResult &r, const Program::State &s, oracle::Oracle &orc, const Labels &printed) {
  const core::Program &prog = s.elab.prog;
  Property q;
  q.kind = r.kind;
  q.name = r.name;
  q.verdict = r.verdict == check::Verdict::Valid ? Verdict::Valid
            : r.verdict == check::Verdict::Falsified ? Verdict::Falsified : Verdict::Unknown;
  q.method = r.method;
  if (r.kind == "property") {
    // By its index: the obligations of one node call share that call's span.
    const core::CoreProperty *user = r.index >= 0 ? &prog.properties.at(static_cast<size_t>(r.index)) : nullptr;
    q.text = r.name;
    q.named = user && !user->name.empty();
    if (q.named) q.name = user->name;
    if (r.span.valid()) std::tie(q.line, q.column) = r.span.file->line_col(r.span.begin);
  }
  const Severity severity = q.verdict == Verdict::Falsified ? Severity::Error : Severity::Warning;
  for (auto &f : r.findings) q.findings.push_back(from_stage(rml::Diagnostic{severity, f.rule, f.message, f.span, {}}));
  q.horizon = r.horizon;
  q.resources = r.resources;
  q.smt = r.smt;
  if (r.cex) {
    q.counterexample = from_inputs(prog, r.cex->inputs);
    q.counterexample_what = r.cex->what;
    q.counterexample_csv = r.cex->csv;
    if (auto &c = r.cex->required) q.counterexample_cell = RequiredCell{label_of(printed, c->var), c->cycle, c->must_be_true, "the counterexample"};
    replay(*r.cex, s, orc, printed, q);
  }
  return q;
}

check::Options checker_options(const CheckOptions &o) {
  check::Options copts = CheckBudget{o.seconds, o.rlimit}.options();
  copts.explain = o.explain;
  copts.pre_any = o.pre_any;
  copts.int_overflow_error = o.int_overflow_error;
  return copts;
}

// One node checked: its properties, or the limit that stopped it (the checker replays
// counterexamples in the oracle, so a node one cycle of which exceeds the oracle's memory
// cap is not checked).
NodeCheck check_node(const Program &p, check::Options copts) {
  const Program::State &s = p.state();
  NodeCheck out;
  out.node = s.main;
  out.program = p;
  check::Report rep;
  std::optional<oracle::Oracle> orc;  // built first: it refuses a node too large for it
  // With --int-overflow error, the overflow property and the user properties are replayed
  // in that reading, as the checker replayed them (check::Options::int_overflow_error).
  std::optional<oracle::Oracle> orc_overflow;
  try {
    orc.emplace(s.frontend->checked, s.elab.prog, s.elab.clocks);
    if (copts.int_overflow_error) {
      oracle::Options o;
      o.int_overflow_error = true;
      orc_overflow.emplace(s.frontend->checked, s.elab.prog, s.elab.clocks, o);
    }
    rep = check::check_program(s.frontend->checked, s.elab.prog, s.elab.clocks, copts);
  } catch (oracle::MemoryLimitError &e) {
    out.error = std::string(e.what()) + " (rml-check runs counterexamples in the oracle)";
  } catch (oracle::OracleError &e) {
    out.error = e.what();
  } catch (std::bad_alloc &) {
    out.error = "out of memory while checking '" + s.main + "'";
  }
  if (!out.error.empty()) return out;
  const Labels &printed = s.labels();  // as `rml run --show` spells the streams
  for (auto &r : rep.properties)
    out.properties.push_back(to_property(r, s, orc_overflow && (r.kind == "overflow" || r.kind == "property") ? *orc_overflow : *orc, printed));
  return out;
}

// A generic node's properties: unknown, and why.
NodeCheck generic_node(const NodeDecl &n) {
  NodeCheck out;
  out.node = n.name;
  const std::string why = "not checked: '" + n.name + "' has static parameters, so no values of its own; a property "
                          "is checked in its node's own context (state it on an instance's outputs in a node that calls it)";
  for (auto &a : n.assumptions) {
    if (!a.property) continue;
    Property q;
    q.kind = "property";
    q.text = a.cond && a.cond->span.valid() ? core::property_text(a.cond->span) : std::string("property");
    q.named = !a.name.empty();
    q.name = q.named ? a.name : q.text;
    if (a.span.valid()) std::tie(q.line, q.column) = a.span.file->line_col(a.span.begin);
    q.method = why;
    out.properties.push_back(std::move(q));
  }
  return out;
}

}  // namespace

Result<CheckReport> check(const Program &p, const CheckOptions &o) try {
  check::Options copts = checker_options(o);
  if (o.progress) copts.starting = o.progress;
  NodeCheck n = check_node(p, copts);
  if (!n.error.empty()) return failure(kUnknown, "rml-check: error: " + n.error + ": the properties of '" + p.main() + "' are unknown\n");
  return CheckReport{n.node, std::move(n.properties)};
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml-check: error: out of memory while checking '" + p.main() + "'\n");
} catch (std::exception &e) {
  return failure(kUnknown, std::string("rml-check: error: checking '") + p.main() + "' failed: " + e.what() + "\n");
}

Result<FileCheckReport> check_text(const std::string &name, const std::string &text, const FileCheckOptions &o) try {
  // The whole file's wall-clock budget: every node checked gets what is left of it.
  const auto started = std::chrono::steady_clock::now();
  if (o.check.seconds && !(*o.check.seconds > 0))  // NaN fails too
    return failure(kFrontendError, "rml-check: error: the time budget must be a number of seconds > 0\n");
  std::shared_ptr<FrontendResult> r = run_frontend(name, text);
  if (r->diags.has_errors()) return frontend_failure(*r);
  FileCheckReport out;
  out.file = name;
  out.nodes = user_nodes(*r);
  for (auto &d : r->diags.all())
    if (d.severity == Severity::Warning) out.warnings.push_back(from_stage(d));
  // Which nodes: `main`, the file's `// main:` header, or every node that can be a main.
  std::ostringstream why;
  std::optional<std::vector<std::string>> chosen = chosen_mains(*r, o.main, why);
  if (!chosen) return refused(*r, why.str());
  std::vector<std::string> mains = std::move(*chosen);
  if (o.frontend_only) return out;
  if (mains.empty()) {  // nothing to check is not a success
    size_t n = out.nodes.size();
    std::string none = n == 0 ? "the file declares no node"
                              : std::to_string(n) + (n == 1 ? " node, generic" : " nodes, all generic") + " (static parameters or type variables)";
    Diagnostic d{Diagnostic::Severity::Error, "check.no-node", "no node to check: " + none, name, 0, 0,
                 "rml-check: error: " + name + ": no node to check: " + none + "; --frontend-only checks names, types and shapes only\n"};
    Failure f(kFrontendError, out.warnings);
    f.diagnostics.push_back(d);
    return f;
  }
  if (!o.assume.empty()) {
    if (mains.size() != 1) return refused(*r, "rml-check: error: --assume needs one main node (use --main)\n");
    r = run_frontend(name, text, assume_options(mains[0], o.assume));
    if (r->diags.has_errors()) {
      Failure f = frontend_failure(*r);
      std::vector<Diagnostic> head = from_text("rml-check: error: in --assume:\n");
      f.diagnostics.insert(f.diagnostics.begin(), head.begin(), head.end());
      return f;
    }
  }
  // Properties are checked wherever they are written: a node with a property that is not
  // among those chosen is checked too, in its own context. An imported node's contract is
  // assumed at its calls: it has nothing to check alone.
  std::vector<const NodeDecl *> generic;
  for (auto &d : r->user.decls) {
    auto *n = std::get_if<NodeDecl>(&d);
    if (!n || n->imported || std::find(mains.begin(), mains.end(), n->name) != mains.end()) continue;
    if (std::none_of(n->assumptions.begin(), n->assumptions.end(), [](const Assumption &a) { return a.property; })) continue;
    if (core::can_be_main(r->checked, n->name)) mains.push_back(n->name);
    else generic.push_back(n);
  }
  std::shared_ptr<const FrontendResult> shared = r;
  std::vector<Program> programs;
  for (auto &main : mains) {
    Result<Program> p = from_frontend(name, shared, main);
    if (!p) {
      Failure f = p.failure();
      f.diagnostics.insert(f.diagnostics.begin(), out.warnings.begin(), out.warnings.end());
      return f;
    }
    programs.push_back(*p);
  }
  // `jobs` nodes at once, each on a thread of its own with its own solver contexts: under
  // the resource budget a node's verdicts do not depend on what runs beside it.
  out.checked.reserve(programs.size() + generic.size());  // never moved once a node is told
  out.checked.resize(programs.size());
  std::atomic<size_t> next{0};
  std::atomic<bool> stop{false};  // on_node threw, or a handler ran out of memory: no new node
  std::mutex said;                // one progress line or on_node call at a time
  // on_node in the report's order: node k is told once it and every node before it are
  // checked (under `said`).
  std::vector<char> finished(programs.size(), 0);
  size_t told = 0, done = 0;
  std::exception_ptr escaped;  // on_node's exception, or one of the handlers' own
  auto tell = [&](size_t k) {
    finished[k] = 1;
    ++done;
    for (; told < programs.size() && finished[told]; ++told) {
      if (!o.on_node || escaped) continue;
      try {
        o.on_node(out, told);
      } catch (...) {
        escaped = std::current_exception();
        stop = true;
      }
    }
  };
  auto check_next = [&] {
    try {  // on a thread: nothing escapes it
      for (size_t k; !stop && (k = next++) < programs.size();) {
        const std::string &main = programs[k].main();
        try {  // whatever fails checking is said as the node's
          check::Options copts = checker_options(o.check);
          copts.lanes = o.jobs >= 2 * programs.size() ? 2 : 1;  // a spare thread for each node: a second lane
          if (o.check.seconds) {  // a node reached after the deadline has a budget already spent
            double used = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
            copts.timeout_s = std::max(*o.check.seconds - used, 1e-3);
          }
          if (o.check.progress)
            copts.starting = [&](const std::string &what) {
              std::lock_guard<std::mutex> one(said);
              // With several nodes (several at once under `jobs`), how many are done too.
              std::string of =
                  programs.size() > 1 ? std::to_string(done) + "/" + std::to_string(programs.size()) + " nodes checked; " : "";
              o.check.progress(of + "node " + main + ": " + what);
            };
          out.checked[k] = check_node(programs[k], copts);
        } catch (std::exception &e) {
          out.checked[k].node = main;
          out.checked[k].program = programs[k];
          out.checked[k].error = std::string("checking failed: ") + e.what();
        } catch (...) {
          out.checked[k].node = main;
          out.checked[k].program = programs[k];
          out.checked[k].error = "checking failed";
        }
        std::lock_guard<std::mutex> one(said);
        tell(k);
      }
    } catch (...) {  // out of memory in the handlers above: the call fails once the others stop
      std::lock_guard<std::mutex> one(said);
      if (!escaped) escaped = std::current_exception();
      stop = true;
    }
  };
  {
    // The threads that could be started, and this one: a thread the system refuses leaves
    // its nodes to the others. Joined on the way out, however it is left.
    std::vector<std::jthread> pool;
    try {
      for (size_t t = 1; t < std::min<size_t>(std::max<size_t>(o.jobs, 1), programs.size()); ++t) pool.emplace_back(check_next);
    } catch (std::system_error &) {
    } catch (...) {  // out of memory: the threads started stop after their node
      stop = true;
      throw;
    }
    check_next();
  }
  if (escaped) std::rethrow_exception(escaped);
  for (const NodeDecl *n : generic) {
    out.checked.push_back(generic_node(*n));
    if (o.on_node) o.on_node(out, out.checked.size() - 1);
  }
  return out;
} catch (std::bad_alloc &) {
  return failure(kUnknown, "rml-check: error: out of memory while checking " + name + "\n");
} catch (std::exception &e) {  // a thread that could not be started, or on_node's own
  return failure(kUnknown, "rml-check: error: checking " + name + " failed: " + e.what() + "\n");
} catch (...) {
  return failure(kUnknown, "rml-check: error: checking " + name + " failed\n");
}

Result<FileCheckReport> check_file(const std::string &file, const FileCheckOptions &o) {
  std::string io;
  auto text = read_file(file, io);
  if (!text) return failure(kFrontendError, "rml: error: " + io + "\n");
  return check_text(file, *text, o);
}

}  // namespace rml::api
