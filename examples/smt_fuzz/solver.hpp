// SmtSolver: the SMT-LIB API flow smt_fuzz drives, one interface over Z3 (C API), cvc5 (C++ API)
// and "both", which runs every call on the two and compares their check-sat answers.
//
// A solver owns its sorts, terms and functions and names each by its position in a table of its
// own (SortRef, TermRef, FunRef), numbered from 0 in the order created, so that two solvers given
// the same calls give the same refs. Calls follow SMT-LIB: options and the logic come first, a
// model is there only right after a sat answer. The caller (the fuzz model's SmtTarget) checks
// those rules before calling; a solver that still refuses, or fails, throws SolverError. Not
// thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "smt_fuzz/ops.hpp"

namespace smt_fuzz {

using SortRef = std::uint32_t;
using TermRef = std::uint32_t;
using FunRef = std::uint32_t;

enum class Answer { kSat, kUnsat, kUnknown };
std::string_view to_string(Answer answer);

// The solver failed or refused a call: an exception of the library, or a wrong result type.
class SolverError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Two solvers answered one check sat and unsat.
class Disagreement : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// An option the fuzzer may set, and the values it picks from.
struct OptionSpec {
  std::string name;
  std::vector<std::string> values;
};

// The resource limit every solver gets, so that no check runs for long. Resource units are
// counted, not timed: the same calls give the same answers.
inline constexpr std::uint32_t kZ3ResourceLimit = 200000;
inline constexpr std::uint32_t kCvc5ResourceLimit = 200000;

class SmtSolver {
 public:
  virtual ~SmtSolver() = default;

  // "z3", "cvc5", "both".
  virtual std::string_view name() const = 0;
  // The solvers that answer: itself, or the two a cross-checking solver runs.
  virtual std::vector<SmtSolver*> backends() { return {this}; }

  // The options the fuzzer may set: "produce-models", "produce-unsat-assumptions" and
  // "incremental" (true/false), then the solver's own. set_option accepts only these names.
  virtual const std::vector<OptionSpec>& options() const = 0;
  virtual void set_option(const std::string& name, const std::string& value) = 0;
  // REQUIRES: `logic` is one of logics().
  virtual void set_logic(const std::string& logic) = 0;

  virtual SortRef bool_sort() = 0;
  virtual SortRef int_sort() = 0;
  virtual SortRef bv_sort(std::uint32_t width) = 0;
  virtual SortRef declare_sort(const std::string& name) = 0;

  virtual TermRef declare_const(const std::string& name, SortRef sort) = 0;
  virtual FunRef declare_fun(const std::string& name, const std::vector<SortRef>& domain,
                             SortRef codomain) = 0;
  virtual TermRef mk_bool(bool value) = 0;
  virtual TermRef mk_int(std::int64_t value) = 0;
  virtual TermRef mk_bv(std::uint32_t width, std::uint64_t value) = 0;
  // REQUIRES: result_sort accepts the application.
  virtual TermRef mk_term(Op op, const std::vector<std::uint32_t>& indices,
                          const std::vector<TermRef>& args) = 0;
  virtual TermRef mk_app(FunRef fun, const std::vector<TermRef>& args) = 0;
  // The sort the solver gives the term; kUninterpreted sorts by the SortRef of their declaration.
  virtual SortType sort_of(TermRef term) = 0;

  virtual void assert_formula(TermRef formula) = 0;
  // check-sat, or check-sat-assuming when `assumptions` is not empty.
  virtual Answer check_sat(const std::vector<TermRef>& assumptions) = 0;
  // The answer of the last check_sat; kUnknown before the first.
  virtual Answer last_answer() const = 0;
  // get-unsat-assumptions: the assumptions of the last check that suffice for unsat, as the
  // positions of `assumptions` in that check_sat call.
  // REQUIRES: produce-unsat-assumptions and incremental solving are on; the last check had
  // assumptions and answered unsat; nothing changed since.
  virtual std::vector<std::size_t> unsat_assumptions() = 0;
  virtual void push(std::uint32_t levels) = 0;
  virtual void pop(std::uint32_t levels) = 0;
  virtual void reset_assertions() = 0;

  // The value of the term in the model of the last sat answer, completed where the model leaves
  // it open, as canonical text (to_text of ops.hpp) for Bool, Int and bit-vector terms, and as the
  // solver prints it for uninterpreted sorts.
  // REQUIRES: the last check answered sat, produce-models is on, no assertion or scope change
  // since.
  virtual std::string value(TermRef term) = 0;
  // get-model. REQUIRES: as for value().
  virtual std::string model_text(const std::vector<SortRef>& sorts,
                                 const std::vector<TermRef>& consts) = 0;
  // The term in SMT-LIB syntax, for messages.
  virtual std::string term_text(TermRef term) = 0;
};

using SolverFactory = std::function<std::unique_ptr<SmtSolver>()>;

std::unique_ptr<SmtSolver> make_z3_solver();
std::unique_ptr<SmtSolver> make_cvc5_solver();
// Runs every call on `first` and `second`; check_sat throws Disagreement when one says sat and
// the other unsat, and answers the other's answer when one says unknown.
std::unique_ptr<SmtSolver> make_both_solver(std::unique_ptr<SmtSolver> first,
                                            std::unique_ptr<SmtSolver> second);

// The solver names the command line offers: z3, cvc5, both.
const std::vector<std::string>& solver_names();
// A factory for a solver by name. REQUIRES: `name` is one of solver_names().
SolverFactory solver_factory(std::string_view name);

// Runs one small check with a solver of the factory, so that the library's global state (Z3
// builds its parameter tables and tactic registry at the first check, in tens of milliseconds) is
// initialized in this process, before runs are forked from it, and not again in every child.
void warm_up(const SolverFactory& factory);

// The options every backend knows, with the generic values.
std::vector<OptionSpec> common_options();

}  // namespace smt_fuzz
