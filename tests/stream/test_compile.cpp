// rml compile's step classes against the oracle: random post-free programs that rml-check
// accepts, generated into one C++ program, compiled once with the build's compiler and run
// on random admissible traces; every output cell equals the oracle's (reals bit for bit).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unistd.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <set>
#include <map>
#include <optional>
#include <sstream>

#include "checker/checker.hpp"
#include "codegen/emit_cpp.hpp"
#include "codegen/reserved_names.hpp"
#include "codegen/fuse_applications.hpp"
#include "common/backfill_gen.hpp"
#include "common/exclusive_cycle_gen.hpp"
#include "common/sanitized.hpp"
#include "common/stream_prog_gen.hpp"
#include "gen/program_gen.hpp"
#include "oracle/trace_io.hpp"
#include "stream/retime.hpp"
#include "stream_util.hpp"

using namespace rml;
using oracle::Cell;
using oracle::Tag;

namespace {

namespace fs = std::filesystem;

struct Case {
  std::string text;
  std::string cls = "main_";  // the generated class (codegen::class_name of the main node)
  bool window = false;        // a node with post: push/pop/finish (rml_window.hpp)
  test::StreamProgram p;
  oracle::Inputs in;
  std::vector<codegen::GeneratedFile> files;
  std::map<std::string, std::string> names;  // output variable -> its C++ member name
  oracle::Result want;                        // the oracle's run, when computed already
  std::string trace;                          // the trace as CSV, when it came as one (for a failure's report)
  int same_class_as = -1;                     // another trace of case j's class (its files not written again)
  bool report_retimed = false;                // the driver prints "k retimed 0|1 0|1" (retimed(), tagless()) before finish()
  int fast_throughout = -1;                   // with report_retimed: 1 or 0 expected, -1 either
  int tagless_throughout = -1;                // the same for tagless()
  size_t pop_every = 1;                       // a window class's outputs popped after every pop_every-th push (and at the end)
};

// The C++ member names of the outputs (core::printed_names, as the generated class spells them).
void name_outputs(Case &c) {
  auto names = codegen::cpp_names(c.p.prog);  // the class's own identifiers
  for (auto &v : c.p.prog.outputs) c.names[v.name] = names.at(v.name);
}

// A trace of ProgGen's main(x: real, y: int, c: bool): on the base clock, every input is
// present or every one is absent at a cycle (the clocks rml-check assumed).
oracle::Inputs admissible_trace(std::mt19937_64 &rng, size_t len, bool always = false) {
  oracle::Inputs in;
  in.cycles = len;
  for (size_t n = 0; n < len; ++n) {
    bool present = always || rng() % 6 != 0;
    auto val = [&](Cell c) { return present ? c : Cell::absent(); };
    in.streams["x"].push_back(val(Cell::of(array::Tensor::real(static_cast<double>(static_cast<int>(rng() % 13) - 6) / 2.0))));
    in.streams["y"].push_back(val(Cell::of(array::Tensor::integer(static_cast<int64_t>(rng() % 9) - 4))));
    in.streams["c"].push_back(val(Cell::of(array::Tensor::boolean(rng() % 2 == 1))));
  }
  return in;
}

std::string cell_code(const Cell &c) {  // as the driver prints a generated cell (a tensor's elements joined by ':')
  switch (c.tag) {
    case Tag::Abs: return "A";
    case Tag::Nil: return "N";
    case Tag::Val: {
      std::string code;
      for (size_t k = 0; k < c.value.numel(); ++k) {
        char buf[40];
        if (c.value.elem == Scalar::Real) {
          uint64_t bits;
          std::memcpy(&bits, &c.value.r[k], 8);
          std::snprintf(buf, sizeof buf, "R%016llx", static_cast<unsigned long long>(bits));
        } else {
          std::snprintf(buf, sizeof buf, "I%lld", static_cast<long long>(c.value.i[k]));
        }
        code += (k ? ":" : "") + std::string(buf);
      }
      return code;
    }
    case Tag::Bot: return "?";
    case Tag::Err: return "E";
  }
  return "";
}

std::string cpp_cell(const Cell &c, const Type &type) {
  Scalar t = type.elem;
  std::string T = t == Scalar::Real ? "double" : t == Scalar::Int ? "int64_t" : "bool";
  size_t n = 1;
  for (int64_t d : array::concrete_shape(type.shape)) n *= static_cast<size_t>(d);
  if (!type.shape.empty()) T = "std::array<" + T + ", " + std::to_string(n) + ">";
  if (c.tag != Tag::Val) return "rml::Cell<" + T + ">{}";
  std::string v;
  for (size_t k = 0; k < c.value.numel(); ++k) {
    char buf[64];
    if (t == Scalar::Real) std::snprintf(buf, sizeof buf, "%a", c.value.r[k]);
    else if (t == Scalar::Int) std::snprintf(buf, sizeof buf, "int64_t{%lld}", static_cast<long long>(c.value.i[k]));
    else std::snprintf(buf, sizeof buf, "%s", c.value.i[k] ? "true" : "false");
    v += (k ? ", " : "") + std::string(buf);
  }
  return "rml::Cell<" + T + ">::of(" + (type.shape.empty() ? v : T + "{" + v + "}") + ")";
}

// A file's text.
std::string slurp(const fs::path &path) {
  std::ifstream f(path);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

// The generated files of case k in dir/gen<k>/.
void write_generated(const std::vector<Case> &cases, const fs::path &dir) {
  for (size_t k = 0; k < cases.size(); ++k)
    for (auto &f : cases[k].same_class_as < 0 ? cases[k].files : std::vector<codegen::GeneratedFile>{}) {
      fs::path p = dir / ("gen" + std::to_string(k)) / f.path;
      fs::create_directories(p.parent_path());
      std::ofstream(p) << f.text;
    }
}

// Compiles dir/driver.cpp with every case's class into dir/driver: one translation unit for
// the classes (each class's source included), ten times faster to compile than a unit per
// class, which parses the standard headers again each time. The classes are the code under
// test and are optimised (-O1, where undefined behaviour would show); the driver is one long
// straight-line main() that only feeds and prints them, and at -O0 compiles in a quarter of
// the time. Throws with the compiler's log.
void compile_driver(const std::vector<Case> &cases, const fs::path &dir, const std::string &flags) {
  std::ofstream unity(dir / "unity.cpp");
  for (size_t k = 0; k < cases.size(); ++k)
    if (cases[k].same_class_as < 0) unity << "#include \"gen" << k << "/" << cases[k].cls << ".cpp\"\n";
  unity << "#include \"gen0/runtime/ops/special.cpp\"\n";
  unity.close();
  const std::string common = std::string(RML_CXX) + " -std=c++20 -w " + codegen::kExactFlags + flags;
  const std::string includes = " -I" + (dir / "gen0/runtime").string() + " -I" + dir.string();
  const std::string log = " >> " + (dir / "compile.log").string() + " 2>&1";
  const fs::path driver_o = dir / "driver.o", unity_o = dir / "unity.o";
  for (const std::string &cmd : {common + " -O0" + includes + " -c " + (dir / "driver.cpp").string() + " -o " + driver_o.string() + log,
                                 common + " -O1" + includes + " -c " + (dir / "unity.cpp").string() + " -o " + unity_o.string() + log,
                                 common + " " + driver_o.string() + " " + unity_o.string() + " -o " + (dir / "driver").string() + log})
    if (std::system(cmd.c_str()) != 0)
      throw std::runtime_error("the generated code does not compile:\n" + slurp(dir / "compile.log").substr(0, 4000));
}

// Writes every case into `dir` (case k in gen<k>/, namespace p<k>) with a driver printing
// "k n status cell..." per cycle; compiles and runs it; returns the driver's output.
std::string build_and_run(const std::vector<Case> &cases, const fs::path &dir, const std::string &flags = "") {
  fs::remove_all(dir);
  std::ostringstream drv;
  drv << "#include <array>\n#include <cstdio>\n#include <cstring>\n#include <cstdint>\n";
  for (size_t k = 0; k < cases.size(); ++k)
    if (cases[k].same_class_as < 0) drv << "#include \"gen" << k << "/" << cases[k].cls << ".hpp\"\n";
  drv << "template <class T> void put(const rml::Cell<T> &c) {\n"
         "  if (c.kind == rml::Kind::Absent) std::printf(\" A\");\n"
         "  else if (c.kind == rml::Kind::Nil) std::printf(\" N\");\n"
         "  else if (c.kind == rml::Kind::Unknown) std::printf(\" ?\");\n"
         "  else if (c.kind == rml::Kind::Error) std::printf(\" E\");\n"
         "  else if constexpr (sizeof(T) == 8 && T(0.5) != T(0)) { unsigned long long b; std::memcpy(&b, &c.value, 8); std::printf(\" R%016llx\", b); }\n"
         "  else std::printf(\" I%lld\", static_cast<long long>(c.value));\n}\n"
         "template <class T, std::size_t N> void put(const rml::Cell<std::array<T, N>> &c) {\n"
         "  if (c.kind != rml::Kind::Value) return put(rml::Cell<T>{c.kind, T{}});\n"
         "  for (std::size_t k = 0; k < N; ++k) {\n"
         "    if constexpr (sizeof(T) == 8 && T(0.5) != T(0)) { unsigned long long b; std::memcpy(&b, &c.value[k], 8); std::printf(\"%sR%016llx\", k ? \":\" : \" \", b); }\n"
         "    else std::printf(\"%sI%lld\", k ? \":\" : \" \", static_cast<long long>(c.value[k]));\n  }\n}\n"
         "int main() {\n";
  write_generated(cases, dir);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case &c = cases[k];
    const std::string cls = "p" + std::to_string(c.same_class_as < 0 ? k : static_cast<size_t>(c.same_class_as)) + "::" + c.cls;
    drv << "  { " << cls << " m; " << cls << "::Outputs o; int popped = 0; (void)popped;\n";
    for (size_t n = 0; n < c.in.cycles; ++n) {
      drv << "    { " << cls << "::Inputs in{";
      for (size_t j = 0; j < c.p.prog.inputs.size(); ++j) {
        const core::Var &v = c.p.prog.inputs[j];
        drv << (j ? ", " : "") << cpp_cell(c.in.streams.at(v.name)[n], v.type);
      }
      if (!c.window) {
        drv << "}; int st = int(m.step(in, o)); std::printf(\"" << k << " " << n << " %d\", st);";
        for (auto &v : c.p.prog.outputs) drv << " put(o." << c.names.at(v.name) << ");";
        drv << " std::printf(\"\\n\"); }\n";
      } else {
        drv << "}; int st = int(m.push(in)); if (st) std::printf(\"" << k << " push %d\\n\", st); }\n";
        if ((n + 1) % c.pop_every != 0) continue;  // (frames stay held: the ring grows)
        drv << "    while (m.pop(o)) { std::printf(\"" << k << " %d 0\", popped++);";
        for (auto &v : c.p.prog.outputs) drv << " put(o." << c.names.at(v.name) << ");";
        drv << " std::printf(\"\\n\"); }\n";
      }
    }
    if (c.window) {
      if (c.report_retimed) drv << "    std::printf(\"" << k << " retimed %d %d\\n\", int(m.retimed()), int(m.tagless()));\n";
      drv << "    { int st = int(m.finish()); if (st) std::printf(\"" << k << " push %d\\n\", st); }\n    while (m.pop(o)) { std::printf(\"" << k << " %d 0\", popped++);";
      for (auto &v : c.p.prog.outputs) drv << " put(o." << c.names.at(v.name) << ");";
      drv << " std::printf(\"\\n\"); }\n";
    }
    drv << "  }\n";
  }
  drv << "}\n";
  std::ofstream(dir / "driver.cpp") << drv.str();
  // In the sanitizers' build (or with RML_SANITIZE_GENERATED set) the generated code runs
  // under them too: the window runtime's frames, the emitted functions' buffers.
  const bool sanitized = test::kSanitized || std::getenv("RML_SANITIZE_GENERATED");
  compile_driver(cases, dir, (sanitized ? " -fsanitize=address,undefined -fno-sanitize-recover=all" : "") + flags);
  if (std::system(((dir / "driver").string() + " > " + (dir / "out.txt").string()).c_str()) != 0) throw std::runtime_error("the driver failed");
  std::string out = slurp(dir / "out.txt");
  if (!std::getenv("RML_KEEP_GENERATED")) fs::remove_all(dir);
  return out;
}

// "" when case k's driver lines equal the oracle's cells; else the first difference.
std::string compare(const Case &c, size_t k, const std::string &out, std::map<std::string, size_t> *seen_cells = nullptr) {
  oracle::Result res = c.want.data ? c.want : oracle::Oracle(c.p.fe->checked, c.p.prog, c.p.clocks).run(c.in);
  if (seen_cells)
    for (auto &v : c.p.prog.outputs)
      for (size_t n = 0; n < res.cycles; ++n) ++(*seen_cells)[cell_code(res.at(v.name, n)).substr(0, 1)];
  std::istringstream lines(out);
  std::string line;
  size_t seen = 0;
  while (std::getline(lines, line)) {
    std::istringstream w(line);
    size_t kk, n;
    int st;
    std::string second;
    w >> kk >> second;
    if (kk != k) continue;
    if (second == "push") return "push returned status " + line;
    if (second == "retimed") continue;
    n = std::stoul(second);
    w >> st;
    ++seen;
    if (st != 0) return "cycle " + std::to_string(n) + ": status " + std::to_string(st);
    for (auto &v : c.p.prog.outputs) {
      std::string got;
      w >> got;
      std::string want = cell_code(res.at(v.name, n));
      if (got != want) return "'" + v.name + "' at cycle " + std::to_string(n) + ": generated " + got + ", oracle " + want;
    }
  }
  return seen == c.in.cycles ? "" : "only " + std::to_string(seen) + " cycles";
}

// Every case against the oracle (a difference is a failure naming the program); how many
// equal it. `kinds` counts the oracle's output cells by kind.
size_t count_equal(const std::vector<Case> &cases, const std::string &out, std::map<std::string, size_t> *kinds = nullptr) {
  size_t equal = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    std::string diff = compare(cases[k], k, out, kinds);
    EXPECT_EQ(diff, "") << cases[k].text;
    equal += diff.empty();
  }
  return equal;
}

