// Kind 2's if statements, when and cond blocks and frame blocks (syntax/statement_blocks.hpp,
// grammar.md §2): each variable an if statement defines is the conditional of its
// branches; a when block's branch runs only where it is taken (its nodes step and its
// `pre`s count there); in a frame block a branch that leaves a variable undefined holds it
// (`init -> pre v`, or `pre v`), which `last v` reads.
// Every expected stream below is worked out by hand from those rules (comments show how).
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include "checker/checker.hpp"
#include "oracle_util.hpp"
#include "test_util.hpp"

using namespace rml;
using namespace rml::test;

// if / elsif / else, nested: every variable takes the branch its conditions select.
TEST(LustreStatementBlocks, AnIfStatementIsTheConditionalOfItsBranches) {
  const std::string text =
      "node main(c, d: bool; x: int) returns (a, b: int);\n"
      "let\n"
      "  if c then\n"
      "    a = x; b = 1;\n"
      "  elsif d then\n"
      "    if x > 2 then a = 10; b = 2; else a = 20; b = 3; fi\n"
      "  else\n"
      "    a = -x; b = 4;\n"
      "  fi\n"
      "tel\n";
  auto r = run_both(text, "main",
                    {{"c", {"T", "F", "F", "F", "T"}}, {"d", {"F", "T", "T", "F", "T"}}, {"x", {"1", "2", "3", "4", "5"}}});
  expect_stream(r, "a", {"1", "20", "10", "-4", "5"});
  expect_stream(r, "b", {"1", "3", "2", "4", "1"});
  expect_solvers_agree(r);
}

// A frame variable a branch leaves undefined keeps its initialisation at the first cycle,
// then its previous value; one no statement defines is its initialisation held (h), or,
// without one, nil (u: `pre u`); one the body defines everywhere ignores it.
TEST(LustreStatementBlocks, AFrameBlockHoldsWhatABranchLeavesUndefined) {
  const std::string text =
      "node main(c, d: bool; x: int) returns (a, b, h, u, w: int);\n"
      "let\n"
      "  frame (a, b, h, u, w)\n"
      "    a = 10; b = 100; h = 7; w = 55;\n"
      "  let\n"
      "    w = x + 1;\n"
      "    if c then\n"
      "      a = x;\n"
      "    elsif d then\n"
      "      b = x * 2;\n"
      "    else\n"
      "      a = 0; b = 0;\n"
      "    fi\n"
      "  tel\n"
      "tel\n";
  auto r = run_both(text, "main",
                    {{"c", {"T", "F", "F", "T", "F"}}, {"d", {"F", "T", "F", "F", "T"}}, {"x", {"1", "2", "3", "4", "5"}}});
  // a: x where c; held where d (pre a); 0 otherwise.
  expect_stream(r, "a", {"1", "1", "0", "4", "4"});
  // b: held where c (100 at the first cycle, then pre b); 2x where d; 0 otherwise.
  expect_stream(r, "b", {"100", "4", "0", "0", "10"});
  expect_stream(r, "h", {"7", "7", "7", "7", "7"});
  expect_stream(r, "u", {"nil", "nil", "nil", "nil", "nil"});
  expect_stream(r, "w", {"2", "3", "4", "5", "6"});
  expect_solvers_agree(r);
}

// A tuple equation in a branch: split when its right side is a tuple, else through locals
// computed at every cycle (the node `acc` steps at every cycle, as in Lustre's `if`).
TEST(LustreStatementBlocks, TupleEquationsInBranches) {
  const std::string text =
      "node acc(x: int) returns (s, n: int);\n"
      "let\n"
      "  s = x -> pre s + x;\n"
      "  n = 1 -> pre n + 1;\n"
      "tel\n"
      "node main(c: bool; x: int) returns (p, q: int);\n"
      "let\n"
      "  if c then\n"
      "    (p, q) = acc(x);\n"
      "  else\n"
      "    (p, q) = (0, x);\n"
      "  fi\n"
      "tel\n";
  auto r = run_both(text, "main", {{"c", {"T", "F", "T", "T"}}, {"x", {"5", "7", "1", "2"}}});
  expect_stream(r, "p", {"5", "0", "13", "15"});  // acc's running sum 5, 12, 13, 15 where c, 0 elsewhere
  expect_stream(r, "q", {"1", "7", "3", "4"});    // acc's count 1, 2, 3, 4 where c, x elsewhere
}

