#include "prowl/learn/env.hpp"

#include <gtest/gtest.h>

#include <deque>
#include <set>

#include "prowl/core/rng.hpp"
#include "prowl/learn/baselines.hpp"
#include "tree_env.hpp"

namespace prowl::learn {
namespace {

// The nodes reachable from `start` over the graph's open edges.
int reachable(const Env& env, int start) {
  std::vector<char> seen(static_cast<std::size_t>(env.graph_nodes()), 0);
  std::deque<int> queue{start};
  seen[static_cast<std::size_t>(start)] = 1;
  int count = 0;
  while (!queue.empty()) {
    const int v = queue.front();
    queue.pop_front();
    ++count;
    for (const auto& e : env.graph()[static_cast<std::size_t>(v)]) {
      if (e.to >= 0 && !seen[static_cast<std::size_t>(e.to)]) {
        seen[static_cast<std::size_t>(e.to)] = 1;
        queue.push_back(e.to);
      }
    }
  }
  return count;
}

TEST(Maze6, IsAPerfectMazeOfThirtySixCellsDrawnFromTheSeed) {
  auto maze = make_maze6(Mode::kVision);
  std::set<std::vector<int>> shapes;
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    EXPECT_DOUBLE_EQ(maze->reset(seed), 1.0 / 36);
    ASSERT_EQ(maze->graph_nodes(), 36);
    int open = 0, walls = 0;
    std::vector<int> shape;
    for (int v = 0; v < 36; ++v) {
      for (const auto& e : maze->graph()[static_cast<std::size_t>(v)]) {
        open += e.to >= 0 ? 1 : 0;
        walls += e.to < 0 ? 1 : 0;
        shape.push_back(e.to);
        if (e.to >= 0) {  // undirected: the reverse edge leads back
          ASSERT_GE(e.reverse, 0);
          EXPECT_EQ(
              maze->graph()[static_cast<std::size_t>(e.to)][static_cast<std::size_t>(e.reverse)].to,
              v);
        }
      }
    }
    // A spanning tree of the 6×6 grid: 35 passages (70 directed edges) of its 60 inner ones.
    EXPECT_EQ(open, 70);
    EXPECT_EQ(walls, 2 * 60 - 70);
    EXPECT_EQ(reachable(*maze, 0), 36);
    shapes.insert(shape);
  }
  EXPECT_EQ(shapes.size(), 20u);  // every seed its own maze
  auto again = make_maze6(Mode::kVision);
  maze->reset(7);
  again->reset(7);
  for (int v = 0; v < 36; ++v) {
    ASSERT_EQ(maze->graph()[static_cast<std::size_t>(v)].size(),
              again->graph()[static_cast<std::size_t>(v)].size());
    for (std::size_t i = 0; i < maze->graph()[static_cast<std::size_t>(v)].size(); ++i) {
      EXPECT_EQ(maze->graph()[static_cast<std::size_t>(v)][i].to,
                again->graph()[static_cast<std::size_t>(v)][i].to);
    }
  }
  EXPECT_EQ(maze->memory().current, 0);
  EXPECT_EQ(maze->budget(), 36);
}

TEST(Maze6, VisionOffersTheOpenMovesAndTheMemoryLearnsBothWaysOfAPassage) {
  auto maze = make_maze6(Mode::kVision);
  maze->reset(3);
  const auto& moves = maze->moves();
  ASSERT_FALSE(moves.empty());
  for (const Move& m : moves) EXPECT_EQ(m.target, -1);  // nothing tried yet
  EXPECT_EQ(maze->memory().last_label, "");
  const std::string label = moves[0].label;
  const double r = maze->step(0);
  EXPECT_EQ(maze->memory().last_label, label);
  EXPECT_DOUBLE_EQ(r, 1.0 / 36);
  EXPECT_EQ(maze->steps(), 1);
  EXPECT_EQ(maze->memory().nodes(), 2);
  EXPECT_EQ(maze->memory().current, 1);
  // The way back is known: it leads to memory node 0, and stepping it covers nothing.
  const std::string opposite = label == "north"   ? "south"
                               : label == "south" ? "north"
                               : label == "east"  ? "west"
                                                  : "east";
  std::size_t back = maze->moves().size();
  for (std::size_t i = 0; i < maze->moves().size(); ++i) {
    if (maze->moves()[i].label == opposite) back = i;
  }
  ASSERT_LT(back, maze->moves().size());
  EXPECT_EQ(maze->moves()[back].target, 0);
  EXPECT_EQ(maze->step(back), 0);
  EXPECT_EQ(maze->memory().last_label, opposite);
  EXPECT_EQ(maze->memory().current, 0);
  EXPECT_EQ(maze->memory().visits[0], 2);
  ASSERT_EQ(maze->memory().edges[0].size(), 1u);
  EXPECT_EQ(maze->memory().edges[0][0].label, label);
  EXPECT_EQ(maze->memory().edges[0][0].to, 1);
}

TEST(Maze6, BumpOffersWallsThatCostAStepAndAreThenKnown) {
  auto maze = make_maze6(Mode::kBump);
  // A start with a wall beside it; in bump mode every inner direction is offered, in order.
  std::size_t wall = 0;
  for (std::uint64_t seed = 1;; ++seed) {
    maze->reset(seed);
    const auto& edges = maze->graph()[static_cast<std::size_t>(maze->graph_node())];
    ASSERT_EQ(maze->moves().size(), edges.size());
    wall = edges.size();
    for (std::size_t i = 0; i < edges.size(); ++i) {
      if (edges[i].to < 0) wall = i;
    }
    if (wall < edges.size()) break;
  }
  const std::size_t offered = maze->moves().size();
  const int at = maze->graph_node();
  EXPECT_EQ(maze->step(wall), 0);
  EXPECT_EQ(maze->steps(), 1);
  EXPECT_EQ(maze->graph_node(), at);  // bumped: still there
  EXPECT_EQ(maze->memory().last_label, maze->graph()[static_cast<std::size_t>(at)][wall].label);
  EXPECT_EQ(maze->moves().size(), offered - 1);  // and the wall is not offered again
  ASSERT_EQ(maze->memory().edges[0].size(), 1u);
  EXPECT_EQ(maze->memory().edges[0][0].to, -1);
  // Vision never offers it.
  auto seeing = make_maze6(Mode::kVision);
  seeing->reset(1);
  for (const Move& m : seeing->moves()) {
    bool open = false;
    for (const auto& e : seeing->graph()[static_cast<std::size_t>(seeing->graph_node())]) {
      open = open || (e.label == m.label && e.to >= 0);
    }
    EXPECT_TRUE(open) << m.label;
  }
}

TEST(ErApp, EveryScreenIsReachableFromTheStartAndBackReturnsToTheParent) {
  auto app = make_er_app();
  for (std::uint64_t seed = 1; seed <= 50; ++seed) {
    app->reset(seed);
    EXPECT_GE(app->graph_nodes(), 15);
    EXPECT_LE(app->graph_nodes(), 20);
    EXPECT_EQ(reachable(*app, app->graph_node()), app->graph_nodes());
  }
  app->reset(2);
  EXPECT_EQ(app->budget(), 15);
  for (const Move& m : app->moves()) EXPECT_FALSE(m.back);  // nowhere to go back to yet
  const int start = app->graph_node();
  app->step(0);
  const Move& back = app->moves().back();
  ASSERT_TRUE(back.back);
  EXPECT_EQ(back.label, "back");
  EXPECT_EQ(back.target, 0);
  app->step(app->moves().size() - 1);
  EXPECT_EQ(app->graph_node(), start);
  EXPECT_EQ(app->steps(), 2);
  EXPECT_EQ(make_env("er-app", Mode::kBump).status().message(),
            "er-app has no walls to bump into: its mode is vision");
  EXPECT_EQ(make_env("maze9", Mode::kVision).status().message(),
            "unknown environment 'maze9' (the environments: maze6, er-app)");
}

TEST(Env, TheRewardsOfAnEpisodeSumToItsCoverage) {
  for (const auto& [name, mode] :
       {std::pair{"maze6", Mode::kVision}, std::pair{"maze6", Mode::kBump},
        std::pair{"er-app", Mode::kVision}}) {
    for (std::uint64_t seed = 1; seed <= 20; ++seed) {
      std::unique_ptr<Env> env = make_env(name, mode).value();
      double sum = env->reset(seed);
      Rng rng(seed);
      while (!env->done()) sum += env->step(rng.below(env->moves().size()));
      EXPECT_DOUBLE_EQ(sum, env->coverage()) << name << " seed " << seed;
      EXPECT_EQ(env->coverage(), static_cast<double>(env->memory().nodes()) / env->graph_nodes());
      EXPECT_TRUE(env->moves().empty());
    }
  }
}

TEST(Baselines, RandDfsAndGreedyWalkAChainToItsEndInFourSteps) {
  Tree chain({{0, 1}, {1, 2}, {2, 3}, {3, 4}}, 4);
  chain.reset(1);
  EXPECT_EQ(run_randdfs(chain, 1), 1.0);
  EXPECT_EQ(chain.steps(), 4);
  chain.reset(1);
  EXPECT_EQ(run_greedy(chain, 1), 1.0);
  EXPECT_EQ(chain.steps(), 4);
}

TEST(Baselines, RandDfsAndGreedyBacktrackOneStepAtATime) {
  // 0 - 1 and 0 - 2 - 3: going to 1 first covers all in 4 steps (1, back to 0, 2, 3); going to 2
  // first in 5 (2, 3, back to 2, back to 0, 1). Random picks at 0 decide which.
  Tree tree({{0, 1}, {0, 2}, {2, 3}}, 10);
  std::set<int> seen_steps;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    for (auto run : {run_randdfs, run_greedy}) {
      tree.reset(seed);
      EXPECT_EQ(run(tree, seed), 1.0);
      const bool one_first = tree.memory().edges[0][0].label == "to 1";
      EXPECT_EQ(tree.steps(), one_first ? 4 : 5) << "seed " << seed;
      seen_steps.insert(tree.steps());
      // The same seed gives the same walk.
      const int steps = tree.steps();
      tree.reset(seed);
      run(tree, seed);
      EXPECT_EQ(tree.steps(), steps);
    }
  }
  EXPECT_EQ(seen_steps, (std::set<int>{4, 5}));
}

