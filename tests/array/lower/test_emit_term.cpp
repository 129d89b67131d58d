// rml compile's functions (src/codegen/emit_term: a lowered fun as C++ loops, with
// elementwise chains fused into their consumers and matrices transposed by tiles) against
// the reference evaluator, for every fun of the prelude, of the reference corpus and of
// hand_funs.rml (gathers and scatters out of bounds, builds, indexing, sums along an axis,
// ints wrapping, the special reals of random_real: signed zeros, infinities, NaN).
//
// Law: for each fun and random arguments (lower_util's gen_fun_case), the generated
// function, compiled by the build's compiler with codegen::kExactFlags, writes the value
// array::Evaluator computes: ints exactly, reals bit for bit, any NaN equal to any NaN.
// All cases go into one C++ program, compiled once. Negative control: the same program
// with every fused sum of reals subtracting instead of adding differs.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <unistd.h>

#include "codegen/emit_cpp.hpp"
#include "codegen/emit_term.hpp"
#include "common/sanitized.hpp"
#include "lower_util.hpp"
#include "test_util.hpp"

using namespace rml;

namespace {

namespace fs = std::filesystem;

struct EmitCase {
  std::string label;  // file: fun (arguments)
  array::Tensor want;
  std::string code;  // the function and its call
};

std::string bits_literal(const array::Tensor &t) {
  std::string s;
  size_t n = t.numel();
  for (size_t k = 0; k < std::max<size_t>(1, n); ++k) {
    uint64_t b = 0;
    if (k < n && t.elem == Scalar::Real) std::memcpy(&b, &t.r[k], 8);
    else if (k < n) b = static_cast<uint64_t>(t.i[k]);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%s0x%llxULL", k ? ", " : "", static_cast<unsigned long long>(b));
    s += buf;
  }
  return s;
}

// The printed words of a value, as the driver prints them: hex per element, NaNs as "nan".
std::string words(const array::Tensor &t) {
  std::string s;
  for (size_t k = 0; k < t.numel(); ++k) {
    char buf[32];
    if (t.elem == Scalar::Real && std::isnan(t.r[k])) std::snprintf(buf, sizeof buf, " nan");
    else {
      uint64_t b = 0;
      if (t.elem == Scalar::Real) std::memcpy(&b, &t.r[k], 8);
      else b = static_cast<uint64_t>(t.i[k]);
      std::snprintf(buf, sizeof buf, " %llx", static_cast<unsigned long long>(b));
    }
    s += buf;
  }
  return s;
}

// Every fused sum of reals subtracts: `accN = accN + x` becomes `accN = accN - x`.
std::string sums_subtract(std::string text) {
  for (size_t at = text.find(" = acc"); at != std::string::npos; at = text.find(" = acc", at + 1)) {
    size_t end = text.find_first_of(" ;", at + 3);
    std::string acc = text.substr(at + 3, end - at - 3);
    if (text.compare(end, 3, " + ") == 0 && text.compare(at - acc.size(), acc.size(), acc) == 0) text.replace(end, 3, " - ");
  }
  return text;
}

// The cases as one program, built by the build's compiler with kExactFlags and `flags`, the
// text first changed by `mutate` (when given); its output.
std::string run_program(const std::vector<EmitCase> &cases, const fs::path &dir, const std::function<std::string(std::string)> &mutate,
                        const std::string &flags = "") {
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::ostringstream src;
  src << "#include <algorithm>\n#include <cmath>\n#include <cstdint>\n#include <cstdio>\n#include <cstring>\n#include <limits>\n"
      << "#include <vector>\n#include \"ops/scalar_ops.hpp\"\n#include \"ops/lanes.hpp\"\n"
      << "static void put(int k, const double *v, size_t n) { std::printf(\"%d\", k); for (size_t q = 0; q < n; ++q) {"
      << " if (std::isnan(v[q])) std::printf(\" nan\"); else { unsigned long long b; std::memcpy(&b, &v[q], 8); std::printf(\" %llx\", b); } }"
      << " std::printf(\"\\n\"); }\n"
      << "static void put(int k, const int64_t *v, size_t n) { std::printf(\"%d\", k); for (size_t q = 0; q < n; ++q)"
      << " std::printf(\" %llx\", static_cast<unsigned long long>(v[q])); std::printf(\"\\n\"); }\n";
  for (auto &c : cases) src << c.code << "\n";
  src << "int main() {\n";
  for (size_t k = 0; k < cases.size(); ++k) src << "  case_" << k << "();\n";
  src << "}\n";
  std::string text = src.str();
  if (mutate) text = mutate(text);
  std::ofstream(dir / "emit.cpp") << text;
  const std::string sanitize = test::kSanitized ? " -fsanitize=address,undefined -fno-sanitize-recover=all" : "";
  std::string cmd = std::string(RML_CXX) + " -std=c++20 -O1 -w " + codegen::kExactFlags + sanitize + " " + flags + " -I" + RML_SOURCE_DIR + "/src " +
                    (dir / "emit.cpp").string() + " " + RML_SOURCE_DIR + "/src/ops/special.cpp -o " + (dir / "emit").string() + " > " +
                    (dir / "log.txt").string() + " 2>&1";
  if (std::system(cmd.c_str()) != 0) {
    std::ifstream log(dir / "log.txt");
    std::stringstream ss;
    ss << log.rdbuf();
    throw std::runtime_error("the generated functions do not compile:\n" + ss.str().substr(0, 4000));
  }
  std::string out = (dir / "out.txt").string();
  if (std::system(((dir / "emit").string() + " > " + out).c_str()) != 0) throw std::runtime_error("the program failed");
  std::ifstream f(out);
  std::stringstream ss;
  ss << f.rdbuf();
  fs::remove_all(dir);
  return ss.str();
}

// Case k: the generated function of `l` and its call on c's arguments, printing the result.
EmitCase emit_case(size_t k, const std::string &label, const lower::Lowered &l, const test::FunCase &c, const array::Tensor &want) {
  EmitCase ec;
  ec.label = label;
  ec.want = want;
  std::ostringstream code;
  code << codegen::emit_term_function("f_" + std::to_string(k), l.inputs, l.body, ec.label);
  code << "void case_" << k << "() {\n";
  std::string call = "  f_" + std::to_string(k) + "(";
  for (size_t a = 0; a < c.args.size(); ++a) {
    const char *T = codegen::ir_elem_type(c.args[a].elem);
    size_t n = std::max<size_t>(1, c.args[a].numel());
    code << "  static const uint64_t b" << a << "[] = {" << bits_literal(c.args[a]) << "};\n";
    code << "  static " << T << " a" << a << "[" << n << "];\n  std::memcpy(a" << a << ", b" << a << ", sizeof a" << a << ");\n";
    call += "a" + std::to_string(a) + ", ";
  }
  size_t n = std::max<size_t>(1, want.numel());
  code << "  static " << codegen::ir_elem_type(want.elem) << " out[" << n << "];\n" << call << "out);\n";
  code << "  put(" << k << ", out, " << want.numel() << ");\n}\n";
  ec.code = code.str();
  return ec;
}

// How many cases print the evaluator's value (any NaN equal to any NaN); with `expect_equal`,
// each case that does not is a failure.
size_t equal_cases(const std::vector<EmitCase> &cases, const std::string &out, bool expect_equal) {
  std::map<size_t, std::string> got;
  std::istringstream lines(out);
  std::string line;
  while (std::getline(lines, line)) {
    size_t sp = line.find(' ');
    got[std::stoul(line.substr(0, sp))] = sp == std::string::npos ? "" : line.substr(sp);
  }
  size_t equal = 0;
  for (size_t k = 0; k < cases.size(); ++k) {
    bool same = got.count(k) && got[k] == words(cases[k].want);
    if (expect_equal) {
      EXPECT_TRUE(same) << cases[k].label << "\n  evaluator:" << words(cases[k].want) << "\n  generated:" << got[k];
    }
    equal += same;
  }
  return equal;
}

}  // namespace

