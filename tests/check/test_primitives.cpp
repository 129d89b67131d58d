// The stream-primitive table (core/primitives.hpp) and what its consumers build from it:
// the checker's needs graph, edge by edge, for one equation of each primitive, and the
// may-be-nil analysis. These pin the table's rows: a wrong offset, tick, guard or nil
// flag changes an edge or a verdict below.
#include <gtest/gtest.h>

#include <set>
#include <sstream>

#include "checker/checker.hpp"
#include "checker/dep_graph.hpp"
#include "core/clocks.hpp"
#include "core/primitives.hpp"
#include "sema/frontend.hpp"

using namespace rml;

namespace {

// Each edge as "y <- x @offset [need] {guards}", sorted.
std::set<std::string> edges_of(const std::string &text, const std::string &main) {
  auto fe = run_frontend("p.rml", text);
  EXPECT_FALSE(fe->diags.has_errors()) << render_all(fe->diags);
  core::Program prog = core::elaborate(fe->checked, main);
  core::Clocks ck = core::infer_clocks(prog);
  check::DepGraph g = check::build_graph(prog, ck);
  std::set<std::string> out;
  for (auto &e : g.edges) {
    std::ostringstream s;
    s << g.names[e.from] << " <- " << g.names[e.to] << " @" << e.offset
      << (e.need == check::Edge::Need::FirstOnly ? " first" : e.need == check::Edge::Need::NotFirst ? " later" : "");
    for (auto &l : e.guards) s << " {" << (l.positive ? "" : "not ") << l.cond << "@" << l.offset << "}";
    out.insert(s.str());
  }
  return out;
}

}  // namespace

TEST(PrimitiveTable, RowsDescribeEveryPrimitiveInOrder) {
  static_assert(core::rows_in_prim_order());
  for (auto &row : core::kPrimitives) {
    EXPECT_STREQ(core::prim_name(row.prim), row.name);
    for (int k = 0; k < std::max<int>(row.arity, 1); ++k) {
      const core::OperandUse &u = row.uses[static_cast<size_t>(k)];
      EXPECT_TRUE(u.offset >= -1 && u.offset <= 1) << row.name;
      if (u.guard_kind != core::GuardKind::None) {
        EXPECT_TRUE(u.guard >= 0 && u.guard < row.arity) << row.name;
      }
    }
    // State between cycles exactly for the primitives that read another cycle or the
    // first tick; pre alone makes nil.
    EXPECT_EQ(row.state_slots > 0, row.time != core::Time::Instant) << row.name;
    EXPECT_EQ(row.makes_nil, row.prim == core::Prim::Pre) << row.name;
  }
}

// One equation per primitive; the expected edges are the semantics' needs (semantics.md
// §11): when reads its condition always and its operand where the condition has the
// polarity; merge reads each branch under its side; fby/-> read their first operand at the
// first tick only; pre/fby read the previous tick, post the next; pre, post and constants
// read the conditions of their context's clock.
TEST(PrimitiveTable, NeedsGraphHasOneEdgePerOperandAsTheTableSays) {
  std::string text =
      "node m(c: bool, x: int) -> (o: int)\n"
      "var w: int when c; wn: int when not c; mg: int; fb: int; pr: int; ar: int; po: int when c; k: int when c;\n"
      "  w = x when c;\n"
      "  wn = x when not c;\n"
      "  mg = merge c w wn;\n"
      "  fb = x fby mg;\n"
      "  pr = pre x;\n"
      "  ar = x -> pr;\n"
      "  k = 5;\n"
      "  po = post (w + k);\n"
      "  o = fb + ar;\n";
  std::set<std::string> got = edges_of(text, "m");
  for (const char *e : {"w <- c @0", "w <- x @0 {c@0}", "wn <- c @0", "wn <- x @0 {not c@0}", "mg <- c @0",
                        "mg <- w @0 {c@0}", "mg <- wn @0 {not c@0}", "fb <- x @0 first", "fb <- mg @-1", "pr <- x @-1",
                        "ar <- x @0 first", "ar <- pr @0 later", "k <- c @0"})
    EXPECT_TRUE(got.count(e)) << "missing edge " << e;
  // post reads its operand at the next tick, and the condition of its clock now.
  bool post_next = false, post_cond = false;
  for (auto &e : got) {
    post_next |= e.rfind("po <- ", 0) == 0 && e.find(" @1") != std::string::npos;
    post_cond |= e == "po <- c @0";
  }
  EXPECT_TRUE(post_next);
  EXPECT_TRUE(post_cond);
  // Nothing else reads the previous or the next tick.
  for (auto &e : got) {
    if (e.find(" @-1") != std::string::npos) {
      EXPECT_TRUE(e == "fb <- mg @-1" || e == "pr <- x @-1") << e;
    }
    if (e.find(" @1") != std::string::npos) {
      EXPECT_EQ(e.rfind("po <- ", 0), 0u) << e;
    }
  }
}

// May-be-nil from the table: pre makes nil, which flows through operands marked so —
// except a merge's condition (a clock error, not a nil value) and, in `a -> pre x`, the
// pre's own first value. Seen through the initialisation verdict.
TEST(PrimitiveTable, NilFlowsAsTheTableSays) {
  std::string method;
  auto verdict = [&method](const std::string &body) {
    auto fe = run_frontend("n.rml", "node n(c: bool, x: int) -> (o: int)\n" + body);
    EXPECT_FALSE(fe->diags.has_errors()) << render_all(fe->diags);
    core::Program prog = core::elaborate(fe->checked, "n");
    check::Options o;
    o.rlimit = 20'000'000;
    for (auto &p : check::check_program(fe->checked, prog, o).properties)
      if (p.kind == "initialisation") {
        method = p.method;
        return p.verdict;
      }
    return check::Verdict::Unknown;
  };
  EXPECT_EQ(verdict("  o = pre x;\n"), check::Verdict::Falsified);
  EXPECT_EQ(verdict("  o = 0 -> pre x;\n"), check::Verdict::Valid);
  EXPECT_EQ(verdict("  o = (pre x) + 1;\n"), check::Verdict::Falsified);
  EXPECT_EQ(verdict("  o = 0 fby (pre x);\n"), check::Verdict::Falsified);
  EXPECT_EQ(verdict("  o = 0 fby x;\n"), check::Verdict::Valid);
  EXPECT_EQ(verdict("  o = (pre x) -> x;\n"), check::Verdict::Falsified);
  // The idiom is proved by the static analysis alone (no solver).
  EXPECT_EQ(verdict("  o = 0 -> pre x;\n"), check::Verdict::Valid);
  EXPECT_NE(method.find("static"), std::string::npos) << method;
}
