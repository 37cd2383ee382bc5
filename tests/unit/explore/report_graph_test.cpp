// RunReport::graph: the explored transitions, in the report only when Options::record_edges asks.
#include <gtest/gtest.h>

#include "prowl/explore/explorer.hpp"
#include "prowl/explore/object_model.hpp"
#include "prowl/strategy/bfs.hpp"

namespace prowl {
namespace {

constexpr ActionId kInc = 0;
constexpr ActionId kReset = 1;
constexpr ActionId kStay = 2;

// v in {0, 1, 2}: inc up to 2, reset back to 0 (a known state), stay at 2 (a self-loop).
ObjectModel<int> loop_model() {
  ObjectModel<int> m("loop", 0);
  m.action("inc").when([](const int& v) { return v < 2; }).run([](int& v) { ++v; });
  m.action("reset").when([](const int& v) { return v > 0; }).run([](int& v) { v = 0; });
  m.action("stay").when([](const int& v) { return v == 2; }).run([](int&) {});
  return m;
}

Result<RunReport> explore_loop(bool record_edges) {
  auto model = loop_model();
  Bfs bfs;
  Options options;
  options.record_edges = record_edges;
  return explore(model, bfs, options);
}

// BFS numbers the states 0 (v=0), 1 (v=1), 2 (v=2), and runs each state's actions in order.
TEST(ReportGraph, HoldsExactlyTheTransitionsBfsRanWithTheNumberOfStates) {
  auto report = explore_loop(/*record_edges=*/true);
  ASSERT_TRUE(report) << report.status().message();
  ASSERT_TRUE(report->graph.has_value());
  EXPECT_EQ(report->graph->states, 3u);
  const std::vector<Edge> expected = {
      {0, kInc, 1}, {1, kInc, 2}, {1, kReset, 0}, {2, kReset, 0}, {2, kStay, 2}};
  EXPECT_EQ(report->graph->edges, expected);
  EXPECT_EQ(report->stats.transitions, expected.size());
  EXPECT_EQ(report->coverage[kStay].name, "stay");
}

TEST(ReportGraph, IsAbsentUnlessEdgesAreRecorded) {
  auto report = explore_loop(/*record_edges=*/false);
  ASSERT_TRUE(report) << report.status().message();
  EXPECT_FALSE(report->graph.has_value());
  EXPECT_EQ(report->stats.transitions, 5u);
}

// A run cut short reports the edges it ran.
TEST(ReportGraph, HoldsTheEdgesOfARunStoppedByAStepLimit) {
  auto model = loop_model();
  Bfs bfs;
  Options options;
  options.record_edges = true;
  options.max_steps = 2;
  auto report = explore(model, bfs, options);
  ASSERT_TRUE(report) << report.status().message();
  EXPECT_EQ(report->termination, Termination::kMaxSteps);
  ASSERT_TRUE(report->graph.has_value());
  EXPECT_EQ(report->graph->states, 3u);
  EXPECT_EQ(report->graph->edges, (std::vector<Edge>{{0, kInc, 1}, {1, kInc, 2}}));
}

}  // namespace
}  // namespace prowl
