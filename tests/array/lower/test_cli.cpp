// The CLI built on lowering (src/tools/cmd_grad.cpp, cmd_run.cpp), in-process:
// - `rml run --backend compiled` prints what the reference evaluator prints for the
//   reference programs that call funs. Cells are compared as text, and where the text
//   differs both must be reals within 1e-12 relative: bot and the executor may associate
//   a sum differently (fig09_timeseries does, in its dense layers).
// - `rml grad --at` gives the gradient that central finite differences of the reference
//   evaluator (array::Evaluator, which shares no code with lowering, AD or the executor)
//   give, at random points; its two backends agree to 1e-12.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <unistd.h>

#include "lower_util.hpp"
#include "test_util.hpp"
#include "oracle/oracle.hpp"
#include "tools/commands.hpp"
#include "driver/exit_policy.hpp"

using namespace rml;

namespace {

std::string src(const std::string &rel) { return test::source_dir() + "/" + rel; }

std::vector<std::vector<std::string>> csv_rows(const std::string &text) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(text);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::string cell;
    bool quoted = false;
    for (char ch : line) {
      if (ch == '"') quoted = !quoted;
      else if (ch == ',' && !quoted) {
        cells.push_back(cell);
        cell.clear();
      } else cell += ch;
    }
    cells.push_back(cell);
    rows.push_back(cells);
  }
  return rows;
}

// The numbers of a cell ("[0.5, -1]", "2", "T"), or nullopt if it holds anything else.
std::optional<std::vector<double>> numbers(const std::string &cell) {
  std::vector<double> out;
  std::string tok;
  auto flush = [&]() -> bool {
    if (tok.empty()) return true;
    char *end = nullptr;
    double v = std::strtod(tok.c_str(), &end);
    if (*end) return false;
    out.push_back(v);
    tok.clear();
    return true;
  };
  for (char ch : cell) {
    if (ch == '[' || ch == ']' || ch == ',' || ch == ' ') {
      if (!flush()) return std::nullopt;
    } else tok += ch;
  }
  if (!flush()) return std::nullopt;
  return out;
}

bool close(double a, double b, double rel) {
  if (a == b || (std::isnan(a) && std::isnan(b))) return true;
  return std::fabs(a - b) <= rel * std::max(std::fabs(a), std::fabs(b));
}

struct RunCase {
  std::string file, trace;
};
[[maybe_unused]] void PrintTo(const RunCase &c, std::ostream *os) { *os << c.file; }

class CompiledBackend : public ::testing::TestWithParam<RunCase> {};

TEST_P(CompiledBackend, RunPrintsWhatTheReferenceEvaluatorPrints) {
  RunCmd c;
  c.file = src(GetParam().file);
  c.inputs = src(GetParam().trace);
  c.format = oracle::Format::Csv;
  c.show_all = true;  // every variable, intermediate fun results included
  std::ostringstream ref_out, ref_err, cmp_out, cmp_err;
  ASSERT_EQ(cmd_run(c, ref_out, ref_err), kOk) << ref_err.str();
  c.backend = Backend::Compiled;
  ASSERT_EQ(cmd_run(c, cmp_out, cmp_err), kOk) << cmp_err.str();
  EXPECT_NE(cmp_err.str().find("note: compiled backend: "), std::string::npos) << "the compiled path was not used";
  EXPECT_EQ(cmp_err.str().find("for 0 fun applications"), std::string::npos) << "no fun was applied: nothing was compared";
  auto want = csv_rows(ref_out.str()), got = csv_rows(cmp_out.str());
  ASSERT_EQ(got.size(), want.size());
  size_t inexact = 0;
  for (size_t r = 0; r < want.size(); ++r) {
    ASSERT_EQ(got[r].size(), want[r].size()) << "row " << r;
    for (size_t k = 0; k < want[r].size(); ++k) {
      if (got[r][k] == want[r][k]) continue;
      ++inexact;
      auto a = numbers(want[r][k]), b = numbers(got[r][k]);
      ASSERT_TRUE(a && b && a->size() == b->size()) << "row " << r << " column " << k << ": " << want[r][k] << " vs " << got[r][k];
      for (size_t q = 0; q < a->size(); ++q)
        EXPECT_TRUE(close((*a)[q], (*b)[q], 1e-12)) << "row " << r << " column " << k << ": " << want[r][k] << " vs " << got[r][k];
    }
  }
  if (inexact) std::cout << "  " << inexact << " cell(s) differ in the last bits (reassociated sums)\n";
}