// rml-check's acceptance, as rml compile asks it (driver/acceptance.hpp, accepted_horizon):
// every property but the user's valid; the productivity horizon, or nothing.
std::optional<int64_t> accepted(const CheckedProgram &cp, const test::StreamProgram &p, const check::Options &o) {
  auto rep = check::check_program(cp, p.prog, p.clocks, o);
  int64_t H = 0;
  for (auto &pr : rep.properties) {
    if (pr.kind != "property" && pr.verdict != check::Verdict::Valid) return std::nullopt;
    if (pr.kind == "productivity" && pr.horizon) H = *pr.horizon;
  }
  return H;
}

}  // namespace

// Law: the step class rml compile generates for a program rml-check accepts computes, on
// every admissible trace, the oracle's outputs (absent, nil or the same value, reals bit
// for bit). Accepted programs generated into one C++ program, one compilation.
// Negative control: movavg with its division turned into a product is caught.
// Program counts: CI checks 8 (post-free) and 4 (with post), 3 and 2 under the
// sanitizers: rml-check takes about a second a program and CI has 25 minutes;
// scripts/soundness-long.sh sets RML_ALL_CASES for 100 and 40.
const bool kAllCases = std::getenv("RML_ALL_CASES") != nullptr;

TEST(CompileEqualsOracle, RandomAcceptedPostFreePrograms) {
  const size_t want = kAllCases ? 100 : test::kSanitized ? 3 : 8;
  std::vector<Case> cases;
  std::mt19937_64 rng(7);
  size_t tried = 0;
  for (uint64_t seed = 1; cases.size() < want && tried < 20 * want; ++seed, ++tried) {
    auto gen = rc::gen::exec([&] {
      testgen::ProgGen g;
      g.well_clocked = true;
      g.with_post = false;
      g.with_funs = false;
      g.sub_clocked_state = *rc::gen::arbitrary<bool>();
      g.resets = *rc::gen::arbitrary<bool>();
      return g.program();
    });
    Case c;
    c.text = gen(rc::Random(seed), 100).value();  // size 100: inRange is size-biased, and every operator must be reachable
    c.p = test::compile_stream(c.text, "main");
    check::Options o;
    o.rlimit = 2'000'000;  // small budgets: a program not proved quickly is skipped (counted in `tried`)
    o.max_depth = 2;
    if (!accepted(c.p.fe->checked, c.p, o)) continue;
    try {
      c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "gen.rml", "p" + std::to_string(cases.size()));
      name_outputs(c);
    } catch (codegen::CodegenError &e) {
      ADD_FAILURE() << "an accepted post-free program is refused: " << e.what() << "\n" << c.text;
      continue;
    }
    c.in = admissible_trace(rng, 12);
    cases.push_back(std::move(c));
  }
  ASSERT_EQ(cases.size(), want) << "too few accepted programs in " << tried << " tries";
  const size_t accepted = cases.size();
  // Nil (rml-check rejects a nil output: initialisation), generated all the same: pre's
  // first value, through an operator, and guarded by ->.
  Case nil;
  nil.text = "node main(x: real) -> (o: real, q: real)\n  o = pre x;\n  q = 0.5 -> pre (o + 1.0);\n";
  nil.p = test::compile_stream(nil.text, "main");
  nil.files = codegen::emit_cpp(nil.p.prog, nil.p.clocks, nil.p.plan, "nil.rml", "p" + std::to_string(cases.size()));
  name_outputs(nil);
  nil.in.cycles = 4;
  for (double x : {1.0, 2.0, 4.0, 8.0}) nil.in.streams["x"].push_back(Cell::of(array::Tensor::real(x)));
  cases.push_back(std::move(nil));
  // The negative control, last: movavg, its division a product.
  Case bad;
  bad.p = test::compile_stream("node main(x: real) -> (avg: real)\n  avg = (x + (0.0 fby x)) / 2.0;\n", "main");
  bad.files = codegen::emit_cpp(bad.p.prog, bad.p.clocks, bad.p.plan, "bad.rml", "p" + std::to_string(cases.size()));
  name_outputs(bad);
  for (auto &f : bad.files)
    if (f.path == "main_.cpp") f.text.replace(f.text.find("BinOp::Div"), 10, "BinOp::Mul");
  bad.in.cycles = 3;
  for (double x : {1.0, 2.0, 4.0}) bad.in.streams["x"].push_back(Cell::of(array::Tensor::real(x)));
  cases.push_back(std::move(bad));

  std::string out = build_and_run(cases, fs::temp_directory_path() / ("rml_compile_test_" + std::to_string(::getpid())));
  size_t checked = 0;
  std::map<std::string, size_t> kinds;  // output cells by kind: A absent, N nil, R real, I int/bool
  for (size_t k = 0; k + 1 < cases.size(); ++k) {
    std::string diff = compare(cases[k], k, out, &kinds);
    EXPECT_EQ(diff, "") << cases[k].text;
    checked += diff.empty() && k < accepted;
  }
  EXPECT_NE(compare(cases.back(), cases.size() - 1, out).find("'avg' at cycle 0: generated R"), std::string::npos);
  std::printf("%zu accepted programs (of %zu tried) equal the oracle; output cells: %zu absent, %zu nil, %zu real, %zu int/bool\n",
              checked, tried, kinds["A"], kinds["N"], kinds["R"], kinds["I"]);
  // Not vacuous: the traces reach absent cycles, and the nil case's outputs are nil twice.
  EXPECT_GT(kinds["A"], 0u);
  EXPECT_EQ(kinds["N"], 2u);
}

// Law, for tensors and funs: on programs of rml gen (src/gen) with tensor streams and
// applications of the prelude's and the program's own funs (elementwise operators with
// broadcast, `matvec` of a literal matrix, `dot`, `sum`, `sigmoid`, `tanh`, user `fun`s;
// state of tensors under fby, pre, ->, when and merge, instances, resets; every other
// program with `post`, tensor posts and backfill cut by an assumption, so the window class)
// accepted by rml-check, the generated class computes the oracle's outputs, every tensor
// element bit for bit, the last cycles unknown where the oracle's are. Negative control:
// the same class with the first generated function's first addition turned into a
// subtraction differs from the oracle.
TEST(CompileEqualsOracle, GeneratedTensorAndFunPrograms) {
  const size_t want = kAllCases ? 100 : test::kSanitized ? 2 : 8;
  gen::GenOptions o;
  o.cycles = 24;  // past the window of a small horizon: frames leave, their blocks are recycled and state is remembered
  std::vector<Case> cases;
  size_t tried = 0, with_funs = 0, windows = 0, fused = 0;
  std::map<std::string, size_t> shapes;
  for (uint64_t k = 0; cases.size() < want && tried < 20 * want; ++k) {
    o.size = 2 + static_cast<int>(k % 7);
    o.post = cases.size() % 2 == 1;
    gen::GeneratedProgram g = gen::generate_program(gen::program_seed(21, k), o);
    if (g.text.find("real[") == std::string::npos) continue;
    ++tried;
    Case c;
    c.text = g.text;
    c.p = test::compile_stream(c.text, g.main);
    if (c.p.plan.has_post != o.post) continue;  // every other case a window class (a draw may hold no post)
    check::Options co;
    co.rlimit = 5'000'000;
    std::optional<int64_t> H = accepted(c.p.fe->checked, c.p, co);
    if (!H) continue;
    try {
      c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "gen.rml", "p" + std::to_string(cases.size()), *H, &c.p.fe->checked);
    } catch (codegen::CodegenError &e) {
      ADD_FAILURE() << "an accepted tensor program is refused: " << e.what() << "\n" << c.text;
      continue;
    }
    c.window = c.p.plan.has_post;
    windows += c.window;
    for (auto &f : c.files)  // a function with an application fused into it (fuse_applications.hpp)
      if (f.path == c.cls + ".cpp" && f.text.find("' of ") != std::string::npos) {
        ++fused;
        break;
      }
    name_outputs(c);
    c.trace = gen::generate_trace(g, k, o.cycles);
    c.in = oracle::read_trace("gen.csv", c.trace, c.p.prog, 0);
    with_funs += g.text.find("fun ") != std::string::npos || g.text.find("matvec") != std::string::npos ||
                 g.text.find("sigmoid") != std::string::npos;
    for (auto &sh : g.shapes) ++shapes[sh];
    cases.push_back(std::move(c));
  }
  ASSERT_EQ(cases.size(), want) << "too few accepted tensor programs in " << tried << " tries";
  // Pinned: a transcendental of a constant. Without codegen::kExactFlags GCC folds tanh(0.875)
  // with MPFR at compile time and the class prints 0.8519528019683105, an ulp from the C
  // library's 0.8519528019683106 that the oracle computes (found by this law at 100 cases).
  Case folded;
  folded.text = "node main(x: real) -> (o: real)\n  o = sigmoid(1.75) + x;\n";
  folded.p = test::compile_stream(folded.text, "main");
  folded.files = codegen::emit_cpp(folded.p.prog, folded.p.clocks, folded.p.plan, "folded.rml", "p" + std::to_string(cases.size()), 0,
                                   &folded.p.fe->checked);
  name_outputs(folded);
  folded.in.cycles = 1;
  folded.in.streams["x"].push_back(Cell::of(array::Tensor::real(0.0)));
  cases.push_back(std::move(folded));
  // The negative control, last: a copy of the first case, one addition a subtraction.
  Case bad;
  bad.text = cases.front().text;
  bad.p = test::compile_stream(bad.text, "main");
  bad.in = cases.front().in;
  bad.window = cases.front().window;
  bad.files = codegen::emit_cpp(bad.p.prog, bad.p.clocks, bad.p.plan, "bad.rml", "p" + std::to_string(cases.size()), 0, &bad.p.fe->checked);
  bool mutated = false;
  for (auto &f : bad.files)
    if (f.path == bad.cls + ".cpp" && f.text.find("BinOp::Add") != std::string::npos)
      f.text.replace(f.text.find("BinOp::Add"), 10, "BinOp::Sub"), mutated = true;
  name_outputs(bad);
  cases.push_back(std::move(bad));
  std::string out = build_and_run(cases, fs::temp_directory_path() / ("rml_compile_tensor_" + std::to_string(::getpid())));
  std::map<std::string, size_t> kinds;
  size_t equal = 0;
  for (size_t k = 0; k + 1 < cases.size(); ++k) {
    std::string diff = compare(cases[k], k, out, &kinds);
    EXPECT_EQ(diff, "") << cases[k].text << "\ntrace:\n" << cases[k].trace;
    equal += diff.empty();
  }
  if (mutated) {
    EXPECT_NE(compare(cases.back(), cases.size() - 1, out), "") << "the negative control was not caught";
  }
  std::string hard;
  for (auto &[sh, n] : shapes) hard += " " + sh + ":" + std::to_string(n);
  std::printf("%zu accepted tensor programs (%zu with funs, %zu window classes, %zu with fused applications; of %zu tried) equal the "
              "oracle; output cells: %zu absent, %zu unknown, %zu nil; shapes:%s\n",
              equal, with_funs, windows, fused, tried, kinds["A"], kinds["?"], kinds["N"], hard.c_str());
  EXPECT_GT(with_funs, 0u);
  EXPECT_TRUE(fused > 0 || test::kSanitized) << "no draw had an application fused into another";
  EXPECT_GT(windows, 0u);
  EXPECT_TRUE(mutated || test::kSanitized) << "no addition in the first case's functions to mutate";
}

// Which applications fuse: one read once, by an application computed by a function; not
// one read twice, by a state primitive, or by a scalar operator, nor an output.
TEST(FuseApplications, OnlyAVariableReadOnceByAGeneratedApplicationFuses) {
  test::StreamProgram p = test::compile_stream("node main(x: real[2]) -> (o: real[2], q: real[2], r: real[2], v: bool, w: real[2])\n"
                                               "  a = tanh(x);\n"  // read once by o's '+': fused
                                               "  o = a + x;\n"
                                               "  w = o * 2.0;\n"  // o is an output: kept
                                               "  b = x * 2.0;\n"  // read by fby: kept
                                               "  q = [0.0, 0.0] fby b;\n"
                                               "  e = sigmoid(x);\n"  // read twice: kept
                                               "  r = e * e;\n"
                                               "  t = sum(x);\n"  // read by a scalar operator: kept
                                               "  v = t > 0.0;\n",
                                               "main");
  codegen::FusedProgram f = codegen::fuse_applications(p.prog);
  std::map<std::string, std::vector<std::string>> args;
  for (auto &eq : f.prog.equations) args[eq.lhs] = eq.args;
  EXPECT_FALSE(args.count("a"));
  for (const char *kept : {"o", "w", "b", "q", "e", "r", "t", "v"}) EXPECT_TRUE(args.count(kept)) << kept;
  EXPECT_EQ(args["o"], (std::vector<std::string>{"x", "x"}));  // its leaves: tanh's operand, then its own second
  ASSERT_EQ(f.tree_of.size(), 1u);
  const codegen::FusedApplication &o = *f.tree_of.at("o");
  ASSERT_EQ(o.from.size(), 2u);
  ASSERT_TRUE(o.from[0]);
  EXPECT_EQ(o.from[0]->eq.lhs, "a");
  EXPECT_FALSE(o.from[1]);
  for (auto &v : f.prog.locals) EXPECT_NE(v.name, "a");
  EXPECT_EQ(f.prog.locals.size() + 1, p.prog.locals.size());
}

