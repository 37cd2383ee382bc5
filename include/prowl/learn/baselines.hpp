// The hand-written exploration policies the learned one is measured against (docs/learned.md),
// each run on an Env until it is done.
#pragma once

#include <cstdint>
#include <string_view>

#include "prowl/learn/env.hpp"

namespace prowl::learn {

// Uniform over the moves offered.
double run_random(Env& env, std::uint64_t seed);
// RandDFS (the paper's §4.1): a random move not tried yet (its target unknown), else one step back
// toward where the agent first came from (a known move to its depth-first parent, or back).
double run_randdfs(Env& env, std::uint64_t seed);
// Greedy nearest frontier: the shortest known route to the nearest node with an untried move, then
// a random untried move there.
double run_greedy(Env& env, std::uint64_t seed);
// Tabular Q-learning trained on this very graph (the paper's per-graph fine-tuning baseline):
// `episodes` ε-greedy episodes from its start (ε from 1 down to 0.05, α = 0.5, undiscounted),
// each followed by a greedy run; the best greedy run is reported (the paper reports "the best
// performance it can reach") and is the env's state on return. Q is keyed by the move's label and
// the state: the graph node alone (kNode, the paper's: "node ID as states and does not model the
// exploration history"), or the node, step, nodes visited and back stack (kHistory: the whole
// state of the episode, so that it can learn the optimal walk). The env is reset to its
// graph_seed() for each episode.
enum class QState { kNode, kHistory };
struct QtableOptions {
  QState state = QState::kNode;
  int episodes = 200;
};
double run_qtable(Env& env, std::uint64_t seed, const QtableOptions& options = {});

// The most coverage any policy could reach on the env's graph from its start within the budget,
// knowing the graph (the offline optimum; no move is blocked): an exhaustive search over walks,
// forward edges and `back`, pruned by "covered + steps left" against the best found and by
// repeated (node, visited set, back stack, steps left). For graphs of at most 64 nodes; meant
// for er-app (T = 15, n ≤ 20), where it takes milliseconds.
// REQUIRES: env was reset; env.graph_nodes() <= 64.
double optimal_coverage(const Env& env);

}  // namespace prowl::learn
