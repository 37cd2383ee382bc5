// Machine<T>: a weighted finite-state machine of a library's API, after Murxla. States stand for
// what the library is ready for (a solver created, assertions made, a check done); transitions
// carry a weight, an optional action (one API call) and a next state. A fuzz run is a weighted
// random walk from the initial state until it enters a final state (or runs out of steps),
// calling each transition's action on a target T created fresh for the run.
//
// Weights. A transition out of a state is taken with probability weight / (sum of the weights of
// the transitions enabled there at that moment). weight(w) gives it directly; priority(p) is the
// Murxla-style alternative: 1 is most likely, larger is less likely, 0 disables; it means weight
// 1/p, so adding a sibling never changes how two other transitions compare.
//
// Enabledness. A transition is enabled when its weight is positive, its guard (if any) holds and
// the precondition of its next state (if any) holds. An action may still decline in its generate
// step (no term of the needed sort yet, say): the walk then picks among the rest.
//
// State kinds. A decision state only branches: its transitions lead to its choice states and
// carry no action. A choice state is entered only from its decision state (or stays in itself);
// its precondition says when it is the right choice (the check said sat). A final state ends the
// run; a choice state may be final too.
//
// Actions: the triad of Murxla. generate picks arguments (from the step's seeded Rng and the live
// handles) and may decline; run executes the call with those arguments; replay is run again with
// the arguments read back from the trace. run returns an Outcome: ok, rejected (the library
// refused as documented: attempted but not succeeded), or error — a finding. An exception out of
// run is a finding too.
//
// A Machine is built once, then checked (check()) and used read-only by the runner, including
// from forked children. Building is not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "prowl/core/action.hpp"
#include "prowl/core/rng.hpp"
#include "prowl/core/status.hpp"
#include "prowl/fsm/args.hpp"
#include "prowl/fsm/handles.hpp"

namespace prowl::fsm {

using StateId = std::uint32_t;
using ActionIndex = std::uint32_t;
inline constexpr ActionIndex kNoAction = ~ActionIndex{0};

enum class StateKind { kRegular, kDecision, kChoice, kFinal };
std::string_view to_string(StateKind kind);

struct Weight {
  double value = 1.0;
};
// Probability proportional to w. REQUIRES (checked by check()): w >= 0 and finite.
inline Weight weight(double w) { return Weight{w}; }
// Murxla's priority: weight 1/p; 0 disables the transition.
inline Weight priority(std::uint32_t p) { return Weight{p == 0 ? 0.0 : 1.0 / p}; }

// What generate and run get. References are valid during the call only.
struct CallContext {
  void* target;  // the run's T
  Handles& handles;
  Rng& rng;  // seeded with the step's seed
};

// The type-erased machine the runner walks. Users build it through Machine<T>.
class MachineCore {
 public:
  using Guard = std::function<bool(const void*)>;
  using Generate = std::function<std::optional<std::vector<std::string>>(CallContext&)>;
  using Run = std::function<Outcome(CallContext&, const Args&)>;

  struct State {
    std::string name;
    StateKind kind = StateKind::kRegular;
    Guard precondition;         // may be empty
    StateId decision = 0;       // kChoice: its decision state
    bool final_choice = false;  // kChoice: entering it ends the run
    bool skip_for_all = false;  // not given actions added to all states
    bool ends_run() const { return kind == StateKind::kFinal || final_choice; }
  };
  struct ActionDef {
    std::string name;
    Generate generate;  // may be empty: no arguments
    Run run;
  };
  struct Transition {
    StateId from = 0;
    StateId next = 0;
    ActionIndex action = kNoAction;
    double weight = 1.0;
    Guard guard;  // may be empty
  };

  explicit MachineCore(std::string name, std::function<std::shared_ptr<void>()> make);

  StateId add_state(State state);
  ActionIndex add_action(ActionDef action);
  void add_transition(Transition transition);
  // The action on every state (but decision and final states, states marked skip_for_all and
  // `excluded`), leading to `next` or staying. Applied by finalize(), so states added later are
  // included.
  void add_to_all(ActionIndex action, Weight w, std::vector<StateId> excluded,
                  std::optional<StateId> next);
  // A transition from `from` to every state (but decision, choice and skipped states, `from`
  // and `excluded`), with the action.
  void add_from_to_all(StateId from, ActionIndex action, Weight w, std::vector<StateId> excluded);
  void set_initial(StateId state) { initial_ = state; }
  // Keeps the state out of add_to_all and add_from_to_all. REQUIRES: `state` exists.
  void set_skip_for_all(StateId state) { states_.at(state).skip_for_all = true; }

  // Expands the all-state rules and checks the configuration. Configuration errors are invalid
  // Statuses listing every problem found: no states, no final state, duplicate names, a bad
  // weight, an unreachable state, a non-final state with no way out, a state from which no final
  // state can be reached, a decision state with an action, a transition out of it to a state that
  // is not one of its choices, or without choices, a choice state entered from elsewhere.
  // Idempotent.
  Status finalize();

