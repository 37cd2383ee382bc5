// Model: what prowl explores — a way to build the world, the actions, the invariants, and the
// context keys that are part of a state's identity. Build it with the fluent builders, then
// validate(). A Model is immutable while a run uses it; it may be shared by sequential runs.
#pragma once

#include <functional>
#include <memory>
#include <source_location>
#include <span>
#include <string>
#include <vector>

#include "prowl/core/action.hpp"
#include "prowl/core/invariant.hpp"
#include "prowl/core/status.hpp"
#include "prowl/explore/params.hpp"
#include "prowl/world/world.hpp"

namespace prowl {

class Model;

// A typed call over a model's object (see Model::typed_object): call(fn, object), where fn is the
// model's callable. Empty when call is null.
template <class R, class Object>
struct TypedCall {
  R (*call)(void* fn, Object* object) = nullptr;
  void* fn = nullptr;
  explicit operator bool() const { return call != nullptr; }
  R operator()(Object* object) const { return call(fn, object); }
};
using TypedGuard = TypedCall<bool, const void>;
using TypedRun = TypedCall<void, void>;
using TypedCheck = TypedCall<bool, const void>;

// Setters shared by the generic and the typed action builders.
template <class Self>
class ActionBuilderBase {
 public:
  ActionBuilderBase(Model& model, std::size_t index) : model_(&model), index_(index) {}
  // Actions that must have run on the path to the current state.
  template <class... Names>
  Self& after(Names&&... names) {
    (edit().after.emplace_back(std::forward<Names>(names)), ...);
    return changed();
  }
  // Context keys that must be bound.
  template <class... Keys>
  Self& requires_keys(Keys&&... keys) {
    (edit().requires_keys.emplace_back(std::forward<Keys>(keys)), ...);
    return changed();
  }
  Self& max_per_path(std::uint32_t n) {
    edit().max_per_path = n;
    return changed();
  }
  Self& max_per_run(std::uint32_t n) {
    edit().max_per_run = n;
    return changed();
  }
  Self& weight(double w) {
    edit().weight = w;
    return changed();
  }
  Self& describe(std::string text) {
    edit().description = std::move(text);
    return changed();
  }
  Action& action();
  // Before and after a setter: a builder whose action stands for several (params) checks that it
  // may change them, then updates them all.
  void before_change() {}
  void sync() {}

