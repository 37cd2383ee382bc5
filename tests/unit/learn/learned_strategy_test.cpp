#include "prowl/learn/learned_strategy.hpp"

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/learn/features.hpp"
#include "prowl/learn/policy_file.hpp"
#include "prowl/strategy/factory.hpp"
#include "unit/strategy/testkit.hpp"

namespace prowl::learn {
namespace {

// A linear scorer with these weights over the first move features (prowl/learn/features.hpp),
// 0 over the rest.
MovePolicy linear_policy(const std::vector<double>& weights) {
  Layer layer{Eigen::MatrixXd::Zero(1, kMoveFeatures), Eigen::VectorXd::Zero(1)};
  for (std::size_t i = 0; i < weights.size() && i < static_cast<std::size_t>(kMoveFeatures); ++i) {
    layer.weights(0, static_cast<Eigen::Index>(i)) = weights[i];
  }
  return MovePolicy(Mlp({layer}, Activation::kTanh), 1, 0.05);
}

RunReport run(const Model& model, Strategy& strategy, std::uint64_t max_steps = 0) {
  Options options;
  options.max_steps = max_steps;
  auto report = explore(model, strategy, options);
  EXPECT_TRUE(report) << report.status().message();
  return report ? *report : RunReport{};
}

// Counters with K = 3, N = 4: 4^3 = 64 states and 64 · 3 · 6 / 4 = 288 transitions.
TEST(LearnedStrategy, ExploresEveryStateAndTransitionInBothModes) {
  const auto model = examples::make_counters_model(3, 4);
  for (bool walk : {false, true}) {
    LearnedStrategy strategy(linear_policy({0, 1, 0, -0.5, 0.5, 0.5, 0.2, 0, 0, 0}),
                             LearnedOptions{.walk = walk, .seed = 7});
    const RunReport report = run(model, strategy);
    EXPECT_EQ(report.termination, Termination::kExhausted) << "walk " << walk;
    EXPECT_EQ(report.stats.states, 64u) << "walk " << walk;
    EXPECT_EQ(report.stats.transitions, 288u) << "walk " << walk;
  }
}

TEST(LearnedStrategy, ExploresEverythingWithAGraphPolicyWithAndWithoutHistoryToo) {
  const auto model = examples::make_counters_model(2, 4);  // 16 states, 48 transitions
  for (bool history : {false, true}) {
    const GraphPolicy policy({6, 2, 5, 8, GraphPolicy::Summary::kGraph, history, 4}, 3, 0.01);
    for (bool walk : {false, true}) {
      const auto picks = [&] {
        LearnedStrategy strategy(policy, LearnedOptions{.walk = walk, .seed = 2});
        testkit::Recording recorder(strategy);
        const RunReport report = run(model, recorder);
        EXPECT_EQ(report.termination, Termination::kExhausted) << walk << history;
        EXPECT_EQ(report.stats.states, 16u) << "walk " << walk << ", history " << history;
        EXPECT_EQ(report.stats.transitions, 48u) << "walk " << walk << ", history " << history;
        return recorder.picks;
      };
      EXPECT_EQ(picks(), picks()) << "walk " << walk << ", history " << history;
    }
  }
}

TEST(LearnedStrategy, RecordsResultsThatComeInAnyOrderAndMovesWithTheLatestPick) {
  // With several workers two picks are under way at once. Both results count; the agent stands
  // where the latest pick led, whichever result arrives last.
  Graph graph(2);
  LearnedStrategy strategy(linear_policy({0, 0, 0, 0, 0, 0, 0, 0, 0, 0}),
                           LearnedOptions{.seed = 1});
  testkit::add_state(graph, strategy, 0, kNoState, kNoAction, {0, 1});
  const std::optional<Pair> first = testkit::pick_and_mark(graph, strategy);
  const std::optional<Pair> second = testkit::pick_and_mark(graph, strategy);
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->state, 0u);
  EXPECT_EQ(second->state, 0u);
  EXPECT_NE(first->action, second->action);
  const StateId a = testkit::add_state(graph, strategy, 1, 0, first->action, {});
  const StateId b = testkit::add_state(graph, strategy, 2, 0, second->action, {});
  strategy.observe(graph, {*second, b, true, false});
  EXPECT_EQ(strategy.current(), b);
  strategy.observe(graph, {*first, a, true, false});
  EXPECT_EQ(strategy.current(), b);  // the earlier pick's result does not move the agent
  strategy.observe(graph, {*first, a, true, false});  // a result it no longer waits for
  EXPECT_EQ(strategy.current(), b);
  EXPECT_FALSE(strategy.pick(graph).has_value());  // nothing left
}

TEST(LearnedStrategy, AWalkThatNeverPicksAnUnexploredPairIsCutAndStillFinishes) {
  // Unknown targets score -20: the walk keeps moving along known pairs and back until
  // walk_moves runs out, then takes the newest open state's pair.
  const auto model = examples::make_counters_model(2, 3);
  LearnedStrategy strategy(linear_policy({0, -20, 0, 0, 0, 0, 0, 0, 0, 0}),
                           LearnedOptions{.walk = true, .walk_moves = 5, .seed = 1});
  const RunReport report = run(model, strategy);
  EXPECT_EQ(report.termination, Termination::kExhausted);
  EXPECT_EQ(report.stats.states, 9u);
  EXPECT_GT(strategy.fallback_picks(), 0u);
}

TEST(LearnedStrategy, TheSameSeedGivesTheSamePicks) {
  const auto model = examples::make_counters_model(3, 4);
  const auto picks = [&](std::uint64_t seed, bool walk) {
    LearnedStrategy strategy(linear_policy({0, 1, 0, -0.5, 0.5, 0.5, 0.2, 0, 0, 0}),
                             LearnedOptions{.walk = walk, .seed = seed});
    testkit::Recording recorder(strategy);
    run(model, recorder, 100);
    return recorder.picks;
  };
  for (bool walk : {false, true}) {
    EXPECT_EQ(picks(3, walk).size(), 100u);
    EXPECT_EQ(picks(3, walk), picks(3, walk));
    EXPECT_NE(picks(3, walk), picks(4, walk));
  }
}

TEST(LearnedStrategy, JumpFollowsTheScores) {
  // A pair's score is 40 when its action was never tried (feature 9; a softmax all but certain).
  // On one counter in 0..5 the first pick is inc at 0 (the only pair), reaching 1; then reset (at
  // 1) is the one action never tried among every candidate's pairs.
  const auto model = examples::make_counters_model(1, 6);
  LearnedStrategy strategy(linear_policy({0, 0, 0, 0, 0, 0, 0, 0, 0, 40}),
                           LearnedOptions{.seed = 1});
  testkit::Recording recorder(strategy);
  const RunReport report = run(model, recorder);
  EXPECT_EQ(report.stats.states, 6u);
  ASSERT_EQ(recorder.picks.size(), 10u);
  EXPECT_EQ(recorder.picks[0], (Pair{0, 0}));
  EXPECT_EQ(recorder.picks[1], (Pair{1, 1}));
}

TEST(LearnedStrategy, JumpDoesNotPreferAStateForItsNumberOfUnexploredPairs) {
  // Training never compares the moves of two states, so a weight on the state's unexplored pairs
  // (feature 6) says nothing of which state's pairs to take: jump scores every candidate as a
  // state of one, and picks as a policy without that weight does, pick for pick.
  const auto model = examples::make_counters_model(3, 4);
  const auto picks = [&](double weight) {
    LearnedStrategy strategy(linear_policy({0, 0, 0, 0, 0, 0, weight, 0, 0.5, 0.3}),
                             LearnedOptions{.seed = 5});
    testkit::Recording recorder(strategy);
    run(model, recorder, 150);
    return recorder.picks;
  };
  const std::vector<Pair> flat = picks(0);
  EXPECT_EQ(flat.size(), 150u);
  EXPECT_EQ(picks(40), flat);
  EXPECT_EQ(picks(-40), flat);
}

std::string write_policy_for(const std::string& env) {
  const std::string path = ::testing::TempDir() + "learned_" + env + std::to_string(::getpid());
  PolicyFile file{{{"kind", "move-policy"},
                   {"features", std::string(kMoveFeatureSet)},
                   {"env", env},
                   {"mode", "vision"}},
                  Mlp(std::vector<int>{kMoveFeatures, 1}, Activation::kTanh, 1)};
  if (env == "model") file.header.emplace_back("budget", "50");
  EXPECT_TRUE(write_policy_file(path, file));
  return path;
}

std::string error_of(const std::string& spec) {
  register_learned_strategy();
  const auto model = examples::make_counters_model(2, 2);
  auto made = make_strategy(spec, model, 1);
  return made ? "" : made.status().message();
}

TEST(LearnedStrategy, RegistersOnceAfterTheBuiltInStrategies) {
  register_learned_strategy();
  register_learned_strategy();
  EXPECT_EQ(std::count(strategy_names().begin(), strategy_names().end(), "learned"), 1);
  EXPECT_EQ(strategy_names().back(), "learned");
  ASSERT_NE(find_strategy("learned"), nullptr);
  EXPECT_EQ(find_strategy("learned")->options.size(), 4u);
}

TEST(LearnedStrategy, TheFactoryMakesItFromAPolicyFileAndNamesWhatIsWrong) {
  const std::string er = write_policy_for("er-app");
  const std::string maze = write_policy_for("maze6");
  EXPECT_EQ(error_of("learned:policy=" + er + ",walk=true,budget=50,window=16"), "");
  EXPECT_EQ(error_of("learned"),
            "strategy 'learned' needs a policy file: --strategy learned --policy FILE (prowl "
            "train writes one; docs/learned.md)");
  EXPECT_EQ(error_of("learned:policy=" + maze),
            maze +
                ": the policy was trained for maze6 features (moves by direction, no back); a "
                "model's moves are its actions and back: train one with prowl train --env er-app");
  EXPECT_EQ(error_of("learned:policy=" + er + ",walk=maybe"),
            "strategy 'learned': option walk must be true or false, not 'maybe'");
  EXPECT_EQ(error_of("learned:policy=" + er + ",window=1"),
            "strategy 'learned': option window must be a whole number >= 2, not '1'");
  EXPECT_EQ(error_of("learned:policy=" + er + ",depth=3"),
            "strategy 'learned' has no option 'depth'; its options are: policy, walk, budget, "
            "window");
  std::remove(er.c_str());
  std::remove(maze.c_str());
}

TEST(LearnedStrategy, CountsItsBudgetAsThePolicyWasTrainedUnlessToldOtherwise) {
  register_learned_strategy();
  const std::string trained = write_policy_for("model");  // budget=50
  const std::string er = write_policy_for("er-app");      // no budget=
  const auto model = examples::make_counters_model(2, 2);
  const auto budget = [&](const std::string& spec) {
    auto made = make_strategy(spec, model, 1);
    EXPECT_TRUE(made) << made.status().message();
    const auto* learned = made ? dynamic_cast<const LearnedStrategy*>(made->get()) : nullptr;
    return learned ? learned->options().budget : -1;
  };
  EXPECT_EQ(budget("learned:policy=" + trained), 50);
  EXPECT_EQ(budget("learned:policy=" + trained + ",budget=7"), 7);
  EXPECT_EQ(budget("learned:policy=" + er), 2000);
  std::remove(trained.c_str());
  std::remove(er.c_str());
}

}  // namespace
}  // namespace prowl::learn
