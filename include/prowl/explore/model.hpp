// Model: what prowl explores — a way to build the world, the actions, the invariants, and the
// context keys that are part of a state's identity. Build it with the fluent builders, then
// validate(). A Model is immutable while a run uses it; it may be shared by sequential runs.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "prowl/core/action.hpp"
#include "prowl/core/invariant.hpp"
#include "prowl/core/status.hpp"
#include "prowl/world/world.hpp"

namespace prowl {

class Model;

// Setters shared by the generic and the typed action builders.
template <class Self>
class ActionBuilderBase {
 public:
  ActionBuilderBase(Model& model, std::size_t index) : model_(&model), index_(index) {}
  // Actions that must have run on the path to the current state.
  template <class... Names>
  Self& after(Names&&... names) {
    (action().after.emplace_back(std::forward<Names>(names)), ...);
    return self();
  }
  // Context keys that must be bound.
  template <class... Keys>
  Self& requires_keys(Keys&&... keys) {
    (action().requires_keys.emplace_back(std::forward<Keys>(keys)), ...);
    return self();
  }
  Self& max_per_path(std::uint32_t n) {
    action().max_per_path = n;
    return self();
  }
  Self& max_per_run(std::uint32_t n) {
    action().max_per_run = n;
    return self();
  }
  Self& weight(double w) {
    action().weight = w;
    return self();
  }
  Self& describe(std::string text) {
    action().description = std::move(text);
    return self();
  }
  Action& action();

 protected:
  Self& self() { return static_cast<Self&>(*this); }
  Model* model_;
  std::size_t index_;
};

class ActionBuilder : public ActionBuilderBase<ActionBuilder> {
 public:
  using ActionBuilderBase::ActionBuilderBase;
  ActionBuilder& when(Precondition pre) {
    action().preconditions.push_back(std::move(pre));
    return *this;
  }
  ActionBuilder& run(std::function<Outcome(Step&)> fn) {
    action().run = std::move(fn);
    return *this;
  }
};

template <class Self>
class InvariantBuilderBase {
 public:
  InvariantBuilderBase(Model& model, std::size_t index) : model_(&model), index_(index) {}
  Self& severity(Severity s) {
    invariant().severity = s;
    return self();
  }
  Self& timing(Timing t) {
    invariant().timing = t;
    return self();
  }
  Self& describe(std::string text) {
    invariant().description = std::move(text);
    return self();
  }
  Invariant& invariant();

 protected:
  Self& self() { return static_cast<Self&>(*this); }
  Model* model_;
  std::size_t index_;
};

class InvariantBuilder : public InvariantBuilderBase<InvariantBuilder> {
 public:
  using InvariantBuilderBase::InvariantBuilderBase;
  InvariantBuilder& check(std::function<Check(const World&, const Context&)> fn) {
    invariant().check = std::move(fn);
    return *this;
  }
};

class Model {
 public:
  using WorldFactory = std::function<Result<std::unique_ptr<World>>()>;

  explicit Model(std::string name) : name_(std::move(name)) {}
  virtual ~Model() = default;

  const std::string& name() const { return name_; }

  // How to build a fresh world (systems and initial context) for a run.
  void set_world(WorldFactory factory) { world_factory_ = std::move(factory); }
  Result<std::unique_ptr<World>> make_world() const;

  ActionBuilder action(std::string name);
  InvariantBuilder invariant(std::string name);
  // Marks a context key as part of the state identity.
  Model& state_key(std::string key);

  const std::vector<Action>& actions() const { return actions_; }
  std::vector<Action>& actions() { return actions_; }
  const std::vector<Invariant>& invariants() const { return invariants_; }
  std::vector<Invariant>& invariants() { return invariants_; }
  const std::vector<std::string>& state_keys() const { return state_keys_; }
  // The id of the named action, or kNoAction.
  ActionId find_action(std::string_view name) const;

  // An optional fast path for the explorer's hot loop. A model whose preconditions read only
  // one typed object (ObjectModel) can evaluate those of many actions in one call:
  // has_typed_preconditions(a) says whether action a's preconditions can be evaluated so, and
  // append_enabled_typed() appends to `out`, in the given order, each of `actions` (all with
  // typed preconditions) whose preconditions hold in `world`. Same answers as the preconditions.
  virtual bool has_typed_preconditions(ActionId /*a*/) const { return false; }
  virtual void append_enabled_typed(const World& /*world*/, std::span<const ActionId> /*actions*/,
                                    std::vector<ActionId>& /*out*/) const {}

  // Likewise for running: has_typed_run(a) says that action a's code only changes one typed
  // object and always succeeds unless it throws (ObjectModel's run(T&) returning void), and
  // run_typed() runs it on the world. Same effect as the Action's run.
  virtual bool has_typed_run(ActionId /*a*/) const { return false; }
  virtual void run_typed(World& /*world*/, ActionId /*a*/) const {}

  // Checks the model: at least one action, unique names, known dependencies, positive weights,
  // code to run and to check, a world. The message names the offending action or invariant.
  Status validate() const;

 protected:
  std::size_t add_action(std::string name);
  std::size_t add_invariant(std::string name);

 private:
  std::string name_;
  WorldFactory world_factory_;
  std::vector<Action> actions_;
  std::vector<Invariant> invariants_;
  std::vector<std::string> state_keys_;
};

template <class Self>
Action& ActionBuilderBase<Self>::action() {
  return model_->actions()[index_];
}
template <class Self>
Invariant& InvariantBuilderBase<Self>::invariant() {
  return model_->invariants()[index_];
}

}  // namespace prowl
