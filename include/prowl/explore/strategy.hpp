// Strategy: decides which (state, action) pair the explorer runs next. A strategy sees the Graph
// read-only and never touches systems. The explorer calls notify() once for every new state with
// its enabled actions (all unexplored), pick() for the next pair, and observe() with what came of
// it. Every pick must be O(1) or O(log n) amortized in the number of states and pairs.
// Strategies are driven from one thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string_view>

#include "prowl/core/ids.hpp"
#include "prowl/core/status.hpp"
#include "prowl/explore/graph.hpp"

namespace prowl {

// What happened when a picked pair ran.
struct StepResult {
  Pair pair;
  StateId target = kNoState;  // kNoState when the action failed or was skipped
  bool new_state = false;
  bool violation = false;  // a finding (invariant or action error) on this step
};

// What a strategy lets the explorer do beyond one pick(), notify() and observe() per step. The
// defaults suit any strategy; each other value is a promise the strategy keeps for a whole run,
// which lets the explorer skip work (BFS promises all four).
struct StrategyTraits {
  // False for a strategy whose observe() does nothing: the explorer then skips the calls.
  bool observes = true;
  // How many pairs the explorer may pick before it reports their results through notify() and
  // observe(). 1 unless later picks do not depend on earlier results (BFS), which lets the
  // explorer run pairs in batches.
  std::size_t lookahead = 1;
  // True for a strategy that always picks every unexplored action of one state, in increasing
  // order, before any pair of another state (BFS). The explorer may then ask pick_state() for
  // whole states instead of pick() for pairs, and run a state's actions back to back.
  bool whole_states = false;
  // True for a strategy that picks states in order of depth, never a deeper one before a
  // shallower one (BFS). With several workers the explorer then runs a pair only once every pair
  // from a shallower state has finished, so that each state gets the depth one worker gives it.
  bool level_order = false;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  virtual std::string_view name() const = 0;

  // A newly discovered state, called once per state; `enabled` lists its enabled actions in
  // increasing order, which are also its unexplored actions in the graph. At this point
  // graph.parent(state) is the state it was discovered from (a later shorter path may change it).
  virtual void notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) = 0;
  // The next pair to run, unexplored in the graph, or nullopt when there is nothing left.
  virtual std::optional<Pair> pick(const Graph& graph) = 0;
  // Feedback on the pair just run (rewards for MCTS, counts for coverage).
  virtual void observe(const Graph& /*graph*/, const StepResult& /*result*/) {}
  // How the explorer may drive this strategy. Asked as a run starts, never per step: it must not
  // change during a run.
  virtual StrategyTraits traits() const { return {}; }
  // The next state whose unexplored actions should all run, or nullopt when there is nothing
  // left. The explorer marks them explored. REQUIRES: traits().whole_states.
  virtual std::optional<StateId> pick_state(const Graph& /*graph*/) {
    PROWL_CHECK(false, "pick_state() on a strategy without traits().whole_states");
    return std::nullopt;
  }
};

}  // namespace prowl