TEST(EmitTerm, GeneratedFunctionsEqualTheReferenceEvaluator) {
  const int per_fun = test::kSanitized ? 1 : 3;
  std::vector<std::pair<std::string, std::string>> funs;  // (file relative to the source dir or "", fun)
  if (auto *r = test::checked("empty.rml", ""))
    for (auto &f : test::funs_of(r->checked, true)) funs.emplace_back("", f);
  std::vector<std::string> files = test::rml_files("reference");
  files.push_back(test::source_dir() + "/tests/array/lower/hand_funs.rml");
  std::map<std::string, std::string> texts;
  for (auto &path : files) {
    std::string rel = fs::relative(path, test::source_dir()).string();
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    texts[rel] = ss.str();
    if (auto *r = test::checked(path, texts[rel]))
      for (auto &f : test::funs_of(r->checked, false)) funs.emplace_back(rel, f);
  }
  std::vector<EmitCase> cases;
  size_t refused = 0;
  for (auto &use : funs) {
    const std::string &rel = use.first, &fun = use.second;  // not a structured binding: lambdas below capture it (Clang 14)
    const FrontendResult *r = rel.empty() ? test::checked("empty.rml", "") : test::checked(test::source_dir() + "/" + rel, texts[rel]);
    ASSERT_TRUE(r);
    const CheckedProgram &cp = r->checked;
    for (int seed = 1; seed <= per_fun; ++seed) {
      auto gen = rc::gen::exec([&] { return test::gen_fun_case(cp, fun); });
      test::FunCase c = gen(rc::Random(static_cast<uint64_t>(seed) * 7919 + fun.size()), 50).value();
      std::string why;
      auto want = test::reference_value(cp, fun, c, why);
      if (!want) continue;  // a static error of this use
      std::vector<ir::Type> types;
      for (auto &a : c.args) types.push_back(ir::Type{a.elem, a.shape});
      lower::Lowered l;
      try {
        l = lower::lower_fun(cp, fun, c.statics, types);
      } catch (lower::LowerError &) {
        ++refused;
        continue;
      }
      if (ir::numel(want->shape) > 4096) continue;  // keep the program small
      cases.push_back(emit_case(cases.size(), (rel.empty() ? "<prelude>" : rel) + ": " + fun + " (" + c.str() + ")", l, c, *want));
    }
  }
  ASSERT_GT(cases.size(), 100u);
  const fs::path dir = fs::temp_directory_path() / ("rml_emit_term_" + std::to_string(::getpid()));
  auto check = [&](const std::string &out, bool expect_equal) { return equal_cases(cases, out, expect_equal); };
  size_t equal = check(run_program(cases, dir, nullptr), true);
  std::printf("%zu uses of %zu funs: the generated functions equal the evaluator on %zu (%zu uses not lowered)\n", cases.size(), funs.size(),
              equal, refused);
  if (!test::kSanitized) {
    size_t still = check(run_program(cases, dir, sums_subtract), false);
    std::printf("negative control (fused sums subtract): %zu of %zu uses differ\n", cases.size() - still, cases.size());
    EXPECT_LT(still, cases.size()) << "the negative control was not caught";
  }
}