// Generated locals avoid every name of the file: here the user's `if_l4c6` is the name the
// condition's local would take.
TEST(LustreStatementBlocks, GeneratedNamesAvoidTheFilesNames) {
  const std::string text =
      "node main(c: bool) returns (a, if_l4c6: int);\n"
      "let\n"
      "  if_l4c6 = 5;\n"
      "  if c then a = 1; else a = 2; fi\n"
      "tel\n";
  auto r = run_both(text, "main", {{"c", {"T", "F"}}});
  expect_stream(r, "a", {"1", "2"});
  expect_stream(r, "if_l4c6", {"5", "5"});
}

// A condition is computed once per cycle, so every variable of the statement takes the
// same branch even when the condition calls an imported node (a free value at each call):
// `x = y` holds. Copying the condition into each variable's conditional would make two
// calls, and the checker would falsify it.
TEST(LustreStatementBlocks, ConditionsAreEvaluatedOncePerCycle) {
  auto r = check_text_report(
      "node imported nondet() returns (b: bool);\n"
      "node main() returns (x, y: int);\n"
      "let\n"
      "  frame (x, y)\n"
      "    x = 0; y = 0;\n"
      "  let\n"
      "    if nondet() then x = 1; y = 1; else x = 2; y = 2; fi\n"
      "  tel\n"
      "  check x = y;\n"
      "  check x = 1;\n"
      "tel\n",
      "main");
  using V = check::Verdict;
  EXPECT_EQ(user_property_verdicts(r), (std::vector<V>{V::Valid, V::Falsified}));
}

// A when block's branch runs on its guard's clock: the node it calls steps, and its `pre`
// and `->` count, only where the branch is taken; a nested guard is reached only inside
// its branch; `last v` is v's previous value (its initialisation at the first cycle).
// Computed eagerly (as an if statement), a would be 1 1 3 4 4 6 and b 0 2 2 3 5 5.
TEST(LustreStatementBlocks, AWhenBlocksBranchRunsOnlyWhereTaken) {
  const std::string text =
      "node count() returns (n: int);\n"
      "let\n"
      "  n = 1 -> pre n + 1;\n"
      "tel\n"
      "node main(c, d: bool; x: int) returns (a, b, k: int);\n"
      "let\n"
      "  frame (a, b, k)\n"
      "    a = 0; b = 0; k = 100;\n"
      "  let\n"
      "    when c then\n"
      "      a = count();\n"
      "      b = 0 -> pre x;\n"
      "      when d then\n"
      "        k = last k + 1;\n"
      "      end\n"
      "    else\n"
      "      a = last a;\n"
      "      b = x;\n"
      "    end\n"
      "  tel\n"
      "tel\n";
  auto r = run_both(text, "main",
                    {{"c", {"T", "F", "T", "T", "F", "T"}},
                     {"d", {"F", "T", "T", "F", "T", "T"}},
                     {"x", {"1", "2", "3", "4", "5", "6"}}});
  expect_stream(r, "a", {"1", "1", "2", "3", "3", "4"});        // count's 1, 2, 3, 4 at c's ticks
  expect_stream(r, "b", {"0", "2", "1", "3", "5", "4"});        // x at c's previous tick; x where not c
  expect_stream(r, "k", {"100", "100", "101", "101", "101", "102"});  // + 1 where c and d
  expect_solvers_agree(r);
  // The same as if statements: every branch computed at every cycle.
  std::string eager = text;
  for (auto [from, to] : {std::pair<std::string, std::string>{"when c then", "if c then"}, {"when d then", "if d then"}}) eager.replace(eager.find(from), from.size(), to);
  eager.replace(eager.find("      end\n"), 10, "      fi\n");
  eager.replace(eager.find("    end\n"), 8, "    fi\n");
  auto e = run_both(eager, "main",
                    {{"c", {"T", "F", "T", "T", "F", "T"}},
                     {"d", {"F", "T", "T", "F", "T", "T"}},
                     {"x", {"1", "2", "3", "4", "5", "6"}}});
  expect_stream(e, "a", {"1", "1", "3", "4", "4", "6"});
  expect_stream(e, "b", {"0", "2", "2", "3", "5", "5"});
  expect_stream(e, "k", {"100", "100", "101", "101", "101", "102"});
}

