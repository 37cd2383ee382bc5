// Executor: runs a model's actions and checks its invariants against a World. Shared by the
// Explorer and the Replayer so that both apply exactly the same rules: enabledness (preconditions,
// required context keys, dependencies and call limits on the path), per-step seeds, exception
// capture. Path facts — how often each tracked action ran on the path, saturated — are part of a
// state's identity, so dependencies hold per path, never globally. Not thread-safe.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "prowl/core/action.hpp"
#include "prowl/core/fingerprint.hpp"
#include "prowl/explore/model.hpp"

namespace prowl::detail {

using Fact = std::uint16_t;

class Executor {
 public:
  Executor(const Model& model, World& world);

  const Model& model() const { return model_; }
  World& world() { return world_; }
  // Number of facts per state (0 when no action has dependencies or per-path limits).
  std::size_t num_facts() const { return facts_of_.empty() ? 0 : num_facts_; }

  // Whether action a may run now, given the current state's facts and run counts (nullptr: no
  // per-run limits). The world must be at the state.
  bool enabled(ActionId a, std::span<const Fact> facts,
               const std::vector<std::uint32_t>* run_counts) const;
  // Why action a is not enabled now (for replay messages).
  std::string why_disabled(ActionId a, std::span<const Fact> facts) const;
  void enabled_actions(std::span<const Fact> facts, const std::vector<std::uint32_t>* run_counts,
                       std::vector<ActionId>& out) const;
  // Facts of the state reached from a state with `from` by running a.
  void advance(std::span<const Fact> from, ActionId a, std::span<Fact> to) const;

  // Runs action a with the given step generator. Exceptions become Outcome::error.
  Outcome run(ActionId a, Rng rng);
  // The fingerprint of the world's current state with these facts.
  Status fingerprint(std::span<const Fact> facts, Fingerprint& out) const;

  bool has_before() const { return has_before_; }
  bool has_after() const { return has_after_; }
  // Calls on_fail(invariant index, message) for each invariant of the given timing that fails.
  // An invariant that throws fails with the exception's message.
  template <class F>
  void check(bool before, F&& on_fail) const {
    const auto& invs = model_.invariants();
    for (std::size_t i = 0; i < invs.size(); ++i) {
      if (before ? !invs[i].before() : !invs[i].after()) continue;
      Check c = safe_check(i);
      if (!c.ok) on_fail(i, c.message);
    }
  }

 private:
  Check safe_check(std::size_t i) const;

  // What enabledness must check for one action, precomputed so that the common case (only
  // preconditions) costs one loop over them.
  struct Gate {
    bool other_checks;  // run limit, dependencies, per-path limit or required keys
    const Precondition* pre_begin;
    const Precondition* pre_end;
  };

  const Model& model_;
  World& world_;
  std::vector<Gate> gates_;
  // Actions whose only gates are typed preconditions the model evaluates in bulk, and the rest.
  std::vector<ActionId> typed_;
  std::vector<ActionId> untyped_;
  mutable std::vector<ActionId> merge_scratch_;
  std::vector<char> typed_run_;          // per action: the model runs it typed
  const System* only_system_ = nullptr;  // the world's system when it has exactly one
  std::size_t num_facts_ = 0;
  std::vector<int> facts_of_;           // action -> fact index or -1 (empty: nothing tracked)
  std::vector<Fact> saturation_;        // fact -> largest count kept
  std::vector<std::vector<int>> deps_;  // action -> fact indices that must be > 0
  bool has_before_ = false;
  bool has_after_ = false;
};

}  // namespace prowl::detail
