#include "prowl/strategy/factory.hpp"

#include <fmt/format.h>

#include "prowl/strategy/bfs.hpp"
#include "prowl/strategy/dfs.hpp"

namespace prowl {

const std::vector<std::string>& strategy_names() {
  static const std::vector<std::string> names = {"bfs", "dfs"};
  return names;
}

Result<std::unique_ptr<Strategy>> make_strategy(std::string_view name, const Model& /*model*/,
                                                const StrategyParams& /*params*/) {
  if (name == "bfs") return std::unique_ptr<Strategy>(std::make_unique<Bfs>());
  if (name == "dfs") return std::unique_ptr<Strategy>(std::make_unique<Dfs>());
  return Status::invalid(fmt::format("unknown strategy '{}'; choose one of: {}", name,
                                     fmt::join(strategy_names(), ", ")));
}

}  // namespace prowl
