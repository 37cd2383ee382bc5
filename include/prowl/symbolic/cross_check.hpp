// The explicit engine's view of a finite TransitionSystem, and the cross-check of a symbolic
// result against prowl's own breadth-first explorer (docs/symbolic.md, "Cross-check").
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <z3++.h>

#include "prowl/core/status.hpp"
#include "prowl/explore/model.hpp"
#include "prowl/symbolic/reach.hpp"
#include "prowl/symbolic/transition_system.hpp"

namespace prowl::sym {

// Per input, the values the explicit model tries (nullopt: none given).
using InputDomains = std::vector<std::optional<std::vector<z3::expr>>>;

// A prowl Model of `system`: its state is the state variables' values (Int and bit-vectors up to
// 64 bits, Bool); one action per (transition, values of the inputs it reads), named
// "inc p=1"; an error transition's action fails (an action_error finding); each invariant is
// one. Guards and updates are evaluated concretely with Z3. Invalid Status when the system has
// a Real variable, a value out of 64 bits, an input a transition reads without values, or more
// than one initial state. The model keeps references into `system`, which must outlive it.
Result<std::unique_ptr<Model>> to_model(const TransitionSystem& system,
                                        const InputDomains& domains);

struct CrossCheck {
  std::uint64_t sym_states = 0, bfs_states = 0;
  std::uint32_t sym_depth = 0, bfs_depth = 0;
  std::vector<std::uint64_t> sym_levels, bfs_levels;  // states first reached at each depth
  // Per check of the result (invariants, then error paths): the shortest violation's steps, or
  // nullopt when it holds.
  std::vector<std::optional<std::uint32_t>> sym_shortest, bfs_shortest;
  double bfs_seconds = 0;
  std::vector<std::string> mismatches;  // empty: the two engines agree
  bool ok() const { return mismatches.empty(); }
};

// Runs prowl's BFS on to_model(system, domains) and compares: state count with the region's
// model count, BFS depth with `result.depth`, states per level with |New_i \ Reach_{i-1}|, and
// each shortest finding. REQUIRES: `result` reached its fixpoint (status kFixpoint or kViolated
// with explore_after_violations). Invalid Status when the model cannot be built or the region
// has more than `max_states` states.
Result<CrossCheck> cross_check(const TransitionSystem& system, const ReachResult& result,
                               const InputDomains& domains, std::uint64_t max_states = 2000000);

}  // namespace prowl::sym
