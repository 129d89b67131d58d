// Imported nodes and free constants: declarations without a body — JKind's and
// Lustre V6's header alone, Kind 2's `imported`, Lustre V6's `extern` / `unsafe extern`,
// Heptagon's `val` — and Lustre's free constants `const c: t;`, read as nullary imported
// functions. rml-check reads an imported function's outputs as uninterpreted functions of
// its arguments (a free constant: one value for the whole run), an imported node's as
// fresh values; the oracle runs them on outputs given with the inputs (a counterexample's),
// no back end computes them (run.imported, codegen.imported).
//
// The law a proof must keep: a property rml-check proves with `f` imported holds for every
// body of `f` (ImportedProofsHoldForEveryBody, with its negative controls).
#include <gtest/gtest.h>

#include <random>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"
#include "syntax/parser.hpp"
#include "syntax/printer.hpp"

using namespace rml;
using namespace rml::test;

namespace {

const NodeDecl &node_named(const FrontendResult &r, const std::string &name) {
  return std::get<NodeDecl>(*r.checked.find(name));
}

}  // namespace

TEST(LustreImported, EachSpellingIsReadAndPrintedBack) {
  EXPECT_EQ(reprint_program("function f(x: int) returns (y: int);\n"
                            "imported node g(x: int) returns (y: int; z: bool);\n"
                            "extern function h(x: real) returns (y: real);\n"
                            "unsafe extern node u() returns (y: bool);\n"
                            "val fun v(x: int) returns (y: int);\n"
                            "extern node w(x: int) -> (y: int);\n"),
            "function f(x: int) returns (y: int);\n\n"
            "imported node g(x: int) returns (y: int, z: bool);\n\n"
            "extern function h(x: real) returns (y: real);\n\n"
            "unsafe extern node u() returns (y: bool);\n\n"
            "val fun v(x: int) returns (y: int);\n\n"
            "extern node w(x: int) -> (y: int);\n");
  // Kind 2 also writes the word after the keyword; it prints as the word before.
  EXPECT_EQ(reprint_program("node imported g(x: int) returns (y: int);\nfunction imported h(x: real) returns (y: real);\n"),
            "imported node g(x: int) returns (y: int);\n\nimported function h(x: real) returns (y: real);\n");
  EXPECT_EQ(reprint_program("const K: int;\nconst A, B: bool;\nconst C: int = 3;\n"),
            "const K: int;\n\nconst A: bool;\n\nconst B: bool;\n\nconst C: int = 3;\n");
  // A Lustre header alone is imported; with an empty body, or rml's `->` header alone, it
  // is a node without equations, which prints so.
  SourceFile f("p.lus", "node a(x: int) returns (y: int);\nnode b(x: int) returns (y: int);\nlet\ntel\nnode c(x: int) -> (y: int)\n");
  Diagnostics d;
  Program p = parse_program(f, d);
  ASSERT_FALSE(d.has_errors());
  ASSERT_EQ(p.decls.size(), 3u);
  EXPECT_TRUE(std::get<NodeDecl>(p.decls[0]).imported);
  EXPECT_FALSE(std::get<NodeDecl>(p.decls[1]).imported);
  EXPECT_FALSE(std::get<NodeDecl>(p.decls[2]).imported);
  EXPECT_EQ(print_program(p), "node a(x: int) returns (y: int);\n\nnode b(x: int) returns (y: int);\nlet\ntel\n\nnode c(x: int) -> (y: int)\n");
  // The prefix words are names elsewhere.
  auto r = check_text("node main(extern, val: int) returns (imported: int);\nlet\n  imported = extern + val;\ntel\n"
                      "node imported(x: int) returns (y: int);\nlet\n  y = x;\ntel\n");
  EXPECT_FALSE(r->diags.has_errors()) << diag_text(*r);
}