TEST(Baselines, TabularQTrainedOnTheGraphFindsTheRouteThatCoversItInTheBudget) {
  // With T = 4 only "to 1, back to 0, to 2, to 3" covers the tree; a random first move to 2 does
  // not (it needs 5). Tabular Q on the whole state learns the route on this very graph.
  Tree tree({{0, 1}, {0, 2}, {2, 3}}, 4);
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    tree.reset(7);
    EXPECT_EQ(run_qtable(tree, seed, {QState::kHistory, 200}), 1.0) << "seed " << seed;
    EXPECT_EQ(tree.graph_seed(), 7u);
    EXPECT_EQ(tree.memory().edges[0][0].label, "to 1");
    EXPECT_EQ(tree.steps(), 4);
  }
}

TEST(Baselines, TabularQOnNodeIdsCannotLearnARouteThatLeavesANodeTwiceAnotherWay) {
  // The paper's baseline: one greedy choice per node. From 0 it takes "to 1" every time (1, 0, 1,
  // 0: 2 of 4 nodes) or "to 2" (2, 3, then back toward 0: 3 of 4); the best run it reaches is
  // the second, and the env ends in it.
  Tree tree({{0, 1}, {0, 2}, {2, 3}}, 4);
  const auto walk = [&] {
    std::vector<std::string> out;
    for (const auto& edges : tree.memory().edges) {
      for (const Memory::Edge& e : edges) out.push_back(e.label + ">" + std::to_string(e.to));
    }
    return out;
  };
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    tree.reset(7);
    EXPECT_EQ(run_qtable(tree, seed, {QState::kNode, 200}), 0.75) << "seed " << seed;
    EXPECT_EQ(tree.coverage(), 0.75);
    EXPECT_EQ(tree.steps(), 4);
    EXPECT_EQ(tree.memory().edges[0][0].label, "to 2");
    // The same seed reaches the same run, move for move.
    const std::vector<std::string> first = walk();
    tree.reset(7);
    EXPECT_EQ(run_qtable(tree, seed, {QState::kNode, 200}), 0.75);
    EXPECT_EQ(walk(), first);
  }
}

