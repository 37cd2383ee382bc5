#include <gtest/gtest.h>

#include <vector>

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

// Enters states [first, end) of fps by `parts` parts, as the threaded search does, then the
// states each part kept aside.
void enter_by_parts(Graph& g, const std::vector<Fingerprint>& fps, StateId first, StateId end,
                    std::size_t again, unsigned parts) {
  std::vector<Graph::TablePart> each;
  each.reserve(parts);
  for (unsigned k = 0; k < parts; ++k) {
    Graph::TablePart& part = each.emplace_back(g, k, parts);
    if (again > 0) part.enter_old(static_cast<StateId>(again));
    for (StateId s = first; s < end; ++s) {
      if (part.owns(fps[s])) part.enter(s, fps[s]);
    }
    part.finish();
  }
  for (Graph::TablePart& part : each) part.enter_aside();
}

// Fingerprints whose first slots crowd the end of part 0's range of slots (of 2 parts) and the
// end of the table, so that probes run past them.
std::vector<Fingerprint> crowded(std::size_t n) {
  std::vector<Fingerprint> fps;
  for (std::uint64_t i = 0; i < n; ++i) {
    const std::uint64_t top = i % 2 == 0 ? 0x7fffffffu : 0xffffffffu;
    fps.push_back({(top << 32) | (i * 0x9e3779b9u & 0xffffffffu), i});
  }
  return fps;
}

TEST(Graph, EntersALevelByPartsWhoseProbesRunPastTheirSlots) {
  for (unsigned parts : {1u, 2u, 3u}) {
    Graph g(2);
    std::vector<Fingerprint> fps = crowded(301);
    g.add(fps[0], kNoState, kNoAction);
    ASSERT_EQ(g.append_level(300, 1), 0u) << "1024 slots hold 301 states";
    for (StateId s = 1; s <= 300; ++s) g.set_state(s, fps[s], 0, s % 2);
    enter_by_parts(g, fps, 1, 301, 0, parts);
    for (StateId s = 0; s <= 300; ++s) ASSERT_EQ(g.find(fps[s]), s) << parts << " parts";
    EXPECT_EQ(g.find({0x7fffffffull << 32, 7}), kNoState);
    EXPECT_EQ(g.parent(300), 0u);
    EXPECT_EQ(g.parent_action(299), 1u);
    EXPECT_EQ(g.depth(300), 1u);
  }
}

TEST(Graph, EntersTheKnownStatesAgainByPartsWhenALevelGrowsTheTable) {
  for (unsigned parts : {1u, 2u, 4u}) {
    Graph g(1);
    std::vector<Fingerprint> fps = crowded(1);
    for (std::uint64_t i = 1; i < 5000; ++i) fps.push_back(fp(i));
    g.add(fps[0], kNoState, kNoAction);
    ASSERT_EQ(g.append_level(499, 1), 0u) << "1024 slots hold 500 states";
    for (StateId s = 1; s < 500; ++s) g.set_state(s, fps[s], 0, 0);
    enter_by_parts(g, fps, 1, 500, 0, parts);
    const std::size_t again = g.append_level(4500, 2);
    ASSERT_EQ(again, 500u) << "the second level makes the table grow again";
    for (StateId s = 500; s < 5000; ++s) g.set_state(s, fps[s], s - 499, 0);
    enter_by_parts(g, fps, 500, 5000, again, parts);
    for (StateId s = 0; s < 5000; ++s) ASSERT_EQ(g.find(fps[s]), s) << parts << " parts";
    EXPECT_EQ(g.depth(4999), 2u);
    EXPECT_EQ(g.parent(4999), 4500u);
  }
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
