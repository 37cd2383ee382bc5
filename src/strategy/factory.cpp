#include "prowl/strategy/factory.hpp"

#include <cmath>

#include <fmt/format.h>

#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/coverage_guided.hpp"
#include "prowl/strategy/dfs.hpp"
#include "prowl/strategy/mcts.hpp"
#include "prowl/strategy/random.hpp"
#include "prowl/strategy/weighted.hpp"

namespace prowl {

namespace {

bool positive(double w) { return std::isfinite(w) && w > 0; }

// The model's action weights, overridden by name from params.weights.
Result<std::vector<double>> action_weights(const Model& model, const StrategyParams& params) {
  std::vector<double> weights;
  weights.reserve(model.actions().size());
  for (const Action& action : model.actions()) {
    if (!positive(action.weight)) {
      return Status::invalid(
          fmt::format("strategy 'weighted': action '{}' has weight {}; "
                      "weights must be positive",
                      action.name, action.weight));
    }
    weights.push_back(action.weight);
  }
  for (const auto& [name, weight] : params.weights) {
    const ActionId a = model.find_action(name);
    if (a == kNoAction) {
      return Status::invalid(fmt::format(
          "strategy 'weighted': unknown action '{}' in the weights; the model '{}' has no such "
          "action",
          name, model.name()));
    }
    if (!positive(weight)) {
      return Status::invalid(fmt::format(
          "strategy 'weighted': the weight of action '{}' is {}; weights must be positive", name,
          weight));
    }
    weights[a] = weight;
  }
  return weights;
}

Status check_mcts(const StrategyParams& params) {
  const std::pair<const char*, double> values[] = {
      {"exploration weight", params.exploration_weight},
      {"violation reward", params.violation_reward},
      {"new-state reward", params.new_state_reward}};
  for (const auto& [what, v] : values) {
    if (!std::isfinite(v) || v < 0) {
      return Status::invalid(
          fmt::format("strategy 'mcts': the {} is {}; it must be >= 0", what, v));
    }
  }
  return Status::ok();
}

}  // namespace

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"bfs",      "dfs",      "random",
                                                 "coverage", "weighted", "mcts"};
  return names;
}

Result<std::unique_ptr<Strategy>> make_strategy(std::string_view name, const Model& model,
                                                const StrategyParams& params) {
  if (name == "bfs") return std::unique_ptr<Strategy>(std::make_unique<Bfs>());
  if (name == "dfs") return std::unique_ptr<Strategy>(std::make_unique<Dfs>());
  if (name == "random") {
    return std::unique_ptr<Strategy>(std::make_unique<RandomStrategy>(params.seed));
  }
  if (name == "coverage") return std::unique_ptr<Strategy>(std::make_unique<CoverageGuided>());
  if (name == "weighted") {
    auto weights = action_weights(model, params);
    if (!weights) return weights.status();
    return std::unique_ptr<Strategy>(std::make_unique<Weighted>(std::move(*weights), params.seed));
  }
  if (name == "mcts") {
    if (Status st = check_mcts(params); !st) return st;
    return std::unique_ptr<Strategy>(std::make_unique<Mcts>(
        params.exploration_weight, params.violation_reward, params.new_state_reward, params.seed));
  }
  return Status::invalid(fmt::format("unknown strategy '{}'; choose one of: {}", name,
                                     fmt::join(strategy_names(), ", ")));
}

}  // namespace prowl