TEST(LustreImported, FreeConstantsAreNullaryImportedFunctions) {
  auto r = check_text("const K: int;\nnode main(x: int) returns (y: int);\nvar k: int;\nlet\n  k = K;\n  y = x + K;\ntel\n"
                      "node other(K: int) returns (y: int);\nlet\n  y = K;\ntel\n");
  ASSERT_FALSE(r->diags.has_errors()) << diag_text(*r);
  const NodeDecl &k = node_named(*r, "K");
  EXPECT_TRUE(k.imported && k.is_function && k.inputs.empty());
  core::Program prog = core::elaborate(r->checked, "main");
  int imported = 0;
  for (auto &eq : prog.equations)
    if (eq.prim == core::Prim::Apply && eq.op == core::ApplyOp::Imported) {
      ++imported;
      EXPECT_EQ(eq.fn, "K");
      EXPECT_TRUE(eq.args.empty());
      EXPECT_FALSE(eq.imported_node);
    }
  EXPECT_EQ(imported, 2);  // one application per use
  // A local defined by an equation (rml infers it) hides the constant too.
  auto loc = check_text("const K: int;\nnode main(x: int) -> (y: int)\n  K = x + 1;\n  y = K;\n");
  ASSERT_FALSE(loc->diags.has_errors()) << diag_text(*loc);
  core::Program lp = core::elaborate(loc->checked, "main");
  for (auto &eq : lp.equations) {
    EXPECT_NE(eq.op, core::ApplyOp::Imported) << eq.lhs;
  }
  // `other`'s input K hides the constant: no application.
  core::Program other = core::elaborate(r->checked, "other");
  for (auto &eq : other.equations) {
    EXPECT_NE(eq.op, core::ApplyOp::Imported) << eq.lhs;
  }
  // A multi-output imported node: one application per output, on the same arguments.
  auto m = check_text("imported node g(x: int) returns (y: int; z: bool);\n"
                      "node main(x: int) returns (a: int; b: bool);\nlet\n  (a, b) = g(x + 1);\ntel\n");
  ASSERT_FALSE(m->diags.has_errors()) << diag_text(*m);
  core::Program mp = core::elaborate(m->checked, "main");
  std::vector<std::pair<std::string, int>> apps;
  for (auto &eq : mp.equations)
    if (eq.op == core::ApplyOp::Imported && eq.prim == core::Prim::Apply) {
      apps.emplace_back(eq.lhs, eq.output);
      EXPECT_TRUE(eq.imported_node);
      EXPECT_EQ(eq.args.size(), 1u);
    }
  EXPECT_EQ(apps, (std::vector<std::pair<std::string, int>>{{"a", 0}, {"b", 1}}));
}

TEST(LustreImported, Errors) {
  // A body after an import word that defines an output (a body of assumptions and
  // properties is a specification: tests/check/test_contracts.cpp); declared clocks on the interface; a free constant read
  // by a constant's value, by a fun, or as an array size; a constant without a type or a
  // value; an imported node as the main node.
  auto a = check_text("extern function f(x: int) returns (y: int);\nlet\n  y = x;\ntel\n");
  EXPECT_EQ(errors_of(*a), (std::vector<std::string>{"3:3 syntax.unsupported"}));
  auto b = check_text("function f(c: bool; x: int when c) returns (y: int);\nnode main(x: int) returns (y: int);\nlet y = x; tel\n");
  EXPECT_EQ(errors_of(*b), (std::vector<std::string>{"1:28 syntax.unsupported"}));
  auto c = check_text("const N: int;\nconst M = N + 1;\nfun h(x: int) : int = x + N;\nfun k(N: int) : int = N;\n"
                      "node main(x: int) returns (y: int);\nlet y = x; tel\n");
  EXPECT_EQ(errors_of(*c), (std::vector<std::string>{"2:11 static.not-static", "3:27 static.not-static"}));
  auto d = check_text("const N: int;\nnode main(x: int^N) returns (y: int);\nlet y = x[0]; tel\n");
  EXPECT_EQ(errors_of(*d), (std::vector<std::string>{"2:18 static.not-static"}));
  auto e = check_text("const N;\nconst A, B = 3;\nnode main(x: int) returns (y: int);\nlet y = x; tel\n");
  EXPECT_EQ(errors_of(*e), (std::vector<std::string>{"1:8 parse.expected", "2:12 parse.expected"}));
  auto f = check_text("function f(x: int) returns (y: int);\nnode main(x: int) returns (y: int);\nlet y = f(x); tel\n");
  ASSERT_FALSE(f->diags.has_errors());
  EXPECT_FALSE(core::can_be_main(f->checked, "f"));
  EXPECT_TRUE(core::can_be_main(f->checked, "main"));
  try {
    core::elaborate(f->checked, "f");
    ADD_FAILURE() << "an imported node elaborated as the main node";
  } catch (core::ElabError &err) {
    EXPECT_NE(err.message.find("'f' is imported"), std::string::npos) << err.message;
    EXPECT_EQ(err.span.file->line_col(err.span.begin), (std::pair<uint32_t, uint32_t>{1, 10}));
  }
}

