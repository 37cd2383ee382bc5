#include <gtest/gtest.h>

#include "prowl/explore/graph.hpp"

namespace prowl {
namespace {

Fingerprint fp(std::uint64_t i) { return fingerprint_of(&i, sizeof i); }

TEST(Graph, AddsNewStatesAndFindsKnownOnes) {
  Graph g(3);
  EXPECT_EQ(g.add(fp(0), kNoState, kNoAction), (std::pair<StateId, bool>{0, true}));
  EXPECT_EQ(g.add(fp(1), 0, 2), (std::pair<StateId, bool>{1, true}));
  EXPECT_EQ(g.add(fp(1), 0, 1), (std::pair<StateId, bool>{1, false}));
  EXPECT_EQ(g.find(fp(1)), 1u);
  EXPECT_EQ(g.find(fp(7)), kNoState);
  EXPECT_EQ(g.parent(1), 0u);
  EXPECT_EQ(g.parent_action(1), 2u);
  EXPECT_EQ(g.depth(1), 1u);
}

TEST(Graph, KeepsEveryStateAcrossTableGrowth) {
  Graph g(1);
  g.add(fp(0), kNoState, kNoAction);
  for (std::uint64_t i = 1; i < 20000; ++i) g.add(fp(i), static_cast<StateId>(i - 1), 0);
  ASSERT_EQ(g.num_states(), 20000u);
  for (std::uint64_t i = 0; i < 20000; ++i) ASSERT_EQ(g.find(fp(i)), i);
  EXPECT_EQ(g.depth(19999), 19999u);
}

TEST(Graph, TakesAShorterParentWhenOneIsFound) {
  Graph g(2);
  g.add(fp(0), kNoState, kNoAction);
  g.add(fp(1), 0, 0);
  g.add(fp(2), 1, 0);
  g.add(fp(3), 2, 0);  // depth 3
  EXPECT_EQ(g.depth(3), 3u);
  g.add(fp(3), 0, 1);  // a direct edge
  EXPECT_EQ(g.depth(3), 1u);
  EXPECT_EQ(g.path_to(3), (std::vector<Pair>{{0, 1}}));
  EXPECT_EQ(g.path_to(2), (std::vector<Pair>{{0, 0}, {1, 0}}));
}

// Depths are kept as layers while states come in breadth-first order, and per state after the
// first one out of order: the same depths either way.
TEST(Graph, KeepsDepthsWhenAShallowerStateComesAfterADeeperOne) {
  Graph g(2);
  g.add(fp(0), kNoState, kNoAction);  // 0: depth 0
  g.add(fp(1), 0, 0);                 // 1: depth 1
  g.add(fp(2), 1, 0);                 // 2: depth 2
  g.add(fp(3), 1, 1);                 // 3: depth 2
  g.add(fp(4), 2, 0);                 // 4: depth 3
  EXPECT_EQ(g.depth(3), 2u);
  EXPECT_EQ(g.depth(4), 3u);
  g.add(fp(5), 0, 1);  // 5: depth 1, after a state of depth 3 (as DFS adds them)
  const std::vector<std::uint32_t> want = {0, 1, 2, 2, 3, 1};
  for (StateId s = 0; s < want.size(); ++s) EXPECT_EQ(g.depth(s), want[s]) << "state " << s;
  g.add(fp(6), 5, 0);  // 6: depth 2
  EXPECT_EQ(g.depth(6), 2u);
  EXPECT_EQ(g.path_to(6), (std::vector<Pair>{{0, 1}, {5, 0}}));
}

TEST(Graph, TakesAShorterParentWhileDepthsAreLayered) {
  Graph g(3);
  g.add(fp(0), kNoState, kNoAction);
  g.add(fp(1), 0, 0);
  g.add(fp(2), 1, 0);  // depth 2
  g.add(fp(3), 1, 1);  // depth 2
  g.add(fp(2), 1, 2);  // not shorter: kept
  EXPECT_EQ(g.parent_action(2), 0u);
  g.add(fp(3), 0, 2);  // shorter: depth 1
  EXPECT_EQ(g.depth(3), 1u);
  EXPECT_EQ(g.depth(2), 2u);
  EXPECT_EQ(g.path_to(3), (std::vector<Pair>{{0, 2}}));
}

TEST(Graph, TracksUnexploredActionsBeyondSixtyFourActions) {
  Graph g(130);
  g.add(fp(0), kNoState, kNoAction);
  const std::vector<ActionId> enabled = {3, 64, 129};
  g.set_enabled(0, enabled);
  EXPECT_EQ(g.unexplored_pairs(), 3u);
  EXPECT_EQ(g.next_unexplored(0), 3u);
  EXPECT_EQ(g.next_unexplored(0, 4), 64u);
  EXPECT_EQ(g.next_unexplored(0, 65), 129u);
  g.mark_explored(0, 64);
  g.mark_explored(0, 64);
  EXPECT_EQ(g.unexplored_pairs(), 2u);
  EXPECT_FALSE(g.is_unexplored(0, 64));
  EXPECT_EQ(g.next_unexplored(0, 4), 129u);
  g.mark_explored(0, 3);
  g.mark_explored(0, 129);
  EXPECT_FALSE(g.has_unexplored(0));
  EXPECT_EQ(g.next_unexplored(0), kNoAction);
}

TEST(Graph, RecordsEdgesOnlyWhenAsked) {
  Graph g(1);
  g.add(fp(0), kNoState, kNoAction);
  g.add_transition(0, 0, 0);
  EXPECT_TRUE(g.edges().empty());
  g.record_edges(true);
  g.add_transition(0, 0, 0);
  EXPECT_EQ(g.num_transitions(), 2u);
  ASSERT_EQ(g.edges().size(), 1u);
}

}  // namespace
}  // namespace prowl