// cond | c1: S1 | c2: S2 otherwise: S3 end is when c1 then S1 else when c2 then S2 else S3.
TEST(LustreStatementBlocks, ACondBlockTakesItsFirstTrueBranch) {
  const std::string text =
      "node main(x: int) returns (s: int);\n"
      "let\n"
      "  cond\n"
      "  | x > 10: s = 2;\n"
      "  | x > 0: s = 1;\n"
      "  otherwise: s = 0;\n"
      "  end\n"
      "tel\n";
  auto r = run_both(text, "main", {{"x", {"20", "5", "-3", "10", "11"}}});
  expect_stream(r, "s", {"2", "1", "0", "1", "2"});
}

namespace {

// A random frame block over a and b: nested when blocks whose branches define a subset of
// the variables not defined around them, from expressions without temporal operators or
// node calls (x, y, constants, `last a`, `last b`, + and -), guards over c1..c3 and x.
struct BlockGen {
  std::string text;
  std::string expr(int depth) {
    int k = *rc::gen::inRange(0, depth > 0 ? 7 : 5);
    switch (k) {
      case 0: return "x";
      case 1: return "y";
      case 2: return std::to_string(*rc::gen::inRange(-3, 4));
      case 3: return "last a";
      case 4: return "last b";
      case 5: return "(" + expr(depth - 1) + " + " + expr(depth - 1) + ")";
      default: return "(" + expr(depth - 1) + " - " + expr(depth - 1) + ")";
    }
  }
  std::string cond() {
    switch (*rc::gen::inRange(0, 5)) {
      case 0: return "c1";
      case 1: return "c2";
      case 2: return "not c3";
      case 3: return "x > " + std::to_string(*rc::gen::inRange(-2, 3));
      default: return "(c1 and x < y)";
    }
  }
  // Statements defining a subset of `vars` (each once).
  void statements(const std::vector<std::string> &vars, int depth, const std::string &indent) {
    std::vector<std::string> here, nested;
    for (auto &v : vars) (*rc::gen::inRange(0, 3) == 0 && depth > 0 ? nested : here).push_back(v);
    for (auto &v : here)
      if (*rc::gen::inRange(0, 4) > 0) text += indent + v + " = " + expr(2) + ";\n";
    if (!nested.empty()) block(nested, depth - 1, indent);
  }
  void block(const std::vector<std::string> &vars, int depth, const std::string &indent) {
    text += indent + "when " + cond() + " then\n";
    statements(vars, depth, indent + "  ");
    if (*rc::gen::inRange(0, 3) > 0) {
      text += indent + "else\n";
      statements(vars, depth, indent + "  ");
    }
    text += indent + "end\n";
  }
};

std::string as_if_statements(std::string t) {
  for (auto [from, to] : {std::pair<std::string, std::string>{"when ", "if "}, {"end\n", "fi\n"}})
    for (size_t at = 0; (at = t.find(from, at)) != std::string::npos; at += to.size()) t.replace(at, from.size(), to);
  return t;
}

}  // namespace

