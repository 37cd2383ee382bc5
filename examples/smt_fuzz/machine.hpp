// The SMT-LIB API model of smt_fuzz as a prowl::fsm::Machine, after Murxla's: a solver is made,
// configured (options, logic), given sorts, constants and terms, asserts and checks; the answer
// is a decision (sat, unsat, unknown) whose choice states allow the queries that fit it; push,
// pop, reset-assertions, reset and delete come from (almost) anywhere. `smt_fuzz fuzz --print-fsm`
// prints it with its probabilities; examples/smt_fuzz/README.md draws it.
#pragma once

#include "smt_fuzz/actions.hpp"
#include "smt_fuzz/solver.hpp"
#include "smt_fuzz/target.hpp"

namespace smt_fuzz {

struct MachineOptions {
  SolverFactory factory = make_z3_solver;  // the solver every run creates
  SmtTarget::Observer observer;            // sees every answer (tests); may be empty
};

// The machine, not yet checked: check() (which FuzzCommandLine::run calls) finalizes it and says
// what is wrong with it. REQUIRES: options.factory is set.
SmtMachine make_machine(MachineOptions options = {});

}  // namespace smt_fuzz
