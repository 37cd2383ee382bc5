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
// Tabular Q-learning trained on this very graph (the paper's per-graph fine-tuning baseline): Q
// keyed by (graph node, step, nodes visited, move label), `episodes` ε-greedy episodes from its
// start (ε from 1 down to 0.05, α = 0.5, undiscounted), then one greedy run. The env is reset to
// its graph_seed() for each episode and for the run.
double run_qtable(Env& env, std::uint64_t seed, int episodes = 200);

}  // namespace prowl::learn
