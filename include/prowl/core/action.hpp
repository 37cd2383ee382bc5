// Action: one thing that can be done to the system under test, and when. Actions are plain data
// held by a Model; the code to run is a function of a Step (the world, its context and a seeded
// random generator for this step). An action that throws is a finding, not the end of the run.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "prowl/core/context.hpp"
#include "prowl/core/ids.hpp"
#include "prowl/core/rng.hpp"

namespace prowl {

class World;

// What an action's code gets. References are valid for the duration of the call only.
struct Step {
  World& world;
  Context& context;
  Rng& rng;  // seeded per step: the same step replays with the same random choices
};

// One HTTP request and its answer, as structured data for reports (the detail text shows the same
// exchange on one line). Secrets are already redacted.
struct HttpExchange {
  std::string method;
  std::string url;  // with the query
  int status = 0;   // 0: no answer (not sent, or the connection failed)
  std::string request_body{};
  std::string response_body{};
  friend bool operator==(const HttpExchange&, const HttpExchange&) = default;
};

// How a run went. kRejected: the system refused as specified (an expected failure; still a
// transition). kSkipped: the action declined before touching the system (not a transition).
// kError: an unexpected failure, reported as an action_error finding.
struct Outcome {
  enum class Kind { kOk, kRejected, kSkipped, kError };
  Kind kind = Kind::kOk;
  std::string message;
  std::string detail;  // free text for reports (a request and its response, say)
  // The request the step sent, for actions that speak HTTP; null otherwise (shared: outcomes are
  // copied, and most steps have none).
  std::shared_ptr<const HttpExchange> http{};

  static Outcome ok(std::string detail = {}) { return {Kind::kOk, {}, std::move(detail), {}}; }
  static Outcome rejected(std::string message) {
    return {Kind::kRejected, std::move(message), {}, {}};
  }
  static Outcome skipped(std::string message = {}) {
    return {Kind::kSkipped, std::move(message), {}, {}};
  }
  static Outcome error(std::string message) { return {Kind::kError, std::move(message), {}, {}}; }
};

std::string_view to_string(Outcome::Kind kind);

using Precondition = std::function<bool(const World&, const Context&)>;

struct Action {
  std::string name;
  std::string description;
  // Actions that must have run on the path to the current state.
  std::vector<std::string> after;
  // Context keys that must be bound.
  std::vector<std::string> requires_keys;
  // Limits on how often the action runs: on one path from the initial state, and in the whole run.
  // 0 means unlimited.
  std::uint32_t max_per_path = 0;
  std::uint32_t max_per_run = 0;
  // Relative weight for weighted strategies. REQUIRES: > 0.
  double weight = 1.0;
  // All must hold for the action to be enabled.
  std::vector<Precondition> preconditions;
  std::function<Outcome(Step&)> run;
  // The action with parameters (Model::families()) this action is one combination of, or -1.
  std::int32_t family = -1;
};

}  // namespace prowl
