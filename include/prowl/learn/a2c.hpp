// A move-scoring exploration policy and its training by synchronous advantage actor-critic (A2C;
// docs/learned.md, "Training"). The policy scores each offered move with a network over the
// move's features (prowl/learn/features.hpp) and picks by a softmax over the scores; the critic
// estimates the coverage still to come from the state's features. With no hidden layer the scorer
// is the linear softmax, the control that tells whether a graph network is worth it.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <type_traits>
#include <variant>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/learn/env.hpp"
#include "prowl/learn/graph_policy.hpp"
#include "prowl/learn/mlp.hpp"
#include "prowl/learn/policy_file.hpp"

namespace prowl::learn {

class MovePolicy {
 public:
  // Scorer sizes {kMoveFeatures, hidden..., 1}, critic {kStateFeatures, hidden..., 1}, tanh, drawn
  // from `seed`; Adam at `learning_rate`.
  MovePolicy(const std::vector<int>& hidden, std::uint64_t seed, double learning_rate);
  // A trained scorer (from a policy file), with a fresh critic of the same hidden sizes.
  MovePolicy(Mlp scorer, std::uint64_t seed, double learning_rate);

  // The scorer's score of each move's features.
  Eigen::VectorXd scores(const std::vector<Eigen::VectorXd>& moves) const;
  // The softmax of the scores of the view's moves. REQUIRES: it offers some.
  Eigen::VectorXd probabilities(const View& view) const;
  // The move of the highest score (the first of equal ones).
  std::size_t greedy(const View& view) const;
  double value(const View& view) const;

  // Nothing is carried from one decision to the next (GraphPolicy's history is).
  struct Carry {};
  // What the update needs of one decision: the moves' features and the probabilities.
  struct Record {
    std::vector<Eigen::VectorXd> moves;
    Eigen::VectorXd probabilities;
    Carry carry;
  };
  Record observe(const View& view, const Carry& = {}) const;
  // Adds to `into` the gradient of Σ_b dz[b] · score_b over the scorer's parameters.
  void actor_gradient(const Record& record, const Eigen::VectorXd& dz, Gradients& into) const;
  void actor_gradient(const Record& record, const Eigen::VectorXd& dz, Gradients& into,
                      Carry&) const {
    actor_gradient(record, dz, into);
  }
  // One optimizer step of the scorer along scale · gradient.
  void apply(const Gradients& gradient, double scale);

  Mlp& scorer() { return scorer_; }
  Mlp& critic() { return critic_; }
  const Mlp& scorer() const { return scorer_; }
  const Mlp& critic() const { return critic_; }

