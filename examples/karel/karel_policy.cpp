#include "karel_policy.hpp"

#include <cmath>
#include <cstddef>

#include <fmt/format.h>

namespace karel {

namespace {

constexpr std::array<const char*, kOutcomeFeatures> kFeatureNames = {
    "true",         "uncovered",       "new_this_input", "uncovered_inside",
    "inside",       "while_true",      "while_late",     "if_true",
    "move_to_wall", "pick_nothing",    "front_clear",    "left_clear",
    "right_clear",  "markers_present", "no_markers",     "while_again"};

// The conditional ids in `block` and the blocks inside it.
void conditionals_in(const std::vector<Stmt>& block, std::vector<int>& out) {
  for (const Stmt& s : block) {
    if (s.id >= 0) out.push_back(s.id);
    conditionals_in(s.body, out);
    conditionals_in(s.orelse, out);
  }
}

const Stmt* first_of(const std::vector<Stmt>& block) {
  return block.empty() ? nullptr : &block.front();
}

bool covered(const Question& q, int id, bool outcome) {
  const auto i = static_cast<std::size_t>(id);
  const auto& seen = [&](const Coverage& c) {
    return (outcome ? c.seen_true[i] : c.seen_false[i]) != 0;
  };
  return seen(*q.run) || seen(*q.joint);
}

bool is_action(const Stmt* s, Action a) {
  return s != nullptr && s->kind == Stmt::Kind::kAction && s->action == a;
}

}  // namespace

ProgramIndex::ProgramIndex(const Program& program)
    : conditionals_(program.conditionals),
      branches_(static_cast<std::size_t>(2 * program.conditionals)) {
  walk(program.body);
}

void ProgramIndex::walk(const std::vector<Stmt>& block) {
  for (const Stmt& s : block) {
    if (s.id >= 0) {
      Branch& yes = branches_[static_cast<std::size_t>(2 * s.id + 1)];
      Branch& no = branches_[static_cast<std::size_t>(2 * s.id)];
      conditionals_in(s.body, yes.conditionals);
      yes.first = first_of(s.body);
      if (s.kind == Stmt::Kind::kWhile) yes.conditionals.push_back(s.id);  // tested again
      if (s.kind == Stmt::Kind::kIfElse) {
        conditionals_in(s.orelse, no.conditionals);
        no.first = first_of(s.orelse);
      }
    }
    walk(s.body);
    walk(s.orelse);
  }
}

OutcomeFeatures outcome_features(const ProgramIndex& index, const Question& q, bool outcome) {
  OutcomeFeatures f{};
  const Stmt& s = *q.stmt;
  const ProgramIndex::Branch& branch = index.branch(s.id, outcome);
  const double o = outcome ? 1.0 : 0.0;
  const bool loop = outcome && s.kind == Stmt::Kind::kWhile;
  const bool fact = outcome != s.negated;  // what the outcome makes of the world
  int uncovered = 0;
  for (int c : branch.conditionals) {
    uncovered += (covered(q, c, true) ? 0 : 1) + (covered(q, c, false) ? 0 : 1);
  }
  const auto i = static_cast<std::size_t>(s.id);
  f[0] = o;
  f[1] = covered(q, s.id, outcome) ? 0.0 : 1.0;
  f[2] = ((outcome ? q.run->seen_true[i] : q.run->seen_false[i]) != 0) ? 0.0 : 1.0;
  f[3] = static_cast<double>(uncovered) / (2.0 * index.conditionals());
  f[4] = std::log1p(static_cast<double>(branch.conditionals.size()));
  f[5] = loop ? 1.0 : 0.0;
  f[6] = loop ? static_cast<double>(q.steps) / kMaxSteps : 0.0;
  f[7] = outcome && s.kind == Stmt::Kind::kIf ? 1.0 : 0.0;
  f[8] =
      is_action(branch.first, Action::kMove) && s.cond == Cond::kFrontIsClear && !fact ? 1.0 : 0.0;
  const bool no_marker =
      (s.cond == Cond::kMarkersPresent && !fact) || (s.cond == Cond::kNoMarkersPresent && fact);
  f[9] = is_action(branch.first, Action::kPickMarker) && no_marker ? 1.0 : 0.0;
  f[10 + static_cast<int>(s.cond)] = fact ? 1.0 : 0.0;
  f[15] = loop ? std::log1p(static_cast<double>(q.asked)) : 0.0;
  return f;
}

OutcomeFeatures outcome_difference(const ProgramIndex& index, const Question& q) {
  OutcomeFeatures yes = outcome_features(index, q, true);
  const OutcomeFeatures no = outcome_features(index, q, false);
  for (int k = 0; k < kOutcomeFeatures; ++k) yes[k] -= no[k];
  return yes;
}

double linear_logit(const OutcomeFeatures& weights, const OutcomeFeatures& difference) {
  double z = 0;
  for (int k = 0; k < kOutcomeFeatures; ++k) z += weights[k] * difference[k];
  return z;
}

double probability_true(double logit) { return 1.0 / (1.0 + std::exp(-logit)); }

double InputPolicy::p_true(const ProgramIndex& index, const Question& question) const {
  return probability_true(linear_logit(weights, outcome_difference(index, question)));
}

bool pick_outcome(double logit, bool sample, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  if (sample) return uniform(rng) < probability_true(logit);
  return logit != 0 ? logit > 0 : uniform(rng) < 0.5;
}

Coverage policy_input(const Program& program, const ProgramIndex& index, const InputPolicy& policy,
                      Coverage& joint, std::mt19937_64& rng, bool sample,
                      std::vector<Decision>* decisions) {
  LazyRun run(program);
  std::vector<int> asked(static_cast<std::size_t>(program.conditionals), 0);
  while (const Stmt* s = run.decision()) {
    const Question q{s, &run.result().coverage, &joint, asked[static_cast<std::size_t>(s->id)]++,
                     run.result().steps};
    Decision d;
    d.difference = outcome_difference(index, q);
    const double z = linear_logit(policy.weights, d.difference);
    d.p_true = probability_true(z);
    d.chose_true = pick_outcome(z, sample, rng);
    if (decisions != nullptr) decisions->push_back(d);
    run.choose(d.chose_true);
  }
  Coverage mine = run.result().coverage;
  joint.merge(mine);
  return mine;
}

InputPolicy train_input_policy(const PolicyTrainOptions& options, PolicyTrainLog* log) {
  InputPolicy policy;
  OutcomeFeatures m{}, v{};
  constexpr double kBeta1 = 0.9, kBeta2 = 0.999, kEpsilon = 1e-8;
  for (int u = 0; u < options.updates; ++u) {
    OutcomeFeatures gradient{};
    double coverage = 0;
    for (int p = 0; p < options.programs_per_update; ++p) {
      const std::uint64_t seed =
          options.seed +
          static_cast<std::uint64_t>(u) * static_cast<std::uint64_t>(options.programs_per_update) +
          static_cast<std::uint64_t>(p);
      const Program program = random_program(seed);
      const ProgramIndex index(program);
      std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
      coverage += reinforce_program<Decision>(
          program, options.samples, options.inputs,
          [&](Coverage& joint, std::vector<Decision>* made) {
            policy_input(program, index, policy, joint, rng, true, made);
          },
          [&](const Decision& d, double g) {
            for (int f = 0; f < kOutcomeFeatures; ++f) gradient[f] += g * d.difference[f];
          });
    }
    const double episodes =
        static_cast<double>(options.programs_per_update) * static_cast<double>(options.samples);
    const double t = u + 1;
    for (int f = 0; f < kOutcomeFeatures; ++f) {
      const double g = gradient[f] / episodes;
      m[f] = kBeta1 * m[f] + (1 - kBeta1) * g;
      v[f] = kBeta2 * v[f] + (1 - kBeta2) * g * g;
      const double m_hat = m[f] / (1 - std::pow(kBeta1, t));
      const double v_hat = v[f] / (1 - std::pow(kBeta2, t));
      policy.weights[f] += options.learning_rate * m_hat / (std::sqrt(v_hat) + kEpsilon);
    }
    if (log != nullptr) log->coverage.push_back(coverage / episodes);
  }
  return policy;
}

std::string describe(const InputPolicy& policy) {
  std::string out;
  for (int f = 0; f < kOutcomeFeatures; ++f) {
    out += fmt::format("{}{}={:.3f}", f == 0 ? "" : " ", kFeatureNames[static_cast<std::size_t>(f)],
                       policy.weights[static_cast<std::size_t>(f)]);
  }
  return out;
}

}  // namespace karel