TEST(Baselines, SpendTheWholeBudgetOnErApp) {
  // A dead-end screen offers only back, and a screen reached again by a new action is not on the
  // depth-first path: neither may make a policy stop early.
  auto app = make_er_app();
  for (std::uint64_t seed = 1; seed <= 100; ++seed) {
    for (auto run : {run_random, run_randdfs, run_greedy}) {
      app->reset(seed);
      run(*app, seed);
      EXPECT_TRUE(app->done()) << "seed " << seed;
    }
  }
}

// A small directed graph with back moves: node v has arcs to (v + 1) % n and (v · 3 + 1) % n.
class SmallApp : public Env {
 public:
  SmallApp(int nodes, int budget) : Env(Mode::kVision, budget, true), nodes_(nodes) {}
  std::string name() const override { return "small-app"; }
  std::unique_ptr<Env> fresh() const override {
    return std::make_unique<SmallApp>(nodes_, budget());
  }

 private:
  int draw(std::uint64_t, std::vector<std::vector<GraphEdge>>& out) override {
    out.assign(static_cast<std::size_t>(nodes_), {});
    for (int v = 0; v < nodes_; ++v) {
      out[static_cast<std::size_t>(v)].push_back({"a", (v + 1) % nodes_, -1});
      if ((v * 3 + 1) % nodes_ != (v + 1) % nodes_) {
        out[static_cast<std::size_t>(v)].push_back({"b", (v * 3 + 1) % nodes_, -1});
      }
    }
    return 0;
  }
  int nodes_;
};

