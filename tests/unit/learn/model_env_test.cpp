#include "prowl/learn/model_env.hpp"

#include <memory>

#include <gtest/gtest.h>

#include "counters/counters.hpp"

namespace prowl::learn {
namespace {

// Counters with K = 2, N = 3: 9 states, 9 · 2 · 4 / 3 = 24 transitions.
TEST(ModelEnv, ExploresTheModelsGraphWithItsActionNames) {
  auto graph = explore_model_graph(examples::make_counters_model(2, 3), 0);
  ASSERT_TRUE(graph) << graph.status().message();
  EXPECT_EQ(graph->model, "counters");
  EXPECT_TRUE(graph->exhausted);
  ASSERT_EQ(graph->out.size(), 9u);
  std::size_t edges = 0;
  for (const auto& out : graph->out) edges += out.size();
  EXPECT_EQ(edges, 24u);
  ASSERT_EQ(graph->out[0].size(), 2u);  // inc_0 and inc_1 from (0, 0)
  EXPECT_EQ(graph->out[0][0].label, "inc_0");
  EXPECT_EQ(graph->out[0][1].label, "inc_1");
}

TEST(ModelEnv, BoundsTheExploration) {
  auto graph = explore_model_graph(examples::make_counters_model(3, 4), 10);
  ASSERT_TRUE(graph) << graph.status().message();
  EXPECT_FALSE(graph->exhausted);
  EXPECT_LT(graph->out.size(), 64u);
  EXPECT_GT(graph->out.size(), 1u);
}

TEST(ModelEnv, OffersTheEnabledPairsAndBackAndRewardsNewStates) {
  auto graph = explore_model_graph(examples::make_counters_model(2, 3), 0);
  ASSERT_TRUE(graph) << graph.status().message();
  auto env = make_model_env({std::make_shared<const ModelGraph>(std::move(*graph))}, 4);
  EXPECT_EQ(env->name(), "model");
  EXPECT_DOUBLE_EQ(env->reset(7), 1.0 / 9);
  ASSERT_EQ(env->moves().size(), 2u);  // no back at the start
  double total = 1.0 / 9;
  total += env->step(0);               // inc_0: (1, 0)
  ASSERT_EQ(env->moves().size(), 4u);  // inc_0, reset_0, inc_1, back
  EXPECT_EQ(env->moves()[1].label, "reset_0");
  EXPECT_TRUE(env->moves()[3].back);
  total += env->step(3);  // back to (0, 0): nothing new
  EXPECT_EQ(env->covered(), 2);
  total += env->step(1);     // inc_1: (0, 1)
  total += env->step(0);     // inc_0: (1, 1)
  EXPECT_TRUE(env->done());  // the budget of 4
  EXPECT_EQ(env->covered(), 4);
  EXPECT_DOUBLE_EQ(total, env->coverage());
}

}  // namespace
}  // namespace prowl::learn
