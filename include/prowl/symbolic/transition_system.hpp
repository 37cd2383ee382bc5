// TransitionSystem: a system over Z3 expressions for symbolic reachability (docs/symbolic.md).
// State variables carry the state from step to step; inputs are fresh values chosen at each step
// (a price, an amount); each transition is a guard over both and an update per state variable
// (a variable it does not assign keeps its value). An error transition is one of psyco's
// `assert false` paths: the system is broken where its guard can hold. Invariants are Boolean
// expressions over the state variables.
//
//   z3::context ctx;
//   prowl::sym::TransitionSystem ts(ctx, "counter2");
//   z3::expr x = ts.var("x", ctx.int_sort()), p = ts.input("p", ctx.int_sort());
//   ts.init(x == 0);
//   ts.transition("inc").guard(x < 3 && p >= 1 && p <= 2).update(x, x + p);
//   ts.invariant("bounded", x <= 4);
//
// Every expression belongs to the system's context. A broken precondition (an update of an
// input, a non-Bool guard, a sort mismatch, a name used twice) is a LogicError; the system-file
// reader checks all of them first and reports them with the file's line and column. Not
// thread-safe, as its z3::context is not.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <z3++.h>

namespace prowl::sym {

struct StateVar {
  std::string name;
  z3::expr now;   // the variable in the current state
  z3::expr next;  // its value after a step, named NAME' (a name no SMT-LIB symbol can take)
};

struct InputVar {
  std::string name;
  z3::expr value;
};

struct Transition {
  std::string name;
  z3::expr guard;
  // One entry per state variable, in declaration order; nullopt: keeps its value.
  std::vector<std::optional<z3::expr>> updates;
  bool error = false;
};

struct NamedInvariant {
  std::string name;
  z3::expr holds;
};

class TransitionSystem;

// Adds to the transition it was made for. Valid while its system lives.
class TransitionBuilder {
 public:
  TransitionBuilder(TransitionSystem& system, std::size_t index)
      : system_(&system), index_(index) {}
  // Conjoins `condition` (Bool) to the guard, which starts as true.
  TransitionBuilder& guard(const z3::expr& condition);
  // REQUIRES: `variable` is a state variable not yet assigned by this transition, and `value` has
  // its sort.
  TransitionBuilder& update(const z3::expr& variable, const z3::expr& value);
  // Marks the transition as an error path: reaching a state where its guard holds breaks the
  // system. Its updates are ignored.
  TransitionBuilder& error();

 private:
  Transition& transition();
  TransitionSystem* system_;
  std::size_t index_;
};

class TransitionSystem {
 public:
  explicit TransitionSystem(z3::context& context, std::string name = "system");

  z3::context& context() const { return *context_; }
  const std::string& name() const { return name_; }

  // REQUIRES: `name` is unused, is a plain SMT-LIB symbol and does not start with
  // "uVarReplacement_" (psyco's fresh names).
  z3::expr var(const std::string& name, const z3::sort& sort);
  z3::expr input(const std::string& name, const z3::sort& sort);
  // Conjoins `condition` to the initial condition, which starts as true.
  void init(const z3::expr& condition);
  TransitionBuilder transition(const std::string& name);
  void invariant(const std::string& name, const z3::expr& holds);

  const std::vector<StateVar>& vars() const { return vars_; }
  const std::vector<InputVar>& inputs() const { return inputs_; }
  const std::vector<Transition>& transitions() const { return transitions_; }
  std::vector<Transition>& transitions() { return transitions_; }
  const std::vector<NamedInvariant>& invariants() const { return invariants_; }
  const z3::expr& initial() const { return initial_; }

  std::optional<std::size_t> var_index(std::string_view name) const;
  std::optional<std::size_t> input_index(std::string_view name) const;
  std::optional<std::size_t> transition_index(std::string_view name) const;

  z3::expr_vector now_vector() const;
  z3::expr_vector next_vector() const;
  z3::expr_vector input_vector() const;
  // The value state variable `i` takes under `t`: its update, or the variable itself.
  z3::expr value_after(const Transition& t, std::size_t i) const;
  // guard(X, P) and X' = value_after(X, P) for every state variable.
  z3::expr relation(const Transition& t) const;
  // The inputs `t` reads (in its guard or updates), by index, in declaration order.
  std::vector<std::size_t> inputs_of(const Transition& t) const;

 private:
  friend class TransitionBuilder;
  void check_new_name(const std::string& name) const;

  z3::context* context_;
  std::string name_;
  std::vector<StateVar> vars_;
  std::vector<InputVar> inputs_;
  std::vector<Transition> transitions_;
  std::vector<NamedInvariant> invariants_;
  z3::expr initial_;
};

// True when `name` is a plain SMT-LIB symbol: letters, digits and ~!@$%^&*_-+=<>.?/, not
// starting with a digit.
bool is_plain_symbol(std::string_view name);

// `e` with `from[i]` replaced by `to[i]` (z3::expr::substitute is not const).
inline z3::expr substituted(z3::expr e, const z3::expr_vector& from, const z3::expr_vector& to) {
  return e.substitute(from, to);
}

// The sort's name as the system file writes it: Int, Bool, Real, (_ BitVec 8).
std::string sort_name(const z3::sort& sort);

}  // namespace prowl::sym
