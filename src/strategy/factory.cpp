#include "prowl/strategy/factory.hpp"

#include <algorithm>
#include <charconv>
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

using Made = Result<std::unique_ptr<Strategy>>;

// A strategy that needs neither options nor a seed.
template <class S>
Made make_plain(const StrategyInput& in) {
  if (Status st = refuse_options(in); !st) return st;
  return std::unique_ptr<Strategy>(std::make_unique<S>());
}

Made make_random(const StrategyInput& in) {
  if (Status st = refuse_options(in); !st) return st;
  return std::unique_ptr<Strategy>(std::make_unique<RandomStrategy>(in.seed));
}

// The model's action weights, overridden by the options, whose keys are action names.
Made make_weighted(const StrategyInput& in) {
  std::vector<double> weights;
  weights.reserve(in.model.actions().size());
  for (const Action& action : in.model.actions()) {
    if (!std::isfinite(action.weight) || !(action.weight > 0)) {
      return Status::invalid(
          fmt::format("strategy 'weighted': action '{}' has weight {}; weights must be positive",
                      action.name, action.weight));
    }
    weights.push_back(action.weight);
  }
  for (const StrategyOption& option : in.options) {
    const ActionId a = in.model.find_action(option.key);
    if (a == kNoAction) {
      std::vector<std::string_view> names;
      for (const Action& action : in.model.actions()) names.push_back(action.name);
      return Status::invalid(fmt::format(
          "strategy 'weighted' has no option '{}'; its options are the actions of model '{}': {}",
          option.key, in.model.name(), fmt::join(names, ", ")));
    }
    auto weight = number_option(in, option, NumberRange::kPositive);
    if (!weight) return weight.status();
    weights[a] = *weight;
  }
  return std::unique_ptr<Strategy>(std::make_unique<Weighted>(std::move(weights), in.seed));
}

Made make_mcts(const StrategyInput& in) {
  double c = Mcts::kDefaultExplorationWeight;
  double violation_reward = Mcts::kDefaultViolationReward;
  double new_state_reward = Mcts::kDefaultNewStateReward;
  for (const StrategyOption& option : in.options) {
    double* target = option.key == "c"                  ? &c
                     : option.key == "violation_reward" ? &violation_reward
                     : option.key == "new_state_reward" ? &new_state_reward
                                                        : nullptr;
    if (target == nullptr) return unknown_option(in, option);
    auto value = number_option(in, option, NumberRange::kNonNegative);
    if (!value) return value.status();
    *target = *value;
  }
  return std::unique_ptr<Strategy>(
      std::make_unique<Mcts>(c, violation_reward, new_state_reward, in.seed));
}

constexpr StrategyOptionDoc kWeightedOptions[] = {
    {"ACTION", "the action's weight in the model (1 unless set)",
     "relative weight of the action's pairs, > 0"}};

constexpr StrategyOptionDoc kMctsOptions[] = {
    {"c", "1.41421 (sqrt 2)", "exploration weight C of UCB1, >= 0: higher tries more children"},
    {"violation_reward", "10", "reward of a step with a finding, >= 0"},
    {"new_state_reward", "1", "reward of a step that reaches a new state, >= 0"}};

// Help texts list the strategies in this order: bfs, the default, first.
constexpr StrategyEntry kRegistry[] = {
    {"bfs", "breadth-first: every state by a shortest path", {}, make_plain<Bfs>},
    {"dfs", "depth-first: the newest open state first", {}, make_plain<Dfs>},
    {"random", "uniformly among all unexplored pairs, from the seed", {}, make_random},
    {"coverage", "a pair of the action executed least so far", {}, make_plain<CoverageGuided>},
    {"weighted", "a pair with probability proportional to its action's weight", kWeightedOptions,
     make_weighted},
    {"mcts", "Monte Carlo tree search towards new states and findings", kMctsOptions, make_mcts},
};

Status unknown_strategy(std::string_view name) {
  return Status::invalid(fmt::format("unknown strategy '{}'; choose one of: {}", name,
                                     fmt::join(strategy_names(), ", ")));
}

Status invalid_option_syntax(std::string_view name, std::string_view item) {
  return Status::invalid(
      fmt::format("strategy '{}': option '{}' is not KEY=VALUE (write {}:KEY=VALUE,KEY=VALUE)",
                  name, item, name));
}

}  // namespace

namespace {

// The built-in strategies, then those parts above this one registered (in their order).
std::vector<StrategyEntry>& entries() {
  static std::vector<StrategyEntry> all(std::begin(kRegistry), std::end(kRegistry));
  return all;
}

std::vector<std::string>& listed_strategies() {
  static std::vector<std::string> all = [] {
    std::vector<std::string> v;
    for (const StrategyEntry& entry : kRegistry) v.emplace_back(entry.name);
    return v;
  }();
  return all;
}

}  // namespace

