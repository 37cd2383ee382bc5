// The graph reports' view of a run: each finding's path followed along the recorded edges by its
// action names, off the graph where no edge fits, the marks of each bug's shortest and other
// paths, parallel transitions merged, and the node budget filled breadth-first around the paths,
// which are always kept.
#include "prowl/report/graph_view.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "graph_report.hpp"
#include "sample_report.hpp"

namespace prowl {
namespace {

using testing::graph_report;
using testing::sample_report;
using testing::tree_report;
using Kind = ViewNode::Kind;
using Paths = std::vector<std::vector<std::size_t>>;

constexpr PathMark kS = PathMark::kShortestPath;
constexpr PathMark kO = PathMark::kOtherPath;
constexpr PathMark kN = PathMark::kNone;

struct EdgeFacts {
  std::size_t from, to;
  std::vector<std::string> actions;
  std::uint64_t transitions;
  PathMark mark;
  friend bool operator==(const EdgeFacts&, const EdgeFacts&) = default;
};

std::vector<EdgeFacts> facts(const GraphView& v) {
  std::vector<EdgeFacts> out;
  for (const ViewEdge& e : v.edges) out.push_back({e.from, e.to, e.actions, e.transitions, e.mark});
  return out;
}

std::vector<StateId> states_of(const GraphView& v) {
  std::vector<StateId> out;
  for (const ViewNode& n : v.nodes) {
    if (n.kind == Kind::kState) out.push_back(n.state);
  }
  return out;
}

TEST(GraphView, FollowsEachPathAlongTheRecordedEdgesAndMarksTheShortestOnes) {
  const GraphView v = select_graph(graph_report());
  EXPECT_TRUE(v.recorded);
  EXPECT_TRUE(v.whole());
  EXPECT_EQ(v.states, 6u);
  EXPECT_EQ(v.transitions, 11u);
  EXPECT_EQ(drawn_text(v), "drawn: the whole graph, 6 states and 11 transitions");
  ASSERT_EQ(v.nodes.size(), 10u);
  EXPECT_EQ(states_of(v), (std::vector<StateId>{0, 1, 2, 3, 4, 5}));
  const std::vector<Kind> kinds = {Kind::kState, Kind::kState, Kind::kState, Kind::kState,
                                   Kind::kState, Kind::kState, Kind::kFails, Kind::kStep,
                                   Kind::kFails, Kind::kFails};
  const std::vector<PathMark> marks = {kS, kS, kS, kO, kS, kN, kS, kO, kO, kS};
  const std::vector<std::vector<std::size_t>> failing = {{3}, {},  {}, {},  {0, 4},
                                                         {},  {1}, {}, {5}, {2}};
  for (std::size_t i = 0; i < v.nodes.size(); ++i) {
    EXPECT_EQ(v.nodes[i].kind, kinds[i]) << i;
    EXPECT_EQ(v.nodes[i].mark, marks[i]) << i;
    EXPECT_EQ(v.nodes[i].failing, failing[i]) << i;
  }
  EXPECT_EQ(v.paths,
            (Paths{{0, 1, 2, 4}, {0, 1, 2, 6}, {0, 9}, {0}, {0, 1, 3, 0, 1, 2, 4}, {0, 1, 7, 8}}));
  EXPECT_EQ(facts(v), (std::vector<EdgeFacts>{{0, 1, {"create_order"}, 1, kS},
                                              {0, 0, {"refund"}, 1, kN},
                                              {1, 2, {"refund"}, 1, kS},
                                              {1, 3, {"create_order"}, 2, kO},
                                              {2, 4, {"refund"}, 1, kS},
                                              {3, 0, {"cancel"}, 1, kO},
                                              {2, 5, {"cancel"}, 1, kN},
                                              {4, 4, {"refund"}, 1, kN},
                                              {5, 0, {"create_order", "audit"}, 2, kN},
                                              {2, 6, {"cancel"}, 0, kS},
                                              {1, 7, {"audit"}, 0, kO},
                                              {7, 8, {"cancel"}, 0, kO},
                                              {0, 9, {"create_order"}, 0, kS}}));
  EXPECT_EQ(v.drawn_states, 6u);
  EXPECT_EQ(v.drawn_transitions, 11u);
}

TEST(GraphView, WithoutAGraphDrawsThePathsAloneSharingTheirCommonSteps) {
  const GraphView v = select_graph(sample_report());
  EXPECT_FALSE(v.recorded);
  EXPECT_EQ(drawn_text(v), "drawn: the findings' paths only (the run recorded no graph)");
  // The initial state, then: 1 after create_order, 2 after refund, 3 the refund bug's state,
  // 4 the failed cancel, 5 the failed create_order.
  ASSERT_EQ(v.nodes.size(), 6u);
  EXPECT_EQ(v.nodes[0].kind, Kind::kState);
  EXPECT_EQ(v.nodes[3].kind, Kind::kStep);
  EXPECT_EQ(v.nodes[4].kind, Kind::kFails);
  EXPECT_EQ(v.nodes[5].kind, Kind::kFails);
  EXPECT_EQ(v.nodes[3].failing, std::vector<std::size_t>{0});
  EXPECT_EQ(v.paths, (Paths{{0, 1, 2, 3}, {0, 1, 2, 4}, {0, 5}, {0}}));
  EXPECT_EQ(facts(v), (std::vector<EdgeFacts>{{0, 1, {"create_order"}, 0, kS},
                                              {1, 2, {"refund"}, 0, kS},
                                              {2, 3, {"refund"}, 0, kS},
                                              {2, 4, {"cancel"}, 0, kS},
                                              {0, 5, {"create_order"}, 0, kS}}));
}

TEST(GraphView, FillsTheBudgetBreadthFirstFromThePathsOverEdgesEitherWay) {
  // 0 -left-> 1 -left-> 3 breaks the invariant. From 0: right to 2, then 4 and 5 reset into it.
  const GraphView v = select_graph(tree_report(15, 2), {.node_budget = 6});
  EXPECT_EQ(states_of(v), (std::vector<StateId>{0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(v.nodes.size(), 6u);
  EXPECT_EQ(v.paths, (Paths{{0, 1, 3}}));
  EXPECT_EQ(v.nodes[3].failing, std::vector<std::size_t>{0});
  // left 0-1 1-3 2-5, right 0-2 1-4, reset 1..5 -> 0.
  EXPECT_EQ(v.drawn_transitions, 10u);
  EXPECT_EQ(drawn_text(v),
            "drawn: 6 of 15 states and 10 of 28 transitions — the findings' paths and their "
            "neighbourhood");
}

TEST(GraphView, KeepsTheBudgetOnALargeGraph) {
  const RunReport r = tree_report(100000, 16);
  const GraphView v = select_graph(r);
  EXPECT_EQ(v.drawn_states, 500u);
  EXPECT_EQ(v.nodes.size(), 500u);
  EXPECT_EQ(v.states, 100000u);
  EXPECT_EQ(v.transitions, 199998u);
  // The path's 17 states, 2^k - 1, are among them, the last one failing.
  ASSERT_EQ(v.paths.size(), 1u);
  ASSERT_EQ(v.paths[0].size(), 17u);
  for (std::size_t k = 0; k < 17; ++k) {
    EXPECT_EQ(v.nodes[v.paths[0][k]].state, (1u << k) - 1) << k;
    EXPECT_EQ(v.nodes[v.paths[0][k]].mark, kS) << k;
  }
  EXPECT_EQ(v.nodes[v.paths[0].back()].failing, std::vector<std::size_t>{0});
  for (const ViewEdge& e : v.edges) {
    ASSERT_LT(e.from, v.nodes.size());
    ASSERT_LT(e.to, v.nodes.size());
  }
  EXPECT_EQ(drawn_text(v).substr(0, 30), "drawn: 500 of 100,000 states a");
}

TEST(GraphView, KeepsEveryPathStateWhenThePathsAloneExceedTheBudget) {
  const GraphView v = select_graph(tree_report(100000, 16), {.node_budget = 10});
  EXPECT_EQ(v.drawn_states, 17u);
  std::vector<StateId> expected;
  for (std::size_t k = 0; k < 17; ++k) expected.push_back((1u << k) - 1);
  EXPECT_EQ(states_of(v), expected);
  // The path's 16 lefts and the resets of its 16 states after the first.
  EXPECT_EQ(v.drawn_transitions, 32u);
}

TEST(GraphView, WithoutFindingsDrawsTheInitialStatesNeighbourhood) {
  RunReport r = tree_report(1000, 0);
  r.findings.clear();
  const GraphView v = select_graph(r, {.node_budget = 3});
  EXPECT_EQ(states_of(v), (std::vector<StateId>{0, 1, 2}));
  EXPECT_EQ(drawn_text(v),
            "drawn: 3 of 1,000 states and 4 of 1,998 transitions — the initial state's "
            "neighbourhood");
}

// n states, each leading to every other by an action of its own ("to_T"); a finding on 0 1 2.
RunReport complete_report(StateId n) {
  RunReport r;
  for (StateId t = 0; t < n; ++t) r.coverage.push_back({fmt::format("to_{}", t), 1, 1, 1, 0, 0});
  ReportGraph g{n, {}};
  for (StateId s = 0; s < n; ++s) {
    for (StateId t = 0; t < n; ++t) {
      if (s != t) g.edges.push_back({s, t, t});
    }
  }
  r.graph = std::move(g);
  Finding f;
  f.name = "two";
  f.steps = {{"to_1", 1, "ok", ""}, {"to_2", 2, "ok", ""}};
  r.findings = {f};
  return r;
}

TEST(GraphView, KeepsTheEdgeBudgetWithThePathsAndAnEdgeIntoEveryState) {
  const GraphView v = select_graph(complete_report(20),
                                   {.node_budget = 20, .edge_budget = 25, .labelled_edges = 10});
  EXPECT_EQ(v.nodes.size(), 20u);
  ASSERT_EQ(v.edges.size(), 25u);
  EXPECT_EQ(v.drawn_transitions, 25u);
  EXPECT_FALSE(v.labelled);
  // The path, 0 to each other state, 1 back to 0, then in order: 1 to 3, 4, 5 and 6.
  std::vector<std::pair<std::size_t, std::size_t>> ends;
  for (const ViewEdge& e : v.edges) ends.emplace_back(e.from, e.to);
  std::vector<std::pair<std::size_t, std::size_t>> expected;
  for (std::size_t t = 1; t < 20; ++t) expected.emplace_back(0, t);
  for (std::size_t t : {0, 2, 3, 4, 5, 6}) expected.emplace_back(1, t);
  EXPECT_EQ(ends, expected);
  EXPECT_EQ(v.edges[0].mark, kS);
  EXPECT_EQ(v.edges[20].mark, kS);
  EXPECT_EQ(drawn_text(v),
            "drawn: 20 of 20 states and 25 of 380 transitions — the findings' paths and their "
            "neighbourhood; only the paths' transitions are labelled");
}

// An action with a place for a state-given value: the step names the value.
RunReport places_report(std::vector<Edge> edges) {
  RunReport r;
  r.coverage = {
      {"add", 1, 1, 1, 0, 0}, {"remove(key=#0)", 1, 1, 1, 0, 0}, {"remove(key=#1)", 1, 1, 1, 0, 0}};
  r.graph = ReportGraph{3, std::move(edges)};
  Finding f;
  f.name = "gone";
  f.steps = {{"add", 1, "ok", ""}, {"remove(key=7)", 2, "ok", ""}};
  r.findings = {f};
  return r;
}

TEST(GraphView, FollowsAStepNamedByItsValueToTheOnePlaceThatFits) {
  const GraphView one = select_graph(places_report({{0, 0, 1}, {1, 1, 2}}));
  EXPECT_EQ(one.paths, (Paths{{0, 1, 2}}));
  // Two places lead to different states: which one the value was in is not known.
  const GraphView two = select_graph(places_report({{0, 0, 1}, {1, 1, 2}, {1, 2, 0}}));
  ASSERT_EQ(two.nodes.size(), 4u);
  EXPECT_EQ(two.nodes[3].kind, Kind::kStep);
  EXPECT_EQ(two.paths, (Paths{{0, 1, 3}}));
  EXPECT_EQ(two.edges.back().actions, std::vector<std::string>{"remove(key=7)"});
}

TEST(GraphView, AStepMayNameAPlaceOnlyWithEveryOtherCharacterTheSame) {
  EXPECT_TRUE(step_may_name("remove", "remove"));
  EXPECT_FALSE(step_may_name("remove", "removed"));
  EXPECT_TRUE(step_may_name("remove(key=#1)", "remove(key=7)"));
  EXPECT_TRUE(step_may_name("remove(key=#10)", "remove(key=-3)"));
  EXPECT_TRUE(step_may_name("remove(key=#1)", "remove(key=\"a, \\\"b)\")"));
  EXPECT_TRUE(step_may_name("put(key=#0, value=1)", "put(key=7, value=1)"));
  EXPECT_FALSE(step_may_name("put(key=#0, value=1)", "put(key=7, value=2)"));
  EXPECT_FALSE(step_may_name("remove(key=#1)", "remove(key=7)x"));
  EXPECT_FALSE(step_may_name("remove(key=#1)", "remove(key=)"));
  EXPECT_FALSE(step_may_name("remove(key=#1)", "delete(key=7)"));
  EXPECT_FALSE(step_may_name("a=#1", "a=7"));
}

TEST(GraphView, WritesThousandsWithCommas) {
  EXPECT_EQ(with_commas(0), "0");
  EXPECT_EQ(with_commas(999), "999");
  EXPECT_EQ(with_commas(1000), "1,000");
  EXPECT_EQ(with_commas(1234567), "1,234,567");
}

}  // namespace
}  // namespace prowl