// The oracle has no value for an imported node: it stops with ImportedError, located at
// the application, where a value is needed (a free constant on a clock that never ticks
// is never needed).
TEST(LustreImported, TheOracleStopsAtTheFirstNeededValue) {
  // The error's span points into the front end's source, which must outlive it.
  auto fe = check_text("function f(x: int) returns (y: int);\nnode main(x: int) returns (y: int);\nlet\n  y = 1 + f(x);\ntel\n");
  ASSERT_FALSE(fe->diags.has_errors()) << diag_text(*fe);
  core::Program prog = core::elaborate(fe->checked, "main");
  oracle::Inputs in;
  in.cycles = 2;
  std::string err;
  for (const char *v : {"1", "2"}) in.streams["x"].push_back(oracle::parse_cell(v, prog.inputs[0].type, err));
  for (auto solver : {oracle::Solver::Worklist, oracle::Solver::Kleene}) {
    try {
      oracle::Oracle(fe->checked, prog).run(in, solver);
      ADD_FAILURE() << "the oracle computed an imported function";
    } catch (oracle::ImportedError &e) {
      EXPECT_EQ(e.name, "f");
      EXPECT_EQ(e.span.file->line_col(e.span.begin), (std::pair<uint32_t, uint32_t>{4, 11}));
    }
  }
  // K in `x + K` ticks with x: in an instance on the clock c, only where c is true.
  const std::string sampled =
      "const K: int;\nnode sub(x: int) returns (y: int);\nlet\n  y = x + K;\ntel\n"
      "node main(c: bool; x: int) returns (y: int);\nlet\n  y = merge c (sub(x when c)) (0 when not c);\ntel\n";
  auto r = run_both(sampled, "main", {{"c", {"F", "F", "F"}}, {"x", {"1", "2", "3"}}});
  expect_stream(r, "y", {"0", "0", "0"});
  EXPECT_THROW(run_both(sampled, "main", {{"c", {"F", "T"}}, {"x", {"1", "2"}}}), oracle::ImportedError);
}