// Applications read once by another are computed inside it (codegen/fuse_applications):
// each shape of fusion, pinned, in a post-free class and in a window class, equals the
// oracle bit for bit. The trace makes the order of additions visible: d = [1, 1e16, -1e16]
// sums to 0 from the first element (1e16 + 1 rounds to 1e16) and to 1 from the last, so a
// matvec(tr(k), d) whose loop order changed the additions' order would differ; the
// negative control is that class with its summed loop reversed.
TEST(CompileEqualsOracle, FusedApplicationsEqualTheOracle) {
  const std::string funs =
      "fun outer2(a: real[m], b: real[n]) : real[m, n] = build([m, n], \\(i, j) => a[i] * b[j]);\n"
      "fun twice(a: real[n]) : real[n] = a * a + a;\n";
  const std::string body =
      "  dx = matvec(tr(k), d);\n"                  // a transpose into a sum: summed index outermost
      "  s = acc + outer2(d, x);\n"                 // a build into an addition: one loop nest
      "  acc = k -> pre s;\n"
      "  g = twice(tanh(d) * 2.0);\n"               // an operand read twice by its reader: a let
      "  b = (d > 0.0)[1];\n"                       // a tensor of bools inside a function
      "  h = reshape([3, 1], matvec(k, x) + d);\n"  // a reshape's result is its operand's
      "  u = tanh(d);\n"
      "  m = u * u;\n";                              // read twice: not fused
  const std::string trace = "k,d,x\n"
                            "\"[[1.0, 1.0], [1.0, 1.0], [1.0, 1.0]]\",\"[1.0, 1.0e16, -1.0e16]\",\"[0.5, -0.0]\"\n"
                            "\"[[2.0, -0.0], [3.0, 0.25], [-1.0, 1.0e300]]\",\"[-0.0, 0.0, 3.0]\",\"[1.0e300, 2.0]\"\n"
                            "\"[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]]\",\"[0.5, -2.0, 1.0e-310]\",\"[-1.0, 7.0]\"\n";
  std::vector<Case> cases;
  for (bool window : {false, true}) {
    Case c;
    c.text = funs + "node main(k: real[3, 2], d: real[3], x: real[2]) -> (dx: real[2], s: real[3, 2], g: real[3], b: bool, h: real[3, 1], m: real[3]" +
             (window ? ", p: real[2]" : "") + ")\n" + body + (window ? "  p = post dx;\n" : "");
    c.p = test::compile_stream(c.text, "main");
    ASSERT_EQ(c.p.plan.has_post, window);
    check::Options co;
    co.rlimit = 10'000'000;
    std::optional<int64_t> H = accepted(c.p.fe->checked, c.p, co);
    ASSERT_TRUE(H) << c.text;
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "fused.rml", "p" + std::to_string(cases.size()), *H, &c.p.fe->checked);
    c.window = window;
    name_outputs(c);
    c.trace = trace;
    c.in = oracle::read_trace("fused.csv", c.trace, c.p.prog, 0);
    std::string cpp;
    for (auto &f : c.files)
      if (f.path == c.cls + ".cpp") cpp = f.text;
    // What was fused, by the functions' names (reader first), and what was not.
    for (const char *fn : {"_matvec_tr(", "_Add_outer2(", "_twice_Mul_Tanh(", "_index_Gt(", "_reshape_Add_matvec("})
      EXPECT_NE(cpp.find(fn), std::string::npos) << "no function " << fn << " in\n" << cpp;
    EXPECT_NE(cpp.find("// 'tanh', first applied"), std::string::npos) << "an application read twice was fused:\n" << cpp;
    // The transpose is read by rows: the summed index is the outer loop of matvec_tr.
    EXPECT_NE(cpp.find("std::fill_n(rml_out, 2, double{});\n  for (int64_t j"), std::string::npos) << cpp;
    cases.push_back(std::move(c));
  }
  Case bad;
  bad.text = cases.front().text;
  bad.p = test::compile_stream(bad.text, "main");
  bad.in = cases.front().in;
  bad.files = codegen::emit_cpp(bad.p.prog, bad.p.clocks, bad.p.plan, "bad.rml", "p2", 0, &bad.p.fe->checked);
  name_outputs(bad);
  bool mutated = false;
  for (auto &f : bad.files) {
    size_t at = f.path == bad.cls + ".cpp" ? f.text.find("_matvec_tr(const") : std::string::npos;
    size_t loop = at == std::string::npos ? at : f.text.find("for (int64_t j", at);
    if (loop == std::string::npos) continue;
    size_t close = f.text.find('{', loop);
    std::string j = f.text.substr(loop + 13, f.text.find(' ', loop + 13) - loop - 13);
    f.text.replace(loop, close - loop, "for (int64_t " + j + " = 2; " + j + " >= 0; --" + j + ") ");
    mutated = true;
  }
  ASSERT_TRUE(mutated);
  cases.push_back(std::move(bad));
  std::string out = build_and_run(cases, fs::temp_directory_path() / ("rml_compile_fused_" + std::to_string(::getpid())));
  for (size_t k = 0; k < 2; ++k) EXPECT_EQ(compare(cases[k], k, out), "") << cases[k].text;
  // dx at cycle 0 is [0, 0]: 1e16 + 1 rounds to 1e16 (pinned, by hand), as the oracle says.
  oracle::Result r = oracle::Oracle(cases[0].p.fe->checked, cases[0].p.prog, cases[0].p.clocks).run(cases[0].in);
  EXPECT_EQ(cell_code(r.at("dx", 0)), "R0000000000000000:R0000000000000000");
  EXPECT_NE(compare(cases[2], 2, out), "") << "the negative control (matvec_tr's additions reversed) was not caught";
}

// A post-free node with an instantaneous cycle through exclusive when/merge branches has no
// static order: rml compile makes it a window class (kHorizon 0), whose worklist runs each
// cycle to its fixpoint; it equals the oracle on random traces (scalars, and tensors with
// state on the cycle). It was refused (codegen.cycle). Negative control: one class with
// its addition a subtraction in the node's tables.
TEST(CompileEqualsOracle, InstantaneousCyclesThroughExclusiveBranches) {
  const std::vector<std::string> texts = {
      "node main(c: bool, x: int) -> (o: int, p: int)\n"
      "  a = merge c ((x + 1) when c) (b when not c);\n"
      "  b = merge c (a when c) ((x * 2) when not c);\n"
      "  o = a + b;\n"
      "  p = 0 fby o;\n",
      "node main(c: bool, x: real[2], y: real) -> (o: real[2], q: real)\n"
      "  a = merge c ((x * 2.0) when c) ((b + [1.0, 1.0]) when not c);\n"
      "  b = merge c ((a - x) when c) (((x fby a) * y) when not c);\n"
      "  o = a;\n"
      "  q = sum(b) + y;\n"};
  std::mt19937_64 rng(20261127);
  std::uniform_int_distribution<int> small(-4, 4);
  std::vector<Case> cases;
  for (size_t k = 0; k <= texts.size(); ++k) {
    const bool control = k == texts.size();  // the first program again, mutated below
    Case c;
    c.text = texts[control ? 0 : k];
    c.p = test::compile_stream(c.text, "main");
    check::Options co;
    co.rlimit = 10'000'000;
    std::optional<int64_t> H = accepted(c.p.fe->checked, c.p, co);
    ASSERT_TRUE(H) << c.text;
    ASSERT_FALSE(c.p.plan.has_post);
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "cycle.rml", "p" + std::to_string(k), *H, &c.p.fe->checked);
    c.window = true;
    name_outputs(c);
    c.in.cycles = 16;
    for (size_t n = 0; n < c.in.cycles; ++n) {
      c.in.streams["c"].push_back(Cell::of(array::Tensor::boolean(small(rng) > 0)));
      if (k == 0 || control) {
        c.in.streams["x"].push_back(Cell::of(array::Tensor::integer(small(rng))));
      } else {
        array::Tensor t = array::Tensor::zeros(Scalar::Real, {2});
        t.r = {small(rng) * 0.5, small(rng) * 0.25};
        c.in.streams["x"].push_back(Cell::of(t));
        c.in.streams["y"].push_back(Cell::of(array::Tensor::real(small(rng) * 0.75)));
      }
    }
    std::string *cpp = nullptr;
    for (auto &f : c.files)
      if (f.path == c.cls + ".cpp") cpp = &f.text;
    ASSERT_TRUE(cpp);
    EXPECT_NE(cpp->find("push("), std::string::npos) << "not a window class";
    if (control) {
      const std::string add = std::to_string(static_cast<int>(ops::BinOp::Add)) + " /* Add */";
      const std::string sub = std::to_string(static_cast<int>(ops::BinOp::Sub)) + " /* Sub */";
      size_t at = cpp->find(add);
      ASSERT_NE(at, std::string::npos) << *cpp;
      cpp->replace(at, add.size(), sub);
    }
    cases.push_back(std::move(c));
  }
  std::string out = build_and_run(cases, fs::temp_directory_path() / ("rml_compile_cycles_" + std::to_string(::getpid())));
  for (size_t k = 0; k < texts.size(); ++k) EXPECT_EQ(compare(cases[k], k, out), "") << cases[k].text;
  EXPECT_NE(compare(cases.back(), texts.size(), out), "") << "the negative control was not caught";
}

// Law, on generated nodes whose instantaneous dependencies cycle through exclusive
// when/merge branches (tests/common/exclusive_cycle_gen.hpp: v1..vN, each reading lower
// v's when c and higher ones when not c, with state on the cycle, a nested merge on d, an
// instance, int, real or real[2]): those rml-check accepts compile to a window class with
// horizon 0 and equal the oracle, cell for cell, on random traces with absent cycles.
// (The negative control is InstantaneousCyclesThroughExclusiveBranches's, on the same
// runtime path.)
TEST(CompileEqualsOracle, GeneratedCyclesThroughExclusiveBranches) {
  const size_t want = kAllCases ? 60 : test::kSanitized ? 2 : 8;
  std::vector<Case> cases;
  std::mt19937_64 rng(20261128);
  size_t tried = 0, rejected = 0, nested = 0, stateful = 0, instance = 0, tensors = 0;
  for (uint64_t seed = 1; cases.size() < want && tried < 10 * want; ++seed, ++tried) {
    testgen::ExclusiveCycleGen g;
    Case c;
    c.text = rc::gen::exec([&] { return g.program(); })(rc::Random(seed), 100).value();
    g = {};  // the flags of the drawn program: draw it again into g
    (void)rc::gen::exec([&] { return g.program(); })(rc::Random(seed), 100).value();
    c.p = test::compile_stream(c.text, "main");
    EXPECT_FALSE(c.p.plan.has_post);
    check::Options o;
    o.rlimit = 5'000'000;
    std::optional<int64_t> H = accepted(c.p.fe->checked, c.p, o);
    if (!H) {
      ++rejected;
      if (std::getenv("RML_DUMP_REJECTED")) std::ofstream(std::string("/tmp/rej") + std::to_string(seed) + ".rml") << c.text;
      continue;
    }
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "cycle.rml", "p" + std::to_string(cases.size()), *H, &c.p.fe->checked);
    c.window = false;
    for (auto &f : c.files) {
      if (f.path == c.cls + ".cpp") c.window = f.text.find("push(") != std::string::npos;
    }
    EXPECT_TRUE(c.window) << "a cyclic node compiled to clock-directed code:\n" << c.text;
    name_outputs(c);
    c.in.cycles = 14;
    for (size_t n = 0; n < c.in.cycles; ++n) {
      const bool present = rng() % 6 != 0;  // else every input absent: the base clock does not tick
      auto val = [&](Cell v) { return present ? v : Cell::absent(); };
      array::Tensor t = array::Tensor::zeros(Scalar::Real, {2});
      t.r = {static_cast<double>(static_cast<int>(rng() % 9) - 4) / 2.0, static_cast<double>(static_cast<int>(rng() % 5) - 2)};
      c.in.streams["c"].push_back(val(Cell::of(array::Tensor::boolean(rng() % 2))));
      c.in.streams["d"].push_back(val(Cell::of(array::Tensor::boolean(rng() % 2))));
      c.in.streams["x"].push_back(val(Cell::of(array::Tensor::integer(static_cast<int64_t>(rng() % 7) - 3))));
      c.in.streams["y"].push_back(val(Cell::of(array::Tensor::real(static_cast<double>(static_cast<int>(rng() % 7) - 3) / 4.0))));
      c.in.streams["t"].push_back(val(Cell::of(t)));
    }
    nested += g.nested, stateful += g.stateful, instance += g.instance, tensors += g.ty == testgen::ExclusiveCycleGen::Ty::Tensor;
    cases.push_back(std::move(c));
  }
  ASSERT_EQ(cases.size(), want) << "rml-check rejected " << rejected << " of " << tried << " generated cyclic nodes";
  std::string out = build_and_run(cases, fs::temp_directory_path() / ("rml_compile_xcycles_" + std::to_string(::getpid())));
  std::map<std::string, size_t> kinds;
  size_t equal = count_equal(cases, out, &kinds);
  std::printf("%zu cyclic nodes accepted, %zu equal the oracle (of %zu tried; %zu with a nested merge, %zu with state on the "
              "cycle, %zu with an instance, %zu on real[2]); output cells: %zu absent, %zu values\n",
              cases.size(), equal, tried, nested, stateful, instance, tensors, kinds["A"], kinds["R"] + kinds["I"]);
  if (want >= 8) {
    EXPECT_GT(nested * stateful * instance * tensors, 0u) << "the generator missed a shape";
  }
}

