// The VCD and SVG writers (src/formats) on chronogram tables; tests/cli/formats.cmake reads
// their output back with GTKWave and xmllint.
#include <gtest/gtest.h>

#include <regex>
#include <string>
#include <vector>

#include "formats/svg.hpp"
#include "formats/vcd.hpp"

namespace rml::formats {
namespace {

ChronogramTable table(std::vector<std::string> names, std::vector<std::vector<std::string>> rows) {
  ChronogramTable t;
  t.names = std::move(names);
  t.rows = std::move(rows);
  return t;
}

// The identifier code of the declared signal NAME (its type `decl`), or "".
std::string id_of(const std::string &vcd, const std::string &decl, const std::string &name) {
  std::smatch m;
  std::string esc = std::regex_replace(name, std::regex(R"([\[\]])"), R"(\$&)");
  if (std::regex_search(vcd, m, std::regex("\\$var " + decl + " (\\S+) " + esc + " \\$end"))) return m[1];
  return "";
}

size_t count(const std::string &s, const std::string &what) {
  size_t n = 0;
  for (size_t at = s.find(what); at != std::string::npos; at = s.find(what, at + what.size())) ++n;
  return n;
}

TEST(Vcd, TensorsAreASignalPerElementRowMajor) {
  auto t = table({"x", "o", "k", "b"}, {{"[1.0, 2.0]", "[[1.0, 2.0], [2.0, 4.0]]", "[3, -1]", "[T, F]"},
                                        {"_", "_", "_", "_"},
                                        {"[nan, -0.0]", "[[inf, -inf], [1e+16, 0.5]]", "?", "[F, F]"}});
  std::string vcd = write_vcd(t, "main", "test");
  for (auto *n : {"x[0]", "x[1]"}) EXPECT_NE(id_of(vcd, "real 64", n), "") << n << "\n" << vcd;
  for (auto *n : {"o[0][0]", "o[0][1]", "o[1][0]", "o[1][1]"}) EXPECT_NE(id_of(vcd, "real 64", n), "") << n;
  for (auto *n : {"k[0]", "k[1]"}) EXPECT_NE(id_of(vcd, "integer 64", n), "") << n;
  for (auto *n : {"b[0]", "b[1]"}) EXPECT_NE(id_of(vcd, "wire 1", n), "") << n;
  // One presence wire for a real tensor, none for the others (their elements hold z, x).
  std::string xp = id_of(vcd, "wire 1", "x_present"), op = id_of(vcd, "wire 1", "o_present");
  EXPECT_NE(xp, "");
  EXPECT_NE(op, "");
  EXPECT_EQ(id_of(vcd, "wire 1", "k_present"), "");
  EXPECT_EQ(id_of(vcd, "wire 1", "b_present"), "");
  EXPECT_EQ(count(vcd, "$var "), 2u + 4u + 2u + 2u + 2u);
  auto has = [&](const std::string &change) { return vcd.find("\n" + change + "\n") != std::string::npos; };
  EXPECT_TRUE(has("r2.0 " + id_of(vcd, "real 64", "x[1]")));
  EXPECT_TRUE(has("r2.0 " + id_of(vcd, "real 64", "o[1][0]")));
  EXPECT_TRUE(has("b11 " + id_of(vcd, "integer 64", "k[0]")));
  EXPECT_TRUE(has("b" + std::string(64, '1') + " " + id_of(vcd, "integer 64", "k[1]")));
  EXPECT_TRUE(has("1" + id_of(vcd, "wire 1", "b[0]")));
  EXPECT_TRUE(has("z" + xp));
  EXPECT_TRUE(has("bz " + id_of(vcd, "integer 64", "k[0]")));
  EXPECT_TRUE(has("z" + id_of(vcd, "wire 1", "b[0]")));
  EXPECT_TRUE(has("rnan " + id_of(vcd, "real 64", "x[0]")));
  EXPECT_TRUE(has("r-0.0 " + id_of(vcd, "real 64", "x[1]")));
  EXPECT_TRUE(has("r-inf " + id_of(vcd, "real 64", "o[0][1]")));
  EXPECT_TRUE(has("r1e+16 " + id_of(vcd, "real 64", "o[1][0]")));
  EXPECT_TRUE(has("bx " + id_of(vcd, "integer 64", "k[1]")));
}

TEST(Vcd, EmptyTensorsKeepTheirPresence) {
  std::string vcd = write_vcd(table({"e"}, {{"[]"}, {"_"}, {"[]"}}), "main", "test");
  EXPECT_EQ(count(vcd, "$var "), 1u) << vcd;
  EXPECT_NE(id_of(vcd, "wire 1", "e_present"), "");
  vcd = write_vcd(table({"e"}, {{"[[], []]"}}), "main", "test");
  EXPECT_EQ(count(vcd, "$var "), 1u) << vcd;
}

TEST(Vcd, RefusesWhatAWaveformCannotHold) {
  auto refused = [](std::vector<std::string> cells, const std::string &why) {
    std::vector<std::vector<std::string>> rows;
    for (auto &c : cells) rows.push_back({c});
    try {
      write_vcd(table({"x"}, rows), "main", "test");
      ADD_FAILURE() << "accepted " << cells[0];
    } catch (VcdError &e) {
      EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
    }
  };
  refused({"[[1.0, 2.0], [3.0]]"}, "neither a scalar nor a tensor");  // ragged
  refused({"[1.0, 2.0"}, "neither a scalar nor a tensor");
  refused({"[1.0, , 2.0]"}, "neither a scalar nor a tensor");
  refused({"[1.0, 2.0]", "[1.0, 2.0, 3.0]"}, "changes shape, from [2] to [3]");
  refused({"1.0", "[1.0]"}, "changes shape, from a scalar to [1]");
  refused({"Idle"}, "'Idle': a waveform holds bools, ints, reals");
  refused({"[T, 1]"}, "both bools and numbers");
}

TEST(Vcd, ScalarsAsBefore) {
  std::string vcd = write_vcd(table({"i", "r", "b"}, {{"8", "1.5", "T"}, {"5", "_", "?"}}), "main", "test");
  EXPECT_NE(id_of(vcd, "integer 64", "i"), "");
  EXPECT_NE(id_of(vcd, "real 64", "r"), "");
  EXPECT_NE(id_of(vcd, "wire 1", "r_present"), "");
  EXPECT_NE(id_of(vcd, "wire 1", "b"), "");
  EXPECT_EQ(count(vcd, "$var "), 4u);
}

// A long run: numbers wide enough that one strip would be ~120 000 px.
ChronogramTable long_run(size_t cycles) {
  ChronogramTable t;
  t.names = {"x", "avg"};
  for (size_t n = 0; n < cycles; ++n) t.rows.push_back({std::to_string(n) + ".123456789", n % 7 ? "0.3333333333333333" : "_"});
  return t;
}

int attribute(const std::string &svg, const std::string &name) {
  std::smatch m;
  EXPECT_TRUE(std::regex_search(svg, m, std::regex("<svg [^>]* " + name + "=\"([0-9]+)\""))) << name;
  return std::stoi(m[1]);
}

TEST(Svg, LongRunsWrapIntoBands) {
  const size_t cycles = 800;
  std::string svg = write_svg(long_run(cycles), "long", {{1, 799}, {0, 3}});
  EXPECT_LE(attribute(svg, "width"), 16000);
  EXPECT_LE(attribute(svg, "height"), 32767);
  size_t bands = count(svg, "<g class=\"band\"");
  EXPECT_GT(bands, 3u);
  EXPECT_EQ(count(svg, "<g class=\"variable\""), 2 * bands);
  EXPECT_EQ(count(svg, "<g class=\"cycles\""), bands);
  EXPECT_EQ(count(svg, ">avg</text>"), bands);  // the names again in each band
  EXPECT_EQ(count(svg, "class=\"mark\""), 2u);
  EXPECT_EQ(count(svg, "class=\"absent\""), (cycles + 6) / 7);
  // Each cycle's number once, in order.
  std::regex number("text-anchor=\"middle\">([0-9]+)</text>");
  size_t next = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), number); it != std::sregex_iterator(); ++it, ++next)
    ASSERT_EQ((*it)[1].str(), std::to_string(next));
  EXPECT_EQ(next, cycles);
  // Ids stay unique: the first band's are a one-band drawing's.
  EXPECT_EQ(count(svg, "id=\"v1\""), 1u);
  EXPECT_EQ(count(svg, "id=\"v1-1\""), 1u);
}

