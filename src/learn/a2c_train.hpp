// The synchronous A2C loop shared by MovePolicy and GraphPolicy (prowl/learn/a2c.hpp). A Policy
// has a Carry, Record observe(const View&, const Carry&) const (with .probabilities and .carry),
// actor_gradient(record, dz, Grad&, Carry& d_carry) (decisions last first),
// apply(const Grad&, double scale) and critic(); add(Grad&, const Grad&) sums two gradients.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <thread>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"
#include "prowl/learn/a2c.hpp"
#include "prowl/learn/features.hpp"

namespace prowl::learn {

inline void add(Gradients& into, const Gradients& from) {
  if (!from.empty()) add_gradients(into, from);
}

namespace detail {

// What one episode adds to an update.
template <class Grad>
struct Episode {
  Grad actor;
  Gradients critic;
  double coverage = 0;
  std::size_t steps = 0;
};

// A2cOptions::keep_best_window: the policy after the best window of updates so far, by the
// training curve (WindowChoice; window 0: none kept).
template <class Policy>
class BestWindow {
 public:
  explicit BestWindow(int window) {
    if (window > 0) choice_.emplace(window);
  }
  // After each update, with the curve up to it.
  void after_update(const std::vector<CurvePoint>& curve, const Policy& policy) {
    if (choice_ && choice_->add(curve)) best_.emplace(policy);
  }
  // Leaves the kept policy in `policy` (nothing when none was kept).
  void leave(Policy& policy) {
    if (best_) policy = std::move(*best_);
  }

 private:
  std::optional<WindowChoice> choice_;
  std::optional<Policy> best_;
};

// Plays one episode on graph `graph` with the policy's current weights, choosing by `rng`, and
// returns its gradients (summed over its steps).
template <class Policy, class Grad>
Episode<Grad> play(Env& env, const Policy& policy, std::uint64_t graph, Rng rng,
                   const A2cOptions& options) {
  struct Step {
    typename Policy::Record record;
    std::size_t action = 0;
    Eigen::VectorXd state;
    double value = 0;
    double reward = 0;
  };
  std::vector<Step> steps;
  env.reset(graph);
  typename Policy::Carry carry{};
  while (!env.done() && !env.moves().empty()) {
    Step s;
    s.record = policy.observe(env, carry);
    carry = s.record.carry;
    s.action = draw(s.record.probabilities, rng.unit());
    s.state = state_features(env);
    s.value = policy.critic().forward(s.state)[0];
    s.reward = env.step(s.action);
    steps.push_back(std::move(s));
  }
  Episode<Grad> e;
  e.coverage = env.coverage();
  e.steps = steps.size();
  // Returns, advantages and the gradients of the actor's and the critic's losses.
  // Last decision first, so that a recurrent policy's gradient flows back through its carry.
  double to_come = 0;
  typename Policy::Carry d_carry{};
  for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
    to_come = it->reward + options.gamma * to_come;
    const double advantage = to_come - it->value;
    policy.actor_gradient(
        it->record,
        actor_loss_gradient(it->record.probabilities, it->action, advantage, options.entropy),
        e.actor, d_carry);
    add_gradients(e.critic, policy.critic().gradient(
                                it->state, Eigen::VectorXd::Constant(1, it->value - to_come)));
  }
  return e;
}

template <class Policy, class Grad>
std::vector<CurvePoint> train(Env& env, Policy& policy, const A2cOptions& options,
                              const std::function<bool(const CurvePoint&)>& progress) {
  PROWL_CHECK(options.seed <= kMaxTrainingSeed, "train_a2c: the seed is at most kMaxTrainingSeed");
  PROWL_CHECK(options.threads >= 1 && options.envs >= 1, "train_a2c: threads and envs >= 1");
  PROWL_CHECK(options.keep_best_window >= 0, "train_a2c: keep_best_window >= 0");
  std::vector<CurvePoint> curve;
  const std::uint64_t first_graph = kTrainingGraphs + options.seed * 1'000'000;
  // One env per thread: thread i plays the episodes k with k % threads == i. Each episode's graph
  // and choices follow from (seed, update, k) alone, and the gradients are summed in k order, so
  // the weights do not depend on the thread count.
  std::vector<std::unique_ptr<Env>> others;
  for (int i = 1; i < options.threads; ++i) others.push_back(env.fresh());
  std::vector<Episode<Grad>> episodes(static_cast<std::size_t>(options.envs));
  // keep_best: the policy of the best greedy run on the graph so far (none without keep_best).
  const auto greedy_coverage = [&] {
    env.reset(*options.graph);
    return run_policy(env, policy);
  };
  std::optional<Policy> best;
  double best_coverage = 0;
  if (options.keep_best && options.graph) {
    best.emplace(policy);
    best_coverage = greedy_coverage();
  }
  BestWindow<Policy> best_window(options.graph ? 0 : options.keep_best_window);
  for (int update = 0; update < options.updates; ++update) {
    const auto work = [&](Env& mine, int thread) {
      for (int k = thread; k < options.envs; k += options.threads) {
        const std::uint64_t graph =
            options.graph ? *options.graph
                          : first_graph + static_cast<std::uint64_t>(update) * options.envs + k;
        episodes[static_cast<std::size_t>(k)] =
            play<Policy, Grad>(mine, policy, graph,
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
    Grad actor;
    Gradients critic;
    double coverage = 0;
    std::size_t count = 0;
    for (const Episode<Grad>& e : episodes) {
      add(actor, e.actor);
      if (!e.critic.empty()) add_gradients(critic, e.critic);
      coverage += e.coverage;
      count += e.steps;
    }
    if (count > 0) {
      const double scale = 1.0 / static_cast<double>(count);
      policy.apply(actor, scale);
      Gradients c;
      add_gradients(c, critic, scale);
      policy.critic().step(c);
    }
    curve.push_back({update + 1, coverage / options.envs});
    best_window.after_update(curve, policy);
    if (best) {
      if (const double c = greedy_coverage(); c > best_coverage) {
        best_coverage = c;
        *best = policy;
      }
    }
    if (progress && !progress(curve.back())) break;
  }
  if (best) policy = std::move(*best);
  best_window.leave(policy);
  return curve;
}

}  // namespace detail
}  // namespace prowl::learn
