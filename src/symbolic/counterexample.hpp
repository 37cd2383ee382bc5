// Walks a violation found in frontier New_j back to the initial state, one SAT query per step.
#pragma once

#include <vector>

#include <z3++.h>

#include "prowl/symbolic/reach.hpp"

namespace prowl::sym {

// The shortest run to the state of `model` in New_depth: for i = depth-1..0, a state of New_i,
// a transition and inputs that step to the state after it. With `error`, a last step takes that
// error path with the model's inputs. Throws z3::exception when Z3 fails (interrupted).
Counterexample walk_back(const TransitionSystem& system,
                         const std::vector<std::vector<z3::expr>>& frontiers, std::uint32_t depth,
                         const z3::model& model, const Transition* error);

}  // namespace prowl::sym