TEST(Svg, AShortRunIsOneBand) {
  std::string svg = write_svg(long_run(5), "short");
  EXPECT_EQ(count(svg, "<g class=\"band\""), 1u);
  EXPECT_EQ(count(svg, "<g class=\"variable\""), 2u);
  EXPECT_LT(attribute(svg, "width"), 1000);
}

TEST(Svg, ACellWiderThanABandIsCutShort) {
  std::string big = "[";
  for (int k = 0; k < 3000; ++k) big += (k ? ", " : "") + std::to_string(k) + ".5";
  big += "]";
  std::string svg = write_svg(table({"w"}, {{big}, {big}}), "big");
  EXPECT_LE(attribute(svg, "width"), 16000);
  EXPECT_EQ(count(svg, "<g class=\"band\""), 2u);
  EXPECT_EQ(count(svg, "…</text>"), 2u);
  EXPECT_EQ(count(svg, "<title>" + big + "</title>"), 2u);  // whole, as the tooltip
}

TEST(Svg, TooHighEvenInBandsIsAnError) {
  try {
    write_svg(long_run(200000), "huge");
    FAIL() << "drew a picture no renderer shows";
  } catch (SvgError &e) {
    std::string what = e.what();
    EXPECT_NE(what.find("more than the 32767 px"), std::string::npos) << what;
    EXPECT_NE(what.find("--show"), std::string::npos) << what;
  }
}

}  // namespace
}  // namespace rml::formats
