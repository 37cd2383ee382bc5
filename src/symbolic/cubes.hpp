// Frontiers as lists of cubes (conjunctions of literals), the representation the QE modes of
// reach() search with (docs/symbolic.md, "How the QE modes keep formulas small").
//
// One step from frontier F (D_i ⊆ ∪F ⊆ Reach_i, D_i the states at distance exactly i):
//   1. the image of each cube under each transition, by quantifier elimination, as cubes;
//   2. the image cubes with a state outside Reach_i are kept (the others lie inside it);
//   3. two kept cubes A, B at the same control location are replaced by their join G (the
//      candidate literals both imply: theirs, and the facets of their convex hull) when
//      G ⊆ Reach_i ∪ image, checked by Z3.
// Control variables are the state variables every transition sets to a constant or leaves as
// they are (an order's status, a phase flag); a cube's control location is the values it fixes
// for them. Joining across locations would mix a status code into the data's polyhedra
// (3·mbal − 8·st1 ≤ 0), which no later image simplifies; images skip the transitions whose guard
// the location makes false.
// The result F' has D_{i+1} ⊆ ∪F' ⊆ Reach_{i+1}, and is empty exactly at the fixpoint.
// Not thread-safe (the system's z3::context).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <z3++.h>

#include "prowl/symbolic/reach.hpp"
#include "prowl/symbolic/transition_system.hpp"

namespace prowl::sym {

// `f` as an equivalent list of cubes (its disjunctive normal form).
std::vector<z3::expr> to_cubes(const z3::expr& f);

class CubeFrontier {
 public:
  CubeFrontier(const TransitionSystem& system, ImageMode mode);
  // Adds cubes to Reach (the initial region, then each frontier step() returns).
  void add_to_reach(const std::vector<z3::expr>& cubes);
  // The next frontier; empty at the fixpoint. Throws z3::exception when Z3 fails. nullopt when
  // Z3 answered unknown (reason() says why).
  std::optional<std::vector<z3::expr>> step(const std::vector<z3::expr>& frontier);
  const std::string& reason() const { return reason_; }
  // Polled between merges: true ends merging early (the frontier is then only less merged).
  void set_stop(std::function<bool()> should_stop) { should_stop_ = std::move(should_stop); }

 private:
  struct Located {
    z3::expr cube;  // the cube with the control values it fixes as equalities
    std::string key;
    z3::expr_vector fixed, values;  // the control variables it fixes, and their values
  };
  Located locate(const z3::expr& cube);
  std::vector<z3::expr> image(const z3::expr& cube);
  void merge(std::vector<Located>& cubes, const std::vector<z3::expr>& image);

  const TransitionSystem& system_;
  z3::tactic eliminate_;
  z3::expr_vector bound_;             // the old state variables and the inputs
  std::vector<std::size_t> control_;  // the control variables, by index
  z3::solver outside_reach_;
  z3::solver scratch_;  // for short checks, left empty between them
  std::vector<z3::expr> reach_;
  std::string reason_;
  std::function<bool()> should_stop_;
};

}  // namespace prowl::sym