 private:
  Mlp scorer_;
  Mlp critic_;
};

struct A2cOptions {
  int updates = 300;       // optimizer steps
  int envs = 16;           // episodes per step, each on a graph of its own (the paper: 32 actors)
  double entropy = 0.003;  // weight of the policy's entropy in the loss
  double gamma = 1.0;      // discount of the coverage to come (the paper's objective: none)
  std::uint64_t seed = 1;  // graphs and choices (at most kMaxTrainingSeed)
  int threads = 1;         // the episodes of an update over this many threads (same weights)
  // Every episode on this one graph (reset(*graph)) instead of training graphs: fine-tuning on a
  // graph, as the paper's fine-tuned rows do on each test graph. Choices still follow the seed.
  std::optional<std::uint64_t> graph;
  // With `graph`: after each update the policy runs greedily on that graph, and training leaves
  // the policy of the best of those runs (the one before the first update included; the first of
  // equal ones), as the per-graph tabular Q baseline reports the best greedy run it reaches.
  // Fine-tuning then keeps what it gained. One greedy episode per update more.
  bool keep_best = false;
  // On training graphs (no `graph`), W > 0: training leaves the policy as it was after the last
  // update of the W consecutive updates whose mean training coverage (the curve's) was highest,
  // the first such window of equal ones; chosen by the training episodes alone, no held-out graph
  // is played. A late collapse of the policy (a few updates that make it loop, after which its
  // episodes cover almost nothing and it does not recover) then leaves the policy from before.
  // 0: the policy of the last update.
  int keep_best_window = 0;
};

// Training graph k of seed S is reset(kTrainingGraphs + S·10^6 + k), k = 0, 1, ... (episode k of
// update u plays graph u·envs + k, choosing with Rng::derived(S, u, k)): disjoint from
// the held-out graphs of the benchmark (seeds 1000 to 1099) and of evaluations below 10^9, for
// every S up to kMaxTrainingSeed (no wrap-around).
inline constexpr std::uint64_t kTrainingGraphs = 1'000'000'000;
inline constexpr std::uint64_t kMaxTrainingSeed = 1'000'000'000'000;

struct CurvePoint {
  int update = 0;
  double coverage = 0;  // mean final coverage of that update's episodes
};

// The window A2cOptions::keep_best_window chooses, found update by update: add() each update's
// point in turn, with the curve up to it; add() is true when the window of `window` updates ending
// there is the best so far (the first of equal ones), and training then keeps that policy.
class WindowChoice {
 public:
  explicit WindowChoice(int window);  // REQUIRES: window >= 1
  bool add(std::span<const CurvePoint> so_far);
  bool chosen() const { return chosen_; }
  int last_update() const { return last_update_; }  // of the chosen window (when chosen())
  int window() const { return static_cast<int>(window_); }
  double coverage() const { return best_sum_ / static_cast<double>(window_); }  // its mean

