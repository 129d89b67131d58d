// The reference corpus (reference/): every program is checked against the verdict its
// header records, round-trips through the printer, and printed/repaired pairs are kept
// together and explained in reference/NOTES.md.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "core/normalize.hpp"
#include "common/test_files.hpp"
#include "test_util.hpp"
#include "driver/expectations.hpp"

using namespace rml;

class ReferenceCorpus : public ::testing::TestWithParam<std::string> {};

TEST_P(ReferenceCorpus, FrontEndVerdictMatchesTheHeader) {
  rml::test::expect_header_matches(GetParam(), false);
}

// parse(print(p)) = p on real programs, and printing is a fixpoint (rml fmt is idempotent).
// (Files rejected by the parser by design have nothing to print.)
TEST_P(ReferenceCorpus, PrintParseRoundTrip) {
  std::string err;
  auto text = read_file(GetParam(), err);
  ASSERT_TRUE(text) << err;
  SourceFile f(GetParam(), *text);
  Diagnostics d;
  Program p = parse_program(f, d);
  bool parse_error_expected = false;
  for (auto &e : parse_expectations(*text).errors)
    parse_error_expected |= e.rule.rfind("lex.", 0) == 0 || e.rule.rfind("parse.", 0) == 0;
  ASSERT_EQ(d.has_errors(), parse_error_expected) << render_all(d);
  if (parse_error_expected) return;
  std::string printed = print_program(p);
  SourceFile g("printed.rml", printed);
  Diagnostics d2;
  Program q = parse_program(g, d2);
  ASSERT_FALSE(d2.has_errors()) << render_all(d2) << printed;
  EXPECT_TRUE(ast_equal(p, q)) << printed;
  EXPECT_EQ(print_program(q), printed);
}

// Every `// main: NODE` of an accepted file names a node; a non-generic one elaborates.
TEST(ReferenceCorpusMains, DeclaredMainsElaborate) {
  size_t elaborated = 0;
  for (auto &file : rml::test::rml_files("reference")) {
    std::string err;
    auto text = read_file(file, err);
    Expectations ex = parse_expectations(*text);
    if (ex.main_node.empty() || !ex.expect_ok) continue;
    auto r = run_frontend(file, *text);
    ASSERT_FALSE(r->diags.has_errors()) << file;
    ASSERT_TRUE(r->checked.sigs.count(ex.main_node)) << file << ": no node " << ex.main_node;
    if (!core::can_be_main(r->checked, ex.main_node)) continue;  // generic: needs an instance
    EXPECT_NO_THROW(core::elaborate(r->checked, ex.main_node)) << file;
    ++elaborated;
  }
  EXPECT_GE(elaborated, 8u);
}

INSTANTIATE_TEST_SUITE_P(Files, ReferenceCorpus, ::testing::ValuesIn(rml::test::rml_files("reference")),
                         rml::test::file_test_name);

TEST(ReferenceCorpusLayout, PrintedProgramsHaveARepairAndANote) {
  std::ifstream notes(rml::test::source_dir() + "/reference/NOTES.md");
  std::stringstream ss;
  ss << notes.rdbuf();
  std::string text = ss.str();
  ASSERT_FALSE(text.empty());
  size_t printed = 0;
  for (auto &f : rml::test::rml_files("reference")) {
    std::string name = std::filesystem::path(f).filename().string();
    std::string base = name.substr(0, name.find('.'));  // fig03_gradient_descent
    EXPECT_NE(text.find(base), std::string::npos) << name << " is not discussed in reference/NOTES.md";
    auto pos = name.find(".printed.rml");
    if (pos == std::string::npos) continue;
    ++printed;
    std::string repaired = std::filesystem::path(f).parent_path() / (name.substr(0, pos) + ".rml");
    EXPECT_TRUE(std::filesystem::exists(repaired)) << name << " has no repaired version";
  }
  EXPECT_GE(printed, 5u);
}

// language.md §3: the programs that must be in the corpus.
TEST(ReferenceCorpusLayout, EveryRequiredProgramIsPresent) {
  std::string all;
  for (auto &f : rml::test::rml_files("reference")) {
    std::string err;
    all += *read_file(f, err);
  }
  for (const char *node :
       {"param", "dense", "multiply", "app", "app_pipe", "mse_grad_i", "diff_param", "diff_dense", "diff_multiply",
        "diff_app", "diff_app_pipe", "diff_fby1", "infer", "train", "counter", "dense1", "lstm_cell", "lstm", "mlp",
        "window", "timeseries", "mixture_of_experts", "pcounter", "backfill", "fby_end", "mean_var", "norm",
        "batch_norm", "param_end", "dense1_end", "lstm_cell_end", "lstm_end", "diff_fby_end", "diff_param_end",
        "diff_lstm_end", "post_end", "lstm_bi"})
    EXPECT_NE(all.find(std::string("node ") + node + "("), std::string::npos) << "missing node " << node;
}
