// The learned strategy (docs/learned.md, "On your own model"): a move or graph policy trained by
// `prowl train` (on er-app) or `PROGRAM train` (on a model) picks the explorer's next pair, as it
// picked moves in the environment it was trained in. It keeps a graph memory of what the explorer
// reported: a node per state, the pairs run from it and where they led, its unexplored pairs, and
// per action how many of its pairs ran and how many reached a new state (the label record of the
// move features: a model's labels are its actions).
//
// jump (the default): an unexplored pair's features need nothing beyond its state (its target is
// unknown): the budget spent and its action's record; each candidate state is shown as a state of
// one unexplored pair, since training never compares moves of states with different numbers of
// them (a decision's moves share their state) and so gives that number no meaning across states.
// The candidates are the unexplored pairs of the current state and of up to 32 states drawn from
// all that have any, each in proportion to its unexplored pairs (by rejection against the most
// pairs a state was notified with, at most 8 tries), as random draws pairs; one is drawn from the
// policy's softmax over their scores. A pick costs
// O(32 · A) for A actions, whatever the size of the graph.
// walk (the paper's setting, --walk): the moves are the current state's unexplored pairs, the
// pairs of it already run whose target is in the window, and back (to the state it came from).
// The policy reads a window of the memory: the states within reach of the current state over the
// known transitions, either way, breadth first, at most `window` (256), so a move costs
// O(window · A), as MCTS's pick is bounded by its depth (prowl/strategy/mcts.hpp); frontier
// distances are measured inside it. A known move or back only moves the memory's current state
// (the explorer restores to a state when it runs a pair from it; nothing runs for a move) and
// counts as a step of the budget and a try of its label; the walk goes on until the policy picks
// an unexplored pair, at most 64 moves, after which it takes a pair of the newest state with
// unexplored pairs. The next pair tends to start where the last ended, which suits worlds that
// restore by replaying a path.
//
// Either way the pick is drawn with the run's seed: the same seed gives the same picks. The
// search is complete (it ends when no state has unexplored pairs). Driven from one thread.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "prowl/core/rng.hpp"
#include "prowl/explore/strategy.hpp"
#include "prowl/learn/a2c.hpp"
#include "prowl/learn/policy_file.hpp"

namespace prowl::learn {

struct LearnedOptions {
  bool walk = false;    // walk instead of jump
  int budget = 2000;    // the steps the "budget spent" feature counts up to
  int window = 256;     // walk: states of the memory the policy reads, at most
  int candidates = 32;  // jump: states drawn whose pairs are scored
  int walk_moves = 64;  // walk: moves without a pick before taking the newest open state
  std::uint64_t seed = 0;
};

class LearnedStrategy final : public Strategy {
 public:
  // A move policy or a graph policy (prowl train --network graph).
  LearnedStrategy(AnyPolicy policy, LearnedOptions options);

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
    int live = -1;                  // its index in live_, while it has untried pairs
    std::vector<ActionId> untried;  // unexplored pairs not yet picked
    std::vector<std::pair<ActionId, StateId>> tried;  // kNoState: the pair failed
    std::vector<StateId> into;                        // states with a known pair into this one
  };
  // The window around current_: window_ lists its states (current_ first), local_of() their index
  // in memory_.
  void build_window();
  void next_generation();
  int local_of(StateId s) const;
  std::optional<Pair> walk_pick();
  std::optional<Pair> jump_pick();
  // A pair of state s drawn by the policy among its untried pairs only.
  Pair take(StateId s, std::size_t untried_index);
  std::optional<Pair> fallback();
  // The move of a pair of `action` to local node `target` (-1: unknown), with the action's record.
  Move move_of(ActionId action, int target);
  std::size_t draw(const Eigen::VectorXd& scores);
  // The policy's scores of the view's moves; `distance` is frontier_distance(*view.memory). A
  // recurrent policy reads carry_ and leaves in `next` the carry of deciding here.
  Eigen::VectorXd scores(const View& view, const std::vector<int>& distance,
                         GraphPolicy::Carry& next) const;
  Node& node(StateId s);

  AnyPolicy policy_;
  LearnedOptions options_;
  Rng rng_;
  std::vector<Node> nodes_;
  std::vector<StateId> open_;     // states notified with pairs, newest last (stale ones skipped)
  std::vector<StateId> live_;     // the states with untried pairs, in no order
  std::size_t most_enabled_ = 1;  // the most pairs a state was notified with
  std::vector<StateId> path_;     // walk: the states the agent came from (back pops it)
  StateId current_ = kNoState;
  std::vector<Pair> pending_;  // picked, not yet observed (several with several workers)
  Pair last_pick_;
  GraphPolicy::Carry carry_;  // a recurrent policy's, after the decisions so far
  // By action: the pairs of it run (and walked along), and how many of them reached a new state:
  // the label record of the move features (the labels of a model's moves are its actions).
  std::vector<std::pair<int, int>> actions_;
  int back_tries_ = 0;
  int steps_ = 0;
  std::uint64_t fallback_picks_ = 0;
  // The window: its states, their local index (valid where stamp_ == generation_), its memory.
  std::vector<StateId> window_;
  std::vector<int> local_;
  std::vector<std::uint32_t> stamp_;
  std::uint32_t generation_ = 0;
  Memory memory_;
};

// The move policy in the file at `path`, for models: one whose training offered back moves
// (er-app, or a model). An invalid Status naming the file otherwise.
Result<AnyPolicy> read_policy_for_models(const std::string& path);
// The same for a policy file read already.
Result<AnyPolicy> policy_for_models(const PolicyFile& file, const std::string& path);

// Registers "learned" with the strategy factory (prowl/strategy/factory.hpp): options policy=FILE
// (required), walk=true|false, budget=N (default: the file's budget=, which PROGRAM train writes;
// else 2000), window=N. Idempotent.
void register_learned_strategy();

}  // namespace prowl::learn