// Uninterpreted functions: equal arguments give equal values, at one cycle and across
// cycles; a free constant keeps its value; a subrange or enumeration output stays in its
// range. An imported *node* may keep state, so none of that holds for it; nothing about
// the function's values is provable. Those are falsified by a counterexample that gives
// the imported outputs the solver chose (in its trace, under their printed names), which
// the oracle replays on those values.
TEST(LustreImported, TheCheckerReadsImportedFunctionsAsUninterpreted) {
  auto r = check_text_report(
      "type color = enum { Red, Green, Blue };\n"
      "function f(x: int) returns (y: int);\n"
      "imported node g(x: int) returns (y: int);\n"
      "const K: int;\nconst S: subrange [0, 3] of int;\nconst C: color;\n"
      "node main(x: int) returns (ok: bool);\n"
      "let\n"
      "  ok = true;\n"
      "  check f(x) = f(x);\n"                                      // 0 valid
      "  check true -> (x = pre x => f(x) = pre f(x));\n"           // 1 valid
      "  check K = (K -> pre K);\n"                                 // 2 valid
      "  check 0 <= S and S <= 3 and (C = Red or C = Green or C = Blue);\n"  // 3 valid
      "  check true -> (x = pre x => g(x) = pre g(x));\n"           // 4 falsified (a node)
      "  check f(x) = x;\n"                                         // 5 falsified
      "  check K <> 7;\n"                                           // 6 falsified
      "tel\n",
      "main");
  using V = check::Verdict;
  EXPECT_EQ(user_property_verdicts(r), (std::vector<V>{V::Valid, V::Valid, V::Valid, V::Valid, V::Falsified, V::Falsified, V::Falsified}));
  for (auto &p : r.properties) {
    if (p.kind != "property") {
      EXPECT_EQ(p.verdict, V::Valid) << p.kind << ": " << p.method;
      continue;
    }
    if (p.verdict != V::Falsified) continue;
    EXPECT_NE(p.method.find("with the outputs of imported nodes given in the trace"), std::string::npos) << p.method;
    ASSERT_TRUE(p.cex);
    // The trace names the inputs, then every imported output (printed names).
    EXPECT_EQ(p.cex->csv.substr(0, p.cex->csv.find('\n')).rfind("x,", 0), 0u) << p.cex->csv;
    EXPECT_GT(p.cex->inputs.streams.size(), 1u);
  }
}

// A run may be given the outputs of its imported calls with its inputs (oracle::Inputs):
// taken where the call computes a value (its operands present; a free constant: its clock
// ticking) and ignored elsewhere; an imported function must be given equal outputs for
// equal arguments, an imported node need not (it may keep state). Negative controls: no
// value where one is needed, two outputs of f for one argument, and a stream for a
// variable that is neither an input nor an imported output are each refused.
TEST(LustreImported, GivenOutputsAreTakenWhereTheCallComputesOne) {
  auto fe = check_text(
      "function f(x: int) returns (y: int);\nimported node g(x: int) returns (y: int);\nconst K: int;\n"
      "node main(c: bool; x: int) returns (a, b, k: int);\n"
      "let\n  a = f(x) + 1;\n  b = merge c (g(x when c)) (0 when not c);\n  k = K;\ntel\n");
  ASSERT_FALSE(fe->diags.has_errors()) << diag_text(*fe);
  core::Program prog = core::elaborate(fe->checked, "main");
  std::map<std::string, std::string> var_of;  // imported function -> its output variable
  for (auto &io : oracle::imported_outputs(prog)) var_of[io.fn] = io.var;
  ASSERT_EQ(var_of.size(), 3u);
  auto cell = [&](const char *text) {
    std::string err;
    oracle::Cell c = oracle::parse_cell(text, Type::scalar(Scalar::Int), err);
    EXPECT_EQ(err, "") << text;
    return c;
  };
  auto inputs = [&](std::vector<const char *> f_out, std::vector<const char *> g_out) {
    oracle::Inputs in;
    in.cycles = 3;
    std::string err;
    for (const char *c : {"T", "F", "T"}) in.streams["c"].push_back(oracle::parse_cell(c, Type::scalar(Scalar::Bool), err));
    for (const char *x : {"4", "4", "5"}) in.streams["x"].push_back(cell(x));
    for (const char *v : f_out) in.streams[var_of["f"]].push_back(cell(v));
    for (const char *v : g_out) in.streams[var_of["g"]].push_back(cell(v));
    for (const char *v : {"7", "7", "7"}) in.streams[var_of["K"]].push_back(cell(v));
    return in;
  };
  for (auto solver : {oracle::Solver::Worklist, oracle::Solver::Kleene}) {
    // g's cell at cycle 1 is ignored (c false: g does not run); f(4) is 10 twice.
    oracle::Result r = oracle::Oracle(fe->checked, prog).run(inputs({"10", "10", "-3"}, {"1", "_", "9"}), solver);
    EXPECT_EQ(r.at("a", 0).str() + " " + r.at("a", 1).str() + " " + r.at("a", 2).str(), "11 11 -2");
    EXPECT_EQ(r.at("b", 0).str() + " " + r.at("b", 1).str() + " " + r.at("b", 2).str(), "1 0 9");
    EXPECT_EQ(r.at("k", 2).str(), "7");
    // A node may answer equal inputs differently; a function may not.
    EXPECT_NO_THROW(oracle::Oracle(fe->checked, prog).run(inputs({"10", "10", "-3"}, {"1", "_", "2"}), solver));
    try {
      oracle::Oracle(fe->checked, prog).run(inputs({"10", "11", "-3"}, {"1", "_", "9"}), solver);
      ADD_FAILURE() << "f(4) given 10 and 11";
    } catch (oracle::ImportedError &e) {
      EXPECT_EQ(e.name, "f");
      EXPECT_NE(e.reason.find("two different outputs"), std::string::npos) << e.reason;
    }
    try {  // g runs at cycle 2 and is given nothing there
      oracle::Oracle(fe->checked, prog).run(inputs({"10", "10", "-3"}, {"1", "_", "_"}), solver);
      ADD_FAILURE() << "g ran without a value";
    } catch (oracle::ImportedError &e) {
      EXPECT_EQ(e.name, "g");
      EXPECT_NE(e.reason.find("at cycle 2"), std::string::npos) << e.reason;
    }
    oracle::Inputs no_f = inputs({}, {"1", "_", "9"});
    no_f.streams.erase(var_of["f"]);
    EXPECT_THROW(oracle::Oracle(fe->checked, prog).run(no_f, solver), oracle::ImportedError);
    oracle::Inputs stray = inputs({"10", "10", "-3"}, {"1", "_", "9"});
    stray.streams["a"] = stray.streams["x"];
    EXPECT_THROW(oracle::Oracle(fe->checked, prog).run(stray, solver), oracle::OracleError);
    // rml-check's replays: an unknown cell is a value to choose, f's from its other calls.
    oracle::Options free;
    free.free_imported = true;
    oracle::Result chosen = oracle::Oracle(fe->checked, prog, free).run(inputs({"?", "10", "?"}, {"1", "_", "?"}), solver);
    EXPECT_EQ(chosen.at("a", 0).str() + " " + chosen.at("a", 2).str() + " " + chosen.at("b", 2).str(), "11 1 0");
  }
}

