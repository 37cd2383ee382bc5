// What one step of the exploration is made of, whichever loop runs it: the Lane it runs on (the
// explorer's world or a worker's copy) and the Executed record of what came of it, which the
// explorer commits to the graph and the findings. Private to the explorer.
#pragma once

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "executor.hpp"
#include "prowl/core/fingerprint.hpp"
#include "prowl/core/ids.hpp"
#include "prowl/world/system.hpp"
#include "prowl/world/world.hpp"

namespace prowl::detail {

// A pair that ran (or was meant to), waiting to be committed.
struct Executed {
  static constexpr std::size_t kNoSystem = ~std::size_t{0};

  Pair pair;
  bool ran = false;        // false: skipped, over its run limit, not reached or abandoned
  bool error = false;      // the action failed: nothing to add
  bool violation = false;  // a finding on this step (before-invariant or action error)
  Outcome::Kind kind = Outcome::Kind::kOk;
  Fingerprint fp;
  std::vector<std::uint16_t> facts;  // the successor's facts, when the model tracks any
  std::vector<std::pair<std::size_t, std::string>> before;    // before-invariants failing at s
  std::vector<std::pair<std::size_t, std::string>> failures;  // after-invariants that failed
  std::string detail;   // the step's Outcome::detail (not on the typed byte-image path)
  std::string message;  // the action's message when error (and no system died)
  // A system died during the step (System::died()): its index in the world and the message.
  std::size_t crashed = kNoSystem;
  std::string crash;

  // Ready for pair p: nothing ran yet. Keeps the vectors' memory.
  void reset(Pair p) {
    pair = p;
    ran = false;
    error = false;
    violation = false;
    kind = Outcome::Kind::kOk;
    before.clear();
    failures.clear();
    crashed = kNoSystem;
  }
};

// The last step that ran on a world: a service of that world that died while idle after it is
// reported for it.
struct LastStep {
  Pair pair{kNoState, kNoAction};
  std::string outcome;
  std::string detail;
};

// A world the explorer steps on, with the executor on it: the explorer's own (one worker), or a
// worker's copy. Where the world is, the explorer's restore planner tracks for its own world with
// one worker; a worker's lane tracks it in `at`.
struct Lane {
  World* world = nullptr;
  Executor* exec = nullptr;
  StateId at = kNoState;  // workers: the state the world holds; kNoState: not known
  LastStep last;
  // The explorer's own world with one worker, as one byte image: a step's fingerprint is the
  // bytes' hash (null otherwise).
  const ByteImage* image = nullptr;
  FingerprintFn image_hash = nullptr;
};

// Whether a system of `world` died during step (s, a); if so fills item.crashed and item.crash.
bool detect_crash(const World& world, const Model& model, ActionId a, Executed& item);

}  // namespace prowl::detail
