// Dead reckoning over the memory's labels (label_positions) and the move feature it gives.
#include "prowl/learn/features.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "prowl/core/rng.hpp"

namespace prowl::learn {
namespace {

Memory memory_of(int nodes, const std::vector<std::tuple<int, std::string, int>>& edges) {
  Memory m;
  m.edges.resize(static_cast<std::size_t>(nodes));
  m.visits.assign(static_cast<std::size_t>(nodes), 1);
  m.untried.assign(static_cast<std::size_t>(nodes), 0);
  for (const auto& [from, label, to] : edges) {
    m.edges[static_cast<std::size_t>(from)].push_back({label, to});
  }
  return m;
}

TEST(LabelPositions, PlaceNodesByLabelsAndTheLabelsThatUndidThem) {
  // 0 -up-> 1 -up-> 2, 1 -down-> 0 (so down undoes up), 0 -right-> 3; a blocked left at 3.
  const Memory m =
      memory_of(4, {{0, "up", 1}, {1, "up", 2}, {1, "down", 0}, {0, "right", 3}, {3, "left", -1}});
  const auto p = label_positions(m);
  ASSERT_TRUE(p.has_value());
  ASSERT_EQ(p->labels.size(), 3u);  // up and down share a coordinate; right has its own
  EXPECT_EQ(p->of[0], (std::vector<int>{0, 0}));
  EXPECT_EQ(p->of[1], (std::vector<int>{1, 0}));
  EXPECT_EQ(p->of[2], (std::vector<int>{2, 0}));
  EXPECT_EQ(p->of[3], (std::vector<int>{0, 1}));
  EXPECT_EQ(p->after(2, "down"), (std::vector<int>{1, 0}));  // where 1 is
  EXPECT_EQ(p->after(3, "up"), (std::vector<int>{1, 1}));    // nowhere known
  EXPECT_FALSE(p->after(3, "left").has_value());             // never seen open: no coordinate
}

TEST(LabelPositions, AreEmptyWhenTheMemoryContradictsThem) {
  // A label that undoes itself.
  EXPECT_FALSE(label_positions(memory_of(2, {{0, "flip", 1}, {1, "flip", 0}})).has_value());
  // A move that stays where it is.
  EXPECT_FALSE(label_positions(memory_of(1, {{0, "noop", 0}})).has_value());
  // Two routes to one node: up then right, and right alone.
  EXPECT_FALSE(
      label_positions(memory_of(3, {{0, "up", 1}, {1, "right", 2}, {0, "right", 2}})).has_value());
  // Two nodes at one place: up, down lands on a node other than the start.
  EXPECT_FALSE(
      label_positions(memory_of(3, {{0, "up", 1}, {1, "down", 0}, {1, "down", 2}})).has_value());
  // One label undone by two others of two coordinates.
  EXPECT_FALSE(
      label_positions(
          memory_of(
              3, {{0, "up", 1}, {1, "down", 0}, {0, "right", 2}, {2, "left", 0}, {1, "left", 0}}))
          .has_value());
  // Two labels undone by one: right moves as up does, so 1 and 2 would share a place.
  EXPECT_FALSE(
      label_positions(memory_of(3, {{0, "up", 1}, {1, "down", 0}, {0, "right", 2}, {2, "down", 0}}))
          .has_value());
  // Moves without labels, as an explorer's window of states has them.
  EXPECT_FALSE(label_positions(memory_of(2, {{0, "", 1}})).has_value());
  // And the memory of a grid walk is consistent.
  EXPECT_TRUE(label_positions(memory_of(4, {{0, "up", 1},
                                            {1, "down", 0},
                                            {1, "right", 2},
                                            {2, "left", 1},
                                            {2, "down", 3},
                                            {3, "up", 2}}))
                  .has_value());
}

TEST(LabelPositions, OnAMazeAreTheCellsCoordinatesAndMarkEveryMoveIntoAVisitedCell) {
  // Random walks in bump mode: each memory node's position is its cell's offset from the start
  // (rows along north-south, columns along east-west); an untried move's dead-reckoning feature
  // is 1 exactly when the cell it points at was visited, and a known move's promising distance is
  // the route to the nearest node with an untried move into a cell not known visited.
  auto maze = make_maze6(Mode::kBump);
  int marked = 0;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    maze->reset(seed);
    Rng rng(seed);
    std::vector<int> cell_of{maze->graph_node()};  // by memory node
    while (!maze->done()) {
      maze->step(rng.below(maze->moves().size()));
      if (maze->memory().nodes() > static_cast<int>(cell_of.size())) {
        cell_of.push_back(maze->graph_node());
      }
      const auto p = label_positions(maze->memory());
      ASSERT_TRUE(p.has_value()) << "seed " << seed;
      const auto row = [&](std::size_t v) { return cell_of[v] / 6 - cell_of[0] / 6; };
      const auto col = [&](std::size_t v) { return cell_of[v] % 6 - cell_of[0] % 6; };
      const auto& axes = p->labels;
      std::map<std::string, std::pair<int, int>> axis(axes.begin(), axes.end());
      for (std::size_t v = 0; v < cell_of.size(); ++v) {
        if (axis.count("south")) {
          const int r =
              p->of[v][static_cast<std::size_t>(axis["south"].first)] * axis["south"].second;
          EXPECT_EQ(r, row(v)) << "seed " << seed << ", node " << v;
        }
        if (axis.count("east")) {
          const int c =
              p->of[v][static_cast<std::size_t>(axis["east"].first)] * axis["east"].second;
          EXPECT_EQ(c, col(v)) << "seed " << seed << ", node " << v;
        }
      }
      if (maze->done()) break;
      const Memory& m = maze->memory();
      const auto visited_cell = [&](int cell) {
        return std::find(cell_of.begin(), cell_of.end(), cell) != cell_of.end();
      };
      const auto step = [](int cell, const std::string& label) {
        return cell + (label == "north" ? -6 : label == "south" ? 6 : label == "west" ? -1 : 1);
      };
      // 1 / (1 + the known-route distance from `from` to a node with an untried move whose
      // cell is not known visited), by breadth first over the memory's moves.
      const auto promising_feature = [&](int from) {
        std::vector<int> distance(cell_of.size(), -1);
        std::vector<int> queue{from};
        distance[static_cast<std::size_t>(from)] = 0;
        for (std::size_t at = 0; at < queue.size(); ++at) {
          const std::size_t v = static_cast<std::size_t>(queue[at]);
          for (const std::string& label : m.untried_labels[v]) {
            if (!axis.count(label) || !visited_cell(step(cell_of[v], label))) {
              return 1.0 / (1.0 + distance[v]);
            }
          }
          for (const Memory::Edge& e : m.edges[v]) {
            if (e.to >= 0 && distance[static_cast<std::size_t>(e.to)] < 0) {
              distance[static_cast<std::size_t>(e.to)] = distance[v] + 1;
              queue.push_back(e.to);
            }
          }
        }
        return 0.0;
      };
      const std::vector<Eigen::VectorXd> f = move_features(*maze);
      const int here = maze->graph_node();
      for (std::size_t i = 0; i < f.size(); ++i) {
        const Move& move = maze->moves()[i];
        if (move.target >= 0) {
          EXPECT_EQ(f[i][10], 0);
          EXPECT_DOUBLE_EQ(f[i][11], promising_feature(move.target));
          continue;
        }
        const int dr = move.label == "north" ? -1 : move.label == "south" ? 1 : 0;
        const int dc = move.label == "west" ? -1 : move.label == "east" ? 1 : 0;
        const int target = here + 6 * dr + dc;
        bool visited = false;
        for (int cell : cell_of) visited = visited || cell == target;
        // Known only once the label and its opposite were both taken somewhere.
        const bool knows = axis.count(move.label) > 0;
        EXPECT_EQ(f[i][10], knows && visited ? 1 : 0) << "seed " << seed << ", move " << move.label;
        marked += f[i][10] == 1 ? 1 : 0;
      }
    }
  }
  EXPECT_GT(marked, 0);
}

}  // namespace
}  // namespace prowl::learn
