// `rml`: the toolkit's command line (fmt, parse, check, run, compile, grad, corpus, gen, diff, adjoint).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <new>
#include <stdexcept>

#include "tools/cli_options.hpp"
#include "tools/cmd_adjoint.hpp"
#include "tools/cmd_diff.hpp"
#include "tools/commands.hpp"

namespace {
int run(int argc, char **argv) {
  CLI::App app{"rml: reference implementation and verification toolkit for R(ML)2"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("rml ") + RML_VERSION);

  rml::ParseCmd parse;
  auto *p = app.add_subcommand("parse", "parse and check a file, print it (or its normalised form)");
  p->add_option("file", parse.file, "source file")->required();
  p->add_flag("--normalized", parse.normalized, "print the elaborated program: nodes inlined, one primitive per equation");
  p->add_option("--main", parse.main_node, "node to elaborate (default: the file's '// main:' header, else every node without static parameters)");

  rml::FmtCmd fmt;
  auto *f = app.add_subcommand("fmt", "format a file (canonical layout and parentheses)");
  f->add_option("file", fmt.file, "source file")->required();
  f->add_flag("--check", fmt.check, "exit 1 if the file is not already formatted");
  f->add_flag("-i,--in-place", fmt.in_place, "rewrite the file");

  rml::CheckCmd check;
  auto *c = app.add_subcommand("check", "verify a program (as rml-check): front end, clocks, causality, productivity");
  rml::add_check_options(c, check);
  check.version = RML_VERSION;

  rml::RunCmd run;
  auto *r = app.add_subcommand("run", "run a node on an input trace with the oracle; print its chronogram");
  r->add_option("file", run.file, "source file")->required();
  r->add_option("--main", run.main_node, "node to run (default: the file's '// main:' header, else its only node without static parameters)");
  r->add_option("--inputs", run.inputs, "input trace: CSV (header = input names, '_' absent) or JSON (list of objects)");
  r->add_flag("-q,--quiet", run.quiet, "no progress line on standard error (a long run says how far it is)");
  rml::add_numeric_option(r, "--cycles", run.cycles, &rml::parse_cycles,
                          "prefix length, 1..100000000 (default: the trace's; 10 without inputs)");
  rml::add_numeric_option(r, "--max-memory", run.max_memory, &rml::parse_memory,
                          "memory cap of the run (streams, inputs, printed chronogram), e.g. 4G; 1M..1T (default 2G)");
  r->add_option("--show", run.show, "variables to show, named as 'rml parse --normalized' prints them (default: inputs and outputs)")->delimiter(',');
  r->add_flag("--all", run.show_all, "show every variable of the elaborated program");
  r->add_option_function<std::string>(
       "--format",
       [&run](const std::string &t) {
         run.picture = t == "vcd" ? rml::Picture::Vcd : t == "svg" ? rml::Picture::Svg : rml::Picture::None;
         run.format = t == "table" ? rml::oracle::Format::Table : t == "json" ? rml::oracle::Format::Json : rml::oracle::Format::Csv;
       },
       "table, csv, json, vcd (a waveform: GTKWave) or svg (the paper's chronogram drawing)")
      ->check(CLI::IsMember({"table", "csv", "json", "vcd", "svg"}));
  rml::add_choice_option(r, "--solver", run.solver,
                         {{"worklist", rml::oracle::Solver::Worklist}, {"kleene", rml::oracle::Solver::Kleene}},
                         "worklist (default) or kleene (the literal iteration)");
  r->add_flag("--post-clock-data", run.post_clock_data, "refuted alternative: post takes its presence from its argument");
  r->add_flag("--strict-when-merge", run.strict_when_merge, "refuted alternative: when/merge strict in every operand");
  r->add_flag("--strict-assume", run.strict_assume,
              "a trace that breaks an 'assume' of the main node is an error (exit 1), not a warning");
  r->add_flag("--lazy-if", run.lazy_if, "alternative: if is non-strict in the unselected branch");
  rml::add_choice_option(r, "--int-overflow", run.int_overflow_error, {{"wrap", false}, {"error", true}},
                         "wrap (default): ints are 64-bit and wrap around; error: an int operation whose exact result leaves "
                         "the 64-bit range is an error value (rule overflow), as rml-check --int-overflow error reads it "
                         "(the oracle only)");
  r->add_option("--require-known", run.require_known,
                "cells VAR@CYCLE that must have a value: one that is unknown or nil is an error (exit 1); rml-check's "
                "replays of productivity, causality and initialisation counterexamples use it")
      ->delimiter(',');
  r->add_option("--require-true", run.require_true,
                "cells VAR@CYCLE that must be true: false, nil, absent, unknown or an error value is an error (exit 1); "
                "rml-check's replay of a falsified property uses it")
      ->delimiter(',');
  rml::add_choice_option(r, "--backend", run.backend,
                         {{"reference", rml::Backend::Reference}, {"compiled", rml::Backend::Compiled}, {"stream", rml::Backend::Stream}},
                         "reference: the oracle, funs by array::Evaluator (default); compiled: the oracle, funs by the compiled "
                         "path (lowering, bot, executor); stream: once rml-check accepts the node, cycle by cycle in a window of "
                         "2H+2 frames (H its horizon), CSV traces read and CSV/JSON rows written as they come (memory independent "
                         "of the trace's length), funs compiled. Exit 2 when rml-check falsifies clocks, causality or "
                         "productivity, 3 when it cannot decide them or when the trace breaks the node's assumptions "
                         "beyond the window");
  r->add_flag("--native", run.native,
              "with --backend stream: run the node's class as rml compile writes it, compiled by the system's C++ compiler "
              "($RML_CXX, else c++) into a shared object kept in a cache ($RML_CACHE_DIR, else $XDG_CACHE_HOME/rml, else "
              "~/.cache/rml) and loaded in process; the first run of a node compiles it (seconds). Where it cannot be built "
              "(no compiler, a node rml compile does not generate, a post-free node whose clocks clash under an assumption) or the trace "
              "is on standard input, a run.native warning "
              "says why and the window runtime runs; where it stops (an input off its clock, an error value) the runtime takes over from the trace's start");
  r->add_option("--assume", run.assume,
                "an extra assumption on the main node, as rml-check --assume (a trace that breaks it is said as run.assume; "
                "--backend stream proves the node under it)");
  rml::add_budget_options(r, "--check-timeout", "--check-rlimit", run.check_budget, "rml-check's proof of the node (--backend stream)");

  rml::CompileCmd compile;
  auto *m = app.add_subcommand(
      "compile",
      "once rml-check accepts the node (clocks, causality, productivity), write it as a C++ step class in DIR: NODE.hpp "
      "(reset(), step(inputs, outputs) -> Status), NODE.cpp, rml_cell.hpp, runtime/ (the operator table's scalar meanings) "
      "and a CMakeLists.txt; standard library only. Tensors are std::arrays, applications of funs and builtins functions "
      "written from their lowered terms; a node with post is a window class (push/pop, sized by the proved horizon). Exit 2 when "
      "rml-check falsifies a property or the files cannot be written, 3 when it cannot decide one or the node is beyond "
      "what is generated (error[codegen.*] names what and where)");
  m->add_option("file", compile.file, "source file")->required();
  m->add_option("--main", compile.main_node, "main node (default: the file's only node that can be one)");
  m->add_option("-o,--output", compile.out_dir,
                 "output folder (created; files an earlier rml compile wrote in it are replaced, others kept; a file of the "
                 "same name that rml compile did not write is an error, exit 2)")
      ->required();
  m->add_flag("--force", compile.force, "replace files of the output folder even if rml compile did not write them");
  m->add_flag("-q,--quiet", compile.quiet, "no progress line on standard error (the proof of the node says which property it is at)");
  m->add_option("--namespace", compile.ns, "C++ namespace of the class (default rml_generated)");
  m->add_option("--assume", compile.assume, "an extra assumption on the main node, as rml-check --assume");
  rml::add_budget_options(m, "--check-timeout", "--check-rlimit", compile.check_budget, "rml-check's proof of the node");

  rml::GradCmd grad;
  auto *g = app.add_subcommand(
      "grad",
      "differentiate a real-valued fun: print its vectorised program and gradient program, or with --at the value and "
      "gradient at a point as JSON ({\"value\": v, \"gradient\": {arg: ...}}; int/bool arguments have no gradient). "
      "Exit 2: unknown fun, non-real objective, bad arguments (missing/extra names, ragged lists, wrong element kinds)");
  g->add_option("file", grad.file, "source file")->required();
  g->add_option("--fun", grad.fun, "the fun to differentiate (a user or prelude fun returning real)")->required();
  g->add_option("--at", grad.at,
                "JSON object: argument name -> value (nested lists; reals may be \"nan\", \"inf\", \"-inf\"); const "
                "parameters as an int or a list of ints. Sizes come from the shapes");
  g->add_option("--size", grad.sizes, "without --at: fix a static name, NAME=N or NAME=[N, ...] (repeatable)")
      ->expected(1)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  g->add_option("--wrt", grad.wrt, "differentiate with respect to these real parameters only, e.g. --wrt a,b (default: every real parameter)")
      ->delimiter(',');
  rml::add_choice_option(g, "--backend", grad.backend, {{"compiled", rml::Backend::Compiled}, {"reference", rml::Backend::Reference}},
                         "with --at: compiled (the executor, default) or reference (ir::evaluate)");

  rml::CorpusCmd corpus;
  auto *k = app.add_subcommand("corpus", "check every .rml file of a folder against its '// expect' header");
  k->add_option("dir", corpus.dir, "folder (searched recursively)")->required();
  k->add_flag("-v,--verbose", corpus.verbose, "print every diagnostic");

  rml::GenCmd gen;
  std::vector<std::string> gen_without;
  std::string gen_dialect = "rml";
  auto *gn = app.add_subcommand(
      "gen",
      "write random programs that rml-check accepts (well-clocked, causal, productive with a proved horizon), each with "
      "an admissible input trace: DIR/prog_K.rml (or .lus) and DIR/prog_K.csv; reproducible from --seed (src/gen/README.md)");
  rml::add_numeric_option(gn, "--seed", gen.seed, &rml::parse_seed, "the seed, 0..18446744073709551615 (default 1)");
  gn->add_flag("-q,--quiet", gen.quiet, "no progress line on standard error");
  gn->add_option("--count", gen.count, "how many programs (default 1)")->check(CLI::Range(1, 1000000));
  gn->add_option("-o,--output", gen.out_dir, "output folder (default rml-gen)");
  gn->add_option("--size", gen.options.size, "at most this many locals in the main node (default 6, 1..200)");
  gn->add_option("--depth", gen.options.depth, "expression depth (default 3, 0..8)");
  gn->add_option("--cycles", gen.options.cycles, "trace length (default 20)");
  gn->add_option("--without", gen_without, "features left out: post, arrows, clocks, instances, resets, funs, tensors, reals, ints")
      ->delimiter(',');
  gn->add_option("--dialect", gen_dialect,
                 "rml (paper syntax, default), lustre (Lustre V6 / Heptagon text: no post, resets or funs) or lustre-v6 (lustre "
                 "with constants, an enumeration and its clocks, a record, arrays and iterators, a static parameter, restart, => and #)");
  gn->add_flag("--print", gen.print, "also print each program and its trace");
  rml::add_budget_options(gn, "--check-timeout", "--check-rlimit", gen.check_budget, "rml-check's proof of each program");
  gn->add_option("--check-every", gen.check_every,
                 "N: rml-check confirms one program in N before it is written, those whose number hashes to 0 mod N (1: "
                 "every program, redrawn if refused; 0: none). Programs are built to be accepted; the default 20 keeps the "
                 "generator honest at a twentieth of the cost")
      ->check(CLI::Range(0, 1000000));
  rml::add_numeric_option(gn, "--shard", gen.shard, &rml::diff::parse_shard,
                          "K/N: write only this run's share of the --count programs, those k with k mod N = K-1, under "
                          "their own numbers and seeds (a campaign split over N machines; 1 <= K <= N)");

  rml::AdjointCmd adjoint;
  auto *ad = app.add_subcommand(
      "adjoint",
      "derive the training program of a forward node (structural reverse AD over streams: fby <-> post, when <-> "
      "merge with zeros, param <-> a gradient step; gradient funs by symbolic AD) and print it, after the file, as "
      "R(ML)^2 source");
  ad->add_option("file", adjoint.file, "source file")->required();
  ad->add_option("--node,--main", adjoint.node, "the forward node (default: the file's main, as rml run chooses it)");
  ad->add_option("-o,--output", adjoint.out, "write the program here (whole or not at all) instead of stdout");
  ad->add_option("--name", adjoint.name, "the derived node's name (default NODE_adjoint)");
  std::string adjoint_params = "update";
  ad->add_option("--params", adjoint_params,
                 "what each param becomes: update (a gradient step, p = init fby (p + adj_p): training; the default) or "
                 "gradient (its value unchanged, its gradient an output d_p: the gradient at fixed parameters)")
      ->check(CLI::IsMember({"update", "gradient"}));
  rml::DiffCmd diff;
  std::vector<std::string> diff_without;
  std::string diff_dialect = "rml";
  auto *df = app.add_subcommand(
      "diff",
      "run a back end on given or generated programs and traces and compare its outputs with the oracle's, cell by cell "
      "(presence, bools and ints exactly, reals within --ulps/--rel-tol/--abs-tol, the oracle's unknown cells excluded). A "
      "difference, crash, hang or malformed output is shrunk to a small program and trace, printed as a chronogram and "
      "written to DIR/cex.*. Exit 0 all equal, 1 a failure found, 2 usage or a program rml cannot read, 3 not decided");
  df->add_option("file", diff.file, "a program to compare on (with --inputs); without it, --count generated programs");
  df->add_option("--inputs", diff.inputs, "its trace (CSV)");
  df->add_option("--main", diff.main_node, "main node of the given program");
  df->add_option("--backend", diff.backend, "a built-in back end: worklist, kleene (the oracle's two solvers), compiled, stream, cpp (rml compile's C++ class and its CSV command, built with $CXX or c++)");
  df->add_option("--backend-cmd", diff.backend_cmd,
                 "the back end as a shell command: {program}, {inputs}, {outputs} (a file it writes; without it, its "
                 "standard output) and {main} are replaced; it writes a CSV chronogram with a column per output");
  df->add_option("--count", diff.count, "generated programs (default 100)")->check(CLI::Range(1, 10000000));
  rml::add_numeric_option(df, "--seed", diff.seed, &rml::parse_seed, "the generator's seed, 0..18446744073709551615 (default 1)");
  df->add_flag("-q,--quiet", diff.quiet, "no progress line on standard error");
  df->add_option("--size", diff.options.size, "generated programs: at most this many locals (default 6)");
  df->add_option("--depth", diff.options.depth, "generated programs: expression depth (default 3)");
  df->add_option("--cycles", diff.options.cycles, "generated traces: cycles (default 20)");
  df->add_option("--without", diff_without, "generated programs: features left out (as rml gen)")->delimiter(',');
  df->add_option("--dialect", diff_dialect, "the text the back end reads: rml (default), lustre or lustre-v6 (as rml gen)");
  df->add_option("--ulps", diff.tolerance.ulps, "reals: equal within this many representable doubles (default 4)")
      ->check(CLI::Range(int64_t{0}, int64_t{1} << 52));
  rml::add_numeric_option(df, "--rel-tol", diff.tolerance.rel, &rml::parse_rel_tol,
                          "reals: or within this relative difference, 0..1 (default 0)");
  rml::add_numeric_option(df, "--abs-tol", diff.tolerance.abs, &rml::parse_abs_tol,
                          "reals: or at most this far apart (default 0; for values near zero after a cancellation)");
  rml::add_numeric_option(df, "--timeout", diff.timeout_s, &rml::parse_timeout, "seconds for one back-end run (default 10; 120 for --backend stream and cpp, which check each program again, and cpp compiles it)");
  rml::add_budget_options(df, "--check-timeout", "--check-rlimit", diff.check_budget, "rml-check's proof of each program");
  df->add_option("--check-every", diff.check_every,
                 "N: rml-check confirms one generated program in N before it is compared, as rml gen's (1: every program; "
                 "0: none; default 20). A failing program is always checked: one rml-check does not accept is left out, said "
                 "on standard error")
      ->check(CLI::Range(0, 1000000));
  df->add_option("-o,--output", diff.out_dir, "where a counterexample is written (default rml-diff)");
  df->add_flag("!--no-shrink", diff.shrink, "report the failing case as found");
  df->add_flag("--keep-going", diff.keep_going,
               "do not stop at the first failure: shrink each and write it to DIR/fail_K (K its program), then print a "
               "table of the failures, distinct ones being those whose shrunk programs differ");
  rml::add_numeric_option(df, "--shard", diff.shard, &rml::diff::parse_shard,
                          "K/N: compare only this run's share of the --count programs, those k with k mod N = K-1, under "
                          "their own numbers and seeds; DIR/summary.tsv records it for --merge");
  df->add_option("--merge", diff.merge,
                 "DIR...: run nothing; read the summary.tsv of each shard's output folder and report the campaign as one "
                 "(exit 0 all shards present and equal, 1 a failure, 2 a summary missing or from another campaign, 3 shards "
                 "missing or stopped at a failure)")
      ->expected(1, -1);
  rml::add_numeric_option(df, "--shrink-time", diff.shrink_seconds, &rml::parse_timeout, "a wall-clock limit on shrinking (default: none; shrinking always stops after 2000 candidates, the same on any machine; a time limit makes the result depend on the machine's speed)");

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError &e) {
    int code = app.exit(e);
    return code == 0 ? 0 : rml::kFrontendError;
  }
  // Out of memory is a diagnostic and exit 3 (no result), never an abort (README "Limits
  // and exit codes"); the commands catch it where they can say more.
  if (*gn || *df) {
    std::string why;
    auto &o = *gn ? gen.options : diff.options;
    if (!rml::gen_options(*gn ? gen_without : diff_without, *gn ? gen_dialect : diff_dialect, o, why)) {
      std::cerr << "rml: error: " << why << "\n";
      return rml::kFrontendError;
    }
    std::error_code ec;
    diff.self = std::filesystem::read_symlink("/proc/self/exe", ec).string();
    if (ec) diff.self = argv[0];
  }
  const char *sub = *p ? "parse" : *f ? "fmt" : *c ? "check" : *k ? "corpus" : *r ? "run" : *g ? "grad" : *m ? "compile" : *gn ? "gen" : *df ? "diff" : *ad ? "adjoint" : "";
  try {
    if (*p) return rml::cmd_parse(parse, std::cout, std::cerr);
    if (*f) return rml::cmd_fmt(fmt, std::cout, std::cerr);
    if (*c) return rml::cmd_check(check, std::cout, std::cerr);
    if (*k) return rml::cmd_corpus(corpus, std::cout, std::cerr);
    if (*r) return rml::cmd_run(run, std::cout, std::cerr);
    if (*g) return rml::cmd_grad(grad, std::cout, std::cerr);
    if (*m) return rml::cmd_compile(compile, std::cout, std::cerr);
    if (*gn) return rml::cmd_gen(gen, std::cout, std::cerr);
    if (*df) return rml::cmd_diff(diff, std::cout, std::cerr);
    if (*ad) {
      adjoint.param_gradients = adjoint_params == "gradient";
      return rml::cmd_adjoint(adjoint, std::cout, std::cerr);
    }
  } catch (const std::bad_alloc &) {
    std::cout.flush();
    std::cerr << "rml: error: out of memory while running 'rml " << sub << "'\n";
    return rml::kUnknown;
  } catch (const std::length_error &e) {  // a container asked for more than it can hold
    std::cout.flush();
    std::cerr << "rml: error: out of memory while running 'rml " << sub << "' (" << e.what() << ")\n";
    return rml::kUnknown;
  } catch (const std::exception &e) {  // a bug: said, not an abort
    std::cout.flush();
    std::cerr << "rml: internal error while running 'rml " << sub << "': " << e.what() << "\n";
    return rml::kUnknown;
  }
  return rml::kFrontendError;
}
}  // namespace

int main(int argc, char **argv) { rml::exit_now(run(argc, argv)); }
