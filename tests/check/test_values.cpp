// rml-check on values: the corpus of real-valued specification properties
// (tests/check/values, exact expected verdicts), and the soundness law over random
// real-valued programs. The law: a property rml-check calls valid holds on every oracle run
// whose inputs keep the assumptions; a property it calls falsified fails in the oracle on
// the counterexample's inputs. Its negative control: the same checker with reals as exact
// rationals (Options::exact_reals) calls valid what doubles break, and the law catches it.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <limits>
#include <random>
#include <regex>
#include <sstream>

#include "array/eval.hpp"
#include "checker/checker.hpp"
#include "common/sanitized.hpp"
#include "common/test_files.hpp"
#include "core/normalize.hpp"
#include "oracle/oracle.hpp"
#include "sema/frontend.hpp"
#include "driver/expectations.hpp"

using namespace rml;

namespace values_test {

const bool kAllValueCases = std::getenv("RML_ALL_CASES") != nullptr;

struct CheckedValues {
  std::unique_ptr<FrontendResult> fe;
  core::Program prog;
  check::Report rep;
};

CheckedValues run_values_check(const std::string &text, const std::string &main, const check::Options &opts) {
  CheckedValues c;
  c.fe = run_frontend("values.rml", text);
  if (c.fe->diags.has_errors()) throw std::runtime_error(render_all(c.fe->diags) + "\n" + text);
  c.prog = core::elaborate(c.fe->checked, main);
  c.rep = check::check_program(c.fe->checked, c.prog, opts);
  return c;
}

// Whether a run keeps every `always` assumption of the main node at each of its cycles.
bool run_keeps_assumptions(const core::Program &prog, const oracle::Result &res) {
  for (auto &a : prog.assumptions)
    for (size_t n = 0; n < res.cycles && !a.eventually; ++n) {  // liveness: no finite run breaks it
      oracle::Cell c = res.at(a.var, n);
      if (c.tag == oracle::Tag::Abs) continue;
      if (c.tag != oracle::Tag::Val || c.value.i.at(0) == 0) return false;
    }
  return true;
}

// The first cycle where the property's variable is false or nil, if any.
std::optional<size_t> first_failure(const oracle::Result &res, const std::string &var) {
  for (size_t n = 0; n < res.cycles; ++n) {
    oracle::Cell c = res.at(var, n);
    if (c.tag == oracle::Tag::Nil || (c.tag == oracle::Tag::Val && c.value.i.at(0) == 0)) return n;
  }
  return std::nullopt;
}

// Input values for the law, drawn independently of the checker: the program's numeric
// literals, numbers between two of them, their neighbours in binary64, zeros, infinities,
// NaN and subnormals.
std::vector<double> literals(const std::string &text) {
  std::vector<double> out{0.0, -0.0, 1.0, -1.0};
  std::regex num(R"((-?)\b(\d+\.\d+(e[-+]?\d+)?|\d+e[-+]?\d+))");
  for (std::sregex_iterator it(text.begin(), text.end(), num), end; it != end; ++it) {
    double v = std::strtod((*it)[2].str().c_str(), nullptr);  // subnormals too (stod throws)
    out.push_back(v), out.push_back(-v);
  }
  return out;
}

// Each input's (or a vector input's element's) bounds as the program text states them in
// its assumptions (`x >= a and x <= b`, `x[1] >= a and x[1] <= b`), read here independently
// of the checker.
std::map<std::string, std::pair<double, double>> stated_bounds(const std::string &text) {
  std::map<std::string, std::pair<double, double>> out;
  std::regex re(R"((\w+(\[\d+\])?) >= (-?[0-9.e+-]+) and (\w+(\[\d+\])?) <= (-?[0-9.e+-]+))");
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.find("assume always") == std::string::npos) continue;
    for (std::sregex_iterator it(line.begin(), line.end(), re), end; it != end; ++it)
      if ((*it)[1].str() == (*it)[4].str())
        out[(*it)[1].str()] = {std::strtod((*it)[3].str().c_str(), nullptr), std::strtod((*it)[6].str().c_str(), nullptr)};
  }
  return out;
}