// Law (Kind 2's manual): a when block whose branches hold no temporal operator and call no
// node computes what the same if statement computes — laziness shows only through state.
// The generator nests blocks up to three deep, leaves variables undefined in branches (held
// through the frame) and reads `last` inside sampled branches; the negative control is
// AWhenBlocksBranchesRunOnlyWhereTaken, whose `pre` and node call make the two differ.
// Both frame variables are initialised: without, the held value is nil at the first cycle,
// and rml's `if` is nil when an operand is (semantics.md §4.3) where a merge takes only
// the selected branch — this law's first counterexample, written in grammar.md.
RC_GTEST_PROP(LustreStatementBlocks, AWhenBlockWithoutStateIsItsIfStatement, ()) {
  BlockGen g;
  g.text = "node main(c1, c2, c3: bool; x, y: int) returns (a, b: int);\nlet\n  frame (a, b)\n";
  g.text += "    a = " + std::to_string(*rc::gen::inRange(-5, 6)) + ";\n";
  g.text += "    b = " + std::to_string(*rc::gen::inRange(-5, 6)) + ";\n";
  g.text += "  let\n";
  g.block({"a", "b"}, 3, "    ");
  g.text += "  tel\ntel\n";
  const size_t n = 7;
  std::map<std::string, Vec> in;
  for (const char *c : {"c1", "c2", "c3"})
    for (size_t k = 0; k < n; ++k) in[c].push_back(*rc::gen::arbitrary<bool>() ? "T" : "F");
  for (const char *v : {"x", "y"})
    for (size_t k = 0; k < n; ++k) in[v].push_back(std::to_string(*rc::gen::inRange(-4, 5)));
  Run lazy = run_both(g.text, "main", in);
  Run eager = run_both(as_if_statements(g.text), "main", in);
  auto str = [](const std::vector<oracle::Cell> &cells) {
    std::string out;
    for (auto &c : cells) out += c.str() + " ";
    return out;
  };
  for (const char *v : {"a", "b"})
    if (lazy.worklist.stream(v) != eager.worklist.stream(v))
      RC_FAIL(g.text + std::string(v) + ": when blocks " + str(lazy.worklist.stream(v)) + ", if statements " + str(eager.worklist.stream(v)));
  RC_ASSERT(lazy.worklist.stream("a") == lazy.kleene.stream("a"));
}

TEST(LustreStatementBlocks, Errors) {
  auto node = [](const std::string &body) {
    return "node main(c: bool; x: int) returns (a, b: int);\nlet\n" + body + "tel\n";
  };
  // Outside a frame block every branch defines each variable of the statement.
  EXPECT_EQ(errors_of(*check_text(node("  if c then a = 1; b = 1; else a = 2; fi\n"))),
            (std::vector<std::string>{"3:3 name.undefined"}));
  EXPECT_EQ(errors_of(*check_text(node("  if c then a = 1; b = 1; fi\n"))),
            (std::vector<std::string>{"3:3 name.undefined", "3:3 name.undefined"}));
  // A frame block defines and initialises only its frame's variables.
  EXPECT_EQ(errors_of(*check_text(node("  frame (a) let a = 1; b = 2; tel\n"))), (std::vector<std::string>{"3:24 name.unknown"}));
  EXPECT_EQ(errors_of(*check_text(node("  frame (a) b = 0; let a = 1; tel\n  b = 2;\n"))),
            (std::vector<std::string>{"3:13 name.unknown"}));
  // One definition a branch.
  EXPECT_EQ(errors_of(*check_text(node("  frame (a, b) let if c then a = 1; a = 2; fi b = 0; tel\n"))),
            (std::vector<std::string>{"3:37 name.duplicate"}));
  EXPECT_EQ(errors_of(*check_text(node("  when c then a = 1; b = 1; else a = 2; end\n"))),
            (std::vector<std::string>{"3:3 name.undefined"}));
  // A tuple equation of a block goes through locals of its variables' declared types.
  EXPECT_EQ(errors_of(*check_text("node f(x: int) returns (p, q: int);\nlet\n  p = x; q = x;\ntel\n" +
                                  node("  if c then (a, z) = f(x); b = 1; else a = 0; b = 0; fi\n"))),
            (std::vector<std::string>{"7:17 name.undeclared"}));
  // `last v` reads a variable of the frame.
  EXPECT_EQ(errors_of(*check_text(node("  frame (a) let a = last b; tel\n  b = 1;\n"))),
            (std::vector<std::string>{"3:26 name.unknown"}));
  // Not read: if statements and lazy blocks inside each other, properties inside a block.
  EXPECT_EQ(errors_of(*check_text(node("  when c then if c then a = 1; else a = 2; fi b = 1; else a = 0; b = 0; end\n"))),
            (std::vector<std::string>{"3:15 syntax.unsupported", "3:3 name.undefined"}));
  EXPECT_EQ(errors_of(*check_text(node("  if c then check a > 0; fi\n  a = 1; b = 1;\n"))),
            (std::vector<std::string>{"3:13 syntax.unsupported"}));
  EXPECT_EQ(errors_of(*check_text(node("  if c then a = 1; b = 1;\n"))), (std::vector<std::string>{"4:1 parse.expected"}));
}