// Lustre V6 programs (rml gen --dialect lustre-v6: an enumeration and its clocks, records,
// arrays and iterators, a static parameter, restarts, constants, => and #), elaborated
// into names C++ does not allow as they are (`a3[1]`, `p2.n`, `scale<<2>>_1_o`): the class
// equals the oracle. Pinned: a name that meets another once made an identifier (`a[1]`
// and `a_1`), and the negative control, that program with its addition a subtraction.
TEST(CompileEqualsOracle, GeneratedLustreV6Programs) {
  const size_t want = kAllCases ? 60 : test::kSanitized ? 2 : 6;
  gen::GenOptions o = gen::GenOptions{}.for_lustre();
  o.lustre_types = true;
  o.cycles = 12;
  std::vector<Case> cases;
  std::map<std::string, size_t> shapes;
  size_t tried = 0;
  for (uint64_t k = 0; cases.size() < want && tried < 10 * want; ++k) {
    o.size = 3 + static_cast<int>(k % 5);
    gen::GeneratedProgram g = gen::generate_program(gen::program_seed(33, k), o);
    ++tried;
    Case c;
    c.text = g.text;
    c.p = test::compile_stream(c.text, g.main);
    check::Options co;
    co.rlimit = 5'000'000;
    std::optional<int64_t> H = accepted(c.p.fe->checked, c.p, co);
    if (!H) continue;
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "gen.lus", "p" + std::to_string(cases.size()), *H, &c.p.fe->checked);
    name_outputs(c);
    c.trace = gen::generate_trace(g, k, o.cycles);
    c.in = oracle::read_trace("gen.csv", c.trace, c.p.prog, 0);
    for (auto &sh : g.shapes) ++shapes[sh];
    cases.push_back(std::move(c));
  }
  ASSERT_EQ(cases.size(), want) << "too few accepted Lustre V6 programs in " << tried << " tries";
  const char *names =
      "type pair = struct { n: int; b: bool };\n"
      "node scale<<const k: int>>(a: int) returns (o: int);\nlet\n  o = a * k;\ntel\n"
      "node main(x: int) returns (a: int^2; p: pair; s: int; a_1: int);\nlet\n"
      "  a = [x, x + 1];\n  p = pair { n = x; b = x > 0 };\n  s = scale<<2>>(x);\n  a_1 = 7;\ntel\n";
  for (bool mutate : {false, true}) {
    Case c;
    c.text = names;
    c.p = test::compile_stream(c.text, "main");
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "names.lus", "p" + std::to_string(cases.size()), 0, &c.p.fe->checked);
    if (mutate)
      for (auto &f : c.files)
        if (f.path == c.cls + ".cpp" && f.text.find("BinOp::Add") != std::string::npos) f.text.replace(f.text.find("BinOp::Add"), 10, "BinOp::Sub");
    name_outputs(c);
    EXPECT_EQ(c.names.at("a[1]"), "a_1");
    EXPECT_EQ(c.names.at("a_1"), "a_1_2");
    EXPECT_EQ(c.names.at("p.n"), "p_n");
    c.in.cycles = 2;
    for (int x : {3, -1}) c.in.streams["x"].push_back(Cell::of(array::Tensor::integer(x)));
    cases.push_back(std::move(c));
  }
  std::string out = build_and_run(cases, fs::temp_directory_path() / ("rml_compile_lustre_" + std::to_string(::getpid())));
  for (size_t k = 0; k + 1 < cases.size(); ++k)
    EXPECT_EQ(compare(cases[k], k, out), "") << cases[k].text << "\ntrace:\n" << cases[k].trace;
  EXPECT_NE(compare(cases.back(), cases.size() - 1, out), "") << "the negative control was not caught";
  std::string seen;
  for (auto &[sh, n] : shapes) seen += " " + sh + ":" + std::to_string(n);
  std::printf("%zu accepted Lustre V6 programs (of %zu tried) equal the oracle; shapes:%s\n", want, tried, seen.c_str());
  EXPECT_GT(shapes.size(), 3u);
}

// Every main node of reference/ that rml-check accepts and rml compile generates (post-free
// with tensors and funs, or with post on scalars) computes the oracle's outputs on seeded random traces with every input present
// (a trace its clocks reject, where an input is declared on a sampled clock, is skipped and
// counted). Not vacuous: at least the paper's counter, fby, when and merge figures.
TEST(CompileEqualsOracle, ReferenceNodesThatCompile) {
  if (test::kSanitized) GTEST_SKIP() << "semantics, not memory: the Release run checks it (the sanitizers' run covers the emitter "
                                        "through the random programs)";
  std::vector<Case> cases;
  std::vector<std::unique_ptr<FrontendResult>> fronts;
  size_t refused = 0, rejected = 0, off_clock = 0;
  std::mt19937_64 rng(11);
  std::vector<std::string> files;
  for (auto &entry : fs::recursive_directory_iterator(std::string(RML_SOURCE_DIR) + "/reference"))
    if (entry.path().extension() == ".rml" || entry.path().extension() == ".lus") files.push_back(entry.path().string());
  std::sort(files.begin(), files.end());
  std::vector<std::string> names;
  for (auto &path : files) {
    auto fe = run_frontend(path, test::read_text(path.substr(std::string(RML_SOURCE_DIR).size() + 1)));
    if (fe->diags.has_errors()) continue;
    for (auto &d : fe->user.decls) {
      auto *node = std::get_if<NodeDecl>(&d);
      if (!node || !core::can_be_main(fe->checked, node->name)) continue;
      Case c;
      try {
        c.p.prog = core::elaborate(fe->checked, node->name);
      } catch (core::ElabError &) {
        continue;
      }
      c.p.clocks = core::infer_clocks(c.p.prog);
      c.p.plan = stream::build_plan(c.p.prog, c.p.clocks);
      check::Options o;
      o.rlimit = 5'000'000;
      std::optional<int64_t> H = accepted(fe->checked, c.p, o);
      if (!H) {
        ++rejected;
        continue;
      }
      try {
        c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, path, "p" + std::to_string(cases.size()), *H, &fe->checked);
      } catch (codegen::CodegenError &) {
        ++refused;
        continue;
      }
      c.window = c.p.plan.has_post;
      // Random values; if the clocks reject the trace (an input declared on a sampled
      // clock, `dh_next: real[2] when bp`), once more with every bool input true.
      oracle::Result res;
      for (int attempt = 0; attempt < 2; ++attempt) {
        c.in = {};
        c.in.cycles = 10;
        for (auto &v : c.p.prog.inputs)
          for (size_t n = 0; n < c.in.cycles; ++n) {
            Scalar e = v.type.elem;
            array::Tensor t = array::Tensor::zeros(e, array::concrete_shape(v.type.shape));
            for (size_t q = 0; q < t.numel(); ++q) {
              if (e == Scalar::Real) t.r[q] = static_cast<double>(static_cast<int>(rng() % 9) - 4) / 2.0;
              else t.i[q] = e == Scalar::Int ? static_cast<int64_t>(rng() % 7) - 3 : attempt == 1 ? 1 : static_cast<int64_t>(rng() % 2);
            }
            c.in.streams[v.name].push_back(Cell::of(t));
          }
        res = oracle::Oracle(fe->checked, c.p.prog, c.p.clocks).run(c.in);
        if (res.input_clock_violations.empty()) break;
      }
      if (!res.input_clock_violations.empty()) {
        ++off_clock;
        continue;
      }
      c.cls = codegen::class_name(c.p.prog.main);
      c.want = res;
      name_outputs(c);
      c.text = path + " node " + node->name;
      names.push_back(node->name);
      cases.push_back(std::move(c));
    }
    fronts.push_back(std::move(fe));
  }
  ASSERT_FALSE(cases.empty());
  std::string out = build_and_run(cases, fs::temp_directory_path() / ("rml_compile_ref_" + std::to_string(::getpid())));
  size_t equal = count_equal(cases, out);
  std::string list;
  for (auto &n : names) list += (list.empty() ? "" : ", ") + n;
  std::printf("reference: %zu nodes compiled and equal the oracle (%s); %zu not generated (tensors or funs with post), %zu not accepted "
              "by rml-check, %zu with inputs on sampled clocks\n", equal, list.c_str(), refused, rejected, off_clock);
  EXPECT_GE(equal, 45u);  // 47 on 2026-11-27, tensor and fun nodes among them (ADBench's LSTM, Figures 8, 12, 19)
}

// Law, for nodes with post (the window class over rml_window.hpp): on random programs with
// post that rml-check accepts (their horizon proved) — half of them ProgGen's, half
// backfill_gen's cut recurrences on traces that keep their assumptions — every cycle's
// outputs equal the oracle's, cycle for cycle, the last ones unknown where the oracle's are.
TEST(CompileEqualsOracle, RandomAcceptedProgramsWithPost) {
  const size_t want = kAllCases ? 40 : test::kSanitized ? 2 : 4;
  std::vector<Case> cases;
  std::mt19937_64 rng(13);
  size_t tried = 0, with_post = 0;
  size_t backfill = 0;
  for (uint64_t seed = 1000; cases.size() < want && tried < 40 * want; ++seed, ++tried) {
    // Every other program is a backward recurrence of backfill_gen: post inside cuts, fby,
    // -> and instances inside cut branches, alternating posts, sampled clocks, assumptions.
    const bool chain = cases.size() % 2 == 1;
    struct Drawn {
      std::string text;
      int within = -1;
      std::string assumed;
    };
    auto gen = rc::gen::exec([&] {
      if (chain) {
        testgen::BackfillGen b;
        Drawn d;
        d.text = b.program();
        d.within = b.within;
        d.assumed = b.assumed;
        return d;
      }
      testgen::ProgGen g;
      g.well_clocked = true;
      g.with_funs = false;
      g.sub_clocked_state = *rc::gen::arbitrary<bool>();
      g.resets = *rc::gen::arbitrary<bool>();
      return Drawn{g.program(), -1, ""};
    });
    Case c;
    Drawn drawn = gen(rc::Random(seed), 100).value();  // size 100: inRange is size-biased, and every operator must be reachable
    c.text = drawn.text;
    c.p = test::compile_stream(c.text, "main");
    if (!c.p.plan.has_post) continue;
    ++with_post;
    check::Options o;
    o.rlimit = 2'000'000;
    o.max_depth = 2;
    o.max_horizon = 6;
    std::optional<int64_t> H = accepted(c.p.fe->checked, c.p, o);
    if (!H) continue;
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "gen.rml", "p" + std::to_string(cases.size()), *H);
    c.window = true;
    name_outputs(c);
    // rml-check's horizon counts the cycles where the main node runs (some input present):
    // a cycle with every input absent stretches a chain, so these traces have none.
    if (!chain) {
      c.in = admissible_trace(rng, 14, /*always=*/true);
    } else {  // main(x, y, c, d), the assumption kept: c and d forced every `within + 1` cycles
      size_t period = drawn.within >= 0 ? static_cast<size_t>(drawn.within) + 1 : 0, phase = rng() % 5;
      c.in.cycles = 14;
      for (size_t n = 0; n < c.in.cycles; ++n) {
        bool cv = rng() % 2, dv = rng() % 2;
        if (period && (n + phase) % period == 0) cv = drawn.assumed != "not c", dv = true;
        c.in.streams["x"].push_back(Cell::of(array::Tensor::real(static_cast<double>(static_cast<int>(rng() % 7) - 3))));
        c.in.streams["y"].push_back(Cell::of(array::Tensor::integer(static_cast<int64_t>(rng() % 7) - 3)));
        c.in.streams["c"].push_back(Cell::of(array::Tensor::boolean(cv)));
        c.in.streams["d"].push_back(Cell::of(array::Tensor::boolean(dv)));
      }
      ++backfill;
    }
    cases.push_back(std::move(c));
  }
  ASSERT_EQ(cases.size(), want) << "too few accepted programs with post in " << tried << " tries (" << with_post << " with post)";
  std::string out = build_and_run(cases, fs::temp_directory_path() / ("rml_compile_post_" + std::to_string(::getpid())));
  std::map<std::string, size_t> kinds;
  size_t equal = count_equal(cases, out, &kinds);
  std::printf("%zu accepted programs with post (%zu backward recurrences of backfill_gen; of %zu tried) equal the oracle; output "
              "cells: %zu absent, %zu unknown, %zu values\n",
              equal, backfill, tried, kinds["A"], kinds["?"], kinds["R"] + kinds["I"]);
  EXPECT_EQ(backfill, want / 2);
  EXPECT_GT(kinds["?"], 0u);  // the ends of the traces, unknown as in the oracle
}


// Law (the retimed window class, src/stream/retime.hpp): a window class whose node
// retimes computes the oracle's chronogram on every trace — where the fast sweep runs
// throughout (every input present), where it hands over to the worklist in the middle
// (a cycle with every input absent, so the base clock does not tick), and where inputs are
// off their clocks (clock errors, which the checks must carry to the readers the sweep
// computed first) — and finish() completes the cells the sweep had not reached. Over
// ProgGen's programs with post, accepted by rml-check or not (the law is the runtime's and
// the retiming's). Three traces a program; the hand-over's class has a window of 40 cycles,
// more than the trace, so that an unproductive cell stays unknown instead of overflowing.
// The tables' sweep (the runtime's own, RML_WINDOW_TABLE_SWEEP) is checked in the same way.
// Negative control: the same classes with their checks removed differ from the oracle on
// three pinned programs where only a check carries a clock error; on the first eight random
// ones the error mostly reaches the outputs by other paths too (how many differ is printed).
// A trace with every input present on which each post on a sampled clock finds its
// clock's next tick within `horizon` cycles wherever the trace has that many left (the
// ticks read from the oracle's run: a post is present where its clock ticks), so that the
// retimed sweep of such a post can run throughout; the first of 64 draws that does, else
// the last one.
oracle::Inputs trace_within_horizon(const Case &c, std::mt19937_64 &rng, size_t horizon) {
  oracle::Inputs in;
  for (int attempt = 0; attempt < 64; ++attempt) {
    in = admissible_trace(rng, 14, /*always=*/true);
    oracle::Result r = oracle::Oracle(c.p.fe->checked, c.p.prog, c.p.clocks).run(in);
    bool within = true;
    for (auto &st : c.p.plan.steps) {
      if (st.kind != stream::StepKind::Post || st.clock == c.p.plan.clock_slots.at(0)) continue;
      const std::string &v = c.p.plan.slots[static_cast<size_t>(st.out)].name;
      if (!r.has(v)) return in;  // (a name the oracle does not know: no way to choose)
      for (size_t n = 0, last = SIZE_MAX; n < in.cycles; ++n) {
        if (r.tag(v, n) == oracle::Tag::Abs) {
          within &= last == SIZE_MAX || n - last < horizon;
          continue;
        }
        last = SIZE_MAX;
        if (n + horizon < in.cycles) last = n;
      }
    }
    if (within) return in;
  }
  return in;
}