oracle::Inputs random_trace(const core::Program &prog, const std::vector<double> &lits,
                            const std::map<std::string, std::pair<double, double>> &bounds, std::mt19937_64 &rng,
                            size_t cycles) {
  auto lit = [&] { return lits[std::uniform_int_distribution<size_t>(0, lits.size() - 1)(rng)]; };
  auto any = [&]() -> double {
    switch (rng() % 10) {
      case 0:
      case 1: return lit();
      case 2: return std::nextafter(lit(), rng() & 1 ? 1e300 : -1e300);
      case 3: {
        static const double special[] = {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
                                         -std::numeric_limits<double>::infinity(), 4.9e-324, -2.2250738585072014e-308, 1e308};
        return special[rng() % 6];
      }
      default: {
        double a = lit(), b = lit();
        if (!std::isfinite(a) || !std::isfinite(b)) return a;
        return a + (b - a) * std::uniform_real_distribution<double>(0, 1)(rng);
      }
    }
  };
  // Inside the stated bounds (their ends, their neighbours inside, zero and subnormals
  // when inside, literals inside, uniform draws), or rarely anything.
  auto pick = [&](const std::string &v) -> double {
    auto b = bounds.find(v);
    if (b == bounds.end() || rng() % 20 == 0) return any();
    auto [lo, hi] = b->second;
    for (int tries = 0; tries < 8; ++tries) {
      double x;
      switch (rng() % 8) {
        case 0: x = lo; break;
        case 1: x = hi; break;
        case 2: x = std::nextafter(lo, hi); break;
        case 3: x = std::nextafter(hi, lo); break;
        case 4: x = rng() & 1 ? 0.0 : (rng() & 1 ? 4.9e-324 : -2.2250738585072014e-308); break;
        case 5: x = lit(); break;
        default: x = lo + (hi - lo) * std::uniform_real_distribution<double>(0, 1)(rng);
      }
      if (x >= lo && x <= hi) return x;
    }
    return lo;
  };
  oracle::Inputs in;
  in.cycles = cycles;
  for (auto &v : prog.inputs) {
    auto &cells = in.streams[v.name];
    std::vector<int64_t> shape = array::concrete_shape(v.type.shape);
    double held = pick(v.name);
    for (size_t n = 0; n < cycles; ++n) {
      array::Tensor t = array::Tensor::zeros(v.type.elem, shape);
      for (size_t e = 0; e < t.numel(); ++e) {
        std::string key = shape.empty() ? v.name : v.name + "[" + std::to_string(e) + "]";
        double x = rng() % 3 == 0 && shape.empty() ? held : pick(key);
        if (v.type.elem == Scalar::Real) t.r[e] = x;
        else if (v.type.elem == Scalar::Bool) t.i[e] = static_cast<int64_t>((rng() & 1) || n % 3 == 2);  // bp: within 3
        else t.i[e] = std::isfinite(x) ? static_cast<int64_t>(std::clamp(x, -1e6, 1e6)) : 0;
      }
      cells.push_back(oracle::Cell::of(std::move(t)));
    }
  }
  return in;
}

// The law on one checked program: what it breaks, one line per broken verdict.
std::vector<std::string> law_violations(const CheckedValues &c, const std::string &text, size_t traces, uint64_t seed,
                                        size_t *kept_runs = nullptr) {
  std::vector<std::string> out;
  oracle::Oracle orc(c.fe->checked, c.prog);
  std::vector<const check::PropertyResult *> props;
  for (auto &p : c.rep.properties)
    if (p.kind == "property") props.push_back(&p);
  auto lits = literals(text);
  auto bounds = stated_bounds(text);
  std::mt19937_64 rng(seed);
  size_t kept = 0;
  for (size_t k = 0; k < props.size() && k < c.prog.properties.size(); ++k) {
    const check::PropertyResult &p = *props[k];
    const std::string &var = c.prog.properties[k].var;
    if (p.verdict == check::Verdict::Falsified) {
      if (!p.cex) {
        out.push_back("'" + p.name + "' falsified without a counterexample");
        continue;
      }
      oracle::Result res = orc.run(p.cex->inputs);
      if (!run_keeps_assumptions(c.prog, res) || !first_failure(res, var))
        out.push_back("'" + p.name + "' falsified, but its counterexample does not fail in the oracle");
    } else if (p.verdict == check::Verdict::Valid) {
      for (size_t t = 0; t < traces; ++t) {
        oracle::Inputs in = random_trace(c.prog, lits, bounds, rng, 8);
        oracle::Result res = orc.run(in);
        if (!run_keeps_assumptions(c.prog, res)) continue;
        ++kept;
        if (auto n = first_failure(res, var)) {
          out.push_back("'" + p.name + "' called valid (" + p.method + ") fails at cycle " + std::to_string(*n));
          break;
        }
      }
    }
  }
  if (kept_runs) *kept_runs += kept;
  return out;
}

std::vector<std::string> value_files() {
  std::vector<std::string> out;
  for (auto &e : std::filesystem::directory_iterator(std::string(RML_SOURCE_DIR) + "/tests/check/values"))
    if (e.path().extension() == ".rml") out.push_back(e.path().string());
  std::sort(out.begin(), out.end());
  return out;
}

check::Options deterministic() {
  check::Options o;
  o.rlimit = check::kDefaultRlimit;  // Z3 resource units: the same verdicts on any machine at any load
  return o;
}

}  // namespace values_test