INSTANTIATE_TEST_SUITE_P(
    Reference, CompiledBackend,
    ::testing::Values(RunCase{"tests/array/lower/run_funs.rml", "tests/array/lower/traces/run_funs.csv"},
                      RunCase{"reference/paper/fig08_lstm.rml", "tests/array/lower/traces/x3.csv"},
                      RunCase{"reference/paper/fig09_timeseries.rml", "tests/array/lower/traces/timeseries.csv"},
                      RunCase{"reference/paper/fig12_mixture_of_experts.rml", "tests/array/lower/traces/x3.csv"},
                      RunCase{"reference/paper/fig17_batch_norm.rml", "tests/array/lower/traces/batch_norm.csv"},
                      RunCase{"reference/paper/fig19_lstm_end.rml", "tests/array/lower/traces/x3_end.csv"},
                      RunCase{"reference/paper/fig20_diff_lstm_end.rml", "tests/array/lower/traces/diff_lstm_end.csv"},
                      RunCase{"reference/paper/fig21_lstm_bi.rml", "tests/array/lower/traces/x3_end.csv"},
                      RunCase{"reference/fractaltensor/vanilla_rnn.rml", "tests/array/lower/traces/x3_end.csv"},
                      RunCase{"reference/fractaltensor/grid_rnn.rml", "tests/array/lower/traces/grid_rnn.csv"}),
    [](const ::testing::TestParamInfo<RunCase> &pi) {
      std::string n = std::filesystem::path(pi.param.file).stem().string();
      for (char &ch : n)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
      return n;
    });

// ---- rml grad --at ----

nlohmann::json tensor_to_json(const array::Tensor &t) {
  size_t k = 0;
  std::function<nlohmann::json(size_t)> go = [&](size_t d) -> nlohmann::json {
    if (d == t.shape.size()) {
      size_t q = k++;
      if (t.elem == Scalar::Real) return t.r[q];
      if (t.elem == Scalar::Bool) return t.i[q] != 0;
      return t.i[q];
    }
    nlohmann::json a = nlohmann::json::array();
    for (int64_t j = 0; j < t.shape[d]; ++j) a.push_back(go(d + 1));
    return a;
  };
  return go(0);
}

// rml grad writes the reals JSON cannot hold as strings.
double num(const nlohmann::json &v) {
  if (v.is_string()) return v == "nan" ? NAN : v == "inf" ? INFINITY : v == "-inf" ? -INFINITY : throw std::runtime_error(v.dump());
  return v.get<double>();
}

std::vector<double> flat(const nlohmann::json &j) {
  std::vector<double> out;
  std::function<void(const nlohmann::json &)> go = [&](const nlohmann::json &v) {
    if (v.is_array())
      for (auto &x : v) go(x);
    else out.push_back(num(v));
  };
  go(j);
  return out;
}

// Runs `rml grad FILE --fun F --at <args>` in-process; the parsed JSON.
nlohmann::json grad_at(const std::string &file, const std::string &fun, const nlohmann::json &args, const std::string &backend) {
  static int n = 0;
  std::string path = (std::filesystem::temp_directory_path() / ("rml_lower_test_" + std::to_string(::getpid()) + "_" +
                                                                std::to_string(++n) + ".json"))
                         .string();
  std::ofstream(path) << args.dump();
  GradCmd c;
  c.file = file;
  c.fun = fun;
  c.at = path;
  c.backend = backend == "reference" ? Backend::Reference : Backend::Compiled;
  std::ostringstream out, err;
  int rc = cmd_grad(c, out, err);
  std::filesystem::remove(path);
  RC_LOG() << err.str();
  RC_ASSERT(rc == kOk);
  return nlohmann::json::parse(out.str());
}

class GradAt : public ::testing::TestWithParam<std::string> {};

