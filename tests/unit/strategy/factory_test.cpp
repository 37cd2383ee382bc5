#include "prowl/strategy/factory.hpp"

#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/strategy/weighted.hpp"

namespace prowl {
namespace {

TEST(Factory, ListsTheStrategiesInHelpOrder) {
  const std::vector<std::string> expected = {"bfs",      "dfs",      "random",
                                             "coverage", "weighted", "mcts"};
  EXPECT_EQ(strategy_names(), expected);
}

TEST(Factory, MakesEveryListedStrategyUnderItsName) {
  const auto model = examples::make_counters_model(2, 3);
  for (const std::string& name : strategy_names()) {
    auto strategy = make_strategy(name, model, {});
    ASSERT_TRUE(strategy) << name << ": " << strategy.status().message();
    EXPECT_EQ((*strategy)->name(), name);
  }
}

TEST(Factory, RejectsAnUnknownNameListingTheKnownOnes) {
  const auto model = examples::make_counters_model(2, 3);
  auto strategy = make_strategy("astar", model, {});
  ASSERT_FALSE(strategy);
  EXPECT_EQ(strategy.status().code(), StatusCode::kInvalid);
  EXPECT_EQ(strategy.status().message(),
            "unknown strategy 'astar'; choose one of: bfs, dfs, random, coverage, weighted, mcts");
}

TEST(Factory, GivesWeightedTheModelWeightsOverriddenByName) {
  auto model = examples::make_counters_model(2, 3);  // inc_0, reset_0, inc_1, reset_1
  model.actions()[1].weight = 2.5;
  model.actions()[3].weight = 7;
  StrategyParams params;
  params.weights = {{"inc_1", 4.0}, {"reset_1", 0.5}};
  auto strategy = make_strategy("weighted", model, params);
  ASSERT_TRUE(strategy) << strategy.status().message();
  const auto* weighted = dynamic_cast<const Weighted*>(strategy->get());
  ASSERT_NE(weighted, nullptr);
  EXPECT_EQ(weighted->weights(), (std::vector<double>{1.0, 2.5, 4.0, 0.5}));
}

TEST(Factory, RejectsAWeightForAnUnknownActionNamingIt) {
  const auto model = examples::make_counters_model(2, 3);
  StrategyParams params;
  params.weights = {{"inc_0", 2.0}, {"withdraw", 3.0}};
  auto strategy = make_strategy("weighted", model, params);
  ASSERT_FALSE(strategy);
  EXPECT_EQ(strategy.status().code(), StatusCode::kInvalid);
  EXPECT_NE(strategy.status().message().find("unknown action 'withdraw'"), std::string::npos)
      << strategy.status().message();
}

TEST(Factory, RejectsAWeightThatIsNotPositive) {
  const auto model = examples::make_counters_model(2, 3);
  for (double w : {0.0, -1.0}) {
    StrategyParams params;
    params.weights = {{"reset_1", w}};
    auto strategy = make_strategy("weighted", model, params);
    ASSERT_FALSE(strategy) << w;
    EXPECT_EQ(strategy.status().code(), StatusCode::kInvalid);
    EXPECT_NE(strategy.status().message().find("'reset_1'"), std::string::npos)
        << strategy.status().message();
  }
}

TEST(Factory, RejectsANegativeMctsParameter) {
  const auto model = examples::make_counters_model(2, 3);
  StrategyParams params;
  params.violation_reward = -1;
  auto strategy = make_strategy("mcts", model, params);
  ASSERT_FALSE(strategy);
  EXPECT_EQ(strategy.status().code(), StatusCode::kInvalid);
  EXPECT_NE(strategy.status().message().find("violation reward"), std::string::npos)
      << strategy.status().message();
}

// Every strategy, made by name, explores all of counters (K=3, N=4): 4^3 = 64 states and
// 64 * 3 * 6 / 4 = 288 transitions.
class EveryStrategy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryStrategy, ExploresEveryStateAndTransitionOfCounters) {
  const auto model = examples::make_counters_model(3, 4);
  StrategyParams params;
  params.seed = 9;
  auto strategy = make_strategy(GetParam(), model, params);
  ASSERT_TRUE(strategy) << strategy.status().message();
  auto report = explore(model, **strategy);
  ASSERT_TRUE(report) << report.status().message();
  EXPECT_EQ(report->strategy, GetParam());
  EXPECT_EQ(report->termination, Termination::kExhausted);
  EXPECT_EQ(report->stats.states, 64u);
  EXPECT_EQ(report->stats.transitions, 288u);
  EXPECT_EQ(report->stats.steps, 288u);
  EXPECT_TRUE(report->findings.empty());
}

INSTANTIATE_TEST_SUITE_P(Factory, EveryStrategy, ::testing::ValuesIn(strategy_names()),
                         [](const auto& info) { return info.param; });

}  // namespace
}  // namespace prowl
