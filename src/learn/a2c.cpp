#include "prowl/learn/a2c.hpp"

#include <cmath>
#include <functional>
#include <thread>
#include <utility>

#include "prowl/core/status.hpp"
#include "prowl/learn/features.hpp"

namespace prowl::learn {

namespace {

std::vector<int> sizes(int inputs, const std::vector<int>& hidden) {
  std::vector<int> out{inputs};
  out.insert(out.end(), hidden.begin(), hidden.end());
  out.push_back(1);
  return out;
}

Eigen::VectorXd softmax(const Eigen::VectorXd& z) {
  const Eigen::VectorXd e = (z.array() - z.maxCoeff()).exp().matrix();
  return e / e.sum();
}

Eigen::VectorXd scores(const Mlp& scorer, const std::vector<Eigen::VectorXd>& features) {
  Eigen::VectorXd z(static_cast<Eigen::Index>(features.size()));
  for (std::size_t i = 0; i < features.size(); ++i) {
    z[static_cast<Eigen::Index>(i)] = scorer.forward(features[i])[0];
  }
  return z;
}

// One step of an episode, kept for the update.
struct Step {
  std::vector<Eigen::VectorXd> moves;
  Eigen::VectorXd probabilities;
  std::size_t action = 0;
  Eigen::VectorXd state;
  double value = 0;
  double reward = 0;
};

}  // namespace

Eigen::VectorXd actor_loss_gradient(const Eigen::VectorXd& p, std::size_t action, double advantage,
                                    double entropy_weight) {
  const double entropy = -(p.array() * p.array().max(1e-12).log()).sum();
  Eigen::VectorXd dz(p.size());
  for (Eigen::Index b = 0; b < p.size(); ++b) {
    const double chosen = static_cast<std::size_t>(b) == action ? 1.0 : 0.0;
    dz[b] = advantage * (p[b] - chosen) +
            entropy_weight * p[b] * (std::log(std::max(p[b], 1e-12)) + entropy);
  }
  return dz;
}

MovePolicy::MovePolicy(const std::vector<int>& hidden, std::uint64_t seed, double learning_rate)
    : scorer_(sizes(kMoveFeatures, hidden), Activation::kTanh, seed,
              MlpOptions{learning_rate, Optimizer::kAdam, 1.0}),
      critic_(sizes(kStateFeatures, hidden), Activation::kTanh, seed + 1,
              MlpOptions{learning_rate, Optimizer::kAdam, 1.0}) {}

MovePolicy::MovePolicy(Mlp scorer, std::uint64_t seed, double learning_rate)
    : scorer_(std::move(scorer)),
      critic_(sizes(kStateFeatures,
                    std::vector<int>(scorer_.sizes().begin() + 1, scorer_.sizes().end() - 1)),
              Activation::kTanh, seed + 1, MlpOptions{learning_rate, Optimizer::kAdam, 1.0}) {
  scorer_.set_options(MlpOptions{learning_rate, Optimizer::kAdam, 1.0});
}

Eigen::VectorXd MovePolicy::probabilities(const Env& env) const {
  return softmax(scores(scorer_, move_features(env)));
}

std::size_t MovePolicy::greedy(const Env& env) const {
  Eigen::Index best = 0;
  scores(scorer_, move_features(env)).maxCoeff(&best);
  return static_cast<std::size_t>(best);
}

double MovePolicy::value(const Env& env) const { return critic_.forward(state_features(env))[0]; }

namespace {

// What one episode adds to an update.
struct Episode {
  Gradients actor, critic;
  double coverage = 0;
  std::size_t steps = 0;
};

// Plays one episode on graph `graph` with the policy's current weights, choosing by `rng`, and
// returns its gradients (summed over its steps).
Episode play(Env& env, const MovePolicy& policy, std::uint64_t graph, Rng rng,
             const A2cOptions& options) {
  std::vector<Step> steps;
  env.reset(graph);
  while (!env.done() && !env.moves().empty()) {
    Step s;
    s.moves = move_features(env);
    s.probabilities = softmax(scores(policy.scorer(), s.moves));
    double u = rng.unit();
    s.action = static_cast<std::size_t>(s.probabilities.size() - 1);
    for (Eigen::Index i = 0; i < s.probabilities.size(); ++i) {
      if ((u -= s.probabilities[i]) < 0) {
        s.action = static_cast<std::size_t>(i);
        break;
      }
    }
    s.state = state_features(env);
    s.value = policy.critic().forward(s.state)[0];
    s.reward = env.step(s.action);
    steps.push_back(std::move(s));
  }
  Episode e;
  e.coverage = env.coverage();
  e.steps = steps.size();
  // Returns, advantages and the gradients of the actor's and the critic's losses.
  double to_come = 0;
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    to_come = it->reward + options.gamma * to_come;
    const double advantage = to_come - it->value;
    const Eigen::VectorXd dz =
        actor_loss_gradient(it->probabilities, it->action, advantage, options.entropy);
    for (Eigen::Index b = 0; b < dz.size(); ++b) {
      add_gradients(e.actor, policy.scorer().gradient(it->moves[static_cast<std::size_t>(b)],
                                                      Eigen::VectorXd::Constant(1, dz[b])));
    }
    add_gradients(e.critic, policy.critic().gradient(
                                it->state, Eigen::VectorXd::Constant(1, it->value - to_come)));
  }
  return e;
}

}  // namespace