TEST_P(GradAt, MatchesFiniteDifferencesOfTheReferenceEvaluator) {
  const std::string file = src("tests/array/lower/grad_funs.rml");
  std::string err;
  const FrontendResult *r = test::checked(file, *read_file(file, err));
  ASSERT_TRUE(r);
  const CheckedProgram &cp = r->checked;
  const std::string fun = GetParam();
  bool ok = rc::check(fun + ": rml grad --at against central differences", [&] {
    test::FunCase c = test::gen_fun_case(cp, fun, 3);
    // Smooth, moderate points: no specials here (finite differences need a smooth neighbourhood).
    std::mt19937_64 rng(*rc::gen::arbitrary<uint64_t>());
    for (auto &a : c.args)
      for (auto &v : a.r) v = std::uniform_real_distribution<double>(-2.0, 2.0)(rng);
    nlohmann::json args;
    lower::FunParams fp = lower::fun_params(cp, fun);
    for (size_t k = 0; k < fp.statics.size(); ++k) {
      const StaticValue &v = c.statics[k];
      if (v.kind == StaticValue::Int) args[fp.statics[k]->name] = v.size.const_value();
      else {
        args[fp.statics[k]->name] = nlohmann::json::array();
        for (auto &d : v.shape) args[fp.statics[k]->name].push_back(std::get<Poly>(d).const_value());
      }
    }
    for (size_t k = 0; k < fp.values.size(); ++k) args[fp.values[k]->name] = tensor_to_json(c.args[k]);
    nlohmann::json got = grad_at(file, fun, args, "compiled");
    nlohmann::json ref = grad_at(file, fun, args, "reference");
    RC_LOG() << "arguments: " << args.dump() << "\ncompiled: " << got.dump() << "\nreference: " << ref.dump() << "\n";
    // The two backends run one gradient program: equal up to reassociated sums.
    RC_ASSERT(close(num(got["value"]), num(ref["value"]), 1e-12));
    for (auto &[name, g] : ref["gradient"].items()) {
      auto a = flat(g), b = flat(got["gradient"][name]);
      RC_ASSERT(a.size() == b.size());
      for (size_t q = 0; q < a.size(); ++q) RC_ASSERT(close(a[q], b[q], 1e-12) || std::fabs(a[q] - b[q]) < 1e-14);
    }
    // The value is the reference evaluator's.
    array::Evaluator ev(cp);
    double value = ev.apply(fun, c.statics, c.args).r.at(0);
    RC_ASSERT(close(num(got["value"]), value, 1e-12));
    if (!std::isfinite(value)) return;  // e.g. mse of empty vectors (0 / 0): no neighbourhood to difference
    // Each real argument's gradient: central differences, h = 1e-6 (error ~1e-10 here).
    for (size_t k = 0; k < fp.values.size(); ++k) {
      if (c.args[k].elem != Scalar::Real) {
        RC_ASSERT(!got["gradient"].contains(fp.values[k]->name));  // int/bool arguments have none
        continue;
      }
      auto g = flat(got["gradient"][fp.values[k]->name]);
      RC_ASSERT(g.size() == c.args[k].r.size());
      for (size_t q = 0; q < g.size(); ++q) {
        const double h = 1e-6;
        std::vector<array::Tensor> plus = c.args, minus = c.args;
        plus[k].r[q] += h;
        minus[k].r[q] -= h;
        double fd = (ev.apply(fun, c.statics, plus).r.at(0) - ev.apply(fun, c.statics, minus).r.at(0)) / (2 * h);
        RC_LOG() << fp.values[k]->name << "[" << q << "]: grad " << g[q] << ", central difference " << fd << "\n";
        RC_ASSERT(std::fabs(g[q] - fd) <= 1e-5 * (1 + std::fabs(fd)));
      }
    }
  });
  EXPECT_TRUE(ok);
}

INSTANTIATE_TEST_SUITE_P(GradFuns, GradAt, ::testing::Values("scaled_norm", "loss", "smooth", "built", "sliced"));

}  // namespace

// The exit-code policy (src/driver/exit_policy.hpp, README "Limits and exit codes"): every
// rule the lowering can fail with has its documented code, 3 for what rml cannot do or
// got wrong, 2 for the fun's or the arguments' fault; a rule added to lower.cpp without a
// decision here fails the test. The oracle's errors are 3.
TEST(ExitPolicy, EveryLoweringRuleHasItsDocumentedCode) {
  const std::set<std::string> rml_cannot = {"lower.unsupported", "lower.internal", "lower.ir", "lower.unresolved",
                                            "lower.unchecked"};
  const std::set<std::string> users_fault = {"lower.argument-type", "lower.static", "lower.depth", "lower.unknown-fun",
                                             "arity.args", "fun.lambda-position", "fun.stream-op", "name.unknown",
                                             "shape.rank", "static.eval", "static.kind", "type.tuple"};
  std::ifstream in(src("src/array/lower/lower.cpp"));
  std::stringstream text;
  text << in.rdbuf();
  std::string s = text.str();
  size_t seen = 0;
  for (size_t at = s.find("fail(\""); at != std::string::npos; at = s.find("fail(\"", at + 1)) {
    std::string rule = s.substr(at + 6, s.find('"', at + 6) - at - 6);
    ++seen;
    ASSERT_TRUE(rml_cannot.count(rule) || users_fault.count(rule)) << "no exit code decided for " << rule;
    EXPECT_EQ(exit_for_lowering(rule), rml_cannot.count(rule) ? kUnknown : kFrontendError) << rule;
  }
  EXPECT_GT(seen, 30u);  // the scan found the fail(...) calls
  EXPECT_EQ(exit_for(oracle::OracleError("internal: x")), kUnknown);
  EXPECT_EQ(exit_for_compiled_path(), kUnknown);
}
