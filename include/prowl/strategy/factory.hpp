// make_strategy: a strategy by its command-line name, for run_main and the CLI.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/explore/strategy.hpp"

namespace prowl {

struct StrategyParams {
  std::uint64_t seed = 0;
  // Per-action weights for "weighted"; actions not named use their model weight.
  std::map<std::string, double> weights;
  double exploration_weight = std::sqrt(2.0);  // MCTS: C of UCB1
  double violation_reward = 10.0;              // MCTS
  double new_state_reward = 1.0;               // MCTS
};

// The names make_strategy accepts, in the order help texts list them.
const std::vector<std::string>& strategy_names();

// "bfs", "dfs", "random", "coverage", "weighted" or "mcts". An unknown name is an invalid Status
// that lists the known ones.
Result<std::unique_ptr<Strategy>> make_strategy(std::string_view name, const Model& model,
                                                const StrategyParams& params);

}  // namespace prowl
