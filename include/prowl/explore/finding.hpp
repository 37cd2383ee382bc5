// Findings: what the exploration reports about the system under test, as plain data. A finding
// carries the steps that reproduce it from the initial state, each with its seed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "prowl/core/action.hpp"
#include "prowl/core/invariant.hpp"
#include "prowl/core/severity.hpp"

namespace prowl {

enum class FindingKind {
  kInvariant,       // an invariant failed
  kActionError,     // an action threw or returned an error
  kNondeterminism,  // replaying a path did not reach the same state
  kServiceCrashed,  // a system died during the step (System::died()): a service exited or was
                    // killed; the finding is named after the system
};
std::string_view to_string(FindingKind kind);

struct TraceStep {
  std::string action;
  std::uint64_t seed = 0;
  std::string outcome;  // "ok", "rejected" or "error"; "" when not known (not replayed)
  std::string detail;
  // The HTTP request the step sent and its answer, when it sent one (filled by the replay that
  // confirms a finding, like outcome and detail).
  std::optional<HttpExchange> http{};
};

struct Finding {
  FindingKind kind = FindingKind::kInvariant;
  std::string name;    // invariant name, or the failing action's name
  std::string action;  // the last step's action ("" when the initial state fails)
  Severity severity = Severity::kHigh;
  std::string message;
  std::vector<TraceStep> steps;  // from the initial state; the last one fails
  bool confirmed = false;        // a replay from the initial state reproduced it
  // Why it is not confirmed, when it is not: "it did not happen when replayed from the initial
  // state", "interrupted before it could be replayed", "confirmation is off".
  std::string unconfirmed;
  std::size_t shrunk_from = 0;  // steps before shrinking (0: not shrunk)
  std::string state;            // description of the failing state, when systems describe it
  // A file that shows it, when a report should point at one other than its invariant's
  // declaration: a fuzz bucket's kept trace. Unknown (empty) for the explorer's findings.
  SourceLocation where{};
};

}  // namespace prowl
