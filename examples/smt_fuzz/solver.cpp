#include "smt_fuzz/solver.hpp"

namespace smt_fuzz {

std::string_view to_string(Answer answer) {
  switch (answer) {
    case Answer::kSat:
      return "sat";
    case Answer::kUnsat:
      return "unsat";
    case Answer::kUnknown:
      return "unknown";
  }
  return "?";
}

const std::vector<std::string>& solver_names() {
  static const std::vector<std::string> kNames = {"z3", "cvc5", "both"};
  return kNames;
}

SolverFactory solver_factory(std::string_view name) {
  if (name == "cvc5") return make_cvc5_solver;
  if (name == "both") return [] { return make_both_solver(make_z3_solver(), make_cvc5_solver()); };
  return make_z3_solver;
}

void warm_up(const SolverFactory& factory) {
  std::unique_ptr<SmtSolver> solver = factory();
  solver->set_option("produce-models", "true");
  const TermRef b = solver->declare_const("warm_up", solver->bool_sort());
  solver->assert_formula(b);
  if (solver->check_sat({}) == Answer::kSat) solver->value(b);
}

std::vector<OptionSpec> common_options() {
  return {{"produce-models", {"true", "false"}},
          {"produce-unsat-assumptions", {"true", "false"}},
          {"incremental", {"true", "false"}}};
}

}  // namespace smt_fuzz
