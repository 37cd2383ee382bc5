#include "prowl/learn/train_run.hpp"

#include <unistd.h>
#include <cstdio>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "prowl/learn/a2c.hpp"
#include "prowl/learn/env.hpp"
#include "unit/learn/tree_env.hpp"

namespace prowl::learn {
namespace {

// The lines run_training prints between its first line and "policy written".
std::vector<std::string> curve_lines(Env& env, TrainRun run) {
  run.program = "t";
  run.title = "tree";
  run.output = ::testing::TempDir() + "train_run_" + std::to_string(::getpid()) + ".policy";
  std::ostringstream out, err;
  EXPECT_EQ(run_training(env, run, out, err), 0) << err.str();
  std::remove(run.output.c_str());
  std::vector<std::string> lines;
  std::istringstream in(out.str());
  std::string line;
  std::getline(in, line);  // the title
  while (std::getline(in, line) && line.rfind("policy written", 0) != 0) lines.push_back(line);
  return lines;
}

// The mean coverage of curve points [from, to) as run_training prints it.
std::string mean(const std::vector<CurvePoint>& curve, std::size_t from, std::size_t to) {
  double sum = 0;
  for (std::size_t i = from; i < to; ++i) sum += curve[i].coverage;
  return fmt::format("{:.4f}", sum / static_cast<double>(to - from));
}

const std::vector<std::pair<int, int>> kTree{{0, 1}, {0, 2}, {1, 3}, {1, 4}, {2, 5}, {2, 6}};

TEST(RunTraining, EachCurveLineIsTheMeanCoverageSinceTheLastOne) {
  Tree env(kTree, 6);
  TrainRun run;
  run.episodes = 40 * 16;  // 40 updates: a line every 2
  run.seed = 3;
  const std::vector<std::string> lines = curve_lines(env, run);
  MovePolicy alone({}, 3, 0.05);
  A2cOptions options;
  options.seed = 3;
  options.updates = 40;
  Tree again(kTree, 6);
  const std::vector<CurvePoint> curve = train_a2c(again, alone, options);
  ASSERT_EQ(lines.size(), 20u);
  for (std::size_t k = 0; k < 20; ++k) {
    EXPECT_EQ(lines[k], fmt::format("  update {:>5}  episodes {:>7}  coverage {}", 2 * (k + 1),
                                    32 * (k + 1), mean(curve, 2 * k, 2 * k + 2)))
        << "line " << k;
  }
}

TEST(RunTraining, AGraphPolicysLinearStartLineIsTheMeanOfItsLastTwentieth) {
  Tree env(kTree, 6);
  TrainRun run;
  run.episodes = 2 * 16;
  run.linear_episodes = 40 * 16;  // its last twentieth: updates 39 and 40
  run.seed = 2;
  run.graph = true;
  const std::vector<std::string> lines = curve_lines(env, run);
  Tree again(kTree, 6);
  GraphPolicy graph({.summary = GraphPolicy::Summary::kGraph}, 2, 0.01);
  A2cOptions options;
  options.seed = 2;
  options.updates = 2;
  const GraphCurves curves = train_graph_policy(again, graph, options, 40);
  ASSERT_EQ(lines.size(), 3u);
  EXPECT_EQ(lines[0], "  linear start  coverage " + mean(curves.linear, 38, 40));
  EXPECT_EQ(lines[1], "  update     1  episodes      16  coverage " + mean(curves.graph, 0, 1));
  EXPECT_EQ(lines[2], "  update     2  episodes      32  coverage " + mean(curves.graph, 1, 2));
}

}  // namespace
}  // namespace prowl::learn
