// Mcts: Monte Carlo tree search over the explored states, steering towards the parts of the graph
// that keep yielding new states and violations.
//
// The tree is the discovery tree: a state's children are the states first discovered from it, so
// every state sits in the tree exactly once and a walk from the initial state can reach every
// unexplored pair. Transitions into states already known are not tree edges: following them would
// make cycles (a reset leads back to the root), share one node's statistics between many paths,
// and leave "nothing left below this node" undecidable without a graph search.
//
// A pick starts at the initial state. A node with unexplored pairs returns one of them, drawn at
// random from that node's pairs (expansion). Otherwise the walk descends to a child that is not
// exhausted: an unvisited child first (in discovery order), else the child maximizing
// UCB1 = reward/visits + C * sqrt(ln(parent visits) / visits); the parent's visits are the total
// visits over the children being compared (UCT). A node is exhausted when it has no unexplored
// pairs and all its children are exhausted; the flag propagates up the tree, so finished subtrees
// are never walked again. observe() adds the step's reward (new_state_reward for a new state, plus
// violation_reward for a finding) to every node on the path from the initial state to the picked
// state, one visit each: violations steer the search, not only new states. Pairs the walk cannot
// reach (states notified without a parent) come from a fallback list, so the search is complete.
//
// Cost: a pick walks one root-to-node path of the discovery tree and scans the children of each
// node on it (at most one per action): O(depth * A) for A actions, where depth is the node's depth
// in the discovery tree (at least its shortest-path depth). observe() is O(depth). This is above
// the O(log n) per pick of the other strategies: the walk, one cache miss per level, is the price
// of steering. On in-memory models a step costs about ten times a BFS step (counters with 117,649
// states: ~22 levels per pick); against a live target it disappears in the cost of the action.
// Memory: about 90 bytes per state (a node and its entry in its parent's child list) plus one
// ActionId per unexplored pair. Owns its tree and its Rng; driven from one thread.
#pragma once

#include <cstdint>
#include <numbers>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/explore/strategy.hpp"

namespace prowl {

class Mcts final : public Strategy {
 public:
  static constexpr double kDefaultExplorationWeight = std::numbers::sqrt2;  // UCB1's own C
  static constexpr double kDefaultViolationReward = 10;
  static constexpr double kDefaultNewStateReward = 1;

  // REQUIRES: every argument finite and >= 0.
  explicit Mcts(double exploration_weight = kDefaultExplorationWeight,
                double violation_reward = kDefaultViolationReward,
                double new_state_reward = kDefaultNewStateReward, std::uint64_t seed = 0);

  std::string_view name() const override { return "mcts"; }
  void notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) override;
  std::optional<Pair> pick(const Graph& graph) override;
  void observe(const Graph& graph, const StepResult& result) override;

  double exploration_weight() const { return exploration_weight_; }
  double violation_reward() const { return violation_reward_; }
  double new_state_reward() const { return new_state_reward_; }

  // Read-only statistics of the node of state s: 0 for a state never notified or outside the tree.
  std::uint64_t visits(StateId s) const;
  double reward(StateId s) const;
  bool exhausted(StateId s) const { return s < nodes_.size() && nodes_[s].exhausted; }
  // Unexplored pairs not yet picked.
  std::uint64_t remaining() const { return remaining_; }
  // Picks the tree walk could not reach and the fallback list supplied.
  std::uint64_t fallback_picks() const { return fallback_picks_; }

 private:
  // A child's statistics live in its parent's child list, so choosing a child reads one
  // contiguous array instead of one node per child.
  struct Child {
    double reward = 0;
    std::uint64_t visits = 0;
    StateId id = kNoState;
    bool exhausted = false;
  };
  struct Node {
    StateId parent = kNoState;
    std::uint32_t slot = 0;  // index of this node in its parent's children
    std::uint32_t live = 0;  // children that are not exhausted
    bool known = false;      // notified
    bool exhausted = false;
    std::vector<ActionId> actions;  // unexplored pairs not yet picked
    std::vector<Child> children;    // in discovery order
  };

  void set_exhausted(StateId s, bool exhausted);
  void reserve(StateId s);
  std::optional<Pair> take(const Graph& graph, StateId s);
  // The child to descend to from n (visited `visits` times), or nullptr when all are exhausted.
  const Child* select_child(const Node& n, std::uint64_t visits) const;
  void mark_exhausted(StateId s);
  void revive(StateId s);

  double exploration_weight_;
  double violation_reward_;
  double new_state_reward_;
  Rng rng_;
  std::vector<Node> nodes_;
  std::vector<StateId> open_;  // states notified with pairs, for the fallback
  StateId root_ = kNoState;    // the initial state, once notified
  double root_reward_ = 0;     // the root has no parent to hold its statistics
  std::uint64_t root_visits_ = 0;
  std::uint64_t remaining_ = 0;
  std::uint64_t fallback_picks_ = 0;
};

}  // namespace prowl