TEST(CompileEqualsOracle, RetimedWindowClassesOnEveryTrace) {
  // Under the sanitizers (which build the generated code with them too, at ~10 s of the
  // compiler per program) a few programs: the law itself is checked on 20 in Release (the
  // longest test of CI's run at 40), on 300 by scripts/soundness-long.sh (RML_ALL_CASES).
  const size_t want = kAllCases ? 300 : test::kSanitized ? 6 : 20;
  std::vector<Case> cases;
  // Pinned: a clock error that only a check carries, on a trace where x is absent at cycle
  // 2 and y present (the base clock ticks): an accumulator (fby reads its operand's
  // presence at the cycle, computed after it), a pre, and Figure 3's backward shape
  // `merge true x ((post s) when false)` (the branch not taken, and the when's operand).
  // They come first, so that the random programs' three traces stay at k mod 3 = 0, 1, 2.
  for (const char *text : {"node main(x: real, y: real) -> (o: real, p: real)\n  o = 0.0 fby (o + x);\n  p = post y;\n",
                           "node main(x: real, y: real) -> (o: real, p: real)\n  o = 0.0 -> pre (o + x);\n  p = post y;\n",
                           "node main(x: real, y: real) -> (s: real, q: real)\n  s = merge true x ((post s) when false);\n  q = y;\n"}) {
    Case c;
    c.text = text;
    c.p = test::compile_stream(c.text, "main");
    ASSERT_TRUE(stream::retime(c.p.plan).has_value()) << c.text;
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "pinned.rml", "p" + std::to_string(cases.size()), 1);
    c.window = true, c.report_retimed = true;
    name_outputs(c);
    c.in = oracle::read_trace("pinned.csv", "x,y\n1.0,1.0\n2.0,2.0\n_,3.0\n4.0,4.0\n5.0,5.0\n6.0,6.0\n", c.p.prog, 0);
    cases.push_back(std::move(c));
  }
  // Pinned: a post on a sampled clock (c = x > 0), retimed to look 2 cycles ahead for its
  // next tick. The first trace has c's ticks at most 2 cycles apart (the fast sweep runs
  // throughout); the second a gap of 4 (the post's cell stays unknown at its lag and the
  // sweep hands over); the third reads post's next tick in a when and merges it back.
  // Three, so that the random programs' traces stay at k mod 3 = 0, 1, 2.
  const char *sampled = "node main(x: real, y: real) -> (o: real, p: real)\n  c = x > 0.0;\n  o = merge c (post (x when c)) (0.0 when not c);\n  p = y;\n";
  const char *sampled2 = "node main(x: real, y: real) -> (o: real, p: real)\n  c = x > 0.0;\n  s = post (y when c);\n  o = merge c (s + (x when c)) (y when not c);\n  p = post y;\n";
  for (auto [text, trace, fast] : {std::tuple{sampled, "x,y\n1.0,1.0\n-2.0,2.0\n3.0,3.0\n4.0,4.0\n-5.0,5.0\n6.0,6.0\n7.0,7.0\n", 1},
                                   std::tuple{sampled, "x,y\n1.0,1.0\n-2.0,2.0\n-3.0,3.0\n-4.0,4.0\n5.0,5.0\n6.0,6.0\n7.0,7.0\n", 0},
                                   std::tuple{sampled2, "x,y\n1.0,1.0\n-2.0,2.0\n3.0,3.0\n4.0,4.0\n-5.0,5.0\n6.0,6.0\n7.0,7.0\n", 1}}) {
    Case c;
    c.text = text;
    c.p = test::compile_stream(c.text, "main");
    ASSERT_FALSE(stream::retime(c.p.plan).has_value()) << c.text;  // (no horizon: refused)
    auto rt = stream::retime(c.p.plan, nullptr, 2);
    ASSERT_TRUE(rt.has_value()) << c.text;
    for (auto &cs : rt->checks) ASSERT_TRUE(cs.empty()) << c.text;  // (the negative control below removes checks too)
    codegen::EmitInfo info;
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "pinned.rml", "p" + std::to_string(cases.size()), 2, nullptr, &info);
    EXPECT_TRUE(info.tagless) << info.not_tagless << "\n" << c.text;
    c.window = true, c.report_retimed = true, c.fast_throughout = fast, c.tagless_throughout = fast;
    name_outputs(c);
    c.in = oracle::read_trace("pinned.csv", trace, c.p.prog, 0);
    cases.push_back(std::move(c));
  }
  for (size_t k = 0; k < 3; ++k) cases[k].fast_throughout = 1;
  const size_t kPinnedChecks = 3, kPinned = cases.size();  // (the first three carry a clock error by a check only)
  std::mt19937_64 rng(29);
  size_t tried = 0, with_post = 0, not_retimed = 0, with_checks = 0, sampled_programs = 0, tagless_programs = 0;
  std::map<std::string, size_t> refused, not_tagless;
  size_t programs = 0;
  // Every fourth draw is backfill_gen's backward recurrence (post inside cuts, fby, -> and
  // instances inside cut branches, sampled clocks): the retiming must refuse each of them
  // (a cell may wait for an unbounded future), or, if one ever retimes, the law runs it.
  size_t recurrences = 0, recurrences_refused = 0;
  // Past `want`, drawing goes on until a program with a post on a sampled clock is met
  // (1 in about 20 draws; under the sanitizers' few programs there may be none), and only
  // that one is added.
  for (uint64_t seed = 7000; (programs < want || sampled_programs == 0) && tried < 30 * want; ++seed, ++tried) {
    const bool recurrence = tried % 4 == 3;
    auto gen = rc::gen::exec([&] {
      if (recurrence) return testgen::BackfillGen().program();
      testgen::ProgGen g;
      g.well_clocked = *rc::gen::arbitrary<bool>();
      g.with_funs = false;
      g.sub_clocked_state = *rc::gen::arbitrary<bool>();
      g.resets = *rc::gen::arbitrary<bool>();
      return g.program();
    });
    Case c;
    c.text = gen(rc::Random(seed), 100).value();
    c.p = test::compile_stream(c.text, "main");
    if (!c.p.plan.has_post) continue;
    ++with_post, recurrences += recurrence;
    std::string why;
    auto rt = stream::retime(c.p.plan, &why, 2);  // (a post on a sampled clock: its next tick within 2 cycles, else a hand-over)
    if (!rt) {
      ++not_retimed, ++refused[why.substr(0, why.find(" ("))];
      recurrences_refused += recurrence;
      continue;
    }
    ASSERT_FALSE(recurrence) << "a backward recurrence retimed (its cells may wait for any future cycle):\n" << c.text;
    size_t checks = 0;
    for (auto &cs : rt->checks) checks += cs.size();
    // Kinds 0 and 2 run a class whose frames leave as soon as they are final (a horizon of
    // the largest lag: a frame still held at finish() would be completed by the worklist,
    // which would hide a wrong cell of the sweep); kind 1 hands over to the worklist, for
    // the rest of the trace, in a window of 40 (an unproductive cell waits there).
    // A post on a sampled clock may hand over on any trace (its next tick beyond the
    // horizon of 2 it is retimed with); its class's window is made 40 cycles, more than the
    // trace, so that a cell waiting for a far next tick stays unknown instead of overflowing
    // it (rml-check has proved no horizon for these programs), while frames still leave as
    // soon as they are final.
    bool sampled_post = false;
    for (auto &st : c.p.plan.steps)
      sampled_post |= st.kind == stream::StepKind::Post && st.clock != c.p.plan.clock_slots.at(0);
    if (programs >= want && !sampled_post) continue;  // (past `want`, only the program looked for)
    sampled_programs += sampled_post;
    with_checks += checks > 0;
    const size_t first = cases.size();
    const int horizon = sampled_post ? 2 : std::max(1, rt->max_lag);
    codegen::EmitInfo info;
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "gen.rml", "p" + std::to_string(first), horizon, nullptr, &info);
    tagless_programs += info.tagless;
    if (!info.tagless) ++not_tagless[info.not_tagless.substr(0, info.not_tagless.find(" ("))];
    if (sampled_post) {
      static const std::regex window(R"(rml_runner_\(kNode, 2, \d+\))");
      size_t patched = 0;
      for (auto &f : c.files) {
        std::string t = std::regex_replace(f.text, window, "rml_runner_(kNode, 2, 40)");
        patched += t != f.text, f.text = std::move(t);
      }
      ASSERT_EQ(patched, 1u) << "the class's window was not found";
    }
    c.window = true;
    c.report_retimed = true;
    name_outputs(c);
    for (int kind = 0; kind < 3; ++kind) {
      Case t;
      if (kind == 0) {
        t = std::move(c);
      } else {
        t.text = cases[first].text, t.p = test::compile_stream(t.text, "main"), t.window = true, t.report_retimed = true;
        name_outputs(t);
        if (kind == 2) t.same_class_as = static_cast<int>(first);
        else t.files = codegen::emit_cpp(t.p.prog, t.p.clocks, t.p.plan, "gen.rml", "p" + std::to_string(cases.size()), 19);
      }
      t.in = kind == 1 ? admissible_trace(rng, 14) : admissible_trace(rng, 14, /*always=*/true);
      if (kind == 0 && sampled_post) t.in = trace_within_horizon(t, rng, 2);
      t.fast_throughout = kind == 1 ? 0 : kind == 0 && !sampled_post ? 1 : -1;
      // Tagless throughout where the class has the tagless sweep and every input is present
      // (a sampled post may still hand over); a cycle without input leaves it.
      t.tagless_throughout = kind == 1 ? 0 : kind == 0 && !sampled_post ? int(info.tagless) : -1;
      if (kind == 1) {  // a cycle where no input is present, the fast sweep's hand-over
        for (auto &[name, cells] : t.in.streams) cells[6] = Cell::absent();
      }
      if (kind == 2) {  // inputs off their clock: at some cycles some inputs absent, x or y present
        for (size_t n = 0; n < t.in.cycles; ++n) {
          if (rng() % 3 != 0) continue;
          std::string kept = rng() % 2 ? "x" : "y";
          for (auto &[name, cells] : t.in.streams)
            if (name != kept && rng() % 2) cells[n] = Cell::absent();
        }
      }
      cases.push_back(std::move(t));
    }
    ++programs;
  }
  ASSERT_GE(programs, want) << "too few retimed programs in " << tried << " tries (" << with_post << " with post)";
  const fs::path dir = fs::temp_directory_path() / ("rml_compile_retimed_" + std::to_string(::getpid()));
  std::string out = build_and_run(cases, dir);
  std::map<std::string, size_t> kinds;
  size_t equal = count_equal(cases, out, &kinds);
  // The fast sweep ran throughout on every trace with every input present, and handed over
  // on the others where they had a cycle without input.
  size_t fast_throughout = 0, handed_over = 0, sampled_throughout = 0, tagless_throughout = 0;
  {
    std::istringstream lines(out);
    std::string line;
    while (std::getline(lines, line)) {
      std::istringstream w(line);
      size_t k;
      std::string what;
      int flag, tagless;
      if (!(w >> k >> what) || what != "retimed" || !(w >> flag >> tagless)) continue;
      if (cases[k].fast_throughout >= 0) {
        EXPECT_EQ(flag, cases[k].fast_throughout) << k << ":\n" << cases[k].text;
      }
      if (cases[k].tagless_throughout >= 0) {
        EXPECT_EQ(tagless, cases[k].tagless_throughout) << k << ":\n" << cases[k].text;
      }
      EXPECT_TRUE(flag || !tagless) << k;  // (tagless is a way of the fast sweep)
      tagless_throughout += tagless;
      (flag ? fast_throughout : handed_over) += 1;
      if (k >= kPinned && k % 3 == 0 && flag && cases[k].fast_throughout < 0) ++sampled_throughout;
    }
  }
  EXPECT_GT(recurrences, 0u);
  EXPECT_EQ(recurrences_refused, recurrences);
  std::printf("%zu of %zu traces equal the oracle (%zu programs retimed, %zu of them with checks, %zu with a post on a "
              "sampled clock; %zu programs with post not retimed of %zu tried, %zu of them backward recurrences of backfill_gen, "
              "every one refused:",
              equal, cases.size(), programs, with_checks, sampled_programs, not_retimed, tried, recurrences);
  for (auto &[why, n] : refused) std::printf(" %zu %s;", n, why.c_str());
  std::printf(") the fast sweep throughout on %zu (%zu of them a program's with a post on a sampled clock, every input "
              "present), handed over on %zu; output cells: %zu absent, %zu unknown, %zu errors, %zu values\n",
              fast_throughout, sampled_throughout, handed_over, kinds["A"], kinds["?"], kinds["E"], kinds["R"] + kinds["I"]);
  std::printf("tagless: %zu of the %zu retimed programs' classes, not the others for", tagless_programs, programs);
  for (auto &[why, n] : not_tagless) std::printf(" %zu %s;", n, why.c_str());
  std::printf(" tagless throughout on %zu traces\n", tagless_throughout);
  EXPECT_GE(tagless_programs, programs / 4);  // the tagless sweep met, with its hand-overs
  EXPECT_GT(tagless_throughout, 2u);
  EXPECT_GT(sampled_throughout, 0u);  // the sweep's sampled posts met, not only their hand-over
  EXPECT_EQ(fast_throughout + handed_over, cases.size());
  EXPECT_GT(kinds["E"], 0u);  // clock errors reached the outputs
  EXPECT_GT(kinds["?"], 0u);  // the ends of the traces
  // The same law for the tables' sweep (Runner::push_fast's loop over run_fast, what the
  // generated sweep writes out): the generated one equals it because both equal the oracle.
  // (Without the tagless sweep, which would run most of these traces instead.)
  std::string tables = build_and_run(cases, dir, " -DRML_WINDOW_TABLE_SWEEP -DRML_NO_TAGLESS");
  EXPECT_EQ(count_equal(cases, tables), cases.size()) << "the tables' sweep";

  // Negative control: without the checks (every reader computed before what it checks is
  // left as computed: the tables' checks and the generated sweep's inline ones removed), on
  // the pinned programs and the first random ones (a build of every class again would double
  // the test's time for a count that is only printed).
  cases.erase(cases.begin() + static_cast<long>(std::min(cases.size(), kPinned + 3 * 8)), cases.end());
  for (auto &c : cases)
    for (auto &f : c.files) {
      size_t at = f.text.find("const int kCheckBegin[] = {");
      if (at == std::string::npos) continue;
      size_t end = f.text.find("};", at);
      std::string zeros;
      for (size_t q = 0, commas = static_cast<size_t>(std::count(f.text.begin() + static_cast<long>(at), f.text.begin() + static_cast<long>(end), ','));
           q <= commas; ++q)
        zeros += q ? ", 0" : "0";
      f.text.replace(at, end - at, "const int kCheckBegin[] = {" + zeros);
      for (size_t r = f.text.find("R.sweep_recheck("); r != std::string::npos; r = f.text.find("R.sweep_recheck(", r))
        f.text.replace(r, 16, "(void)(");  // and the generated sweep's own
    }
  // And the sampled posts' pinned classes with each post reading the next cycle, not its
  // clock's next tick (the step's clock and ticks made the base clock's, slot 0): the
  // retimed sweep's generic rule and the worklist then read the wrong cycle.
  for (size_t k = kPinnedChecks; k < kPinned; ++k)
    for (auto &f : cases[k].files) {
      static const std::regex post(R"(\{K::Post, (\d+), \{(\d+), -1, -1\}, 1, \d+, true, \d+,)");
      std::string mutated = std::regex_replace(f.text, post, "{K::Post, $1, {$2, -1, -1}, 1, 0, true, 0,");
      if (f.path.size() > 4 && f.path.substr(f.path.size() - 4) == ".cpp" && f.text.find("K::Post") != std::string::npos) {
        EXPECT_NE(mutated, f.text) << "no post step found to mutate in " << f.path;
      }
      f.text = mutated;
    }
  std::string bad = build_and_run(cases, dir);
  size_t caught_off_clock = 0, caught_other = 0, caught_pinned = 0, caught_sampled = 0;
  for (size_t k = 0; k < cases.size(); ++k)
    if (!compare(cases[k], k, bad).empty()) {
      (k < kPinnedChecks ? caught_pinned : k < kPinned ? caught_sampled : k % 3 == 2 ? caught_off_clock : caught_other) += 1;
    }
  std::printf("without the checks: the %zu pinned programs of %zu differ from the oracle; of the first %zu random programs' "
              "traces, %zu with inputs off their clocks, %zu others (programs rml-check does not accept have clock errors of "
              "their own); posts reading the next cycle, not the next tick: %zu of %zu pinned traces differ\n",
              caught_pinned, kPinnedChecks, cases.size() - kPinned, caught_off_clock, caught_other, caught_sampled, kPinned - kPinnedChecks);
  EXPECT_EQ(caught_pinned, kPinnedChecks);
  EXPECT_EQ(caught_sampled, kPinned - kPinnedChecks);
}

