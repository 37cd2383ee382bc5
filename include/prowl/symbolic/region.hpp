// Regions: sets of states written as lists of disjuncts over a TransitionSystem's state
// variables. A disjunct may mention other constants (psyco's uVarReplacement_k history, inputs):
// a state is in it when some value of those makes it true. These helpers query regions with Z3
// and render states; none keeps state. Not thread-safe (the system's z3::context).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <z3++.h>

#include "prowl/symbolic/reach.hpp"
#include "prowl/symbolic/transition_system.hpp"

namespace prowl::sym {

// An answer Z3 may not be able to give.
enum class Answer { kYes, kNo, kUnknown };

// The region as one formula: the disjunction of its disjuncts (false when it has none).
z3::expr disjunction(z3::context& context, const std::vector<z3::expr>& region);
// The constants of `e` that are not state variables: its existentially read history.
z3::expr_vector aux_constants(const TransitionSystem& system, const z3::expr& e);
// The states outside `region`: the conjunction of each disjunct's negation, with the disjunct's
// aux constants bound universally.
z3::expr outside(const TransitionSystem& system, const std::vector<z3::expr>& region);
// Whether `a` and `b` hold the same states.
Answer equivalent(const TransitionSystem& system, const std::vector<z3::expr>& a,
                  const std::vector<z3::expr>& b);
// How many states are in `region` and not in `minus`, by enumeration with blocking clauses over
// the state variables; nullopt when there are more than `limit` or Z3 cannot tell.
std::optional<std::uint64_t> count_states(const TransitionSystem& system,
                                          const std::vector<z3::expr>& region,
                                          const std::vector<z3::expr>& minus, std::uint64_t limit);
// An SMT-LIB 2 script declaring the state variables and asserting the region
// (`(define-fun reach ...)` then `(assert reach)`).
std::string to_smt2(const TransitionSystem& system, const std::vector<z3::expr>& region);

// The state variables' values in `model` (completed where the model leaves them open).
Valuation values_in(const TransitionSystem& system, const z3::model& model);
// A value as traces and reports write it: 3, -3, true, 1/2; a bit-vector as its unsigned decimal.
std::string format_value(const z3::expr& numeral);
// "x=0 y=2".
std::string format_state(const TransitionSystem& system, const Valuation& state);
// Parses a value written by format_value for `sort`; nullopt when it is not one.
std::optional<z3::expr> parse_value(z3::context& context, const z3::sort& sort,
                                    const std::string& text);
// The number of distinct AST nodes of `e`.
std::size_t node_count(const z3::expr& e);

}  // namespace prowl::sym
