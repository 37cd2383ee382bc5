// Executor: runs a Program once per path, with a prefix of decisions to follow and a Chooser for
// the decisions after it, and keeps one Z3 solver across runs. The path condition of the last run
// stays asserted, one solver scope per decision, so that the next run, which shares a prefix with
// it (the searches go depth first), re-asserts and re-checks nothing of that prefix.
// Not thread-safe (its z3::context).
#pragma once

#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include <z3++.h>

#include "prowl/worstcase/sym_exec.hpp"

namespace prowl::wc::detail {

// Whether one side of a decision has a feasible path condition.
enum class Feasible { kYes, kNo, kUnknown, kUnchecked };

using Decision = PathStep;

enum class PathEnd {
  kComplete,    // the function returned
  kInfeasible,  // the chooser picked a side whose path condition is unsatisfiable
  kDepth,       // more decisions than the depth limit
  kUnknown,     // Z3 could not decide the side the path had to take
};

struct PathRecord {
  std::vector<Decision> decisions;  // an infeasible pick is the last, with end kInfeasible
  PathEnd end = PathEnd::kComplete;
  std::uint64_t cost = 0;
  // For a complete path: each input's name and value (a model of the path condition).
  std::vector<std::pair<std::string, std::string>> input;
};

// Picks the side of each decision past the prefix.
class Chooser {
 public:
  virtual ~Chooser() = default;
  // True: the executor checks both sides before choose() and the chooser must pick a feasible
  // one (kYes); the other side's feasibility is in the record for backtracking. False: choose() is
  // told nothing, and a pick that turns out infeasible ends the path (kInfeasible).
  virtual bool checks_both() const = 0;
  // The side to take at decision `so_far.size()`, at `site`.
  virtual bool choose(const std::vector<Decision>& so_far, const Site& site, Feasible if_true,
                      Feasible if_false) = 0;
};

// A program that does not behave as SymExec requires: its message names the site.
class ProgramError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The state of the run under way, which SymExec calls into.
class PathRun;

class Executor {
 public:
  Executor(const Program& program, int n, std::uint32_t max_depth);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs the program: the first prefix.size() decisions follow `prefix` (their sites must match,
  // else ProgramError), the others are the chooser's. `alternatives`, when given, gets for each
  // decision past the prefix the feasibility of the side not taken (kUnchecked when the chooser
  // does not check both). Throws ProgramError for a program that breaks SymExec's rules.
  PathRecord run(const std::vector<Decision>& prefix, Chooser& chooser,
                 std::vector<Feasible>* alternatives = nullptr);

  // Runs the program on concrete input values (name, integer): each decision takes the side its
  // condition has on them, nothing is asked of the solver, and an input without a value is a
  // ProgramError. The record has the decisions; its `input` is the values given.
  PathRecord replay(const std::vector<std::pair<std::string, std::string>>& input);

  z3::context& context() { return context_; }
  int n() const { return n_; }
  // Solver checks that answered unknown, over all runs.
  std::uint64_t unknowns() const { return unknowns_; }
  std::uint64_t checks() const { return checks_; }

 private:
  friend class PathRun;
  Feasible check(const z3::expr& literal);
  // Pops the solver back to the first `depth` decisions of the last run.
  void keep_scopes(std::size_t depth);
  void assert_decision(std::size_t index, const z3::expr& literal);

  const Program& program_;
  int n_;
  std::uint32_t max_depth_;
  z3::context context_;
  z3::solver solver_;
  std::vector<z3::expr> asserted_;  // one literal per solver scope
  std::uint64_t unknowns_ = 0;
  std::uint64_t checks_ = 0;
};

}  // namespace prowl::wc::detail