// Replaces every `was` in `text` from `from` on by `now` (a mutation of generated code);
// returns how many.
size_t replace_each(std::string &text, const std::string &was, const std::string &now, size_t from = 0) {
  size_t hits = 0;
  for (size_t at = text.find(was, from); at != std::string::npos; at = text.find(was, at + now.size())) text.replace(at, was.size(), now), ++hits;
  return hits;
}

// Pinned, the tagless sweep (src/codegen/emit_tagless.hpp) on the shapes the random
// programs reach seldom: a fby and a -> on a sampled clock whose last tick left the window
// long ago (the register and the memory), a fby on the base clock at a hand-over (what it
// remembers is in the frame that left last), a pre's nil reaching an output, an output on a
// sampled clock (presence from its clock's word), a post on the base clock. Three traces:
// every input present (tagless throughout), a cycle without input (the tags written, the
// worklist after), and c absent where x is present (the tags written, clock errors). Equal
// to the oracle. Negative control, each mutation of the tagless code on its own class:
// presence ignored, nil ignored, the registers one cycle behind, the memory read wrong, the base
// clock's memory taken from the wrong frame, the cells
// not stored not computed again when the tags are written, a cell taken for known one
// cycle early there (these two show as Status::Inexact at the hand-over or finish(), an
// error value reaching a frame given out), a frame out before its largest
// lag has passed: each differs from the oracle on some trace. (A frame out kHorizon cycles
// early would still be right: no error value travels back through a post without tags; it
// leaves when the tagged class's frames do, so that the two ways give outputs at the same
// pushes.)
TEST(CompileEqualsOracle, TaglessSweepOnPinnedTraces) {
  const char *text =
      "node main(x: real, c: bool) -> (o: real, q: real, r: real, w: real when c, z: real)\n"
      "  xs = x when c;\n  s = 0.0 fby (xs + s);\n  p = pre xs;\n  a = 1.0 -> p;\n"
      "  o = merge c (s + a) (0.0 when not c);\n  q = post x;\n  r = merge c p (x when not c);\n  w = s * 2.0;\n"
      "  z = 0.5 fby (z * 0.5 + x);\n";
  const char *traces[] = {
      "x,c\n1.0,T\n2.0,T\n3.0,F\n4.0,F\n5.0,F\n6.0,F\n7.0,F\n8.0,F\n9.0,F\n10.0,T\n11.0,F\n12.0,T\n13.0,T\n",
      "x,c\n1.0,T\n2.0,F\n3.0,T\n4.0,T\n_,_\n6.0,T\n7.0,F\n8.0,T\n",
      "x,c\n1.0,F\n2.0,T\n3.0,_\n4.0,T\n5.0,F\n6.0,T\n"};
  // (mutations: what is replaced in the tagless code, and by what)
  const std::vector<std::pair<std::string, std::string>> mutations = {
      {" : Abs)", " : Val)"}, {" ? Nil : Val", " ? Val : Val"}, {" + 1;\n    }", ";\n    }"},
      {"std::bit_cast<double>(rml_tl_.mem[", "0.5 + std::bit_cast<double>(rml_tl_.mem["}, {"    {\n      double v", "    if (false) {\n      double v"}, {"sweep_reals(R.front() - 1)", "sweep_reals(R.front())"}, {"after >= 1 ?", "after >= 0 ?"}, {"kMaxLag + kHorizon + 1)) return false", "kHorizon)) return false"}};
  auto make = [&](int variant, size_t first) {  // variant -1: as generated; else the mutation's index; `first`: its case's index
    std::vector<Case> cases;
    for (size_t j = 0; j < 3; ++j) {
      Case c;
      c.text = text;
      c.p = test::compile_stream(c.text, "main");
      if (j == 0) {
        codegen::EmitInfo info;
        c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "tagless.rml", "p" + std::to_string(first), 1, nullptr, &info);
        EXPECT_TRUE(info.tagless) << info.not_tagless;
        if (variant >= 0) {
          size_t hits = 0;
          for (auto &f : c.files) {
            // (the tagless push and pop, inline in the header; the tags written again, in the source)
            size_t from = f.text.find("::rml_tagless_push(");
            if (from == std::string::npos) from = f.text.find("::rml_to_tags()");
            if (from == std::string::npos) continue;
            auto &[was, now] = mutations[static_cast<size_t>(variant)];
            hits += replace_each(f.text, was, now, from);
          }
          EXPECT_GT(hits, 0u) << "mutation " << variant << " found nothing to replace";
        }
      } else {
        c.same_class_as = 0;
      }
      c.window = true, c.report_retimed = true;
      c.fast_throughout = j != 1, c.tagless_throughout = j == 0;
      name_outputs(c);
      c.in = oracle::read_trace("tagless.csv", traces[j], c.p.prog, 0);
      cases.push_back(std::move(c));
    }
    return cases;
  };
  std::vector<Case> cases = make(-1, 0);
  const fs::path dir = fs::temp_directory_path() / ("rml_compile_tagless_" + std::to_string(::getpid()));
  std::string out = build_and_run(cases, dir);
  std::map<std::string, size_t> kinds;
  EXPECT_EQ(count_equal(cases, out, &kinds), cases.size()) << out;
  for (size_t k = 0; k < cases.size(); ++k)
    EXPECT_NE(out.find(std::to_string(k) + " retimed " + std::to_string(cases[k].fast_throughout) + " " + std::to_string(cases[k].tagless_throughout)),
              std::string::npos)
        << k << "\n"
        << out;
  EXPECT_GT(kinds["N"], 0u);  // the pre's nil reached an output
  EXPECT_GT(kinds["A"], 0u);  // and absent cells (w off its clock)
  EXPECT_GT(kinds["E"], 0u);  // the third trace's clock errors
  // Negative control: every mutation's class in one build (cases with their own namespaces).
  std::vector<Case> bad;
  for (int m = 0; m + 1 < static_cast<int>(mutations.size()); ++m) {
    std::vector<Case> v = make(m, bad.size());
    for (auto &c : v) {
      if (c.same_class_as >= 0) c.same_class_as = 3 * m;  // (the mutated class's first trace)
      bad.push_back(std::move(c));
    }
  }
  // (The last mutation's frames leave before the tagged sweep's own lag is held: its class
  // may crash, so it is built and run on its own.)
  std::vector<Case> early = make(static_cast<int>(mutations.size()) - 1, 0);
  std::string bad_out = build_and_run(bad, dir);
  for (size_t m = 0; m + 1 < mutations.size(); ++m) {
    size_t differ = 0;
    for (size_t j = 0; j < 3; ++j) differ += !compare(bad[3 * m + j], 3 * m + j, bad_out).empty();
    EXPECT_GT(differ, 0u) << "mutation '" << mutations[m].first << "' -> '" << mutations[m].second << "' is not caught";
  }
  bool caught = false;
  try {
    std::string early_out = build_and_run(early, dir);
    for (size_t j = 0; j < 3; ++j) caught = caught || !compare(early[j], j, early_out).empty();
  } catch (std::exception &) {
    caught = true;  // (the driver failed)
  }
  EXPECT_TRUE(caught) << "frames out before their largest lag are not caught";
}

// Pinned, the tagless sweep's ways out on one class, and a ring grown while it runs: a
// merge on the uninitialised first value of a `pre` on a sampled clock (g at k's first
// tick: the sweep leaves for good at that cycle, u is an error value there); a `pre` on a
// sampled clock of a `pre` (p2: its memory is nil after c's first tick, kept in the class
// once that frame is out, and handed to the runtime as nil at a cycle without input: r2 is
// nil at c's next tick); a chain of posts (horizon 4) with frames popped only after every
// tenth push, so that the ring grows while the sweep runs without tags with frames already
// out (front 2, cycle 17); a fby on the base clock. Traces: every input present until k
// first ticks; a cycle without input between c's first and second ticks; each also popped
// after every push. Equal to the oracle. Negative control, one class per mutation: the nil
// condition taken for a value, the nil memory handed over as a value, the ring grown
// without its newest frame — each differs from the oracle on some trace.
TEST(CompileEqualsOracle, TaglessSweepLeavesOnANilConditionOrAMissingInput) {
  const char *text =
      "node main(x: real, c: bool, k: bool) -> (r2: real, u: real when k, h: real, z: real)\n"
      "  xs = x when c;\n  p = pre xs;\n  p2 = pre p;\n  r2 = merge c p2 (x when not c);\n"
      "  ck = c when k;\n  g = pre ck;\n  xk = x when k;\n  u = merge g (xk when g) (0.0 when not g);\n"
      "  h1 = post x;\n  h2 = post h1;\n  h3 = post h2;\n  h = post h3;\n  z = 0.5 fby (z * 0.5 + x);\n";
  auto trace = [](const std::string &c, const std::string &k) {  // x = 1, 2, ...; '_': no input at that cycle
    std::string t = "x,c,k\n";
    for (size_t n = 0; n < c.size(); ++n)
      t += c[n] == '_' ? std::string("_,_,_\n") : std::to_string(n + 1) + ".0," + c[n] + "," + k[n] + "\n";
    return t;
  };
  const std::string traces[] = {trace("FFTFTTFTFFTTFTFTTFTFTTFTTFTFFTTFTT", "FFFFFFFFFFFFFFFFFFTTFTTFTTFTFTTFTT"),
                                trace("FTFFFFFFFFF_TTFT", "FFFFFFFFFFF_FFTT")};
  // (mutations: the file, what is replaced in it, and by what)
  struct Mutation {
    std::string file, was, now;
  };
  const std::vector<Mutation> mutations = {
      {"main_.hpp", ") goto rml_handover;", ") {}"},
      {"main_.cpp", "], rml_tl_.mem_nil[", "], false && rml_tl_.mem_nil["},
      {"runtime/rml_window.hpp", "n < back_; ++n) {  // (and the frame that left last", "n + 1 < back_; ++n) {  // (and the frame that left last"}};
  auto make = [&](int variant, size_t first) {  // variant -1: as generated; `first`: its case's index
    std::vector<Case> cases;
    for (size_t j = 0; j < 4; ++j) {
      Case c;
      c.text = text;
      c.p = test::compile_stream(c.text, "main");
      if (j == 0) {
        codegen::EmitInfo info;
        c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "leaves.rml", "p" + std::to_string(first), 1, nullptr, &info);
        EXPECT_TRUE(info.tagless) << info.not_tagless;
        if (variant >= 0) {
          const Mutation &m = mutations[static_cast<size_t>(variant)];
          size_t hits = 0;
          for (auto &f : c.files) {
            if (f.path == m.file) hits += replace_each(f.text, m.was, m.now);
          }
          EXPECT_GT(hits, 0u) << "mutation " << variant << " found nothing to replace";
        }
      } else {
        c.same_class_as = 0;
      }
      c.window = true, c.report_retimed = true;
      c.pop_every = j < 2 ? 10 : 1;
      c.fast_throughout = j % 2 == 0, c.tagless_throughout = 0;
      name_outputs(c);
      c.in = oracle::read_trace("leaves.csv", traces[j % 2], c.p.prog, 0);
      cases.push_back(std::move(c));
    }
    return cases;
  };
  std::vector<Case> cases = make(-1, 0);
  const fs::path dir = fs::temp_directory_path() / ("rml_compile_leaves_" + std::to_string(::getpid()));
  std::map<std::string, size_t> kinds;
  std::string out = build_and_run(cases, dir);
  EXPECT_EQ(count_equal(cases, out, &kinds), cases.size()) << out;
  EXPECT_GT(kinds["N"], 0u);  // r2's nil
  EXPECT_GT(kinds["E"], 0u);  // u at k's first tick
  // The class mutations in one build; the runtime's alone (every class includes gen0's).
  std::vector<Case> bad;
  for (int m = 0; m + 1 < static_cast<int>(mutations.size()); ++m) {
    std::vector<Case> v = make(m, bad.size());
    for (auto &c : v) {
      if (c.same_class_as >= 0) c.same_class_as = 4 * m;
      bad.push_back(std::move(c));
    }
  }
  std::string bad_out = build_and_run(bad, dir);
  std::vector<Case> grown = make(static_cast<int>(mutations.size()) - 1, 0);
  std::string grown_out = build_and_run(grown, dir);
  for (size_t m = 0; m < mutations.size(); ++m) {
    const bool alone = m + 1 == mutations.size();
    size_t differ = 0;
    for (size_t j = 0; j < 4; ++j)
      differ += alone ? !compare(grown[j], j, grown_out).empty() : !compare(bad[4 * m + j], 4 * m + j, bad_out).empty();
    EXPECT_GT(differ, 0u) << "mutation '" << mutations[m].was << "' -> '" << mutations[m].now << "' is not caught";
    std::printf("mutation %zu: %zu of 4 traces differ\n", m, differ);
  }
}