 private:
  std::size_t window_;
  double sum_ = 0, best_sum_ = 0;
  std::size_t points_ = 0;  // the curve's length at the last add()
  bool chosen_ = false;
  int last_update_ = 0;
};
// The window training with keep_best_window = `window` keeps on `curve`: nullopt for window 0 or a
// curve shorter than the window.
std::optional<WindowChoice> chosen_window(const std::vector<CurvePoint>& curve, int window);

// Trains `policy` on episodes of `env` (reset to training graphs). Calls `progress` after each
// update; training stops early when it returns false. Returns the learning curve.
std::vector<CurvePoint> train_a2c(Env& env, MovePolicy& policy, const A2cOptions& options,
                                  const std::function<bool(const CurvePoint&)>& progress = {});
// The same for the graph policy.
std::vector<CurvePoint> train_a2c(Env& env, GraphPolicy& policy, const A2cOptions& options,
                                  const std::function<bool(const CurvePoint&)>& progress = {});

// How prowl trains a new graph policy (docs/learned.md, "Training a graph policy"): first the
// linear softmax control (MovePolicy without hidden layers, learning rate 0.05) for
// `linear_updates` updates of `options` (the same seed, episodes and entropy), then the graph
// policy started from it (start_from) for options.updates updates. With linear_updates 0 the graph
// policy trains from its own first weights. `progress` sees both stages' points, `linear` telling
// which; training stops early when it returns false. When `linear_out` is given the trained linear
// policy is left there. REQUIRES: policy.shape().skip when linear_updates > 0.
struct GraphCurves {
  std::vector<CurvePoint> linear;  // the first stage's
  std::vector<CurvePoint> graph;
};
GraphCurves train_graph_policy(
    Env& env, GraphPolicy& policy, const A2cOptions& options, int linear_updates,
    const std::function<bool(const CurvePoint&, bool linear)>& progress = {},
    MovePolicy* linear_out = nullptr);
// The default of linear_updates: 2,000 (about 3 s on maze6; docs/learned.md says why).
inline constexpr int kLinearStartUpdates = 2000;
// Sets the graph policy's skip to the linear scorer's weights and its head's output to 0, so that
// it scores every move as `linear` does (a scorer's bias moves every score alike and is dropped).
// REQUIRES: graph.shape().skip; linear's scorer has no hidden layer.
void start_from(GraphPolicy& graph, const MovePolicy& linear);

// The scorer as a policy file: kind=move-policy, features=moves-v3, env= and mode= of `env`, then
// `extra` (the training's seed, updates, ...).
PolicyFile to_policy_file(const MovePolicy& policy, const Env& env,
                          const std::vector<std::pair<std::string, std::string>>& extra);
// The graph policy as a policy file: kind=graph-policy, features=moves-v3, node_features=nodes-v1,
// env=, mode=, hidden=, rounds=, readout=, then `extra`; the head as the network and the
// encoder's parameters as 'vector encoder N'.
PolicyFile to_policy_file(const GraphPolicy& policy, const Env& env,
                          const std::vector<std::pair<std::string, std::string>>& extra);
// The graph policy of a file of kind graph-policy: an invalid Status naming `source` when its
// node features, shape or encoder do not fit.
Result<GraphPolicy> graph_policy_of(const PolicyFile& file, const std::string& source);

// Either policy: what a policy file holds.
using AnyPolicy = std::variant<MovePolicy, GraphPolicy>;
// The policy of a file written by to_policy_file, for any target: checks its kind, its feature
// sets and its sizes; an invalid Status naming `source` otherwise.
Result<AnyPolicy> policy_of(const PolicyFile& file, const std::string& source);
// The same, for `env`: also refuses a policy trained for another env or mode.
Result<AnyPolicy> policy_from_file(const PolicyFile& file, const Env& env,
                                   const std::string& source);
// The value of the header line `key` of a policy file, or "" when it has none.
std::string policy_header(const PolicyFile& file, std::string_view key);
// The value of the header line `key` as a whole number in [min, max], or nullopt.
std::optional<int> policy_header_int(const PolicyFile& file, std::string_view key, int min,
                                     int max);

// exp(z) / Σ exp(z), computed without overflow.
Eigen::VectorXd softmax(const Eigen::VectorXd& z);

// The gradient, over the scores z of the moves, of one step's actor loss
// −advantage · log p[action] − entropy_weight · H(p), p = softmax(z).
Eigen::VectorXd actor_loss_gradient(const Eigen::VectorXd& p, std::size_t action, double advantage,
                                    double entropy_weight);

// The move drawn from probabilities p by u in [0, 1): the first i with u < p[0] + ... + p[i] (the
// last move when rounding leaves u above the sum).
inline std::size_t draw(const Eigen::VectorXd& p, double u) {
  for (Eigen::Index i = 0; i < p.size(); ++i) {
    if ((u -= p[i]) < 0) return static_cast<std::size_t>(i);
  }
  return static_cast<std::size_t>(p.size() - 1);
}

// Runs a policy (MovePolicy, GraphPolicy) until the env is done, each move drawn from its
// probabilities as in training (by Rng(seed)); its coverage.
template <class Policy>
double run_policy_sampled(Env& env, const Policy& policy, std::uint64_t seed) {
  Rng rng(seed);
  typename Policy::Carry carry{};
  while (!env.done() && !env.moves().empty()) {
    auto record = policy.observe(env, carry);
    carry = std::move(record.carry);
    env.step(draw(record.probabilities, rng.unit()));
  }
  return env.coverage();
}

// Runs a policy (MovePolicy, GraphPolicy) greedily until the env is done; its coverage.
template <class Policy>
double run_policy(Env& env, const Policy& policy) {
  typename Policy::Carry carry{};
  while (!env.done() && !env.moves().empty()) {
    if constexpr (std::is_empty_v<typename Policy::Carry>) {
      env.step(policy.greedy(env));
    } else {
      auto record = policy.observe(env, carry);
      Eigen::Index best = 0;
      record.probabilities.maxCoeff(&best);
      carry = std::move(record.carry);
      env.step(static_cast<std::size_t>(best));
    }
  }
  return env.coverage();
}

}  // namespace prowl::learn