std::span<const StrategyEntry> strategy_registry() { return entries(); }

void register_strategy(const StrategyEntry& entry) {
  PROWL_CHECK(entry.make != nullptr, "register_strategy: an entry without a maker");
  for (StrategyEntry& known : entries()) {
    if (known.name == entry.name) {
      PROWL_CHECK(known.make == entry.make, "register_strategy: two strategies named alike");
      return;
    }
  }
  entries().push_back(entry);
  listed_strategies().emplace_back(entry.name);
}

const StrategyEntry* find_strategy(std::string_view name) {
  for (const StrategyEntry& entry : entries()) {
    if (entry.name == name) return &entry;
  }
  return nullptr;
}

const std::vector<std::string>& strategy_names() { return listed_strategies(); }

namespace {

// The first c in text outside parentheses and double quotes (a backslash escapes the next
// character in quotes), or npos: an action with parameters, `put(key=1, value="a,b")`, is one
// key.
std::size_t top_level(std::string_view text, char c) {
  int depth = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char x = text[i];
    if (quoted) {
      if (x == '\\') {
        ++i;
      } else if (x == '"') {
        quoted = false;
      }
    } else if (x == '"') {
      quoted = true;
    } else if (x == '(') {
      ++depth;
    } else if (x == ')' && depth > 0) {
      --depth;
    } else if (x == c && depth == 0) {
      return i;
    }
  }
  return std::string_view::npos;
}

}  // namespace

Result<StrategySpec> parse_strategy_spec(std::string_view text) {
  const std::size_t colon = text.find(':');
  StrategySpec spec;
  spec.name = std::string(text.substr(0, colon));
  if (find_strategy(spec.name) == nullptr) return unknown_strategy(spec.name);
  if (colon == std::string_view::npos) return spec;
  std::string_view rest = text.substr(colon + 1);
  for (;;) {
    const std::size_t comma = top_level(rest, ',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t eq = top_level(item, '=');
    if (eq == std::string_view::npos || eq == 0) return invalid_option_syntax(spec.name, item);
    spec.options.push_back({std::string(item.substr(0, eq)), std::string(item.substr(eq + 1))});
    if (comma == std::string_view::npos) return spec;
    rest = rest.substr(comma + 1);
  }
}

Result<std::unique_ptr<Strategy>> make_strategy(const StrategySpec& spec, const Model& model,
                                                std::uint64_t seed) {
  const StrategyEntry* entry = find_strategy(spec.name);
  if (entry == nullptr) return unknown_strategy(spec.name);
  const std::vector<StrategyOption>& options = spec.options;
  for (auto it = options.begin(); it != options.end(); ++it) {
    const auto same_key = [&](const StrategyOption& o) { return o.key == it->key; };
    if (std::any_of(options.begin(), it, same_key)) {
      return Status::invalid(
          fmt::format("strategy '{}': option '{}' is given twice", spec.name, it->key));
    }
  }
  return entry->make(StrategyInput{*entry, options, model, seed});
}

Result<std::unique_ptr<Strategy>> make_strategy(std::string_view text, const Model& model,
                                                std::uint64_t seed,
                                                const std::map<std::string, double>& weight_flags) {
  auto spec = parse_strategy_spec(text);
  if (!spec) return spec.status();
  if (spec->name == "weighted") {
    // fmt writes the shortest text that reads back as the same double.
    for (const auto& [action, w] : weight_flags) {
      spec->options.push_back({action, fmt::format("{}", w)});
    }
  }
  return make_strategy(*spec, model, seed);
}

Status refuse_options(const StrategyInput& input) {
  if (input.options.empty()) return Status::ok();
  return Status::invalid(fmt::format("strategy '{}' takes no options; it was given '{}'",
                                     input.entry.name, input.options.front().key));
}

Status unknown_option(const StrategyInput& input, const StrategyOption& option) {
  std::vector<std::string_view> keys;
  for (const StrategyOptionDoc& doc : input.entry.options) keys.push_back(doc.key);
  return Status::invalid(fmt::format("strategy '{}' has no option '{}'; its options are: {}",
                                     input.entry.name, option.key, fmt::join(keys, ", ")));
}

Result<double> number_option(const StrategyInput& input, const StrategyOption& option,
                             NumberRange range) {
  const std::string& text = option.value;
  double value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    return Status::invalid(
        fmt::format("strategy '{}': option '{}' is '{}', which is not a finite number",
                    input.entry.name, option.key, text));
  }
  const bool positive = range == NumberRange::kPositive;
  if (positive ? !(value > 0) : !(value >= 0)) {
    return Status::invalid(fmt::format("strategy '{}': option '{}' is {}; it must be {} 0",
                                       input.entry.name, option.key, text, positive ? ">" : ">="));
  }
  return value;
}

}  // namespace prowl
