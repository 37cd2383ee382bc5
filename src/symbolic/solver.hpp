// The solvers of the symbolic part leave SIGINT to prowl. Z3's own Ctrl-C handler (solver
// parameter ctrl_c, on by default) replaces the process's SIGINT handler during a check: it
// cancels that one check and the signal never reaches prowl, which then takes the "unknown" for
// the solver's and goes on. With it off, prowl counts the signal and interrupts Z3 itself
// (reach.cpp, Watchdog).
#pragma once

#include <z3++.h>

namespace prowl::sym {

inline z3::solver make_solver(z3::context& context) {
  z3::solver solver(context);
  z3::params params(context);
  params.set("ctrl_c", false);
  solver.set(params);
  return solver;
}

}  // namespace prowl::sym