  const std::string& name() const { return name_; }
  StateId initial() const { return initial_; }
  const std::vector<State>& states() const { return states_; }
  const std::vector<ActionDef>& actions() const { return actions_; }
  // Every transition, all-state rules expanded once finalize() ran; grouped by `from` after it.
  const std::vector<Transition>& transitions() const { return transitions_; }
  // The transitions out of a state. REQUIRES: finalize() succeeded.
  std::pair<const Transition*, const Transition*> out_of(StateId state) const;
  std::optional<StateId> find_state(std::string_view name) const;
  std::optional<ActionIndex> find_action(std::string_view name) const;
  std::shared_ptr<void> make_target() const { return make_(); }

  // Every state's transitions with their probabilities when all are enabled, one state a
  // paragraph (`--print-fsm`).
  std::string describe() const;

 private:
  struct AllRule {
    ActionIndex action;
    double weight;
    std::vector<StateId> excluded;
    std::optional<StateId> next;
    std::optional<StateId> from;  // add_from_to_all
  };
  // The steps of finalize() that change the machine.
  void expand_all_rules();
  void group_transitions_by_state();

  std::string name_;
  std::function<std::shared_ptr<void>()> make_;
  std::vector<State> states_;
  std::vector<ActionDef> actions_;
  std::vector<Transition> transitions_;
  std::vector<AllRule> all_rules_;
  std::vector<std::uint32_t> first_out_;  // per state, index into transitions_ (size states+1)
  StateId initial_ = 0;
  bool finalized_ = false;
  Status finalize_status_;
};

// The typed front end. T is the per-run target (a solver wrapper, say), created by `make` for
// every run.
template <class T>
class Machine {
 public:
  using Guard = std::function<bool(const T&)>;
  // The arguments of one call as trace tokens, or nullopt to decline.
  using Generate = std::function<std::optional<std::vector<std::string>>(T&, Handles&, Rng&)>;
  using Run = std::function<Outcome(T&, Handles&, Rng&, const Args&)>;

  explicit Machine(
      std::string name,
      std::function<std::unique_ptr<T>()> make = [] { return std::make_unique<T>(); })
      : core_(std::move(name), [make = std::move(make)]() -> std::shared_ptr<void> {
          return std::shared_ptr<T>(make());
        }) {}

  // A regular state; `precondition` must hold to enter it. The first state added is the initial
  // state unless initial() says otherwise.
  StateId state(std::string name, Guard precondition = {}) {
    return add(std::move(name), StateKind::kRegular, std::move(precondition));
  }
  StateId decision(std::string name, Guard precondition = {}) {
    return add(std::move(name), StateKind::kDecision, std::move(precondition));
  }
  // A choice of `decision`, taken when `precondition` holds.
  StateId choice(std::string name, StateId decision, Guard precondition = {},
                 bool is_final = false) {
    MachineCore::State s;
    s.name = std::move(name);
    s.kind = StateKind::kChoice;
    s.precondition = erase(std::move(precondition));
    s.decision = decision;
    s.final_choice = is_final;
    return core_.add_state(std::move(s));
  }
  StateId final_state(std::string name, Guard precondition = {}) {
    return add(std::move(name), StateKind::kFinal, std::move(precondition));
  }
  // Keeps the state out of add_to_all / add_from_to_all.
  void skip_for_all(StateId state) { core_.set_skip_for_all(state); }
  void initial(StateId state) { core_.set_initial(state); }

  // An action without arguments.
  ActionIndex action(std::string name, Run run) {
    return action(std::move(name), {}, std::move(run));
  }
  ActionIndex action(std::string name, Generate generate, Run run) {
    MachineCore::ActionDef a;
    a.name = std::move(name);
    if (generate) {
      a.generate = [g = std::move(generate)](CallContext& c) {
        return g(*static_cast<T*>(c.target), c.handles, c.rng);
      };
    }
    a.run = [r = std::move(run)](CallContext& c, const Args& args) {
      return r(*static_cast<T*>(c.target), c.handles, c.rng, args);
    };
    return core_.add_action(std::move(a));
  }

  // from --action--> next; kNoAction for an empty transition.
  void transition(StateId from, StateId next, Weight w, ActionIndex action = kNoAction,
                  Guard guard = {}) {
    core_.add_transition({from, next, action, w.value, erase(std::move(guard))});
  }
  void add_to_all(ActionIndex action, Weight w, std::vector<StateId> excluded = {},
                  std::optional<StateId> next = std::nullopt) {
    core_.add_to_all(action, w, std::move(excluded), next);
  }
  void add_from_to_all(StateId from, ActionIndex action, Weight w,
                       std::vector<StateId> excluded = {}) {
    core_.add_from_to_all(from, action, w, std::move(excluded));
  }

  Status check() { return core_.finalize(); }
  MachineCore& core() { return core_; }
  const MachineCore& core() const { return core_; }

 private:
  StateId add(std::string name, StateKind kind, Guard precondition) {
    MachineCore::State s;
    s.name = std::move(name);
    s.kind = kind;
    s.precondition = erase(std::move(precondition));
    return core_.add_state(std::move(s));
  }
  static MachineCore::Guard erase(Guard g) {
    if (!g) return {};
    return [g = std::move(g)](const void* t) { return g(*static_cast<const T*>(t)); };
  }
  MachineCore core_;
};

}  // namespace prowl::fsm
