// SmtTarget: one fuzz run's SMT-LIB session, the T of Machine<SmtTarget>. It owns the solver under
// test and keeps what the model knows about it: the options and logic, the assertions of every
// open scope, the last answer and whether its model may be queried. The actions (actions_*.cpp)
// check SMT-LIB's rules against it before they call the solver, so that a replayed trace, whose
// steps may come in any order, never makes a call the solver may refuse: such a step is rejected,
// not a finding. Created fresh for every run; not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "smt_fuzz/ops.hpp"
#include "smt_fuzz/solver.hpp"

namespace smt_fuzz {

// Handle kinds in traces: s1 a sort, t2 a term, f3 a function.
inline constexpr const char* kSortKind = "s";
inline constexpr const char* kTermKind = "t";
inline constexpr const char* kFunKind = "f";

struct SortHandle {
  SortRef ref = 0;
  SortType type;
};

struct TermHandle {
  TermRef ref = 0;
  SortType sort;
  std::uint32_t depth = 0;     // of the term tree; constants and literals are 0
  std::uint32_t size = 1;      // nodes of the term tree (shared subterms counted each time)
  bool ground = false;         // no constant or function application in it
  std::optional<Value> value;  // ground terms the reference evaluator could evaluate
};

struct FunHandle {
  FunRef ref = 0;
  std::vector<SortType> domain;
  SortType codomain;
};

// A formula asserted in some scope, with its handle's name for messages.
struct Assertion {
  TermRef ref = 0;
  std::string name;
  std::optional<Value> value;
};

class SmtTarget {
 public:
  // Receives a line for every answer the solver gives (check_sat: sat, get_value t3: #b0101).
  using Observer = std::function<void(const std::string&)>;

  explicit SmtTarget(SolverFactory factory, Observer observer = {});

  bool has_solver() const { return solver_ != nullptr; }
  // REQUIRES: has_solver().
  SmtSolver& solver() { return *solver_; }
  const SmtSolver& solver() const { return *solver_; }
  // A fresh solver, with produce-models on (SMT-LIB's default is off; on, every sat answer's
  // model is validated unless the run turns it off), and a fresh session. Also SMT-LIB's reset.
  void open();
  // Deletes the solver.
  void close();

  // Options and the logic may be set only before anything is declared.
  bool configurable() const { return has_solver() && configurable_; }
  void set_option(const std::string& name, const std::string& value) { options_[name] = value; }
  void set_logic(const std::string& logic);
  // Called when the first sort, constant or term is made.
  void lock_configuration() { configurable_ = false; }
  const std::optional<std::string>& logic() const { return logic_; }
  // What the logic allows: everything when none was set.
  Theories theories() const;
  bool produce_models() const { return option("produce-models") == "true"; }
  bool incremental() const { return option("incremental") != "false"; }
  bool produce_unsat_assumptions() const { return option("produce-unsat-assumptions") == "true"; }

  // Declared names are unique across sorts, constants and functions: Z3 would take two
  // constants of one name for one constant, cvc5 for two.
  bool name_taken(const std::string& name) const { return names_.count(name) != 0; }
  void take_name(const std::string& name) { names_.insert(name); }
  // "x7": a prefix and a number not used yet in this session.
  std::string fresh_name(const std::string& prefix);
  // What get-model reports on.
  void declared_sort(SortRef sort) { declared_sorts_.push_back(sort); }
  void declared_const(TermRef term) { declared_consts_.push_back(term); }
  const std::vector<SortRef>& declared_sorts() const { return declared_sorts_; }
  const std::vector<TermRef>& declared_consts() const { return declared_consts_; }

  // The assertion stack: scope 0 and one per push.
  void add_assertion(Assertion assertion);
  void push(std::uint32_t levels);
  // REQUIRES: levels <= scopes().
  void pop(std::uint32_t levels);
  void reset_assertions();
  std::uint32_t scopes() const { return static_cast<std::uint32_t>(frames_.size() - 1); }
  // The assertions of every open scope, oldest first.
  std::vector<Assertion> assertions() const;

  // A check may run unless the solver is not incremental and already checked.
  bool may_check() const { return has_solver() && (incremental() || checks_ == 0); }
  // A check answered, with these assumptions (none for check-sat).
  void checked(Answer answer, std::vector<Assertion> assumptions);
  // The answer's model and unsat assumptions are gone (the solver checked again behind the
  // session's back, for an oracle).
  void forget_answer();
  // The last answer, kUnknown when no check ran since the solver was made.
  Answer answer() const { return answer_; }
  // get-value and get-model are allowed: the last check said sat, models are produced and
  // nothing was asserted, pushed or popped since.
  bool model_available() const { return model_available_ && produce_models(); }
  // get-unsat-assumptions is allowed: the last check had assumptions and said unsat, nothing was
  // asserted, pushed or popped since, and produce-unsat-assumptions and incremental solving are on
  // (cvc5 answers only then).
  bool unsat_assumptions_available() const {
    return core_available_ && produce_unsat_assumptions() && incremental();
  }
  const std::vector<Assertion>& last_assumptions() const { return last_assumptions_; }

  void note(const std::string& line) const;

 private:
  std::string option(const std::string& name) const;
  void invalidate_model() {
    model_available_ = false;
    core_available_ = false;
  }

  SolverFactory factory_;
  Observer observer_;
  std::unique_ptr<SmtSolver> solver_;
  bool configurable_ = true;
  std::map<std::string, std::string> options_;
  std::optional<std::string> logic_;
  std::set<std::string> names_;
  std::map<std::string, std::uint64_t> counters_;
  std::vector<SortRef> declared_sorts_;
  std::vector<TermRef> declared_consts_;
  std::vector<std::vector<Assertion>> frames_;
  std::uint64_t checks_ = 0;
  Answer answer_ = Answer::kUnknown;
  bool model_available_ = false;
  bool core_available_ = false;
  std::vector<Assertion> last_assumptions_;
};

}  // namespace smt_fuzz
