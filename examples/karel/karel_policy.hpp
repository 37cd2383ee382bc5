// A learned input policy for Karel programs (docs/learned.md, "Karel program testing"; seed 002,
// §4.2): it answers LazyRun's questions (the outcome of a condition that reads an undecided cell)
// so that a few inputs cover the most branch outcomes, and is trained across random programs to
// be used on unseen ones, as the paper's policy is.
//
// The paper's policy writes the world cell by cell from a GGNN embedding of the program's AST.
// With LazyRun the world is made as the program reads it, so the choices left are one outcome per
// question; this policy scores each outcome by a linear function of what the program's tree says
// about it (the conditionals the outcome leads into and how many of their outcomes are still
// uncovered, whether its first statement would end the run with an error, the loop's iteration)
// and what the inputs so far covered. p(true) = sigmoid(w . (phi(true) - phi(false))); trained by
// REINFORCE, several inputs per program, each input's reward the joint coverage it adds, the
// baseline the mean return of the program's other samples.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "karel.hpp"

namespace karel {

// phi(outcome), one per question and outcome:
//   0 outcome is true                       8 the first statement run is a move into a wall
//   1 outcome not covered by any input yet  9 the first statement run is a pick with no marker
//   2 outcome not covered by this input     10-14 the world fact the outcome sets (frontIsClear,
//   3 uncovered outcomes it leads into,        leftIsClear, rightIsClear, markersPresent,
//     / (2 x conditionals)                     noMarkersPresent after `not`) is true
//   4 conditionals it leads into, log1p     15 loop: true at a WHILE, x log1p(times asked this
//   5 true at a WHILE                          run)
//   6 true at a WHILE, x steps / kMaxSteps
//   7 true at an IF (not IFELSE)
inline constexpr int kOutcomeFeatures = 16;
using OutcomeFeatures = std::array<double, kOutcomeFeatures>;

// What the features read of a program's tree, by conditional id: the conditional, and for each
// outcome the ids of the conditionals in the statements it enters (a WHILE's true enters its body
// and itself again; an IF's false enters nothing) and that block's first statement.
class ProgramIndex {
 public:
  explicit ProgramIndex(const Program& program);
  struct Branch {
    std::vector<int> conditionals;
    const Stmt* first = nullptr;
  };
  const Branch& branch(int id, bool outcome) const {
    return branches_[static_cast<std::size_t>(2 * id + (outcome ? 1 : 0))];
  }
  int conditionals() const { return conditionals_; }

 private:
  void walk(const std::vector<Stmt>& block);
  int conditionals_;
  std::vector<Branch> branches_;
};

// One question as the policy sees it.
struct Question {
  const Stmt* stmt = nullptr;       // the conditional asked
  const Coverage* run = nullptr;    // this input's coverage so far
  const Coverage* joint = nullptr;  // the earlier inputs'
  int asked = 0;                    // earlier questions at this conditional in this input
  int steps = 0;                    // statements run so far
};

OutcomeFeatures outcome_features(const ProgramIndex& index, const Question& question, bool outcome);
// phi(true) - phi(false): what a linear policy's logit weighs.
OutcomeFeatures outcome_difference(const ProgramIndex& index, const Question& question);
// weights . difference.
double linear_logit(const OutcomeFeatures& weights, const OutcomeFeatures& difference);

struct InputPolicy {
  OutcomeFeatures weights{};
  // p(true) for the question.
  double p_true(const ProgramIndex& index, const Question& question) const;
};

// One decision of an input, for training: phi(true) - phi(false), the choice and p(true).
struct Decision {
  OutcomeFeatures difference{};
  bool chose_true = false;
  double p_true = 0.5;
};

// One input made by `policy`, merged into `joint`. With `sample`, each outcome is drawn from the
// policy's p(true); without, the likelier one is taken (a tie by a draw from rng). `decisions`,
// when given, gets each decision. Returns the input's own coverage.
Coverage policy_input(const Program& program, const ProgramIndex& index, const InputPolicy& policy,
                      Coverage& joint, std::mt19937_64& rng, bool sample,
                      std::vector<Decision>* decisions = nullptr);

// p(true) = sigmoid(logit).
double probability_true(double logit);
// Whether to take the true outcome of a question scored `logit`: drawn from p(true) with
// `sample`, else the likelier one (a tie by a draw from rng).
bool pick_outcome(double logit, bool sample, std::mt19937_64& rng);

// REINFORCE over one program's episodes, as both input policies train: `samples` episodes of
// `inputs` inputs each, an input made by make(joint, decisions) (merging it into joint, its
// decisions appended); each input's decisions are credited, credit(decision, g), with g =
// advantage x ((chose true) - p(true)), the advantage being the joint coverage still to come from
// that input on less the mean of the program's other episodes'. Returns the sum of the episodes'
// final joint coverage.
template <class Made, class Make, class Credit>
double reinforce_program(const Program& program, int samples, int inputs, Make&& make,
                         Credit&& credit) {
  const auto n = static_cast<std::size_t>(samples), k_inputs = static_cast<std::size_t>(inputs);
  // By sample and input: the input's decisions, and the joint coverage still to come from it.
  std::vector<std::vector<std::vector<Made>>> made(n, std::vector<std::vector<Made>>(k_inputs));
  std::vector<std::vector<double>> to_come(n, std::vector<double>(k_inputs + 1, 0.0));
  double coverage = 0;
  for (std::size_t s = 0; s < n; ++s) {
    Coverage joint(program.conditionals);
    std::vector<double> after(k_inputs + 1, 0.0);
    for (std::size_t k = 0; k < k_inputs; ++k) {
      make(joint, &made[s][k]);
      after[k + 1] = joint.fraction();
    }
    for (std::size_t k = 0; k < k_inputs; ++k) to_come[s][k] = after[k_inputs] - after[k];
    coverage += after[k_inputs];
  }
  for (std::size_t s = 0; s < n; ++s) {
    for (std::size_t k = 0; k < k_inputs; ++k) {
      double others = 0;
      for (std::size_t t = 0; t < n; ++t) {
        if (t != s) others += to_come[t][k];
      }
      const double baseline = n > 1 ? others / static_cast<double>(n - 1) : 0.0;
      const double advantage = to_come[s][k] - baseline;
      for (const Made& d : made[s][k])
        credit(d, advantage * ((d.chose_true ? 1.0 : 0.0) - d.p_true));
    }
  }
  return coverage;
}

struct PolicyTrainOptions {
  int updates = 300;
  int programs_per_update = 16;    // programs drawn per update, from random_program(seed + ...)
  int samples = 4;                 // episodes per program (the baseline is the others' mean)
  int inputs = 5;                  // inputs per episode
  double learning_rate = 0.05;     // Adam's
  std::uint64_t seed = 1'000'000;  // disjoint from the bench's test programs (1000 on)
};

// The mean joint coverage of the update's sampled episodes, one per update.
struct PolicyTrainLog {
  std::vector<double> coverage;
};

// Trains from zero weights (every outcome even: LazyRun with random answers). Deterministic for a
// seed.
InputPolicy train_input_policy(const PolicyTrainOptions& options, PolicyTrainLog* log = nullptr);

// The weights as `name=value` pairs, for the bench's output.
std::string describe(const InputPolicy& policy);

}  // namespace karel
