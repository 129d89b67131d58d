// "Did you mean" (sema/suggest.hpp): the user's names before the prelude's, a distance
// that grows with the name, and no suggestion for a name too short to have a near one.
#include <gtest/gtest.h>

#include "sema/suggest.hpp"

using namespace rml;

TEST(Suggest, EditDistance) {
  EXPECT_EQ(edit_distance("movag", "movavg"), 1u);
  EXPECT_EQ(edit_distance("kitten", "sitting"), 3u);
  EXPECT_EQ(edit_distance("", "abc"), 3u);
  EXPECT_EQ(edit_distance("abc", "abc"), 0u);
}

TEST(Suggest, TheUsersNamesComeFirst) {
  // 'dotz' is one edit from both; the prelude's alone would win alphabetically.
  EXPECT_EQ(suggest_name("dotz", {"dots"}, {"dot"}), "dots");
  EXPECT_EQ(closest_name("dotz", {"dot", "dots"}), "dot");
  // No user name near enough: the prelude's.
  EXPECT_EQ(suggest_name("softmaz", {"loss"}, {"softmax", "relu"}), "softmax");
  EXPECT_EQ(suggest_name("zzzz", {"loss"}, {"softmax"}), "");
}

TEST(Suggest, TheDistanceGrowsWithTheName) {
  EXPECT_EQ(closest_name("y", {"o", "x"}), "");         // one letter: any name is one edit away
  EXPECT_EQ(closest_name("xz", {"xs"}), "xs");
  EXPECT_EQ(closest_name("abc", {"axy"}), "");          // 2 edits for 3 letters: too far
  EXPECT_EQ(closest_name("movavg", {"mvg"}), "");       // 3 edits for 6 letters: too far
  EXPECT_EQ(closest_name("glorotuniform", {"glorot_uniform"}), "glorot_uniform");
  EXPECT_EQ(closest_name("same", {"same"}), "");        // the name itself is not a suggestion
}

TEST(Suggest, NearNamesClosestFirst) {
  EXPECT_EQ(near_names("movavg_1_x2", {"movavg_2_x1", "movavg_1_x1", "o", "movavg_1_t4"}),
            (std::vector<std::string>{"movavg_1_x1", "movavg_2_x1", "movavg_1_t4"}));  // ties: in order
  EXPECT_EQ(near_names("zzz", {"a", "b"}), std::vector<std::string>{});
}