// The most any sequence of moves covers, by trying every sequence (replayed from reset).
double brute_force(Env& env, std::vector<std::size_t>& moves) {
  env.reset(1);
  for (std::size_t m : moves) env.step(m);
  double best = env.coverage();
  if (env.done()) return best;
  const std::size_t offered = env.moves().size();
  for (std::size_t m = 0; m < offered; ++m) {
    moves.push_back(m);
    best = std::max(best, brute_force(env, moves));
    moves.pop_back();
  }
  return best;
}

TEST(Optimum, EqualsTryingEveryWalk) {
  for (const auto& [nodes, budget] : {std::pair{7, 5}, std::pair{9, 6}, std::pair{12, 7}}) {
    SmallApp app(nodes, budget);
    std::vector<std::size_t> moves;
    const double expected = brute_force(app, moves);
    app.reset(1);
    EXPECT_EQ(optimal_coverage(app), expected) << nodes << " nodes, budget " << budget;
  }
}

TEST(Optimum, IsTheMostAWalkCanCoverInTheBudget) {
  // 0 - 1 and 0 - 2 - 3: 3 steps cover 3 nodes either way, 4 steps cover all (1 first).
  Tree short_walk({{0, 1}, {0, 2}, {2, 3}}, 3);
  short_walk.reset(1);
  EXPECT_EQ(optimal_coverage(short_walk), 0.75);
  Tree long_walk({{0, 1}, {0, 2}, {2, 3}}, 4);
  long_walk.reset(1);
  EXPECT_EQ(optimal_coverage(long_walk), 1.0);
  // On er-app graphs no policy beats it, and it is reached within the budget's bound.
  auto app = make_er_app();
  for (std::uint64_t seed = 1; seed <= 20; ++seed) {
    app->reset(seed);
    const double best = optimal_coverage(*app);
    EXPECT_LE(best, std::min(1.0, 16.0 / app->graph_nodes()));
    for (auto run : {run_random, run_randdfs, run_greedy}) {
      app->reset(seed);
      EXPECT_LE(run(*app, seed), best) << "seed " << seed;
    }
    for (const QState state : {QState::kNode, QState::kHistory}) {
      app->reset(seed);
      EXPECT_LE(run_qtable(*app, seed, {state, 500}), best) << "seed " << seed;
    }
  }
}

}  // namespace
}  // namespace prowl::learn