 protected:
  Self& self() { return static_cast<Self&>(*this); }
  Action& edit() {
    self().before_change();
    return action();
  }
  Self& changed() {
    self().sync();
    return self();
  }
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
  // Where the invariant is declared, when not where invariant() was called (a model file's line).
  Self& declared_at(SourceLocation where) {
    invariant().where = std::move(where);
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
  // Builds copy k (k >= 1) of the world for worker k of a run with several workers: its own
  // systems (its own service, its own database file), whose images the other copies can load.
  using CopyFactory = std::function<Result<std::unique_ptr<World>>(std::size_t copy)>;

  explicit Model(std::string name) : name_(std::move(name)) {}
  virtual ~Model() = default;

  const std::string& name() const { return name_; }

  // How to build a fresh world (systems and initial context) for a run.
  void set_world(WorldFactory factory) { world_factory_ = std::move(factory); }
  Result<std::unique_ptr<World>> make_world() const;
  // How to build the copies of the world for other workers (Options::workers). Without it a run
  // has one worker: only the model knows what its copies must not share (a database file, a
  // port).
  void set_world_copies(CopyFactory factory) { copy_factory_ = std::move(factory); }
  bool has_world_copies() const { return static_cast<bool>(copy_factory_); }
  // Copy 0 is make_world(); copy k >= 1 comes from the copy factory (Status::invalid without
  // one).
  Result<std::unique_ptr<World>> make_world(std::size_t copy) const;

  ActionBuilder action(std::string name);
  // `where` is the caller's line, for reports that point at the invariant (SARIF).
  InvariantBuilder invariant(std::string name,
                             std::source_location where = std::source_location::current());
  // Marks a context key as part of the state identity.
  Model& state_key(std::string key);

  const std::vector<Action>& actions() const { return actions_; }
  std::vector<Action>& actions() { return actions_; }
  const std::vector<Invariant>& invariants() const { return invariants_; }
  std::vector<Invariant>& invariants() { return invariants_; }
  const std::vector<std::string>& state_keys() const { return state_keys_; }
  // The id of the named action, or kNoAction.
  ActionId find_action(std::string_view name) const;
  // The actions with parameters; each stands for the actions first .. first + count() - 1.
  const std::vector<ActionFamily>& families() const { return families_; }
  // The action of a's family whose parameter `param` takes its domain's value `value` and every
  // other parameter a's. REQUIRES: actions()[a].family >= 0, param and value in range.
  ActionId variant(ActionId a, std::size_t param, std::size_t value) const;
  // Whether an action's parameter has a domain the state gives (prowl::from_state, from_sql:,
  // from_context:): its steps are then named with the values they ran with (label()).
  bool has_state_domains() const { return state_domains_; }
  // Action a's name as it runs in the current state: its name, or for a place of a state-given
  // domain the name with the state's value ("remove(key=7)" for "remove(key=#1)").
  std::string label(ActionId a, const World& world, const Context& context) const;
  // The action `name` names in the current state: an action's name, or a label (a state-given
  // domain's value, at whatever place the state has it). kNoAction if none.
  ActionId resolve(std::string_view name, const World& world, const Context& context) const;
  // Whether `name` can name an action in some state: an action's name, or a label of an action
  // with a state-given domain.
  bool may_name(std::string_view name) const;

  // An optional fast path for the explorer's hot loop, for models whose actions and invariants
  // read and change one typed object (ObjectModel): plain function pointers over that object,
  // without World, Context, Step or std::function in between. Each has exactly the answers and
  // effects of the Action's or Invariant's own code; the explorer falls back to that code
  // wherever a typed form is missing.
  //
  // typed_object(): the object in a world this model built (nullptr: no typed fast path).
  // typed_guards(): appends action a's preconditions to `out` and returns true when every one of
  //   them has a typed form; false (and `out` unspecified) otherwise.
  // typed_run(): action a's code when it only changes the object and always succeeds unless it
  //   throws (ObjectModel's run(T&) returning void); empty otherwise.
  // typed_check(): invariant i's check when it reads only the object and returns bool (failing
  //   with its default message); empty otherwise.
  virtual void* typed_object(World& /*world*/) const { return nullptr; }
  virtual bool typed_guards(ActionId /*a*/, std::vector<TypedGuard>& /*out*/) const {
    return false;
  }
  virtual TypedRun typed_run(ActionId /*a*/) const { return {}; }
  virtual TypedCheck typed_check(std::size_t /*invariant*/) const { return {}; }

  // Checks the model: at least one action, unique names, known dependencies, positive weights,
  // code to run and to check, a world. The message names the offending action or invariant.
  Status validate() const;

 protected:
  std::size_t add_action(std::string name);
  std::size_t add_invariant(std::string name, std::source_location where);
  // Makes action a (the last one) the first of a new family named after it; returns its index.
  std::size_t add_family(ActionId a);
  ActionFamily& family(std::size_t f) { return families_[f]; }
  // Replaces family f's actions, which must be the last ones, by `actions` (one per combination,
  // in order), each marked with the family. A family with a state-given domain gets a first
  // precondition per action (its place holds a value in the state) and a run that fails with the
  // reason when the state's values cannot be had.
  void set_family_actions(std::size_t f, std::vector<Action> actions);

 private:
  static void gate_places(const ActionFamily& family, std::vector<Action>& actions);
  std::string name_;
  WorldFactory world_factory_;
  CopyFactory copy_factory_;
  std::vector<Action> actions_;
  std::vector<Invariant> invariants_;
  std::vector<std::string> state_keys_;
  std::vector<ActionFamily> families_;
  bool state_domains_ = false;
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