// Pinned (the window runtime's `x + zeros` shortcut, Step::add): an elementwise addition
// whose other operand is a block of +0.0 gives x's own block only where that is what the
// addition computes — not where x holds -0.0 (x + 0.0 is +0.0) or NaN. x with 0.0, -0.0
// and ordinary values; m = x * -1.0 makes -0.0 of every +0.0, n = x / x NaN of every zero.
// Equal to the oracle bit for bit. Negative control: a runtime that takes every block for
// clean (no -0.0, no NaN) is caught (q keeps -0.0 where the oracle has +0.0).
TEST(CompileEqualsOracle, AnAdditionOfZerosSharesOnlyWhatItWouldCompute) {
  Case c;
  c.text = "node main(x: real[4], y: real) -> (o: real[4], q: real[4], r: real[4], n: real[4], m: real[4], z: real[4], p: real)\n"
           "  z = zeros([4]);\n  n = x / x;\n  m = x * -1.0;\n  o = n + z;\n  q = m + z;\n  r = x + z;\n  p = post y;\n";
  c.p = test::compile_stream(c.text, "main");
  c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "zeros.rml", "p0", 1, &c.p.fe->checked);
  size_t adds = 0;
  for (auto &f : c.files) {
    if (f.path != "main_.cpp") continue;
    // (a step's fargs, then add, then its in-place operands if any)
    static const std::regex add_step(R"(kArgs[0-9]+, true[,}])");
    adds += static_cast<size_t>(std::distance(std::sregex_iterator(f.text.begin(), f.text.end(), add_step), std::sregex_iterator()));
  }
  ASSERT_EQ(adds, 3u) << "o, q and r are additions of zeros (Step::add)";
  c.window = true;
  name_outputs(c);
  c.in = oracle::read_trace("zeros.csv",
                            "x,y\n\"[1.0, -0.0, 0.0, -2.5]\",1.0\n\"[0.0, 0.0, 3.0, 4.0]\",2.0\n\"[-0.0, 1.0, -0.0, 0.0]\",3.0\n"
                            "\"[1.0, 2.0, 3.0, 4.0]\",4.0\n\"[-1.0, -0.0, 5.0, 0.0]\",5.0\n",
                            c.p.prog, 0);
  std::vector<Case> cases;
  cases.push_back(std::move(c));
  const fs::path dir = fs::temp_directory_path() / ("rml_compile_zeros_" + std::to_string(::getpid()));
  EXPECT_EQ(count_equal(cases, build_and_run(cases, dir)), 1u);
  for (auto &f : cases[0].files)
    if (f.path == "runtime/rml_window.hpp") {
      size_t at = f.text.find("b.clean = bad ? 0 : 1;");
      ASSERT_NE(at, std::string::npos);
      f.text.replace(at, 22, "b.clean = 1;");
    }
  EXPECT_NE(compare(cases[0], 0, build_and_run(cases, dir)), "") << "every block taken for clean is not caught";
}

// Pinned (in place: rml_window.hpp's Runner::reusable and the functions' in-place variants,
// emit_term.hpp): a window class that runs the worklist (its post on a sampled clock looks
// one cycle ahead, and e's next tick is two on at every third cycle: the retimed sweep
// hands over, and reuses nothing before) writes a result over an operand's block where no
// cell reads it again: `b` over `a` (read by b
// alone, though also by a fby: kept), `q` over the block `acc` shares with `g` and `h` of
// the next tick of e (Figure 20's accumulation); `s` is an output and `k` has two readers.
// Equal to the oracle. Negative control: the in-place variants computing a subtraction are
// caught (so the class does call them).
TEST(CompileEqualsOracle, ResultsWrittenOverDeadBlocksEqualTheOracle) {
  Case c;
  c.text = "node main(x: real[3], y: real[3], e: bool) -> (o: real[3], s: real[3], r: real[3], q: real[3] when e)\n"
           "  a = x + y;\n  m = [0.0, 0.0, 0.0] fby a;\n  b = a * 2.0;\n  o = b + m;\n  s = x - y;\n  t = s * x;\n"
           "  k = x * y;\n  u = k + x;\n  v = k - y;\n  r = u * v + t;\n"
           "  h = x * 3.0;\n  g = h when e;\n  acc = post g;\n  q = acc + (y when e);\n";
  c.p = test::compile_stream(c.text, "main");
  c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "inplace.rml", "p0", 1, &c.p.fe->checked);
  c.report_retimed = true;
  size_t variants = 0;
  for (auto &f : c.files)
    if (f.path == "main_.cpp")
      for (size_t at = f.text.find("// in place: in"); at != std::string::npos; at = f.text.find("// in place: in", at + 1)) ++variants;
  EXPECT_GE(variants, 4u);
  c.window = true;
  name_outputs(c);
  std::mt19937_64 rng(41);
  std::uniform_real_distribution<double> uni(-2, 2);
  std::string csv = "x,y,e\n";
  for (size_t n = 0; n < 20; ++n) {
    auto vec = [&] { return "\"[" + std::to_string(uni(rng)) + ", " + std::to_string(uni(rng)) + ", " + std::to_string(uni(rng)) + "]\""; };
    csv += vec() + "," + vec() + "," + (n % 3 ? "true" : "false") + "\n";
  }
  c.in = oracle::read_trace("inplace.csv", csv, c.p.prog, 0);
  std::vector<Case> cases;
  cases.push_back(std::move(c));
  const fs::path dir = fs::temp_directory_path() / ("rml_compile_inplace_" + std::to_string(::getpid()));
  const std::string out = build_and_run(cases, dir);
  EXPECT_EQ(count_equal(cases, out), 1u);
  EXPECT_NE(out.find("0 retimed 0 0"), std::string::npos) << out;  // (the worklist ran)
  size_t mutated = 0;
  for (auto &f : cases[0].files)
    for (size_t at = f.text.find("// in place: in"); at != std::string::npos; at = f.text.find("// in place: in", at + 1)) {
      const size_t end = f.text.find("\n}\n", at);
      for (size_t op = f.text.find("BinOp::Add", at); op != std::string::npos && op < end; op = f.text.find("BinOp::Add", op + 1))
        f.text.replace(op, 10, "BinOp::Sub"), ++mutated;
    }
  ASSERT_GT(mutated, 0u);
  EXPECT_NE(compare(cases[0], 0, build_and_run(cases, dir)), "") << "in-place variants that subtract are not caught";
}

// Pinned (emit_term.hpp's in-place variants): a function gets a variant writing its result
// over operand J only where its generated loop reads that operand at the element it writes
// and nowhere else. `acc + outer(a, b)`: over acc (in0), not a or b (other shapes);
// `x + y`: over either; `matvec(k, x)`: over neither (x is read at every element of the
// result, in the reduction); `matvec(k, x) + x`: over the x of the addition (in2), not the
// x of the reduction (in1; the runtime never reuses a block two operands share, so the
// variant is not called with x there); `outer(a, b)`: none.
TEST(CompileInPlace, VariantsOnlyWhereTheLoopReadsTheOperandAtTheElementItWrites) {
  const std::string text =
      "node main(acc: real[2, 3], a: real[2], b: real[3], k: real[3, 3], x: real[3], y: real[3])\n"
      "  -> (o: real[2, 3], v: real[3], w: real[3], e: real[3], f: real[2, 3], p: real[3])\n"
      "  o = acc + outer(a, b);\n  v = matvec(k, x);\n  w = matvec(k, x) + x;\n  e = x + y;\n  f = outer(a, b);\n  p = post x;\n";
  auto p = test::compile_stream(text, "main");
  auto files = codegen::emit_cpp(p.prog, p.clocks, p.plan, "io.rml", "p0", 1, &p.fe->checked);
  std::set<std::string> variants, functions;
  for (auto &f : files) {
    if (f.path != "main_.cpp") continue;
    static const std::regex def(R"(void rml_fn\d+_(\w+?)_io(\d+)\()"), entry(R"(void rml_fn\d+_(\w+)_entry\()");
    for (auto it = std::sregex_iterator(f.text.begin(), f.text.end(), def); it != std::sregex_iterator(); ++it)
      variants.insert((*it)[1].str() + ":" + (*it)[2].str());
    for (auto it = std::sregex_iterator(f.text.begin(), f.text.end(), entry); it != std::sregex_iterator(); ++it)
      functions.insert((*it)[1].str());
  }
  EXPECT_EQ(functions, (std::set<std::string>{"Add_outer", "matvec", "Add_matvec", "Add", "outer"}));
  EXPECT_EQ(variants, (std::set<std::string>{"Add_outer:0", "Add_matvec:2", "Add:0", "Add:1"}));
}

// Names of the program that C++ spells otherwise build and run: standard and platform
// macros (NULL, EOF, errno, INFINITY, NAN, INT64_MAX, assert, linux, stdin), a leading '_',
// nodes named like the namespaces and types the generated code uses (std, rml, Tensors),
// window classes named like the runtime's types (Step, Node) and variables named like the
// class's members (push, kHorizon). Each class is built with the compiler and its cells
// equal the oracle's; the generated names are the program's with a trailing '_'.
TEST(CompiledClasses, NamesThatMeetCppNamesBuildAndRun) {
  const std::vector<std::pair<std::string, std::string>> programs = {
      {"std",
       "node std(NULL: real, EOF: int) -> (errno: real, INFINITY: int)\n  NAN = NULL * 2.0;\n  INT64_MAX = EOF + 1;\n"
       "  linux = NAN + 1.0;\n  stdin = INT64_MAX * 2;\n  assert = linux - 1.0;\n  _X = assert;\n  errno = _X;\n  INFINITY = stdin;\n"},
      {"rml", "node rml(Tensors: real, EOF: int) -> (Cell: real, main: int)\n  Cell = Tensors + 1.0;\n  main = 0 fby EOF;\n"},
      {"Tensors", "node Tensors(std: real, size_t: int) -> (uint64_t: real, Status: int)\n  uint64_t = std;\n  Status = size_t;\n"},
      {"Step",
       "node Step(Node: real, rml: real) -> (Tensors: real, kHorizon: real)\n  push = post Node;\n  Tensors = push + rml;\n"
       "  kHorizon = post rml;\n"},
      {"Node", "node Node(Step: real, NULL: real) -> (pop: real, EOF: real)\n  pop = post Step;\n  EOF = NULL;\n"},
  };
  std::vector<Case> cases;
  for (auto &[main, text] : programs) {
    Case c;
    c.text = text;
    c.p = test::compile_stream(c.text, main);
    c.cls = codegen::class_name(main);
    EXPECT_EQ(c.cls, main + "_");
    c.window = c.p.plan.has_post;
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "names.rml", "p" + std::to_string(cases.size()), 1, &c.p.fe->checked);
    name_outputs(c);
    for (auto &[var, cpp] : c.names) EXPECT_EQ(cpp, var + "_") << main;
    oracle::Inputs in;
    in.cycles = 4;
    for (auto &v : c.p.prog.inputs)
      for (size_t n = 0; n < in.cycles; ++n)
        in.streams[v.name].push_back(v.type.elem == Scalar::Real ? Cell::of(array::Tensor::real(1.5 * double(n) - 1.0))
                                                                 : Cell::of(array::Tensor::integer(int64_t(n) * 3 - 2)));
    c.in = in;
    cases.push_back(std::move(c));
  }
  const fs::path dir = fs::temp_directory_path() / ("rml_compile_names_" + std::to_string(::getpid()));
  EXPECT_EQ(count_equal(cases, build_and_run(cases, dir)), cases.size());
}

