#include "finding_log.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace prowl::detail {

void FindingLog::begin(const Graph& graph) {
  graph_ = &graph;
  violating_.assign(model_.invariants().size(), {});
}

void FindingLog::record(Pending p) {
  const Key key{static_cast<int>(p.kind), p.index, p.action};
  auto it = pending_.find(key);
  if (it == pending_.end()) {
    pending_.emplace(key, std::move(p));
    return;
  }
  const Pending& kept = it->second;
  if (replaces(p.severity, p.length, kept.severity, kept.length)) {
    it->second = std::move(p);
  }
}

bool FindingLog::mark_violating(std::size_t i, StateId s, const std::string& message) {
  if (violating_[i].empty()) ever_violated_.push_back(i);
  return violating_[i].emplace(s, message).second;
}

bool FindingLog::breaks_invariant(const Executed& item, StateId s) const {
  for (const auto& [i, msg] : item.failures) {
    if (!violates(i, s)) return true;
  }
  return false;
}

bool FindingLog::note_before(std::size_t i, StateId s, const std::string& message) {
  if (!mark_violating(i, s, message)) return false;
  record({FindingKind::kInvariant, i, kNoState, kNoAction, s, message, graph_->depth(s)});
  return true;
}

bool FindingLog::note_failures(const Executed& item, StateId t) {
  const auto [s, a] = item.pair;
  bool any = false;
  for (const auto& [i, msg] : item.failures) {
    mark_violating(i, t, msg);
    if (violates(i, s)) continue;  // broken before this step
    record({FindingKind::kInvariant, i, s, a, kNoState, msg, after(s),
            std::string(to_string(item.kind)), item.detail});
    any = true;
  }
  return any;
}

bool FindingLog::note_known_failures(StateId s, ActionId a, StateId t) {
  bool any = false;
  for (std::size_t i : ever_violated_) {
    if (!model_.invariants()[i].after()) continue;  // "before" ones are not a step's doing
    auto it = violating_[i].find(t);
    if (it == violating_[i].end() || violates(i, s)) continue;
    record({FindingKind::kInvariant, i, s, a, kNoState, it->second, after(s)});
    any = true;
  }
  return any;
}

bool FindingLog::note_new_failure(StateId s, ActionId a, StateId t, std::size_t i,
                                  const std::string& msg) {
  mark_violating(i, t, msg);
  if (violates(i, s)) return false;  // broken before this step
  record({FindingKind::kInvariant, i, s, a, kNoState, msg, after(s)});
  return true;
}

std::pair<Severity, std::string> error_with_invariants(
    const Model& model, std::string message,
    const std::vector<std::pair<std::size_t, std::string>>& broken) {
  Severity severity = Severity::kHigh;
  for (const auto& [i, msg] : broken) {
    const Invariant& inv = model.invariants()[i];
    severity = std::min(severity, inv.severity);  // kCritical is the lowest value
    message += fmt::format("; after it, invariant '{}' ({}) fails: {}", inv.name,
                           to_string(inv.severity), msg);
  }
  return {severity, std::move(message)};
}

void FindingLog::note_action_error(const Executed& item, std::string message) {
  const auto [s, a] = item.pair;
  std::vector<std::pair<std::size_t, std::string>> broken;
  for (const auto& failure : item.failures) {
    if (!violates(failure.first, s)) broken.push_back(failure);
  }
  auto [severity, text] = error_with_invariants(model_, std::move(message), broken);
  record({FindingKind::kActionError, a, s, a, kNoState, std::move(text), after(s), "error",
          item.detail, severity});
}

void FindingLog::note_crash(Executed& item) {
  const auto [s, a] = item.pair;
  // The step's own outcome: an answer may have come before the service died.
  record({FindingKind::kServiceCrashed, item.crashed, s, a, kNoState, std::move(item.crash),
          after(s), std::string(to_string(item.kind)), item.detail});
}

void FindingLog::note_idle_death(World& world, const LastStep& last) {
  if (world.cheap()) return;
  const auto [system, why] = world.take_unreported_death();
  if (system == nullptr) return;
  std::size_t index = 0;
  while (&world.system(index) != system) ++index;
  const auto [s, a] = last.pair;
  if (s == kNoState) {
    record({FindingKind::kServiceCrashed, index, kNoState, kNoAction, 0,
            fmt::format("service '{}' died before the first step: {}", system->name(), why), 0});
    return;
  }
  record({FindingKind::kServiceCrashed, index, s, a, kNoState,
          fmt::format("service '{}' died after '{}', between steps: {}", system->name(),
                      model_.actions()[a].name, why),
          after(s), last.outcome, last.detail});
}

void FindingLog::note_nondeterminism(StateId s, ActionId a) {
  record({FindingKind::kNondeterminism, a, s, a, kNoState,
          fmt::format("running '{}' twice from the same state gave different results: the "
                      "action is not deterministic",
                      model_.actions()[a].name),
          after(s)});
}

}  // namespace prowl::detail
