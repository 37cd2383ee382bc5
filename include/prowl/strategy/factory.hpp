// The strategy factory: every strategy `--strategy` can name, kept as a registry of entries (name,
// description, documented options, maker). A spec is NAME or NAME:KEY=VALUE,KEY=VALUE, such as
// "mcts:c=1.4,violation_reward=5"; each strategy's maker reads its own options and refuses the
// rest, so a new strategy plugs in with one registry entry and no change to the command line.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/explore/strategy.hpp"

namespace prowl {

// One KEY=VALUE of a spec, as written: what the value means is up to the strategy.
struct StrategyOption {
  std::string key;
  std::string value;
  friend bool operator==(const StrategyOption&, const StrategyOption&) = default;
};

// A spec split up: the name of a registered strategy and its options in the order written.
struct StrategySpec {
  std::string name;
  std::vector<StrategyOption> options;
};

// An option as a strategy documents it, for docs and for the errors that list what it accepts.
struct StrategyOptionDoc {
  std::string_view key;  // a placeholder in capitals (ACTION) stands for keys the model names
  std::string_view default_value;
  std::string_view meaning;
};

struct StrategyEntry;

// What a maker gets: its own entry, the spec's options (no key twice), the model and the seed.
struct StrategyInput {
  const StrategyEntry& entry;
  std::span<const StrategyOption> options;
  const Model& model;
  std::uint64_t seed = 0;
};

// Makes a strategy from its input, or returns an invalid Status naming the strategy and the bad
// key or value. A maker refuses every key it does not know.
using StrategyMaker = Result<std::unique_ptr<Strategy>> (*)(const StrategyInput& input);

// One strategy the factory can make: what help texts, docs and errors say of it, and its maker.
struct StrategyEntry {
  std::string_view name;
  std::string_view description;  // one line: what it picks
  std::span<const StrategyOptionDoc> options;
  StrategyMaker make;
};

// Every strategy, in the order help texts list them: the built-in ones, then those registered.
// The span is valid until the next register_strategy().
std::span<const StrategyEntry> strategy_registry();
// Adds a strategy made by a part above this one (the learned strategy of prowl::learn, which
// needs Eigen) to the registry; the entry's strings must outlive the program. Registering the
// same entry again does nothing. Not thread-safe: call it before reading the registry, from
// main's thread (run_main's CommandLine does, for the strategies of the parts it links).
void register_strategy(const StrategyEntry& entry);
// The registry's entry named `name`, or nullptr.
const StrategyEntry* find_strategy(std::string_view name);
// The registry's names, in its order.
const std::vector<std::string>& strategy_names();

// Splits NAME[:KEY=VALUE,...]. The name must be registered and every option KEY=VALUE with a
// non-empty key; values are for the strategy to check. A comma always separates options, and a
// key ends at its first '=' (a value may hold one).
Result<StrategySpec> parse_strategy_spec(std::string_view text);

// The strategy `spec` names, with its options, the model and the run's seed. Refuses a key given
// twice, and whatever the strategy's maker refuses.
Result<std::unique_ptr<Strategy>> make_strategy(const StrategySpec& spec, const Model& model,
                                                std::uint64_t seed);

// parse_strategy_spec(text), then make_strategy(). `weight_flags` are `--weight ACTION=W` flags:
// options of "weighted" given outside the spec, as if written in it (so also given twice when the
// spec names the action too); every other strategy ignores them, as it always has.
Result<std::unique_ptr<Strategy>> make_strategy(
    std::string_view text, const Model& model, std::uint64_t seed,
    const std::map<std::string, double>& weight_flags = {});

// For makers: the errors every strategy words the same way, and its numbers.

// Refuses any option, for a strategy that takes none.
Status refuse_options(const StrategyInput& input);
// The error for a key the strategy does not know, listing the keys its entry documents.
Status unknown_option(const StrategyInput& input, const StrategyOption& option);

enum class NumberRange { kNonNegative, kPositive };
// The option's value as a finite number in `range`.
Result<double> number_option(const StrategyInput& input, const StrategyOption& option,
                             NumberRange range);

}  // namespace prowl
