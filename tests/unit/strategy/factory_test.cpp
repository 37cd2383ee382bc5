#include "prowl/strategy/factory.hpp"

#include <cctype>
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "counters/counters.hpp"
#include "prowl/explore/explorer.hpp"
#include "prowl/learn/learned_strategy.hpp"
#include "prowl/strategy/mcts.hpp"
#include "prowl/strategy/weighted.hpp"
#include "unit/strategy/testkit.hpp"

namespace prowl {
namespace {

// The message of the invalid Status that making `spec` for counters (K=2, N=3) gives.
std::string refusal(std::string_view spec, const std::map<std::string, double>& weights = {}) {
  const auto model = examples::make_counters_model(2, 3);  // inc_0, reset_0, inc_1, reset_1
  auto strategy = make_strategy(spec, model, /*seed=*/0, weights);
  if (strategy) return "made " + std::string(spec);
  EXPECT_EQ(strategy.status().code(), StatusCode::kInvalid);
  return strategy.status().message();
}

std::vector<double> weights_of(std::string_view spec,
                               const std::map<std::string, double>& weights = {}) {
  auto model = examples::make_counters_model(2, 3);
  model.actions()[1].weight = 2.5;
  model.actions()[3].weight = 7;
  auto strategy = make_strategy(spec, model, /*seed=*/0, weights);
  EXPECT_TRUE(strategy) << strategy.status().message();
  if (!strategy) return {};
  const auto* weighted = dynamic_cast<const Weighted*>(strategy->get());
  EXPECT_NE(weighted, nullptr);
  return weighted == nullptr ? std::vector<double>{} : weighted->weights();
}

// The built-in strategies; prowl::learn's, registered after them, needs a policy file and is
// tested in unit/learn/learned_strategy_test.cpp.
bool built_in(std::string_view name) { return name != "learned"; }

TEST(Factory, ListsTheStrategiesInHelpOrder) {
  learn::register_learned_strategy();
  const std::vector<std::string> expected = {"bfs",      "dfs",  "random", "coverage",
                                             "weighted", "mcts", "learned"};
  EXPECT_EQ(strategy_names(), expected);
  ASSERT_EQ(strategy_registry().size(), expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    EXPECT_EQ(strategy_registry()[i].name, expected[i]);
    EXPECT_FALSE(strategy_registry()[i].description.empty()) << expected[i];
    EXPECT_EQ(find_strategy(expected[i]), &strategy_registry()[i]);
  }
  EXPECT_EQ(find_strategy("astar"), nullptr);
}

TEST(Factory, MakesEveryListedStrategyUnderItsName) {
  const auto model = examples::make_counters_model(2, 3);
  for (const std::string& name : strategy_names()) {
    if (!built_in(name)) continue;
    auto strategy = make_strategy(name, model, /*seed=*/0);
    ASSERT_TRUE(strategy) << name << ": " << strategy.status().message();
    EXPECT_EQ((*strategy)->name(), name);
  }
}

// A documented key in capitals (weighted's ACTION) stands for names the model gives.
TEST(Factory, AcceptsEveryOptionTheRegistryDocuments) {
  const auto model = examples::make_counters_model(2, 3);
  for (const StrategyEntry& entry : strategy_registry()) {
    if (!built_in(entry.name)) continue;
    for (const StrategyOptionDoc& doc : entry.options) {
      EXPECT_FALSE(doc.default_value.empty()) << entry.name << ":" << doc.key;
      EXPECT_FALSE(doc.meaning.empty()) << entry.name << ":" << doc.key;
      if (std::isupper(static_cast<unsigned char>(doc.key[0]))) continue;
      const std::string spec = fmt::format("{}:{}=1", entry.name, doc.key);
      auto strategy = make_strategy(spec, model, /*seed=*/0);
      EXPECT_TRUE(strategy) << spec << ": " << strategy.status().message();
    }
  }
}

TEST(Factory, SplitsASpecIntoItsNameAndItsOptionsInTheOrderWritten) {
  auto spec = parse_strategy_spec("mcts:violation_reward=5,c=1.4");
  ASSERT_TRUE(spec) << spec.status().message();
  EXPECT_EQ(spec->name, "mcts");
  EXPECT_EQ(spec->options, (std::vector<StrategyOption>{{"violation_reward", "5"}, {"c", "1.4"}}));
  auto bare = parse_strategy_spec("bfs");
  ASSERT_TRUE(bare) << bare.status().message();
  EXPECT_EQ(bare->name, "bfs");
  EXPECT_TRUE(bare->options.empty());
}

// A value may hold '=' (a file name, one day): the key ends at the first one.
TEST(Factory, EndsAKeyAtItsFirstEqualsSign) {
  auto spec = parse_strategy_spec("weighted:inc_0=a=b");
  ASSERT_TRUE(spec) << spec.status().message();
  EXPECT_EQ(spec->options, (std::vector<StrategyOption>{{"inc_0", "a=b"}}));
}

// An action with parameters is one key: its commas and '=' are inside parentheses or quotes.
TEST(Factory, NamesAnActionWithParametersAsOneKey) {
  auto spec = parse_strategy_spec(
      "weighted:put(key=1, value=0)=3,login(user=\"a,b\\\"=)\")=0.5,get(key=2)=2");
  ASSERT_TRUE(spec) << spec.status().message();
  EXPECT_EQ(spec->options, (std::vector<StrategyOption>{{"put(key=1, value=0)", "3"},
                                                        {"login(user=\"a,b\\\"=)\")", "0.5"},
                                                        {"get(key=2)", "2"}}));
  // A '(' never closed holds the rest: no '=' ends the key.
  EXPECT_EQ(parse_strategy_spec("weighted:put(key=1=3").status().message(),
            "strategy 'weighted': option 'put(key=1=3' is not KEY=VALUE (write "
            "weighted:KEY=VALUE,KEY=VALUE)");
}

TEST(Factory, RefusesAnUnknownNameListingTheKnownOnes) {
  learn::register_learned_strategy();  // as run_main does: the list names it
  const std::string expected =
      "unknown strategy 'astar'; choose one of: bfs, dfs, random, coverage, weighted, mcts, "
      "learned";
  EXPECT_EQ(refusal("astar"), expected);
  EXPECT_EQ(refusal("astar:depth=3"), expected);
  EXPECT_EQ(parse_strategy_spec("astar").status().message(), expected);
  const auto model = examples::make_counters_model(2, 3);
  EXPECT_EQ(make_strategy(StrategySpec{"astar", {}}, model, 0).status().message(), expected);
  EXPECT_EQ(refusal(""),
            "unknown strategy ''; choose one of: bfs, dfs, random, coverage, weighted, mcts, "
            "learned");
}

TEST(Factory, RefusesAnOptionThatIsNotKeyEqualsValue) {
  EXPECT_EQ(refusal("mcts:c"),
            "strategy 'mcts': option 'c' is not KEY=VALUE (write mcts:KEY=VALUE,KEY=VALUE)");
  EXPECT_EQ(refusal("mcts:=1"),
            "strategy 'mcts': option '=1' is not KEY=VALUE (write mcts:KEY=VALUE,KEY=VALUE)");
  EXPECT_EQ(refusal("mcts:"),
            "strategy 'mcts': option '' is not KEY=VALUE (write mcts:KEY=VALUE,KEY=VALUE)");
  EXPECT_EQ(refusal("mcts:c=1,,new_state_reward=2"),
            "strategy 'mcts': option '' is not KEY=VALUE (write mcts:KEY=VALUE,KEY=VALUE)");
  EXPECT_EQ(refusal("mcts:c=1,"),
            "strategy 'mcts': option '' is not KEY=VALUE (write mcts:KEY=VALUE,KEY=VALUE)");
}

TEST(Factory, RefusesOptionsForAStrategyThatTakesNone) {
  for (const char* name : {"bfs", "dfs", "random", "coverage"}) {
    EXPECT_EQ(refusal(fmt::format("{}:depth=3", name)),
              fmt::format("strategy '{}' takes no options; it was given 'depth'", name));
  }
}

TEST(Factory, RefusesAnUnknownOptionListingTheOnesItTakes) {
  EXPECT_EQ(refusal("mcts:x=1"),
            "strategy 'mcts' has no option 'x'; its options are: c, violation_reward, "
            "new_state_reward");
  EXPECT_EQ(refusal("mcts:c=1,C=2"),
            "strategy 'mcts' has no option 'C'; its options are: c, violation_reward, "
            "new_state_reward");
}

TEST(Factory, RefusesAValueThatIsNotAFiniteNumber) {
  for (const char* value : {"abc", "", "1.4x", " 1", "+1", "inf", "nan", "1e999"}) {
    EXPECT_EQ(
        refusal(fmt::format("mcts:c={}", value)),
        fmt::format("strategy 'mcts': option 'c' is '{}', which is not a finite number", value));
  }
  EXPECT_EQ(refusal("weighted:inc_0=many"),
            "strategy 'weighted': option 'inc_0' is 'many', which is not a finite number");
}

TEST(Factory, RefusesANegativeMctsOption) {
  EXPECT_EQ(refusal("mcts:violation_reward=-1"),
            "strategy 'mcts': option 'violation_reward' is -1; it must be >= 0");
  EXPECT_EQ(refusal("mcts:c=-0.5"), "strategy 'mcts': option 'c' is -0.5; it must be >= 0");
}

TEST(Factory, RefusesAKeyGivenTwice) {
  EXPECT_EQ(refusal("mcts:c=1,violation_reward=2,c=1"),
            "strategy 'mcts': option 'c' is given twice");
  EXPECT_EQ(refusal("weighted:inc_0=1,inc_0=2"),
            "strategy 'weighted': option 'inc_0' is given twice");
}

TEST(Factory, GivesMctsItsOptionsAndTheDefaultsForTheRest) {
  const auto model = examples::make_counters_model(2, 3);
  auto made = make_strategy("mcts:new_state_reward=2,c=0.5", model, /*seed=*/0);
  ASSERT_TRUE(made) << made.status().message();
  const auto* mcts = dynamic_cast<const Mcts*>(made->get());
  ASSERT_NE(mcts, nullptr);
  EXPECT_EQ(mcts->exploration_weight(), 0.5);
  EXPECT_EQ(mcts->violation_reward(), 10.0);
  EXPECT_EQ(mcts->new_state_reward(), 2.0);
  auto plain = make_strategy("mcts", model, /*seed=*/0);
  ASSERT_TRUE(plain) << plain.status().message();
  EXPECT_EQ(dynamic_cast<const Mcts*>(plain->get())->exploration_weight(), std::sqrt(2.0));
  EXPECT_EQ(refusal("mcts:c=0,violation_reward=0,new_state_reward=0"),
            "made mcts:c=0,violation_reward=0,new_state_reward=0");
}

// C weighs exploration against reward in every descent, so another C walks counters another way;
// the same C and seed walk it the same way, exactly as an Mcts built with that C does.
TEST(Factory, MctsOptionCChangesThePicksDeterministically) {
  const auto model = examples::make_counters_model(3, 4);
  const auto trace = [&](std::string_view spec) {
    auto made = make_strategy(spec, model, /*seed=*/5);
    EXPECT_TRUE(made) << made.status().message();
    return made ? testkit::trace_on_counters(**made) : std::vector<testkit::TraceStep>{};
  };
  Mcts direct(0.1, Mcts::kDefaultViolationReward, Mcts::kDefaultNewStateReward, /*seed=*/5);
  const auto low = trace("mcts:c=0.1");
  EXPECT_EQ(low.size(), 288u);
  EXPECT_EQ(low, trace("mcts:c=0.1"));
  EXPECT_EQ(low, testkit::trace_on_counters(direct));
  EXPECT_NE(low, trace("mcts:c=10"));
  EXPECT_NE(low, trace("mcts"));
}

TEST(Factory, GivesWeightedTheModelWeightsOverriddenByName) {
  EXPECT_EQ(weights_of("weighted"), (std::vector<double>{1.0, 2.5, 1.0, 7.0}));
  EXPECT_EQ(weights_of("weighted:inc_1=4,reset_1=0.5"), (std::vector<double>{1.0, 2.5, 4.0, 0.5}));
}

// `--weight inc_1=4` is weighted:inc_1=4.
TEST(Factory, TakesWeightFlagsAsOptionsOfWeighted) {
  EXPECT_EQ(weights_of("weighted", {{"inc_1", 4.0}, {"reset_1", 0.1}}),
            (std::vector<double>{1.0, 2.5, 4.0, 0.1}));
  EXPECT_EQ(weights_of("weighted:inc_0=3", {{"inc_1", 4.0}}),
            (std::vector<double>{3.0, 2.5, 4.0, 7.0}));
  EXPECT_EQ(refusal("weighted:inc_1=2", {{"inc_1", 4.0}}),
            "strategy 'weighted': option 'inc_1' is given twice");
}

TEST(Factory, LetsEveryOtherStrategyIgnoreWeightFlags) {
  for (const char* spec : {"bfs", "dfs", "random", "coverage", "mcts", "mcts:c=1"}) {
    EXPECT_EQ(refusal(spec, {{"inc_1", 4.0}}), fmt::format("made {}", spec));
  }
}

TEST(Factory, RefusesAWeightForAnUnknownActionListingTheActions) {
  const std::string expected =
      "strategy 'weighted' has no option 'withdraw'; its options are the actions of model "
      "'counters': inc_0, reset_0, inc_1, reset_1";
  EXPECT_EQ(refusal("weighted:inc_0=2,withdraw=3"), expected);
  EXPECT_EQ(refusal("weighted", {{"inc_0", 2.0}, {"withdraw", 3.0}}), expected);
}

TEST(Factory, RefusesAWeightThatIsNotPositive) {
  EXPECT_EQ(refusal("weighted:reset_1=0"),
            "strategy 'weighted': option 'reset_1' is 0; it must be > 0");
  EXPECT_EQ(refusal("weighted:reset_1=-1"),
            "strategy 'weighted': option 'reset_1' is -1; it must be > 0");
}

// Every strategy, made by name, explores all of counters (K=3, N=4): 4^3 = 64 states and
// 64 * 3 * 6 / 4 = 288 transitions.
class EveryStrategy : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryStrategy, ExploresEveryStateAndTransitionOfCounters) {
  const auto model = examples::make_counters_model(3, 4);
  auto strategy = make_strategy(GetParam(), model, /*seed=*/9);
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
