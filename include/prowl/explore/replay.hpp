// Replayer: runs a sequence of steps (action name and seed) from the initial state, with the same
// enabledness rules and invariant checks as the explorer. Used to confirm findings, to shrink
// them, and by `replay`. The World must have been begun; the replayer resets it first.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "prowl/explore/finding.hpp"
#include "prowl/explore/model.hpp"

namespace prowl {

struct ReplayFailure {
  FindingKind kind = FindingKind::kInvariant;
  std::string name;
  Severity severity = Severity::kHigh;
  std::string message;
  std::size_t after_steps = 0;  // failing after this many steps (0: the initial state)
};

struct ReplayResult {
  // The steps that were run, one per step (a skipped one with outcome "skipped"), with their
  // outcomes and details.
  std::vector<TraceStep> executed;
  // The failures of the first failing step (several invariants can fail at once), or of every
  // step when the replay goes on past failures.
  std::vector<ReplayFailure> failures;
  bool failed() const { return !failures.empty(); }
  // The first failure with this kind and name, or nullptr; with after_steps, only one that
  // happened after that many steps.
  const ReplayFailure* find(FindingKind kind, std::string_view name,
                            std::optional<std::size_t> after_steps = std::nullopt) const;
  // Why the replay could not go on (unknown action, action not enabled); empty if it could.
  std::string error;
  std::size_t error_step = 0;  // 1-based step of `error`
  // A signal arrived during the replay (prowl/core/interrupt.hpp): it stopped before the next step
  // (a step the signal cut short is not listed as failed).
  bool interrupted = false;
};

class Replayer {
 public:
  Replayer(const Model& model, World& world);
  ~Replayer();
  // Resets the world and runs the steps, stopping after the first failing step unless
  // keep_going (an action error, or a system that died, always stops: the state is unknown after
  // it), and before the next step when a signal arrives (ReplayResult::interrupted). A system that
  // died during a step (System::died()) is a kServiceCrashed failure named after the system.
  Result<ReplayResult> run(std::span<const TraceStep> steps, bool keep_going = false);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Replays a finding; true when the same failure (kind and name) happens after its last step.
Result<bool> confirm(const Model& model, World& world, const Finding& finding);

// Delta-debugging: removes chunks of steps while the same failure (kind and name) still happens,
// and truncates at the failure. Returns the shortest sequence found; a signal, or `go_on`
// answering false before a candidate, ends the search (the shortest found so far is returned).
Result<std::vector<TraceStep>> shrink(const Model& model, World& world, const Finding& finding,
                                      const std::function<bool()>& go_on = {});

}  // namespace prowl
