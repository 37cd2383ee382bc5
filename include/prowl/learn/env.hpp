// Exploration environments (docs/learned.md; seed 002, GMetaExp): an agent moves over a graph it
// cannot see, one step per move, and is rewarded for each node it covers first. An Env draws a
// graph per reset(seed) from its distribution, offers the moves of the node it is at, and keeps
// the graph memory: the nodes visited and the moves tried, with where they led.
//
// Reward (the paper's Eq. 2): r_t = (covered_t − covered_{t−1}) / |V|, |V| every node of the
// graph; reset() returns r_0 = 1/|V| for the start, so the rewards of an episode sum to its final
// coverage. An episode ends when every node is covered or the step budget T is spent.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "prowl/core/status.hpp"

namespace prowl::learn {

// What the agent sees of a move before it takes it.
enum class Mode {
  kVision,  // only the open moves of its node are offered (the paper's "1-hop vision")
  kBump,    // every direction is offered; a blocked one costs a step and is then known blocked
};

std::string_view mode_name(Mode mode);
std::optional<Mode> parse_mode(std::string_view name);

// One move offered at the current node.
struct Move {
  std::string label;  // "north", "action 2", "back"
  int target = -1;    // the memory node it leads to, when the memory knows; else -1
  bool back = false;  // returns to the node the agent came from (its navigation parent)
  // This episode's moves with the same label so far: how many were taken, and how many of those
  // reached a node not visited before (the action's record, where labels name actions).
  int label_tries = 0;
  int label_new = 0;
};

// The graph memory: a node per graph node visited (in order of first visit), and each tried move.
struct Memory {
  struct Edge {
    std::string label;
    int to = -1;  // -1: the move was blocked (bump mode)
  };
  std::vector<std::vector<Edge>> edges;  // by memory node: the moves tried there, first try first
  std::vector<int> visits;               // by memory node: how often the agent was there
  std::vector<int> untried;              // by memory node: the moves offered there not yet tried
  // By memory node, the labels of those moves, when the memory knows them (an Env's does; empty
  // when it does not: an explorer's window of states).
  std::vector<std::vector<std::string>> untried_labels;
  int current = 0;
  // The label of the move taken last (blocked or not); empty before the first, and where the
  // memory does not know it (an explorer's window of states).
  std::string last_label;

  int nodes() const { return static_cast<int>(visits.size()); }
};

class Env;

// What a policy sees at one decision: the moves offered, the graph memory and how much of the
// budget is spent. An Env gives its own (View(env)); the learned strategy builds one over a window
// of the states an explorer has seen (prowl/learn/learned_strategy.hpp).
struct View {
  View(const std::vector<Move>& moves_in, const Memory& memory_in, int steps_in, int budget_in,
       double coverage_in)
      : moves(&moves_in),
        memory(&memory_in),
        steps(steps_in),
        budget(budget_in),
        coverage(coverage_in) {}
  View(const Env& env);  // NOLINT(google-explicit-constructor): an Env is a view of itself

  const std::vector<Move>* moves;
  const Memory* memory;
  int steps = 0;
  int budget = 1;
  double coverage = 0;  // the share of the graph covered, where known (the critic reads it)
};

class Env {
 public:
  virtual ~Env() = default;

  // "maze6", "er-app".
  virtual std::string name() const = 0;
  // A new env of the same distribution and mode (for another thread), not yet reset.
  virtual std::unique_ptr<Env> fresh() const = 0;
  Mode mode() const { return mode_; }
  // T: the steps an episode may take.
  int budget() const { return budget_; }

  // Draws a graph and a start from the distribution, seeded: the same seed gives the same graph
  // and start. Returns r_0 = 1/|V|.
  double reset(std::uint64_t seed);
  // The moves offered now (none once done()).
  const std::vector<Move>& moves() const { return moves_; }
  // Takes moves()[index]: one step. Returns the reward. REQUIRES: !done(), index < moves().size().
  double step(std::size_t index);

  int steps() const { return steps_; }
  // Distinct graph nodes visited, over every node of the graph.
  double coverage() const;
  int covered() const { return covered_; }
  int graph_nodes() const { return static_cast<int>(out_.size()); }

  // One edge of the drawn graph: to == -1 is a wall (offered only in bump mode).
  struct GraphEdge {
    std::string label;
    int to = -1;
    int reverse = -1;  // the index of the edge back (to → here), when the graph is undirected
  };
  // The drawn graph, by node (what the agent does not see: for tests and offline optima).
  const std::vector<std::vector<GraphEdge>>& graph() const { return out_; }
  // The graph node the agent is at (hidden from it, as graph() is): the node id per-graph tabular
  // methods key on.
  int graph_node() const { return at_; }
  // Whether `back` moves exist (return to the node the agent came from).
  bool has_back() const { return has_back_; }
  // How many moves `back` can undo (the navigation stack's depth).
  int back_depth() const { return static_cast<int>(parent_.size()); }
  // The seed of the last reset: reset(graph_seed()) starts the same episode again.
  std::uint64_t graph_seed() const { return seed_; }
  bool done() const;
  const Memory& memory() const { return memory_; }

 protected:
  Env(Mode mode, int budget, bool has_back) : mode_(mode), budget_(budget), has_back_(has_back) {}
  // Draws the graph into out (by node, its edges) and returns the start node.
  virtual int draw(std::uint64_t seed, std::vector<std::vector<GraphEdge>>& out) = 0;

 private:
  void offer();
  int remember(int node);
  void learn_edge(int from_node, std::size_t edge, int to_node);
  void count_untried(int node);

  Mode mode_;
  int budget_;
  bool has_back_;
  std::vector<std::vector<GraphEdge>> out_;
  int at_ = 0;                             // graph node
  std::vector<int> memory_of_;             // graph node -> memory node (-1 unvisited)
  std::vector<int> parent_;                // navigation stack of graph nodes (back pops it)
  std::vector<std::vector<char>> tried_;   // by graph node, by edge: taken (or bumped) before
  std::vector<std::size_t> offered_edge_;  // moves_[i] -> edge index (SIZE_MAX: back)
  std::vector<Move> moves_;
  std::unordered_map<std::string, std::pair<int, int>> labels_;  // label -> tries, new
  Memory memory_;
  std::uint64_t seed_ = 0;
  int steps_ = 0;
  int covered_ = 0;
};

// A perfect 6×6 maze (recursive backtracker), a random start, T = 36, moves labelled north, east,
// south, west; no coordinates.
std::unique_ptr<Env> make_maze6(Mode mode);
// A directed Erdős–Rényi graph, n ~ U[15, 20], p = 0.1, plus a random spanning arborescence from
// the start (every node reachable, as an app's screens are from its start screen); T = 15; moves
// "action K" by edge and "back" (return to the node the agent came from, one step).
std::unique_ptr<Env> make_er_app();
// The environment named `name` ("maze6", "er-app"); an invalid Status naming the choices.
Result<std::unique_ptr<Env>> make_env(std::string_view name, Mode mode);

}  // namespace prowl::learn