std::vector<CurvePoint> train_a2c(Env& env, MovePolicy& policy, const A2cOptions& options,
                                  const std::function<bool(const CurvePoint&)>& progress) {
  PROWL_CHECK(options.seed <= kMaxTrainingSeed, "train_a2c: the seed is at most kMaxTrainingSeed");
  PROWL_CHECK(options.threads >= 1 && options.envs >= 1, "train_a2c: threads and envs >= 1");
  std::vector<CurvePoint> curve;
  const std::uint64_t first_graph = kTrainingGraphs + options.seed * 1'000'000;
  // One env per thread: thread i plays the episodes k with k % threads == i. Each episode's graph
  // and choices follow from (seed, update, k) alone, and the gradients are summed in k order, so
  // the weights do not depend on the thread count.
  std::vector<std::unique_ptr<Env>> others;
  for (int i = 1; i < options.threads; ++i) others.push_back(env.fresh());
  std::vector<Episode> episodes(static_cast<std::size_t>(options.envs));
  for (int update = 0; update < options.updates; ++update) {
    const auto work = [&](Env& mine, int thread) {
      for (int k = thread; k < options.envs; k += options.threads) {
        const std::uint64_t graph =
            first_graph + static_cast<std::uint64_t>(update) * options.envs + k;
        episodes[static_cast<std::size_t>(k)] =
            play(mine, policy, graph,
                 Rng::derived(options.seed, static_cast<std::uint64_t>(update),
                              static_cast<std::uint64_t>(k)),
                 options);
      }
    };
    std::vector<std::thread> threads;
    for (int i = 1; i < options.threads; ++i) {
      threads.emplace_back(work, std::ref(*others[static_cast<std::size_t>(i - 1)]), i);
    }
    work(env, 0);
    for (std::thread& t : threads) t.join();
    Gradients actor, critic;
    double coverage = 0;
    std::size_t count = 0;
    for (const Episode& e : episodes) {
      if (!e.actor.empty()) add_gradients(actor, e.actor);
      if (!e.critic.empty()) add_gradients(critic, e.critic);
      coverage += e.coverage;
      count += e.steps;
    }
    if (count > 0) {
      const double scale = 1.0 / static_cast<double>(count);
      Gradients a, c;
      add_gradients(a, actor, scale);
      add_gradients(c, critic, scale);
      policy.scorer().step(a);
      policy.critic().step(c);
    }
    curve.push_back({update + 1, coverage / options.envs});
    if (progress && !progress(curve.back())) break;
  }
  return curve;
}

double run_policy(Env& env, const MovePolicy& policy) {
  while (!env.done() && !env.moves().empty()) env.step(policy.greedy(env));
  return env.coverage();
}

}  // namespace prowl::learn

namespace prowl::learn {

PolicyFile to_policy_file(const MovePolicy& policy, const Env& env,
                          const std::vector<std::pair<std::string, std::string>>& extra) {
  PolicyFile file{{{"kind", "move-policy"},
                   {"features", std::string(kMoveFeatureSet)},
                   {"env", env.name()},
                   {"mode", std::string(mode_name(env.mode()))}},
                  policy.scorer()};
  file.header.insert(file.header.end(), extra.begin(), extra.end());
  return file;
}

Result<MovePolicy> move_policy_from_file(const PolicyFile& file, const Env& env,
                                         const std::string& source) {
  const auto value = [&](const std::string& key) -> std::string {
    for (const auto& [k, v] : file.header) {
      if (k == key) return v;
    }
    return "";
  };
  if (value("kind") != "move-policy") {
    return Status::invalid(source + ": not a policy prowl train wrote (kind=" +
                           (value("kind").empty() ? "<none>" : value("kind")) +
                           ", expected move-policy): train one with prowl train");
  }
  if (value("features") != kMoveFeatureSet) {
    return Status::invalid(source + ": the policy reads features " + value("features") +
                           "; this prowl computes " + std::string(kMoveFeatureSet) +
                           ": train it again with this prowl");
  }
  if (value("env") != env.name() || value("mode") != mode_name(env.mode())) {
    return Status::invalid(source + ": the policy was trained for " + value("env") + " (" +
                           value("mode") + "); this is " + env.name() + " (" +
                           std::string(mode_name(env.mode())) + "): give --env " + value("env") +
                           " --mode " + value("mode") + ", or train one for this environment");
  }
  const std::vector<int>& s = file.network.sizes();
  if (s.front() != kMoveFeatures || s.back() != 1) {
    return Status::invalid(source + ": the policy's network takes " + std::to_string(s.front()) +
                           " inputs and gives " + std::to_string(s.back()) + " outputs, not " +
                           std::to_string(kMoveFeatures) + " and 1");
  }
  return MovePolicy(file.network, 1, 0.05);
}

}  // namespace prowl::learn
