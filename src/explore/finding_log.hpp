// FindingLog: what a run has found so far. Each finding is kept once per (kind, invariant or
// action, failing action), at the shortest path it was seen at; per invariant, the states where
// it fails, so that a violation is reported for the step that breaks the invariant, not again for
// every step taken from a state that already violates it. Owned by Explorer::Impl; with several
// workers it is used under their lock. Not thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "prowl/core/ids.hpp"
#include "prowl/explore/finding.hpp"
#include "prowl/explore/graph.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/world/world.hpp"
#include "step.hpp"

namespace prowl::detail {

// A finding as first seen: where it happened, not yet turned into steps.
struct Pending {
  FindingKind kind;
  std::size_t index;  // invariant index, system index for crashes, or action id for action errors
  StateId source;     // state the failing step started from (kNoState: the initial state failed)
  ActionId action;    // the failing step (kNoAction: a state check without a step)
  StateId at;         // for state checks: the failing state
  std::string message;
  std::uint32_t length;
  // The failing step's outcome and detail as the exploration saw them (empty when not kept): what
  // a finding that does not reproduce on replay shows for its last step.
  std::string outcome = {};
  std::string detail = {};
  // An action error's: raised by the after-invariants its step broke (error_with_invariants()).
  Severity severity = Severity::kHigh;
};

// An action error whose step also broke after-invariants (`broken`: their indices and messages,
// those that held before the step): the higher of high and their severities, and the error's
// message followed by theirs ("...; after it, invariant 'x' (critical) fails: ..."). The explorer
// and the replay that confirms the finding word it the same way.
std::pair<Severity, std::string> error_with_invariants(
    const Model& model, std::string message,
    const std::vector<std::pair<std::size_t, std::string>>& broken);

// Whether a finding (severity, path length) replaces the one kept for its key: an action's error
// that broke invariants on its way outranks its clean errors however much shorter they are (the
// higher severity first; kCritical is the lowest value), then the shorter path wins. Equal ones
// keep the one kept.
inline bool replaces(Severity severity, std::uint32_t length, Severity kept_severity,
                     std::uint32_t kept_length) {
  return severity != kept_severity ? severity < kept_severity : length < kept_length;
}

class FindingLog {
 public:
  using Key = std::tuple<int, std::size_t, ActionId>;

  explicit FindingLog(const Model& model) : model_(model) {}
  // REQUIRES: before any note; `graph` outlives the log's use.
  void begin(const Graph& graph);

  // Keeps p, or the shorter of p and the finding with its key.
  void record(Pending p);
  const std::map<Key, Pending>& pending() const { return pending_; }
  // Whether no invariant has failed anywhere yet: a step onto a known state finds nothing then.
  bool none_violated() const { return ever_violated_.empty(); }

  // Records that invariant i fails in state s; false if it was known.
  bool mark_violating(std::size_t i, StateId s, const std::string& message);
  bool violates(std::size_t i, StateId s) const { return violating_[i].count(s) != 0; }
  // Whether an after-invariant is known to fail in s. Only reads: threads may ask at once while
  // nothing notes anything.
  bool violated_after(StateId s) const {
    for (std::size_t i : ever_violated_) {
      if (model_.invariants()[i].after() && violates(i, s)) return true;
    }
    return false;
  }
  // Whether an after-invariant that item.failures holds was not failing in s, the step's source:
  // the step would be reported as breaking it.
  bool breaks_invariant(const Executed& item, StateId s) const;

  // A "before" invariant i that fails in s, checked before a step from s (or at the start, for
  // the initial state): a finding at s unless it was known. True when it is new.
  bool note_before(std::size_t i, StateId s, const std::string& message);
  // Marks the after-invariants that failed in t (item.failures, step item.pair) and records a
  // finding for each that held in the step's source. True when there is one.
  bool note_failures(const Executed& item, StateId t);
  // Step (s, a) reached t, a known state checked before: a finding for each after-invariant that
  // fails in t and held in s. True when there is one.
  bool note_known_failures(StateId s, ActionId a, StateId t);
  // Step (s, a) reached t, a new state whose after-invariant i fails: marks it, and a finding
  // unless it failed in s already. True when there is one.
  bool note_new_failure(StateId s, ActionId a, StateId t, std::size_t i, const std::string& msg);
  // Step item.pair failed (threw or returned an error) with `message`; item.failures are the
  // after-invariants that failed on the state the step left (those that held in its source count).
  void note_action_error(const Executed& item, std::string message);
  // A system died during step item.pair (detect_crash()).
  void note_crash(Executed& item);
  // A system of `world` that died while idle between steps and was restarted by the restore just
  // made (World::take_unreported_death()): one service_crashed finding, for the last step that
  // ran on that world (`last`, with its outcome and detail), or for the initial state when none
  // had. Not for in-process worlds, which cannot die.
  void note_idle_death(World& world, const LastStep& last);
  // Step (s, a) does not repeat: running it twice from s gave different results.
  void note_nondeterminism(StateId s, ActionId a);

 private:
  std::uint32_t after(StateId s) const { return graph_->depth(s) + 1; }

  const Model& model_;
  const Graph* graph_ = nullptr;
  std::map<Key, Pending> pending_;
  std::vector<std::unordered_map<StateId, std::string>> violating_;
  std::vector<std::size_t> ever_violated_;  // invariants with at least one violating state
};

}  // namespace prowl::detail
