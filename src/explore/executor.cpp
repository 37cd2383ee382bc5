#include "executor.hpp"

#include <algorithm>
#include <exception>
#include <iterator>

#include <fmt/format.h>

namespace prowl::detail {

Executor::Executor(const Model& model, World& world) : model_(model), world_(world) {
  const auto& actions = model.actions();
  std::vector<int> fact(actions.size(), -1);
  std::vector<Fact> sat;
  auto track = [&](ActionId a, Fact limit) {
    if (fact[a] < 0) {
      fact[a] = static_cast<int>(sat.size());
      sat.push_back(limit);
    } else {
      sat[fact[a]] = std::max(sat[fact[a]], limit);
    }
  };
  for (ActionId a = 0; a < actions.size(); ++a) {
    if (actions[a].max_per_path > 0) {
      track(a, static_cast<Fact>(std::min<std::uint32_t>(actions[a].max_per_path, 0xffff)));
    }
    for (const auto& dep : actions[a].after) track(model.find_action(dep), 1);
  }
  deps_.resize(actions.size());
  for (ActionId a = 0; a < actions.size(); ++a) {
    for (const auto& dep : actions[a].after) deps_[a].push_back(fact[model.find_action(dep)]);
  }
  num_facts_ = sat.size();
  if (num_facts_ > 0) facts_of_ = std::move(fact);
  saturation_ = std::move(sat);
  const auto& invariants = model.invariants();
  object_ = model.typed_object(world);
  for (std::size_t i = 0; i < invariants.size(); ++i) {
    if (invariants[i].before()) before_.push_back(i);
    if (invariants[i].after()) after_.push_back(i);
    checks_.push_back(object_ ? model.typed_check(i) : TypedCheck{});
  }
  for (const Action& a : actions) {
    const bool other =
        a.max_per_run > 0 || a.max_per_path > 0 || !a.after.empty() || !a.requires_keys.empty();
    gates_.push_back(
        {other, a.preconditions.data(), a.preconditions.data() + a.preconditions.size()});
    const auto id = static_cast<ActionId>(gates_.size() - 1);
    const std::size_t before = guards_.size();
    if (object_ && !other && model.typed_guards(id, guards_)) {
      typed_.push_back({id, static_cast<std::uint32_t>(guards_.size() - before)});
    } else {
      guards_.resize(before);
      untyped_.push_back(id);
    }
    runs_.push_back(object_ ? model.typed_run(id) : TypedRun{});
  }
  drew_.assign(actions.size(), 0);
  one_guard_each_ =
      !typed_.empty() &&
      std::all_of(typed_.begin(), typed_.end(), [](const TypedAction& t) { return t.guards == 1; });
  enabled_buf_.resize(typed_.size());
  if (world.size() == 1) only_system_ = &world.system(0);
}

bool Executor::enabled(ActionId a, std::span<const Fact> facts,
                       const std::vector<std::uint32_t>* run_counts) const {
  const Action& action = model_.actions()[a];
  if (run_counts && action.max_per_run > 0 && (*run_counts)[a] >= action.max_per_run) return false;
  if (!facts_of_.empty()) {
    for (int f : deps_[a]) {
      if (facts[f] == 0) return false;
    }
    if (action.max_per_path > 0 && facts[facts_of_[a]] >= action.max_per_path) return false;
  }
  const Context& ctx = world_.context();
  for (const auto& key : action.requires_keys) {
    if (!ctx.has(key)) return false;
  }
  for (const auto& pre : action.preconditions) {
    if (!pre(world_, ctx)) return false;
  }
  return true;
}

std::string Executor::why_disabled(ActionId a, std::span<const Fact> facts) const {
  const Action& action = model_.actions()[a];
  if (!facts_of_.empty()) {
    for (std::size_t i = 0; i < deps_[a].size(); ++i) {
      if (facts[deps_[a][i]] == 0) {
        return fmt::format("'{}' has not run on this path (after:)", action.after[i]);
      }
    }
    if (action.max_per_path > 0 && facts[facts_of_[a]] >= action.max_per_path) {
      return fmt::format("it already ran {} times on this path (max_per_path)",
                         action.max_per_path);
    }
  }
  for (const auto& key : action.requires_keys) {
    if (!world_.context().has(key)) return fmt::format("context key '{}' is not set", key);
  }
  return "a precondition does not hold";
}

void Executor::enabled_actions(std::span<const Fact> facts,
                               const std::vector<std::uint32_t>* run_counts,
                               std::vector<ActionId>& out) const {
  out.clear();
  if (one_guard_each_) {
    // The common case: one typed guard per action, evaluated without branching on the answer.
    // Everything in locals: the calls could change any memory the loop would otherwise reread.
    ActionId* const first = enabled_buf_.data();
    ActionId* next = first;
    const TypedAction* const actions = typed_.data();
    const TypedGuard* const guards = guards_.data();
    const std::size_t n = typed_.size();
    const void* const object = object_;
    for (std::size_t i = 0; i < n; ++i) {
      *next = actions[i].action;
      next += guards[i].call(guards[i].fn, object);
    }
    out.assign(first, next);
  } else {
    const TypedGuard* g = guards_.data();
    for (const TypedAction& t : typed_) {
      const TypedGuard* const end = g + t.guards;
      while (g != end && (*g)(object_)) ++g;
      if (g == end) {
        out.push_back(t.action);
      } else {
        g = end;
      }
    }
  }
  if (untyped_.empty()) return;
  const std::size_t typed_enabled = out.size();
  const Context& ctx = world_.context();
  for (ActionId a : untyped_) {
    const Gate& g = gates_[a];
    if (g.other_checks) {
      if (enabled(a, facts, run_counts)) out.push_back(a);
      continue;
    }
    const Precondition* p = g.pre_begin;
    while (p != g.pre_end && (*p)(world_, ctx)) ++p;
    if (p == g.pre_end) out.push_back(a);
  }
  // Both parts are in increasing order; the result must be too.
  if (typed_enabled > 0 && typed_enabled < out.size()) {
    const auto mid = out.begin() + static_cast<std::ptrdiff_t>(typed_enabled);
    merge_scratch_.clear();
    std::merge(out.begin(), mid, mid, out.end(), std::back_inserter(merge_scratch_));
    out.swap(merge_scratch_);
  }
}

void Executor::advance(std::span<const Fact> from, ActionId a, std::span<Fact> to) const {
  std::copy(from.begin(), from.end(), to.begin());
  if (facts_of_.empty()) return;
  const int f = facts_of_[a];
  if (f >= 0 && to[f] < saturation_[f]) ++to[f];
}

Outcome Executor::run_untyped(ActionId a, Rng rng) {
  Outcome out;
  try {
    Step step{world_, world_.context(), rng};
    out = model_.actions()[a].run(step);
  } catch (...) {
    out = caught();
  }
  if (rng.drawn()) drew_[a] = 1;
  return out;
}

Outcome Executor::caught() {
  try {
    throw;
  } catch (const std::exception& e) {
    return Outcome::error(e.what());
  } catch (...) {
    return Outcome::error("unknown exception");
  }
}

Status Executor::fingerprint(std::span<const Fact> facts, Fingerprint& out) const {
  Hasher h;
  Status st = only_system_ ? only_system_->observe(h) : world_.observe(h);
  if (!st) return st;
  if (!model_.state_keys().empty()) world_.context().observe(model_.state_keys(), h);
  if (!facts.empty()) h.add_bytes(facts.data(), facts.size_bytes());
  out = h.finish();
  return Status::ok();
}

Check Executor::safe_check(std::size_t i) const {
  try {
    return model_.invariants()[i].check(world_, world_.context());
  } catch (const std::exception& e) {
    return Check::fail(fmt::format("the check threw: {}", e.what()));
  } catch (...) {
    return Check::fail("the check threw an unknown exception");
  }
}

}  // namespace prowl::detail