using namespace values_test;

// The corpus: every property gets exactly its expected verdict, and passes the law.
class CheckValues : public ::testing::TestWithParam<std::string> {};
TEST_P(CheckValues, VerdictsMatchAndKeepTheLaw) {
  std::string err;
  auto text = read_file(GetParam(), err);
  ASSERT_TRUE(text) << err;
  Expectations ex = parse_expectations(*text);
  std::smatch m;
  ASSERT_TRUE(std::regex_search(*text, m, std::regex("// properties:([a-z ]+)"))) << "missing '// properties:'";
  std::istringstream want(m[1].str());
  std::vector<std::string> expected{std::istream_iterator<std::string>(want), {}};
  CheckedValues c = run_values_check(*text, ex.main_node, deterministic());
  std::vector<std::string> got;
  std::string methods;
  for (auto &p : c.rep.properties)
    if (p.kind == "property") {
      got.push_back(check::verdict_name(p.verdict));
      methods += "  " + p.name + ": " + check::verdict_name(p.verdict) + " (" + p.method + ")\n";
    }
  EXPECT_EQ(got, expected) << methods;
  size_t kept = 0;
  auto broken = law_violations(c, *text, 200, 7, &kept);
  EXPECT_TRUE(broken.empty()) << broken.front();
  bool any_valid = std::find(got.begin(), got.end(), "valid") != got.end();
  if (any_valid) {
    EXPECT_GE(kept, 50u) << "too few runs kept the assumptions: the law checked little";
  }
}
INSTANTIATE_TEST_SUITE_P(Files, CheckValues, ::testing::ValuesIn(value_files()), rml::test::file_test_name);

namespace values_test {
// Random real-valued programs: two bounded real inputs, a chain of equations over them
// (arithmetic, min/max, tanh, exp, sigmoid, relu, branches, fby and pre, sums and
// softmax of small vectors), sometimes a backfill through post on a sampled clock, and a
// property
// comparing the last one with a constant or an identity doubles may break (absorption,
// cancellation, overflow to infinity, rounding of tenths).
std::string random_program(std::mt19937_64 &rng) {
  auto pick = [&](std::initializer_list<const char *> xs) { return std::string(xs.begin()[rng() % xs.size()]); };
  auto constant = [&] { return pick({"0.0", "1.0", "0.5", "0.1", "3.0", "10.0", "1.0e16", "1.0e308", "1.0e-300", "0.9"}); };
  std::vector<std::string> vars{"x", "y"};
  std::function<std::string(int)> expr = [&](int depth) -> std::string {
    auto leaf = [&] { return rng() % 3 == 0 ? constant() : vars[rng() % vars.size()]; };
    if (depth == 0) return leaf();
    switch (rng() % 13) {
      case 0: return "(" + expr(depth - 1) + " + " + expr(depth - 1) + ")";
      case 1: return "(" + expr(depth - 1) + " - " + expr(depth - 1) + ")";
      case 2: return "(" + expr(depth - 1) + " * " + expr(depth - 1) + ")";
      case 3: return "(" + expr(depth - 1) + " / " + expr(depth - 1) + ")";
      case 4: return pick({"max", "min"}) + "(" + expr(depth - 1) + ", " + expr(depth - 1) + ")";
      case 5: return pick({"tanh", "exp", "sigmoid", "relu", "abs"}) + "(" + expr(depth - 1) + ")";
      case 6: return "(if " + expr(depth - 1) + " > " + expr(depth - 1) + " then " + expr(depth - 1) + " else " + expr(depth - 1) + ")";
      case 7: return "(" + constant() + " fby " + expr(depth - 1) + ")";
      case 8: return "(" + constant() + " -> pre " + expr(depth - 1) + ")";
      case 9: return "sum([" + expr(depth - 1) + ", " + expr(depth - 1) + ", " + expr(depth - 1) + "])";
      case 10: return "softmax([" + expr(depth - 1) + ", " + expr(depth - 1) + "])[" + pick({"0", "1"}) + "]";
      default: return leaf();
    }
  };
  std::string lo = pick({"-1.0", "0.0", "-10.0", "-1.0e300"}), hi = pick({"1.0", "9.0", "10.0", "1.0e300"});
  std::ostringstream s;
  int n = 1 + static_cast<int>(rng() % 3);
  // A quarter of the programs broadcast the last value back in time (a backfill through
  // post, cut by bp at least every three cycles), and the property reads the backfill.
  const bool backfill = rng() % 4 == 0;
  s << "node p(x: real, y: real" << (backfill ? ", bp: bool" : "") << ") -> (o: real)\nvar";
  for (int k = 1; k <= n; ++k) s << (k > 1 ? "," : "") << " e" << k;
  s << ": real;\n";
  if (backfill) s << "  assume always eventually bp within 3;\n";
  s << "  assume always x >= " << lo << " and x <= " << hi << ";\n";
  s << "  assume always y >= " << pick({"0.0", "-1.0", "0.5"}) << " and y <= " << pick({"1.0", "2.0"}) << ";\n";
  for (int k = 1; k <= n; ++k) {
    s << "  e" << k << " = " << expr(1 + static_cast<int>(rng() % 2)) << ";\n";
    vars.push_back("e" + std::to_string(k));
  }
  if (backfill) s << "  o = merge bp (e" << n << " when bp) ((post o) when not bp);\n";
  else s << "  o = e" << n << ";\n";
  std::string e = backfill ? "o" : "e" + std::to_string(n);
  switch (rng() % 5) {
    case 0: s << "  check " << e << " <= " << constant() << ";\n"; break;
    case 1: s << "  check " << e << " >= " << pick({"0.0", "-1.0", "-10.0"}) << ";\n"; break;
    case 2: s << "  check (" << e << " + " << constant() << ") - " << constant() << " = " << e << ";\n"; break;
    case 3: s << "  check " << e << " * 0.1 * 10.0 = " << e << ";\n"; break;
    default: s << "  check " << e << " = " << e << ";\n"; break;  // false exactly for NaN
  }
  return s.str();
}
}  // namespace values_test

