// smt_fuzz: fuzzes the SMT-LIB API flow of Z3 and cvc5 (README.md).
//
//   smt_fuzz fuzz --solver both --time-limit 60
//   smt_fuzz replay prowl-fuzz/001-finding/trace
//   smt_fuzz shrink prowl-fuzz/001-finding/trace -o small.trace
//
// With SMT_FUZZ_TRANSCRIPT=1 in the environment, every answer of the solver (check_sat sat,
// get_value t3 #b0101) goes to stderr as it comes: replay a trace to see what the solver said.
#include <cstdlib>
#include <iostream>
#include <string>

#include "prowl/fsm/fuzz_main.hpp"
#include "smt_fuzz/machine.hpp"

int main(int argc, char** argv) {
  prowl::fsm::FuzzCommandLine cli(
      {"smt_fuzz",
       "Fuzzes the SMT-LIB API flow of Z3 and cvc5: a weighted walk over a model of the API "
       "(options, logic, sorts, terms, assert, check-sat, push/pop, get-value, reset). Findings: "
       "crashes, unexpected solver exceptions, models that violate an assertion, wrong values of "
       "ground terms, and, with --solver both, sat/unsat disagreements of the two."});
  std::string solver = "z3";
  cli.add_option("solver", "the solver: z3, cvc5 or both (cross-checks their answers)", &solver,
                 smt_fuzz::solver_names());
  if (auto code = cli.parse(argc, argv)) return *code;
  const smt_fuzz::SolverFactory factory = smt_fuzz::solver_factory(solver);
  smt_fuzz::SmtTarget::Observer transcript;
  if (const char* env = std::getenv("SMT_FUZZ_TRANSCRIPT");
      env != nullptr && *env != '\0' && std::string(env) != "0") {
    transcript = [](const std::string& line) { std::cerr << "  " << line << '\n'; };
  }
  auto machine = smt_fuzz::make_machine({factory, transcript});
  try {
    smt_fuzz::warm_up(factory);
  } catch (const smt_fuzz::SolverError&) {
    // The runs will meet the failure again and report it.
  }
  return cli.run(machine.core());
}
