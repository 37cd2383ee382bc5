// The LRU example explored inside GoogleTest (prowl/gtest.hpp): the textbook cache keeps its map
// and list in step; with the seeded eviction bug the test fails with the shortest steps.
#include "lru/lru.hpp"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <string>

#include "prowl/explore/explorer.hpp"
#include "prowl/gtest.hpp"
#include "prowl/strategy/bfs.hpp"

namespace examples {
namespace {

TEST(LruExample, KeepsItsListAndMapInStep) {
  prowl::gtest::Settings settings;
  settings.require_exhausted = true;
  PROWL_EXPECT_NO_FINDINGS(make_lru_model(), settings);
}

TEST(LruExample, ExploresEveryCombinationOfKeysAndValues) {
  const auto model = make_lru_model();
  // put: 4 keys x 2 values; get: 4 keys; erase: 3 places for the keys held.
  ASSERT_EQ(model.actions().size(), 8u + 4u + 3u);
  prowl::Bfs bfs;
  auto report = prowl::explore(model, bfs);
  ASSERT_TRUE(report) << report.status().message();
  // Empty; one of 8 entries; two entries of different keys in order: 4 * 3 keys, 2 * 2 values.
  EXPECT_EQ(report->stats.states, 1u + 8 + 48);
  // put and get from every state; erase once per key held.
  EXPECT_EQ(report->stats.transitions, (1u + 8 + 48) * 12 + 8 * 1 + 48 * 2);
  EXPECT_EQ(report->termination, prowl::Termination::kExhausted);
}

TEST(LruExample, TheSeededBugFailsTheTestWithItsShortestSteps) {
  const ::testing::AssertionResult r = prowl::gtest::no_findings(make_lru_model(true));
  ASSERT_FALSE(r);
  const std::string text = r.message();
  // Three puts of different keys: three entries in a cache of two. One bug, whichever put comes
  // third: one heading, the other seven paths listed under it.
  EXPECT_NE(text.find("prowl found 1 finding (8 paths) exploring 'lru'"), std::string::npos)
      << text;
  EXPECT_NE(text.find("[1] high invariant_violation within_capacity (confirmed)\n"
                      "    invariant 'within_capacity' does not hold\n"
                      "    steps:\n"
                      "      1. put(key=1, value=0)\n"
                      "      2. put(key=2, value=0)\n"
                      "      3. put(key=0, value=0)  <- fails\n"
                      "    also reached by 7 other paths: [2] put(key=0, value=1) (3 steps), "),
            std::string::npos)
      << text;
  EXPECT_NONFATAL_FAILURE(PROWL_EXPECT_NO_FINDINGS(make_lru_model(true)),
                          "exploring 'lru' with bfs");
}

}  // namespace
}  // namespace examples
