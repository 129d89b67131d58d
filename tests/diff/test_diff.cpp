// rml gen / rml diff's parts: the comparison of chronograms (exact cells, the real
// tolerance at its boundary, unknown cells), the generator (reproducible, accepted by
// rml-check, features left out), the shrinker (a minimal failing case, and only cases
// that still fail), the Lustre printer (its text reads back as the same program).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <limits>
#include <set>
#include <sstream>

#include "common/sanitized.hpp"

#include "diff/accept.hpp"
#include "diff/case_hooks.hpp"
#include "diff/compare.hpp"
#include "diff/lustre_print.hpp"
#include "diff/shrink.hpp"
#include "gen/program_gen.hpp"
#include "sema/frontend.hpp"
#include "syntax/printer.hpp"
#include "tools/commands.hpp"

namespace rml::diff {
namespace {

TEST(Compare, RealsWithinUlpsAndNotOneMore) {
  Tolerance t{2, 0};
  double one = 1.0, up1 = std::nextafter(one, 2.0), up2 = std::nextafter(up1, 2.0), up3 = std::nextafter(up2, 2.0);
  EXPECT_TRUE(reals_equal(one, up2, t));
  EXPECT_FALSE(reals_equal(one, up3, t));
  // Across zero: -0.0 and 0.0 are one value; the smallest subnormals either side are 2 apart.
  double tiny = std::numeric_limits<double>::denorm_min();
  EXPECT_TRUE(reals_equal(-0.0, 0.0, Tolerance{0, 0}));
  EXPECT_TRUE(reals_equal(-tiny, tiny, Tolerance{2, 0}));
  EXPECT_FALSE(reals_equal(-tiny, tiny, Tolerance{1, 0}));
  // NaN equals NaN only; infinities only themselves, whatever the tolerance.
  EXPECT_TRUE(reals_equal(std::nan(""), -std::nan(""), t));
  EXPECT_FALSE(reals_equal(std::nan(""), 1.0, Tolerance{1 << 30, 1.0}));
  EXPECT_FALSE(reals_equal(INFINITY, std::numeric_limits<double>::max(), Tolerance{4, 0.5}));
  EXPECT_TRUE(reals_equal(-INFINITY, -INFINITY, Tolerance{0, 0}));
  // Relative: at the boundary and past it.
  EXPECT_TRUE(reals_equal(100.0, 101.0, Tolerance{0, 0.01}));
  EXPECT_FALSE(reals_equal(100.0, 101.5, Tolerance{0, 0.01}));
  // Absolute: a cancellation's 5.6e-17 against 0.0 (no relative bound takes it), at the
  // boundary and past it; never an infinity or a NaN.
  EXPECT_FALSE(reals_equal(5.551115123125783e-17, 0.0, Tolerance{4, 1e-12}));
  EXPECT_TRUE(reals_equal(5.551115123125783e-17, 0.0, Tolerance{0, 0, 1e-16}));
  EXPECT_TRUE(reals_equal(0.25, 0.5, Tolerance{0, 0, 0.25}));
  EXPECT_FALSE(reals_equal(0.25, 0.5, Tolerance{0, 0, 0.2499}));
  EXPECT_FALSE(reals_equal(INFINITY, 1e308, Tolerance{0, 0, 1e300}));
  EXPECT_FALSE(reals_equal(std::nan(""), 0.0, Tolerance{0, 0, 1e300}));
}

TEST(Compare, CellsByKind) {
  Tolerance t{4, 0};
  EXPECT_TRUE(cells_equal("?", "anything", t));   // unknown in the oracle: excluded
  EXPECT_FALSE(cells_equal("1.0", "?", t));       // unknown in the back end: a difference
  EXPECT_TRUE(cells_equal("_", "_", t));
  EXPECT_FALSE(cells_equal("_", "0", t));
  EXPECT_FALSE(cells_equal("0", "_", t));
  EXPECT_TRUE(cells_equal("T", "true", t));
  EXPECT_TRUE(cells_equal("F", "false", t));
  EXPECT_FALSE(cells_equal("T", "1", t));
  EXPECT_FALSE(cells_equal("T", "F", t));
  EXPECT_TRUE(cells_equal("8", "8", t));
  EXPECT_FALSE(cells_equal("8", "8.0", t));       // an int is not a real
  EXPECT_FALSE(cells_equal("9223372036854775807", "9223372036854775806", t));
  EXPECT_TRUE(cells_equal("1.0", "1", t));         // a real read as a double
  EXPECT_TRUE(cells_equal("0.1", "0.10000000000000001", t));
  EXPECT_FALSE(cells_equal("0.1", "0.1x", t));
  EXPECT_TRUE(cells_equal("nil", "nil", t));
  EXPECT_FALSE(cells_equal("nil", "0", t));
  EXPECT_TRUE(cells_equal("‖", "‖", t));
  EXPECT_FALSE(cells_equal("1.0", "‖", t));
  EXPECT_TRUE(cells_equal("[1.0, [2.0, 3.0]]", "[1.0,[2.0,3.0]]", t));
  EXPECT_FALSE(cells_equal("[1.0, [2.0, 3.0]]", "[1.0, [2.0]]", t));
  EXPECT_FALSE(cells_equal("[1.0, 2.0]", "[[1.0, 2.0]]", t));
}

TEST(Compare, ChronogramsAndTheFirstDifference) {
  std::string why;
  auto o = read_chronogram("x,o,p\n1,2.0,T\n\n# a comment\n2,[1, 2],F\n", why);
  ASSERT_TRUE(o) << why;
  EXPECT_EQ(o->rows.size(), 2u);
  EXPECT_EQ(o->rows[1][1], "[1, 2]");
  EXPECT_FALSE(read_chronogram("", why));
  EXPECT_FALSE(read_chronogram("a,b\n1\n", why));
  EXPECT_EQ(why, "line 2: 1 cells, but the header names 2 columns");
  auto b = read_chronogram("p,o\nT,2.0\nT,[1, 2]\n", why);
  ASSERT_TRUE(b);
  Difference d = compare(*o, *b, {"o", "p"}, Tolerance{});
  EXPECT_EQ(d.kind, Difference::Cell);
  EXPECT_EQ(d.var, "p");
  EXPECT_EQ(d.cycle, 1u);
  EXPECT_EQ(d.describe(), "'p' at cycle 1: the oracle says F, the back end T");
  // Cycle by cycle first, then in the order of the outputs.
  auto c = read_chronogram("o,p\n3.0,F\n[1, 2],T\n", why);
  d = compare(*o, *c, {"p", "o"}, Tolerance{});
  EXPECT_EQ(d.var, "p");
  EXPECT_EQ(d.cycle, 0u);
  auto shorter = read_chronogram("o,p\n2.0,T\n", why);
  d = compare(*o, *shorter, {"o", "p"}, Tolerance{});
  EXPECT_EQ(d.kind, Difference::MissingCycles);
  EXPECT_EQ(d.describe(), "the back end's output stops after 1 cycle of 2");
  auto missing = read_chronogram("o\n2.0\n[1, 2]\n", why);
  d = compare(*o, *missing, {"o", "p"}, Tolerance{});
  EXPECT_EQ(d.kind, Difference::MissingColumn);
  EXPECT_EQ(d.var, "p");
  auto same = read_chronogram("p,o,extra\nT,2.0,9\nF,[1,2],9\n", why);
  EXPECT_EQ(compare(*o, *same, {"o", "p"}, Tolerance{}).kind, Difference::None);
  auto reals = read_chronogram("p,o\nT,2.0\nF,[1.0, 2.0]\n", why);  // an int tensor's elements are exact
  EXPECT_EQ(compare(*o, *reals, {"o", "p"}, Tolerance{}).kind, Difference::Cell);
}

TEST(Generator, ReproducibleAndSeedDependent) {
  gen::GenOptions o;
  auto a = gen::generate_program(42, o), b = gen::generate_program(42, o), c = gen::generate_program(43, o);
  EXPECT_EQ(a.text, b.text);
  EXPECT_NE(a.text, c.text);
  EXPECT_EQ(gen::generate_trace(a, 7, 20), gen::generate_trace(b, 7, 20));
  // SplitMix64's first output for seed 0 (Vigna's reference implementation).
  gen::Rng r(0);
  EXPECT_EQ(r.next(), 0xE220A8397B1DCDAFull);
}

// A seed draws the same text in every build: the Release build (g++) and the sanitizers'
// (clang) once drew different programs, because a draw sat in a function's argument
// beside another (the order C++ leaves to the compiler). The fingerprint of 300 draws and
// traces over three option sets is pinned; both builds run this test against it.
TEST(Generator, TheSameSeedDrawsTheSameTextInEveryBuild) {
  uint64_t h = 1469598103934665603ull;  // FNV-1a, 64 bits
  auto mix = [&h](const std::string &t) {
    for (unsigned char ch : t) h = (h ^ ch) * 1099511628211ull;
  };
  gen::GenOptions plain, big, v6;
  big.size = 10;
  big.depth = 5;
  v6 = v6.for_lustre();
  v6.lustre_types = true;
  for (const gen::GenOptions &o : {plain, big, v6})
    for (uint64_t seed = 0; seed < 100; ++seed) {
      auto p = gen::generate_program(seed, o);
      mix(p.text);
      mix(gen::generate_trace(p, seed, 12));
    }
  EXPECT_EQ(h, 0xcfbfa4a781b55b9aull) << std::hex << h;
}

// Law: rml-check never refuses a program the generator draws (no verdict falsified, no
// front-end error), in both dialects; its trace keeps the assumption it states. An
// unknown (a proof past the time budget: resets with nonlinear arithmetic can take
// Spacer seconds) is allowed and counted, never a refusal. Negative control below: the
// same check refuses a program whose post chain is not cut.
RC_GTEST_PROP(Generator, DrawsAreAcceptedByRmlCheck, ()) {
  uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  // CI checks 8 draws in 20 (each costs a proof); RML_ALL_CASES=1 checks every one.
  if (!std::getenv("RML_ALL_CASES") && seed % 20 >= 8) RC_SUCCEED("sampled out in CI (RML_ALL_CASES=1 checks every draw)");
  gen::GenOptions o;
  o.size = *rc::gen::inRange(1, 9);
  if (*rc::gen::arbitrary<bool>()) {
    o = o.for_lustre();
    o.lustre_types = *rc::gen::arbitrary<bool>();  // rml gen --dialect lustre-v6
  }
  auto p = gen::generate_program(seed, o);
  RC_TAG(o.lustre_types ? "lustre-v6" : o.dialect == gen::Dialect::Lustre ? "lustre" : "rml");
  Acceptance a = accept("<gen>", p.text, p.main, {});
  RC_TAG(a.accepted ? "accepted" : "unknown");
  RC_TAG(p.text.find("real[") != std::string::npos ? "tensors" : "scalars");
  RC_ASSERT(a.accepted || a.rc == 3);  // 3: unknown
  std::string trace = gen::generate_trace(p, seed, 30);
  if (p.within >= 0) {  // c holds at least once in every within + 1 cycles
    int gap = 0, c_col = 0;
    for (size_t i = 0; i < p.inputs.size(); ++i)
      if (p.inputs[i].name == "c") c_col = static_cast<int>(i);
    std::string why;
    auto t = read_chronogram(trace, why);
    RC_ASSERT(t.has_value());
    for (auto &row : t->rows) {
      gap = row[static_cast<size_t>(c_col)] == "T" ? 0 : gap + 1;
      RC_ASSERT(gap <= p.within);
    }
  }
}

TEST(Generator, NegativeControlAnUncutPostIsRefused) {
  Acceptance a = accept("<gen>", "node main(x: real) -> (o: real)\n  o = post o + x;\n", "main", {});
  EXPECT_FALSE(a.accepted);
}

TEST(Generator, FeaturesLeftOut) {
  gen::GenOptions o;
  o.post = o.clocks = o.instances = o.funs = false;
  for (uint64_t s = 0; s < 50; ++s) {
    auto p = gen::generate_program(s, o);
    EXPECT_EQ(p.text.find("post"), std::string::npos) << p.text;
    EXPECT_EQ(p.text.find("merge"), std::string::npos) << p.text;
    EXPECT_EQ(p.text.find("acc_"), std::string::npos) << p.text;
    for (const char *f : {"sigmoid", "tanh", "matvec", "dot(", "sum(", "fun "})
      EXPECT_EQ(p.text.find(f), std::string::npos) << f << " in\n" << p.text;
  }
  o = gen::GenOptions{};
  o.tensors = false;
  for (uint64_t s = 0; s < 50; ++s) {
    auto p = gen::generate_program(s, o);
    EXPECT_EQ(p.text.find("real["), std::string::npos) << p.text;
    EXPECT_EQ(p.text.find("zeros"), std::string::npos) << p.text;
  }
  o = gen::GenOptions{};
  bool post = false, merge = false, call = false, every = false, tensor = false;
  for (uint64_t s = 0; s < 50; ++s) {  // and with them, each is drawn
    auto p = gen::generate_program(s, o);
    post |= p.text.find("post") != std::string::npos;
    merge |= p.text.find("merge") != std::string::npos;
    call |= p.text.find("acc_") != std::string::npos;
    every |= p.text.find(" every ") != std::string::npos;
    tensor |= p.text.find("real[") != std::string::npos;
  }
  EXPECT_TRUE(post && merge && call && every && tensor);
}

// The generator reaches the shapes where back ends go wrong, tensors included: post and
// backfill of tensors, tensor state (fby, -> pre) also on a sampled clock and under a
// nested one, tensor instances reset by `every` and on a nested clock, the program's own
// funs to a tensor and to a real. A tensor program declares its input u and output o4
// with one length, 2 or 3, and only the Lustre dialect is without tensors.
TEST(Generator, ReachesTheHardShapesWithTensors) {
  gen::GenOptions o;
  o.size = 8;
  std::set<std::string> seen;
  int tensor_programs = 0;
  for (uint64_t s = 0; s < 400; ++s) {
    auto p = gen::generate_program(s, o);
    seen.insert(p.shapes.begin(), p.shapes.end());
    bool has_u = false;
    for (auto &in : p.inputs)
      if (in.type == gen::Ty::Vec) {
        has_u = true;
        EXPECT_EQ(in.name, "u");
        EXPECT_TRUE(in.length == 2 || in.length == 3) << in.length;
        EXPECT_NE(p.text.find("u: real[" + std::to_string(in.length) + "]"), std::string::npos) << p.text;
        EXPECT_NE(p.text.find("o4: real[" + std::to_string(in.length) + "]"), std::string::npos) << p.text;
      }
    EXPECT_EQ(has_u, p.text.find("real[") != std::string::npos) << p.text;
    tensor_programs += has_u;
  }
  for (const char *want : {"post", "backfill", "nested clock", "instance reset", "tensor post", "tensor backfill",
                           "tensor state", "tensor state on a sampled clock", "tensor nested clock",
                           "tensor instance reset", "tensor instance on a nested clock", "fun to a tensor",
                           "fun to a real"})
    EXPECT_TRUE(seen.count(want)) << "never drawn in 400 programs: " << want;
  EXPECT_GT(tensor_programs, 120);  // about half
  EXPECT_LT(tensor_programs, 280);
  for (uint64_t s = 0; s < 50; ++s)
    EXPECT_EQ(gen::generate_program(s, o.for_lustre()).text.find('['), std::string::npos);
}

// rml gen --dialect lustre-v6 reaches each Lustre V6 construct rml elaborates away in 300
// draws; plain --dialect lustre draws none of them (its text is for back ends that read
// only the scalar core).
TEST(Generator, LustreV6DrawsReachEveryConstruct) {
  gen::GenOptions o = gen::GenOptions{}.for_lustre();
  o.size = 6;
  std::set<std::string> seen;
  for (uint64_t s = 0; s < 300; ++s) {
    auto plain = gen::generate_program(s, o);
    for (const char *c : {"type ", "const ", "<<", "restart", "=>", "#("})
      EXPECT_EQ(plain.text.find(c), std::string::npos) << c << " in\n" << plain.text;
  }
  o.lustre_types = true;
  for (uint64_t s = 0; s < 300; ++s) {
    auto p = gen::generate_program(s, o);
    seen.insert(p.shapes.begin(), p.shapes.end());
  }
  for (const char *want : {"lustre constant", "lustre implication", "lustre at most one", "lustre enumeration clock",
                           "lustre state on an enumeration clock", "lustre array", "lustre iterator", "lustre record",
                           "lustre static parameter", "lustre restart"})
    EXPECT_TRUE(seen.count(want)) << "never drawn in 300 programs: " << want;
}

// Writes a generated case to a scratch folder (this process's, removed when it ends);
// `rml run` reads files.
struct CaseFiles {
  std::string program, trace;
};
CaseFiles write_case(const std::string &text, const std::string &trace) {
  static const struct Scratch {
    std::filesystem::path dir = std::filesystem::temp_directory_path() / ("rml-diff-tests-" + std::to_string(::getpid()));
    ~Scratch() {
      std::error_code ec;
      std::filesystem::remove_all(dir, ec);
    }
  } scratch;
  const std::filesystem::path &dir = scratch.dir;
  std::filesystem::create_directories(dir);
  CaseFiles f{(dir / "p.rml").string(), (dir / "p.csv").string()};
  std::ofstream(f.program) << text;
  std::ofstream(f.trace) << trace;
  return f;
}

// The main node's outputs as `rml run --format csv` prints them on one back end.
std::optional<Chronogram> run_outputs(const CaseFiles &f, const std::vector<std::string> &outputs, Backend b,
                                      std::string &why) {
  RunCmd r;
  r.file = f.program;
  r.main_node = "main";
  r.inputs = f.trace;
  r.format = oracle::Format::Csv;
  r.show = outputs;
  r.backend = b;
  std::ostringstream out, err;
  int rc = cmd_run(r, out, err);
  if (rc != 0 && rc != 1) {  // 1: a chronogram holding an error value is still a result
    why = "rml run exited " + std::to_string(rc) + ": " + err.str();
    return std::nullopt;
  }
  return read_chronogram(out.str(), why);
}

// Law: on generated programs with tensor streams, the compiled path (funs lowered, bot,
// the Eigen executor: rml run --backend compiled) and the stream path (rml run --backend
// stream: the runner's window of frames, funs compiled) print the oracle's chronogram on
// every output cell the oracle defines, tensors element by element. Reals within 4 ulps
// or 1e-12 relative: the compiled tanh (SLEEF, 1 ulp) may differ from libm's in the last
// bits, and a cancellation after it scales that up (README, rml diff); or 1e-15 apart:
// sigmoid is 0.5 * tanh(0.5 * x) + 0.5, and near 0 (x about -37) one ulp of tanh near -1
// (1.1e-16) is the whole result, 5.6e-17 from libm against 0.0 from SLEEF, which no
// relative bound takes (compare.hpp). Negative control: TensorCellsAreComparedElementByElement.
RC_GTEST_PROP(Generator, TensorProgramsRunAlikeOnTheCompiledAndStreamPaths, ()) {
  uint64_t seed = *rc::gen::arbitrary<uint64_t>();
  // Each case costs a proof and three runs: 6 in 20 in Release, 1 in 20 under the
  // sanitizers (RML_ALL_CASES=1 checks every one).
  if (!std::getenv("RML_ALL_CASES") && seed % 20 >= (test::kSanitized ? 1u : 6u))
    RC_SUCCEED("sampled out in CI (RML_ALL_CASES=1 checks every draw)");
  gen::GenOptions o;
  o.size = *rc::gen::inRange(1, 9);
  o.cycles = 12;
  gen::GeneratedProgram p;
  for (uint64_t k = 0;; ++k) {  // the first draw from this seed with tensors
    p = gen::generate_program(gen::program_seed(seed, k), o);
    if (p.text.find("real[") != std::string::npos) break;
  }
  for (auto &sh : p.shapes) RC_TAG(sh);
  Acceptance a = accept("<gen>", p.text, p.main, {});
  RC_ASSERT(a.accepted || a.rc == 3);
  RC_PRE(a.accepted);  // an unknown proof: the stream path would refuse the program
  CaseFiles f = write_case(p.text, gen::generate_trace(p, seed, o.cycles));
  std::string why;
  auto want = run_outputs(f, a.outputs, Backend::Reference, why);
  RC_ASSERT(want.has_value());
  for (Backend b : {Backend::Compiled, Backend::Stream}) {
    auto got = run_outputs(f, a.outputs, b, why);
    if (!got) RC_FAIL(why + "\n" + p.text);
    Difference d = compare(*want, *got, a.outputs, Tolerance{4, 1e-12, 1e-15});
    if (d.kind != Difference::None)
      RC_FAIL(std::string(b == Backend::Compiled ? "compiled" : "stream") + ": " + d.describe() + "\n" + p.text);
  }
}

// Negative control of the law above: a back end that reads `post` at the present cycle
// (tests/diff/faulty_backend.py's post-late, here by removing `post` from the text) is
// caught on the tensor output o4 of generated programs with a tensor post.
TEST(Generator, NegativeControlATensorPostReadLateIsCaught) {
  gen::GenOptions o;
  o.size = 8;
  o.cycles = 12;
  int tried = 0, caught = 0;
  for (uint64_t s = 0; s < 400 && tried < 6; ++s) {
    auto p = gen::generate_program(s, o);
    if (std::find(p.shapes.begin(), p.shapes.end(), "tensor post") == p.shapes.end()) continue;
    ++tried;
    std::string late = p.text;
    for (size_t at; (at = late.find("(post ")) != std::string::npos;) late.replace(at, 6, "(");
    std::string why, trace = gen::generate_trace(p, s, o.cycles);
    auto want = run_outputs(write_case(p.text, trace), {"o4"}, Backend::Reference, why);
    auto got = run_outputs(write_case(late, trace), {"o4"}, Backend::Reference, why);
    ASSERT_TRUE(want && got) << why << "\n" << p.text;
    caught += compare(*want, *got, {"o4"}, Tolerance{4, 1e-12}).kind != Difference::None;
  }
  EXPECT_EQ(tried, 6);
  EXPECT_GE(caught, 1) << "a tensor post read at the present cycle was never seen on o4";
}

TEST(Compare, TensorCellsAreComparedElementByElement) {
  std::string why;
  auto o = read_chronogram("o4\n\"[1.0, 2.5, -0.25]\"\n", why);
  auto same = read_chronogram("o4\n\"[1.0, 2.5, -0.25]\"\n", why);
  auto last = read_chronogram("o4\n\"[1.0, 2.5, -0.2500001]\"\n", why);
  auto shorter = read_chronogram("o4\n\"[1.0, 2.5]\"\n", why);
  ASSERT_TRUE(o && same && last && shorter) << why;
  EXPECT_EQ(compare(*o, *same, {"o4"}, Tolerance{4, 1e-12}).kind, Difference::None);
  EXPECT_EQ(compare(*o, *last, {"o4"}, Tolerance{4, 1e-12}).kind, Difference::Cell);
  EXPECT_EQ(compare(*o, *shorter, {"o4"}, Tolerance{4, 1e-12}).kind, Difference::Cell);
}

ShrinkHooks hooks_for_rml() { return case_hooks(false, "main"); }

// "Fails" while the program still has a fby and the trace at least 3 cycles: the shrinker
// keeps exactly that (a minimum: one fby, three cycles), and every case it kept fails.
TEST(Shrink, ReachesAMinimalFailingCase) {
  ShrinkHooks h = hooks_for_rml();
  int calls = 0;
  h.fails = [&](const Case &c) {
    ++calls;
    auto r = run_frontend("<case>", c.program);
    return !r->diags.has_errors() && c.program.find("fby") != std::string::npos && count_cycles(c.trace) >= 3;
  };
  Case c{"node helper(a: int) -> (o: int)\n  o = a + 1;\n\n"
         "node main(x: int, b: bool) -> (o: int, p: bool)\n  v = helper(x) * 2;\n  w = if b then v else 0 fby x;\n"
         "  o = w + v;\n  p = b and (x > 3);\n",
         "x,b\n1,T\n2,F\n3,T\n4,F\n5,T\n6,F\n7,T\n"};
  ASSERT_TRUE(h.fails(c));
  ShrinkStats st;
  Case s = shrink(c, h, ShrinkLimits{}, st);
  EXPECT_TRUE(h.fails(s));
  EXPECT_EQ(count_cycles(s.trace), 3);
  // 1-minimal for the edits: the helper and v go; w keeps the one fby (no edit moves it
  // into o, so w's equation stays), its operands and o, p become literals.
  EXPECT_EQ(s.program, "node main(x: int, b: bool) -> (o: int, p: bool)\n  w = 0 fby 0;\n  o = 0;\n  p = false;\n");
  EXPECT_FALSE(st.stopped_at_limit);
  EXPECT_EQ(count_equations(h, s.program), 3);
  // The budget is a bound: with 3 candidates it stops there.
  ShrinkStats few;
  shrink(c, h, ShrinkLimits{3, 60}, few);
  EXPECT_TRUE(few.stopped_at_limit);
  EXPECT_LE(few.tried, 3);
}

// A `check` or `assume` the failure does not need goes (a shrunk program kept `check x >
// 100` that no longer held, and read as a claim about the failure); one it needs stays.
// Here "fails" needs the property named keep, so exactly the other two go.
TEST(Shrink, PropertiesAndAssumptionsTheFailureDoesNotNeedGo) {
  ShrinkHooks h = hooks_for_rml();
  h.fails = [&](const Case &c) {
    auto r = run_frontend("<case>", c.program);
    return !r->diags.has_errors() && c.program.find("\"keep\"") != std::string::npos;
  };
  Case c{"node main(x: int) -> (o: int)\n  assume always x >= 0;\n  check x > 100;\n  check \"keep\" o >= 0;\n  o = 0;\n", "x\n1\n"};
  ASSERT_TRUE(h.fails(c));
  ShrinkStats st;
  Case s = shrink(c, h, ShrinkLimits{}, st);
  EXPECT_EQ(s.program, "node main(x: int) -> (o: int)\n  o = 0;\n  check \"keep\" o >= 0;\n");
  EXPECT_FALSE(st.stopped_at_limit);
}

// A literal is replaced by the zero of its own kind only (1.5 by 0.0, then it stays): an
// unread local type-checks as `0.0` and as `0`, and trading one for the other forever
// spent the whole budget (found when rml gen drew tensors). The unread locals a and b,
// which read each other through fby and so cannot go alone, go once a's operands are
// literals.
TEST(Shrink, UnreadLocalsGoAndLiteralsStayPut) {
  ShrinkHooks h = hooks_for_rml();
  h.fails = [&](const Case &c) {
    auto r = run_frontend("<case>", c.program);
    return !r->diags.has_errors() && c.program.find("post") != std::string::npos && c.program.find("z =") != std::string::npos;
  };
  Case c{"node main(x: real) -> (o: real)\n  a = 0.5 fby b;\n  b = a + x;\n  z = 1.5;\n  o = post x + a;\n", "x\n1.0\n2.0\n"};
  ASSERT_TRUE(h.fails(c));
  ShrinkStats st;
  Case s = shrink(c, h, ShrinkLimits{}, st);
  EXPECT_EQ(s.program, "node main(x: real) -> (o: real)\n  z = 0.0;\n  o = post 0.0;\n");
  EXPECT_FALSE(st.stopped_at_limit);
  EXPECT_LT(st.tried, 60) << st.tried;
}

TEST(LustrePrint, GeneratedLustreReadsBackToTheSameProgram) {
  for (uint64_t s = 0; s < 30; ++s) {
    auto p = gen::generate_program(s, gen::GenOptions{}.for_lustre());
    auto r = run_frontend("<gen>", p.text, FrontendOptions{true, false, {}});
    ASSERT_TRUE(r->parsed_ok) << p.text;
    std::string why;
    auto text = print_lustre(r->user, why);
    ASSERT_TRUE(text) << why;
    auto again = run_frontend("<again>", *text, FrontendOptions{true, false, {}});
    ASSERT_TRUE(again->parsed_ok) << *text;
    // Lustre prints fby as -> pre, so compare the two prints rather than the trees.
    std::string why2;
    EXPECT_EQ(*print_lustre(again->user, why2), *text);
    EXPECT_TRUE(accept("<again>", *text, "main", {}).accepted) << *text;
  }
  auto post = run_frontend("<p>", "node main(x: int) -> (o: int)\n  o = post x;\n", FrontendOptions{true, false, {}});
  std::string why;
  EXPECT_FALSE(print_lustre(post->user, why));
  EXPECT_EQ(why, "post cannot be written in the Lustre dialect");
}

}  // namespace
}  // namespace rml::diff