// The law over random programs. CI checks a sample (RML_ALL_CASES: every case).
TEST(CheckValuesLaw, ValidHoldsAndFalsifiedReplaysOnRandomPrograms) {
  const size_t cases = kAllValueCases ? 1000 : rml::test::kSanitized ? 10 : 40;
  std::mt19937_64 rng(2026);
  size_t decided = 0;
  for (size_t k = 0; k < cases; ++k) {
    std::string text = random_program(rng);
    check::Options o;
    o.rlimit = 2'000'000;
    CheckedValues c = run_values_check(text, "p", o);
    for (auto &p : c.rep.properties)
      if (p.kind == "property" && p.verdict != check::Verdict::Unknown) ++decided;
    auto broken = law_violations(c, text, 60, k);
    ASSERT_TRUE(broken.empty()) << broken.front() << "\n" << text;
  }
  RecordProperty("decided", static_cast<int>(decided));
  EXPECT_GT(decided, cases / 2) << "the generator should mostly draw decidable properties";
}

// Negative control: with reals as exact rationals the checker proves the identities of
// the mathematical reals, and the law catches each one that binary64 breaks.
TEST(CheckValuesLaw, NegativeControlExactRealsIsCaught) {
  const std::string text =
      "node absorb(x: real) -> (a: real, b: real)\n"
      "  assume always x >= -10.0 and x <= 10.0;\n"
      "  a = (x + 1.0e16) - 1.0e16;\n"
      "  b = x * 0.1 * 10.0;\n"
      "  check a = x;\n"
      "  check b = x;\n";
  check::Options o = deterministic();
  o.exact_reals = true;
  CheckedValues c = run_values_check(text, "absorb", o);
  auto broken = law_violations(c, text, 200, 1);
  EXPECT_EQ(broken.size(), 2u) << "the law must catch both unsound verdicts";
  for (auto &p : c.rep.properties)
    if (p.kind == "property") {
      EXPECT_EQ(p.verdict, check::Verdict::Valid) << p.method;
    }
  // The real checker: both falsified, with counterexamples the law accepts.
  CheckedValues sound = run_values_check(text, "absorb", deterministic());
  EXPECT_TRUE(law_violations(sound, text, 200, 1).empty());
  for (auto &p : sound.rep.properties)
    if (p.kind == "property") {
      EXPECT_EQ(p.verdict, check::Verdict::Falsified) << p.method;
    }
}

// The same negative control over the random programs: the law finds some unsound verdict
// of the exact-rational checker among them.
TEST(CheckValuesLaw, NegativeControlOnRandomPrograms) {
  std::mt19937_64 rng(2026);
  size_t caught = 0;
  for (size_t k = 0; k < 40 && caught == 0; ++k) {
    std::string text = random_program(rng);
    check::Options o;
    o.rlimit = 2'000'000;
    o.exact_reals = true;
    CheckedValues c = run_values_check(text, "p", o);
    caught += law_violations(c, text, 60, k).size();
    if (std::getenv("RML_DEBUG_LAW"))
      for (auto &p : c.rep.properties)
        if (p.kind == "property") std::cerr << text << check::verdict_name(p.verdict) << " " << p.method << "\n";
  }
  EXPECT_GT(caught, 0u) << "the law never caught the exact-rational checker: the generator misses the shapes doubles break";
}
