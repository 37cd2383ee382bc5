// The session's actions: new_solver, set_option, set_logic, reset and delete.
#include <algorithm>
#include <cctype>
#include <exception>

#include "smt_fuzz/actions.hpp"

namespace smt_fuzz {

using prowl::Outcome;
using prowl::Rng;
using prowl::fsm::Args;
using prowl::fsm::Handles;
using prowl::fsm::TraceError;

namespace detail {

SmtMachine::Run guarded(SmtMachine::Run run) {
  return [run = std::move(run)](SmtTarget& target, Handles& handles, Rng& rng, const Args& args) {
    try {
      return run(target, handles, rng, args);
    } catch (const SolverError& e) {
      return Outcome::error(e.what());
    } catch (const Disagreement& e) {
      return Outcome::error(e.what());
    }
  };
}

Tokens no_arguments_with_a_solver(SmtTarget& target, Handles&, Rng&) {
  if (!target.has_solver()) return std::nullopt;
  return std::vector<std::string>{};
}

void check_symbol(const std::string& name) {
  const bool ok = !name.empty() && std::isalpha(static_cast<unsigned char>(name[0])) &&
                  std::all_of(name.begin(), name.end(), [](char c) {
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
                  });
  if (!ok) throw TraceError("'" + name + "' is not a symbol (a letter, then letters, digits, _)");
}

}  // namespace detail

namespace {

// Terms, sorts and functions belong to the solver that made them.
void forget_solver_objects(Handles& handles) {
  handles.drop_kind(kSortKind);
  handles.drop_kind(kTermKind);
  handles.drop_kind(kFunKind);
}

const OptionSpec* find_option(const SmtSolver& solver, const std::string& name) {
  for (const OptionSpec& o : solver.options()) {
    if (o.name == name) return &o;
  }
  return nullptr;
}

}  // namespace

void add_session_actions(SmtMachine& m, SmtActions& a) {
  using detail::guarded;
  using detail::Tokens;

  a.new_solver = m.action(
      "new_solver",
      [](SmtTarget& t, Handles&, Rng&) -> Tokens {
        if (t.has_solver()) return std::nullopt;
        return std::vector<std::string>{};
      },
      guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
        args.expect_size(0);
        if (t.has_solver()) return Outcome::rejected("there is a solver already");
        forget_solver_objects(h);
        t.open();
        t.note("new_solver " + std::string(t.solver().name()));
        return Outcome::ok();
      }));

  a.set_option = m.action(
      "set_option",
      [](SmtTarget& t, Handles&, Rng& rng) -> Tokens {
        if (!t.configurable()) return std::nullopt;
        // Unsat assumptions are asked for only with this option, one of twenty: it is set more
        // often than the others.
        if (rng.below(3) == 0 && !t.produce_unsat_assumptions()) {
          return std::vector<std::string>{"produce-unsat-assumptions", "true"};
        }
        const auto& options = t.solver().options();
        const OptionSpec& o = options[rng.below(options.size())];
        return std::vector<std::string>{o.name, o.values[rng.below(o.values.size())]};
      },
      guarded([](SmtTarget& t, Handles&, Rng&, const Args& args) {
        args.expect_size(2);
        if (!t.configurable()) return Outcome::rejected("options come before declarations");
        const std::string& name = args.text(0);
        const std::string& value = args.text(1);
        const OptionSpec* o = find_option(t.solver(), name);
        if (o == nullptr ||
            std::find(o->values.begin(), o->values.end(), value) == o->values.end()) {
          return Outcome::rejected("option " + name + "=" + value + " is not fuzzed with " +
                                   std::string(t.solver().name()));
        }
        t.solver().set_option(name, value);
        t.set_option(name, value);
        return Outcome::ok();
      }));

  a.set_logic = m.action(
      "set_logic",
      [](SmtTarget& t, Handles&, Rng& rng) -> Tokens {
        if (!t.configurable()) return std::nullopt;
        return std::vector<std::string>{logics()[rng.below(logics().size())]};
      },
      guarded([](SmtTarget& t, Handles&, Rng&, const Args& args) {
        args.expect_size(1);
        const std::string& logic = args.text(0);
        if (!theories_of(logic)) throw TraceError("unknown logic '" + logic + "'");
        if (!t.configurable()) return Outcome::rejected("the logic comes before declarations");
        t.solver().set_logic(logic);
        t.set_logic(logic);
        return Outcome::ok();
      }));

  a.reset = m.action("reset", detail::no_arguments_with_a_solver,
                     guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
                       args.expect_size(0);
                       if (!t.has_solver()) return Outcome::rejected("no solver");
                       forget_solver_objects(h);
                       t.open();
                       return Outcome::ok();
                     }));

  a.del = m.action("delete", detail::no_arguments_with_a_solver,
                   guarded([](SmtTarget& t, Handles& h, Rng&, const Args& args) {
                     args.expect_size(0);
                     if (!t.has_solver()) return Outcome::rejected("no solver");
                     forget_solver_objects(h);
                     t.close();
                     return Outcome::ok();
                   }));
}

}  // namespace smt_fuzz