// The sums rml compile writes four result elements at a time (ops/lanes.hpp, emit_term's
// LanesElem) against the reference evaluator, at the lengths where the loops change: result
// lengths 4..17 (by eight lanes, by four, the scalar rest) and summed lengths 1..9 (by four
// over 4 x 4 blocks, then one at a time), for each kind of leaf read: a matrix along its
// rows (a transposed block, `rows`), contiguous lanes and negation, division and subtraction
// on lanes (`mixed`), one element for every lane (`same`), lanes far apart (`far`); the
// special reals of random_real among the arguments. Built for the compiler's default target
// (without AVX: two 16-byte halves) and with -mavx2 (one register).
// Law: the evaluator's value bit for bit (any NaN equal to any NaN) on both builds.
// Negative controls: the additions subtract; a block's columns 1 and 2 swapped. Each is
// seen to differ.
TEST(EmitTerm, SumsByLanesEqualTheReferenceEvaluatorAtEveryBoundary) {
  const std::string text =
      "fun rows(a: real[m, n], x: real[n]) : real[m] = matvec(a, x);\n"
      "fun mixed(a: real[m, n], b: real[m, n], c: real[n, m], x: real[n]) : real[m] =\n"
      "  sumOuter(-(tr(a) * c) / tr(replicate(m, x)) - tr(b));\n"
      "fun same(x: real[n], y: real[m]) : real[m] = sumOuter(tr(replicate(m, x * x - 1.0))) + y;\n"
      "fun far(a: real[m, n, 2]) : real[2, m] = sumOuter(transpose([1, 2, 0], a));\n";
  const FrontendResult *r = test::checked("lanes.rml", text);
  ASSERT_TRUE(r);
  const CheckedProgram &cp = r->checked;
  std::mt19937_64 rng(4096);
  std::vector<EmitCase> cases;
  std::map<std::string, int> kinds;  // each leaf kind's uses in the generated text
  for (const char *fun : {"rows", "mixed", "same", "far"})
    for (int64_t m : {4, 7, 8, 12, 13, 17})
      for (int64_t n : {1, 3, 4, 5, 7, 8, 9}) {
        test::FunCase c;
        const std::string f = fun;
        using Sh = std::vector<int64_t>;
        std::vector<Sh> shapes = f == "rows" ? std::vector<Sh>{{m, n}, {n}}
                                 : f == "mixed" ? std::vector<Sh>{{m, n}, {m, n}, {n, m}, {n}}
                                 : f == "same" ? std::vector<Sh>{{n}, {m}}
                                               : std::vector<Sh>{{m, n, 2}};
        for (auto &sh : shapes) c.args.push_back(test::random_tensor(Scalar::Real, sh, rng));
        std::string why;
        auto want = test::reference_value(cp, f, c, why);
        ASSERT_TRUE(want) << f << ": " << why;
        std::vector<ir::Type> types;
        for (auto &a : c.args) types.push_back(ir::Type{a.elem, a.shape});
        lower::Lowered l = lower::lower_fun(cp, f, c.statics, types);
        cases.push_back(emit_case(cases.size(), f + " m=" + std::to_string(m) + " n=" + std::to_string(n), l, c, *want));
        const std::string &code = cases.back().code;
        for (const char *kind : {"columns4(", "load4(", "rml::lanes::V4{", "rml::lanes::V4 acc"})
          for (size_t at = code.find(kind); at != std::string::npos; at = code.find(kind, at + 1)) ++kinds[f + " " + kind];
      }
  // Each kind of read is written where it is expected (else the law proves nothing of it).
  EXPECT_GT(kinds["rows columns4("], 0);
  EXPECT_GT(kinds["mixed columns4("], 0);
  EXPECT_GT(kinds["mixed load4("], 0);
  EXPECT_GT(kinds["far rml::lanes::V4{"], 0);
  EXPECT_GT(kinds["rows rml::lanes::V4{"], 0);  // the rest of the summed index, one at a time
  EXPECT_GT(kinds["same rml::lanes::V4 acc"], 0);
  EXPECT_EQ(kinds["same columns4("] + kinds["same load4("] + kinds["same rml::lanes::V4{"], 0);
  const fs::path dir = fs::temp_directory_path() / ("rml_emit_lanes_" + std::to_string(::getpid()));
  for (const char *flags : {"", "-mavx2"})
    EXPECT_EQ(equal_cases(cases, run_program(cases, dir, nullptr, flags), true), cases.size()) << "flags: " << flags;
  if (test::kSanitized) return;
  auto swap_columns = [](std::string t) {  // blkN[1] read where blkN[2] is, and back
    for (size_t at = t.find("blk"); at != std::string::npos; at = t.find("blk", at + 1)) {
      size_t br = t.find_first_not_of("0123456789", at + 3);
      if (t.compare(br, 3, "[1]") == 0) t[br + 1] = '2';
      else if (t.compare(br, 3, "[2]") == 0) t[br + 1] = '1';
    }
    return t;
  };
  for (auto &[name, mutant] : std::vector<std::pair<std::string, std::function<std::string(std::string)>>>{{"sums subtract", sums_subtract},
                                                                                                         {"columns swapped", swap_columns}}) {
    const size_t still = equal_cases(cases, run_program(cases, dir, mutant, "-mavx2"), false);
    std::printf("negative control (%s): %zu of %zu cases differ\n", name.c_str(), cases.size() - still, cases.size());
    EXPECT_LT(still, cases.size()) << name << ": not caught";
  }
}