// The law: a property proved with f and g imported holds, in the oracle, for every body
// they may have (here: several bodies, stateless for the function, stateful for the node,
// on random traces). Negative controls: the properties it does not prove are refuted by
// one of the bodies, so the bodies can tell a wrong `valid` apart; their counterexamples
// fail in the oracle on the imported outputs they give.
TEST(LustreImported, ImportedProofsHoldForEveryBody) {
  const std::string props =
      "node main(x: int) returns (p0, p1, p2, p3, p4: bool);\n"
      "let\n"
      "  p0 = f(x) = f(x);\n"
      "  p1 = true -> (x = pre x => f(x) = pre f(x));\n"
      "  p2 = K = (K -> pre K);\n"
      "  p3 = true -> (x = pre x => g(x) = pre g(x));\n"
      "  p4 = f(x) = x;\n"
      "  check p0;\n  check p1;\n  check p2;\n  check p3;\n  check p4;\n"
      "tel\n";
  const std::string imported = "function f(x: int) returns (y: int);\nimported node g(x: int) returns (y: int);\nconst K: int;\n";
  auto r = check_text_report(imported + props, "main");
  using V = check::Verdict;
  std::vector<V> verdicts = user_property_verdicts(r);
  ASSERT_EQ(verdicts, (std::vector<V>{V::Valid, V::Valid, V::Valid, V::Falsified, V::Falsified}));
  // A falsified one fails in the oracle on the values its counterexample gives f and g.
  for (auto &p : r.properties) {
    if (p.kind != "property" || p.verdict != V::Falsified) continue;
    ASSERT_TRUE(p.cex);
    auto fe = check_text(imported + props);
    core::Program prog = core::elaborate(fe->checked, "main");
    oracle::Result replay = oracle::Oracle(fe->checked, prog).run(p.cex->inputs);
    ASSERT_TRUE(p.cex->required);
    EXPECT_EQ(replay.at(p.cex->required->var, p.cex->required->cycle).str(), "F") << p.name;
  }
  const std::vector<std::string> f_bodies = {"x", "2 * x + 1", "if x > 0 then x else 0 - x", "7"};
  const std::vector<std::string> g_bodies = {"x", "x + (0 -> pre y)", "0 fby x"};
  std::mt19937_64 rng(20261127);
  std::vector<bool> refuted(verdicts.size(), false);
  for (auto &fb : f_bodies)
    for (auto &gb : g_bodies)
      for (int k : {-2, 5}) {
        std::string text = "function f(x: int) returns (y: int);\nlet\n  y = " + fb + ";\ntel\n" +
                           "node g(x: int) returns (y: int);\nlet\n  y = " + gb + ";\ntel\n" + "const K: int = " +
                           std::to_string(k) + ";\n" + props;
        std::vector<std::string> xs;
        for (int n = 0; n < 12; ++n) xs.push_back(std::to_string(static_cast<int>(rng() % 3) - 1));
        auto run = run_both(text, "main", {{"x", xs}});
        expect_solvers_agree(run);
        for (size_t p = 0; p < verdicts.size(); ++p) {
          auto cells = run.worklist.stream("p" + std::to_string(p));
          bool holds = true;
          for (auto &c : cells) holds &= c.tag == oracle::Tag::Val && c.value.i.at(0) == 1;
          if (verdicts[p] == V::Valid) {
            EXPECT_TRUE(holds) << "p" << p << " proved but false with f = " << fb << ", g = " << gb;
          }
          refuted[p] = refuted[p] || !holds;
        }
      }
  EXPECT_TRUE(refuted[3]) << "no body of g refutes the cross-cycle law of a node";
  EXPECT_TRUE(refuted[4]) << "no body of f refutes f(x) = x";
}

