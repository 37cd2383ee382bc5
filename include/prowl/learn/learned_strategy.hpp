// The learned strategy (docs/learned.md, "On your own model"): a move policy trained by
// `prowl train` (on er-app, or on a model) picks the explorer's next pair, as it picked moves in
// the environment it was trained in. It keeps a graph memory of what the explorer reported: a
// node per state, the pairs run from it and where they led, and its unexplored pairs.
//
// The policy reads a window of that memory: the states within reach of the current state over
// the known transitions, either way, breadth first, at most `window` of them (256 by default), so
// that a pick costs O(window · A) for A actions whatever the size of the graph, as MCTS's pick is
// bounded by its depth (prowl/strategy/mcts.hpp). Frontier distances are measured inside it.
//
// walk (the paper's setting): the moves are the current state's unexplored pairs, the pairs of it
// already run whose target is in the window, and back (to the state it came from). A known move or
// back only moves the memory's current state (the explorer restores to a state when it runs a
// pair from it; nothing runs for a move), and counts as a step of the budget; the walk goes on
// until the policy picks an unexplored pair, at most 64 moves, after which it goes to the nearest
// state with unexplored pairs. This is the cheaper mode on worlds that restore by replaying a path
// from the start, since the next pair tends to start where the last one ended.
// jump (the default): the candidates are the unexplored pairs of the nearest states (breadth first
// from the current state, up to 32 states) that have any; each is scored by the policy as if the
// agent stood at its state, and one is drawn from the softmax over all of them.
//
// Either way the pick is drawn from the policy's softmax with the run's seed (the same seed gives
// the same picks); outside the window, the newest state with unexplored pairs is taken, so the
// search is complete. Driven from one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/explore/strategy.hpp"
#include "prowl/learn/a2c.hpp"

namespace prowl::learn {

struct LearnedOptions {
  bool walk = false;    // walk instead of jump
  int budget = 2000;    // the steps the "budget spent" feature counts up to
  int window = 256;     // states the policy reads, at most
  int candidates = 32;  // jump: states whose pairs are scored, at most
  int walk_moves = 64;  // walk: moves without a pick before going to the nearest open state
  std::uint64_t seed = 0;
};

class LearnedStrategy final : public Strategy {
 public:
  LearnedStrategy(MovePolicy policy, LearnedOptions options);

  std::string_view name() const override { return "learned"; }
  void notify(const Graph& graph, StateId state, std::span<const ActionId> enabled) override;
  std::optional<Pair> pick(const Graph& graph) override;
  void observe(const Graph& graph, const StepResult& result) override;

  const LearnedOptions& options() const { return options_; }
  // The state the memory's agent is at.
  StateId current() const { return current_; }
  // Picks that came from outside the window (the newest open state), and walks cut at walk_moves.
  std::uint64_t fallback_picks() const { return fallback_picks_; }

 private:
  struct Node {
    bool known = false;
    int visits = 0;
    std::vector<ActionId> untried;                    // unexplored pairs not yet picked
    std::vector<std::pair<ActionId, StateId>> tried;  // kNoState: the pair failed
    std::vector<StateId> into;                        // states with a known pair into this one
  };
  // The window around current_: window_ lists its states (current_ first), local_of() their index
  // in memory_.
  void build_window();
  int local_of(StateId s) const;
  std::optional<Pair> walk_pick();
  std::optional<Pair> jump_pick();
  // A pair of state s drawn by the policy among its untried pairs only.
  Pair take(StateId s, std::size_t untried_index);
  std::optional<Pair> fallback();
  std::size_t draw(const Eigen::VectorXd& scores);
  Node& node(StateId s);

  MovePolicy policy_;
  LearnedOptions options_;
  Rng rng_;
  std::vector<Node> nodes_;
  std::vector<StateId> open_;  // states notified with pairs, newest last (stale ones skipped)
  std::vector<StateId> path_;  // walk: the states the agent came from (back pops it)
  StateId current_ = kNoState;
  std::optional<Pair> pending_;
  int steps_ = 0;
  std::uint64_t fallback_picks_ = 0;
  // The window: its states, their local index (valid where stamp_ == generation_), its memory.
  std::vector<StateId> window_;
  std::vector<int> local_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t generation_ = 0;
  Memory memory_;
};

// Registers "learned" with the strategy factory (prowl/strategy/factory.hpp): options policy=FILE
// (required), walk=true|false, budget=N, window=N. Idempotent.
void register_learned_strategy();

}  // namespace prowl::learn
