// The actions of the SMT-LIB model, one generate/run pair per API call (prowl/fsm/machine.hpp).
// generate picks the arguments from the step's Rng and the live handles, and declines when the
// session does not allow the call. run checks the same rules again, since a replayed step may come
// at any point of a shrunk trace, and rejects the step when they fail; it never calls the solver
// against SMT-LIB's rules. Then it calls the solver and checks the answer: an exception of the
// solver, a wrong sort, a wrong value, a model that violates an assertion and a disagreement of
// two solvers are findings (Outcome::error). run never draws from the Rng, so that a replay runs
// exactly what the fuzz run ran.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "prowl/fsm/machine.hpp"
#include "smt_fuzz/target.hpp"

namespace smt_fuzz {

using SmtMachine = prowl::fsm::Machine<SmtTarget>;
using prowl::fsm::ActionIndex;

struct SmtActions {
  // actions_session.cpp
  ActionIndex new_solver = 0;
  ActionIndex set_option = 0;
  ActionIndex set_logic = 0;
  ActionIndex reset = 0;
  ActionIndex del = 0;
  // actions_terms.cpp
  ActionIndex mk_sort = 0;
  ActionIndex declare_sort = 0;
  ActionIndex mk_const = 0;
  ActionIndex declare_fun = 0;
  ActionIndex mk_value = 0;
  ActionIndex mk_term = 0;
  ActionIndex mk_app = 0;
  // actions_check.cpp
  ActionIndex assert_formula = 0;
  ActionIndex check_sat = 0;
  ActionIndex check_sat_assuming = 0;
  ActionIndex get_value = 0;
  ActionIndex get_model = 0;
  ActionIndex get_unsat_assumptions = 0;
  ActionIndex push = 0;
  ActionIndex pop = 0;
  ActionIndex reset_assertions = 0;
};

void add_session_actions(SmtMachine& machine, SmtActions& actions);
void add_term_actions(SmtMachine& machine, SmtActions& actions);
void add_check_actions(SmtMachine& machine, SmtActions& actions);

namespace detail {

using Tokens = std::optional<std::vector<std::string>>;

// The generate step of an action without arguments that needs a solver: declines without one.
Tokens no_arguments_with_a_solver(SmtTarget& target, prowl::fsm::Handles&, prowl::Rng&);

// `run` with the solver's exceptions and disagreements turned into findings (the runner names the
// action).
SmtMachine::Run guarded(SmtMachine::Run run);

// A uniformly chosen live term handle for which `keep` holds, or nullopt.
std::optional<std::string> pick_term(prowl::fsm::Handles& handles, prowl::Rng& rng,
                                     const std::function<bool(const TermHandle&)>& keep);

// Every backend's sort of `term` must be `expected`; otherwise the finding, naming the term as
// `what` ("constant", "bvadd term").
std::optional<std::string> check_sort(SmtTarget& target, TermRef term, const SortType& expected,
                                      const std::string& what);

// Adds the term to the handles (the step's return line) and tells the observer.
prowl::Outcome add_term(SmtTarget& target, prowl::fsm::Handles& handles, TermHandle term,
                        const std::string& what);

// A declared name: a letter, then letters, digits and '_'. Throws TraceError otherwise.
void check_symbol(const std::string& name);

}  // namespace detail
}  // namespace smt_fuzz
