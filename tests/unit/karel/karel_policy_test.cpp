// Karel's learned input policy (examples/karel/karel_policy.hpp): what the features read of a
// program's tree, the inputs a policy makes, and training: deterministic for a seed, and better
// than answering at random on programs it was not trained on.
#ifdef PROWL_HAVE_KAREL

#include "karel_policy.hpp"
#include "karel_testkit.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace {

TEST(KarelPolicy, TheIndexNamesWhatEachOutcomeEnters) {
  const karel::Program p = karel_testkit::program(
      "DEF run m( IF c( frontIsClear c) i( move IF c( markersPresent c) i( pickMarker i) i) "
      "WHILE c( not c( leftIsClear c) c) w( turnLeft w) "
      "IFELSE c( rightIsClear c) i( putMarker i) ELSE e( IF c( noMarkersPresent c) i( move i) e) "
      "m)");
  ASSERT_EQ(p.conditionals, 5);
  const karel::ProgramIndex index(p);
  EXPECT_EQ(index.branch(0, true).conditionals, std::vector<int>({1}));
  EXPECT_EQ(index.branch(0, true).first, &p.body[0].body[0]);
  EXPECT_TRUE(index.branch(0, false).conditionals.empty());
  EXPECT_EQ(index.branch(0, false).first, nullptr);
  EXPECT_EQ(index.branch(1, true).first, &p.body[0].body[1].body[0]);
  // A WHILE's true enters its body and the test again.
  EXPECT_EQ(index.branch(2, true).conditionals, std::vector<int>({2}));
  EXPECT_TRUE(index.branch(2, false).conditionals.empty());
  EXPECT_TRUE(index.branch(3, true).conditionals.empty());
  EXPECT_EQ(index.branch(3, false).conditionals, std::vector<int>({4}));
  EXPECT_EQ(index.branch(3, false).first, &p.body[2].orelse[0]);
}

TEST(KarelPolicy, FeaturesReadTheQuestionTheTreeAndTheCoverage) {
  const karel::Program p = karel_testkit::program(
      "DEF run m( IF c( frontIsClear c) i( move IF c( markersPresent c) i( pickMarker i) i) "
      "IF c( not c( frontIsClear c) c) i( move i) m)");
  const karel::ProgramIndex index(p);
  karel::Coverage run(3), joint(3);
  joint.seen_true[0] = 1;  // an earlier input made the front clear
  karel::Question q{&p.body[0], &run, &joint, 0, 7};
  const double inside = std::log1p(1.0);
  EXPECT_EQ(karel::outcome_features(index, q, true),
            karel::OutcomeFeatures({1, 0, 1, 2.0 / 6, inside, 0, 0, 1, 0, 0, 1, 0, 0, 0, 0, 0}));
  EXPECT_EQ(karel::outcome_features(index, q, false),
            karel::OutcomeFeatures({0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
  // `not frontIsClear` true puts a wall in front of the move it enters.
  q.stmt = &p.body[1];
  EXPECT_EQ(karel::outcome_features(index, q, true),
            karel::OutcomeFeatures({1, 1, 1, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0, 0, 0, 0}));
  EXPECT_EQ(karel::outcome_features(index, q, false),
            karel::OutcomeFeatures({0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0}));
}

TEST(KarelPolicy, ALoopFeatureCountsTheTimesAskedAndTheSteps) {
  const karel::Program p =
      karel_testkit::program("DEF run m( WHILE c( markersPresent c) w( pickMarker w) m)");
  const karel::ProgramIndex index(p);
  karel::Coverage run(1), joint(1);
  run.seen_true[0] = 1;
  const karel::Question q{&p.body[0], &run, &joint, 3, 250};
  EXPECT_EQ(karel::outcome_features(index, q, true),
            karel::OutcomeFeatures(
                {1, 0, 0, 0.5, std::log1p(1.0), 1, 0.25, 0, 0, 0, 0, 0, 0, 1, 0, std::log1p(3.0)}));
  // False enters nothing: no pick can find the cell empty.
  EXPECT_EQ(karel::outcome_features(index, q, false),
            karel::OutcomeFeatures({0, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0}));
}

TEST(KarelPolicy, AnInputAnswersEachQuestionByTheWeights) {
  const karel::Program p =
      karel_testkit::program("DEF run m( WHILE c( frontIsClear c) w( move w) m)");
  const karel::ProgramIndex index(p);
  karel::InputPolicy policy;
  policy.weights[0] = 1;   // true first
  policy.weights[1] = 10;  // an outcome not covered yet before all
  karel::Coverage joint(1);
  std::mt19937_64 rng(1);
  std::vector<karel::Decision> decisions;
  const karel::Coverage mine = karel::policy_input(p, index, policy, joint, rng, false, &decisions);
  // Both outcomes new: true (the weight on true alone); then false, the one not covered.
  ASSERT_EQ(decisions.size(), 2u);
  EXPECT_TRUE(decisions[0].chose_true);
  EXPECT_DOUBLE_EQ(decisions[0].p_true, 1.0 / (1.0 + std::exp(-1.0)));
  EXPECT_FALSE(decisions[1].chose_true);
  EXPECT_DOUBLE_EQ(decisions[1].p_true, 1.0 / (1.0 + std::exp(9.0)));
  EXPECT_EQ(mine.outcomes(), 2);
  EXPECT_EQ(joint.outcomes(), 2);
}

// The joint coverage of `inputs` inputs per program over programs first .. first + count - 1.
double held_out(const karel::InputPolicy& policy, std::uint64_t first, int count, int inputs) {
  double sum = 0;
  for (int i = 0; i < count; ++i) {
    const karel::Program p = karel::random_program(first + static_cast<std::uint64_t>(i));
    const karel::ProgramIndex index(p);
    karel::Coverage joint(p.conditionals);
    std::mt19937_64 rng(first + static_cast<std::uint64_t>(i));
    for (int k = 0; k < inputs; ++k) karel::policy_input(p, index, policy, joint, rng, false);
    sum += joint.fraction();
  }
  return sum / count;
}

TEST(KarelPolicy, TrainingIsDeterministicAndBeatsRandomAnswersOnUnseenPrograms) {
  karel::PolicyTrainOptions options;
  options.updates = 150;
  karel::PolicyTrainLog log;
  const karel::InputPolicy a = karel::train_input_policy(options, &log);
  EXPECT_EQ(log.coverage.size(), 150u);
  EXPECT_EQ(karel::train_input_policy(options).weights, a.weights);
  options.seed += 1;
  EXPECT_NE(karel::train_input_policy(options).weights, a.weights);
  // Zero weights answer every question at random (LazyRun with random answers).
  const double random = held_out(karel::InputPolicy{}, 1000, 100, 1);
  const double learned = held_out(a, 1000, 100, 1);
  EXPECT_GT(learned, random + 0.03) << "random " << random << ", learned " << learned;
}

}  // namespace

#endif  // PROWL_HAVE_KAREL
