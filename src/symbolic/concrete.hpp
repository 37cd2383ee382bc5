// Evaluates a TransitionSystem's guards, updates and invariants on concrete values, with Z3's
// simplifier on the substituted terms: the same semantics as the symbolic search (integer
// division, bit-vector wrap-around). Used by replay and by the explicit model of the cross-check.
#pragma once

#include <optional>
#include <vector>

#include <z3++.h>

#include "prowl/symbolic/reach.hpp"
#include "prowl/symbolic/transition_system.hpp"

namespace prowl::sym {

class Evaluator {
 public:
  explicit Evaluator(const TransitionSystem& system);
  // `inputs`: one value per input of the system (those a transition does not read may be any).
  // nullopt when the term does not reduce to true or false.
  std::optional<bool> holds(const z3::expr& condition, const Valuation& state,
                            const Valuation& inputs) const;
  // The state after `t`; an entry is nullopt-free: every update reduces to a numeral or the
  // whole step is nullopt.
  std::optional<Valuation> after(const Transition& t, const Valuation& state,
                                 const Valuation& inputs) const;
  // Default values for every input (0, false), to fill the ones a step does not give.
  Valuation default_inputs() const;

 private:
  z3::expr value(const z3::expr& term, const Valuation& state, const Valuation& inputs) const;
  const TransitionSystem& system_;
  z3::expr_vector from_;
};

// The zero of a sort: 0, false, 0.0, #b0...
z3::expr zero_of(z3::context& context, const z3::sort& sort);

}  // namespace prowl::sym