// The macro list of codegen::ident (src/codegen/reserved_names.cpp) covers every macro the
// compiler's headers define, for the headers generated code and its users include, in
// gnu++20 mode (which adds `linux` and `unix`): a name the list lacks is printed, to add.
// Negative control: `EOF` is in it, a name of the program such as `loss` is not.
TEST(CompiledClasses, ReservedNamesCoverTheCompilersMacros) {
  EXPECT_TRUE(codegen::is_predefined_macro("EOF"));
  EXPECT_FALSE(codegen::is_predefined_macro("loss"));
  const fs::path dir = fs::temp_directory_path() / ("rml_macros_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "h.cpp") << "#include <algorithm>\n#include <array>\n#include <cassert>\n#include <cerrno>\n#include <cfloat>\n"
                                  "#include <charconv>\n#include <climits>\n#include <cmath>\n#include <cstddef>\n#include <cstdint>\n"
                                  "#include <cstdio>\n#include <cstdlib>\n#include <cstring>\n#include <fstream>\n#include <iostream>\n"
                                  "#include <limits>\n#include <memory>\n#include <sstream>\n#include <string>\n#include <vector>\n";
  std::string cmd = std::string(RML_CXX) + " -std=gnu++20 -dM -E " + (dir / "h.cpp").string() + " > " + (dir / "m.txt").string();
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(dir / "m.txt");
  std::string line, missing;
  size_t seen = 0;
  while (std::getline(in, line)) {  // "#define NAME[(args)] body"
    std::istringstream w(line);
    std::string def, name;
    w >> def >> name;
    name = name.substr(0, name.find('('));
    if (name.empty() || name[0] == '_' || !std::all_of(name.begin(), name.end(), [](char ch) { return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_'; }))
      continue;
    ++seen;
    if (!codegen::is_predefined_macro(name)) missing += " " + name;
  }
  fs::remove_all(dir);
  EXPECT_GT(seen, 100u);
  EXPECT_EQ(missing, "") << "macros of " << RML_CXX << " missing from src/codegen/reserved_names.cpp";
}

// Law (buffers are reused across cycles; no heap allocation per cycle in steady
// state): once warm, a generated class allocates nothing in a cycle. Figure 3's `train`
// and Figure 16's backfill (window classes over scalars), a Figure 20 instance and the LSTM
// training of reference/training (window classes over tensor blocks), Figure 8's LSTM cell
// (a post-free class): the driver replaces operator new with a counter, runs each class on
// a trace repeated ten times and counts the allocations of the last five passes.
// Negative control: in the same driver, the worklist the window runtime had (a std::deque
// of steps pushed and popped as a cycle does) allocates in those passes; the counter sees it.
TEST(CompiledClasses, AllocateNothingPerCycleOnceWarm) {
  const std::string fig20 = test::read_text("reference/paper/fig20_diff_lstm_end.rml");
  struct Source {
    std::string text, main;
  };
  std::vector<Source> sources = {
      {test::read_text("reference/paper/fig03_gradient_descent.rml"), "train"},
      {test::read_text("reference/paper/fig16_backfill.rml") +
           "\nnode backfill_every3(i: int, bp: bool) -> (o: int)\nlet\n  assume always eventually bp within 2;\n  o = backfill(i, bp);\ntel\n",
       "backfill_every3"},
      {fig20 + "\nnode lstm_small(x: real[3], end: bool, bp: bool, dh_next: real[2] when bp)\n  -> (h_next: real[2], dx: real[3] when bp)\n"
               "let\n  assume always eventually (end and bp) within 4;\n  assume always (bp or not end);\n"
               "  h_next, dx = diff_lstm_end(2, 3, x, end, bp, dh_next);\ntel\n",
       "lstm_small"},
      {test::read_text("reference/training/lstm_sine.rml"), "lstm_sine"},
      {test::read_text("reference/paper/fig08_lstm.rml"), ""},
  };
  std::vector<Case> cases;
  const size_t L = 10;  // the trace's cycles: `end` at 4 and 9, `bp` but at multiples of 3
  for (auto &s : sources) {
    Case c;
    c.p.fe = run_frontend("alloc.rml", s.text);
    ASSERT_FALSE(c.p.fe->diags.has_errors()) << render_all(c.p.fe->diags);
    std::string main = s.main;
    for (auto &d : c.p.fe->user.decls)  // Figure 8: its one node that can be main
      if (auto *node = std::get_if<NodeDecl>(&d); main.empty() && node && core::can_be_main(c.p.fe->checked, node->name)) main = node->name;
    c.p.prog = core::elaborate(c.p.fe->checked, main);
    c.p.clocks = core::infer_clocks(c.p.prog);
    c.p.plan = stream::build_plan(c.p.prog, c.p.clocks);
    check::Options o;
    o.rlimit = 30'000'000;
    std::optional<int64_t> H = accepted(c.p.fe->checked, c.p, o);
    ASSERT_TRUE(H) << main << ": not accepted by rml-check";
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "alloc.rml", "p" + std::to_string(cases.size()), *H, &c.p.fe->checked);
    c.window = c.p.plan.has_post;
    c.cls = codegen::class_name(c.p.prog.main);
    name_outputs(c);
    c.text = main;
    c.in.cycles = L;
    for (auto &v : c.p.prog.inputs)
      for (size_t n = 0; n < L; ++n) {
        array::Tensor t = array::Tensor::zeros(v.type.elem, array::concrete_shape(v.type.shape));
        for (size_t q = 0; q < t.numel(); ++q) {
          if (v.type.elem == Scalar::Real) t.r[q] = static_cast<double>(static_cast<int>((n * 7 + q * 3) % 11) - 5) / 4.0;
          else if (v.type.elem == Scalar::Int) t.i[q] = static_cast<int64_t>((n * 5 + q) % 7) - 3;
          else t.i[q] = v.name == "end" ? n % 5 == 4 : v.name == "bp" ? n % 3 != 0 || n % 5 == 4 : (n + q) % 2;
        }
        c.in.streams[v.name].push_back(Cell::of(t));
      }
    cases.push_back(std::move(c));
  }
  const fs::path dir = fs::temp_directory_path() / ("rml_compile_alloc_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  std::ostringstream drv;
  drv << "#include <array>\n#include <cstdio>\n#include <cstdlib>\n#include <cstdint>\n#include <deque>\n#include <new>\n#include <utility>\n";
  for (size_t k = 0; k < cases.size(); ++k) drv << "#include \"gen" << k << "/" << cases[k].cls << ".hpp\"\n";
  drv << "static long g_news = 0;\n"
         "void *operator new(std::size_t n) { ++g_news; if (void *p = std::malloc(n ? n : 1)) return p; throw std::bad_alloc(); }\n"
         "void operator delete(void *p) noexcept { std::free(p); }\n"
         "void operator delete(void *p, std::size_t) noexcept { std::free(p); }\n"
         "int main() {\n"
         "  { std::deque<std::pair<int, std::size_t>> fifo; long before = 0;\n"  // the control
         "    for (int pass = 0; pass < 10; ++pass) { if (pass == 5) before = g_news;\n"
         "      for (std::size_t n = 0; n < "
      << L << "; ++n) { for (int k = 0; k < 40; ++k) fifo.emplace_back(k, n); while (!fifo.empty()) fifo.pop_front(); } }\n"
              "    std::printf(\"control %ld\\n\", g_news - before); }\n";
  write_generated(cases, dir);
  for (size_t k = 0; k < cases.size(); ++k) {
    const Case &c = cases[k];
    const std::string cls = "p" + std::to_string(k) + "::" + c.cls;
    drv << "  { static " << cls << "::Inputs trace[] = {\n";
    for (size_t n = 0; n < L; ++n) {
      drv << "      {";
      for (size_t j = 0; j < c.p.prog.inputs.size(); ++j)
        drv << (j ? ", " : "") << cpp_cell(c.in.streams.at(c.p.prog.inputs[j].name)[n], c.p.prog.inputs[j].type);
      drv << "},\n";
    }
    drv << "    };\n    auto m = new " << cls << "; auto o = new " << cls << "::Outputs; long before = 0, cycles = 0; int bad = 0;\n"
        << "    for (int pass = 0; pass < 10; ++pass) { if (pass == 5) before = g_news;\n"
        << "      for (auto &in : trace) { ++cycles;\n"
        << (c.window ? "        bad += m->push(in) != rml::Status::Ok; while (m->pop(*o)) {}\n" : "        bad += m->step(in, *o) != rml::Status::Ok;\n")
        << "      } }\n"
        << "    std::printf(\"" << k << " %ld %d\\n\", g_news - before, bad); delete o; delete m; }\n";
  }
  drv << "}\n";
  std::ofstream(dir / "driver.cpp") << drv.str();
  compile_driver(cases, dir, "");
  ASSERT_EQ(std::system(((dir / "driver").string() + " > " + (dir / "out.txt").string()).c_str()), 0);
  std::istringstream out(slurp(dir / "out.txt"));
  std::string word;
  long control = -1;
  out >> word >> control;
  ASSERT_EQ(word, "control");
  EXPECT_GT(control, 0) << "the counter does not see std::deque's chunks";
  for (size_t k = 0; k < cases.size(); ++k) {
    size_t idx = 99;
    long news = -1;
    int bad = -1;
    out >> idx >> news >> bad;
    ASSERT_EQ(idx, k);
    EXPECT_EQ(bad, 0) << cases[k].text << ": a push or step did not return Ok";
    EXPECT_EQ(news, 0) << cases[k].text << (cases[k].window ? " (window class)" : " (post-free class)") << ": allocations in "
                       << 5 * L << " warm cycles";
  }
  fs::remove_all(dir);
}

// Kind 2's machine integers (semantics/machine_ints.md) in a generated class: every
// operation with its wrap (the operator table's wrapu/wraps, land, lor, shl, ashr) on
// random values across the whole ranges, equal to the oracle cycle for cycle. The negative
// control turns the class's unsigned wraps into signed ones, which the comparison catches.
TEST(CompileEqualsOracle, MachineIntegers) {
  const std::string text =
      "node main(x, y: uint8; a, b: int8; n: uint8; w: uint<5>) returns (o1: uint8; o2: int8; o3: uint8; o4: int8; "
      "o5: int; o6: uint<5>; p: uint8);\n"
      "let\n"
      "  o1 = ((x * y + (uint8 7)) div (y - (uint8 3))) || (x && !y);\n"
      "  o2 = (a * b - (int8 100)) mod (b + (int8 2)) && (a lsh n) || (b rsh n);\n"
      "  o3 = (uint8 (int a)) + (x lsh (n rsh (uint8 1)));\n"
      "  o4 = -(a div b) + (int8 (int x * 3));\n"
      "  o5 = int ((uint16 x) * (uint16 y)) + int (w * w);\n"
      "  o6 = w - (uint@<5> 30) * w;\n"
      "  p = (uint8 0) fby (p + x);\n"
      "tel\n";
  std::mt19937_64 rng(20261202);
  std::vector<Case> cases;
  for (size_t k = 0; k < 2; ++k) {
    const bool control = k == 1;
    Case c;
    c.text = text;
    c.p = test::compile_stream(c.text, "main");
    check::Options co;
    co.rlimit = 10'000'000;
    std::optional<int64_t> H = accepted(c.p.fe->checked, c.p, co);
    ASSERT_TRUE(H) << c.text;
    c.files = codegen::emit_cpp(c.p.prog, c.p.clocks, c.p.plan, "machine.lus", "p" + std::to_string(k), *H, &c.p.fe->checked);
    name_outputs(c);
    c.in.cycles = 40;
    auto draw = [&](int64_t lo, int64_t hi) { return Cell::of(array::Tensor::integer(lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1)))); };
    for (size_t n = 0; n < c.in.cycles; ++n) {
      c.in.streams["x"].push_back(draw(0, 255));
      c.in.streams["y"].push_back(n % 7 == 3 ? Cell::of(array::Tensor::integer(3)) : draw(0, 255));  // y - 3 = 0: x div 0
      c.in.streams["a"].push_back(n % 9 == 4 ? Cell::of(array::Tensor::integer(-128)) : draw(-128, 127));
      c.in.streams["b"].push_back(n % 5 == 2 ? Cell::of(array::Tensor::integer(n % 2 ? -1 : 0)) : draw(-128, 127));
      c.in.streams["n"].push_back(draw(0, 12));
      c.in.streams["w"].push_back(draw(0, 31));
    }
    c.want = oracle::Oracle(c.p.fe->checked, c.p.prog, c.p.clocks).run(c.in);
    std::string *cpp = nullptr;
    for (auto &f : c.files)
      if (f.path == c.cls + ".cpp") cpp = &f.text;
    ASSERT_TRUE(cpp);
    if (control) {
      const std::string wrap = "BinOp::WrapUnsigned,", other = "BinOp::WrapSigned,";
      size_t at = 0, mutated = 0;
      while ((at = cpp->find(wrap, at)) != std::string::npos) cpp->replace(at, wrap.size(), other), ++mutated;
      ASSERT_GT(mutated, 0u) << *cpp;
    }
    cases.push_back(std::move(c));
  }
  std::string out = build_and_run(cases, fs::temp_directory_path() / ("rml_compile_machine_" + std::to_string(::getpid())));
  EXPECT_EQ(compare(cases[0], 0, out), "");
  EXPECT_NE(compare(cases[1], 1, out), "") << "the negative control was not caught";
}
