// The `model` environment (docs/learned.md, "On your own model"): a prowl Model's state graph as
// an Env, to train the learned strategy on the models it will explore. Its moves are the pairs
// enabled in the state the agent is at that reached a state (an action that failed there is not
// offered), labelled with the action's name, and back (to the state it came from, one step), as
// the learned strategy offers them; mode vision. The graph is explored once, breadth first, up
// to a bound: states beyond it are not in the graph, and the last level's states have no moves
// but back. Several graphs (one model at several parameters) make a distribution: reset(seed)
// takes graph seed mod their number, always from its initial state.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "prowl/core/status.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/learn/env.hpp"

namespace prowl::learn {

// One model's explored graph: by state (0 the initial state), its transitions.
struct ModelGraph {
  std::string model;
  std::vector<std::vector<Env::GraphEdge>> out;
  bool exhausted = false;  // every reachable state is in it
};

// Explores `model` breadth first for at most `max_steps` steps (0: no bound) and keeps every
// transition. An invalid model, or a run that fails, is the run's Status.
Result<ModelGraph> explore_model_graph(const Model& model, std::uint64_t max_steps);

// The environment over these graphs, `budget` steps an episode. REQUIRES: graphs not empty,
// budget >= 1.
std::unique_ptr<Env> make_model_env(std::vector<std::shared_ptr<const ModelGraph>> graphs,
                                    int budget);

}  // namespace prowl::learn
