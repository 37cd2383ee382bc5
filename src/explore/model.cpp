#include "prowl/explore/model.hpp"

#include <algorithm>
#include <set>

#include <fmt/format.h>

namespace prowl {

Result<std::unique_ptr<World>> Model::make_world() const {
  if (!world_factory_) return Status::invalid(fmt::format("model '{}' has no world", name_));
  return world_factory_();
}

Result<std::unique_ptr<World>> Model::make_world(std::size_t copy) const {
  if (copy == 0) return make_world();
  if (!copy_factory_) {
    return Status::invalid(
        fmt::format("model '{}' has no way to build copy {} of its world", name_, copy));
  }
  return copy_factory_(copy);
}

std::size_t Model::add_action(std::string name) {
  Action a;
  a.name = std::move(name);
  actions_.push_back(std::move(a));
  return actions_.size() - 1;
}

std::size_t Model::add_family(ActionId a) {
  PROWL_CHECK(a + 1 == actions_.size() && actions_[a].family < 0 &&
                  actions_[a].preconditions.empty() && !actions_[a].run,
              fmt::format("action '{}': declare its parameters first, right after action(), and "
                          "before its when(), its run() and the next action",
                          actions_[a].name));
  ActionFamily f;
  f.name = actions_[a].name;
  f.first = a;
  families_.push_back(std::move(f));
  actions_[a].family = static_cast<std::int32_t>(families_.size() - 1);
  return families_.size() - 1;
}

void Model::set_family_actions(std::size_t f, std::vector<Action> actions) {
  const ActionFamily& family = families_[f];
  PROWL_CHECK(
      family.first < actions_.size() &&
          std::all_of(actions_.begin() + family.first, actions_.end(),
                      [f](const Action& a) { return a.family == static_cast<std::int32_t>(f); }),
      fmt::format("action '{}': an action with parameters is built in one go, before the "
                  "next action is added",
                  family.name));
  PROWL_CHECK(actions.size() == family.count(), "set_family_actions: one action per combination");
  if (family.in_state()) {
    state_domains_ = true;
    gate_places(family, actions);
  }
  actions_.resize(family.first);
  for (Action& a : actions) {
    a.family = static_cast<std::int32_t>(f);
    actions_.push_back(std::move(a));
  }
}

void Model::gate_places(const ActionFamily& family, std::vector<Action>& actions) {
  auto shared = std::make_shared<const ActionFamily>(family);
  for (std::size_t k = 0; k < actions.size(); ++k) {
    // Combination 0 (every parameter at its first value or place) reports a failure to work
    // the values out, once.
    const bool first_place = k == 0;
    Action& a = actions[k];
    a.preconditions.insert(
        a.preconditions.begin(), [shared, k, first_place](const World& w, const Context& c) {
          std::string error;
          return shared->args_in(k, w, c, &error).has_value() || (first_place && !error.empty());
        });
    if (!a.run) continue;
    a.run = [shared, k, inner = std::move(a.run)](Step& step) -> Outcome {
      std::string error;
      if (!shared->args_in(k, step.world, step.context, &error)) {
        return error.empty() ? Outcome::skipped("no value at this place in this state")
                             : Outcome::error(error);
      }
      return inner(step);
    };
  }
}

std::string Model::label(ActionId a, const World& world, const Context& context) const {
  const Action& action = actions_[a];
  if (action.family < 0) return action.name;
  const ActionFamily& family = families_[static_cast<std::size_t>(action.family)];
  if (!family.in_state()) return action.name;
  return family.name_in(a - family.first, world, context);
}

ActionId Model::resolve(std::string_view name, const World& world, const Context& context) const {
  if (const ActionId a = find_action(name); a != kNoAction) return a;
  for (const ActionFamily& family : families_) {
    if (!family.in_state() || !name.starts_with(family.name + "(")) continue;
    if (const auto k = family.find_in(name, world, context)) {
      return static_cast<ActionId>(family.first + *k);
    }
  }
  return kNoAction;
}

bool Model::may_name(std::string_view name) const {
  if (find_action(name) != kNoAction) return true;
  return std::any_of(families_.begin(), families_.end(), [&](const ActionFamily& family) {
    return family.in_state() && name.starts_with(family.name + "(") && name.ends_with(')');
  });
}

ActionId Model::variant(ActionId a, std::size_t param, std::size_t value) const {
  const ActionFamily& family = families_[static_cast<std::size_t>(actions_[a].family)];
  std::vector<std::size_t> choice = family.choice(a - family.first);
  choice[param] = value;
  return static_cast<ActionId>(family.first + family.index(choice));
}

std::size_t Model::add_invariant(std::string name, std::source_location where) {
  Invariant inv;
  inv.name = std::move(name);
  inv.where = {where.file_name(), where.line()};
  invariants_.push_back(std::move(inv));
  return invariants_.size() - 1;
}

ActionBuilder Model::action(std::string name) { return {*this, add_action(std::move(name))}; }
InvariantBuilder Model::invariant(std::string name, std::source_location where) {
  return {*this, add_invariant(std::move(name), where)};
}

Model& Model::state_key(std::string key) {
  state_keys_.push_back(std::move(key));
  return *this;
}

ActionId Model::find_action(std::string_view name) const {
  for (std::size_t i = 0; i < actions_.size(); ++i) {
    if (actions_[i].name == name) return static_cast<ActionId>(i);
  }
  return kNoAction;
}

Status Model::validate() const {
  auto bad = [&](std::string what) {
    return Status::invalid(fmt::format("model '{}': {}", name_, what));
  };
  if (!world_factory_) return bad("no world: call set_world() or use ObjectModel");
  if (actions_.empty()) return bad("no actions");
  if (actions_.size() >= kNoAction) return bad("too many actions");
  std::set<std::string_view> names;
  for (const auto& a : actions_) {
    if (a.name.empty()) return bad("an action has an empty name");
    if (!names.insert(a.name).second) {
      return bad(fmt::format("duplicate action name '{}': action names must be unique", a.name));
    }
  }
  for (const auto& a : actions_) {
    if (!a.run) return bad(fmt::format("action '{}' has no code to run: call .run(...)", a.name));
    if (!(a.weight > 0)) {
      return bad(fmt::format("action '{}' has weight {}: weights must be > 0", a.name, a.weight));
    }
    for (const auto& dep : a.after) {
      if (!names.count(dep)) {
        return bad(fmt::format("action '{}' depends on unknown action '{}' (after:)", a.name, dep));
      }
    }
  }
  std::set<std::string_view> inv_names;
  for (const auto& inv : invariants_) {
    if (inv.name.empty()) return bad("an invariant has an empty name");
    if (!inv_names.insert(inv.name).second) {
      return bad(fmt::format("duplicate invariant name '{}'", inv.name));
    }
    if (!inv.check) {
      return bad(fmt::format("invariant '{}' has no check: call .check(...)", inv.name));
    }
  }
  std::set<std::string_view> keys;
  for (const auto& k : state_keys_) {
    if (!keys.insert(k).second) return bad(fmt::format("state key '{}' declared twice", k));
  }
  return Status::ok();
}

}  // namespace prowl
