// psyco's image of a region under a TransitionSystem's transitions (error paths excluded): the
// seed's post, rename and difference, which reach() runs in `--image psyco`. The QE modes' image
// is per cube (src/symbolic/cubes.hpp). Not thread-safe (the system's z3::context).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <z3++.h>

#include "prowl/symbolic/reach.hpp"
#include "prowl/symbolic/transition_system.hpp"

namespace prowl::sym {

// The seed's algorithm as written (jpf-psyco GSoC'16): a region is a set of symbolic states,
// each a conjunction that keeps its history. apply() adds a path's guard and postcondition to a
// state, rename() turns the old variables into fresh uVarReplacement_k and the primed ones into
// the variables, post() applies every path to every state, difference() keeps a state when part
// of it lies outside Reach. The counter k of fresh names runs across the whole search.
class Psyco {
 public:
  explicit Psyco(const TransitionSystem& system) : system_(&system) {}

  // state ∧ guard (left out when it is the constant true) ∧ X' = e, or nullopt when
  // state ∧ guard is unsatisfiable. The path's inputs are fresh constants for this step.
  std::optional<z3::expr> apply(const Transition& path, const z3::expr& state);
  // Every old state variable to a fresh uVarReplacement_k, every primed one to the variable.
  z3::expr rename(const z3::expr& stepped);
  // rename(apply(path, state)) for every non-error path and every state, in that order.
  std::vector<z3::expr> post(const std::vector<z3::expr>& region);
  // The candidates with a state outside `reach`: (∃ aux. s) ∧ (∀ aux of Reach. ¬Reach). nullopt
  // when Z3 answers unknown for one of them; `reason` then says why.
  std::optional<std::vector<z3::expr>> difference(const std::vector<z3::expr>& candidates,
                                                  const std::vector<z3::expr>& reach,
                                                  std::string& reason);
  std::uint64_t fresh_names() const { return next_; }

 private:
  z3::expr fresh(const z3::sort& sort);
  const TransitionSystem* system_;
  std::uint64_t next_ = 0;
};

}  // namespace prowl::sym
