// Executor: runs a model's actions and checks its invariants against a World. Shared by the
// Explorer and the Replayer so that both apply exactly the same rules: enabledness (preconditions,
// required context keys, dependencies and call limits on the path), per-step seeds, exception
// capture. Path facts — how often each tracked action ran on the path, saturated — are part of a
// state's identity, so dependencies hold per path, never globally. Not thread-safe.
#pragma once

#include <algorithm>
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

  // Runs action a with the step generator make_rng() returns (called only if the action can
  // draw). Exceptions become Outcome::error.
  template <class MakeRng>
  Outcome run(ActionId a, MakeRng&& make_rng) {
    const TypedRun& typed = runs_[a];
    if (typed) {
      try {
        typed(object_);
        return Outcome{};
      } catch (...) {
        return caught();
      }
    }
    return run_untyped(a, make_rng());
  }
  // Whether every action has a typed form (Model::typed_run).
  bool all_typed_runs() const {
    return std::all_of(runs_.begin(), runs_.end(), [](const TypedRun& r) { return bool(r); });
  }
  // Runs action a's typed form; false if it threw. REQUIRES: the action has one.
  bool run_typed(ActionId a) {
    try {
      runs_[a](object_);
      return true;
    } catch (...) {
      return false;
    }
  }
  // run_typed() on another object of the model's type: `object` holds a state's bytes (a byte
  // image's type is trivially copyable, so copying them there makes it one).
  bool run_typed_on(ActionId a, void* object) {
    try {
      runs_[a](object);
      return true;
    } catch (...) {
      return false;
    }
  }
  // Whether a step of action a has drawn a number from its Rng: the action chooses values at
  // random, and a step explores only the ones drawn for it.
  bool drew(std::size_t a) const { return drew_[a] != 0; }
  // The fingerprint of the world's current state with these facts.
  Status fingerprint(std::span<const Fact> facts, Fingerprint& out) const;

  bool has_before() const { return !before_.empty(); }
  bool has_after() const { return !after_.empty(); }
  // Calls on_fail(invariant index, message) for each invariant of the given timing that fails.
  // An invariant that throws fails with the exception's message.
  template <class F>
  void check(bool before, F&& on_fail) const {
    for (std::size_t i : before ? before_ : after_) {
      const TypedCheck& typed = checks_[i];
      if (typed) {
        bool ok = false;
        try {
          ok = typed(object_);
        } catch (...) {  // the check below throws again and says what
        }
        if (ok) continue;
      }
      Check c = safe_check(i);
      if (!c.ok) on_fail(i, c.message);
    }
  }

 private:
  Check safe_check(std::size_t i) const;
  Outcome run_untyped(ActionId a, Rng rng);
  // The current exception as Outcome::error.
  static Outcome caught();

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
  // The model's typed fast path (Model::typed_object): actions whose only gates are typed
  // preconditions, with how many guards each has in guards_ (in the same order), and the rest.
  void* object_ = nullptr;
  struct TypedAction {
    ActionId action;
    std::uint32_t guards;
  };
  std::vector<TypedAction> typed_;
  std::vector<TypedGuard> guards_;
  bool one_guard_each_ = false;  // guards_[i] is the only guard of typed_[i]
  mutable std::vector<ActionId> enabled_buf_;
  std::vector<ActionId> untyped_;
  mutable std::vector<ActionId> merge_scratch_;
  std::vector<TypedRun> runs_;           // per action; empty: run the Action's code
  std::vector<char> drew_;               // per action: a step drew from its Rng
  std::vector<TypedCheck> checks_;       // per invariant; empty: run the Invariant's check
  std::vector<std::size_t> before_;      // invariants checked before a step
  std::vector<std::size_t> after_;       // and after it
  const System* only_system_ = nullptr;  // the world's system when it has exactly one
  std::size_t num_facts_ = 0;
  std::vector<int> facts_of_;           // action -> fact index or -1 (empty: nothing tracked)
  std::vector<Fact> saturation_;        // fact -> largest count kept
  std::vector<std::vector<int>> deps_;  // action -> fact indices that must be > 0
};

}  // namespace prowl::detail