TEST(LustreImported, BackEndsRefuseThemWithALocatedError) {
  // rml run, rml run --backend stream and rml compile are tested from the command line
  // (tests/cli); here the shared check they call.
  auto fe = check_text("function f(x: int) returns (y: int);\nnode main(x: int) returns (y: int);\nlet\n  y = 1 + f(x);\ntel\n");
  ASSERT_FALSE(fe->diags.has_errors());
  core::Program prog = core::elaborate(fe->checked, "main");
  size_t n = 0;
  for (auto &eq : prog.equations) n += eq.op == core::ApplyOp::Imported && eq.prim == core::Prim::Apply;
  EXPECT_EQ(n, 1u);
  EXPECT_NE(core::print_core(prog).find("f(x)"), std::string::npos) << core::print_core(prog);
}

// Vélus's stopwatch declares a node named `current` and writes `;` before `returns`: then
// `current(..)` calls it; without such a node it is Lustre's operator (sema/expand_current,
// LustreCore.CurrentHoldsTheLastSampledValue).
TEST(LustreImported, CurrentAsANodeName) {
  auto r = run_both("node current(d: int; ck: bool; x: int when ck);\nreturns (y: int);\nlet\n"
                    "  y = merge ck x ((d fby y) when not ck);\ntel\n"
                    "node main(c: bool; v: int) returns (o: int);\nlet\n  o = current(0, c, v when c);\ntel\n",
                    "main", {{"c", {"F", "T", "F", "T"}}, {"v", {"1", "2", "3", "4"}}});
  expect_stream(r, "o", {"0", "2", "2", "4"});
  expect_solvers_agree(r);
  auto op = run_both("node main(x: int; c: bool) returns (y: int);\nlet\n  y = current(x when c);\ntel\n", "main",
                     {{"c", {"F", "T", "F", "T"}}, {"x", {"1", "2", "3", "4"}}});
  expect_stream(op, "y", {"nil", "2", "2", "4"});
}

